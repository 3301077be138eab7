//! JSON-lines writer: `{"kind":"node",...}` lines, then `{"kind":"edge",...}` lines.

use super::{Link, Node};
use serde_json::{Map, Value};
use std::io::{self, Write};

fn line(out: &mut dyn Write, fields: Map<String, Value>) -> io::Result<()> {
    serde_json::to_writer(&mut *out, &Value::Object(fields))?;
    writeln!(out)
}

/// Writes one JSON object per node, then one per edge.
pub fn write(nodes: &[Node], links: &[Link], out: &mut dyn Write) -> io::Result<()> {
    for n in nodes {
        let mut m = Map::new();
        m.insert("kind".into(), "node".into());
        m.insert("id".into(), n.id.into());
        m.insert("label".into(), n.label.clone().into());
        for (k, v) in &n.attrs {
            m.insert((*k).into(), v.clone());
        }
        line(out, m)?;
    }
    for l in links {
        let mut m = Map::new();
        m.insert("kind".into(), "edge".into());
        m.insert("source".into(), l.source.into());
        m.insert("target".into(), l.target.into());
        m.insert("label".into(), l.label.clone().into());
        for (k, v) in &l.attrs {
            m.insert((*k).into(), v.clone());
        }
        line(out, m)?;
    }
    Ok(())
}
