//! The rules-and-movement part of a turn, shared by the replaying session
//! and the explorer: input movement, rules (replayed without a group when a
//! rigid movement fails, at most 50 times), movement resolution, late rules,
//! and the `require_player_movement` check.

use super::movement::{move_players, resolve_movements, start_movement};
use super::rules::apply_rules;
use super::{Board, Chooser, Scratch};
use crate::bits;
use crate::compile::Compiled;

/// The movement bit of an input: up, left, down, right, action.
pub fn input_bits(input: u8) -> u64 {
    match input {
        0 => 1,
        1 => 4,
        2 => 2,
        3 => 8,
        _ => 16,
    }
}

/// Runs the rules and movements of a turn. `dir` is the input's movement bit
/// (`None` for a turn without input). Returns false when
/// `require_player_movement` cancels the turn (the caller restores the board).
pub fn run(
    g: &Compiled,
    board: &mut Board,
    dir: Option<u64>,
    scratch: &mut Scratch,
    chooser: &mut dyn Chooser,
) -> bool {
    scratch.players.clear();
    // Records made in another turn say nothing of this one.
    board.clear_log();
    // Borrowed in place, not taken out and put back (two copies a turn).
    let use_prepared = std::mem::replace(&mut scratch.use_prepared, false);
    match scratch.prepared.as_ref().filter(|_| use_prepared) {
        Some((players, summary)) => {
            // Computed by the caller for exactly these objects.
            if let Some(dir) = dir {
                move_players(g, board, dir, players);
                // Only `require_player_movement` reads them (below).
                if g.flags.require_player_movement {
                    scratch.players.extend_from_slice(players);
                }
            }
            board.summary.clone_from(summary);
            board.summarize_movements(g.mov_words);
        }
        None => {
            if let Some(dir) = dir {
                let mut players = std::mem::take(&mut scratch.players);
                start_movement(g, board, dir, &mut players);
                scratch.players = players;
            }
            board.summarize(g.obj_words, g.mov_words);
        }
    }
    board.queue.clear();
    let has_rigid = !g.rigid_groups.is_empty();
    if !has_rigid {
        // Without rigid rules no group is ever banned and no turn replayed.
        apply_rules(g, board, &g.rules, None, scratch, chooser);
        scratch.memo.end_rules(scratch.fault.is_some());
        let mut none = Vec::new();
        resolve_movements(g, board, &mut none);
        if !g.late_rules.groups.is_empty() {
            apply_rules(g, board, &g.late_rules, None, scratch, chooser);
        }
        return player_moved(g, board, dir, scratch);
    }
    scratch.banned.clear();
    scratch.banned.resize(g.rules.groups.len(), false);
    match &mut scratch.start {
        Some(s) => s.clone_from(board),
        None => scratch.start = Some(board.clone()),
    }
    let mut rounds = 0;
    loop {
        rounds += 1;
        let banned = std::mem::take(&mut scratch.banned);
        apply_rules(g, board, &g.rules, Some(&banned), scratch, chooser);
        scratch.banned = banned;
        let mut banned = std::mem::take(&mut scratch.banned);
        let replay = resolve_movements(g, board, &mut banned);
        scratch.banned = banned;
        if replay {
            // Restored wholesale: the log no longer lists what changed, and
            // its number must not go back to the start's.
            let epoch = board.log_epoch;
            if let Some(start) = &scratch.start {
                board.clone_from(start);
            }
            board.log_epoch = epoch;
            board.clear_log();
        } else if !g.late_rules.groups.is_empty() {
            apply_rules(g, board, &g.late_rules, None, scratch, chooser);
        }
        if !replay || rounds >= 50 {
            break;
        }
    }
    player_moved(g, board, dir, scratch)
}

/// False when `require_player_movement` cancels the turn: a directional
/// turn after which every player cell still holds its player.
fn player_moved(g: &Compiled, board: &Board, dir: Option<u64>, scratch: &Scratch) -> bool {
    if dir.is_some() && g.flags.require_player_movement && !scratch.players.is_empty() {
        let so = g.obj_words;
        return scratch.players.iter().any(|&p| {
            !bits::intersects(&board.objects[p * so..p * so + so], &g.names.player_mask)
        });
    }
    true
}
