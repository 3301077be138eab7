//! Text pictures of sandbox boards: a game in progress for the workbench,
//! and an instance at the start, as the seed's Figure 5 draws them.

use super::board::{bit, Board};
use super::level::{Instance, Token};
use super::play::Play;
use super::rules::DIR_NAMES;
use super::text::token_code;

/// A game in progress: one two-character square per cell (`@@` the agent,
/// `##` a filled square, `[]` a wall, a live token by its code, `..` an
/// empty square), then a status line.
pub fn draw_play(board: &Board, p: &Play) -> String {
    let side = usize::from(board.side);
    let mut out = String::new();
    for r in 0..side {
        let row: Vec<String> = (0..side)
            .map(|c| square(board, p, (r * side + c) as u8))
            .collect();
        out.push_str(&row.join(" "));
        out.push('\n');
    }
    out.push_str(&format!("score {}  moves left {}", p.score, p.moves_left));
    if p.gold {
        out.push_str("  turn reward on");
    }
    if p.pool > 0 {
        out.push_str(&format!("  black pool {}", p.pool));
    }
    if p.white > 0 {
        out.push_str(&format!("  white {}", p.white));
    }
    if p.forced_left > 0 {
        let dir = DIR_NAMES.get(usize::from(p.forced_dir)).unwrap_or(&"?");
        out.push_str(&format!("  forced {} x{}", dir, p.forced_left));
    }
    if board.is_over(p) {
        out.push_str("  (over)");
    }
    out.push('\n');
    out
}

fn square(board: &Board, p: &Play, cell: u8) -> String {
    let b = bit(cell);
    if cell == p.pos {
        "@@".to_string()
    } else if p.walls & b != 0 {
        "[]".to_string()
    } else if p.active & b != 0 {
        let kind = board.kind(cell);
        let value = board.value_at.get(usize::from(cell)).copied().unwrap_or(0);
        kind.map_or("??".to_string(), |kind| {
            token_code(&Token { cell, kind, value })
        })
    } else if p.filled & b != 0 {
        "##".to_string()
    } else {
        "..".to_string()
    }
}

/// An instance at the start, in the level file's own notation, framed.
pub fn draw_instance(inst: &Instance) -> String {
    let text = super::text::instance_text(inst);
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "board")
        .skip(1)
        .take(usize::from(inst.side))
        .collect();
    let width = rows.first().map_or(0, |r| r.len());
    let rule = format!("+{}+\n", "-".repeat(width + 2));
    let mut out = rule.clone();
    for r in rows {
        out.push_str(&format!("| {r} |\n"));
    }
    out.push_str(&rule);
    out
}
