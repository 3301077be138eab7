//! Temporary: prints per-rule facts.
use puzzlescript::compile::PatternCell;
fn main() {
    let path = std::env::args().nth(1).unwrap_or_default();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let g = puzzlescript::compile("x", &text).unwrap();
    println!(
        "obj_words {} mov_words {} layers {} one_per_layer {}",
        g.obj_words, g.mov_words, g.names.layer_count, g.one_per_layer
    );
    for rule in g.rules.groups.iter().flatten().take(3) {
        for w in rule.writes.rows[0].iter() {
            if let PatternCell::Cell(p) = &rule.rows[0][w.cell as usize] {
                let r = p.replacement.as_ref().unwrap();
                println!("cell {} move_words {:?} mclear {:?} mset {:?} mlayers {:?} clear {:?} set {:?}", w.cell, r.move_words, r.moves_clear, r.moves_set, r.moves_layers, r.clear, r.set);
            }
        }
    }
    for (late, set) in [(false, &g.rules), (true, &g.late_rules)] {
        for rule in set.groups.iter().flatten() {
            let reps: usize = rule
                .rows
                .iter()
                .flatten()
                .filter(|c| matches!(c, PatternCell::Cell(p) if p.replacement.is_some()))
                .count();
            let writes: usize = rule.writes.rows.iter().map(|r| r.len()).sum();
            let lens: Vec<usize> = rule.rows.iter().map(|r| r.len()).collect();
            let tests: Vec<usize> = rule
                .rows
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|c| match c {
                            PatternCell::Cell(p) => p.tests.len(),
                            _ => 0,
                        })
                        .sum()
                })
                .collect();
            println!("late={late} line {} dir {} rows {:?} tests {:?} reps {reps} writes {writes} plain {} keeps {} narrow {} reads_mov {} records {} unch {} anchors {:?} narrow_rows {:?}",
                rule.line, rule.direction, lens, tests, rule.writes.plain, rule.keeps_own_matches, rule.narrow.is_some(), rule.reads_movements, rule.records_matches(), rule.records_unchanged, rule.anchors, rule.narrow_rows.iter().map(|r| r.is_some()).collect::<Vec<_>>());
        }
    }
}
#[allow(dead_code)]
fn unused() {}
