//! The whole analysis of one state graph: condensation, tags, reversibility, paths,
//! headroom and failure spectrum, gathered into an [`Analysis`] with its summary.

use crate::condense::{condense_counting, Condensation};
use crate::error::HsgError;
use crate::graph::{validate_bounding, Labels, OutcomeId, StateGraph, TargetBounds};
use crate::headroom::{compute_headroom, Headroom};
use crate::metrics;
use crate::paths::{
    count_winning_paths, depths_from, distance_to, longest_to, shortest_walk_length,
    winning_path_lengths, Goal, UNREACHED,
};
use crate::progress::{Observer, Phase};
use crate::reversibility::ReversibilityCounts;
use crate::spectrum::{failure_spectrum, FailureSpectrum};
use crate::state_arrays::Backing;
use crate::summary::{
    ActionClasses, HsgSummary, ShortestWin, Source, TagCounts, WinningPaths, FORMAT_VERSION,
};
use crate::tags::{tag_hyperstates, Tagging};
use crate::two_cycles::PairCounts;

/// Options of an analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalyzeOptions {
    /// The target as written (see [`crate::target::resolve`]); `None` means the default.
    pub target: Option<String>,
    /// Memory the optional parts (headroom, path-length histogram) may use, in bytes.
    pub mem_budget_bytes: u64,
    /// Compute headroom (the most expensive metric).
    pub headroom: bool,
    /// Where the per-state arrays go when they do not fit `mem_budget_bytes` (see
    /// [`crate::state_arrays`]); `None` refuses such a graph instead.
    pub scratch_dir: Option<std::path::PathBuf>,
    /// Told each phase as it starts (see [`crate::progress`]).
    pub progress: Observer,
    /// True when the analysis will be saved: the observer counts the saving phase.
    pub saving: bool,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            target: None,
            mem_budget_bytes: default_budget(),
            headroom: true,
            scratch_dir: None,
            progress: Observer::default(),
            saving: false,
        }
    }
}

/// Half of the machine's memory (from `/proc/meminfo`), or 1 GiB when it cannot be read.
pub fn default_budget() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(1 << 30, |kib| kib * 1024 / 2)
}

/// Bytes of RAM the SCC's arrays need at their peak for a graph of `states` states:
/// beyond the budget, the analysis puts its per-state arrays in scratch files.
pub fn scc_bytes_needed(states: u64) -> u64 {
    (states as f64 * crate::scc::bytes_per_state(states)).ceil() as u64
}

/// Bytes the two-cycle pass's list of one-way transitions may take under `budget`: what
/// is left beside the pass's own arrays (the union-find's word a state and the marks of
/// a bit a transition).
fn one_way_room<G: StateGraph + ?Sized>(g: &G, budget: u64) -> u64 {
    let n = g.state_count();
    let word = if n < u64::from(u32::MAX) { 4 } else { 8 };
    budget
        .saturating_sub(n.saturating_mul(word))
        .saturating_sub(g.edge_count().div_ceil(8))
}

/// Chooses where the per-state arrays go, before anything is allocated: the heap while
/// the SCC's arrays (its peak, see [`crate::scc`]) fit the budget, else scratch files in
/// `scratch_dir`; without one, such a graph is refused (see `docs/metrics.md`, "Cost").
fn choose_backing(
    states: u64,
    budget: u64,
    scratch_dir: Option<&std::path::Path>,
) -> Result<Backing, HsgError> {
    let needed = scc_bytes_needed(states);
    if needed <= budget {
        return Ok(Backing::Heap);
    }
    match scratch_dir {
        Some(dir) => Ok(Backing::Files(dir.to_path_buf())),
        None => Err(HsgError::OverBudget {
            states,
            needed_mib: needed.div_ceil(1 << 20),
            budget_mib: budget >> 20,
        }),
    }
}

/// The result of an analysis: per-hyperstate arrays and the summary.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// Hyperstates, members and HSG edges.
    pub condensation: Condensation,
    /// Tags and flags.
    pub tagging: Tagging,
    /// Hyperstate of state 0.
    pub root: u64,
    /// Shortest depth from the root ([`UNREACHED`] if unreachable).
    pub depth: Vec<u32>,
    /// Fewest critical actions to a target hyperstate ([`UNREACHED`] if none).
    pub win_distance: Vec<u32>,
    /// Loss distances and ideal path.
    pub spectrum: FailureSpectrum,
    /// Headroom, when computed.
    pub headroom: Option<Headroom>,
    /// Every summary metric.
    pub summary: HsgSummary,
}

/// Analyses a graph; `source` identifies it in the summary.
pub fn analyze_graph<G: StateGraph + ?Sized>(
    g: &G,
    labels: &Labels,
    opts: &AnalyzeOptions,
    source: Source,
) -> Result<Analysis, HsgError> {
    // The validation's pass notes the largest target of each block of rows, which the
    // shortest win's walk uses to pass over blocks (`crate::layered_walk`).
    let bounds = validate_bounding(g)?;
    if g.state_count() == 0 {
        return Err(HsgError::MalformedGraph("the graph has no state".into()));
    }
    let spec = opts.target.as_deref();
    // Only the default target of a scoring game depends on the graph: the best score reached.
    let best = match spec {
        None => crate::target::best_score(&labels.outcomes, g),
        Some(_) => None,
    };
    let target = crate::target::resolve(&labels.outcomes, spec, best)?;
    let mut analysis = if target.outcomes.len() == 1 {
        analyze_for(g, labels, opts, source, (target.representative(), &bounds))?
    } else {
        let view = crate::target::TargetView {
            inner: g,
            target: &target,
        };
        analyze_for(
            &view,
            labels,
            opts,
            source,
            (target.representative(), &bounds),
        )?
    };
    analysis.summary.target = target.name;
    Ok(analysis)
}

fn analyze_for<G: StateGraph + ?Sized>(
    g: &G,
    labels: &Labels,
    opts: &AnalyzeOptions,
    source: Source,
    (target, bounds): (OutcomeId, &TargetBounds),
) -> Result<Analysis, HsgError> {
    let backing = choose_backing(
        g.state_count(),
        opts.mem_budget_bytes,
        opts.scratch_dir.as_deref(),
    )?;
    // What the budget leaves beyond the SCC's arrays may hold its dense copy of the
    // rows; with the arrays in scratch files, nothing is left.
    let spare = match backing {
        Backing::Heap => opts
            .mem_budget_bytes
            .saturating_sub(scc_bytes_needed(g.state_count())),
        Backing::Files(_) => 0,
    };
    // The two-cycle pass may record the one-way transitions in what the budget leaves
    // beside its own arrays, when those are on the heap (see `crate::one_way`).
    let list_room = match backing {
        Backing::Heap => Some(one_way_room(g, opts.mem_budget_bytes)),
        Backing::Files(_) => None,
    };
    // The shortest win is measured on the one walk `hsg path --to win` prints, which
    // needs the hyperstates: it is part of the summary (issue 37).
    let analysis = analyze_phases(g, opts, (&backing, spare, list_room), target);
    let (mut analysis, pass, headroom_note, left) = analysis?;
    opts.progress
        .enter(Phase::Summary, opts.headroom, opts.saving);
    let paths_cells = left / 8;
    let rev = crate::reversibility::from_counts(&pass, &analysis.condensation.edges);
    let mut times = crate::progress::StepTimes::start();
    analysis.summary = summarize(
        g,
        labels,
        &analysis,
        (source, target, Some(bounds)),
        headroom_note,
        paths_cells,
        (rev, &mut times),
    );
    opts.progress.note(&times.note(Phase::Summary.name()));
    Ok(analysis)
}

/// What [`analyze_phases`] leaves to the summary: the analysis without its summary, the
/// two-cycle pass's counts, the headroom note and the budget left.
type Phases = (Analysis, PairCounts, Option<String>, u64);

/// The phases before the summary: components, tags, distances, headroom.
fn analyze_phases<G: StateGraph + ?Sized>(
    g: &G,
    opts: &AnalyzeOptions,
    (backing, spare, list_room): (&Backing, u64, Option<u64>),
    target: OutcomeId,
) -> Result<Phases, HsgError> {
    let enter = |phase| opts.progress.enter(phase, opts.headroom, opts.saving);
    enter(Phase::Components);
    let (condensation, pass, report) = condense_counting(g, backing, spare, list_room)?;
    opts.progress.note(&report.fate.to_string());
    opts.progress
        .note(&report.times.note(Phase::Components.name()));
    // What the budget leaves once the hyperstates are known: headroom and the
    // winning paths take their memory from it.
    let left = budget_left(&condensation, opts.mem_budget_bytes)?;
    enter(Phase::Tags);
    let tagging = tag_hyperstates(g, &condensation, target);
    enter(Phase::Distances);
    let root = condensation.hyperstate_of(0);
    let depth = depths_from(&condensation, root);
    let win_distance = distance_to(&condensation, |h| tagging.contains_target(h));
    let spectrum = failure_spectrum(&condensation, &tagging, &win_distance, root);
    let (headroom, headroom_note) = if opts.headroom {
        enter(Phase::Headroom);
        match compute_headroom(&condensation, &tagging, left) {
            Ok(h) => {
                // Every report says when the headroom is an estimate, and why.
                let note = (h.method != crate::headroom::HeadroomMethod::Exact)
                    .then(|| crate::headroom::sketch_reason(&condensation, left));
                (Some(h), note)
            }
            Err(why) => (None, Some(why)),
        }
    } else {
        (None, Some("not requested".to_string()))
    };
    let analysis = Analysis {
        summary: HsgSummary::default(),
        condensation,
        tagging,
        root,
        depth,
        win_distance,
        spectrum,
        headroom,
    };
    Ok((analysis, pass, headroom_note, left))
}

/// Bytes a hyperstate costs after the SCC beyond the condensation: its tag and flags,
/// depth, distances and failure spectrum (25 measured on `exp2.sandbox` to depth 26, where
/// every state is its own hyperstate), and the summary's arrays of the longest and
/// shortest wins and the path histograms' headers (29 more at their peak), rounded up.
const LATER_BYTES_PER_HYPERSTATE: u64 = 64;

/// Heap bytes the condensation holds: the per-state arrays unless they live in scratch
/// files, the member offsets and the HSG's rows.
fn condensation_bytes(c: &Condensation) -> u64 {
    let e = &c.edges;
    c.components.of_state.heap_bytes()
        + c.members.heap_bytes()
        + e.targets.heap_bytes()
        + 8 * (c.member_offsets.len() + e.offsets.len() + e.multiplicity.len()) as u64
        + (e.actions.len() * std::mem::size_of::<model::ActionId>()) as u64
}

/// The budget left once the condensation and the later per-hyperstate arrays are
/// counted, or an error when they alone exceed it: a graph whose states are nearly all
/// hyperstates of their own (a game tree) needs some 100 bytes a state, and would
/// otherwise be killed for want of memory past the SCC.
pub(crate) fn budget_left(c: &Condensation, budget: u64) -> Result<u64, HsgError> {
    let needed = condensation_bytes(c)
        .saturating_add(LATER_BYTES_PER_HYPERSTATE.saturating_mul(c.hyperstate_count()));
    budget
        .checked_sub(needed)
        .ok_or(HsgError::HyperstatesOverBudget {
            hyperstates: c.hyperstate_count(),
            needed_mib: needed.div_ceil(1 << 20),
            budget_mib: budget >> 20,
        })
}

pub(crate) fn summarize<G: StateGraph + ?Sized>(
    g: &G,
    labels: &Labels,
    a: &Analysis,
    (source, target, bounds): (Source, OutcomeId, Option<&TargetBounds>),
    headroom_note: Option<String>,
    paths_cells: u64,
    (rev, times): (ReversibilityCounts, &mut crate::progress::StepTimes),
) -> HsgSummary {
    let c = &a.condensation;
    let t = &a.tagging;
    let mut cut_states = 0u64;
    g.for_each_cut(&mut |_| cut_states += 1);
    let open_states = (g.expanded_count()..g.state_count())
        .filter(|&s| g.is_open(s))
        .count() as u64
        + cut_states;
    times.done("open states");
    let longest = longest_to(c, |h| t.contains_target(h))[a.root as usize];
    let (lengths, lengths_note) = match winning_path_lengths(c, t, a.root, paths_cells) {
        Ok(h) => (Some(h), None),
        Err(why) => (None, Some(why)),
    };
    let finite = |d: u32| (d != UNREACHED).then_some(d);
    // Both figures of the one walk `hsg path --to win` prints (issue 37: the fewest
    // critical actions of any win sat beside the actions of another walk).
    times.done("winning paths");
    let won = |o: OutcomeId| o == target;
    let hyperstate_of = |s| c.hyperstate_of(s);
    let shortest_win = shortest_walk_length(g, 0, hyperstate_of, (Goal::Outcome(&won), bounds));
    times.done("shortest win");
    let branching = metrics::branching(g, c);
    times.done("branching");
    HsgSummary {
        format_version: FORMAT_VERSION,
        source,
        target: labels
            .outcomes
            .get(usize::from(target))
            .cloned()
            .unwrap_or_default(),
        provisional: open_states > 0,
        states: g.state_count(),
        open_states,
        transitions: g.edge_count(),
        hyperstates: c.hyperstate_count(),
        compression: 1.0 - c.hyperstate_count() as f64 / g.state_count() as f64,
        critical_actions: c.critical_actions,
        hsg_edges: c.edges.pair_count,
        hsg_labelled_edges: c.edges.len(),
        tags: TagCounts::from_codes(t.counts()),
        root_hyperstate: a.root,
        root_tag: t.tag(a.root),
        immediately_reversible_actions: rev.total.immediate,
        eventually_reversible_actions: rev.total.eventual,
        self_loops: rev.self_loops,
        reversibility_by_action: rev
            .per_action
            .iter()
            .enumerate()
            .filter(|(_, k)| k.immediate + k.eventual + k.critical > 0)
            .map(|(i, &counts)| ActionClasses {
                action: labels.action(i as u16),
                counts,
            })
            .collect(),
        hyperstate_sizes: metrics::size_distribution(c),
        branching,
        depth: metrics::depth_summary(&a.depth),
        shortest_win: ShortestWin {
            actions: shortest_win.map(|w| w.actions),
            critical_actions: shortest_win.map(|w| w.critical),
        },
        winning_paths: WinningPaths {
            count: count_winning_paths(c, t, a.root),
            longest: finite(longest),
            lengths,
            lengths_note,
        },
        headroom: a
            .headroom
            .as_ref()
            .map(|h| metrics::headroom_summary(c, t, h, &a.depth, a.root)),
        headroom_note,
        failure_spectrum: metrics::spectrum_summary(&a.spectrum, t, &a.depth),
    }
}

#[cfg(test)]
#[path = "analysis_tests.rs"]
pub(crate) mod tests;
