//! Tests of the three export formats on a small analysed game.

use super::*;
use crate::analysis::tests::{labels, sample};
use crate::analysis::{analyze_graph, AnalyzeOptions};
use crate::summary::Source;

fn saved() -> SavedAnalysis {
    let a = analyze_graph(
        &sample(),
        &labels(),
        &AnalyzeOptions::default(),
        Source::default(),
    )
    .unwrap();
    SavedAnalysis::from_analysis(&a)
}

fn text(f: impl FnOnce(&mut Vec<u8>) -> Result<ExportStats, HsgError>) -> (String, ExportStats) {
    let mut out = Vec::new();
    let stats = f(&mut out).unwrap();
    (String::from_utf8(out).unwrap(), stats)
}

#[test]
fn hsg_dot_draws_win_diamonds_and_fail_boxes() {
    let s = saved();
    let (dot, stats) = text(|o| export_hsg(&s, &labels(), ExportFormat::Dot, 100, o));
    assert!(dot.starts_with("digraph hsg {"));
    assert_eq!(dot.matches("shape=diamond").count(), 1);
    assert_eq!(dot.matches("shape=box").count(), 2);
    assert_eq!(
        stats,
        ExportStats {
            nodes: 5,
            edges: 4,
            truncated: false
        }
    );
    assert_eq!(dot.matches(" -> ").count(), 4);
}

#[test]
fn max_nodes_caps_the_export() {
    let s = saved();
    let (_, stats) = text(|o| export_hsg(&s, &labels(), ExportFormat::Dot, 2, o));
    assert_eq!(stats.nodes, 2);
    assert_eq!(stats.edges, 1);
    assert!(stats.truncated);
}

#[test]
fn ssg_jsonl_lines_parse_and_classify_edges() {
    let s = saved();
    let g = sample();
    let (jsonl, stats) = text(|o| export_ssg(&g, &s, &labels(), ExportFormat::Jsonl, 1000, o));
    let lines: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len() as u64, stats.nodes + stats.edges);
    assert_eq!(stats.nodes, 8);
    let classes: Vec<_> = lines.iter().filter_map(|l| l.get("class")).collect();
    assert_eq!(classes.iter().filter(|c| **c == "critical").count(), 4);
    assert_eq!(classes.iter().filter(|c| **c == "immediate").count(), 6);
    let win = lines
        .iter()
        .find(|l| l["id"] == 4 && l["kind"] == "node")
        .unwrap();
    assert_eq!(win["tag"], "win");
    assert_eq!(win["outcome"], "win");
}

#[test]
fn graphml_declares_typed_keys_and_escapes_text() {
    let s = saved();
    let mut l = labels();
    l.actions[3] = "a<b&c".into();
    let (xml, _) = text(|o| export_hsg(&s, &l, ExportFormat::GraphMl, 100, o));
    assert!(
        xml.contains(r#"attr.name="size" attr.type="long""#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"attr.name="headroom" attr.type="double""#),
        "{xml}"
    );
    assert!(xml.contains("a&lt;b&amp;c"));
    assert!(!xml.contains("a<b"));
    assert_eq!(xml.matches("<node ").count(), 5);
}

#[test]
fn ssg_export_refuses_a_stale_analysis() {
    let s = saved();
    let other = crate::mem::MemGraph::new(3, &[], &[]).unwrap();
    let err = export_ssg(
        &other,
        &s,
        &labels(),
        ExportFormat::Dot,
        10,
        &mut Vec::new(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("re-run"), "{err}");
}
