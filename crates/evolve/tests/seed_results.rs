//! The solver against an oracle (exhaustive play on small boards) and the
//! seed's qualitative results on its presets, at reduced sizes so that the
//! checks run in a test build: the shape of the results, not their timing.

use evolve::stats::{analyse, ExperimentStats};
use evolve::{evolve, run, Design, Params};
use games::sandbox::{generate, preset, Board, Spec, SplitMix, TokenKind};

/// The best score reachable on `board`, by playing every walk (iteratively).
fn exhaustive_best(board: &Board) -> u16 {
    let mut best = 0;
    let mut stack = vec![board.start()];
    while let Some(p) = stack.pop() {
        best = best.max(p.score);
        let mask = board.admissible(&p);
        for dir in 0..4u8 {
            if mask & (1 << dir) != 0 {
                let mut next = p;
                board.step_admissible(&mut next, dir);
                stack.push(next);
            }
        }
    }
    best
}

#[test]
fn the_solver_finds_the_exhaustive_best_on_small_boards() {
    let spec = Spec::empty("small", 5)
        .with(TokenKind::Blue, 2)
        .with(TokenKind::Red, 1)
        .with(TokenKind::Gold, 1)
        .with(TokenKind::Black, 1);
    let mut exact = 0;
    for index in 0..6 {
        let board = Board::new(&generate(&spec, 3, index).unwrap()).unwrap();
        let oracle = exhaustive_best(&board);
        // The best of three runs with the seed's parameters: an instance's top score.
        let found = (0..3)
            .map(|run| {
                evolve(
                    &board,
                    &Params::default(),
                    &mut SplitMix::derive(&[index, run]),
                )
                .best_score
            })
            .max()
            .unwrap_or(0);
        eprintln!("instance {index}: solver {found}, exhaustive {oracle}");
        assert!(
            found <= oracle,
            "instance {index}: {found} beats the oracle {oracle}"
        );
        assert!(
            found + 2 >= oracle,
            "instance {index}: found {found}, the best is {oracle}"
        );
        exact += usize::from(found == oracle);
    }
    assert!(
        exact >= 4,
        "the solver reached the best score on {exact} of 6 boards"
    );
}

fn experiment(name: &str, instances: usize, runs: usize, params: Params) -> ExperimentStats {
    let design = Design {
        spec: preset(name).unwrap(),
        instances,
        runs,
        seed: 2019,
        params,
        threads: 0,
    };
    analyse(&run(&design, &|_| {}).unwrap())
}

/// A fifth of the seed's effort per run: enough for the shape of the results.
fn reduced() -> Params {
    Params {
        population: 300,
        updates: 3000,
        ..Params::default()
    }
}

#[test]
fn seven_by_seven_blue_and_red_shows_almost_no_variation() {
    let s = experiment("exp2", 12, 5, reduced());
    assert!(
        s.without_variation * 4 >= s.instances.len() * 3,
        "{} of {} without variation",
        s.without_variation,
        s.instances.len()
    );
    assert!(s.hardness < 0.5, "mean sd {}", s.hardness);
}

#[test]
fn eleven_by_eleven_blue_and_red_scores_mid_thirties_to_low_sixties() {
    let s = experiment("exp3", 16, 4, reduced());
    assert!(
        s.top_scores.min >= 30.0 && s.top_scores.max <= 68.0,
        "top scores {:?}",
        s.top_scores
    );
    assert!(
        s.top_scores.max - s.top_scores.min >= 8.0,
        "instances differ: {:?}",
        s.top_scores
    );
}

#[test]
fn gold_widens_the_range_most() {
    let (plain, gold, black) = (
        experiment("exp3", 12, 4, reduced()),
        experiment("exp4", 12, 4, reduced()),
        experiment("exp5", 12, 4, reduced()),
    );
    let range = |s: &ExperimentStats| s.top_scores.max - s.top_scores.min;
    assert!(
        range(&gold) > range(&plain),
        "gold {:?} vs plain {:?}",
        gold.top_scores,
        plain.top_scores
    );
    assert!(
        range(&gold) > range(&black),
        "gold {:?} vs black {:?}",
        gold.top_scores,
        black.top_scores
    );
    assert!(
        gold.hardness > plain.hardness,
        "gold sd {} vs plain {}",
        gold.hardness,
        plain.hardness
    );
    assert!(
        black.top_scores.min > plain.top_scores.min,
        "black adds points at the low end"
    );
}
