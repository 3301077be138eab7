//! Inert objects (`compile::inert`): found at compile time, left out of the
//! game, and the game without them has exactly the state graph of the full
//! game projected on the other objects (transitions that only change inert
//! objects become no transition; chance outcomes that differ only in them
//! merge, their probabilities summed).

use std::collections::{BTreeMap, HashMap, HashSet};

use model::{Game, Successors};
use puzzlescript::{compile, Compiled, PuzzleScriptGame};

fn bundled(file: &str) -> Compiled {
    let path = format!(
        "{}/../../levels/puzzlescript/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    compile(&path, &text).unwrap_or_else(|e| panic!("{e}"))
}

/// A state as its objects (inert ones masked off) and whether it is won.
type Projected = (Vec<u64>, bool);

/// Every reachable state of `game`, breadth first.
fn reachable(game: &PuzzleScriptGame) -> Vec<Vec<u8>> {
    let mut seen: HashSet<Vec<u8>> = game.initial_states().into_iter().collect();
    let mut queue: Vec<Vec<u8>> = seen.iter().cloned().collect();
    let mut head = 0;
    let mut out = Successors::new();
    while head < queue.len() {
        let s = queue[head].clone();
        head += 1;
        if game.terminal(&s).is_some() {
            continue;
        }
        out.clear();
        game.successors(&s, &mut out);
        for (_, next) in out.iter() {
            if seen.insert(next.to_vec()) {
                queue.push(next.to_vec());
            }
        }
        assert!(queue.len() < 2_000_000, "too large for the test");
    }
    queue
}

/// The successors of `state` by (action, projected successor), with their
/// probabilities summed as floats, leaving out projected self-loops that do
/// not win.
fn moves(
    game: &PuzzleScriptGame,
    state: &[u8],
    project: &dyn Fn(&[u8]) -> Projected,
) -> BTreeMap<(u16, Projected), u64> {
    let from = project(state);
    let mut out = Successors::new();
    game.successors(state, &mut out);
    let mut by: BTreeMap<(u16, Projected), f64> = BTreeMap::new();
    let mut totals: HashMap<u16, f64> = HashMap::new();
    for (m, next) in out.iter() {
        *totals.entry(m.action).or_default() += m.prob.as_f64();
        let to = project(next);
        if to == from {
            continue;
        }
        *by.entry((m.action, to)).or_default() += m.prob.as_f64();
    }
    // Probabilities as millionths of their action's total.
    by.into_iter()
        .map(|((a, to), p)| ((a, to.clone()), (p / totals[&a] * 1e6).round() as u64))
        .collect()
}

fn assert_projection_equal(file: &str, level: usize) -> (usize, usize, Vec<String>) {
    let compiled = bundled(file);
    let (stripped, inert_names) = compiled.clone().without_inert();
    let full = PuzzleScriptGame::new(compiled.clone(), level).expect("level");
    let lean = PuzzleScriptGame::new(stripped, level).expect("level");
    let mut mask = vec![0u64; compiled.obj_words];
    for (id, name) in compiled.names.id_dict.iter().enumerate() {
        if inert_names.contains(name) {
            mask[id / 64] |= 1 << (id % 64);
        }
    }
    let so = compiled.obj_words;
    let project_full = |s: &[u8]| -> Projected {
        let (mut objects, won) = full.objects(s);
        for (i, w) in objects.iter_mut().enumerate() {
            *w &= !mask[i % so];
        }
        (objects, won)
    };
    let project_lean = |s: &[u8]| -> Projected { lean.objects(s) };
    let full_states = reachable(&full);
    let lean_states = reachable(&lean);
    let lean_by: HashMap<Projected, Vec<u8>> = lean_states
        .iter()
        .map(|s| (project_lean(s), s.clone()))
        .collect();
    let projected: HashSet<Projected> = full_states.iter().map(|s| project_full(s)).collect();
    assert_eq!(
        projected,
        lean_by.keys().cloned().collect::<HashSet<_>>(),
        "{file} {level}: the reachable states differ"
    );
    for s in &full_states {
        if full.terminal(s).is_some() {
            continue;
        }
        let lean_state = &lean_by[&project_full(s)];
        assert_eq!(
            moves(&full, s, &project_full),
            moves(&lean, lean_state, &project_lean),
            "{file} {level}: the moves differ at\n{}",
            full.render(s)
        );
    }
    (full_states.len(), lean_states.len(), inert_names)
}

#[test]
fn a_game_without_its_inert_objects_is_the_full_game_projected() {
    let (full, lean, inert) = assert_projection_equal("dusty-crates.txt", 3);
    assert_eq!(inert, ["dust", "glinta", "glintb"]);
    assert!(full > 4 * lean, "{full} states against {lean}");
    assert!(
        !PuzzleScriptGame::new(bundled("dusty-crates.txt").without_inert().0, 3)
            .expect("level")
            .has_chance()
    );
}

#[test]
fn games_without_inert_objects_are_unchanged() {
    for file in [
        "crates-move-when-you-move.txt",
        "explodoban.txt",
        "scalesoban.txt",
        "slippery-crates.txt",
        "wave-and-push.txt",
    ] {
        assert_eq!(bundled(file).inert_names(), Vec::<String>::new(), "{file}");
    }
}
