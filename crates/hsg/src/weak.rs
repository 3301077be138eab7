//! Weak-equivalence HSGs (paper section VI-B.2): states that are equal once some
//! features are ignored become one state, and the resulting quotient graph is condensed
//! and measured like any state graph.
//!
//! This crate knows no game: the caller hands over a projection, a closure that writes
//! the projected bytes of a state id (the CLI builds it from `Game::project` and the
//! run's state records). [`quotient`] groups the states by projection, [`analyze_weak`]
//! analyses the quotient with [`analyze_graph`] and compares it with the exact analysis
//! (see `docs/metrics.md`, "Weak equivalence").
//!
//! # The quotient graph
//!
//! - **Vertices** are the classes of states with equal projections, numbered by their
//!   smallest member id, so that the class of state 0 is vertex 0 and classes with an
//!   expanded member come first (the expanded states are the id prefix of the run).
//! - **Edges**: every SSG transition `(s, l, t)` becomes `(class s, l, class t)`; equal
//!   triples are kept once (the quotient is a graph of states, not of transitions), and
//!   a row lists its edges by action then target.
//! - **Outcomes**: a class is terminal when one of its members is; its outcome is the
//!   target outcome when a member has it (a class that can be won counts as a win),
//!   else the smallest outcome id among its members. Classes whose members disagree
//!   (two outcomes, or terminal and non-terminal members) are counted as
//!   `conflicting_classes`: a projection that merges them changes the game's rules.
//! - **Open classes**: a class is open when none of its members was expanded or is
//!   terminal. A class mixing expanded and open members (`mixed_open_classes`, only on
//!   partial runs) is treated as expanded with the edges known so far.
//!
//! # Grouping
//!
//! Every state is projected once and its projection hashed with xxh3; the `(hash, id)`
//! pairs are sorted, and within a run of equal hashes the states are projected again and
//! compared byte by byte, so a hash collision never merges two states. Memory: 16 bytes
//! a state for the pairs, 8 for the class numbers (4 once compacted), 16 bytes a
//! transition for the quotient's edges before deduplication. Time `O(V log V + E log E)`
//! plus two projections of every state that shares its hash with another.

use crate::analysis::{analyze_graph, Analysis, AnalyzeOptions, Labels};
use crate::error::HsgError;
use crate::graph::{validate, ActionId, OutcomeId, StateGraph, StateId};
use crate::ids::IdVec;
use crate::summary::Source;
use std::ops::Range;
use xxhash_rust::xxh3::xxh3_64;

#[path = "weak_compare.rs"]
mod compare;

pub use compare::{compare, rank_features, FeatureRank, TagChange, WeakComparison};

/// Low 48 bits of a packed quotient edge: the target class.
const TARGET_MASK: u64 = (1 << 48) - 1;

/// The quotient of a state graph by a projection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quotient {
    /// Quotient vertex (class) of every state of the original graph.
    pub class_of: IdVec,
    /// The quotient as a state graph.
    pub graph: QuotientGraph,
    /// Classes whose members disagree on their outcome.
    pub conflicting_classes: u64,
    /// Classes that mix expanded (or terminal) members with open ones.
    pub mixed_open_classes: u64,
}

/// The quotient graph in compressed rows; implements [`StateGraph`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuotientGraph {
    state_count: u64,
    expanded_count: u64,
    /// `row_end[c]` is the end of class `c`'s row; rows are consecutive.
    row_end: Vec<u64>,
    /// Packed edges: target class in the low 48 bits, action above.
    edges: Vec<u64>,
    /// Terminal classes and their outcomes, sorted by class.
    terminals: Vec<(StateId, OutcomeId)>,
}

impl StateGraph for QuotientGraph {
    fn state_count(&self) -> u64 {
        self.state_count
    }

    fn expanded_count(&self) -> u64 {
        self.expanded_count
    }

    fn edge_count(&self) -> u64 {
        self.edges.len() as u64
    }

    #[inline]
    fn edge_range(&self, state: StateId) -> Range<u64> {
        let Ok(s) = usize::try_from(state) else {
            return 0..0;
        };
        let Some(&end) = self.row_end.get(s) else {
            return 0..0;
        };
        let start = if s == 0 { 0 } else { self.row_end[s - 1] };
        start..end
    }

    #[inline]
    fn edge(&self, index: u64) -> (ActionId, StateId) {
        let word = self.edges.get(index as usize).copied().unwrap_or(0);
        ((word >> 48) as ActionId, word & TARGET_MASK)
    }

    fn outcome(&self, state: StateId) -> Option<OutcomeId> {
        self.terminals
            .binary_search_by_key(&state, |t| t.0)
            .ok()
            .map(|i| self.terminals[i].1)
    }

    fn for_each_terminal(&self, f: &mut dyn FnMut(StateId, OutcomeId)) {
        for &(s, o) in &self.terminals {
            f(s, o);
        }
    }
}

/// Groups the states of `g` by `project` and builds the quotient graph; `target` is the
/// outcome that wins a class (see the module documentation).
pub fn quotient<G, P>(g: &G, target: OutcomeId, project: P) -> Result<Quotient, HsgError>
where
    G: StateGraph + ?Sized,
    P: FnMut(StateId, &mut Vec<u8>),
{
    quotient_with_hash(g, target, project, xxh3_64)
}

/// [`quotient`] with the hash function given, so that tests can force collisions.
pub(crate) fn quotient_with_hash<G, P>(
    g: &G,
    target: OutcomeId,
    mut project: P,
    hash: fn(&[u8]) -> u64,
) -> Result<Quotient, HsgError>
where
    G: StateGraph + ?Sized,
    P: FnMut(StateId, &mut Vec<u8>),
{
    validate(g)?;
    if g.state_count() > TARGET_MASK {
        return Err(HsgError::MalformedGraph(format!(
            "{} states do not fit the quotient's 48-bit ids",
            g.state_count()
        )));
    }
    let representative = representatives(g.state_count(), &mut project, hash);
    let (class_of, classes, expanded) = number_classes(representative, g.expanded_count());
    let graph = QuotientGraph {
        state_count: classes,
        expanded_count: expanded,
        row_end: Vec::new(),
        edges: Vec::new(),
        terminals: Vec::new(),
    };
    let mut q = Quotient {
        class_of,
        graph,
        conflicting_classes: 0,
        mixed_open_classes: 0,
    };
    build_edges(g, &mut q);
    class_outcomes(g, &mut q, target);
    Ok(q)
}

/// For every state, the smallest id with the same projection.
fn representatives<P>(n: u64, project: &mut P, hash: fn(&[u8]) -> u64) -> Vec<u64>
where
    P: FnMut(StateId, &mut Vec<u8>),
{
    let mut buffer = Vec::new();
    let mut keys: Vec<(u64, u64)> = (0..n)
        .map(|id| {
            buffer.clear();
            project(id, &mut buffer);
            (hash(&buffer), id)
        })
        .collect();
    keys.sort_unstable();
    let mut representative = vec![0u64; keys.len()];
    // Distinct projections met in the current run of equal hashes, with their first id.
    let mut distinct: Vec<(Vec<u8>, u64)> = Vec::new();
    let mut start = 0;
    while start < keys.len() {
        let h = keys[start].0;
        let end = start + keys[start..].iter().take_while(|k| k.0 == h).count();
        if end - start == 1 {
            let id = keys[start].1;
            representative[id as usize] = id;
        } else {
            distinct.clear();
            for &(_, id) in &keys[start..end] {
                buffer.clear();
                project(id, &mut buffer);
                let rep = match distinct.iter().find(|(bytes, _)| *bytes == buffer) {
                    Some(&(_, first)) => first,
                    None => {
                        distinct.push((buffer.clone(), id));
                        id
                    }
                };
                representative[id as usize] = rep;
            }
        }
        start = end;
    }
    representative
}

/// Turns representatives into dense class numbers in order of their smallest member;
/// returns the classes, their count and how many have a member below `expanded`.
fn number_classes(mut class: Vec<u64>, expanded: u64) -> (IdVec, u64, u64) {
    let mut next = 0u64;
    let mut expanded_classes = 0;
    for id in 0..class.len() {
        let rep = class[id] as usize;
        if rep == id {
            class[id] = next;
            next += 1;
            if (id as u64) < expanded {
                expanded_classes = next;
            }
        } else {
            // `rep < id`, so its entry already holds its class number.
            class[id] = class[rep];
        }
    }
    let ids = if next <= u64::from(u32::MAX) {
        IdVec::U32(class.iter().map(|&c| c as u32).collect())
    } else {
        IdVec::U64(class)
    };
    (ids, next, expanded_classes)
}

/// The quotient's distinct `(class, action, class)` edges, in rows.
fn build_edges<G: StateGraph + ?Sized>(g: &G, q: &mut Quotient) {
    let mut triples: Vec<(u64, u64)> = Vec::with_capacity(g.edge_count() as usize);
    for s in 0..g.expanded_count() {
        let source = q.class_of.at(s);
        for e in g.edge_range(s) {
            let (action, t) = g.edge(e);
            triples.push((source, u64::from(action) << 48 | q.class_of.at(t)));
        }
    }
    triples.sort_unstable();
    triples.dedup();
    let mut row_end = vec![0u64; q.graph.expanded_count as usize];
    for (i, &(source, _)) in triples.iter().enumerate() {
        row_end[source as usize] = i as u64 + 1;
    }
    for c in 1..row_end.len() {
        row_end[c] = row_end[c].max(row_end[c - 1]);
    }
    q.graph.row_end = row_end;
    q.graph.edges = triples.into_iter().map(|(_, packed)| packed).collect();
}

/// Outcomes of the classes, with the conflict and mixed-open counts.
fn class_outcomes<G: StateGraph + ?Sized>(g: &G, q: &mut Quotient, target: OutcomeId) {
    let classes = q.graph.state_count as usize;
    // Per class: members, terminal members, and the outcome chosen so far.
    let mut members = vec![0u32; classes];
    let mut terminal_members = vec![0u32; classes];
    let mut open_members = vec![0u32; classes];
    let mut outcome: Vec<Option<OutcomeId>> = vec![None; classes];
    let mut disagree = vec![false; classes];
    for s in 0..g.state_count() {
        let c = q.class_of.at(s) as usize;
        members[c] = members[c].saturating_add(1);
        if g.is_open(s) {
            open_members[c] = open_members[c].saturating_add(1);
        }
    }
    g.for_each_terminal(&mut |s, o| {
        let c = q.class_of.at(s) as usize;
        terminal_members[c] = terminal_members[c].saturating_add(1);
        match outcome[c] {
            Some(previous) if previous != o => {
                disagree[c] = true;
                if o == target || (previous != target && o < previous) {
                    outcome[c] = Some(o);
                }
            }
            Some(_) => {}
            None => outcome[c] = Some(o),
        }
    });
    for c in 0..classes {
        if disagree[c] || (terminal_members[c] > 0 && terminal_members[c] < members[c]) {
            q.conflicting_classes += 1;
        }
        if open_members[c] > 0 && open_members[c] < members[c] {
            q.mixed_open_classes += 1;
        }
    }
    q.graph.terminals = outcome
        .iter()
        .enumerate()
        .filter_map(|(c, o)| o.map(|o| (c as u64, o)))
        .collect();
}

/// A weak-equivalence analysis: the quotient, its full analysis and the comparison
/// with the exact one.
#[derive(Clone, Debug)]
pub struct WeakAnalysis {
    /// The quotient graph and the class of every state.
    pub quotient: Quotient,
    /// The analysis of the quotient (every metric of `docs/metrics.md`).
    pub analysis: Analysis,
    /// How the weak HSG differs from the exact one.
    pub comparison: WeakComparison,
}

/// Analyses the quotient of `g` by `project` and compares it with `exact`, the analysis
/// of `g` itself for the same options. `source` identifies `g`; its counts are replaced
/// by the quotient's in the weak summary.
pub fn analyze_weak<G, P>(
    g: &G,
    exact: &Analysis,
    labels: &Labels,
    opts: &AnalyzeOptions,
    source: Source,
    project: P,
) -> Result<WeakAnalysis, HsgError>
where
    G: StateGraph + ?Sized,
    P: FnMut(StateId, &mut Vec<u8>),
{
    let target = crate::analysis::resolve_target(labels, opts.target.as_deref())?;
    let quotient = quotient(g, target, project)?;
    let q = &quotient.graph;
    let source = Source {
        states: q.state_count(),
        expanded: q.expanded_count(),
        transitions: q.edge_count(),
        ..source
    };
    let analysis = analyze_graph(q, labels, opts, source)?;
    let comparison = compare(g, exact, &quotient, &analysis, labels);
    Ok(WeakAnalysis {
        quotient,
        analysis,
        comparison,
    })
}

#[cfg(test)]
#[path = "weak_tests.rs"]
mod tests;
