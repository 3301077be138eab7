//! An independent, deliberately plain re-implementation of PuzzleGraph's search,
//! shaped like its C# code (one value per element, one node per item in item order,
//! moves generated per player item, states compared by their values and sorted
//! items), checked against the game on random puzzles.

use std::collections::{HashMap, VecDeque};

use super::puzzle::{EdgeKind as E, NodeKind as N, Puzzle};
use super::tests::random_puzzle;
use super::{parse, PuzzleGraph};
use crate::test_support::{census, XorShift};

/// A state as PuzzleGraph holds it: element values, then item nodes by item.
#[derive(Clone)]
struct Plain {
    values: Vec<bool>,
    players: Vec<usize>,
    balls: Vec<usize>,
}

impl Plain {
    /// PuzzleGraph's identity: values in order, items sorted by kind and node.
    fn key(&self) -> (Vec<bool>, Vec<usize>, Vec<usize>) {
        let (mut p, mut b) = (self.players.clone(), self.balls.clone());
        p.sort();
        b.sort();
        (self.values.clone(), p, b)
    }
}

fn value(s: &Plain, bit: Option<usize>) -> bool {
    bit.is_some_and(|b| s.values[b])
}

/// Permissions as PuzzleGraph's element classes state them: (walk, take, push, see).
fn edge_allows(kind: E, fwd: bool, on: bool, ball_at_a: bool) -> (bool, bool, bool, bool) {
    match kind {
        E::Default => (true, true, false, true),
        E::Step => (true, fwd, fwd, false),
        E::Wall => (fwd || ball_at_a, fwd, fwd, false),
        E::OneWay => (fwd, fwd, fwd, false),
        E::NoBall => (true, false, false, false),
        E::Vision => (false, false, false, true),
        E::Gate => (on, on, false, on),
        E::BlockableHazard => (on, true, false, true),
        E::BallTrack => (false, false, true, true),
    }
}

fn node_allows(kind: N, on: bool) -> (bool, bool) {
    match kind {
        N::Goal => (true, false),
        N::Bridge => (on, false),
        _ => (true, true),
    }
}

fn toggle(p: &Puzzle, s: &mut Plain, n: usize) {
    let node = &p.nodes[n];
    let bit = node.bit.expect("a toggle has a value");
    s.values[bit] = !s.values[bit];
    for &r in &node.receivers {
        s.values[r] = !s.values[r];
    }
}

fn update(p: &Puzzle, s: &mut Plain) {
    for (n, node) in p.nodes.iter().enumerate() {
        let has_ball = s.balls.contains(&n);
        let has_player = s.players.contains(&n);
        let set = match node.kind {
            N::Button if has_ball || has_player => Some(true),
            N::Plate => Some(has_ball),
            _ => None,
        };
        let (Some(v), Some(bit)) = (set, node.bit) else {
            continue;
        };
        if s.values[bit] != v {
            s.values[bit] = v;
            for &r in &node.receivers {
                s.values[r] = v;
            }
        }
    }
}

fn children(p: &Puzzle, s: &Plain) -> Vec<Plain> {
    let mut out = Vec::new();
    for (n, node) in p.nodes.iter().enumerate() {
        if s.players.contains(&n) && node.kind == N::Toggle {
            let mut c = s.clone();
            toggle(p, &mut c, n);
            out.push(c);
        }
    }
    for edge in &p.edges {
        for (a, b, fwd) in [(edge.a, edge.b, true), (edge.b, edge.a, false)] {
            let ball = s.balls.iter().position(|&x| x == a);
            let on = value(s, edge.bit);
            let (walk, take, push, see) = edge_allows(edge.kind, fwd, on, ball.is_some());
            let dest = &p.nodes[b];
            let (n_walk, n_take) = node_allows(dest.kind, value(s, dest.bit));
            for i in (0..s.players.len()).filter(|&i| s.players[i] == a) {
                if walk && n_walk {
                    let mut c = s.clone();
                    c.players[i] = b;
                    out.push(c);
                }
                if let Some(j) = ball {
                    if take && n_take {
                        let mut c = s.clone();
                        c.players[i] = b;
                        c.balls[j] = b;
                        out.push(c);
                    }
                    if push && n_take {
                        let mut c = s.clone();
                        c.balls[j] = b;
                        out.push(c);
                    }
                }
                if see && dest.kind == N::Toggle {
                    let mut c = s.clone();
                    toggle(p, &mut c, b);
                    out.push(c);
                }
            }
        }
    }
    for c in &mut out {
        update(p, c);
    }
    out
}

fn is_goal(p: &Puzzle, s: &Plain) -> bool {
    !s.players.is_empty() && s.players.iter().all(|&n| p.nodes[n].kind == N::Goal)
}

/// States and goal states found by a plain breadth-first search.
fn reference_census(p: &Puzzle) -> (usize, usize) {
    let start = Plain {
        values: p.dynamic.iter().map(|d| d.initial).collect(),
        players: p.players.clone(),
        balls: p.balls.clone(),
    };
    let mut seen = HashMap::new();
    seen.insert(start.key(), ());
    let mut queue = VecDeque::from([start]);
    let mut goals = 0;
    while let Some(s) = queue.pop_front() {
        if is_goal(p, &s) {
            goals += 1;
            continue;
        }
        for c in children(p, &s) {
            if seen.insert(c.key(), ()).is_none() {
                queue.push_back(c);
            }
        }
    }
    (seen.len(), goals)
}

#[test]
fn the_game_agrees_with_a_plain_reimplementation_on_random_puzzles() {
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    let (mut solvable, mut largest) = (0, 0);
    for _ in 0..300 {
        let text = random_puzzle(&mut rng);
        let puzzle = parse("random.puzzlegraph", &text).expect("random puzzles parse");
        let expected = reference_census(&puzzle);
        let game = PuzzleGraph::new(puzzle).expect("few labels");
        let c = census(&game, usize::MAX).expect("finite");
        assert_eq!((c.states, c.terminals), expected, "{text}");
        solvable += usize::from(c.terminals > 0);
        largest = largest.max(c.states);
    }
    // The random puzzles are not all trivial: many have goals, some are large.
    println!("{solvable} of 300 random puzzles reach a goal; the largest has {largest} states");
    assert!(solvable >= 30 && largest >= 200, "{solvable} {largest}");
}
