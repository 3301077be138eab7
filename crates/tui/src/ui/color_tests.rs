//! A PuzzleScript member board drawn in its objects' colours (the game's
//! `render_colors`), and without colour under `NO_COLOR`.

use crate::app::{App, Event, ViewOptions};
use crate::test_support::{press, run_jobs, UNICODE};
use crate::Workbench;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;
use ratatui::Terminal;
use std::sync::Arc;

/// One push from the start to the win; every object has its own colour.
const GAME: &str = "\
title colours
========
OBJECTS
========
Background
black
Target
yellow
Wall
brown darkbrown
Player
#fff
Crate
orange
=======
LEGEND
=======
. = Background
# = Wall
P = Player
* = Crate
O = Target
=======
SOUNDS
=======
================
COLLISIONLAYERS
================
Background
Target
Player, Wall, Crate
======
RULES
======
[ > Player | Crate ] -> [ > Player | > Crate ]
==============
WINCONDITIONS
==============
All Target on Crate
=======
LEVELS
=======
######
#P*.O#
######
";

fn draw(view: ViewOptions) -> Buffer {
    draw_at(view, (60, 16))
}

fn draw_at(view: ViewOptions, (w, h): (u16, u16)) -> Buffer {
    let bench = crate::data::fixture::fixture_of("colours.txt", GAME, 1000, None).unwrap();
    let bench: Arc<dyn Workbench> = Arc::new(bench);
    let mut app = App::new(view, (w, h));
    app.on_event(Event::Loaded(Ok(bench)));
    run_jobs(&mut app);
    press(&mut app, "2");
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| crate::ui::draw(f, &app)).unwrap();
    terminal.backend().buffer().clone()
}

/// The board's rows (those holding the level's wall row), each cell as its
/// character, background colour and foreground colour.
fn board_cells(buffer: &Buffer) -> String {
    let width = usize::from(buffer.area.width);
    let rows: Vec<&[ratatui::buffer::Cell]> = buffer.content.chunks(width).collect();
    let start = rows
        .iter()
        .position(|r| {
            r.iter()
                .map(|c| c.symbol())
                .collect::<String>()
                .contains("######")
        })
        .expect("the board is drawn");
    let mut out = String::new();
    for row in &rows[start..start + 3] {
        let left = row.iter().position(|c| c.symbol() == "#").unwrap_or(0);
        for cell in &row[left..left + 6] {
            let colour = |c: Color| match c {
                Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
                other => format!("{other:?}"),
            };
            let (bg, fg) = (colour(cell.bg), colour(cell.fg));
            out.push_str(&format!("{} {bg}/{fg}  ", cell.symbol()));
        }
        out.push('\n');
    }
    out
}

#[test]
fn a_member_board_is_drawn_in_its_objects_colours() {
    let cells = board_cells(&draw(UNICODE));
    insta::assert_snapshot!("puzzlescript_member_colours", cells);
    // The wall's first colour (brown), the player's hex code, the crate's orange, each
    // filling its cell, with the character in the ink that reads on it.
    assert!(cells.contains("# #a46422/White"), "{cells}");
    assert!(cells.contains("p #ffffff/Black"), "{cells}");
    assert!(cells.contains("* #eb8931/Black"), "{cells}");
    // A black object stays visible on a black terminal: white on black.
    assert!(cells.contains(". #000000/White"), "{cells}");
}

/// The text of the screen, row by row.
fn screen_text(buffer: &Buffer) -> String {
    let width = usize::from(buffer.area.width);
    let rows = buffer.content.chunks(width);
    rows.map(|r| r.iter().map(|c| c.symbol()).collect::<String>() + "\n")
        .collect()
}

#[test]
fn the_member_pane_names_what_each_character_on_the_board_stands_for() {
    let buffer = draw_at(UNICODE, (80, 24));
    let text = screen_text(&buffer);
    for entry in ["# wall", "p player", "* crate", ". background", "o target"] {
        assert!(text.contains(entry), "{entry:?} missing:\n{text}");
    }
    // The legend's character is drawn as on the board, in the player's colour.
    let width = usize::from(buffer.area.width);
    let (y, row) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("p player"))
        .unwrap();
    let x = row.chars().position(|c| c == 'p').unwrap();
    let cell = &buffer.content[y * width + x];
    assert_eq!(cell.bg, Color::Rgb(0xff, 0xff, 0xff), "{text}");
}

#[test]
fn no_colour_leaves_the_board_in_the_terminal_colours() {
    let view = ViewOptions {
        ascii: false,
        colour: false,
    };
    let buffer = draw(view);
    assert!(buffer
        .content
        .iter()
        .all(|c| c.fg == Color::Reset && c.bg == Color::Reset));
    let text = screen_text(&buffer);
    assert!(
        text.contains("p player"),
        "the legend stays without colour:\n{text}"
    );
}
