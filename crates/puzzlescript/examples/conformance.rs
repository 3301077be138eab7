//! Replays a conformance file and prints each failing case with its first
//! differing cell (or its error), then the pass count.

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../../../shared/fixtures/puzzlescript/testdata.jsonl".into());
    match puzzlescript::conformance::run_file(std::path::Path::new(&path)) {
        Ok(report) => {
            for (i, c) in report.cases.iter().enumerate() {
                if !c.passed {
                    println!(
                        "FAIL #{i} {}: {}",
                        c.name,
                        c.error
                            .clone()
                            .unwrap_or_else(|| format!("first difference at {:?}", c.first_difference))
                    );
                }
            }
            println!("{} passed, {} failed", report.passed(), report.failed());
        }
        Err(e) => eprintln!("{e}"),
    }
}
