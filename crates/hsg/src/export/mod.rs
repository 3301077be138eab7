//! Exports of the HSG or the SSG for Graphviz (DOT), Gephi and Cytoscape (GraphML) and
//! pandas (JSON lines), limited to the first `max_nodes` nodes in breadth-first order
//! from the root (the hyperstate of state 0, or state 0 itself).
//!
//! Both graphs are first turned into a small list of [`Node`]s and [`Link`]s carrying
//! their attributes; the three writers only format that list.

mod dot;
mod graphml;
mod jsonl;

use crate::error::HsgError;
use crate::graph::Labels;
use crate::graph::{StateGraph, StateId};
use crate::persist::SavedAnalysis;
use crate::tags::Tag;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::io::Write;

/// Which graph to export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphKind {
    /// Hyperstates and critical actions.
    Hsg,
    /// States and every transition.
    Ssg,
}

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// Graphviz DOT: win as diamonds, fail as boxes, as in the paper.
    Dot,
    /// GraphML with typed attributes.
    GraphMl,
    /// One JSON object per line: nodes first, then edges.
    Jsonl,
}

/// What an export wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportStats {
    /// Nodes written.
    pub nodes: u64,
    /// Edges written.
    pub edges: u64,
    /// True when `max_nodes` cut the graph.
    pub truncated: bool,
}

/// A node to write, with its attributes (name, JSON value).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Hyperstate or state number.
    pub id: u64,
    /// Short human label.
    pub label: String,
    /// Tag that decides the DOT shape.
    pub tag: Tag,
    /// Extra attributes.
    pub attrs: Vec<(&'static str, Value)>,
}

/// An edge to write.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// Source node id.
    pub source: u64,
    /// Target node id.
    pub target: u64,
    /// Short human label (action labels).
    pub label: String,
    /// True for critical actions (drawn bold in DOT).
    pub critical: bool,
    /// Extra attributes.
    pub attrs: Vec<(&'static str, Value)>,
}

/// Breadth-first selection of at most `max_nodes` nodes from `root`.
fn select(
    root: u64,
    max_nodes: u64,
    mut successors: impl FnMut(u64, &mut Vec<u64>),
) -> (Vec<u64>, bool) {
    let mut order = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut queue = VecDeque::from([root]);
    seen.insert(root);
    let mut next = Vec::new();
    let mut truncated = false;
    while let Some(x) = queue.pop_front() {
        if order.len() as u64 >= max_nodes {
            truncated = true;
            break;
        }
        order.push(x);
        next.clear();
        successors(x, &mut next);
        for &y in &next {
            if seen.insert(y) {
                queue.push_back(y);
            }
        }
    }
    (order, truncated)
}

fn hyperstate_attrs(saved: &SavedAnalysis, h: u64) -> (Tag, Vec<(&'static str, Value)>) {
    let size = saved.member_offsets[h as usize + 1] - saved.member_offsets[h as usize];
    let info = &saved.hyperstates[h as usize];
    let attrs = vec![
        ("tag", json!(info.tag.name())),
        ("size", json!(size)),
        ("depth", json!(info.depth)),
        ("win_distance", json!(info.win_distance)),
        ("loss_distance", json!(info.loss_distance)),
        ("headroom", json!(info.headroom_hyperstates)),
        ("one_step_headroom", json!(info.one_step_headroom)),
    ];
    (info.tag, attrs)
}

/// Nodes and links of the HSG, capped at `max_nodes`.
pub fn hsg_elements(
    saved: &SavedAnalysis,
    labels: &Labels,
    max_nodes: u64,
) -> (Vec<Node>, Vec<Link>, bool) {
    let root = saved.summary.root_hyperstate;
    let e = &saved.edges;
    let (order, truncated) = select(root, max_nodes, |h, out| {
        e.for_each_successor(h, |s| out.push(s))
    });
    let kept: std::collections::HashSet<u64> = order.iter().copied().collect();
    let nodes = order
        .iter()
        .map(|&h| {
            let (tag, attrs) = hyperstate_attrs(saved, h);
            let size = &attrs[1].1;
            Node {
                id: h,
                label: format!("H{h} ({size} states)"),
                tag,
                attrs,
            }
        })
        .collect();
    let mut links = Vec::new();
    for &h in &order {
        let mut by_target: Vec<(u64, Vec<String>, u64)> = Vec::new();
        for i in e.row(h) {
            let t = e.targets.at(i);
            if !kept.contains(&t) {
                continue;
            }
            if by_target.last().is_none_or(|l| l.0 != t) {
                by_target.push((t, Vec::new(), 0));
            }
            if let Some(last) = by_target.last_mut() {
                last.1.push(labels.action(e.actions[i as usize]));
                last.2 += e.multiplicity[i as usize];
            }
        }
        for (t, actions, multiplicity) in by_target {
            links.push(Link {
                source: h,
                target: t,
                label: actions.join(","),
                critical: true,
                attrs: vec![
                    ("actions", json!(actions)),
                    ("multiplicity", json!(multiplicity)),
                ],
            });
        }
    }
    (nodes, links, truncated)
}

/// Nodes and links of the SSG, capped at `max_nodes`.
pub fn ssg_elements<G: StateGraph + ?Sized>(
    g: &G,
    saved: &SavedAnalysis,
    labels: &Labels,
    max_nodes: u64,
) -> (Vec<Node>, Vec<Link>, bool) {
    let target = labels
        .outcomes
        .iter()
        .position(|o| *o == saved.summary.target);
    let (order, truncated) = select(0, max_nodes, |s, out| {
        out.extend(g.edge_range(s).map(|i| g.edge(i).1));
    });
    let index: HashMap<StateId, ()> = order.iter().map(|&s| (s, ())).collect();
    let comp = |s: u64| saved.component.at(s);
    let nodes = order
        .iter()
        .map(|&s| {
            let outcome = g.outcome(s);
            let h = comp(s);
            let tag = match outcome {
                Some(o) if Some(usize::from(o)) == target => Tag::Win,
                _ if g.edge_range(s).is_empty() && !g.is_open(s) => Tag::Fail,
                _ => saved.hyperstates[h as usize].tag,
            };
            let outcome_name = outcome.and_then(|o| labels.outcomes.get(usize::from(o)).cloned());
            let attrs = vec![
                ("hyperstate", json!(h)),
                ("tag", json!(tag.name())),
                ("outcome", json!(outcome_name)),
            ];
            Node {
                id: s,
                label: format!("S{s}"),
                tag,
                attrs,
            }
        })
        .collect();
    let mut links = Vec::new();
    for &s in &order {
        for i in g.edge_range(s) {
            let (a, t) = g.edge(i);
            if !index.contains_key(&t) {
                continue;
            }
            let critical = comp(s) != comp(t);
            let class = if critical {
                "critical"
            } else if t == s || g.edge_range(t).any(|j| g.edge(j).1 == s) {
                "immediate"
            } else {
                "eventual"
            };
            let label = labels.action(a);
            links.push(Link {
                source: s,
                target: t,
                label: label.clone(),
                critical,
                attrs: vec![("action", json!(label)), ("class", json!(class))],
            });
        }
    }
    (nodes, links, truncated)
}

/// Writes the HSG (from a saved analysis) in `format`.
pub fn export_hsg(
    saved: &SavedAnalysis,
    labels: &Labels,
    format: ExportFormat,
    max_nodes: u64,
    out: &mut dyn Write,
) -> Result<ExportStats, HsgError> {
    let (nodes, links, truncated) = hsg_elements(saved, labels, max_nodes);
    write(format, "hsg", &nodes, &links, truncated, out)
}

/// Writes the SSG of `g`, coloured by the saved analysis, in `format`.
pub fn export_ssg<G: StateGraph + ?Sized>(
    g: &G,
    saved: &SavedAnalysis,
    labels: &Labels,
    format: ExportFormat,
    max_nodes: u64,
    out: &mut dyn Write,
) -> Result<ExportStats, HsgError> {
    if saved.component.len() as u64 != g.state_count() {
        return Err(HsgError::MalformedGraph(format!(
            "the saved analysis covers {} states but the graph has {}: re-run the analysis",
            saved.component.len(),
            g.state_count()
        )));
    }
    let (nodes, links, truncated) = ssg_elements(g, saved, labels, max_nodes);
    write(format, "ssg", &nodes, &links, truncated, out)
}

fn write(
    format: ExportFormat,
    name: &str,
    nodes: &[Node],
    links: &[Link],
    truncated: bool,
    out: &mut dyn Write,
) -> Result<ExportStats, HsgError> {
    let result = match format {
        ExportFormat::Dot => dot::write(name, nodes, links, out),
        ExportFormat::GraphMl => graphml::write(name, nodes, links, out),
        ExportFormat::Jsonl => jsonl::write(nodes, links, out),
    };
    result.map_err(|e| HsgError::io("<export output>", e))?;
    Ok(ExportStats {
        nodes: nodes.len() as u64,
        edges: links.len() as u64,
        truncated,
    })
}

#[cfg(test)]
mod tests;
