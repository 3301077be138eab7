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
//! one more pass over the contracted graph each. A caller that needs the components
//! only from time to time settles once the pending edges outnumber the contracted
//! graph ([`Incremental::pending_edges`], [`Incremental::settled_size`]), which makes
//! the whole maintenance linear in the edges, amortized.

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
    /// Per representative: its successor list in `lists`, or [`NONE`].
    list_of: Vec<u32>,
    lists: Vec<Vec<u32>>,
    free_lists: Vec<u32>,
    /// Representatives whose lists grew since the last compaction.
    dirty: Vec<u32>,
    /// Members per representative, for components of more than one state.
    sizes: FastMap<u32>,
    /// Tarjan index and low link per representative during [`Incremental::settle`].
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<u64>,
    depth: Vec<u32>,
    /// States below this id were expanded, except the cut ones.
    expanded_upto: u64,
    cut: Vec<u64>,
    /// States `0..roots` start the search (the initial states).
    roots: u32,
    target_states: Vec<u32>,
    batch_targets: Vec<u32>,
    components: u64,
    /// Entries of all successor lists after the last settle.
    settled_size: u64,
}

const NONE: u32 = u32::MAX;

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

/// The representative of `x`, halving the path on the way.
#[inline]
fn find(forest: &mut [u32], mut x: u32) -> u32 {
    while forest[x as usize] != x {
        let grand = forest[forest[x as usize] as usize];
        forest[x as usize] = grand;
        x = grand;
    }
    x
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
        self.forest.extend(old..count as u32);
        let n = count as usize;
        self.list_of.resize(n, NONE);
        self.index.resize(n, UNSEEN);
        self.low.resize(n, 0);
        self.depth.resize(n, NO_DEPTH);
        self.on_stack.resize(n.div_ceil(64), 0);
        self.components += count - u64::from(old);
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
        let from = find(&mut self.forest, parent as u32);
        let first_new = self.batch_targets.len();
        for &t in targets {
            let to = find(&mut self.forest, t as u32);
            if to != from {
                self.batch_targets.push(to);
            }
        }
        // A row whose edges all stay inside its component adds no list.
        if self.batch_targets.len() > first_new {
            let list = self.list_for(from) as usize;
            self.lists[list].extend_from_slice(&self.batch_targets[first_new..]);
            self.dirty.push(from);
        }
    }

    /// The list of the representative `c`, created empty when it has none.
    fn list_for(&mut self, c: u32) -> u32 {
        let slot = self.list_of[c as usize];
        if slot != NONE {
            return slot;
        }
        let slot = match self.free_lists.pop() {
            Some(free) => free,
            None => {
                self.lists.push(Vec::new());
                (self.lists.len() - 1) as u32
            }
        };
        self.list_of[c as usize] = slot;
        slot
    }

    /// Records that `state` is terminal with a target outcome.
    pub fn add_target(&mut self, state: StateId) {
        self.target_states.push(state as u32);
    }

    /// The representative (smallest id) of `state`'s component.
    pub fn component_of(&mut self, state: StateId) -> StateId {
        StateId::from(find(&mut self.forest, state as u32))
    }

    /// True when the representative `c` has out-edges to other components.
    fn has_successors(&self, c: u32) -> bool {
        let slot = self.list_of[c as usize];
        slot != NONE && !self.lists[slot as usize].is_empty()
    }

    /// Maps `c`'s list through the forest, sorted and without duplicates or `c`.
    fn compact(&mut self, c: u32) {
        let slot = self.list_of[c as usize];
        if slot == NONE {
            return;
        }
        let mut list = std::mem::take(&mut self.lists[slot as usize]);
        for t in list.iter_mut() {
            *t = find(&mut self.forest, *t);
        }
        list.sort_unstable();
        list.dedup();
        list.retain(|&t| t != c);
        if list.is_empty() {
            self.list_of[c as usize] = NONE;
            self.free_lists.push(slot);
        }
        self.lists[slot as usize] = list;
    }

    /// Appends the successor components of the representative `c` to `out`.
    fn push_successors(&mut self, c: u32, out: &mut Vec<u32>) {
        let slot = self.list_of[c as usize];
        if slot == NONE {
            return;
        }
        for &t in &self.lists[slot as usize] {
            let r = find(&mut self.forest, t);
            if r != c {
                out.push(r);
            }
        }
    }

    /// Merges the components closed by the rows added since the last call; returns
    /// how many states joined another component.
    pub fn settle(&mut self) -> u64 {
        for c in std::mem::take(&mut self.dirty) {
            let r = find(&mut self.forest, c);
            if r == c {
                self.compact(c);
            }
        }
        let roots = std::mem::take(&mut self.batch_targets);
        let mut tarjan = Tarjan::default();
        for &r in &roots {
            let r = find(&mut self.forest, r);
            if self.index[r as usize] == UNSEEN && self.has_successors(r) {
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
        self.settled_size = self.lists.iter().map(|l| l.len() as u64).sum();
        joined
    }

    /// Edges added since the last [`Incremental::settle`].
    pub fn pending_edges(&self) -> u64 {
        self.batch_targets.len() as u64
    }

    /// The size of the contracted graph at the last settle (successor-list entries
    /// plus components). A caller that settles only once as many edges are pending
    /// pays O(1) amortized per edge.
    pub fn settled_size(&self) -> u64 {
        self.settled_size + self.components
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
            let slot = self.list_of[m as usize];
            if slot != NONE {
                list.append(&mut self.lists[slot as usize]);
                self.list_of[m as usize] = NONE;
                self.free_lists.push(slot);
            }
            self.forest[m as usize] = root;
        }
        self.sizes
            .insert(root, size.min(u64::from(u32::MAX)) as u32);
        self.components -= members.len() as u64 - 1;
        let slot = self.list_for(root);
        self.lists[slot as usize] = list;
        self.compact(root);
        members.len() as u64 - 1
    }

    /// Computes the HSG depth of every component from the initial states': the
    /// fewest edges between components on a path from them. Components out of reach
    /// keep [`NO_DEPTH`].
    pub fn compute_depths(&mut self) {
        self.depth.iter_mut().for_each(|d| *d = NO_DEPTH);
        if self.forest.is_empty() {
            return;
        }
        let mut queue = std::collections::VecDeque::new();
        for r in 0..self.roots.max(1) {
            let root = find(&mut self.forest, r);
            if self.depth[root as usize] == NO_DEPTH {
                self.depth[root as usize] = 0;
                queue.push_back(root);
            }
        }
        let mut succ = Vec::new();
        while let Some(c) = queue.pop_front() {
            let next = self.depth[c as usize].saturating_add(1);
            succ.clear();
            self.push_successors(c, &mut succ);
            for &t in &succ {
                if self.depth[t as usize] == NO_DEPTH {
                    self.depth[t as usize] = next;
                    queue.push_back(t);
                }
            }
        }
    }

    /// The HSG depth of `state`'s component as of the last [`Incremental::compute_depths`].
    pub fn depth_of(&mut self, state: StateId) -> u32 {
        let c = find(&mut self.forest, state as u32);
        self.depth[c as usize]
    }

    /// Hyperstates, depth, winning and dead components of the graph so far; call
    /// after [`Incremental::settle`] and [`Incremental::compute_depths`].
    pub fn live(&mut self) -> LiveHsg {
        let mut winning = vec![false; self.forest.len()];
        for i in 0..self.target_states.len() {
            let c = find(&mut self.forest, self.target_states[i]);
            winning[c as usize] = true;
        }
        let win_count = (0..self.forest.len())
            .filter(|&s| self.forest[s] == s as u32 && winning[s])
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
        let (mut states, mut comps) = (0u64, 0u64);
        let mut arena = Vec::new();
        for start in 0..self.forest.len() as u32 {
            if self.forest[start as usize] != start || mark[start as usize] != 0 {
                continue;
            }
            mark[start as usize] = 1;
            arena.clear();
            self.push_successors(start, &mut arena);
            // Frames: (component, start of its successors, next one, their end).
            let mut frames = vec![(start, 0usize, 0usize, arena.len())];
            while let Some(frame) = frames.last_mut() {
                let (c, begin, next, end) = *frame;
                if next < end {
                    frame.2 += 1;
                    let t = arena[next];
                    if mark[t as usize] == 0 {
                        mark[t as usize] = 1;
                        let child_begin = arena.len();
                        self.push_successors(t, &mut arena);
                        frames.push((t, child_begin, child_begin, arena.len()));
                    }
                    continue;
                }
                let alive = winning[c as usize]
                    || !self.all_expanded(c)
                    || arena[begin..end].iter().any(|&t| mark[t as usize] == 2);
                mark[c as usize] = if alive { 2 } else { 3 };
                if !alive {
                    comps += 1;
                    states += u64::from(self.sizes.get(&c).copied().unwrap_or(1));
                }
                arena.truncate(begin);
                frames.pop();
            }
        }
        (states, comps)
    }

    /// True when every member of the component `c` was expanded. Merged components
    /// always are (a member on a cycle has an out-edge); a singleton is expanded when
    /// its id is below the expanded count and it was not cut.
    fn all_expanded(&self, c: u32) -> bool {
        self.sizes.contains_key(&c) || (u64::from(c) < self.expanded_upto && !get_bit(&self.cut, c))
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
/// one member. Successor lists are copied onto one arena used as a stack, so a
/// visit allocates nothing.
#[derive(Default)]
struct Tarjan {
    next_index: u32,
    stack: Vec<u32>,
    arena: Vec<u32>,
    visited: Vec<u32>,
    found: Vec<Vec<u32>>,
}

impl Tarjan {
    /// Numbers `c`, pushes it and its successors; returns the end of its successors.
    fn visit(&mut self, g: &mut Incremental, c: u32) -> usize {
        self.next_index += 1;
        g.index[c as usize] = self.next_index;
        g.low[c as usize] = self.next_index;
        self.stack.push(c);
        set_bit(&mut g.on_stack, c);
        self.visited.push(c);
        g.push_successors(c, &mut self.arena);
        self.arena.len()
    }

    fn run(&mut self, g: &mut Incremental, start: u32) {
        let begin = self.arena.len();
        let end = self.visit(g, start);
        // Frames: (component, next successor position, end of its successors).
        let mut frames = vec![(start, begin, end)];
        while let Some(&mut (c, ref mut next, end)) = frames.last_mut() {
            if *next < end {
                let t = self.arena[*next];
                *next += 1;
                if g.index[t as usize] == UNSEEN {
                    if g.has_successors(t) {
                        let child_begin = self.arena.len();
                        let child_end = self.visit(g, t);
                        frames.push((t, child_begin, child_end));
                    }
                } else if get_bit(&g.on_stack, t) {
                    let lt = g.index[t as usize];
                    g.low[c as usize] = g.low[c as usize].min(lt);
                }
                continue;
            }
            frames.pop();
            let low_c = g.low[c as usize];
            if let Some(&(parent, _, parent_end)) = frames.last() {
                g.low[parent as usize] = g.low[parent as usize].min(low_c);
                self.arena.truncate(parent_end);
            }
            if low_c == g.index[c as usize] {
                self.pop_component(g, c);
            }
        }
        self.arena.clear();
    }

    fn pop_component(&mut self, g: &mut Incremental, c: u32) {
        let mut members = Vec::new();
        while let Some(m) = self.stack.pop() {
            g.on_stack[(m / 64) as usize] &= !(1 << (m % 64));
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
