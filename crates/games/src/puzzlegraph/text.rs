//! The canonical text of a puzzle: PuzzleGraph's own save format, written the
//! way PuzzleGraph writes it (name, nodes, edges, static elements, dynamic
//! elements, players, balls), so that it reloads to the same game.

use std::fmt::Write;

use super::puzzle::{Container, Puzzle};

/// The canonical save-file text of `puzzle`, ending with a newline.
pub fn canonical_text(puzzle: &Puzzle) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", puzzle.title);
    for node in &puzzle.nodes {
        let _ = write!(
            out,
            "PuzzleNode {} {{ pos:{},{}",
            node.name, node.pos.0, node.pos.1
        );
        if !node.receivers.is_empty() {
            let names: Vec<String> = node
                .receivers
                .iter()
                .filter_map(|&bit| puzzle.dynamic.get(bit))
                .map(|d| puzzle.container_name(d.container))
                .collect();
            let _ = write!(out, " notify:{}", names.join(","));
        }
        out.push_str(" }\n");
    }
    for e in 0..puzzle.edges.len() {
        let _ = writeln!(out, "PuzzleEdge {} {{  }}", puzzle.edge_name(e));
    }
    for &c in &puzzle.statics {
        let _ = writeln!(out, "{} {{  }}", element_head(puzzle, c));
    }
    for d in &puzzle.dynamic {
        let value = if d.initial { "on" } else { "off" };
        let _ = writeln!(out, "{} {{ {value} }}", element_head(puzzle, d.container));
    }
    for &n in &puzzle.players {
        let _ = writeln!(out, "PuzzlePlayer {} {{  }}", puzzle.node_name(n));
    }
    for &n in &puzzle.balls {
        let _ = writeln!(out, "PuzzleBall {} {{  }}", puzzle.node_name(n));
    }
    out
}

/// `Puzzle<Element> <container>`.
fn element_head(puzzle: &Puzzle, c: Container) -> String {
    format!(
        "Puzzle{} {}",
        puzzle.element_name(c),
        puzzle.container_name(c)
    )
}
