//! Reading PuzzleGraph save files: line 1 is the puzzle's name, every other
//! non-blank line is `<Type> <name> { <content> }`.
//!
//! Nodes and edges are collected first, then elements and items in file order,
//! then `notify:` lists, so that a reference may point forward in the file as
//! PuzzleGraph's own loader allows. Every mistake is a [`GamesError::Syntax`]
//! naming the line and column.

use std::collections::HashMap;

use super::puzzle::{Container, Dynamic, Edge, EdgeKind, Node, NodeKind, Puzzle};
use crate::GamesError;

/// The most nodes a puzzle may have: node indices take two bytes, and index
/// 65,535 is kept free for projections that forget where the items are.
pub const MAX_NODES: usize = (1 << 16) - 1;

/// One object line split into its parts, each with its 1-based column.
struct Line<'a> {
    number: usize,
    text: &'a str,
    kind: (&'a str, usize),
    name: (&'a str, usize),
    content: Vec<(&'a str, usize)>,
}

/// What an object line declares.
#[derive(Clone, Copy)]
enum Declared {
    Node,
    Edge,
    NodeElement(NodeKind),
    EdgeElement(EdgeKind),
    Player,
    Ball,
}

fn declared(kind: &str) -> Option<Declared> {
    Some(match kind {
        "PuzzleNode" => Declared::Node,
        "PuzzleEdge" => Declared::Edge,
        "PuzzleGoal" => Declared::NodeElement(NodeKind::Goal),
        "PuzzleButton" => Declared::NodeElement(NodeKind::Button),
        "PuzzlePlate" => Declared::NodeElement(NodeKind::Plate),
        "PuzzleToggle" => Declared::NodeElement(NodeKind::Toggle),
        "PuzzleBridge" => Declared::NodeElement(NodeKind::Bridge),
        "PuzzleStep" => Declared::EdgeElement(EdgeKind::Step),
        "PuzzleWall" => Declared::EdgeElement(EdgeKind::Wall),
        "PuzzleOneWay" => Declared::EdgeElement(EdgeKind::OneWay),
        "PuzzleNoBall" => Declared::EdgeElement(EdgeKind::NoBall),
        "PuzzleVision" => Declared::EdgeElement(EdgeKind::Vision),
        "PuzzleGate" => Declared::EdgeElement(EdgeKind::Gate),
        "PuzzleBlockableHazard" => Declared::EdgeElement(EdgeKind::BlockableHazard),
        "PuzzleBallTrack" => Declared::EdgeElement(EdgeKind::BallTrack),
        "PuzzlePlayer" => Declared::Player,
        "PuzzleBall" => Declared::Ball,
        _ => return None,
    })
}

/// Builds a syntax error at `line`, column `column`, quoting the line.
fn error(file: &str, line: &Line, column: usize, message: String) -> GamesError {
    syntax(file, line.number, column, message, line.text)
}

/// A syntax error with an excerpt of `text` and a caret under `column`.
pub(super) fn syntax(
    file: &str,
    line: usize,
    column: usize,
    message: String,
    text: &str,
) -> GamesError {
    let caret = " ".repeat(column.saturating_sub(1));
    GamesError::Syntax {
        file: file.to_string(),
        line,
        column,
        message,
        excerpt: format!("\n{text}\n{caret}^"),
    }
}

/// Whitespace-separated words of `text` with their 1-based character columns,
/// counted from `first_column`.
fn words(text: &str, first_column: usize) -> Vec<(&str, usize)> {
    let mut out = Vec::new();
    let mut start: Option<(usize, usize)> = None;
    for (column, (byte, c)) in text.char_indices().enumerate() {
        match (c.is_whitespace(), start) {
            (true, Some((b, col))) => {
                out.push((&text[b..byte], first_column + col));
                start = None;
            }
            (false, None) => start = Some((byte, column)),
            _ => {}
        }
    }
    if let Some((b, col)) = start {
        out.push((&text[b..], first_column + col));
    }
    out
}

/// Splits one non-blank line into type, name and content words.
fn split_line<'a>(file: &str, number: usize, text: &'a str) -> Result<Line<'a>, GamesError> {
    let fail = |column: usize, message: &str| syntax(file, number, column, message.into(), text);
    let column_of = |byte: usize| text[..byte].chars().count() + 1;
    let Some(open) = text.find('{') else {
        return Err(fail(
            column_of(text.trim_end().len()),
            "expected `<Type> <name> { ... }`",
        ));
    };
    let head = words(&text[..open], 1);
    let [kind, name] = head.as_slice() else {
        let column = head
            .get(2)
            .or(head.first())
            .map_or(column_of(open), |w| w.1);
        return Err(fail(column, "expected `<Type> <name>` before `{`"));
    };
    let Some(close) = text.rfind('}').filter(|&c| c > open) else {
        return Err(fail(
            column_of(text.trim_end().len()),
            "the line must end with `}`",
        ));
    };
    if let Some(&(_, column)) = words(&text[close + 1..], column_of(close + 1)).first() {
        return Err(fail(column, "unexpected text after `}`"));
    }
    let content = words(&text[open + 1..close], column_of(open + 1));
    if let Some(bad) = content.iter().find(|w| w.0.contains(['{', '}'])) {
        return Err(fail(bad.1, "unexpected brace inside `{ ... }`"));
    }
    Ok(Line {
        number,
        text,
        kind: *kind,
        name: *name,
        content,
    })
}

/// The object lines of a file (BOM and line 1 excluded) and the title.
fn object_lines<'a>(file: &str, text: &'a str) -> Result<(String, Vec<Line<'a>>), GamesError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines();
    let title = lines.next().unwrap_or("").trim().to_string();
    if title.is_empty() {
        return Err(syntax(
            file,
            1,
            1,
            "line 1 must hold the puzzle's name".into(),
            "",
        ));
    }
    let mut out = Vec::new();
    for (i, line) in lines.enumerate() {
        if !line.trim().is_empty() {
            out.push(split_line(file, i + 2, line)?);
        }
    }
    Ok((title, out))
}

/// The puzzle's name (line 1), for listing levels without checking the rules.
pub fn title_of(file: &str, text: &str) -> Result<String, GamesError> {
    object_lines(file, text).map(|(title, _)| title)
}

/// The state of the parse: what has been declared so far.
struct Builder<'f> {
    file: &'f str,
    puzzle: Puzzle,
    node_index: HashMap<String, usize>,
    edge_index: HashMap<String, usize>,
    /// Line of the element each node and edge holds, for duplicate errors.
    node_element_line: Vec<Option<usize>>,
    edge_element_line: Vec<Option<usize>>,
}

/// Parses a PuzzleGraph save file.
pub fn parse(file: &str, text: &str) -> Result<Puzzle, GamesError> {
    let (title, lines) = object_lines(file, text)?;
    let mut b = Builder {
        file,
        puzzle: Puzzle {
            title,
            nodes: Vec::new(),
            edges: Vec::new(),
            dynamic: Vec::new(),
            statics: Vec::new(),
            players: Vec::new(),
            balls: Vec::new(),
        },
        node_index: HashMap::new(),
        edge_index: HashMap::new(),
        node_element_line: Vec::new(),
        edge_element_line: Vec::new(),
    };
    let typed: Vec<(Declared, &Line)> = lines
        .iter()
        .map(|l| match declared(l.kind.0) {
            Some(d) => Ok((d, l)),
            None => Err(error(file, l, l.kind.1, unknown_element(l.kind.0))),
        })
        .collect::<Result<_, _>>()?;
    for (_, line) in typed.iter().filter(|(d, _)| matches!(d, Declared::Node)) {
        b.node(line)?;
    }
    for (_, line) in typed.iter().filter(|(d, _)| matches!(d, Declared::Edge)) {
        b.edge(line)?;
    }
    for &(d, line) in &typed {
        match d {
            Declared::Node | Declared::Edge => {}
            Declared::NodeElement(kind) => b.node_element(line, kind)?,
            Declared::EdgeElement(kind) => b.edge_element(line, kind)?,
            Declared::Player | Declared::Ball => b.item(line, matches!(d, Declared::Player))?,
        }
    }
    for (_, line) in typed.iter().filter(|(d, _)| matches!(d, Declared::Node)) {
        b.notify(line)?;
    }
    Ok(b.puzzle)
}

fn unknown_element(kind: &str) -> String {
    format!(
        "unknown element `{kind}` (known: PuzzleNode, PuzzleEdge, PuzzleGoal, PuzzleButton, \
         PuzzlePlate, PuzzleToggle, PuzzleBridge, PuzzleStep, PuzzleWall, PuzzleOneWay, \
         PuzzleNoBall, PuzzleVision, PuzzleGate, PuzzleBlockableHazard, PuzzleBallTrack, \
         PuzzlePlayer, PuzzleBall)"
    )
}

impl Builder<'_> {
    fn node(&mut self, line: &Line) -> Result<(), GamesError> {
        let (name, column) = line.name;
        if name.contains(['-', ',']) {
            let message = format!("node name `{name}` may not contain `-` or `,`");
            return Err(error(self.file, line, column, message));
        }
        if self.node_index.contains_key(name) {
            let message = format!("node `{name}` is declared twice");
            return Err(error(self.file, line, column, message));
        }
        if self.puzzle.nodes.len() >= MAX_NODES {
            let message = format!("too many nodes (at most {MAX_NODES})");
            return Err(error(self.file, line, column, message));
        }
        let mut pos = None;
        for &(word, column) in &line.content {
            if let Some(coords) = word.strip_prefix("pos:") {
                pos = Some(parse_pos(coords).ok_or_else(|| {
                    let message = format!("`{word}` is not a position `pos:x,y` with integers");
                    error(self.file, line, column, message)
                })?);
            } else if !word.starts_with("notify:") {
                let message =
                    format!("unexpected `{word}` in a node (expected pos:x,y or notify:...)");
                return Err(error(self.file, line, column, message));
            }
        }
        let Some(pos) = pos else {
            let message = format!("node `{name}` has no position `pos:x,y`");
            return Err(error(self.file, line, column, message));
        };
        self.node_index
            .insert(name.to_string(), self.puzzle.nodes.len());
        self.node_element_line.push(None);
        self.puzzle.nodes.push(Node {
            name: name.to_string(),
            pos,
            kind: NodeKind::Default,
            bit: None,
            receivers: Vec::new(),
        });
        Ok(())
    }

    fn edge(&mut self, line: &Line) -> Result<(), GamesError> {
        let (name, column) = line.name;
        let Some((a, b)) = name.split_once('-') else {
            let message = format!("edge name `{name}` must be `<node>-<node>`");
            return Err(error(self.file, line, column, message));
        };
        let a_index = self.node_at(line, a, column)?;
        let b_index = self.node_at(line, b, column + a.chars().count() + 1)?;
        if a_index == b_index {
            let message = format!("edge `{name}` joins node `{a}` to itself");
            return Err(error(self.file, line, column, message));
        }
        if self.edge_index.contains_key(name) {
            let message = format!("edge `{name}` is declared twice");
            return Err(error(self.file, line, column, message));
        }
        self.no_content(line)?;
        self.edge_index
            .insert(name.to_string(), self.puzzle.edges.len());
        self.edge_element_line.push(None);
        self.puzzle.edges.push(Edge {
            a: a_index,
            b: b_index,
            kind: EdgeKind::Default,
            bit: None,
        });
        Ok(())
    }

    /// The index of node `name`, or an error at `column`.
    fn node_at(&self, line: &Line, name: &str, column: usize) -> Result<usize, GamesError> {
        self.node_index.get(name).copied().ok_or_else(|| {
            let message = format!("there is no node `{name}`");
            error(self.file, line, column, message)
        })
    }

    fn no_content(&self, line: &Line) -> Result<(), GamesError> {
        match line.content.first() {
            None => Ok(()),
            Some(&(word, column)) => {
                let message = format!("unexpected `{word}`: `{}` takes no content", line.kind.0);
                Err(error(self.file, line, column, message))
            }
        }
    }

    /// The `on`/`off` initial value of a dynamic element.
    fn initial_value(&self, line: &Line) -> Result<bool, GamesError> {
        match line.content.as_slice() {
            [("on", _)] => Ok(true),
            [("off", _)] => Ok(false),
            other => {
                let column = other.first().map_or(line.name.1, |w| w.1);
                let message = format!(
                    "`{}` needs its initial value: `{{ on }}` or `{{ off }}`",
                    line.kind.0
                );
                Err(error(self.file, line, column, message))
            }
        }
    }

    fn node_element(&mut self, line: &Line, kind: NodeKind) -> Result<(), GamesError> {
        let (name, column) = line.name;
        let Some(&n) = self.node_index.get(name) else {
            let message = format!("there is no node `{name}` to hold a {}", kind.name());
            return Err(error(self.file, line, column, message));
        };
        self.claim(line, Container::Node(n))?;
        let container = Container::Node(n);
        let bit = self.value_or_static(line, kind.is_dynamic(), container)?;
        if let Some(node) = self.puzzle.nodes.get_mut(n) {
            node.kind = kind;
            node.bit = bit;
        }
        Ok(())
    }

    fn edge_element(&mut self, line: &Line, kind: EdgeKind) -> Result<(), GamesError> {
        let (name, column) = line.name;
        let Some(&e) = self.edge_index.get(name) else {
            let message = format!("there is no edge `{name}` to hold a {}", kind.name());
            return Err(error(self.file, line, column, message));
        };
        self.claim(line, Container::Edge(e))?;
        let container = Container::Edge(e);
        let bit = self.value_or_static(line, kind.is_dynamic(), container)?;
        if let Some(edge) = self.puzzle.edges.get_mut(e) {
            edge.kind = kind;
            edge.bit = bit;
        }
        Ok(())
    }

    /// Records the element as dynamic (returning its bit) or static.
    fn value_or_static(
        &mut self,
        line: &Line,
        dynamic: bool,
        container: Container,
    ) -> Result<Option<usize>, GamesError> {
        if dynamic {
            let initial = self.initial_value(line)?;
            self.puzzle.dynamic.push(Dynamic { container, initial });
            Ok(Some(self.puzzle.dynamic.len() - 1))
        } else {
            self.no_content(line)?;
            self.puzzle.statics.push(container);
            Ok(None)
        }
    }

    /// Marks a container as holding an element; a second element is an error.
    fn claim(&mut self, line: &Line, container: Container) -> Result<(), GamesError> {
        let slot = match container {
            Container::Node(n) => self.node_element_line.get_mut(n),
            Container::Edge(e) => self.edge_element_line.get_mut(e),
        };
        let Some(slot) = slot else {
            return Ok(());
        };
        if let Some(first) = *slot {
            let message = format!(
                "`{}` already holds an element (declared at line {first}); a node or edge holds at most one",
                line.name.0
            );
            return Err(error(self.file, line, line.name.1, message));
        }
        *slot = Some(line.number);
        Ok(())
    }

    fn item(&mut self, line: &Line, player: bool) -> Result<(), GamesError> {
        let (name, column) = line.name;
        let n = self.node_at(line, name, column)?;
        self.no_content(line)?;
        if player {
            self.puzzle.players.push(n);
        } else {
            self.puzzle.balls.push(n);
        }
        Ok(())
    }

    /// Resolves the `notify:` list of a node line.
    fn notify(&mut self, line: &Line) -> Result<(), GamesError> {
        let Some(&n) = self.node_index.get(line.name.0) else {
            return Ok(());
        };
        for &(word, column) in &line.content {
            let Some(list) = word.strip_prefix("notify:") else {
                continue;
            };
            let trigger = self.puzzle.nodes.get(n).map(|x| x.kind);
            if !trigger.is_some_and(NodeKind::is_trigger) {
                let message = format!(
                    "node `{}` has `notify:` but holds no trigger (Button, Plate or Toggle)",
                    line.name.0
                );
                return Err(error(self.file, line, column, message));
            }
            let mut offset = column + "notify:".len();
            for target in list.split(',') {
                let bit = self.receiver(line, target, offset)?;
                if let Some(node) = self.puzzle.nodes.get_mut(n) {
                    node.receivers.push(bit);
                }
                offset += target.chars().count() + 1;
            }
        }
        Ok(())
    }

    /// The bit of the receiver held by the container named `target`.
    fn receiver(&self, line: &Line, target: &str, column: usize) -> Result<usize, GamesError> {
        let bit = if let Some(&e) = self.edge_index.get(target) {
            self.puzzle.edges.get(e).and_then(|x| x.bit)
        } else if let Some(&n) = self.node_index.get(target) {
            let node = self.puzzle.nodes.get(n);
            node.filter(|x| x.kind == NodeKind::Bridge)
                .and_then(|x| x.bit)
        } else {
            let message =
                format!("`notify:` names `{target}`, but there is no node or edge of that name");
            return Err(error(self.file, line, column, message));
        };
        bit.ok_or_else(|| {
            let message = format!(
                "`notify:` names `{target}`, which holds no receiver (Gate, BlockableHazard or Bridge)"
            );
            error(self.file, line, column, message)
        })
    }
}

fn parse_pos(coords: &str) -> Option<(i32, i32)> {
    let (x, y) = coords.split_once(',')?;
    Some((x.parse().ok()?, y.parse().ok()?))
}
