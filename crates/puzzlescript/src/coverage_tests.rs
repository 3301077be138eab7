//! Tests of rule coverage and hangs: the firing record on small games whose
//! every state is counted by hand, and the survey against an oracle that
//! replays every (state, input) on its own.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

use model::{Game, Successors};

use crate::coverage::{survey, Control, Coverage, Hang, Probe, Stored};
use crate::PuzzleScriptGame;

fn bundled(file: &str) -> String {
    let path = format!(
        "{}/../../levels/puzzlescript/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn game_of(text: &str) -> PuzzleScriptGame {
    let compiled = crate::compile("test.txt", text).expect("compiles");
    let (compiled, _) = compiled.without_inert();
    PuzzleScriptGame::new(compiled, 1).expect("level 1")
}

/// Every reachable state in breadth-first order (the explorer's ids), and
/// for each whether it can no longer reach a won state.
fn explore(game: &PuzzleScriptGame) -> (Vec<Vec<u8>>, Vec<bool>) {
    explore_some(game, usize::MAX)
}

/// [`explore`] up to `limit` states (the rest left out, edges to them too).
fn explore_some(game: &PuzzleScriptGame, limit: usize) -> (Vec<Vec<u8>>, Vec<bool>) {
    let mut ids: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut states = Vec::new();
    let mut edges: Vec<Vec<usize>> = Vec::new();
    let mut queue = VecDeque::new();
    for s in game.initial_states() {
        ids.insert(s.clone(), 0);
        states.push(s.clone());
        queue.push_back(s);
    }
    let mut out = Successors::new();
    while let Some(s) = queue.pop_front() {
        out.clear();
        game.successors(&s, &mut out);
        let mut row = Vec::new();
        for (_, next) in out.iter() {
            if !ids.contains_key(next) && states.len() >= limit {
                continue;
            }
            let id = *ids.entry(next.to_vec()).or_insert_with(|| {
                states.push(next.to_vec());
                queue.push_back(next.to_vec());
                states.len() - 1
            });
            row.push(id);
        }
        edges.push(row);
    }
    // A state is live when it is won or reaches a live state.
    let mut live: Vec<bool> = states.iter().map(|s| game.terminal(s).is_some()).collect();
    loop {
        let before = live.clone();
        for (s, row) in edges.iter().enumerate() {
            if row.iter().any(|&t| live[t]) {
                live[s] = true;
            }
        }
        if live == before {
            break;
        }
    }
    (states, live.iter().map(|l| !l).collect())
}

fn run_survey(game: &PuzzleScriptGame, threads: usize) -> Coverage {
    run_survey_some(game, threads, usize::MAX)
}

fn run_survey_some(game: &PuzzleScriptGame, threads: usize, limit: usize) -> Coverage {
    let (states, lost) = explore_some(game, limit);
    let state = |id: u64| states.get(id as usize).map(Vec::as_slice);
    let lost_of = |id: u64| lost[id as usize];
    let done = AtomicU64::new(0);
    let stored = Stored {
        count: states.len() as u64,
        state: &state,
        lost: &lost_of,
    };
    let control = Control {
        threads,
        stop: Arc::new(AtomicBool::new(false)),
        done: &done,
    };
    survey(game, &stored, &control).expect("survey")
}

/// (line, states, live states) of every rule.
fn counts(c: &Coverage) -> Vec<(usize, u64, u64)> {
    c.rules
        .iter()
        .map(|r| (r.rule.line, r.states, r.live_states))
        .collect()
}

#[test]
fn pitfall_has_a_dead_rule_and_one_that_fires_only_when_lost() {
    let game = game_of(&bundled("pitfall.txt"));
    let (states, lost) = explore(&game);
    // Player at 3, 2, 4, fallen, won: only the fallen state is lost.
    assert_eq!(states.len(), 5);
    assert_eq!(lost, [false, false, false, true, false]);
    let c = run_survey(&game, 2);
    // The won state is not expanded.
    assert_eq!(c.surveyed, 4);
    // The message rule fires in the fallen state under each of the five
    // inputs; the fall, when the player left of centre steps left.
    assert_eq!(counts(&c), [(62, 1, 0), (63, 1, 1), (64, 0, 0)]);
    let never: Vec<usize> = c
        .rules
        .iter()
        .filter(|r| r.never_fires())
        .map(|r| r.rule.line)
        .collect();
    assert_eq!(never, [64]);
    let lost_only: Vec<usize> = c
        .rules
        .iter()
        .filter(|r| r.fires_only_when_lost())
        .map(|r| r.rule.line)
        .collect();
    assert_eq!(lost_only, [62]);
    assert_eq!(
        c.rules[2].rule.text,
        "[ > player | gem ] -> [ > player | > gem ]"
    );
    assert!(c.hangs.is_empty());
}

#[test]
fn stuck_switch_hangs_on_action_on_the_switch_only() {
    let game = game_of(&bundled("stuck-switch.txt"));
    let (states, _) = explore(&game);
    // Player at 2 (start), won at 1, at 3, on the switch at 4.
    assert_eq!(states.len(), 4);
    let c = run_survey(&game, 3);
    assert_eq!(c.hang_count, 1);
    assert_eq!(
        c.hangs,
        [Hang {
            state: 3,
            action: 4
        }]
    );
    // Every rule fires, only while the switch blinks.
    assert!(c.rules.iter().all(|r| (r.states, r.live_states) == (1, 1)));
    assert_eq!(c.rules.iter().filter(|r| r.rule.late).count(), 1);
}

/// The survey agrees with a probe of every state on one thread, whatever
/// the thread count, on bundled games with again chains, late rules and
/// random rules (their first 600 states, so that a debug build is quick).
#[test]
fn the_survey_is_the_sum_of_its_probes_for_any_thread_count() {
    const LIMIT: usize = 600;
    for file in [
        "explodoban.txt",
        "slippery-crates.txt",
        "wave-and-push.txt",
        "scalesoban.txt",
    ] {
        let game = game_of(&bundled(file));
        let (states, lost) = explore_some(&game, LIMIT);
        let rules = game.compiled().rule_sources.len();
        let (mut all, mut live) = (vec![0u64; rules], vec![0u64; rules]);
        let mut probe = Probe::default();
        for (id, s) in states.iter().enumerate() {
            if game.terminal(s).is_some() {
                continue;
            }
            game.probe(s, &mut probe);
            for r in 0..rules {
                if probe.fired(r) {
                    all[r] += 1;
                    live[r] += u64::from(!lost[id]);
                }
            }
        }
        let one = run_survey_some(&game, 1, LIMIT);
        let three = run_survey_some(&game, 3, LIMIT);
        assert_eq!(one, three, "{file}");
        let got: Vec<(u64, u64)> = one
            .rules
            .iter()
            .map(|r| (r.states, r.live_states))
            .collect();
        let want: Vec<(u64, u64)> = all.into_iter().zip(live).collect();
        assert_eq!(got, want, "{file}");
        assert!(
            one.rules.iter().any(|r| r.states > 0),
            "{file}: nothing fired"
        );
    }
}

/// Probing a state records firings and leaves the successors as
/// `successors` gives them: the record is all the probe adds.
#[test]
fn a_probe_expands_as_successors_does() {
    let game = game_of(&bundled("explodoban.txt"));
    let (states, _) = explore_some(&game, 200);
    let mut probe = Probe::default();
    let mut out = Successors::new();
    for s in states.iter().take(200) {
        out.clear();
        game.successors(s, &mut out);
        let before: Vec<(model::Move, Vec<u8>)> =
            out.iter().map(|(m, t)| (m, t.to_vec())).collect();
        game.probe(s, &mut probe);
        out.clear();
        game.successors(s, &mut out);
        let after: Vec<(model::Move, Vec<u8>)> = out.iter().map(|(m, t)| (m, t.to_vec())).collect();
        assert_eq!(before, after);
    }
}

/// A rule that only matches with commands fires; a rule that matches but
/// changes nothing does not.
#[test]
fn a_match_that_changes_nothing_is_no_firing() {
    let text = bundled("pitfall.txt").replace(
        "[ > Player | Gem ] -> [ > Player | > Gem ]",
        "[ Player ] -> [ Player ]",
    );
    let game = game_of(&text);
    let c = run_survey(&game, 1);
    assert_eq!(c.rules[2].states, 0);
    assert!(c.rules[2].never_fires());
}

/// Start rules that fire while the level loads are not "never fires".
#[test]
fn start_rules_count_as_fired_at_the_start() {
    let game = game_of(&bundled("curtain-call.txt"));
    let c = run_survey(&game, 1);
    assert!(c.rules.iter().any(|r| r.at_start), "{:?}", c.rules);
    assert!(c
        .rules
        .iter()
        .filter(|r| r.at_start)
        .all(|r| !r.never_fires()));
}

/// A raised stop flag ends the survey with `Interrupted`.
#[test]
fn a_raised_stop_interrupts_the_survey() {
    let game = game_of(&bundled("explodoban.txt"));
    let (states, lost) = explore_some(&game, 200);
    let state = |id: u64| states.get(id as usize).map(Vec::as_slice);
    let lost_of = |id: u64| lost[id as usize];
    let done = AtomicU64::new(0);
    let stored = Stored {
        count: states.len() as u64,
        state: &state,
        lost: &lost_of,
    };
    let control = Control {
        threads: 2,
        stop: Arc::new(AtomicBool::new(true)),
        done: &done,
    };
    assert!(matches!(
        survey(&game, &stored, &control),
        Err(crate::Error::Interrupted)
    ));
}
