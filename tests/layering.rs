//! The layering of the workspace, checked from `cargo metadata`: each crate
//! may depend only on the layers below it, and only the presentation crates
//! may use the terminal UI libraries.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Which of our crates each crate may depend on.
fn allowed() -> BTreeMap<&'static str, &'static [&'static str]> {
    BTreeMap::from([
        ("model", &[][..]),
        ("games", &["model"][..]),
        ("store", &[][..]),
        ("explore", &["model", "store"][..]),
        ("hsg", &["model", "store"][..]),
        // Game-specific solvers: Fling's retrograde tables, the sandbox's evolutionary
        // solver, and game trees with their equivalences. They sit beside the analysis,
        // never below it.
        ("fling", &["model", "games", "store"][..]),
        ("evolve", &["model", "games"][..]),
        ("equiv", &["model", "games", "store"][..]),
        // The PuzzleScript language sits beside the games: its own parser, compiler and engine.
        ("puzzlescript", &["model"][..]),
        (
            "tui",
            &["model", "games", "store", "explore", "hsg", "puzzlescript"][..],
        ),
        (
            "cli",
            &[
                "model",
                "games",
                "store",
                "explore",
                "hsg",
                "tui",
                "fling",
                "evolve",
                "equiv",
                "puzzlescript",
            ][..],
        ),
        (
            "benches",
            &["model", "games", "store", "explore", "hsg"][..],
        ),
    ])
}

/// Third-party crates only some layers may use.
const UI_ONLY: [&str; 2] = ["ratatui", "crossterm"];
const UI_CRATES: [&str; 2] = ["cli", "tui"];

fn workspace_deps() -> BTreeMap<String, BTreeSet<String>> {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata failed");
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let mut deps = BTreeMap::new();
    for package in meta["packages"].as_array().into_iter().flatten() {
        let name = package["name"].as_str().unwrap_or_default().to_string();
        let names = package["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str().map(str::to_string))
            .collect();
        deps.insert(name, names);
    }
    deps
}

#[test]
fn crates_depend_only_on_lower_layers() {
    let allowed = allowed();
    let deps = workspace_deps();
    let ours: BTreeSet<&str> = allowed.keys().copied().collect();
    assert!(deps.contains_key("model") && deps.contains_key("cli"));
    for (krate, used) in &deps {
        let Some(may) = allowed.get(krate.as_str()) else {
            panic!("crate `{krate}` is not in the layering table of tests/layering.rs");
        };
        for dep in used {
            if ours.contains(dep.as_str()) {
                assert!(
                    may.contains(&dep.as_str()),
                    "`{krate}` must not depend on `{dep}` (allowed: {may:?})"
                );
            }
            if UI_ONLY.contains(&dep.as_str()) {
                assert!(
                    UI_CRATES.contains(&krate.as_str()),
                    "only {UI_CRATES:?} may use `{dep}`, not `{krate}`"
                );
            }
        }
    }
}

#[test]
fn only_the_store_uses_unsafe() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut offenders = Vec::new();
    let crates = std::fs::read_dir(root.join("crates")).expect("crates/ is readable");
    for krate in crates.flatten().map(|e| e.path()) {
        if krate.file_name().is_some_and(|n| n == "store") {
            continue;
        }
        let src = krate.join("src");
        let mut stack = vec![src];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    if text.lines().any(|l| {
                        let l = l.trim_start();
                        !l.starts_with("//") && (l.contains("unsafe {") || l.contains("unsafe fn"))
                    }) {
                        offenders.push(path.display().to_string());
                    }
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "unsafe outside the store: {offenders:?}"
    );
}
