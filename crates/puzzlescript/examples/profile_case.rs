//! Debug: times compiling and replaying one conformance case.
fn main() {
    let path = std::env::args().nth(1).unwrap_or_default();
    let n: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let line = text.lines().nth(n).unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
    let t = std::time::Instant::now();
    let game = puzzlescript::compile("case", v["source"].as_str().unwrap_or("")).unwrap();
    println!("compile {:?}", t.elapsed());
    let rules: usize = game.rules.groups.iter().map(Vec::len).sum::<usize>()
        + game.late_rules.groups.iter().map(Vec::len).sum::<usize>();
    println!(
        "rules {rules} objects {} layers {}",
        game.names.id_dict.len(),
        game.names.layer_count
    );
    let t = std::time::Instant::now();
    let _ = puzzlescript::conformance::run_text(&path, line);
    println!(
        "case {:?} inputs {}",
        t.elapsed(),
        v["inputs"].as_array().map_or(0, Vec::len)
    );
}
