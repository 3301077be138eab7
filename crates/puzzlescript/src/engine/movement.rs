//! Movements: the player's input sets movements on the player's layers, and
//! after the rules every movement is tried, cell by cell, until nothing more
//! moves; movements that a rigid rule set and that failed ban their group.

use super::Board;
use crate::bits;
use crate::compile::Compiled;

/// Sets the input's movement on every player object; returns the player cells.
pub fn start_movement(g: &Compiled, board: &mut Board, dir: u64, players: &mut Vec<usize>) {
    find_players(g, board, players);
    move_players(g, board, dir, players);
}

/// The cells holding a player, in index order.
pub fn find_players(g: &Compiled, board: &Board, players: &mut Vec<usize>) {
    players.clear();
    let so = g.obj_words;
    for i in 0..board.cells() {
        if is_player(g, &board.objects[i * so..i * so + so]) {
            players.push(i);
        }
    }
}

/// True when a cell's objects make a player (all of an aggregate player's).
#[inline]
pub fn is_player(g: &Compiled, cell: &[u64]) -> bool {
    let mask = &g.names.player_mask;
    if let ([c], [m]) = (cell, &mask[..]) {
        let hit = c & m;
        hit != 0 && (!g.names.player_aggregate || hit == *m)
    } else if g.names.player_aggregate {
        bits::contains(cell, mask)
    } else {
        bits::intersects(cell, mask)
    }
}

/// Sets the input's movement on the player objects of the given cells.
pub fn move_players(g: &Compiled, board: &mut Board, dir: u64, players: &[usize]) {
    let (so, sm) = (g.obj_words, g.mov_words);
    let mask = &g.names.player_mask;
    if let ([m], 1, 1) = (&mask[..], so, sm) {
        // One word of objects and of movements: no slices.
        for &i in players {
            board.moving.push(i);
            let mut hit = board.objects.get(i).map_or(0, |o| o & m);
            let mut movement = 0u64;
            while hit != 0 {
                let id = hit.trailing_zeros() as usize;
                hit &= hit - 1;
                let layer = g.names.id_layer.get(id).copied().unwrap_or(0);
                // The player's layers always have a field (`MoveSlots`).
                if let Some(slot) = g.names.move_slots.slot(layer) {
                    movement |= (dir & 0x1f) << bits::mov_pos(slot).1;
                }
            }
            if let Some(slot) = board.movements.get_mut(i) {
                *slot |= movement;
            }
        }
        return;
    }
    for &i in players {
        board.moving.push(i);
        for (w, &m) in mask.iter().enumerate().take(so) {
            let mut hit = board.objects[i * so + w] & m;
            while hit != 0 {
                let id = w * 64 + hit.trailing_zeros() as usize;
                hit &= hit - 1;
                let layer = g.names.id_layer.get(id).copied().unwrap_or(0);
                if let Some(slot) = g.names.move_slots.slot(layer) {
                    bits::mov_or(&mut board.movements[i * sm..i * sm + sm], slot, dir);
                }
            }
        }
    }
}

/// The cell a movement leads to, if it stays on the board.
fn target(board: &Board, i: usize, dir: u64) -> Option<usize> {
    let h = board.height;
    match dir {
        1 => (board.xy(i).1 > 0).then(|| i - 1),
        2 => (board.xy(i).1 + 1 < h).then_some(i + 1),
        // Columns: the first column is the first `h` cells, the last the last `h`.
        4 => (i >= h).then(|| i - h),
        8 => (i + h < board.cells()).then_some(i + h),
        _ => Some(i),
    }
}

/// Moves one layer's objects of cell `i`; false when blocked.
fn move_layer(g: &Compiled, board: &mut Board, i: usize, layer: usize, dir: u64) -> bool {
    let so = g.obj_words;
    let Some(t) = target(board, i, dir) else {
        return false;
    };
    let mask = &g.names.layer_masks[layer];
    if let ([m], 1) = (&mask[..], so) {
        // One word of objects: no slices.
        if dir != 16 && board.objects[t] & m != 0 {
            return false;
        }
        let moving = board.objects[i] & m;
        board.objects[i] &= !m;
        board.objects[t] |= moving;
    } else {
        if dir != 16 && bits::intersects(&board.objects[t * so..t * so + so], mask) {
            return false;
        }
        for (w, &m) in mask.iter().enumerate().take(so) {
            let moving = board.objects[i * so + w] & m;
            board.objects[i * so + w] &= !m;
            board.objects[t * so + w] |= moving;
        }
    }
    // Only late rules look at the summaries after movement (the next turn
    // computes its own).
    if !g.late_rules.groups.is_empty() {
        board.note_cell(t, so, g.mov_words);
    }
    board.touch(i);
    board.touch(t);
    true
}

/// Tries every pending movement of cell `i`; true when something moved.
fn move_cell(g: &Compiled, board: &mut Board, i: usize) -> bool {
    let sm = g.mov_words;
    if bits::is_zero(&board.movements[i * sm..i * sm + sm]) {
        return false;
    }
    let mut moved = false;
    // The fields in slot order are the layers in order (`MoveSlots`).
    for slot in g.names.move_slots.movable() {
        let dir = bits::mov_get(&board.movements[i * sm..i * sm + sm], slot);
        let Some(layer) = g.names.move_slots.layer(slot) else {
            continue;
        };
        if dir != 0 && move_layer(g, board, i, layer, dir) {
            let (w, s) = bits::mov_pos(slot);
            board.movements[i * sm + w] &= !(0x1f << s);
            moved = true;
        }
    }
    moved
}

/// [`move_cell`] when movements take one word: visits only the layers
/// that have a movement.
fn move_cell_narrow(g: &Compiled, board: &mut Board, i: usize) -> bool {
    let Some(&word) = board.movements.get(i) else {
        return false;
    };
    let mut moved = false;
    let mut rest = word;
    while rest != 0 {
        let slot = rest.trailing_zeros() as usize / 5;
        let shift = slot * 5;
        rest &= !(0x1f << shift);
        let dir = (word >> shift) & 0x1f;
        // Only the fields of layers that move are ever set.
        let Some(layer) = g.names.move_slots.layer(slot) else {
            continue;
        };
        if move_layer(g, board, i, layer, dir) {
            board.movements[i] &= !(0x1f << shift);
            moved = true;
        }
    }
    moved
}

/// Resolves every movement; returns true when a rigid group must be banned
/// and the turn replayed (its index is then set in `banned`).
pub fn resolve_movements(g: &Compiled, board: &mut Board, banned: &mut Vec<bool>) -> bool {
    let sm = g.mov_words;
    let mut cells = std::mem::take(&mut board.moving);
    if cells.len() > 1 {
        cells.sort_unstable();
        cells.dedup();
    }
    let mut moved = true;
    while moved {
        moved = false;
        // A pass after which no cell holds a movement would be the last
        // (it moves nothing): it is skipped.
        let mut pending = false;
        for &i in &cells {
            moved |= if sm == 1 {
                move_cell_narrow(g, board, i)
            } else {
                move_cell(g, board, i)
            };
            pending |= !bits::is_zero(board.movements.get(i * sm..i * sm + sm).unwrap_or(&[]));
        }
        moved &= pending;
    }
    if g.rigid_groups.is_empty() && sm == 1 {
        // Without rigid rules no cell has rigid marks: only the movements
        // are cleared.
        for &i in &cells {
            if let Some(m) = board.movements.get_mut(i) {
                *m = 0;
            }
        }
        cells.clear();
        board.moving = cells;
        return false;
    }
    let mut replay = false;
    for &i in &cells {
        let cell = i * sm..i * sm + sm;
        if !bits::is_zero(&board.movements[cell.clone()])
            && !bits::is_zero(&board.rigid_applied[cell.clone()])
        {
            replay |= ban_rigid_group(g, board, i, banned);
        }
        for k in cell {
            board.movements[k] = 0;
            board.rigid_group[k] = 0;
            board.rigid_applied[k] = 0;
        }
    }
    cells.clear();
    board.moving = cells;
    replay
}

/// Bans the rigid group whose movement failed in cell `i`; true when newly banned.
fn ban_rigid_group(g: &Compiled, board: &Board, i: usize, banned: &mut Vec<bool>) -> bool {
    let sm = g.mov_words;
    let cell = i * sm..i * sm + sm;
    for slot in g.names.move_slots.movable() {
        let left = bits::mov_get(&board.movements[cell.clone()], slot)
            & bits::mov_get(&board.rigid_applied[cell.clone()], slot);
        if left == 0 {
            continue;
        }
        let rigid = bits::mov_get(&board.rigid_group[cell.clone()], slot) as usize;
        if let Some(&group) = rigid.checked_sub(1).and_then(|r| g.rigid_groups.get(r)) {
            if banned.len() <= group {
                banned.resize(group + 1, false);
            }
            if !banned[group] {
                banned[group] = true;
                return true;
            }
        }
        return false;
    }
    false
}
