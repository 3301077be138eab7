//! Tests of the board: moves against a cell-by-cell reference, symmetries.

use super::*;

/// Parses 8 rows of `o`/`.` for the tests.
fn board(rows: &str) -> Board {
    let mut mask = 0u64;
    for (y, line) in rows.lines().enumerate() {
        for (x, c) in line.chars().enumerate() {
            if c == 'o' {
                mask |= 1 << (y * WIDTH + x);
            }
        }
    }
    Board::from_mask(mask).unwrap()
}

/// The rules applied one cell at a time, as the spec words them.
fn reference_apply(board: Board, cell: usize, dir: Direction) -> Option<Board> {
    let (dx, dy) = match dir {
        Direction::Left => (-1, 0),
        Direction::Up => (0, -1),
        Direction::Right => (1, 0),
        Direction::Down => (0, 1),
    };
    let inside = |x: i32, y: i32| (0..7).contains(&x) && (0..8).contains(&y);
    let at = |b: u64, x: i32, y: i32| inside(x, y) && b >> (y * 7 + x) & 1 == 1;
    let (mut x, mut y) = ((cell % 7) as i32, (cell / 7) as i32);
    if !at(board.mask(), x, y) || at(board.mask(), x + dx, y + dy) {
        return None;
    }
    let mut b = board.mask();
    let mut first = true;
    loop {
        // Pass the momentum through a touching line.
        while !first && at(b, x + dx, y + dy) {
            x += dx;
            y += dy;
        }
        let (mut nx, mut ny) = (x, y);
        while inside(nx + dx, ny + dy) && !at(b, nx + dx, ny + dy) {
            nx += dx;
            ny += dy;
        }
        if !inside(nx + dx, ny + dy) {
            if first {
                return None;
            }
            return Board::from_mask(b & !(1 << (y * 7 + x)));
        }
        b = (b & !(1 << (y * 7 + x))) | 1 << (ny * 7 + nx);
        x = nx + dx;
        y = ny + dy;
        first = false;
    }
}

fn xorshift(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

#[test]
fn moves_match_the_reference_on_random_boards() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..3000 {
        let mask = xorshift(&mut seed) & xorshift(&mut seed) & FULL;
        let b = Board::from_mask(mask).unwrap();
        for cell in 0..CELLS {
            for dir in DIRECTIONS {
                assert_eq!(
                    b.apply(cell, dir),
                    reference_apply(b, cell, dir),
                    "{cell} {dir:?}\n{}",
                    b.rows()
                );
            }
        }
    }
}

#[test]
fn two_pieces_in_a_row_knock_each_other_off() {
    let b = board(".......\n.......\n.......\n.......\n.......\no....o.\n.......\n.......\n");
    let mut moves = Vec::new();
    b.for_each_move(|a, child| moves.push((action_label(a), child.rows())));
    let left = ".......\n.......\n.......\n.......\n.......\n....o..\n.......\n.......\n";
    let right = ".......\n.......\n.......\n.......\n.......\n.o.....\n.......\n.......\n";
    assert_eq!(
        moves,
        vec![
            ("0,5 right".to_string(), left.to_string()),
            ("5,5 left".to_string(), right.to_string())
        ]
    );
}

#[test]
fn adjacent_pieces_cannot_be_flung_into_each_other_and_momentum_passes_on() {
    let b = board("oo..o..\n.......\n.......\n.......\n.......\n.......\n.......\n.......\n");
    assert_eq!(b.apply(0, Direction::Right), None);
    assert_eq!(b.apply(0, Direction::Left), None);
    // The piece at x=4 hits x=1, whose touching neighbour x=0 flies off.
    let after = b.apply(4, Direction::Left).unwrap();
    assert_eq!(after.rows().lines().next(), Some(".oo...."));
    // The piece at x=1 cannot move right? It can: x=2 is empty and x=4 is a target.
    let after = b.apply(1, Direction::Right).unwrap();
    assert_eq!(after.rows().lines().next(), Some("o..o..."));
}

#[test]
fn symmetries_mirror_and_canonical_is_the_smallest_image() {
    let b = board("o......\n.......\n.......\n.......\n.......\n.......\n.......\n......o\n");
    assert_eq!(b.mirror_lr().mirror_lr(), b);
    assert_eq!(b.mirror_tb().mirror_tb(), b);
    let corner = board("......o\n.......\n.......\n.......\n.......\n.......\n.......\n.......\n");
    assert_eq!(corner.mirror_lr().mask(), 1);
    assert_eq!(corner.mirror_tb().mask(), 1 << 55);
    assert_eq!(corner.canonical().mask(), 1);
    let mut seed = 7u64;
    for _ in 0..500 {
        let b = Board::from_mask(xorshift(&mut seed) & FULL).unwrap();
        let c = b.canonical();
        assert!(b.symmetries().iter().all(|s| s.canonical() == c));
        assert_eq!(c.pieces(), b.pieces());
    }
}

#[test]
fn action_labels_round_trip() {
    assert_eq!(action_label(action_id(8, Direction::Down)), "1,1 down");
    assert_eq!(
        action_parts(action_id(55, Direction::Up)),
        Some((55, Direction::Up))
    );
    assert_eq!(action_parts(ACTIONS as u16), None);
}
