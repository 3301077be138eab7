//! The layering of the workspace, checked from `cargo metadata`: each crate
//! may depend only on the layers below it, and only the presentation crates
//! may use the terminal UI libraries.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Which of our crates each crate may depend on.
fn allowed() -> BTreeMap<&'static str, &'static [&'static str]> {
    BTreeMap::from([
        ("model", &[][..]),
        ("gamelang", &["model"][..]),
        ("games", &["model", "gamelang", "puzzlescript"][..]),
        // The store shares only the id types of the model (`StateId`, `ActionId`,
        // `OutcomeId`), never a game.
        ("store", &["model"][..]),
        ("explore", &["model", "store"][..]),
        ("hsg", &["model", "store"][..]),
        // Distributed exploration: the explorer's slots over parts written with the
        // store's checksummed files, gathered into an ordinary store.
        ("cluster", &["model", "store", "explore"][..]),
        // Game-specific solvers: Fling's retrograde tables, the sandbox's evolutionary
        // solver, and game trees with their equivalences. They sit beside the analysis,
        // never below it.
        ("fling", &["model", "games", "store"][..]),
        ("evolve", &["model", "games"][..]),
        ("equiv", &["model", "games", "store"][..]),
        // The PuzzleScript language sits beside the games: its own parser, compiler and engine.
        ("puzzlescript", &["model"][..]),
        ("tui", &["model", "games", "store", "hsg"][..]),
        (
            "cli",
            &[
                "model",
                "games",
                "store",
                "explore",
                "cluster",
                "hsg",
                "tui",
                "fling",
                "evolve",
                "equiv",
                "puzzlescript",
            ][..],
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

/// The table says what is, not only what may be: an allowance that nothing uses is a layer
/// boundary nobody is defending, so it is removed rather than kept "just in case".
#[test]
fn the_layering_table_names_only_dependencies_in_use() {
    let deps = workspace_deps();
    for (krate, may) in allowed() {
        let used = deps.get(krate).cloned().unwrap_or_default();
        let unused: Vec<&str> = may.iter().copied().filter(|d| !used.contains(*d)).collect();
        assert!(
            unused.is_empty(),
            "`{krate}` is allowed {unused:?} but does not use them: remove them from the table"
        );
    }
}

/// The root file of every crate's library or binary.
fn crate_roots() -> Vec<(String, std::path::PathBuf)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let crates = std::fs::read_dir(root.join("crates")).expect("crates/ is readable");
    let mut roots = Vec::new();
    for krate in crates.flatten().map(|e| e.path()) {
        let name = krate.file_name().map(|n| n.to_string_lossy().into_owned());
        for file in ["src/lib.rs", "src/main.rs"] {
            if krate.join(file).is_file() {
                roots.push((name.clone().unwrap_or_default(), krate.join(file)));
            }
        }
    }
    roots
}

/// The compiler enforces this: a crate root that forbids `unsafe_code` cannot contain any
/// `unsafe` block, function or impl, whatever a text search would miss.
#[test]
fn only_the_store_may_use_unsafe() {
    let roots = crate_roots();
    assert!(roots.len() >= 10, "found only {} crate roots", roots.len());
    let missing: Vec<String> = roots
        .iter()
        .filter(|(name, _)| name != "store")
        .filter(|(_, path)| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            !text.lines().any(|l| l.trim() == "#![forbid(unsafe_code)]")
        })
        .map(|(_, path)| path.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "crate roots without #![forbid(unsafe_code)]: {missing:?}"
    );
}

/// Every crate's public items are documented, and stay so.
#[test]
fn every_crate_warns_on_missing_docs() {
    let missing: Vec<String> = crate_roots()
        .iter()
        .filter(|(_, path)| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            !text.lines().any(|l| l.trim() == "#![warn(missing_docs)]")
        })
        .map(|(_, path)| path.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "crate roots without #![warn(missing_docs)]: {missing:?}"
    );
}
