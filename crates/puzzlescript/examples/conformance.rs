//! Replays a conformance file and prints each failing case with its first
//! differing cell (or its error), then the pass count.

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../../../shared/fixtures/puzzlescript/testdata.jsonl".into());
    if std::env::args().nth(2).as_deref() == Some("timing") {
        timing(&path);
        return;
    }
    if let Some(n) = std::env::args()
        .nth(2)
        .and_then(|n| n.parse::<usize>().ok())
    {
        show(&path, n);
        return;
    }
    match puzzlescript::conformance::run_file(std::path::Path::new(&path)) {
        Ok(report) => {
            for (i, c) in report.cases.iter().enumerate() {
                if !c.passed {
                    println!(
                        "FAIL #{i} {}: {}",
                        c.name,
                        c.error.clone().unwrap_or_else(|| format!(
                            "first difference at {:?}",
                            c.first_difference
                        ))
                    );
                }
            }
            println!("{} passed, {} failed", report.passed(), report.failed());
        }
        Err(e) => eprintln!("{e}"),
    }
}

/// Prints the expected and actual text forms of case `n`.
fn show(path: &str, n: usize) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let Some(line) = text.lines().nth(n) else {
        return;
    };
    let v: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
    println!("expected:\n{}", v["expected"].as_str().unwrap_or(""));
    let Ok(report) = puzzlescript::conformance::run_text(path, line) else {
        return;
    };
    println!("{:?}", report.cases);
    let Ok(game) = puzzlescript::compile("case", v["source"].as_str().unwrap_or("")) else {
        return;
    };
    let level = v["level"].as_u64().unwrap_or(0) as usize;
    let seed = v["seed"].as_str().map(str::to_string);
    let Ok(mut s) = puzzlescript::Session::new(&game, level, seed.as_deref()) else {
        return;
    };
    for i in v["inputs"].as_array().into_iter().flatten() {
        let word = i
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| i.to_string());
        if let Some(input) = puzzlescript::Input::parse(&word) {
            s.input(input);
        }
    }
    println!("actual:\n{}", s.text_form());
}

/// Prints the slowest cases (timing each one alone).
fn timing(path: &str) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut times = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = std::time::Instant::now();
        let _ = puzzlescript::conformance::run_text(path, line);
        times.push((t.elapsed().as_secs_f64(), i));
    }
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (t, i) in times.iter().take(10) {
        println!("#{i}: {t:.3}s");
    }
}
