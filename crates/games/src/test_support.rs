//! Helpers shared by the unit tests: a small exhaustive explorer and a
//! deterministic random number generator.

use std::collections::{HashSet, VecDeque};

use model::{Game, Successors};

/// What an exhaustive exploration found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Census {
    /// Distinct reachable states, terminal ones included.
    pub states: usize,
    /// Reachable terminal states.
    pub terminals: usize,
}

/// Explores every state reachable from the initial states, breadth first,
/// without expanding terminal states; `None` past `limit` states.
pub(crate) fn census(game: &dyn Game, limit: usize) -> Option<Census> {
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut queue = VecDeque::new();
    for s in game.initial_states() {
        if seen.insert(s.clone()) {
            queue.push_back(s);
        }
    }
    let mut terminals = 0;
    let mut out = Successors::new();
    while let Some(state) = queue.pop_front() {
        if game.terminal(&state).is_some() {
            terminals += 1;
            continue;
        }
        out.clear();
        game.successors(&state, &mut out);
        for (_, next) in out.iter() {
            if !seen.contains(next) {
                seen.insert(next.to_vec());
                queue.push_back(next.to_vec());
            }
        }
        if seen.len() > limit {
            return None;
        }
    }
    Some(Census {
        states: seen.len(),
        terminals,
    })
}

/// A xorshift generator: reproducible random test data without a crate.
pub(crate) struct XorShift(pub u64);

impl XorShift {
    /// A number in `0..bound`.
    pub(crate) fn below(&mut self, bound: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % bound as u64) as usize
    }
}
