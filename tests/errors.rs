//! Bad input at the command line: malformed levels, wrong flags, missing
//! stores. Each gets a clear message and the documented exit code.

use crate::util::{explore, hsg, level, run};

fn write_level(dir: &std::path::Path, text: &str) -> std::path::PathBuf {
    let path = dir.join("bad.xsb");
    std::fs::write(&path, text).expect("writable");
    path
}

fn explore_err(text: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = write_level(dir.path(), text);
    let store = dir.path().join("run");
    let out = run(&[
        "explore",
        path.to_str().unwrap_or_default(),
        "--store",
        store.to_str().unwrap_or_default(),
    ]);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn malformed_levels_name_file_line_and_column() {
    let cases = [
        ("#####\n#   #\n# $.#\n#####\n", "player", "bad.xsb"),
        ("#####\n#@@ #\n#$ .#\n#####\n", "player", ":2:3"),
        ("#####\n#@ X#\n#$ .#\n#####\n", "X", ":2:4"),
        ("#####\n#@  \n#$ .#\n#####\n", "open", "bad.xsb"),
    ];
    for (text, word, position) in cases {
        let (code, err) = explore_err(text);
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains(word), "expected `{word}` in: {err}");
        assert!(err.contains(position), "expected `{position}` in: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn missing_level_number_and_title_are_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = write_level(dir.path(), "#####\n#@$.#\n#####\n");
    let store = dir.path().join("run");
    for flag in [["--level", "3"], ["--title", "nope"]] {
        let out = run(&[
            "explore",
            path.to_str().unwrap_or_default(),
            "--store",
            store.to_str().unwrap_or_default(),
            flag[0],
            flag[1],
        ]);
        assert_eq!(out.status.code(), Some(2), "a usage error");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("bad.xsb"), "{err}");
    }
}

#[test]
fn usage_errors_exit_with_two() {
    for args in [
        vec!["explore"],
        vec!["explore", "x.xsb", "--store", "d", "--mem", "lots"],
        vec!["frobnicate"],
        vec!["report"],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn every_subcommand_has_help() {
    for sub in ["explore", "info", "report"] {
        let out = run(&[sub, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{sub}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("Usage"));
    }
}

#[test]
fn a_directory_that_is_not_a_store_is_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    for sub in ["info", "report"] {
        let mut args = vec![sub, dir.path().to_str().unwrap_or_default()];
        if sub == "report" {
            args.push("--json");
        }
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{sub}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
}

#[test]
fn a_closed_standard_output_ends_quietly_without_a_panic() {
    // Regression: `hsg info DIR | head -1` panicked in `println!` on the broken pipe.
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/twoboxes.xsb"), &store, &["--analyze"]);
    let store = store.to_str().expect("utf-8 path");
    let commands: [&[&str]; 4] = [
        &["info", store],
        &["report", store, "--json"],
        &["report", store, "--format", "md"],
        &["export", store, "--format", "dot"],
    ];
    for args in commands {
        // The reading end is closed before `hsg` starts, so its first write fails.
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let out = hsg()
            .args(args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .expect("hsg runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "hsg {args:?} panicked: {err}");
        assert_eq!(out.status.code(), Some(0), "hsg {args:?}: {err}");
    }
}
