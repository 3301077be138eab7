//! The fast and general rules checked against a plain reference version
//! written on grid coordinates, on random states of several levels.

use std::collections::{BTreeSet, HashMap};

use model::{Game, Successors};

use super::super::board::{Tile, DIRECTIONS};
use super::super::{split_levels, Sokoban};
use crate::test_support::XorShift;

/// Successors computed the obvious way: walk the grid, look up boxes in a
/// set, sort the result.
fn reference(
    game: &Sokoban,
    position: &HashMap<(usize, usize), usize>,
    state: &[u8],
) -> Vec<(u16, Vec<u8>)> {
    let board = game.board();
    let wide = board.cells.len() > 256;
    let decode = |s: &[u8]| -> Vec<usize> {
        if wide {
            s.chunks(2)
                .map(|c| usize::from(u16::from_le_bytes([c[0], c[1]])))
                .collect()
        } else {
            s.iter().map(|&b| usize::from(b)).collect()
        }
    };
    let cells = decode(state);
    let (player, boxes) = (
        cells[0],
        cells[1..].iter().copied().collect::<BTreeSet<usize>>(),
    );
    let free = |rc: (isize, isize)| -> Option<usize> {
        let (r, c) = (usize::try_from(rc.0).ok()?, usize::try_from(rc.1).ok()?);
        (*board.tiles.get(r)?.get(c)? != Tile::Wall).then(|| position[&(r, c)])
    };
    let (pr, pc) = board.cells[player];
    let mut result = Vec::new();
    for (action, (dr, dc)) in (0u16..).zip(DIRECTIONS) {
        let here = (pr as isize + dr, pc as isize + dc);
        let Some(next) = free(here) else { continue };
        let mut new_boxes = boxes.clone();
        if boxes.contains(&next) {
            let Some(beyond) = free((here.0 + dr, here.1 + dc)) else {
                continue;
            };
            if boxes.contains(&beyond) {
                continue;
            }
            new_boxes.remove(&next);
            new_boxes.insert(beyond);
        }
        let mut encoded = Vec::new();
        for cell in std::iter::once(next).chain(new_boxes) {
            if wide {
                encoded.extend_from_slice(&(cell as u16).to_le_bytes());
            } else {
                encoded.push(cell as u8);
            }
        }
        result.push((action, encoded));
    }
    result
}

/// A random state: the player and the level's number of boxes on distinct
/// region cells, boxes ascending.
fn random_state(game: &Sokoban, rng: &mut XorShift) -> Vec<u8> {
    let cells = game.region_cells();
    let mut taken = BTreeSet::new();
    let player = rng.below(cells);
    taken.insert(player);
    let mut boxes = BTreeSet::new();
    while boxes.len() < game.box_count() {
        let b = rng.below(cells);
        if taken.insert(b) {
            boxes.insert(b);
        }
    }
    let mut state = Vec::new();
    for cell in std::iter::once(player).chain(boxes) {
        if cells > 256 {
            state.extend_from_slice(&(cell as u16).to_le_bytes());
        } else {
            state.push(cell as u8);
        }
    }
    state
}

/// An open room `width` x `height` inside walls, with a pillar pattern,
/// the player in a corner and `boxes` boxes and goals spread out.
fn room(width: usize, height: usize, boxes: usize) -> String {
    let mut grid = vec![vec![' '; width + 2]; height + 2];
    let mut free = Vec::new();
    for (r, row) in grid.iter_mut().enumerate() {
        for (c, cell) in row.iter_mut().enumerate() {
            let border = r == 0 || c == 0 || r == height + 1 || c == width + 1;
            if border || (r % 4 == 2 && c % 5 == 3) {
                *cell = '#';
            } else if (r, c) != (1, 1) {
                free.push((r, c));
            }
        }
    }
    grid[1][1] = '@';
    let step = free.len() / (boxes + 1);
    for i in 0..boxes {
        let (r, c) = free[step * (i + 1)];
        grid[r][c] = '$';
        let (r, c) = free[free.len() - 1 - i];
        grid[r][c] = if grid[r][c] == '$' { '*' } else { '.' };
    }
    grid.iter()
        .map(|r| r.iter().collect::<String>() + "\n")
        .collect()
}

fn check_level(name: &str, text: &str, samples: usize) {
    let raw = split_levels(name, text).unwrap();
    let fast = Sokoban::from_raw(name, &raw[0]).unwrap();
    let wide = fast.clone().with_wide_rules();
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut out = Successors::new();
    let board = fast.board();
    let position: HashMap<(usize, usize), usize> = board
        .cells
        .iter()
        .enumerate()
        .map(|(i, &rc)| (rc, i))
        .collect();
    for _ in 0..samples {
        let state = random_state(&fast, &mut rng);
        let expect = reference(&fast, &position, &state);
        let won = reference_won(&fast, &state);
        for game in [&fast, &wide] {
            out.clear();
            game.successors(&state, &mut out);
            let got: Vec<_> = out.iter().map(|(m, s)| (m.action, s.to_vec())).collect();
            assert_eq!(
                got,
                expect,
                "{name}: state {state:?}\n{}",
                fast.render(&state)
            );
            assert_eq!(game.terminal(&state).is_some(), won, "{name}: {state:?}");
        }
    }
}

/// True when no box is drawn off a goal.
fn reference_won(game: &Sokoban, state: &[u8]) -> bool {
    !game.render(state).contains('$')
}

#[test]
fn fast_and_general_rules_agree_with_the_reference() {
    let bench = include_str!("../../../../levels/sokoban/room4.xsb");
    check_level("room4.xsb", bench, 5_000);
    check_level(
        "room5.xsb",
        include_str!("../../../../levels/sokoban/room5.xsb"),
        5_000,
    );
    check_level("crowded.xsb", &room(8, 6, 20), 5_000);
    let medium = room(14, 12, 6);
    check_level("medium.xsb", &medium, 2_000);
    let large = room(22, 16, 9);
    check_level("large.xsb", &large, 2_000);
}

#[test]
fn test_rooms_cover_every_encoding() {
    let sizes: Vec<usize> = [room(8, 6, 20), room(14, 12, 6), room(22, 16, 9)]
        .iter()
        .map(|t| {
            Sokoban::from_raw("r", &split_levels("r", t).unwrap()[0])
                .unwrap()
                .region_cells()
        })
        .collect();
    assert!(
        sizes[0] <= 128 && sizes[1] > 128 && sizes[1] <= 256 && sizes[2] > 256,
        "{sizes:?}"
    );
}
