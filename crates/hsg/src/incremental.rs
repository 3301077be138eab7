//! Strongly connected components maintained while a state graph grows, so that an
//! exploration can see its hyperstates, their HSG depth and the states that can no
//! longer win before it ends.
//!
//! # Algorithm
//! The graph arrives in batches of rows (a parent and its targets; an exploration
//! feeds one BFS layer at a time). Components are kept in a union-find forest over
//! state ids whose representative is the smallest id of its component, and each
//! representative with out-edges owns a list of successor components. Contracting a
//! component keeps reachability, so the components of the grown graph are the
//! components of the contracted old graph plus the new rows. A new cycle must use a
//! new edge; [`Incremental::settle`] therefore runs an iterative Tarjan search from
//! the targets of the batch's edges over the contracted graph only, skipping sinks
//! (components without out-edges cannot lie on a cycle), and merges every component
//! with more than one member. The merged component's list is rebuilt (mapped through
//! the forest, sorted, deduplicated, self-loops dropped).
//!
//! The result does not depend on how the rows are batched: the partition into
//! components is a function of the graph. Resuming an exploration therefore replays
//! the stored rows in one batch and continues.
//!
//! # Complexity
//! Memory: 12 bytes per state (forest, Tarjan index, depth) plus the successor lists of
//! the components with out-edges (4 bytes per distinct contracted edge, with a vector
//! header per component). Time per batch: linear in the contracted graph reachable
//! from the batch's targets, which for a puzzle with many reversible actions is most of
//! the contracted graph; it stays small because components merge as they close.
//! Depths ([`Incremental::compute_depths`]) and live tags ([`Incremental::live`]) are
//! one more pass over the contracted graph each.

use crate::error::HsgError;
use crate::graph::StateId;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A depth that no path reaches (yet).
pub const NO_DEPTH: u32 = u32::MAX;
const UNSEEN: u32 = 0;

/// What an exploration can show about its hyperstate graph so far.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveHsg {
    /// Components of the graph seen so far, counting unexpanded states as their own.
    pub hyperstates: u64,
    /// Deepest HSG depth (critical actions from the root's hyperstate) found so far.
    pub depth: u32,
    /// Hyperstates holding a target state.
    pub winning: u64,
    /// States that certainly cannot reach a target any more: everything they reach
    /// is expanded and none of it is a target.
    pub dead_states: u64,
    /// Hyperstates made of dead states.
    pub dead_hyperstates: u64,
}

/// Strongly connected components of a growing graph (see the module documentation).
#[derive(Debug, Default)]
pub struct Incremental {
    forest: Vec<u32>,
    /// Members per representative, for components of more than one state.
    sizes: FastMap<u32>,
    out: FastMap<Vec<u32>>,
    /// Tarjan index per representative during [`Incremental::settle`], else zero.
    index: Vec<u32>,
    depth: Vec<u32>,
    /// States below this id were expanded, except the cut ones.
    expanded_upto: u64,
    cut: Vec<u64>,
    /// States `0..roots` start the search (the initial states).
    roots: u32,
    target_states: Vec<u32>,
    batch_targets: Vec<u32>,
    components: u64,
}

type FastMap<V> = HashMap<u32, V, BuildHasherDefault<IdHasher>>;

/// A hasher for dense ids: one multiplication, enough to spread consecutive keys.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

impl Incremental {
    /// An empty graph.
    pub fn new() -> Incremental {
        Incremental::default()
    }

    /// States known so far.
    pub fn state_count(&self) -> u64 {
        self.forest.len() as u64
    }

    /// Components known so far (every state not yet merged counts as one).
    pub fn component_count(&self) -> u64 {
        self.components
    }

    /// Makes states `0..count` known; new states start as their own component.
    pub fn grow_to(&mut self, count: u64) -> Result<(), HsgError> {
        if count >= u64::from(u32::MAX) {
            return Err(HsgError::MalformedGraph(format!(
                "the incremental analysis handles fewer than {} states, not {count}",
                u32::MAX
            )));
        }
        let old = self.forest.len() as u32;
        if count <= u64::from(old) {
            return Ok(());
        }
        for id in old..count as u32 {
            self.forest.push(id);
        }
        self.index.resize(count as usize, UNSEEN);
        self.depth.resize(count as usize, NO_DEPTH);
        self.components += count.saturating_sub(u64::from(old));
        Ok(())
    }

    /// Declares states `0..count` the initial states (one by default).
    pub fn set_roots(&mut self, count: u64) {
        self.roots = count.min(self.forest.len() as u64) as u32;
    }

    /// Declares every state below `upto` expanded (or terminal), except those cut.
    pub fn set_expanded(&mut self, upto: u64) {
        self.expanded_upto = self.expanded_upto.max(upto);
    }

    /// Records that `state` was held back: its future is unknown.
    pub fn add_cut(&mut self, state: StateId) {
        set_bit(&mut self.cut, state as u32);
    }

    /// Adds the row of an expanded `parent`; every id must already be known.
    pub fn add_row(&mut self, parent: StateId, targets: &[StateId]) {
        let p = parent as u32;
        let from = self.find(p);
        for &t in targets {
            let to = self.find(t as u32);
            if to != from {
                self.out.entry(from).or_default().push(to);
                self.batch_targets.push(to);
            }
        }
    }

    /// Records that `state` is terminal with a target outcome.
    pub fn add_target(&mut self, state: StateId) {
        {
            self.target_states.push(state as u32);
        }
    }

    /// The representative (smallest id) of `state`'s component.
    pub fn component_of(&mut self, state: StateId) -> StateId {
        StateId::from(self.find(state as u32))
    }

    /// Merges the components closed by the rows added since the last call; returns
    /// how many states joined another component.
    pub fn settle(&mut self) -> u64 {
        let roots = std::mem::take(&mut self.batch_targets);
        let mut tarjan = Tarjan::default();
        for &r in &roots {
            let r = self.find(r);
            if self.index[r as usize] == UNSEEN && self.out.contains_key(&r) {
                tarjan.run(self, r);
            }
        }
        for &v in &tarjan.visited {
            self.index[v as usize] = UNSEEN;
        }
        let mut joined = 0;
        for scc in tarjan.found {
            joined += self.merge(&scc);
        }
        joined
    }

    /// Union of the components `members` (representatives), their lists rebuilt.
    fn merge(&mut self, members: &[u32]) -> u64 {
        let Some(&root) = members.iter().min() else {
            return 0;
        };
        let mut list = Vec::new();
        let mut size = 0u64;
        for &m in members {
            size += u64::from(self.sizes.remove(&m).unwrap_or(1));
            if let Some(l) = self.out.remove(&m) {
                list.extend(l);
            }
            self.forest[m as usize] = root;
        }
        self.sizes.insert(root, size.min(u64::from(u32::MAX)) as u32);
        self.components -= members.len() as u64 - 1;
        for t in list.iter_mut() {
            *t = self.find(*t);
        }
        list.sort_unstable();
        list.dedup();
        list.retain(|&t| t != root);
        if !list.is_empty() {
            self.out.insert(root, list);
        }
        members.len() as u64 - 1
    }

    fn find(&mut self, mut x: u32) -> u32 {
        // Path halving: every visited node skips to its grandparent.
        while self.forest[x as usize] != x {
            let grand = self.forest[self.forest[x as usize] as usize];
            self.forest[x as usize] = grand;
            x = grand;
        }
        x
    }

    /// Distinct successor components of the representative `c`, deduplicating its
    /// list first (lists grow with every row and hold stale ids after merges).
    fn successors(&mut self, c: u32) -> Vec<u32> {
        let Some(mut list) = self.out.remove(&c) else {
            return Vec::new();
        };
        for t in list.iter_mut() {
            *t = self.find(*t);
        }
        list.sort_unstable();
        list.dedup();
        list.retain(|&t| t != c);
        let copy = list.clone();
        self.out.insert(c, list);
        copy
    }

    /// Computes the HSG depth of every component from state 0's: the fewest edges
    /// between components on a path from the root. Components out of reach keep
    /// [`NO_DEPTH`].
    pub fn compute_depths(&mut self) {
        self.depth.iter_mut().for_each(|d| *d = NO_DEPTH);
        if self.forest.is_empty() {
            return;
        }
        let mut queue = std::collections::VecDeque::new();
        for r in 0..self.roots.max(1) {
            let root = self.find(r);
            if self.depth[root as usize] == NO_DEPTH {
                self.depth[root as usize] = 0;
                queue.push_back(root);
            }
        }
        while let Some(c) = queue.pop_front() {
            let next = self.depth[c as usize].saturating_add(1);
            for t in self.successors(c) {
                if self.depth[t as usize] == NO_DEPTH {
                    self.depth[t as usize] = next;
                    queue.push_back(t);
                }
            }
        }
    }

    /// The HSG depth of `state`'s component as of the last [`Incremental::compute_depths`].
    pub fn depth_of(&mut self, state: StateId) -> u32 {
        let c = self.find(state as u32);
        self.depth[c as usize]
    }

    /// Hyperstates, depth, winning and dead components of the graph so far; call
    /// after [`Incremental::settle`] and [`Incremental::compute_depths`].
    pub fn live(&mut self) -> LiveHsg {
        let mut winning = vec![false; 0];
        winning.resize(self.forest.len(), false);
        for i in 0..self.target_states.len() {
            let c = self.find(self.target_states[i]);
            winning[c as usize] = true;
        }
        let win_count = (0..self.forest.len() as u32)
            .filter(|&s| self.forest[s as usize] == s && winning[s as usize])
            .count() as u64;
        let (dead_states, dead_hyperstates) = self.dead(&winning);
        let depth = self
            .depth
            .iter()
            .copied()
            .filter(|&d| d != NO_DEPTH)
            .max()
            .unwrap_or(0);
        LiveHsg {
            hyperstates: self.components,
            depth,
            winning: win_count,
            dead_states,
            dead_hyperstates,
        }
    }

    /// Counts states and components that reach neither a target nor an unexpanded
    /// state, by an iterative post-order over the contracted graph.
    fn dead(&mut self, winning: &[bool]) -> (u64, u64) {
        // 0 unvisited, 1 on the stack, 2 alive (reaches a target or the unknown), 3 dead.
        let mut mark = vec![0u8; self.forest.len()];
        let reps: Vec<u32> = (0..self.forest.len() as u32)
            .filter(|&s| self.forest[s as usize] == s)
            .collect();
        let (mut states, mut comps) = (0u64, 0u64);
        for &start in &reps {
            if mark[start as usize] != 0 {
                continue;
            }
            let mut stack = vec![(start, self.successors(start), 0usize)];
            mark[start as usize] = 1;
            while let Some((c, succ, next)) = stack.last_mut() {
                if let Some(&t) = succ.get(*next) {
                    *next += 1;
                    if mark[t as usize] == 0 {
                        mark[t as usize] = 1;
                        let s = self.successors(t);
                        stack.push((t, s, 0));
                    }
                    continue;
                }
                let c = *c;
                let alive = winning[c as usize]
                    || !self.all_expanded(c)
                    || succ.iter().any(|&t| mark[t as usize] == 2);
                mark[c as usize] = if alive { 2 } else { 3 };
                if !alive {
                    comps += 1;
                    states += u64::from(self.sizes.get(&c).copied().unwrap_or(1));
                }
                stack.pop();
            }
        }
        (states, comps)
    }

    /// True when every member of the component `c` was expanded. Merged components
    /// always are (a member on a cycle has an out-edge); a singleton is expanded when
    /// its id is below the expanded count and it was not cut.
    fn all_expanded(&self, c: u32) -> bool {
        self.sizes.contains_key(&c)
            || (u64::from(c) < self.expanded_upto && !get_bit(&self.cut, c))
    }
}

fn set_bit(bits: &mut Vec<u64>, i: u32) {
    let word = (i / 64) as usize;
    if bits.len() <= word {
        bits.resize(word + 1, 0);
    }
    bits[word] |= 1 << (i % 64);
}

fn get_bit(bits: &[u64], i: u32) -> bool {
    bits.get((i / 64) as usize)
        .is_some_and(|w| w & (1 << (i % 64)) != 0)
}

/// Iterative Tarjan over the contracted graph, collecting components of more than
/// one member.
#[derive(Default)]
struct Tarjan {
    next_index: u32,
    low: FastMap<u32>,
    stack: Vec<u32>,
    on_stack: FastMap<()>,
    visited: Vec<u32>,
    found: Vec<Vec<u32>>,
}

impl Tarjan {
    fn visit(&mut self, g: &mut Incremental, c: u32) -> Vec<u32> {
        self.next_index += 1;
        g.index[c as usize] = self.next_index;
        self.low.insert(c, self.next_index);
        self.stack.push(c);
        self.on_stack.insert(c, ());
        self.visited.push(c);
        g.successors(c)
    }

    fn run(&mut self, g: &mut Incremental, start: u32) {
        let succ = self.visit(g, start);
        let mut frames = vec![(start, succ, 0usize)];
        while let Some((c, succ, next)) = frames.last_mut() {
            let c = *c;
            if let Some(&t) = succ.get(*next) {
                *next += 1;
                if g.index[t as usize] == UNSEEN {
                    if g.out.contains_key(&t) {
                        let s = self.visit(g, t);
                        frames.push((t, s, 0));
                    }
                } else if self.on_stack.contains_key(&t) {
                    let lt = g.index[t as usize];
                    let lc = self.low.entry(c).or_insert(lt);
                    *lc = (*lc).min(lt);
                }
                continue;
            }
            frames.pop();
            let low_c = self.low.get(&c).copied().unwrap_or(0);
            if let Some((parent, _, _)) = frames.last() {
                let lp = self.low.entry(*parent).or_insert(low_c);
                *lp = (*lp).min(low_c);
            }
            if low_c == g.index[c as usize] {
                self.pop_component(c);
            }
        }
    }

    fn pop_component(&mut self, c: u32) {
        let mut members = Vec::new();
        while let Some(m) = self.stack.pop() {
            self.on_stack.remove(&m);
            members.push(m);
            if m == c {
                break;
            }
        }
        if members.len() > 1 {
            self.found.push(members);
        }
    }
}

#[cfg(test)]
#[path = "incremental_tests.rs"]
mod tests;
