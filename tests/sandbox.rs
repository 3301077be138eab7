//! The Affordance Sandbox through the real binary: `hsg sandbox generate`,
//! a small `hsg sandbox experiment`, and a small instance explored,
//! analysed and reported.

use crate::util::{level, ok, path_arg, run};

#[test]
fn generate_writes_reproducible_instances() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for out in [&a, &b] {
        ok(&[
            "sandbox",
            "generate",
            "exp3",
            "--instances",
            "3",
            "--seed",
            "5",
            "--out",
            path_arg(out),
        ]);
    }
    for name in [
        "spec.sandbox",
        "instance-001.sandbox",
        "instance-003.sandbox",
    ] {
        let first = std::fs::read_to_string(a.join(name)).expect("written");
        assert_eq!(
            first,
            std::fs::read_to_string(b.join(name)).expect("written"),
            "{name}"
        );
    }
    let one = std::fs::read_to_string(a.join("instance-001.sandbox")).expect("written");
    assert!(one.starts_with("sandbox instance\n"));
    assert_eq!(
        one.matches(" B").count() + one.matches("\nB").count(),
        10,
        "ten blue tokens:\n{one}"
    );
    let printed = ok(&[
        "sandbox",
        "generate",
        "exp3",
        "--instances",
        "3",
        "--seed",
        "5",
    ]);
    let printed = String::from_utf8(printed.stdout).expect("utf-8");
    assert!(printed.starts_with(&one), "stdout holds the same instances");
    assert_eq!(printed.matches("sandbox instance").count(), 3);
}

#[test]
fn generate_refuses_an_unknown_spec() {
    let out = run(&["sandbox", "generate", "exp9", "--instances", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("presets"));
}

#[test]
fn a_small_experiment_writes_its_tables_and_figures() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("exp");
    let args = |threads: &'static str, out: &std::path::Path| {
        let mut a: Vec<String> = [
            "sandbox",
            "experiment",
            "exp4",
            "--instances",
            "3",
            "--runs",
            "4",
            "--seed",
            "2",
        ]
        .map(String::from)
        .to_vec();
        a.extend(
            [
                "--population",
                "60",
                "--updates",
                "200",
                "--threads",
                threads,
            ]
            .map(String::from),
        );
        a.extend(["--out".to_string(), path_arg(out).to_string()]);
        a
    };
    let one: Vec<String> = args("1", &out);
    ok(&one.iter().map(String::as_str).collect::<Vec<_>>());
    let runs = std::fs::read_to_string(out.join("runs.csv")).expect("runs.csv");
    assert!(runs.starts_with("instance,run,best_score\n"));
    assert_eq!(runs.lines().count(), 1 + 12);
    let instances = std::fs::read_to_string(out.join("instances.csv")).expect("instances.csv");
    assert!(instances.starts_with("instance,min,q1,median,q3,max,mean,sd"));
    assert_eq!(instances.lines().count(), 1 + 3);
    for file in [
        "summary.md",
        "boxplot.svg",
        "highest.svg",
        "lowest.svg",
        "highest.sandbox",
        "tokens.csv",
    ] {
        assert!(out.join(file).exists(), "{file} written");
    }
    // Regression: the box plot of a few instances was 94 px wide and cut its title.
    for (file, least) in [("boxplot.svg", 600.0), ("highest.svg", 400.0)] {
        let svg = std::fs::read_to_string(out.join(file)).expect(file);
        let width: f64 = svg
            .split("width=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .and_then(|w| w.parse().ok())
            .expect("the picture's width");
        assert!(width >= least, "{file} is {width} px wide");
    }
    let other = dir.path().join("exp2threads");
    let two: Vec<String> = args("2", &other);
    ok(&two.iter().map(String::as_str).collect::<Vec<_>>());
    let again = std::fs::read_to_string(other.join("runs.csv")).expect("runs.csv");
    assert_eq!(runs, again, "the thread count does not change the results");
}

#[test]
fn a_small_instance_explores_and_reports() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("store");
    let tiny = level("sandbox/tiny.sandbox");
    ok(&[
        "explore",
        path_arg(&tiny),
        "--store",
        path_arg(&store),
        "--analyze",
        "--target",
        "score 14",
    ]);
    let out = ok(&["report", path_arg(&store), "--json", "--target", "score 14"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("report is JSON");
    let exploration = &report["exploration"];
    assert_eq!(exploration["complete"], true);
    let outcomes = exploration["outcomes"].as_object().expect("outcomes");
    let best = outcomes
        .iter()
        .filter(|(_, n)| n.as_u64().unwrap_or(0) > 0)
        .filter_map(|(name, _)| name.strip_prefix("score ")?.parse::<u32>().ok())
        .max();
    assert_eq!(best, Some(14), "the best reachable score of tiny.sandbox");
    assert_eq!(exploration["states"], 1157);
}
