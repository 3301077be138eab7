//! Tests of level checks, region numbering and drawing.

use super::*;
use crate::sokoban::text::split_levels;

fn board(text: &str) -> Result<Board, GamesError> {
    let levels = split_levels("b.xsb", text)?;
    build_board("b.xsb", &levels[0])
}

#[test]
fn numbers_region_row_major_and_links_neighbours() {
    let b = board("#####\n#@$.#\n#  ##\n####\n").unwrap();
    assert_eq!(b.cells, vec![(1, 1), (1, 2), (1, 3), (2, 1), (2, 2)]);
    assert_eq!(b.player, 0);
    assert_eq!(b.boxes, vec![1]);
    assert_eq!(b.goals, vec![false, false, true, false, false]);
    // Up, down, left, right of cell 1 (row 1, column 2).
    assert_eq!(b.neighbours[1], [NO_CELL, 4, 0, 2]);
    assert_eq!(b.neighbours[3], [0, NO_CELL, NO_CELL, 4]);
}

#[test]
fn region_ignores_unreachable_floor_but_keeps_it_drawn() {
    let text = "  ####\n###  #\n#@$ .#\n######\n";
    let b = board(text).unwrap();
    assert_eq!(
        b.cells,
        vec![(1, 3), (1, 4), (2, 1), (2, 2), (2, 3), (2, 4)]
    );
    assert_eq!((b.player, b.boxes.clone()), (2, vec![3]));
    assert_eq!(b.draw(2, &[3]), text);
}

#[test]
fn draws_player_and_boxes_on_goals() {
    let b = board("#####\n#+*$#\n#  .#\n#####\n").unwrap();
    assert_eq!(b.draw(0, &[1, 2]), "#####\n#+*$#\n#  .#\n#####\n");
    assert_eq!(b.draw(4, &[2, 5]), "#####\n#..$#\n# @*#\n#####\n");
}

#[test]
fn missing_player_points_at_the_board_start() {
    let err = board("; t\n\n####\n#$.#\n####\n").unwrap_err();
    assert_eq!(
        err,
        GamesError::NoPlayer {
            file: "b.xsb".into(),
            line: 3,
            column: 1,
            title: "t".into()
        }
    );
}

#[test]
fn second_player_is_pointed_at() {
    let err = board("######\n#@ $.#\n# + ##\n######\n").unwrap_err();
    assert_eq!(
        err,
        GamesError::TwoPlayers {
            file: "b.xsb".into(),
            line: 3,
            column: 3,
            first_line: 2,
            first_column: 2,
            title: "level 1".into()
        }
    );
    assert!(err
        .to_string()
        .starts_with("b.xsb:3:3: level \"level 1\" has a second player"));
}

#[test]
fn open_edge_names_the_escape_cell() {
    // A gap in the right wall of row 2: the player escapes from column 5.
    let err = board("#####\n#@$. \n#####\n").unwrap_err();
    assert!(
        matches!(
            err,
            GamesError::OpenLevel {
                line: 2,
                column: 5,
                ..
            }
        ),
        "{err}"
    );
    let err = board("#####\n#@$.#\n## ##\n").unwrap_err();
    assert!(
        matches!(
            err,
            GamesError::OpenLevel {
                line: 3,
                column: 3,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn ragged_short_row_is_a_gap() {
    // Row 3 ends before column 4, so cell (2, 4) has no neighbour below.
    let err = board("#####\n#@ $ #\n###\n").unwrap_err();
    assert!(
        matches!(
            err,
            GamesError::OpenLevel {
                line: 2,
                column: 4,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn open_level_found_through_run_lengths() {
    let err = board("5#|#@2-|5#\n").unwrap_err();
    assert!(
        matches!(
            err,
            GamesError::OpenLevel {
                line: 1,
                column: 7,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn box_outside_region_is_rejected() {
    let err = board("#######\n#@ #$ #\n#. ####\n#######\n").unwrap_err();
    assert_eq!(
        err,
        GamesError::UnreachableBox {
            file: "b.xsb".into(),
            line: 2,
            column: 5,
            title: "level 1".into()
        }
    );
}

#[test]
fn region_beyond_u16_cells_is_too_large() {
    // A 256 x 256 open room written with run lengths: 65,536 cells.
    let mut text = String::from("258#\n#@255-#\n");
    for _ in 1..256 {
        text.push_str("#256-#\n");
    }
    text.push_str("258#\n");
    let err = board(&text).unwrap_err();
    assert!(
        matches!(
            err,
            GamesError::LevelTooLarge {
                line: 1,
                column: 1,
                cells: 65_536,
                max: 65_535,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_row_of_floor_alone_is_drawn_as_a_dash_and_reloads_as_the_same_level() {
    // Found by fuzzing: a trailing `-` row was drawn as a blank line, so the canonical
    // text reloaded without it, as another level with another hash.
    let walled = "#######\n#@    #\n# $ $ #\n#  .. #\n#######\n";
    let cases = [
        (format!("{walled}-\n"), format!("{}|-\n", walled.trim_end())),
        (format!("-|--|{walled}"), format!("-|-|{walled}")),
        (
            " #### #\n#@#\n##||||||#||########\n".to_string(),
            " #### #\n#@#\n##|-|-|-|-|-\n#|-\n########\n".to_string(),
        ),
    ];
    for (text, canonical) in cases {
        let first = crate::load("a.xsb", &text, &crate::LevelSelector::First);
        let first = first.expect("loads");
        assert_eq!(first.text, canonical);
        let again = crate::load("b.xsb", &first.text, &crate::LevelSelector::First);
        assert_eq!(again.expect("reloads").text, first.text);
    }
}
