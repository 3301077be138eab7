//! Debug: calls `successors` repeatedly over the first states of a level
//! (for profiling the hot path alone).
//!
//! `cargo run --release -p puzzlescript --example hot -- GAME.txt [ROUNDS [LEVEL [STATES]]]`
//! (`HOT_GENERAL=1` turns direct turns off, to compare them with the general turn;
//! `HOT_NO_WALKS=1` turns off the lone player's walks found without the turn)
use model::{Game, Successors};
fn main() {
    let path = std::env::args().nth(1).unwrap_or_default();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let arg = |n: usize, default: usize| {
        std::env::args()
            .nth(n)
            .and_then(|r| r.parse().ok())
            .unwrap_or(default)
    };
    let (level, limit) = (arg(3, 1), arg(4, 100_000));
    let mut game =
        puzzlescript::PuzzleScriptGame::new(puzzlescript::compile("x", &text).unwrap(), level)
            .unwrap();
    if std::env::var_os("HOT_GENERAL").is_some() {
        game.set_direct_turns(false);
    }
    if std::env::var_os("HOT_NO_WALKS").is_some() {
        game.set_walks(false);
    }
    let mut seen = std::collections::HashSet::new();
    let mut queue = game.initial_states();
    let mut head = 0;
    let mut out = Successors::new();
    while head < queue.len() && queue.len() < limit {
        let s = queue[head].clone();
        head += 1;
        out.clear();
        game.successors(&s, &mut out);
        for (_, n) in out.iter() {
            if seen.insert(n.to_vec()) {
                queue.push(n.to_vec());
            }
        }
    }
    let cpu = || {
        std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    let c0 = cpu();
    let t = std::time::Instant::now();
    let mut n = 0usize;
    let rounds = arg(2, 20);
    for _ in 0..rounds {
        for s in &queue {
            out.clear();
            game.successors(s, &mut out);
            n += out.len();
        }
    }
    let ns = cpu() - c0;
    println!(
        "{} states x{rounds} in {:?} ({:.2} s on the CPU): {:.0} ns a state on the CPU ({n}){}",
        queue.len(),
        t.elapsed(),
        ns / 1e9,
        ns / (rounds * queue.len()) as f64,
        match (game.direct_turns(), game.walks()) {
            (true, true) => ", direct turns, walks",
            (true, false) => ", direct turns",
            _ => "",
        }
    );
}
