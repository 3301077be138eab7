//! temp: dump groups
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let g = puzzlescript::compile("x", &text).unwrap();
    println!("obj_words {} mov_words {}", g.obj_words, g.mov_words);
    for (name, set) in [("early", &g.rules), ("late", &g.late_rules)] {
        for (gi, grp) in set.groups.iter().enumerate() {
            let run = set.cell_runs.get(gi).copied().unwrap_or(0);
            println!(
                "{name} group {gi} settles {} rules {} run {run} line {} local {:?}",
                set.settles.get(gi).copied().unwrap_or(false),
                grp.len(),
                grp[0].line,
                grp.iter()
                    .map(puzzlescript::compile::cell_runs::cell_local)
                    .collect::<Vec<_>>()
            );
        }
    }
}
