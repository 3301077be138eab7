//! temp
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let line: usize = std::env::args().nth(2).unwrap().parse().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let g = puzzlescript::compile("x", &text).unwrap();
    for r in g.rules.groups.iter().chain(&g.late_rules.groups).flatten() {
        if r.line == line {
            for c in r.rows.iter().flatten() {
                if let puzzlescript::compile::PatternCell::Cell(p) = c {
                    println!(
                        "present {:x?} missing {:x?} any {:x?} mp {:x?} mm {:x?}",
                        p.present, p.missing, p.any_present, p.moves_present, p.moves_missing
                    );
                    if let Some(rep) = &p.replacement {
                        println!(
                            "   set {:x?} clear {:x?} mset {:x?} mclear {:x?} ml {:x?}",
                            rep.set, rep.clear, rep.moves_set, rep.moves_clear, rep.moves_layers
                        );
                    }
                }
            }
            println!("--");
        }
    }
}
