//! The fewest actions from one state to a win, for play mode: a breadth-first search over
//! the stored moves that only enters states whose hyperstate can still win (no other
//! state lies on a way to a win), within a budget of states so that a move on a huge run
//! never costs unbounded time or memory.

/// What the search found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinSearch {
    /// A win is this many actions away (0: the state is a win).
    Actions(u64),
    /// No win is reachable in the stored graph.
    Unreachable,
    /// The search met `budget` states without reaching a win: the nearest win is
    /// further than the deepest layer it finished.
    Beyond {
        /// States the search was allowed to meet.
        budget: u64,
        /// Every win is at least this many actions away.
        at_least: u64,
    },
}

/// The fewest actions from `start` to a state where `is_win` holds, among
/// `state_count` states, entering only states where `may_win` holds and meeting at most
/// `budget` states. `moves` gives a state's `(action, target)` moves.
pub fn actions_to_win(
    start: u64,
    state_count: u64,
    budget: u64,
    moves: impl Fn(u64) -> Vec<(u16, u64)>,
    is_win: impl Fn(u64) -> bool,
    may_win: impl Fn(u64) -> bool,
) -> WinSearch {
    if start >= state_count {
        return WinSearch::Unreachable;
    }
    // One bit a state: 2.2 M states take 280 KB, a billion 125 MB.
    let words = usize::try_from(state_count.div_ceil(64)).unwrap_or(usize::MAX);
    let mut seen = vec![0u64; words];
    let mut mark = |s: u64| {
        let (w, bit) = ((s / 64) as usize, 1u64 << (s % 64));
        let fresh = seen[w] & bit == 0;
        seen[w] |= bit;
        fresh
    };
    mark(start);
    let mut met = 1u64;
    let mut layer = vec![start];
    let mut depth = 0u64;
    while !layer.is_empty() {
        if layer.iter().any(|&s| is_win(s)) {
            return WinSearch::Actions(depth);
        }
        let mut next = Vec::new();
        for &s in &layer {
            for (_, t) in moves(s) {
                if t < state_count && may_win(t) && mark(t) {
                    met += 1;
                    if met > budget {
                        return WinSearch::Beyond {
                            budget,
                            at_least: depth + 1,
                        };
                    }
                    next.push(t);
                }
            }
        }
        layer = next;
        depth += 1;
    }
    WinSearch::Unreachable
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line 0 -> 1 -> 2 -> 3 with a shortcut 0 -> 2 and a dead branch 1 -> 4.
    fn moves(s: u64) -> Vec<(u16, u64)> {
        match s {
            0 => vec![(0, 1), (1, 2)],
            1 => vec![(0, 2), (1, 4)],
            2 => vec![(0, 3)],
            _ => vec![],
        }
    }

    #[test]
    fn the_nearest_win_is_counted_in_actions() {
        let found = actions_to_win(0, 5, 100, moves, |s| s == 3, |_| true);
        assert_eq!(found, WinSearch::Actions(2));
        assert_eq!(
            actions_to_win(3, 5, 100, moves, |s| s == 3, |_| true),
            WinSearch::Actions(0)
        );
    }

    #[test]
    fn states_that_cannot_win_are_not_entered() {
        // Without state 2 the win cannot be reached.
        let found = actions_to_win(0, 5, 100, moves, |s| s == 3, |s| s != 2);
        assert_eq!(found, WinSearch::Unreachable);
    }

    #[test]
    fn the_budget_stops_the_search_with_a_lower_bound() {
        let found = actions_to_win(0, 5, 2, moves, |s| s == 3, |_| true);
        assert_eq!(
            found,
            WinSearch::Beyond {
                budget: 2,
                at_least: 1
            }
        );
        assert_eq!(
            actions_to_win(9, 5, 2, moves, |_| true, |_| true),
            WinSearch::Unreachable
        );
    }
}
