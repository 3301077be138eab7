//! A text picture of a PuzzleGraph state: every node drawn at its `pos:`
//! coordinates (y grows upwards, as in PuzzleGraph's editor), edges as lines of
//! `-`, `|`, `/` and `\` with a letter for their element at the middle, then a
//! list of the items and of every element with its current value.

use super::puzzle::{Container, EdgeKind, NodeKind, Puzzle};
use super::state::State;

/// Rows between two grid units.
const ROWS_PER_UNIT: i64 = 3;

/// The largest picture drawn, in characters: far beyond any real puzzle's, small enough
/// that a level with nodes far apart cannot exhaust memory.
const MAX_CELLS: i64 = 1 << 22;

/// The picture of `state` in `puzzle`.
pub fn render(puzzle: &Puzzle, state: &State) -> String {
    let tokens: Vec<String> = (0..puzzle.nodes.len())
        .map(|n| node_token(puzzle, state, n))
        .collect();
    let widest = tokens.iter().map(|t| t.chars().count()).max().unwrap_or(1) as i64;
    let Some(mut canvas) = Canvas::new(puzzle, widest + 3) else {
        // Regression: nodes at `pos:0,777777771` asked for a 56 GB canvas (found by
        // fuzzing); such a level is still listed, only not drawn.
        return format!(
            "{}\n(the nodes lie too far apart to draw)\n{}",
            puzzle.title,
            legend(puzzle, state)
        );
    };
    for edge in &puzzle.edges {
        let (Some(a), Some(b)) = (puzzle.nodes.get(edge.a), puzzle.nodes.get(edge.b)) else {
            continue;
        };
        let marker = edge_marker(edge.kind, edge.bit.is_some_and(|bit| state.get(bit)));
        canvas.line(canvas.at(a.pos), canvas.at(b.pos), marker);
    }
    for (node, token) in puzzle.nodes.iter().zip(&tokens) {
        let (row, col) = canvas.at(node.pos);
        let half = token.chars().count() as i64 / 2;
        canvas.text(row, col - half, token);
    }
    let mut out = format!("{}\n", puzzle.title);
    out.push_str(&canvas.into_string());
    out.push_str(&legend(puzzle, state));
    out
}

/// `[name]` plus the node's element and items: `[C goal @]`, `[D toggle:on]`.
fn node_token(puzzle: &Puzzle, state: &State, n: usize) -> String {
    let Some(node) = puzzle.nodes.get(n) else {
        return String::new();
    };
    let on = node.bit.is_some_and(|b| state.get(b));
    let mut token = format!("[{}", node.name);
    let element = match node.kind {
        NodeKind::Default => String::new(),
        NodeKind::Goal => " goal".into(),
        NodeKind::Bridge if on => " bridge".into(),
        NodeKind::Bridge => " hole".into(),
        kind => format!(" {}:{}", kind.name().to_lowercase(), on_off(on)),
    };
    token.push_str(&element);
    let players = state
        .players
        .iter()
        .filter(|&&p| usize::from(p) == n)
        .count();
    let balls = state.balls.iter().filter(|&&b| usize::from(b) == n).count();
    if players + balls > 0 {
        token.push(' ');
        token.push_str(&"@".repeat(players));
        token.push_str(&"o".repeat(balls));
    }
    token.push(']');
    token
}

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

/// The letter drawn in the middle of an edge: upper case when it blocks walking.
fn edge_marker(kind: EdgeKind, on: bool) -> Option<char> {
    Some(match kind {
        EdgeKind::Default => return None,
        EdgeKind::Step => 's',
        EdgeKind::Wall => 'W',
        EdgeKind::OneWay => '>',
        EdgeKind::NoBall => 'n',
        EdgeKind::Vision => 'V',
        EdgeKind::Gate if on => 'g',
        EdgeKind::Gate => 'G',
        EdgeKind::BlockableHazard if on => 'h',
        EdgeKind::BlockableHazard => 'H',
        EdgeKind::BallTrack => 'T',
    })
}

/// Items, every element's value and the meaning of the letters.
fn legend(puzzle: &Puzzle, state: &State) -> String {
    let names = |items: &[u16]| -> String {
        let list: Vec<&str> = items
            .iter()
            .map(|&n| puzzle.node_name(usize::from(n)))
            .collect();
        if list.is_empty() {
            "none".into()
        } else {
            list.join(", ")
        }
    };
    let mut out = format!(
        "players at {}; balls at {}\n",
        names(&state.players),
        names(&state.balls)
    );
    for (bit, d) in puzzle.dynamic.iter().enumerate() {
        let on = state.get(bit);
        let meaning = match (puzzle.element_name(d.container), on) {
            ("Gate", true) => "open",
            ("Gate", false) => "closed",
            ("BlockableHazard", true) => "safe",
            ("BlockableHazard", false) => "hazard",
            ("Bridge", true) => "passable",
            ("Bridge", false) => "hole",
            (_, on) => on_off(on),
        };
        out.push_str(&format!(
            "{} {}: {meaning}\n",
            puzzle.element_name(d.container),
            puzzle.container_name(d.container)
        ));
    }
    for &c in &puzzle.statics {
        if let Container::Edge(e) = c {
            out.push_str(&format!(
                "{} {}\n",
                puzzle.element_name(c),
                puzzle.edge_name(e)
            ));
        }
    }
    out.push_str(
        "(@ player, o ball; edges: s step, W wall, > one-way, n no-ball, V vision, \
         G/g gate closed/open, H/h hazard/safe, T ball track; forward = first node to second)\n",
    );
    out
}

/// A character grid with the puzzle's coordinates mapped onto it.
struct Canvas {
    cells: Vec<Vec<char>>,
    min_x: i64,
    max_y: i64,
    cols_per_unit: i64,
    margin: i64,
}

impl Canvas {
    /// A blank canvas for every node of `puzzle`, or `None` when it would have more than
    /// [`MAX_CELLS`] cells.
    fn new(puzzle: &Puzzle, cols_per_unit: i64) -> Option<Canvas> {
        let xs = puzzle.nodes.iter().map(|n| i64::from(n.pos.0));
        let ys = puzzle.nodes.iter().map(|n| i64::from(n.pos.1));
        let (min_x, max_x) = (xs.clone().min().unwrap_or(0), xs.max().unwrap_or(0));
        let (min_y, max_y) = (ys.clone().min().unwrap_or(0), ys.max().unwrap_or(0));
        let margin = cols_per_unit / 2;
        let width = (max_x - min_x)
            .saturating_mul(cols_per_unit)
            .saturating_add(2 * margin + 1);
        let height = (max_y - min_y)
            .saturating_mul(ROWS_PER_UNIT)
            .saturating_add(1);
        if width.saturating_mul(height) > MAX_CELLS {
            return None;
        }
        Some(Canvas {
            cells: vec![vec![' '; width as usize]; height as usize],
            min_x,
            max_y,
            cols_per_unit,
            margin,
        })
    }

    /// The (row, column) of a grid position.
    fn at(&self, pos: (i32, i32)) -> (i64, i64) {
        let row = (self.max_y - i64::from(pos.1)) * ROWS_PER_UNIT;
        let col = (i64::from(pos.0) - self.min_x) * self.cols_per_unit + self.margin;
        (row, col)
    }

    fn put(&mut self, row: i64, col: i64, c: char) {
        let cell = usize::try_from(row)
            .ok()
            .and_then(|r| self.cells.get_mut(r))
            .and_then(|line| usize::try_from(col).ok().and_then(|c| line.get_mut(c)));
        if let Some(cell) = cell {
            *cell = c;
        }
    }

    fn text(&mut self, row: i64, col: i64, text: &str) {
        for (i, c) in text.chars().enumerate() {
            self.put(row, col + i as i64, c);
        }
    }

    /// Draws a straight line between two cells with `marker` at its middle: `-`
    /// where the line stays on a row, `|` where it stays in a column, `/` or `\`
    /// where it moves both ways.
    fn line(&mut self, from: (i64, i64), to: (i64, i64), marker: Option<char>) {
        let (dr, dc) = (to.0 - from.0, to.1 - from.1);
        let diagonal = if dr.signum() == dc.signum() {
            '\\'
        } else {
            '/'
        };
        let steps = dr.abs().max(dc.abs()).max(1);
        let mut previous = from;
        for i in 0..=steps {
            let t = i as f64 / steps as f64;
            let row = from.0 + (dr as f64 * t).round() as i64;
            let col = from.1 + (dc as f64 * t).round() as i64;
            let glyph = match (row == previous.0, col == previous.1) {
                (true, _) if dc != 0 => '-',
                (_, true) => '|',
                _ => diagonal,
            };
            self.put(row, col, glyph);
            previous = (row, col);
        }
        if let Some(m) = marker {
            self.put(from.0 + dr / 2, from.1 + dc / 2, m);
        }
    }

    fn into_string(self) -> String {
        let mut out = String::new();
        for line in self.cells {
            let text: String = line.into_iter().collect();
            out.push_str(text.trim_end());
            out.push('\n');
        }
        out
    }
}
