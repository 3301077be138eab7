//! What a user sees of the command line (issue 22, items 13 to 17): counters and lists
//! that agree with the analysis, aligned tables, refused mistakes with exit code 2,
//! labelled pictures, output files that appear whole or not at all, help that names the
//! formats, and progress when standard error is a pipe.

use crate::util::{explore, level, ok, path_arg, report, run};
use std::path::Path;

/// Explores and analyses `name` into `dir/store`.
fn analysed(dir: &Path, name: &str, store: &str, extra: &[&str]) -> std::path::PathBuf {
    let path = dir.join(store);
    let mut flags = vec!["--analyze"];
    flags.extend_from_slice(extra);
    explore(&level(name), &path, &flags);
    path
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn puzzlegraph_counters_count_every_outcome_of_a_score_target() {
    // Regression (item 13): the target `score>=14` was looked up as one outcome name,
    // so the counters said `goal states 0` beside 4 win hyperstates.
    let dir = tempfile::tempdir().expect("temp dir");
    let store = analysed(dir.path(), "sandbox/tiny.sandbox", "run", &[]);
    let r = report(&store);
    assert_eq!(r["hsg"]["target"], "score>=14");
    let wins = r["exploration"]["outcomes"]["score 14"].as_u64().unwrap();
    assert!(wins > 0);
    assert_eq!(r["puzzlegraph_counters"]["goal_states"], wins);
    assert!(r["puzzlegraph_counters"]["goal_path"].as_u64().is_some());
    let md = stdout(&ok(&["report", path_arg(&store), "--format", "md"]));
    assert!(md.contains(&format!("| goal states | {wins} |")), "{md}");
}

#[test]
fn info_lists_outcomes_in_the_games_order() {
    // Regression (item 13): scores were sorted as strings (score 10 before score 9).
    let dir = tempfile::tempdir().expect("temp dir");
    let store = analysed(dir.path(), "sandbox/tiny.sandbox", "run", &[]);
    let info = stdout(&ok(&["info", path_arg(&store)]));
    let line = info
        .lines()
        .find(|l| l.starts_with("terminals"))
        .expect("terminals line");
    let nine = line.find("score 9:").expect("score 9");
    let ten = line.find("score 10:").expect("score 10");
    assert!(nine < ten, "{line}");
    assert!(line.contains("other outcomes: 0"), "{line}");
}

#[test]
fn diff_aligns_its_columns_and_heads_the_tag_matrix() {
    let dir = tempfile::tempdir().expect("temp dir");
    let limited = analysed(
        dir.path(),
        "sokoban/twoboxes.xsb",
        "limited",
        &["--hsg-depth", "2"],
    );
    let full = analysed(dir.path(), "sokoban/twoboxes.xsb", "full", &[]);
    let text = stdout(&ok(&["diff", path_arg(&limited), path_arg(&full)]));
    let metrics: Vec<&str> = text.lines().take_while(|l| !l.is_empty()).collect();
    assert!(metrics.len() > 10, "{text}");
    // Every figure ends in the same column, the root tag's long names included.
    let width = metrics[0].len();
    for line in &metrics {
        assert_eq!(line.len(), width, "misaligned: {line:?}\n{text}");
    }
    let header = text
        .lines()
        .skip_while(|l| !l.starts_with("states by tag"))
        .nth(1)
        .expect("the tag matrix's header");
    let columns: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(columns, ["win", "fail", "e-win", "i-fail", "unknown"]);
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("unknown "))
        .expect("the unknown row");
    assert_eq!(row.len(), header.len(), "{header:?} / {row:?}");
}

#[test]
fn diff_refuses_swapped_runs_with_exit_2() {
    // Regression (item 14): swapped arguments printed a full inverted table and exit 0.
    let dir = tempfile::tempdir().expect("temp dir");
    let limited = analysed(
        dir.path(),
        "sokoban/twoboxes.xsb",
        "limited",
        &["--hsg-depth", "1"],
    );
    let full = analysed(dir.path(), "sokoban/twoboxes.xsb", "full", &[]);
    let out = run(&["diff", path_arg(&full), path_arg(&limited)]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("swapped"), "{err}");
    assert!(err.contains(&format!(
        "hsg diff {} {}",
        limited.display(),
        full.display()
    )));
    assert!(stdout(&out).is_empty(), "no table is printed");
}

#[test]
fn svg_export_labels_every_node_and_draws_a_legend() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = analysed(dir.path(), "sokoban/twoboxes.xsb", "run", &[]);
    let file = dir.path().join("hsg.svg");
    let out = ok(&[
        "export",
        path_arg(&store),
        "--format",
        "svg",
        "-o",
        path_arg(&file),
    ]);
    let svg = std::fs::read_to_string(&file).expect("svg written");
    let hyperstates = report(&store)["hsg"]["hyperstates"].as_u64().unwrap();
    assert_eq!(svg.matches(r#"font-size="9""#).count() as u64, hyperstates);
    assert!(svg.contains(&format!("whole HSG: {hyperstates} hyperstates")));
    for tag in [
        "win",
        "fail",
        "eventually winnable",
        "implicitly failed",
        "unknown",
    ] {
        assert!(svg.contains(&format!(">{tag} (")), "legend lacks {tag}");
    }
    assert!(stderr(&out).contains("the whole HSG"), "{}", stderr(&out));
}

#[test]
fn svg_export_of_a_part_says_how_much_it_shows() {
    // Regression (item 15): room3's picture silently showed 252 of 478 hyperstates.
    let dir = tempfile::tempdir().expect("temp dir");
    let store = analysed(dir.path(), "sokoban/twoboxes.xsb", "run", &[]);
    let out = ok(&[
        "export",
        path_arg(&store),
        "--format",
        "svg",
        "--max-nodes",
        "10",
        "--radius",
        "1",
    ]);
    let svg = stdout(&out);
    let shown = svg.matches(r#"font-size="9""#).count();
    assert!(shown <= 10, "{shown}");
    let hyperstates = report(&store)["hsg"]["hyperstates"].as_u64().unwrap();
    let showing = format!("showing {shown} of {hyperstates} hyperstates");
    assert!(svg.contains(&showing), "the picture says {showing}");
    assert!(stderr(&out).contains(&showing), "{}", stderr(&out));
}

#[test]
fn a_failed_export_leaves_no_file_and_keeps_an_older_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = analysed(dir.path(), "sokoban/tiny.xsb", "run", &[]);
    let file = dir.path().join("graph.dot");
    // A store that cannot be read: nothing is created.
    let missing = dir.path().join("missing");
    let out = run(&[
        "export",
        path_arg(&missing),
        "--format",
        "dot",
        "-o",
        path_arg(&file),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!file.exists(), "a failed export left {}", file.display());
    // A good export, then a failed one over it: the good file stays as it was.
    ok(&[
        "export",
        path_arg(&store),
        "--format",
        "dot",
        "-o",
        path_arg(&file),
    ]);
    let good = std::fs::read(&file).expect("written");
    assert!(!good.is_empty());
    std::fs::write(store.join("MANIFEST"), b"damaged").expect("damage");
    let out = run(&[
        "export",
        path_arg(&store),
        "--format",
        "dot",
        "-o",
        path_arg(&file),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read(&file).expect("still there"), good);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("listing")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.contains("partial")), "{names:?}");
}

#[test]
fn usage_errors_exit_2_in_every_subcommand() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = analysed(dir.path(), "sokoban/twoboxes.xsb", "run", &[]);
    let s = path_arg(&store);
    let tiny = level("sokoban/tiny.xsb");
    let tiny = path_arg(&tiny);
    let other = dir.path().join("other");
    let other = path_arg(&other);
    let ps = level("puzzlescript/room3.ps.txt");
    let ps = path_arg(&ps);
    let nim = level("grammar/nim.game");
    let nim = path_arg(&nim);
    let cases: Vec<Vec<&str>> = vec![
        vec!["report", s],
        vec!["explore", tiny, "--store", other, "--mem", "1K"],
        vec!["explore", tiny, "--store", other, "--level", "9"],
        vec!["explore", tiny, "--store", other, "--title", "nope"],
        vec!["explore", tiny, "--store", other, "--flip-tokens", "99"],
        vec!["analyze", s, "--target", "nosuch"],
        vec!["report", s, "--json", "--win-score", "5"],
        vec!["export", s, "--graph", "ssg", "--format", "svg"],
        vec!["export", s, "--format", "dot", "--max-nodes", "0"],
        vec!["weak", s, "--ignore", "nosuch"],
        vec!["path", s, "--to", "99999999"],
        vec!["why", s, "99999999"],
        vec!["compare", nim, nim, "--similarity"],
        vec!["puzzlescript", "play", ps, "--level", "99", "--inputs", "0"],
        vec!["puzzlescript", "play", ps, "--inputs", "9"],
        vec!["fling", "select", "--pieces", "15", "-o", other],
        vec![
            "sandbox",
            "experiment",
            "exp4",
            "--instances",
            "1",
            "--runs",
            "1",
            "--population",
            "1",
            "--out",
            other,
        ],
    ];
    for args in cases {
        let out = run(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "hsg {args:?}: {err}");
        assert!(
            err.contains("--help"),
            "hsg {args:?} points to its help: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    // A failure that is not a usage error keeps exit code 1. (Regression: `--mem 1K`
    // was refused only after the store was made, which then read as a run that never
    // committed.)
    let out = run(&["info", other]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn the_workbench_without_a_terminal_says_it_needs_one() {
    // Regression (item 16): `No such device or address (os error 6)`.
    let dir = tempfile::tempdir().expect("temp dir");
    let store = analysed(dir.path(), "sokoban/tiny.xsb", "run", &[]);
    let tiny = level("sokoban/tiny.xsb");
    for args in [
        vec!["tui", path_arg(&store)],
        vec!["open", path_arg(&tiny), "--store", path_arg(&store)],
    ] {
        let out = run(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("needs a terminal"), "{err}");
        assert!(!err.contains("os error"), "{err}");
    }
}

#[test]
fn help_of_level_files_names_their_formats() {
    for args in [["explore", "--help"], ["open", "--help"]] {
        let help = stdout(&ok(&args));
        for format in [
            "Sokoban",
            "PuzzleGraph",
            "Fling!",
            "sandbox",
            ".game",
            "PuzzleScript",
        ] {
            assert!(help.contains(format), "{args:?} lacks {format}");
        }
    }
    let help = stdout(&ok(&["fling", "board", "--help"]));
    assert!(help.contains("Fling! level file: HOG2"), "{help}");
    assert!(
        !help.contains("Sokoban"),
        "fling board reads Fling! boards only"
    );
    let help = stdout(&ok(&["compare", "--help"]));
    assert!(help.contains("tictactoe-to-three-to-fifteen.map"), "{help}");
}

#[test]
fn fling_boards_are_titled_after_their_file_and_number() {
    // Regression (item 16): every board was titled `level 1`.
    let file = level("fling/level10.txt");
    let out = ok(&["fling", "board", path_arg(&file), "--level", "3"]);
    assert!(stdout(&out).starts_with("level10 #3: "), "{}", stdout(&out));
    let list = stdout(&ok(&["explore", path_arg(&file), "--list"]));
    assert!(list.contains("level10 #7"), "{list}");
}

#[test]
fn the_shipped_similarity_map_relates_tictactoe_and_three_to_fifteen() {
    let (a, b) = (
        level("grammar/tictactoe.game"),
        level("grammar/three-to-fifteen.game"),
    );
    let map = level("grammar/tictactoe-to-three-to-fifteen.map");
    let out = ok(&[
        "compare",
        path_arg(&a),
        path_arg(&b),
        "--similarity",
        "--map",
        path_arg(&map),
        "--samples",
        "20",
        "--json",
    ]);
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(s["similarity"], 1.0, "{s:#}");
}

#[test]
fn fling_tables_and_select_report_progress_when_piped() {
    // Regression (item 16): piped, they printed nothing for minutes.
    let dir = tempfile::tempdir().expect("temp dir");
    let tables = dir.path().join("tables");
    let out = ok(&[
        "fling",
        "tables",
        "--max-pieces",
        "4",
        "--out",
        path_arg(&tables),
    ]);
    let err = stderr(&out);
    assert!(err.contains("tables of 4 pieces: 100%"), "{err}");
    let picked = dir.path().join("picked.txt");
    let out = ok(&[
        "fling",
        "select",
        "--pieces",
        "4",
        "--top",
        "3",
        "--tables",
        path_arg(&tables),
        "-o",
        path_arg(&picked),
    ]);
    let err = stderr(&out);
    assert!(err.contains("ranking 4-piece boards: "), "{err}");
}

#[test]
fn info_and_report_count_held_back_states_apart_from_expanded_ones() {
    // Regression (item 17): info said every state was expanded and called the states
    // an HSG depth limit held back `undeclared`; the analysis said they were never
    // expanded.
    let dir = tempfile::tempdir().expect("temp dir");
    let store = analysed(
        dir.path(),
        "sokoban/twoboxes.xsb",
        "run",
        &["--hsg-depth", "2"],
    );
    let r = report(&store);
    let e = &r["exploration"];
    let held = e["held_back"].as_u64().unwrap();
    assert!(held > 0);
    assert!(e["outcomes"].get("undeclared").is_none(), "{e}");
    assert_eq!(
        e["expanded"].as_u64().unwrap() + held,
        e["states"].as_u64().unwrap(),
        "{e}"
    );
    assert_eq!(r["hsg"]["open_states"].as_u64(), Some(held));
    let info = stdout(&ok(&["info", path_arg(&store)]));
    assert!(!info.contains("undeclared"), "{info}");
    assert!(info.contains(&format!("{held} held back")), "{info}");
    let md = stdout(&ok(&["report", path_arg(&store), "--format", "md"]));
    assert!(
        md.contains(&format!("| held back (--hsg-depth) | {held} |")),
        "{md}"
    );
}

#[test]
fn analysis_shows_its_phases_on_a_terminal_and_nothing_in_a_pipe() {
    // Item 12: a progress bar over the analysis's phases, on stderr, only on a terminal.
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/twoboxes.xsb"), &store, &[]);
    // `script` runs the command on a pseudo-terminal and copies what it drew.
    let command = format!("{} analyze {}", env!("CARGO_BIN_EXE_hsg"), path_arg(&store));
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .expect("script (util-linux) runs");
    let drawn = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{drawn}");
    assert!(
        drawn.contains("phase 1 of 6: strongly connected components"),
        "{drawn}"
    );
    let piped = ok(&["analyze", path_arg(&store)]);
    assert!(!stderr(&piped).contains("phase"), "{}", stderr(&piped));
}
