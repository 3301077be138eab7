//! Reading one rule line into a draft: its direction prefix, the cells of
//! each side as `(direction, name)` pairs, and its commands. Directions and
//! names stay words here; expansion and masks come later.

use super::fault::Fault;
use crate::parser::RuleLine;

/// A cell of a rule: `(direction or "", name)` pairs; an ellipsis is the
/// single pair `("...", "...")`.
pub type Cell = Vec<(String, String)>;

/// A command a rule can queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `again`.
    Again,
    /// `cancel`.
    Cancel,
    /// `checkpoint`.
    Checkpoint,
    /// `restart`.
    Restart,
    /// `win`.
    Win,
    /// `message TEXT`.
    Message(String),
    /// `sfx0` to `sfx10` (no sound is played).
    Sfx(u8),
}

impl Command {
    /// The command's word, which the queue keeps unique.
    pub fn word(&self) -> &'static str {
        match self {
            Command::Again => "again",
            Command::Cancel => "cancel",
            Command::Checkpoint => "checkpoint",
            Command::Restart => "restart",
            Command::Win => "win",
            Command::Message(_) => "message",
            Command::Sfx(n) => SFX[usize::from(*n).min(10)],
        }
    }
}

const SFX: [&str; 11] = [
    "sfx0", "sfx1", "sfx2", "sfx3", "sfx4", "sfx5", "sfx6", "sfx7", "sfx8", "sfx9", "sfx10",
];

/// A rule before expansion.
#[derive(Clone, Debug)]
pub struct Draft {
    /// The direction the rule scans in (after expansion: one of up/down/left/right).
    pub directions: Vec<String>,
    /// Left-hand side rows.
    pub lhs: Vec<Vec<Cell>>,
    /// Right-hand side rows (empty for a rule of commands only).
    pub rhs: Vec<Vec<Cell>>,
    /// Source line.
    pub line: usize,
    /// `late`.
    pub late: bool,
    /// `rigid`.
    pub rigid: bool,
    /// The line of the group's first rule (`+` joins the previous group).
    pub group: usize,
    /// Commands in order.
    pub commands: Vec<Command>,
    /// `random`.
    pub random: bool,
}

/// A line of RULES: a rule or a loop marker.
pub enum RuleItem {
    /// A rule.
    Rule(Draft),
    /// `startloop` (true) or `endloop` (false), with its line.
    Loop(bool, usize),
}

const DIRECTION_WORDS: [&str; 18] = [
    ">",
    "<",
    "^",
    "v",
    "up",
    "down",
    "left",
    "right",
    "moving",
    "stationary",
    "no",
    "randomdir",
    "random",
    "horizontal",
    "vertical",
    "orthogonal",
    "perpendicular",
    "parallel",
];

fn aggregate_directions(word: &str) -> Option<&'static [&'static str]> {
    Some(match word {
        "horizontal" => &["left", "right"],
        "vertical" => &["up", "down"],
        "orthogonal" => &["up", "down", "left", "right"],
        "moving" => &["up", "down", "left", "right", "action"],
        _ => return None,
    })
}

/// Reads a rule line; `previous` is the last rule read (for `+`).
pub fn read_rule(
    rule: &RuleLine,
    names: &[String],
    previous: Option<&Draft>,
) -> Result<RuleItem, Fault> {
    let spaced = rule
        .text
        .replace('[', " [ ")
        .replace(']', " ] ")
        .replace('|', " | ")
        .replace("->", " -> ");
    let mut spaced = spaced.trim().to_string();
    if spaced.starts_with('+') {
        spaced.insert(1, ' ');
    }
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    if tokens.len() == 1 && (tokens[0] == "startloop" || tokens[0] == "endloop") {
        return Ok(RuleItem::Loop(tokens[0] == "startloop", rule.line));
    }
    let err = |m: String| Err(Fault::at(rule.line, m));
    if !tokens.contains(&"->") {
        return err("a rule needs an arrow \"->\"".into());
    }
    let mut d = Draft {
        directions: Vec::new(),
        lhs: Vec::new(),
        rhs: Vec::new(),
        line: rule.line,
        late: false,
        rigid: false,
        group: rule.line,
        commands: Vec::new(),
        random: false,
    };
    let mut i = 0;
    while i < tokens.len() && tokens[i] != "[" {
        let t = tokens[i];
        match t {
            "+" => match previous {
                Some(p) if i == 0 => d.group = p.group,
                _ => {
                    return err(
                        "\"+\" joins the previous rule's group and must open the line".into(),
                    )
                }
            },
            "late" => d.late = true,
            "rigid" => d.rigid = true,
            "random" => d.random = true,
            "up" | "down" | "left" | "right" => d.directions.push(t.to_string()),
            _ => match aggregate_directions(t) {
                Some(dirs) => d.directions.extend(dirs.iter().map(|s| s.to_string())),
                None => return err(format!("unexpected \"{t}\" before the first '['")),
            },
        }
        i += 1;
    }
    if d.directions.is_empty() {
        d.directions = ["up", "down", "left", "right"].map(String::from).to_vec();
    }
    let at_line = |m: String| Fault::at(rule.line, m);
    read_cells(&tokens[i..], names, &mut d, &rule.original).map_err(at_line)?;
    check_shape(&d).map_err(at_line)?;
    if !is_directional(&d) {
        d.directions.truncate(1);
    }
    Ok(RuleItem::Rule(d))
}

fn read_cells(
    tokens: &[&str],
    names: &[String],
    d: &mut Draft,
    original: &str,
) -> Result<(), String> {
    let mut rhs = false;
    let mut in_row = false;
    let mut row: Vec<Cell> = Vec::new();
    let mut cell: Cell = Vec::new();
    let mut pending_dir: Option<String> = None;
    let mut k = 0;
    while k < tokens.len() {
        let t = tokens[k];
        match t {
            "[" => {
                // A second '[' restarts the cell but keeps the row, as in the reference.
                in_row = true;
                cell = Vec::new();
                pending_dir = None;
            }
            "|" if !in_row => {}
            "|" | "]" => {
                if !in_row {
                    return Err("']' without '['".into());
                }
                if pending_dir.is_some() {
                    return Err("a direction must be followed by an object".into());
                }
                row.push(std::mem::take(&mut cell));
                if t == "]" {
                    let done = std::mem::take(&mut row);
                    if rhs {
                        d.rhs.push(done);
                    } else {
                        d.lhs.push(done);
                    }
                    in_row = false;
                }
            }
            "->" => {
                if rhs && !in_row {
                    return Err("a rule has only one \"->\"".into());
                }
                // Inside brackets the reference ignores the arrow with a warning.
                rhs |= !in_row;
            }
            "..." if in_row => cell.push(("...".into(), "...".into())),
            // Directions between brackets are ignored with a warning.
            _ if !in_row && (DIRECTION_WORDS.contains(&t) || t == "action") => {}
            _ if in_row && (DIRECTION_WORDS.contains(&t) || t == "action") => {
                if pending_dir.is_some() {
                    return Err("an object can have only one direction".into());
                }
                if d.late && !matches!(t, "no" | "random" | "randomdir") {
                    return Err("late rules cannot have movements".into());
                }
                pending_dir = Some(t.to_string());
            }
            _ if in_row && names.iter().any(|n| n == t) => {
                // An object named twice in a cell is an error the reference reports and keeps.
                let dir = pending_dir.take().unwrap_or_default();
                cell.push((dir, t.to_string()));
            }
            // Names outside brackets are ignored with a warning.
            _ if !in_row && names.iter().any(|n| n == t) => {}
            // Commands are read wherever they are (the reference only warns).
            _ if is_command(t) => {
                let command = match t {
                    "again" => Command::Again,
                    "cancel" => Command::Cancel,
                    "checkpoint" => Command::Checkpoint,
                    "restart" => Command::Restart,
                    "win" => Command::Win,
                    "message" => {
                        d.commands.push(Command::Message(message_after(original)));
                        return Ok(());
                    }
                    _ => match t.strip_prefix("sfx").and_then(|n| n.parse::<u8>().ok()) {
                        Some(n) if n <= 10 => Command::Sfx(n),
                        _ => return Err(format!("unknown word \"{t}\" in a rule")),
                    },
                };
                d.commands.push(command);
            }
            _ => return Err(format!("unknown word \"{t}\" in a rule")),
        }
        k += 1;
    }
    if in_row {
        return Err("a cell row is not closed with ']'".into());
    }
    Ok(())
}

fn is_command(t: &str) -> bool {
    matches!(
        t,
        "again" | "cancel" | "checkpoint" | "restart" | "win" | "message"
    ) || t
        .strip_prefix("sfx")
        .and_then(|n| n.parse::<u8>().ok())
        .is_some_and(|n| n <= 10)
}

fn message_after(original: &str) -> String {
    let lower = original.to_lowercase();
    lower
        .find("message")
        .and_then(|b| original.get(b + "message".len()..))
        .map_or(String::new(), |s| s.trim().to_string())
}

fn check_shape(d: &Draft) -> Result<(), String> {
    if d.lhs.is_empty() {
        return Err("a rule needs a pattern on the left".into());
    }
    if d.rhs.is_empty() {
        // Commands only, or a rule with nothing on the right (inert).
        return Ok(());
    }
    if d.lhs.len() != d.rhs.len() {
        return Err("the left and right sides need the same number of patterns".into());
    }
    for (l, r) in d.lhs.iter().zip(&d.rhs) {
        if l.len() != r.len() {
            return Err(
                "each pattern on the left needs one of the same length on the right".into(),
            );
        }
    }
    if d.late && d.rigid {
        return Err("late rules cannot be rigid".into());
    }
    Ok(())
}

const RELATIVE: [&str; 6] = ["^", "v", "<", ">", "perpendicular", "parallel"];

/// A rule is directional when a row has several cells or a relative
/// direction appears; otherwise one scan direction is enough.
pub fn is_directional(d: &Draft) -> bool {
    if d.lhs.iter().any(|row| row.len() > 1) {
        return true;
    }
    d.lhs
        .iter()
        .chain(&d.rhs)
        .flatten()
        .flatten()
        .any(|(dir, _)| RELATIVE.contains(&dir.as_str()))
}
