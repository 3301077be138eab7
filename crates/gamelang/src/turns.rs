//! Proves, where it can, that a game is turn-based: that no two players can
//! ever have legal decisions at once. Then the game needs no action ids for
//! decision tuples (a turn-based game with many decisions would otherwise
//! run out of them) and lists no tuple labels that can never occur.

use std::collections::BTreeSet;

use super::ir::{Ex, Val};

/// The `slot == value` tests that a legality condition requires (the
/// conjuncts of its top-level `and` chain).
fn required_tests(when: &Ex, out: &mut Vec<(u32, Val)>) {
    let mut stack = vec![when];
    while let Some(e) = stack.pop() {
        match e {
            Ex::And(a, b) => {
                stack.push(a);
                stack.push(b);
            }
            Ex::SlotEq(s, v) => out.push((*s, *v)),
            _ => {}
        }
    }
}

/// True when some track element decides whose turn it is: every decision
/// of every player requires it to hold a value, and no value admits the
/// decisions of two players. `whens[p]` are player `p`'s legality conditions.
pub fn exclusive(whens: &[Vec<&Ex>]) -> bool {
    let tests: Vec<Vec<Vec<(u32, Val)>>> = whens
        .iter()
        .map(|list| {
            list.iter()
                .map(|w| {
                    let mut t = Vec::new();
                    required_tests(w, &mut t);
                    t
                })
                .collect()
        })
        .collect();
    let Some(first) = tests.iter().flatten().next() else {
        return true;
    };
    let candidates: BTreeSet<u32> = first.iter().map(|(s, _)| *s).collect();
    candidates.into_iter().any(|slot| {
        let mut seen: Vec<BTreeSet<Val>> = Vec::new();
        for player in &tests {
            let mut values = BTreeSet::new();
            for spec in player {
                let mine: Vec<Val> = spec
                    .iter()
                    .filter(|(s, _)| *s == slot)
                    .map(|(_, v)| *v)
                    .collect();
                // A decision that does not test the slot could be legal at any turn.
                let [v] = mine[..] else { return false };
                values.insert(v);
            }
            if seen.iter().any(|other| !other.is_disjoint(&values)) {
                return false;
            }
            seen.push(values);
        }
        true
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn_is(slot: u32, v: Val) -> Ex {
        Ex::And(Box::new(Ex::SlotEq(slot, v)), Box::new(Ex::SlotEq(7, -1)))
    }

    #[test]
    fn a_turn_track_makes_play_exclusive() {
        let (a, b, c) = (turn_is(0, 0), turn_is(0, 1), turn_is(0, -1));
        assert!(exclusive(&[vec![&a, &a], vec![&b]]));
        // Both may decide when the turn track is `none` (a joint coin flip).
        assert!(!exclusive(&[vec![&a, &c], vec![&b, &c]]));
        // A decision that ignores the turn track.
        let free = Ex::SlotEq(7, -1);
        assert!(!exclusive(&[vec![&a], vec![&b, &free]]));
        assert!(exclusive(&[vec![&a], vec![]]));
    }
}
