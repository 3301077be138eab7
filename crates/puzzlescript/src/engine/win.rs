//! The win conditions, checked over every cell.

use crate::bits;
use crate::compile::{Compiled, WinCondition};

fn holds(set: &[u64], all: bool, cell: &[u64]) -> bool {
    if all {
        bits::contains(cell, set)
    } else {
        bits::intersects(cell, set)
    }
}

fn condition_holds(c: &WinCondition, objects: &[u64], so: usize) -> bool {
    let mut cells = objects.chunks(so);
    let both = |cell: &[u64]| holds(&c.first, c.first_all, cell) && holds(&c.second, c.second_all, cell);
    match c.quantifier {
        -1 => !cells.any(both),
        0 => cells.any(both),
        _ => !cells.any(|cell| {
            holds(&c.first, c.first_all, cell) && !holds(&c.second, c.second_all, cell)
        }),
    }
}

/// True when the game has win conditions and all of them hold.
pub fn satisfied(g: &Compiled, objects: &[u64]) -> bool {
    !g.win_conditions.is_empty()
        && g
            .win_conditions
            .iter()
            .all(|c| condition_holds(c, objects, g.obj_words))
}
