//! The hyperstate analysis end to end: `hsg report --json` against the test's own
//! oracle, `analyze` and `explore --analyze`, the Markdown report, exports and verify.

use crate::oracle::{self, HsgCounts};
use crate::util::{explore, level, ok, path_arg, report, run};
use serde_json::Value;
use std::path::Path;

/// The `index`-th (1-based) level of a multi-level file, as the plain lines between
/// blank lines that hold walls (comments and titles are left to the oracle to skip).
fn nth_level(text: &str, index: usize) -> String {
    let blocks: Vec<&str> = text
        .split("\n\n")
        .filter(|b| {
            b.lines()
                .any(|l| !l.trim_start().starts_with(';') && l.contains('#'))
        })
        .collect();
    blocks
        .get(index - 1)
        .unwrap_or_else(|| panic!("no level {index}"))
        .to_string()
}

/// Asserts that the `hsg` object of a report agrees with the oracle's numbers.
fn assert_agrees(what: &str, h: &Value, o: &HsgCounts) {
    let expected = [
        ("/hyperstates", o.hyperstates),
        ("/critical_actions", o.critical_actions),
        ("/hsg_edges", o.hsg_edges),
        ("/open_states", o.open_states),
        ("/tags/win", o.win),
        ("/tags/fail", o.fail),
        ("/tags/eventually_winnable", o.eventually_winnable),
        ("/tags/implicitly_failed", o.implicitly_failed),
        ("/tags/unknown", o.unknown),
        ("/immediately_reversible_actions", o.immediately_reversible),
        ("/eventually_reversible_actions", o.eventually_reversible),
    ];
    for (pointer, want) in expected {
        let got = h.pointer(pointer).and_then(Value::as_u64);
        assert_eq!(got, Some(want), "{what}: {pointer}");
    }
    assert_eq!(h["root_tag"], o.root_tag, "{what}: root tag");
    let win = &h["shortest_win"];
    assert_eq!(win["actions"].as_u64(), o.shortest_win_actions, "{what}");
    assert_eq!(
        win["critical_actions"].as_u64(),
        o.shortest_win_critical,
        "{what}"
    );
}

/// Explores `text` (from `file`, level `index` if given) with `extra` flags and checks
/// the report's analysis against the oracle explored to `max_depth`.
fn check_level(file: &str, index: Option<usize>, max_depth: Option<u64>, extra: &[&str]) {
    let path = level(file);
    let whole = std::fs::read_to_string(&path).expect("level readable");
    let text = index.map_or(whole.clone(), |i| nth_level(&whole, i));
    let graph = oracle::sokoban_graph(&text, max_depth);
    let expected = oracle::hsg(&graph);
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    let number = index.map(|i| i.to_string());
    let mut flags = extra.to_vec();
    if let Some(n) = &number {
        flags.extend(["--level", n]);
    }
    explore(&path, &store, &flags);
    let r = report(&store);
    let what = format!("{file} level {index:?} depth {max_depth:?}");
    assert_eq!(
        r["exploration"]["states"],
        graph.state_count() as u64,
        "{what}"
    );
    let h = &r["hsg"];
    assert_eq!(h["states"], graph.state_count() as u64, "{what}");
    assert_eq!(h["transitions"], graph.edges.len() as u64, "{what}");
    assert_eq!(h["provisional"], max_depth.is_some(), "{what}");
    assert_agrees(&what, h, &expected);
}

#[test]
fn hsg_counts_match_the_oracle_on_small_levels() {
    for name in crate::explore_counts::SMALL {
        check_level(name, None, None, &[]);
    }
    // Level 3 of the set is run-length encoded, which the oracle does not read.
    for index in [1, 2, 4, 5] {
        check_level("sokoban/small-set.sok", Some(index), None, &[]);
    }
}

#[test]
fn partial_runs_match_the_oracle_and_leave_open_tags_unknown() {
    for depth in [3u64, 12, 20] {
        let flag = depth.to_string();
        check_level(
            "sokoban/twoboxes.xsb",
            None,
            Some(depth),
            &["--max-depth", &flag],
        );
    }
    // At depth 3 nothing is fully explored: every tag waits on an open state, and no
    // win can be ruled out yet.
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    let twoboxes = level("sokoban/twoboxes.xsb");
    let args = [
        "explore",
        path_arg(&twoboxes),
        "--store",
        path_arg(&store),
        "--max-depth",
        "3",
        "--analyze",
    ];
    let outline = String::from_utf8_lossy(&ok(&args).stdout).into_owned();
    assert!(outline.contains("no win found yet"), "{outline}");
    assert!(!outline.contains("no win reachable"), "{outline}");
    assert!(outline.contains("provisional"), "{outline}");
    let h = report(&store)["hsg"].clone();
    assert_eq!(h["provisional"], true);
    assert!(h["tags"]["unknown"].as_u64() > Some(0), "{h}");
    assert_eq!(h["tags"]["fail"], 0);
    assert_eq!(h["tags"]["implicitly_failed"], 0);
}

/// Every file under `DIR/hsg/` with its bytes.
fn analysis_files(store: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(store.join("hsg"))
        .expect("hsg folder exists")
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).expect("readable"))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn analyze_is_idempotent_and_explore_analyze_saves_the_summary() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/twoboxes.xsb"), &store, &[]);
    assert!(
        !store.join("hsg").exists(),
        "explore alone does not analyse"
    );
    ok(&["analyze", path_arg(&store)]);
    let first = analysis_files(&store);
    assert!(first.iter().any(|(n, _)| n == "summary.json"), "{first:?}");
    ok(&["analyze", path_arg(&store)]);
    let second = analysis_files(&store);
    assert_eq!(first.len(), second.len());
    for ((name, a), (_, b)) in first.iter().zip(&second) {
        assert!(a == b, "hsg/{name} differs between two analyses");
    }

    let other = dir.path().join("other");
    let path = level("sokoban/twoboxes.xsb");
    let out = ok(&[
        "explore",
        path_arg(&path),
        "--store",
        path_arg(&other),
        "--analyze",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("2,887 states -> 59 hyperstates (compression 97.96%)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("shortest win: 15 actions, 2 critical"),
        "{stdout}"
    );
    let summary: Value = serde_json::from_slice(
        &std::fs::read(other.join("hsg/summary.json")).expect("summary saved"),
    )
    .expect("summary is JSON");
    assert_eq!(summary["hyperstates"], 59);
}

/// Below the SCC's needs, the per-state arrays go to scratch files in the run; the
/// hyperstates, members and HSG edges saved must be those of an analysis in RAM.
#[test]
fn an_analysis_short_of_memory_runs_on_scratch_files_and_agrees() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/twoboxes.xsb"), &store, &[]);
    ok(&["analyze", path_arg(&store)]);
    let in_ram = analysis_files(&store);
    // 2,887 states need about 35 KB at the SCC's peak.
    ok(&["analyze", path_arg(&store), "--analysis-mem", "8K"]);
    let on_files = analysis_files(&store);
    assert!(
        !store.join("hsg-scratch").exists(),
        "the scratch folder is removed"
    );
    let structural = |files: &[(String, Vec<u8>)]| -> Vec<(String, Vec<u8>)> {
        files
            .iter()
            .filter(|(n, _)| !n.contains("summary") && !n.contains("headroom"))
            .cloned()
            .collect()
    };
    let (a, b) = (structural(&in_ram), structural(&on_files));
    assert!(
        a.len() >= 5,
        "{:?}",
        a.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert_eq!(a.len(), b.len());
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "hsg/{name} differs on scratch files");
    }
    let report = ok(&["report", path_arg(&store), "--json"]);
    let v: Value = serde_json::from_slice(&report.stdout).expect("report is JSON");
    assert_eq!(v["hsg"]["hyperstates"], 59);
}

#[test]
fn an_unknown_target_names_the_available_outcomes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/tiny.xsb"), &store, &[]);
    let out = run(&["analyze", path_arg(&store), "--target", "treasure"]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let err = String::from_utf8_lossy(&out.stderr);
    for word in ["treasure", "win", "fail"] {
        assert!(err.contains(word), "{err}");
    }
    // A declared outcome that no state reaches tags nothing as a win.
    ok(&["analyze", path_arg(&store), "--target", "fail"]);
    let h: Value = serde_json::from_slice(
        &std::fs::read(store.join("hsg/summary.json")).expect("summary saved"),
    )
    .expect("JSON");
    assert_eq!(h["target"], "fail");
    assert_eq!(h["tags"]["win"], 0);
}

#[test]
fn report_formats_and_the_no_analysis_flag() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/tiny.xsb"), &store, &[]);
    let r = report(&store);
    assert_eq!(r["schema"], "hyperstate.report/1");
    for key in ["complete", "states", "transitions", "max_depth", "outcomes"] {
        assert!(r["exploration"].get(key).is_some(), "exploration.{key}");
    }
    assert!(r["hsg"].is_object());
    let out = ok(&["report", path_arg(&store), "--json", "--no-analysis"]);
    let bare: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(bare.get("hsg").is_none(), "{bare}");
    assert_eq!(bare["exploration"], r["exploration"]);
    let md = ok(&["report", path_arg(&store), "--format", "md"]);
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(md.contains("## Exploration"), "{md}");
    assert!(md.contains("Hyperstate analysis"), "{md}");
    let md = ok(&[
        "report",
        path_arg(&store),
        "--format",
        "md",
        "--no-analysis",
    ]);
    assert!(!String::from_utf8_lossy(&md.stdout).contains("Hyperstate analysis"));
}

/// Runs `hsg export` on `store` with `args`; returns stdout and the stderr summary.
fn export(store: &Path, args: &[&str]) -> (String, String) {
    let mut all = vec!["export", path_arg(store)];
    all.extend_from_slice(args);
    let out = ok(&all);
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).expect("UTF-8 output");
    (text(&out.stdout), text(&out.stderr))
}

/// The first number after `wrote ` in an export's stderr summary.
fn written_nodes(stderr: &str) -> usize {
    let rest = stderr.split("wrote ").nth(1).expect("a summary line");
    rest.split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a count")
}

#[test]
fn dot_export_is_a_digraph_with_the_papers_shapes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/tiny.xsb"), &store, &["--analyze"]);
    let h = report(&store)["hsg"].clone();
    let (dot, _) = export(&store, &["--format", "dot"]);
    let body = dot.trim_end();
    assert!(body.starts_with("digraph") && body.ends_with('}'), "{dot}");
    let (mut nodes, mut edges) = (Vec::new(), Vec::new());
    for line in body.lines().skip(1).filter(|l| l.trim() != "}") {
        let line = line.trim();
        assert!(line.ends_with("];"), "not a statement: {line}");
        let head = line.split(" [").next().unwrap_or_default();
        match head.split_once(" -> ") {
            Some((a, b)) => edges.push((a.to_string(), b.to_string())),
            None => nodes.push((head.to_string(), line.to_string())),
        }
    }
    assert_eq!(nodes.len() as u64, h["hyperstates"].as_u64().unwrap_or(0));
    assert_eq!(edges.len() as u64, h["hsg_edges"].as_u64().unwrap_or(0));
    for (a, b) in &edges {
        assert!(nodes.iter().any(|(n, _)| n == a) && nodes.iter().any(|(n, _)| n == b));
    }
    let count = |pred: &dyn Fn(&str) -> bool| nodes.iter().filter(|(_, l)| pred(l)).count();
    let wins = count(&|l| l.contains("shape=diamond"));
    let fails = count(&|l| l.contains("shape=box") && !l.contains("dashed"));
    assert!(wins > 0 && fails > 0, "tiny has both win and fail leaves");
    assert_eq!(Some(wins as u64), h["tags"]["win"].as_u64());
    assert_eq!(Some(fails as u64), h["tags"]["fail"].as_u64());
}

#[test]
fn graphml_jsonl_svg_and_the_node_cap() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/twoboxes.xsb"), &store, &[]);
    let h = report(&store)["hsg"].clone();
    let hyperstates = h["hyperstates"].as_u64().unwrap_or(0) as usize;

    let (xml, summary) = export(&store, &["--format", "graphml"]);
    assert!(
        xml.starts_with("<?xml") && xml.contains("<graphml"),
        "{xml}"
    );
    assert!(xml.trim_end().ends_with("</graphml>"));
    assert_eq!(xml.matches("<node ").count(), written_nodes(&summary));
    assert_eq!(written_nodes(&summary), hyperstates);

    let (jsonl, _) = export(&store, &["--format", "jsonl"]);
    let lines: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let kind = |k: &str| lines.iter().filter(|v| v["kind"] == k).count();
    assert_eq!(kind("node"), hyperstates);
    assert_eq!(kind("edge") as u64, h["hsg_edges"].as_u64().unwrap_or(0));
    let fails = lines.iter().filter(|v| v["tag"] == "fail").count() as u64;
    assert_eq!(Some(fails), h["tags"]["fail"].as_u64());

    let (capped, summary) = export(&store, &["--format", "jsonl", "--max-nodes", "3"]);
    let nodes = capped.lines().filter(|l| l.contains("\"kind\":\"node\""));
    assert_eq!(nodes.count(), 3);
    assert!(summary.contains("capped"), "{summary}");
    let (ssg, _) = export(
        &store,
        &["--graph", "ssg", "--format", "jsonl", "--max-nodes", "3"],
    );
    assert_eq!(
        ssg.lines()
            .filter(|l| l.contains("\"kind\":\"node\""))
            .count(),
        3
    );

    let svg = dir.path().join("hsg.svg");
    export(&store, &["--format", "svg", "-o", path_arg(&svg)]);
    let picture = std::fs::read_to_string(&svg).expect("svg written");
    assert!(picture.contains("<svg") && picture.trim_end().ends_with("</svg>"));
}

#[test]
fn export_refuses_svg_of_the_ssg_and_a_directory_that_is_no_store() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/tiny.xsb"), &store, &[]);
    let out = run(&[
        "export",
        path_arg(&store),
        "--graph",
        "ssg",
        "--format",
        "svg",
    ]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--graph hsg"));
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).expect("mkdir");
    let out = run(&["export", path_arg(&empty), "--format", "dot"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(path_arg(&empty)), "{err}");
}

#[test]
fn verify_passes_a_fresh_store_and_names_a_damaged_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/twoboxes.xsb"), &store, &[]);
    let out = ok(&["verify", path_arg(&store)]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok"));
    let name = "states-00000.seg";
    flip_middle_byte(&store.join(name));
    let out = run(&["verify", path_arg(&store)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(name) && !err.contains("panicked"), "{err}");
}

/// Flips one byte in the middle of `path`.
fn flip_middle_byte(path: &Path) {
    let mut bytes = std::fs::read(path).expect("readable");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x20;
    std::fs::write(path, bytes).expect("write");
}

#[test]
fn a_damaged_analysis_is_redone_or_reported_never_used() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/tiny.xsb"), &store, &["--analyze"]);
    let good = report(&store)["hsg"].clone();
    // A damaged summary fails its checksum, so the report analyses the run again.
    flip_middle_byte(&store.join("hsg/summary.json"));
    assert_eq!(report(&store)["hsg"], good);
    // A damaged per-hyperstate file is named and recomputed: the analysis is derived data.
    flip_middle_byte(&store.join("hsg/edges.bin"));
    let out = ok(&["export", path_arg(&store), "--format", "jsonl"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("edges.bin") && err.contains("analysing again"),
        "{err}"
    );
    let lines = String::from_utf8_lossy(&out.stdout).lines().count();
    assert!(lines > 0, "the export after the repair is empty");
    ok(&["export", path_arg(&store), "--format", "jsonl"]);
}

/// `hsg analyze` ends by saying where its time went, phase by phase, so that a long
/// analysis (hours on a billion states) can be understood after the fact.
#[test]
fn analyze_reports_the_seconds_of_every_phase() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("run");
    explore(&level("sokoban/twoboxes.xsb"), &store, &[]);
    let out = ok(&["analyze", path_arg(&store)]);
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("analysis saved in"))
        .unwrap_or_else(|| panic!("no closing line in {err}"));
    for phase in [
        "strongly connected components",
        "tags",
        "reversibility, branching, paths",
        "saving",
    ] {
        let at = line
            .find(&format!("{phase} "))
            .unwrap_or_else(|| panic!("no {phase} in {line}"));
        let seconds = line[at + phase.len() + 1..].split(' ').next().unwrap();
        assert!(
            seconds.parse::<f64>().is_ok(),
            "{phase}: {seconds} in {line}"
        );
    }
}
