//! The incremental codec agrees with the whole one: re-encoding the written
//! cells of a state gives [`Layout::encode`]'s bytes, and decoding set fields
//! over the template gives [`Layout::decode`]'s objects.

use super::layout::Layout;
use crate::compile::Level;

const ROOM: &str = include_str!("../../../../levels/puzzlescript/room3.ps.txt");

#[test]
fn re_encoding_written_cells_matches_a_whole_encoding() {
    let g = crate::compile("room3", ROOM).unwrap();
    let Some(Level::Grid(grid)) = g.levels.iter().find(|l| matches!(l, Level::Grid(_))) else {
        panic!("room3 has a level");
    };
    let fields = Layout::new(&g, grid);
    let positions = Layout::with_positions(&g, grid, &grid.cells);
    assert_eq!(fields.bytes, 17);
    assert!(
        positions.bytes <= 8,
        "a narrow state: {} bytes",
        positions.bytes
    );
    check_codec(&fields, grid);
    check_codec(&positions, grid);
}

/// A level of many crates, whose position lists take more than a word: the
/// lists are then re-encoded list by list, not by shifts on one word.
#[test]
fn re_encoding_many_crates_matches_a_whole_encoding() {
    let rows = [
        "##########",
        "#*.*.*.*.#",
        "#.*.*.*..#",
        "#*.*.*.*.#",
        "#.*.*.*.*#",
        "#*.*.*.*.#",
        "#..P.....#",
        "##########",
    ];
    let game = ROOM.split("LEVELS").next().unwrap_or_default().to_string()
        + "LEVELS\n\n"
        + &rows.join("\n")
        + "\n";
    let g = crate::compile("crates", &game).unwrap();
    let Some(Level::Grid(grid)) = g.levels.iter().find(|l| matches!(l, Level::Grid(_))) else {
        panic!("the game has a level");
    };
    let positions = Layout::with_positions(&g, grid, &grid.cells);
    assert!(positions.bytes > 9, "{} bytes", positions.bytes);
    check_codec(&positions, grid);
}

/// Moves changing objects cell by cell and compares the incremental codec
/// with the whole one; the cells written include every cell of the level,
/// most of them written back to what they held (a frame cleared and drawn
/// again).
fn check_codec(layout: &Layout, grid: &crate::compile::Grid) {
    let mut state = Vec::new();
    assert!(layout.encode(&grid.cells, false, &mut state));
    // Move every changing object of each cell one cell down, cell after cell,
    // and compare the two encodings after each move.
    let mut objects = grid.cells.clone();
    let mut cells = Vec::new();
    let mut start = layout.template.clone();
    layout.decode_fields(&state, &mut start, &mut cells);
    assert_eq!(start, objects, "decoding set fields gives the grid");
    for &i in cells.iter().take(4) {
        let before = objects.clone();
        let moved = objects[i] & layout.mutable[0];
        if objects
            .get(i + 1)
            .is_some_and(|&o| o & layout.mutable[0] == 0)
        {
            objects[i] &= !moved;
            objects[i + 1] |= moved;
        }
        let mut whole = Vec::new();
        let ok = layout.encode(&objects, true, &mut whole);
        let mut part = state.clone();
        part[0] = 1;
        let mut written: Vec<usize> = (0..objects.len()).collect();
        written.extend([i, i + 1]);
        let ok2 = layout.reencode_cells(&before, &objects, &written, &mut part[1..]);
        assert_eq!((ok, &part), (ok2, &whole));
        state = part;
        state[0] = 0;
        let mut back = Vec::new();
        layout.decode(&state, &mut back);
        assert_eq!(back, objects);
    }
}

/// A step of room4's player, a list of one entry, rewrites that entry
/// alone: from every cell the walk reaches, to every cell of the level
/// (cells without a position included), [`Layout::step_state`] gives
/// [`Layout::shift_state`]'s word and flag. A crate (a list of four) and a
/// player not on the cell named have no lone entry.
#[test]
fn a_lone_entry_steps_as_the_lists_shift() {
    use crate::engine::direct::Shift;
    let text = include_str!("../../../../levels/puzzlescript/room4.ps.txt");
    let g = crate::compile("room4", text).unwrap();
    let Some(Level::Grid(grid)) = g.levels.iter().find(|l| matches!(l, Level::Grid(_))) else {
        panic!("room4 has a level");
    };
    let layout = Layout::with_positions(&g, grid, &grid.cells);
    assert!(layout.word_state());
    let (player, crate_) = (
        1u64 << g.names.objects["player"].0,
        1u64 << g.names.objects["crate"].0,
    );
    let mut state = Vec::new();
    assert!(layout.encode(&grid.cells, false, &mut state));
    let mut word = super::packed::load(&state);
    let find = |o: u64| grid.cells.iter().position(|&c| c & o != 0).unwrap();
    let (mut at, box_at) = (find(player), find(crate_));
    assert_eq!(layout.lone_entry(crate_, box_at, word), None);
    assert_eq!(layout.lone_entry(player, at + 1, word), None);
    let (mut compared, mut visited) = (0, std::collections::HashSet::new());
    for round in 0..grid.cells.len() {
        let entry = layout.lone_entry(player, at, word).expect("one player");
        for to in 0..grid.cells.len() {
            let shift = Shift {
                from: at as u32,
                to: to as u32,
                objects: player,
            };
            for won in [false, true] {
                let lists = layout.shift_state(word, won, &[shift]);
                assert_eq!(
                    layout.step_state(&entry, word, won, to),
                    lists,
                    "{round} {to}"
                );
                compared += usize::from(lists.1);
            }
        }
        // On to the next cell with a player's position and no crate, in a
        // sweep of the level.
        let step = |to: usize| Shift {
            from: at as u32,
            to: to as u32,
            objects: player,
        };
        let next = (1..grid.cells.len())
            .map(|d| (at + d) % grid.cells.len())
            .find(|&c| {
                grid.cells[c] & crate_ == 0 && layout.shift_state(word, false, &[step(c)]).1
            });
        if let Some(next) = next {
            word = layout.shift_state(word, false, &[step(next)]).0;
            at = next;
            visited.insert(at);
        }
    }
    assert!(visited.len() > 40, "{} cells visited", visited.len());
    assert!(compared > 1_000, "{compared} steps compared");
}
