//! `hsg batch` on a range of the bundled Boxoban levels and a folder with a broken level:
//! the tables agree with `hsg explore` + `hsg report` of the same level, a second batch
//! redoes nothing, a failing level is recorded and the batch goes on.

use crate::util::{explore, level, ok, path_arg, report, run};
use std::path::Path;

fn csv_rows(out: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(out.join("table.csv")).expect("table.csv");
    // The bundled titles hold no comma or quote, so a plain split is enough here.
    text.lines()
        .map(|l| l.split(',').map(String::from).collect())
        .collect()
}

fn column(rows: &[Vec<String>], name: &str) -> usize {
    rows[0]
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

#[test]
fn a_level_range_is_measured_ranked_and_not_redone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("batch");
    let file = level("sokoban/boxoban-hard-000-first20.txt");
    let range = format!("{}:1-3", file.display());
    let args = [
        "batch",
        &range,
        "--out",
        path_arg(&out),
        "--max-states",
        "150000",
        "--jobs",
        "2",
    ];
    let first = ok(&args);
    // Piped, the shared progress display gives every level its line.
    let said = String::from_utf8_lossy(&first.stderr);
    assert!(said.contains("[3/3] boxoban-hard-000-first20-"), "{said}");
    let rows = csv_rows(&out);
    assert_eq!(rows.len(), 4, "{rows:?}");
    for name in ["table.md", "index.html"] {
        assert!(out.join(name).is_file(), "{name}");
    }
    // Level 1 explored and analysed on its own gives the same figures.
    let store = dir.path().join("one");
    explore(&file, &store, &["--level", "1", "--max-states", "150000"]);
    let h = &report(&store)["hsg"];
    let first = rows
        .iter()
        .find(|r| r[0] == "boxoban-hard-000-first20-1")
        .expect("level 1's row");
    for (col, pointer) in [
        ("states", "/states"),
        ("hyperstates", "/hyperstates"),
        ("win_critical", "/shortest_win/critical_actions"),
        ("win_actions", "/shortest_win/actions"),
        ("breadth", "/failure_spectrum/breadth"),
    ] {
        let want = h.pointer(pointer).expect(pointer).to_string();
        assert_eq!(first[column(&rows, col)], want, "{col}");
    }
    let compression: f64 = first[column(&rows, "compression")].parse().unwrap();
    assert!((compression - h["compression"].as_f64().unwrap()).abs() < 1e-4);
    // Level 2 has more states than the limit: it is marked partial.
    let second = rows.iter().find(|r| r[0].ends_with("-2")).expect("level 2");
    assert_eq!(second[column(&rows, "complete")], "false");
    let md = std::fs::read_to_string(out.join("table.md")).unwrap();
    assert!(md.contains("| states |"), "{md}");
    // Partial levels are listed apart and never take a rank among the complete ones.
    let (ranked, partial) = md
        .split_once("## Partial levels")
        .expect("a partial section");
    assert!(!ranked.contains("boxoban-hard-000-first20-2"), "{ranked}");
    assert!(
        partial.contains("| boxoban-hard-000-first20-2 |"),
        "{partial}"
    );
    assert!(!md.contains("0.0000"), "no meaningless zero shares:\n{md}");
    // Counts read with thousands separators; the CSV keeps plain numbers.
    assert!(partial.contains("150,"), "{partial}");
    // A second batch finds every level done and leaves the results alone.
    let result = out.join("results/boxoban-hard-000-first20-1.json");
    let before = std::fs::metadata(&result).unwrap().modified().unwrap();
    let again = ok(&args);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("3 already done, 0 to do"), "{err}");
    assert_eq!(
        std::fs::metadata(&result).unwrap().modified().unwrap(),
        before
    );
}

#[test]
fn a_failing_level_is_recorded_and_the_batch_goes_on() {
    let dir = tempfile::tempdir().expect("temp dir");
    let levels = dir.path().join("levels");
    std::fs::create_dir(&levels).unwrap();
    std::fs::copy(level("sokoban/tiny.xsb"), levels.join("tiny.xsb")).unwrap();
    std::fs::write(levels.join("broken.xsb"), "#####\n#@$.#\n#@  #\n#####\n").unwrap();
    let out = dir.path().join("batch");
    ok(&["batch", path_arg(&levels), "--out", path_arg(&out)]);
    let rows = csv_rows(&out);
    let broken = rows
        .iter()
        .find(|r| r[0] == "broken-1")
        .expect("broken row");
    // The error is the last, quoted field (its comma splits it in this plain reading).
    assert!(
        broken.join(",").contains("has a second player"),
        "{broken:?}"
    );
    let tiny = rows.iter().find(|r| r[0] == "tiny-1").expect("tiny row");
    assert_eq!(tiny[column(&rows, "states")], "198");
    assert!(!out.join("runs").exists(), "stores are removed by default");
}

#[test]
fn bad_level_lists_are_usage_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("batch");
    let file = level("sokoban/boxoban-hard-000-first20.txt");
    for arg in [
        format!("{}:0-3", file.display()),
        format!("{}:5-2", file.display()),
        format!("{}:18-30", file.display()),
        dir.path().join("missing.xsb").display().to_string(),
    ] {
        let o = run(&["batch", &arg, "--out", path_arg(&out)]);
        assert_eq!(o.status.code(), Some(2), "{arg}");
    }
    let o = run(&["batch", "--out", path_arg(&out)]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn levels_of_one_name_in_two_folders_are_both_measured_and_linked() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (folder, file) in [("a", "sokoban/tiny.xsb"), ("b", "sokoban/twoboxes.xsb")] {
        std::fs::create_dir(dir.path().join(folder)).unwrap();
        std::fs::copy(level(file), dir.path().join(folder).join("lvl.xsb")).unwrap();
    }
    let out = dir.path().join("batch");
    let (a, b) = (dir.path().join("a/lvl.xsb"), dir.path().join("b/lvl.xsb"));
    ok(&["batch", path_arg(&a), path_arg(&b), "--out", path_arg(&out)]);
    let rows = csv_rows(&out);
    let states = column(&rows, "states");
    let find = |key: &str| {
        rows.iter()
            .find(|r| r[0] == key)
            .unwrap_or_else(|| panic!("{key}: {rows:?}"))
    };
    assert_eq!(find("a-lvl-1")[states], "198");
    assert_eq!(find("b-lvl-1")[states], "2887");
    // index.html links every level to its own report, written beside it.
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    for key in ["a-lvl-1", "b-lvl-1"] {
        assert!(
            index.contains(&format!("href=\"reports/{key}.html\"")),
            "{key}"
        );
        let report = std::fs::read_to_string(out.join(format!("reports/{key}.html"))).unwrap();
        assert!(report.contains("data-metric=\"/hsg/hyperstates\""), "{key}");
    }
    let b_report = std::fs::read_to_string(out.join("reports/b-lvl-1.html")).unwrap();
    assert!(
        b_report.contains("data-value=\"2887\""),
        "b's report is b's"
    );
}
