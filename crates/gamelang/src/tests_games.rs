//! The bundled `.game` levels: reachable-state counts against known
//! figures and formulas, chance, simultaneous play and round trips.

use std::collections::{HashMap, HashSet, VecDeque};

use model::{Game, Successors};

use super::compile;

/// The text of a bundled level.
pub fn level_text(name: &str) -> String {
    let path = format!("{}/../../levels/grammar/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every state reachable from the initial states (terminal ones included).
pub fn reachable(game: &dyn Game) -> HashSet<Vec<u8>> {
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut queue: VecDeque<Vec<u8>> = VecDeque::new();
    for s in game.initial_states() {
        if seen.insert(s.clone()) {
            queue.push_back(s);
        }
    }
    let mut out = Successors::new();
    while let Some(s) = queue.pop_front() {
        if game.terminal(&s).is_some() {
            continue;
        }
        out.clear();
        game.successors(&s, &mut out);
        for (_, t) in out.iter() {
            if seen.insert(t.to_vec()) {
                queue.push_back(t.to_vec());
            }
        }
    }
    seen
}

fn game(name: &str) -> super::GrammarGame {
    compile(name, &level_text(name))
        .unwrap_or_else(|e| panic!("{e}"))
        .game
}

fn outcome_counts(game: &dyn Game, states: &HashSet<Vec<u8>>) -> HashMap<String, usize> {
    let names = game.outcome_names();
    let mut counts = HashMap::new();
    for s in states {
        if let Some(o) = game.terminal(s) {
            *counts.entry(names[o as usize].clone()).or_insert(0) += 1;
        }
    }
    counts
}

#[test]
fn tictactoe_has_5478_positions() {
    let g = game("tictactoe.game");
    let states = reachable(&g);
    assert_eq!(states.len(), 5478);
    let counts = outcome_counts(&g, &states);
    // Known terminal positions: 626 X wins, 316 O wins, 16 draws.
    assert_eq!(counts["x wins"], 626);
    assert_eq!(counts["o wins"], 316);
    assert_eq!(counts["draw"], 16);
    assert_eq!(g.outcome_names(), vec!["x wins", "o wins", "draw"]);
    // The turn track proves play sequential: no decision tuples, nine labels.
    assert_eq!(g.action_labels().len(), 9);
    let random = game("tictactoe-random-start.game");
    assert_eq!(random.action_labels().len(), 10 + 11 * 11);
}

#[test]
fn tictactoe_variants_have_their_counts() {
    // 3-to-15 and misère have the same positions as tic-tac-toe.
    assert_eq!(reachable(&game("three-to-fifteen.game")).len(), 5478);
    assert_eq!(reachable(&game("tictactoe-misere.game")).len(), 5478);
    // Random start: the start, then every position with either player first.
    let random = reachable(&game("tictactoe-random-start.game"));
    assert!(random.len() > 5478, "{}", random.len());
    let restricted = reachable(&game("tictactoe-restricted.game"));
    assert!(restricted.len() < 5478);
}

#[test]
fn puzzles_match_their_formulas() {
    assert_eq!(reachable(&game("hanoi.game")).len(), 81);
    assert_eq!(reachable(&game("sliding-2x3.game")).len(), 360);
    let rps = game("rock-paper-scissors.game");
    assert_eq!(reachable(&rps).len(), 10);
}

#[test]
fn random_start_doubles_tictactoe_behind_a_fair_coin() {
    // The coin state, then every position once with X first and once with O first.
    assert_eq!(
        reachable(&game("tictactoe-random-start.game")).len(),
        1 + 2 * 5478
    );
}

#[test]
fn chance_probabilities_sum_to_one_per_action() {
    for name in ["pig.game", "tictactoe-random-start.game"] {
        let g = game(name);
        assert!(g.has_chance(), "{name}");
        let mut out = Successors::new();
        for s in reachable(&g) {
            if g.terminal(&s).is_some() {
                continue;
            }
            out.clear();
            g.successors(&s, &mut out);
            let mut sums: HashMap<u16, (u64, u64)> = HashMap::new();
            for (mv, _) in out.iter() {
                let (n, d) = sums.entry(mv.action).or_insert((0, 1));
                let (pn, pd) = (u64::from(mv.prob.num), u64::from(mv.prob.den));
                (*n, *d) = (*n * pd + pn * *d, *d * pd);
            }
            for (action, (n, d)) in sums {
                assert_eq!(n, d, "{name}: action {action} sums to {n}/{d}");
            }
        }
    }
}

#[test]
fn fallible_games_never_reach_their_rule_error() {
    for (name, outcomes) in [("pig.game", 2), ("nim.game", 2)] {
        let g = game(name);
        assert_eq!(
            g.outcome_names().last().map(String::as_str),
            Some(super::RULE_ERROR)
        );
        let states = reachable(&g);
        let counts = outcome_counts(&g, &states);
        assert_eq!(counts.len(), outcomes, "{name}: {counts:?}");
        assert!(!counts.contains_key(super::RULE_ERROR), "{name}");
    }
    // Nim 1-3-5: (1+1)(3+1)(5+1) heap configurations, each with either player to move,
    // less those unreachable; the first player wins (1 ^ 3 ^ 5 != 0).
    let nim = game("nim.game");
    assert!(reachable(&nim).len() <= 2 * 2 * 4 * 6);
}

/// Breadth-first distance from the initial state to the nearest state with outcome `name`.
fn distance_to(game: &dyn Game, name: &str) -> Option<usize> {
    let target = game.outcome_names().iter().position(|o| o == name)? as u16;
    let mut seen: HashSet<Vec<u8>> = game.initial_states().into_iter().collect();
    let mut layer: Vec<Vec<u8>> = seen.iter().cloned().collect();
    let mut out = Successors::new();
    for depth in 0.. {
        if layer.is_empty() {
            return None;
        }
        let mut next = Vec::new();
        for s in layer {
            match game.terminal(&s) {
                Some(o) if o == target => return Some(depth),
                Some(_) => continue,
                None => {}
            }
            out.clear();
            game.successors(&s, &mut out);
            for (_, t) in out.iter() {
                if seen.insert(t.to_vec()) {
                    next.push(t.to_vec());
                }
            }
        }
        layer = next;
    }
    None
}

#[test]
fn hanoi_has_3_to_the_n_positions_and_a_2_to_the_n_minus_1_solution() {
    let text = level_text("hanoi.game");
    for n in 1..=6u32 {
        let src = text.replace("const disks = 4", &format!("const disks = {n}"));
        let g = compile("hanoi.game", &src).unwrap().game;
        assert_eq!(reachable(&g).len(), 3usize.pow(n), "{n} disks");
        assert_eq!(distance_to(&g, "win"), Some(2usize.pow(n) - 1), "{n} disks");
    }
}

#[test]
fn eight_puzzle_reaches_half_of_nine_factorial() {
    let g = game("eight-puzzle.game");
    assert_eq!(reachable(&g).len(), 181_440);
    // The start is two slides from the goal.
    assert_eq!(distance_to(&g, "win"), Some(2));
    assert_eq!(distance_to(&game("sliding-2x3.game"), "win"), Some(2));
}
