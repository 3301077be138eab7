//! Property tests: canonical-id equivalence against a naive isomorphism search
//! on small random trees, some of them relabeled copies of each other.

use crate::{compare, GameTree, Mode, TreeOptions};
use model::{Game, Move, OutcomeId, Prob, StateWidth, Successors};
use proptest::prelude::*;

/// A small two-player tree: per node its player, children and (for leaves) outcome.
#[derive(Clone, Debug)]
struct Spec {
    player: Vec<u8>,
    children: Vec<Vec<usize>>,
    outcome: Vec<u16>,
}

impl Spec {
    /// Grows a tree breadth first, each node taking its shape from the next draw.
    fn grow(draws: &[(u8, u8, u8)]) -> Spec {
        let mut s = Spec {
            player: vec![0],
            children: vec![Vec::new()],
            outcome: vec![0],
        };
        let mut depth = vec![0u8];
        let mut next = 0;
        let mut k = 0;
        while next < s.player.len() {
            let (b, p, o) = draws.get(k).copied().unwrap_or((0, 0, 0));
            k += 1;
            s.player[next] = p % 2;
            s.outcome[next] = u16::from(o % 3);
            let branching = if depth[next] >= 4 || s.player.len() > 200 {
                0
            } else {
                b % 4
            };
            for _ in 0..branching {
                s.children[next].push(s.player.len());
                s.player.push(0);
                s.children.push(Vec::new());
                s.outcome.push(0);
                depth.push(depth[next] + 1);
            }
            next += 1;
        }
        s
    }

    /// The same tree with children reordered, players swapped and outcomes permuted.
    fn relabeled(&self, shuffle: u64, swap_players: bool, outcomes: [u16; 3]) -> Spec {
        let mut s = self.clone();
        let mut x = shuffle | 1;
        for kids in &mut s.children {
            for i in (1..kids.len()).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                kids.swap(i, (x % (i as u64 + 1)) as usize);
            }
        }
        for p in &mut s.player {
            *p ^= u8::from(swap_players);
        }
        for o in &mut s.outcome {
            *o = outcomes[usize::from(*o)];
        }
        s
    }

    /// Naive isomorphism under one player and outcome correspondence (B to A);
    /// recursion is fine here: the trees are at most five levels deep.
    fn iso(&self, x: usize, b: &Spec, y: usize, players: &[u8; 2], outcomes: &[u16; 3]) -> bool {
        let (kx, ky) = (&self.children[x], &b.children[y]);
        if kx.len() != ky.len() {
            return false;
        }
        if kx.is_empty() {
            return outcomes[usize::from(b.outcome[y])] == self.outcome[x];
        }
        if kx.len() >= 2 && players[usize::from(b.player[y])] != self.player[x] {
            return false;
        }
        let mut used = vec![false; ky.len()];
        self.match_children(kx, 0, b, ky, &mut used, players, outcomes)
    }

    #[allow(clippy::too_many_arguments)]
    fn match_children(
        &self,
        kx: &[usize],
        i: usize,
        b: &Spec,
        ky: &[usize],
        used: &mut [bool],
        players: &[u8; 2],
        outcomes: &[u16; 3],
    ) -> bool {
        if i == kx.len() {
            return true;
        }
        for j in 0..ky.len() {
            if !used[j] && self.iso(kx[i], b, ky[j], players, outcomes) {
                used[j] = true;
                if self.match_children(kx, i + 1, b, ky, used, players, outcomes) {
                    return true;
                }
                used[j] = false;
            }
        }
        false
    }

    fn equivalent_naively(&self, b: &Spec) -> bool {
        let perms = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        [[0u8, 1], [1, 0]]
            .iter()
            .any(|pl| perms.iter().any(|o| self.iso(0, b, 0, pl, o)))
    }
}

impl Game for Spec {
    fn kind(&self) -> &'static str {
        "spec-test"
    }
    fn players(&self) -> u8 {
        2
    }
    fn state_width(&self) -> StateWidth {
        StateWidth::Fixed(1)
    }
    fn initial_states(&self) -> Vec<Vec<u8>> {
        vec![vec![0]]
    }
    fn action_labels(&self) -> Vec<String> {
        (0..self.player.len()).map(|i| format!("to {i}")).collect()
    }
    fn outcome_names(&self) -> Vec<String> {
        ["a", "b", "c"].map(String::from).to_vec()
    }
    fn terminal(&self, s: &[u8]) -> Option<OutcomeId> {
        let n = usize::from(s[0]);
        self.children[n].is_empty().then(|| self.outcome[n])
    }
    fn successors(&self, s: &[u8], out: &mut Successors) {
        let n = usize::from(s[0]);
        for &c in &self.children[n] {
            out.push(
                Move {
                    action: c as u16,
                    player: self.player[n],
                    prob: Prob::ONE,
                },
                &[c as u8],
            );
        }
    }
    fn render(&self, s: &[u8]) -> String {
        s[0].to_string()
    }
}

fn tree(s: &Spec) -> GameTree {
    GameTree::build(s, "spec", TreeOptions::default()).expect("small tree")
}

fn draws() -> impl Strategy<Value = Vec<(u8, u8, u8)>> {
    proptest::collection::vec((0u8..4, any::<u8>(), any::<u8>()), 1..40)
}

proptest! {
    #[test]
    fn canonical_ids_agree_with_naive_isomorphism(a in draws(), b in draws(), kind in 0u8..3, leaf in any::<usize>()) {
        let (x, y) = (Spec::grow(&a), Spec::grow(&b));
        let copy = x.relabeled(b.len() as u64 * 7919, b.len() % 2 == 0, [2, 0, 1]);
        let y = match kind {
            0 => y,
            1 => copy,
            // A near miss: the copy with one node's outcome or player changed.
            _ => {
                let mut near = copy;
                let n = leaf % near.outcome.len();
                near.outcome[n] = (near.outcome[n] + 1) % 3;
                near.player[n] ^= 1;
                near
            }
        };
        let fast = compare(&tree(&x), &tree(&y), Mode::Tree).unwrap().equivalent;
        prop_assert_eq!(fast, x.equivalent_naively(&y));
    }

    #[test]
    fn relabeled_copies_are_equivalent_and_tree_equivalence_implies_agency(a in draws(), seed in any::<u64>(), swap in any::<bool>()) {
        let x = Spec::grow(&a);
        let y = x.relabeled(seed, swap, [1, 2, 0]);
        prop_assert!(compare(&tree(&x), &tree(&y), Mode::Tree).unwrap().equivalent);
        prop_assert!(compare(&tree(&x), &tree(&y), Mode::Agency).unwrap().equivalent);
    }
}
