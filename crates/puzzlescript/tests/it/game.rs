//! A small PuzzleScript Sokoban explored through `model::Game`: the state
//! count matches a hand count, pushes and wins behave as the reference's.

use std::collections::HashSet;

use model::{Game, Successors};
use puzzlescript::{compile, list_levels, Input, PuzzleScriptGame, Session};

const GAME: &str = "title tiny
========
OBJECTS
========
Background
black
Target
yellow
Wall
brown
Player
white
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
message hello
#####
#P*O#
#####
";

/// States, transitions and won states of a breadth-first search (also the reference
/// counts' search).
pub(crate) fn explore(game: &PuzzleScriptGame) -> (usize, usize, usize) {
    let mut seen: HashSet<Vec<u8>> = game.initial_states().into_iter().collect();
    let mut queue: Vec<Vec<u8>> = seen.iter().cloned().collect();
    let (mut transitions, mut wins, mut head) = (0, 0, 0);
    let mut out = Successors::new();
    while head < queue.len() {
        let s = queue[head].clone();
        head += 1;
        if game.terminal(&s).is_some() {
            wins += 1;
            continue;
        }
        out.clear();
        game.successors(&s, &mut out);
        for (_, next) in out.iter() {
            transitions += 1;
            if seen.insert(next.to_vec()) {
                queue.push(next.to_vec());
            }
        }
    }
    (seen.len(), transitions, wins)
}

#[test]
fn levels_are_numbered_over_playable_ones() {
    let g = compile("tiny.txt", GAME).unwrap();
    let levels = list_levels(&g);
    assert_eq!(levels.len(), 1);
    assert_eq!((levels[0].number, levels[0].index), (1, 1));
    assert!(PuzzleScriptGame::new(g, 2).is_err());
}

#[test]
fn one_push_wins() {
    let g = compile("tiny.txt", GAME).unwrap();
    let game = PuzzleScriptGame::new(g, 1).unwrap();
    assert_eq!(game.kind(), "puzzlescript");
    assert_eq!(
        game.action_labels(),
        vec!["up", "left", "down", "right", "action"]
    );
    // The start, then the push right onto the target: a won state.
    assert_eq!(explore(&game), (2, 1, 1));
    let won = game.initial_states()[0].clone();
    let mut out = Successors::new();
    game.successors(&won, &mut out);
    let (mv, next) = out.get(0).unwrap();
    assert_eq!(game.action_labels()[mv.action as usize], "right");
    assert_eq!(game.terminal(next), Some(0));
    assert!(game.render(next).contains("(won)"));
}

/// A level whose start already satisfies its win conditions: every input
/// is a transition to a won state (the reference checks after each turn,
/// not at load), blocked ones to the same grid, and no other unwon state
/// wins.
#[test]
fn a_start_that_already_wins_wins_on_every_input() {
    let text = GAME
        .replace("All Target on Crate", "No Crate")
        .replace("#P*O#", "#P..#\n#...#");
    let game = PuzzleScriptGame::new(compile("won.txt", &text).unwrap(), 1).unwrap();
    let start = game.initial_states()[0].clone();
    assert_eq!(game.terminal(&start), None);
    let mut out = Successors::new();
    game.successors(&start, &mut out);
    let labels: Vec<String> = out
        .iter()
        .map(|(m, _)| game.action_labels()[m.action as usize].clone())
        .collect();
    assert_eq!(labels, vec!["up", "left", "down", "right", "action"]);
    assert!(out.iter().all(|(_, next)| game.terminal(next) == Some(0)));
    // The start, its grid won, and the grids after a step down or right, won.
    assert_eq!(explore(&game), (4, 5, 3));
}

/// `color_palette` picks the reference's palette for named colours.
#[test]
fn colours_follow_the_color_palette_flag() {
    let crate_colour = |text: &str| {
        let game = PuzzleScriptGame::new(compile("tiny.txt", text).unwrap(), 1).unwrap();
        let start = game.initial_states()[0].clone();
        game.render_colors(&start).unwrap()[1][2]
    };
    // Orange in the default palette (arnecolors), in amiga, and in amiga by number.
    assert_eq!(crate_colour(GAME), Some([0xeb, 0x89, 0x31]));
    let amiga = GAME.replace("title tiny", "title tiny\ncolor_palette amiga");
    assert_eq!(crate_colour(&amiga), Some([0xff, 0x66, 0x44]));
    let three = GAME.replace("title tiny", "title tiny\ncolor_palette 3");
    assert_eq!(crate_colour(&three), Some([0xff, 0x66, 0x44]));
}

#[test]
fn session_replays_and_undoes() {
    let g = compile("tiny.txt", GAME).unwrap();
    let mut s = Session::new(&g, 1, None).unwrap();
    let start = s.text_form();
    s.input(Input::Left);
    assert_eq!(s.text_form(), start, "walking into a wall changes nothing");
    s.input(Input::Right);
    // The win moves on: there is no next level, so the finished level stays shown.
    assert_ne!(s.text_form(), start);
    s.input(Input::Undo);
    assert_eq!(s.text_form(), start);
}

#[test]
fn errors_name_the_line() {
    let bad = GAME.replace("All Target on Crate", "All Target under Crate");
    let err = compile("bad.txt", &bad).unwrap_err().to_string();
    assert!(err.starts_with("bad.txt:39:"), "{err}");
    let bad = GAME.replace("[ > Player | Crate ]", "[ > Player | Ghost ]");
    let err = compile("bad.txt", &bad).unwrap_err().to_string();
    assert!(err.starts_with("bad.txt:35:"), "{err}");
}
