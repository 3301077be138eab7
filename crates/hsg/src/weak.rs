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
//!   smallest member id (the class of state 0 is vertex 0) on complete runs.
//! - **Edges**: every SSG transition `(s, l, t)` becomes `(class s, l, class t)`; equal
//!   triples are kept once (the quotient is a graph of states, not of transitions), and
//!   a row lists its edges by action then target.
//! - **Outcomes**: a class is terminal when one of its members is; its outcome is the
//!   target outcome when a member has it (a class that can be won counts as a win),
//!   else the smallest outcome id among its members. Classes whose members disagree
//!   (two outcomes, or terminal and non-terminal members) are counted as
//!   `conflicting_classes`: a projection that merges them changes the game's rules.
//! - **Partial runs**: a class with an open member has a future that is partly
//!   unknown. The quotient then has one more vertex, *unexplored* (never expanded, no
//!   outcome: open), after the classes, and every class with an open member gets an
//!   edge labelled [`UNEXPLORED_LABEL`] to it, so that such a class is never tagged as
//!   lost. Classes that need a row (an expanded or open member, or state 0) are
//!   numbered first, by smallest member, then the classes of unexpanded terminal
//!   states. `mixed_open_classes` counts classes with open and other members.
//!
//! # Grouping
//!
//! Every state is projected once and its projection hashed with xxh3; the `(hash, id)`
//! pairs are sorted, and within a run of equal hashes the states are projected again and
//! compared byte by byte, so a hash collision never merges two states. Memory: 16 bytes
//! a state for the pairs, 8 for the class numbers (4 once compacted), 16 bytes a
//! transition for the quotient's edges before deduplication. Time `O(V log V + E log E)`
//! plus two projections of every state that shares its hash with another.

use crate::analysis::{analyze_graph, Analysis, AnalyzeOptions};
use crate::error::HsgError;
use crate::graph::{validate, ActionId, Labels, OutcomeId, StateGraph, StateId};
use crate::ids::IdVec;
use crate::summary::Source;
use std::ops::Range;
use xxhash_rust::xxh3::xxh3_64;

#[path = "weak_compare.rs"]
mod compare;
#[path = "weak_group.rs"]
mod group;

use group::{compact, dense_classes, representatives};

pub use compare::{compare, rank_features, FeatureRank, TagChange, WeakComparison};

/// The action label of the edges into the unexplored vertex.
pub const UNEXPLORED_LABEL: &str = "(unexplored)";

/// Low 48 bits of a packed quotient edge: the target class.
const TARGET_MASK: u64 = (1 << 48) - 1;

/// The quotient of a state graph by a projection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quotient {
    /// Quotient vertex (class) of every state of the original graph.
    pub class_of: IdVec,
    /// The quotient as a state graph: the classes, then the unexplored vertex if any.
    pub graph: QuotientGraph,
    /// Number of classes of states with equal projections.
    pub classes: u64,
    /// The vertex that stands for the unexplored futures of a partial run, after the
    /// classes; every class with an open member has an edge to it.
    pub unexplored: Option<StateId>,
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
        crate::graph::row_range(&self.row_end, state)
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
/// outcome that wins a class and `unexplored_action` labels the edges into the
/// unexplored vertex of a partial run (see the module documentation).
pub fn quotient<G, P>(
    g: &G,
    target: OutcomeId,
    unexplored_action: ActionId,
    project: P,
) -> Result<Quotient, HsgError>
where
    G: StateGraph + ?Sized,
    P: FnMut(StateId, &mut Vec<u8>),
{
    quotient_with_hash(g, target, unexplored_action, project, xxh3_64)
}

/// [`quotient`] with the hash function given, so that tests can force collisions.
pub(crate) fn quotient_with_hash<G, P>(
    g: &G,
    target: OutcomeId,
    unexplored_action: ActionId,
    mut project: P,
    hash: fn(&[u8]) -> u64,
) -> Result<Quotient, HsgError>
where
    G: StateGraph + ?Sized,
    P: FnMut(StateId, &mut Vec<u8>),
{
    validate(g)?;
    if g.state_count() >= TARGET_MASK {
        return Err(HsgError::MalformedGraph(format!(
            "{} states do not fit the quotient's 48-bit ids",
            g.state_count()
        )));
    }
    let representative = representatives(g.state_count(), &mut project, hash);
    let (mut class, classes) = dense_classes(representative);
    let info = class_info(g, &class, classes, target);
    let (number, prefix) = rows_first(&info);
    for c in class.iter_mut() {
        *c = number[*c as usize];
    }
    let any_open = info.flags.iter().any(|f| f & OPEN != 0);
    let unexplored = any_open.then_some(classes);
    let mut q = Quotient {
        class_of: compact(class),
        graph: QuotientGraph {
            state_count: classes + u64::from(any_open),
            expanded_count: prefix,
            ..QuotientGraph::default()
        },
        classes,
        unexplored,
        conflicting_classes: info.flags.iter().filter(|&&f| is_conflict(f)).count() as u64,
        mixed_open_classes: info
            .flags
            .iter()
            .filter(|&&f| f & OPEN != 0 && f & NOT_OPEN != 0)
            .count() as u64,
    };
    let open_rows = (0..classes as usize)
        .filter(|&c| info.flags[c] & OPEN != 0)
        .map(|c| number[c]);
    let into_unexplored = unexplored.map(|u| (open_rows, u64::from(unexplored_action) << 48 | u));
    build_edges(g, &mut q, into_unexplored);
    let mut terminals: Vec<(StateId, OutcomeId)> = (0..classes as usize)
        .filter_map(|c| info.outcome[c].map(|o| (number[c], o)))
        .collect();
    terminals.sort_unstable();
    q.graph.terminals = terminals;
    Ok(q)
}

/// Class flag: a member was expanded.
const EXPANDED: u8 = 1;
/// Class flag: a member is open (never expanded, not terminal).
const OPEN: u8 = 2;
/// Class flag: a member is not open.
const NOT_OPEN: u8 = 4;
/// Class flag: a member is terminal.
const TERMINAL: u8 = 8;
/// Class flag: a member is not terminal.
const NOT_TERMINAL: u8 = 16;
/// Class flag: two members have different outcomes.
const DISAGREE: u8 = 32;

fn is_conflict(flags: u8) -> bool {
    flags & DISAGREE != 0 || (flags & TERMINAL != 0 && flags & NOT_TERMINAL != 0)
}

/// What the members of every class are, and the class's outcome.
struct ClassInfo {
    flags: Vec<u8>,
    outcome: Vec<Option<OutcomeId>>,
}

fn class_info<G: StateGraph + ?Sized>(
    g: &G,
    class: &[u64],
    classes: u64,
    target: OutcomeId,
) -> ClassInfo {
    let mut info = ClassInfo {
        flags: vec![0; classes as usize],
        outcome: vec![None; classes as usize],
    };
    let mut terminals = Vec::new();
    g.for_each_terminal(&mut |s, o| terminals.push((s, o)));
    let mut next_terminal = terminals.iter().peekable();
    for (s, &c) in class.iter().enumerate() {
        let s = s as u64;
        let c = c as usize;
        let terminal = next_terminal.next_if(|t| t.0 == s).map(|t| t.1);
        let mut flags = if s < g.expanded_count() { EXPANDED } else { 0 };
        flags |= match terminal {
            Some(_) => TERMINAL | NOT_OPEN,
            None if s >= g.expanded_count() => OPEN | NOT_TERMINAL,
            None => NOT_OPEN | NOT_TERMINAL,
        };
        info.flags[c] |= flags;
        if let Some(o) = terminal {
            match info.outcome[c] {
                Some(previous) if previous != o => {
                    info.flags[c] |= DISAGREE;
                    if o == target || (previous != target && o < previous) {
                        info.outcome[c] = Some(o);
                    }
                }
                Some(_) => {}
                None => info.outcome[c] = Some(o),
            }
        }
    }
    info
}

/// New class numbers: first the classes that need a row (an expanded or open member,
/// and the class of state 0), then the others, each group in order of smallest member.
/// Returns the numbers and the size of the first group.
fn rows_first(info: &ClassInfo) -> (Vec<u64>, u64) {
    let needs_row = |c: usize| c == 0 || info.flags[c] & (EXPANDED | OPEN) != 0;
    let n = info.flags.len();
    let mut number = vec![0u64; n];
    let mut next = 0;
    for (c, slot) in number.iter_mut().enumerate() {
        if needs_row(c) {
            *slot = next;
            next += 1;
        }
    }
    let prefix = next;
    for (c, slot) in number.iter_mut().enumerate() {
        if !needs_row(c) {
            *slot = next;
            next += 1;
        }
    }
    (number, prefix)
}

/// The quotient's distinct `(class, action, class)` edges, in rows, plus an edge from
/// every class in `into_unexplored.0` to the packed target `into_unexplored.1`.
fn build_edges<G, I>(g: &G, q: &mut Quotient, into_unexplored: Option<(I, u64)>)
where
    G: StateGraph + ?Sized,
    I: Iterator<Item = u64>,
{
    let mut triples: Vec<(u64, u64)> = Vec::with_capacity(g.edge_count() as usize);
    for s in 0..g.expanded_count() {
        let source = q.class_of.at(s);
        for e in g.edge_range(s) {
            let (action, t) = g.edge(e);
            triples.push((source, u64::from(action) << 48 | q.class_of.at(t)));
        }
    }
    if let Some((classes, packed)) = into_unexplored {
        triples.extend(classes.map(|c| (c, packed)));
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
    let target = crate::target::resolve_target(&labels.outcomes, opts.target.as_deref())?;
    let unexplored_action = ActionId::try_from(labels.actions.len()).map_err(|_| {
        HsgError::MalformedGraph("the run names more than 65535 actions".to_string())
    })?;
    let quotient = quotient(g, target, unexplored_action, project)?;
    let q = &quotient.graph;
    let mut labels = labels.clone();
    if quotient.unexplored.is_some() {
        labels.actions.push(UNEXPLORED_LABEL.to_string());
    }
    let source = Source {
        states: q.state_count(),
        expanded: q.expanded_count(),
        transitions: q.edge_count(),
        ..source
    };
    let analysis = analyze_graph(q, &labels, opts, source)?;
    let comparison = compare(g, exact, &quotient, &analysis, &labels);
    Ok(WeakAnalysis {
        quotient,
        analysis,
        comparison,
    })
}

#[cfg(test)]
#[path = "weak_tests.rs"]
mod tests;
