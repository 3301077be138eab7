//! Graphviz DOT writer: win diamonds and fail boxes as in the paper's figures.

use super::{Link, Node};
use crate::tags::Tag;
use std::io::{self, Write};

fn quoted(text: &str) -> String {
    let escaped: String = text
        .chars()
        .flat_map(|c| match c {
            '"' => vec!['\\', '"'],
            '\\' => vec!['\\', '\\'],
            '\n' => vec!['\\', 'n'],
            c => vec![c],
        })
        .collect();
    format!("\"{escaped}\"")
}

fn shape(tag: Tag) -> &'static str {
    match tag {
        Tag::Win => "shape=diamond",
        Tag::Fail => "shape=box",
        Tag::ImplicitlyFailed => "shape=box, style=dashed",
        Tag::EventuallyWinnable => "shape=ellipse",
        Tag::Unknown => "shape=ellipse, style=dotted",
    }
}

/// Writes `nodes` and `links` as a DOT digraph named `name`.
pub fn write(name: &str, nodes: &[Node], links: &[Link], out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "digraph {name} {{")?;
    for n in nodes {
        writeln!(
            out,
            "  n{} [label={}, {}];",
            n.id,
            quoted(&n.label),
            shape(n.tag)
        )?;
    }
    for l in links {
        let style = if l.critical { "" } else { ", style=dotted" };
        writeln!(
            out,
            "  n{} -> n{} [label={}{style}];",
            l.source,
            l.target,
            quoted(&l.label)
        )?;
    }
    writeln!(out, "}}")
}
