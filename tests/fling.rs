//! Fling! through the real binary: every shipped HOG2 board explored,
//! analysed and reported (its HSG is its SSG: each move removes a piece, so
//! no two states share a component), and the `hsg fling` commands.

use crate::util::{explore, level, ok, path_arg, report, run};
use serde_json::Value;

/// The shipped HOG2 files (HOG2's levels and the project's selections).
const FILES: [&str; 8] = [
    "level1.txt",
    "level3.txt",
    "level10.txt",
    "level20.txt",
    "level35.txt",
    "selected-7.txt",
    "selected-8.txt",
    "selected-11.txt",
];

fn board_json(file: &std::path::Path, index: usize, extra: &[&str]) -> Value {
    let n = index.to_string();
    let mut args = vec!["fling", "board", path_arg(file), "--level", &n, "--json"];
    args.extend_from_slice(extra);
    serde_json::from_slice(&ok(&args).stdout).expect("board report is JSON")
}

#[test]
fn every_shipped_board_has_an_hsg_equal_to_its_ssg() {
    let dir = tempfile::tempdir().expect("temp dir");
    for file in FILES {
        let path = level(&format!("fling/{file}"));
        let boards = std::fs::read_to_string(&path)
            .expect("level file")
            .matches("Hash:")
            .count();
        assert!(boards > 0, "{file}");
        // The selections' first ten boards are enough: they are all alike.
        let boards = if file.starts_with("selected") {
            boards.min(10)
        } else {
            boards
        };
        for index in 1..=boards {
            let store = dir.path().join(format!("{file}-{index}"));
            explore(&path, &store, &["--level", &index.to_string(), "--analyze"]);
            let r = report(&store);
            let what = format!("{file} level {index}");
            let states = r["exploration"]["states"].as_u64().expect("state count");
            assert_eq!(r["hsg"]["hyperstates"].as_u64(), Some(states), "{what}");
            assert!(
                r["hsg"]["tags"]["win"].as_u64() > Some(0),
                "{what}: HOG2 boards are solvable"
            );
            // The board analysis (with its 56 edited boards) is checked on the
            // smaller boards only: a debug build takes minutes on 14 pieces.
            if states < 20_000 {
                let board = board_json(&path, index, &[]);
                assert_eq!(board["plain_search"].as_u64(), Some(states), "{what}");
                assert_eq!(board["solvable"], true, "{what}");
                if file.starts_with("selected") {
                    assert_eq!(board["uniquely_solvable"], true, "{what}");
                }
            }
        }
    }
}

#[test]
fn tables_board_and_select_agree() {
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
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "     4           367,290           255,733            35,518             15,724"
        ),
        "{text}"
    );
    assert!(text.contains("at its canonical board"), "{text}");
    let again = ok(&[
        "fling",
        "tables",
        "--max-pieces",
        "4",
        "--out",
        path_arg(&tables),
    ]);
    assert_eq!(
        String::from_utf8_lossy(&again.stdout)
            .matches("(kept)")
            .count(),
        3
    );

    let chosen = dir.path().join("chosen.txt");
    ok(&[
        "fling",
        "select",
        "--pieces",
        "4",
        "--top",
        "5",
        "--tables",
        path_arg(&tables),
        "-o",
        path_arg(&chosen),
    ]);
    let written = std::fs::read_to_string(&chosen).expect("selection written");
    assert_eq!(written.matches("Hash:").count(), 5);
    for index in 1..=5 {
        let with_tables = board_json(&chosen, index, &["--tables", path_arg(&tables)]);
        let direct = board_json(&chosen, index, &[]);
        assert_eq!(with_tables, direct, "level {index}");
        assert_eq!(direct["uniquely_solvable"], true);
        assert_eq!(direct["is_canonical"], true);
        assert_eq!(direct["solving_moves"].as_array().map(Vec::len), Some(1));
    }
    let store = dir.path().join("run");
    explore(&chosen, &store, &["--analyze"]);
    let r = report(&store);
    assert_eq!(r["hsg"]["hyperstates"], r["exploration"]["states"]);
}

#[test]
fn a_board_command_on_a_wrong_file_names_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "Hash: 5\n.......\n.o.....\n").expect("write");
    let out = run(&["fling", "board", path_arg(&bad)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.txt:") && err.contains("8 rows"), "{err}");
    let missing = run(&[
        "fling",
        "board",
        path_arg(&level("fling/level1.txt")),
        "--tables",
        path_arg(&dir.path().join("none")),
    ]);
    assert_eq!(
        missing.status.code(),
        Some(0),
        "an empty tables folder falls back to search"
    );
    let sokoban = run(&["fling", "board", path_arg(&level("sokoban/tiny.xsb"))]);
    assert_eq!(sokoban.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&sokoban.stderr).contains("not a Fling! board"));
}

/// The row of `pieces` in the output of `hsg fling tables`.
fn table_row(text: &str, pieces: usize) -> String {
    let start = format!("{pieces:>6}  ");
    text.lines()
        .find(|l| l.starts_with(&start))
        .unwrap_or_else(|| panic!("no row for {pieces} pieces in {text}"))
        .to_string()
}

/// The last number (uniquely solvable boards) before the seconds of a table row.
fn unique_column(row: &str) -> String {
    let fields: Vec<&str> = row.split_whitespace().collect();
    fields[fields.len() - 2].to_string()
}

#[test]
fn lists_above_the_full_tables_agree_with_full_tables() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (full, listed) = (dir.path().join("full"), dir.path().join("listed"));
    let tables = |out: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "fling",
            "tables",
            "--max-pieces",
            "6",
            "--out",
            path_arg(out),
        ];
        args.extend_from_slice(extra);
        String::from_utf8_lossy(&ok(&args).stdout).to_string()
    };
    let whole = tables(&full, &[]);
    let lists = tables(&listed, &["--full-tables", "4"]);
    for pieces in [5, 6] {
        let row = table_row(&lists, pieces);
        assert!(row.contains("(not counted)"), "{row}");
        assert_eq!(
            unique_column(&row),
            unique_column(&table_row(&whole, pieces)),
            "{pieces} pieces"
        );
    }
    assert_eq!(unique_column(&table_row(&lists, 6)), "548,966");
    // Listed counts are kept when the command runs again.
    let again = tables(&listed, &["--full-tables", "4"]);
    assert_eq!(again.matches("(kept)").count(), 5, "{again}");

    // Selection and board analysis from a list equal those from full tables.
    let select = |from: &std::path::Path, name: &str| {
        let chosen = dir.path().join(name);
        let args = [
            "fling",
            "select",
            "--pieces",
            "6",
            "--top",
            "4",
            "--full-tables",
            "4",
            "--tables",
            path_arg(from),
            "-o",
            path_arg(&chosen),
        ];
        ok(&args);
        chosen
    };
    let (a, b) = (select(&full, "a.txt"), select(&listed, "b.txt"));
    assert_eq!(std::fs::read(&a).expect("a"), std::fs::read(&b).expect("b"));
    for index in 1..=4 {
        let from_list = board_json(&b, index, &["--tables", path_arg(&listed)]);
        assert_eq!(
            from_list,
            board_json(&b, index, &["--tables", path_arg(&full)])
        );
        assert_eq!(from_list["uniquely_solvable"], true);
    }
}

#[test]
fn lists_more_than_two_counts_above_the_tables_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = run(&[
        "fling",
        "tables",
        "--max-pieces",
        "6",
        "--full-tables",
        "3",
        "--out",
        path_arg(dir.path()),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("at most 2 piece counts above"), "{err}");
    // Refused before any table is built.
    assert!(!dir.path().join("manifest.json").exists());
}
