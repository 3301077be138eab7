//! GraphML writer (Gephi, Cytoscape): every attribute becomes a `<key>`, typed from its
//! first non-null value.

use super::{Link, Node};
use serde_json::Value;
use std::io::{self, Write};

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The GraphML type of a value; `None` for null, which says nothing about the type.
fn type_of(v: &Value) -> Option<&'static str> {
    match v {
        Value::Null => None,
        Value::Bool(_) => Some("boolean"),
        Value::Number(n) if n.is_f64() => Some("double"),
        Value::Number(_) => Some("long"),
        _ => Some("string"),
    }
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => Some(
            items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), String::from))
                .collect::<Vec<_>>()
                .join(","),
        ),
        other => Some(other.to_string()),
    }
}

/// Attribute names in first-seen order, typed by their first non-null value (integers
/// widen to double if a later value is fractional).
fn keys<'a>(
    attrs: impl Iterator<Item = &'a (&'static str, Value)>,
) -> Vec<(&'static str, &'static str)> {
    let mut keys: Vec<(&'static str, Option<&'static str>)> = vec![("label", Some("string"))];
    for (name, value) in attrs {
        let t = type_of(value);
        match keys.iter_mut().find(|k| k.0 == *name) {
            None => keys.push((name, t)),
            Some(k) => match (k.1, t) {
                (None, _) => k.1 = t,
                (Some("long"), Some("double")) => k.1 = t,
                _ => {}
            },
        }
    }
    keys.into_iter()
        .map(|(k, t)| (k, t.unwrap_or("string")))
        .collect()
}

fn data(out: &mut dyn Write, prefix: &str, name: &str, v: &Value) -> io::Result<()> {
    match text_of(v) {
        Some(t) => writeln!(
            out,
            "      <data key=\"{prefix}_{name}\">{}</data>",
            escape(&t)
        ),
        None => Ok(()),
    }
}

/// Writes `nodes` and `links` as a GraphML document with one directed graph `name`.
pub fn write(name: &str, nodes: &[Node], links: &[Link], out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<graphml xmlns="http://graphml.graphdrawing.org/xmlns">"#
    )?;
    let node_keys = keys(nodes.iter().flat_map(|n| &n.attrs));
    let edge_keys = keys(links.iter().flat_map(|l| &l.attrs));
    for (scope, prefix, ks) in [("node", "n", &node_keys), ("edge", "e", &edge_keys)] {
        for (k, t) in ks {
            writeln!(
                out,
                r#"  <key id="{prefix}_{k}" for="{scope}" attr.name="{k}" attr.type="{t}"/>"#
            )?;
        }
    }
    writeln!(out, r#"  <graph id="{name}" edgedefault="directed">"#)?;
    for n in nodes {
        writeln!(out, r#"    <node id="n{}">"#, n.id)?;
        data(out, "n", "label", &Value::String(n.label.clone()))?;
        for (k, v) in &n.attrs {
            data(out, "n", k, v)?;
        }
        writeln!(out, "    </node>")?;
    }
    for l in links {
        writeln!(
            out,
            r#"    <edge source="n{}" target="n{}">"#,
            l.source, l.target
        )?;
        data(out, "e", "label", &Value::String(l.label.clone()))?;
        for (k, v) in &l.attrs {
            data(out, "e", k, v)?;
        }
        writeln!(out, "    </edge>")?;
    }
    writeln!(out, "  </graph>\n</graphml>")
}
