//! [`AnalysisBench`]: the [`Workbench`] over a saved analysis (`hsg::SavedAnalysis`)
//! and a [`StateSource`] that knows the states themselves (records, moves, pictures).
//! The fixture and the store backends differ only in their state source.

use super::{
    win_search, CriticalAction, Damage, Details, Listing, LiveProgress, Member, Move, Overview,
    Row, RunState, StaleNote, Tag, WinSearch, Workbench,
};
use crate::bookmarks::RunKey;
use hsg::summary::HsgSummary;
use hsg::{HyperstateInfo, IdVec, MappedAnalysis, SavedAnalysis, SavedView};
use std::path::Path;

/// The states of the analysed graph, as one backend stores them.
pub trait StateSource: Send + Sync {
    /// The game's picture of state `s` (`None` past the end).
    fn render(&self, s: u64) -> Option<String>;
    /// The colours of [`StateSource::render`]'s characters, when the game has them
    /// (`model::Game::render_colors`).
    fn render_colors(&self, _s: u64) -> Option<Vec<Vec<Option<model::Rgb>>>> {
        None
    }
    /// What the characters of [`StateSource::render`] stand for
    /// (`model::Game::render_legend`).
    fn render_legend(&self, _s: u64) -> Vec<(char, String)> {
        Vec::new()
    }
    /// The `(action, target)` moves out of `s`.
    fn moves(&self, s: u64) -> Vec<(u16, u64)>;
    /// BFS depth of `s`.
    fn bfs_depth(&self, s: u64) -> u32;
    /// States per BFS depth.
    fn bfs_histogram(&self) -> Vec<u64>;
    /// Outcome of `s` if it is terminal.
    fn outcome(&self, s: u64) -> Option<u16>;
    /// Re-reads published progress (stores that another process may be writing).
    fn live_progress(&self) -> Option<LiveProgress> {
        None
    }
    /// The run directory, if the states live in a store.
    fn run_dir(&self) -> Option<&Path> {
        None
    }
    /// What the run's state ids depend on, which its bookmarks are tied to.
    fn run_key(&self) -> Option<RunKey> {
        None
    }
    /// The work [`StateSource::verify`] reports in all (nothing for states in memory).
    fn verify_work(&self) -> u64 {
        0
    }
    /// Verifies every checksum of the files the states are read from, as
    /// [`Workbench::verify`] says; states in memory have none.
    fn verify(&self, _tick: &mut dyn FnMut(&Path, u64) -> bool) -> Result<bool, Damage> {
        Ok(true)
    }
    /// Rule coverage and hangs ([`Workbench::rule_report`]), with `lost` telling the
    /// states that can no longer win; `None` unless the states are a PuzzleScript run's.
    fn rule_report(
        &self,
        _lost: &(dyn Fn(u64) -> bool + Sync),
    ) -> Option<Result<super::rules::RuleReport, String>> {
        None
    }
}

/// What the overview says about the run besides the analysis summary.
#[derive(Clone, Debug, PartialEq)]
pub struct RunFacts {
    /// Game family.
    pub game: String,
    /// Level title.
    pub level_title: String,
    /// Options of the exploration.
    pub options: Vec<(String, String)>,
    /// Where the exploration stood at open.
    pub run_state: RunState,
    /// Why the analysis may not describe the run as shown, if it may not.
    pub stale_note: Option<StaleNote>,
    /// Action labels, by id.
    pub action_labels: Vec<String>,
    /// Outcome names, by id.
    pub outcome_names: Vec<String>,
}

/// Predecessor lists of the HSG: `offsets[h]..offsets[h + 1]` indexes `edge`, which
/// holds the index of each incoming labelled edge in the forward CSR.
pub(super) struct Reverse {
    offsets: Vec<u64>,
    edge: Vec<u64>,
    sources: IdVec,
}

/// The analysis a workbench shows: computed or loaded into memory, or read in place
/// from its mapped files (verified in the background).
pub enum SavedData {
    /// In memory (a fresh analysis, or a fixture's).
    Loaded(SavedAnalysis),
    /// Mapped from `DIR/hsg/`.
    Mapped(MappedAnalysis),
}

impl From<SavedAnalysis> for SavedData {
    fn from(saved: SavedAnalysis) -> SavedData {
        SavedData::Loaded(saved)
    }
}

impl SavedData {
    /// The analysis, item by item.
    pub fn view(&self) -> &dyn SavedView {
        match self {
            SavedData::Loaded(s) => s,
            SavedData::Mapped(m) => m,
        }
    }

    fn verify_work(&self) -> u64 {
        match self {
            SavedData::Loaded(_) => 0,
            SavedData::Mapped(m) => m.verify_work(),
        }
    }

    fn verify(&self, tick: &mut dyn FnMut(&Path, u64) -> bool) -> Result<bool, Damage> {
        let SavedData::Mapped(m) = self else {
            return Ok(true);
        };
        let run_dir = m.folder().parent().unwrap_or(m.folder());
        m.verify_watched(tick).map_err(|e| Damage {
            what: e.to_string(),
            remedy: format!(
                "The analysis is derived data: `hsg analyze {}` computes it again from the \
                 store.",
                run_dir.display()
            ),
        })
    }
}

/// A workbench over a saved analysis and a state source.
pub struct AnalysisBench<S> {
    saved: SavedData,
    reverse: Reverse,
    facts: RunFacts,
    states: S,
    /// The outcomes that count as a win, resolved from the analysis's target name
    /// (`None` when the names do not resolve: the hyperstates' target flags decide).
    target: Option<hsg::target::Target>,
}

impl<S: StateSource> AnalysisBench<S> {
    /// Builds the workbench; `O(HSG edges)` to index predecessors.
    pub fn new(saved: impl Into<SavedData>, facts: RunFacts, states: S) -> AnalysisBench<S> {
        let saved = saved.into();
        let reverse = reverse_edges(saved.view());
        let target = hsg::target::resolve(
            &facts.outcome_names,
            Some(&saved.view().summary().target),
            None,
        )
        .ok();
        AnalysisBench {
            saved,
            reverse,
            facts,
            states,
            target,
        }
    }

    /// Verifies the analysis alone (what a picture of the HSG reads), at once.
    pub fn verify_analysis(&self) -> Result<(), Damage> {
        self.saved.verify(&mut |_, _| true).map(|_| ())
    }

    /// The saved analysis.
    pub fn saved(&self) -> &dyn SavedView {
        self.saved.view()
    }

    fn info(&self, h: u64) -> Option<HyperstateInfo> {
        self.saved().hyperstate(h)
    }

    fn tag(&self, h: u64) -> Tag {
        self.info(h).map_or(Tag::Unknown, |i| i.tag)
    }

    fn member_range(&self, h: u64) -> std::ops::Range<u64> {
        self.saved().member_range(h)
    }

    fn edge_range(&self, h: u64) -> std::ops::Range<u64> {
        self.saved().edge_range(h)
    }

    fn in_range(&self, h: u64) -> std::ops::Range<u64> {
        let o = &self.reverse.offsets;
        match (o.get(h as usize), o.get(h as usize + 1)) {
            (Some(&a), Some(&b)) => a..b,
            _ => 0..0,
        }
    }

    fn label(&self, action: u16) -> String {
        self.facts
            .action_labels
            .get(usize::from(action))
            .cloned()
            .unwrap_or_else(|| format!("#{action}"))
    }

    fn multiplicity(&self, edge: u64) -> u64 {
        self.saved().edge(edge).map_or(0, |e| e.multiplicity)
    }

    /// True when state `s` is a target state: its outcome is in the target.
    fn is_win(&self, s: u64) -> bool {
        let Some(o) = self.states.outcome(s) else {
            return false;
        };
        match &self.target {
            Some(t) => t.contains(o),
            None => self
                .hyperstate_of_state(s)
                .and_then(|h| self.info(h))
                .is_some_and(|i| i.flags & hsg::tags::CONTAINS_TARGET != 0),
        }
    }

    /// The position of state `s` among the members of its hyperstate `h` (members are
    /// sorted by state id).
    fn member_index(&self, h: u64, s: u64) -> Option<u64> {
        let r = self.member_range(h);
        let (mut lo, mut hi) = (r.start, r.end);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.saved().member(mid)? < s {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (lo < r.end && self.saved().member(lo)? == s).then(|| lo - r.start)
    }

    fn critical(&self, edge: u64, other: u64) -> CriticalAction {
        let e = self.saved().edge(edge);
        CriticalAction {
            action: self.label(e.map_or(0, |e| e.action)),
            other,
            other_tag: self.tag(other),
            multiplicity: e.map_or(0, |e| e.multiplicity),
        }
    }
}

/// The overview facts of an analysis `summary` of the run described by `facts`, with
/// `bfs_depths` states per BFS layer. It needs neither the states nor the hyperstates,
/// so the store backend can show it before they are loaded.
pub fn overview_of(summary: &HsgSummary, facts: &RunFacts, mut bfs_depths: Vec<u64>) -> Overview {
    // The store's layer table may end with a layer that holds no state yet; the
    // deepest layer is the last one with states, as `max_depth` counts it.
    while bfs_depths.len() > 1 && bfs_depths.last() == Some(&0) {
        bfs_depths.pop();
    }
    let (s, f, t) = (summary, facts, summary.tags);
    Overview {
        game: f.game.clone(),
        level_title: f.level_title.clone(),
        level_hash: s.source.level_hash.clone(),
        options: f.options.clone(),
        run_state: f.run_state,
        states: s.states,
        expanded: s.source.expanded,
        transitions: s.transitions,
        hyperstates: s.hyperstates,
        critical_actions: s.critical_actions,
        compression: s.compression,
        open_states: s.open_states,
        stale_note: f.stale_note.clone(),
        target: s.target.clone(),
        tags: [
            t.win,
            t.fail,
            t.eventually_winnable,
            t.implicitly_failed,
            t.unknown,
        ],
        bfs_depths,
        hsg_depths: s.depth.histogram.clone(),
        headroom: s.headroom.as_ref().map(|h| h.histogram_hyperstates.clone()),
        headroom_note: s.headroom_note.clone(),
        root: s.root_hyperstate,
        root_tag: s.root_tag,
        shortest_win_actions: s.shortest_win.actions,
        shortest_win_critical: s.shortest_win.critical_actions,
        ideal_profile: s.failure_spectrum.ideal_path_profile.clone(),
        breadth: s.failure_spectrum.breadth,
    }
}

/// How many hyperstates `walk` reports (each once, as the edge walkers do).
fn count_distinct(walk: impl FnOnce(&mut dyn FnMut(u64))) -> u64 {
    let mut n = 0;
    walk(&mut |_| n += 1);
    n
}

pub(super) fn reverse_edges(saved: &dyn SavedView) -> Reverse {
    let h = saved.hyperstate_count() as usize;
    let edges = saved.edge_count();
    let mut offsets = vec![0u64; h + 1];
    for i in 0..edges {
        let t = saved.edge(i).map_or(u64::MAX, |e| e.target);
        if let Some(o) = usize::try_from(t).ok().and_then(|t| offsets.get_mut(t + 1)) {
            *o += 1;
        }
    }
    for i in 0..h {
        offsets[i + 1] += offsets[i];
    }
    let mut cursor = offsets.clone();
    let total = offsets[h] as usize;
    let mut edge = vec![0u64; total];
    let mut sources = vec![0u64; total];
    // Rows follow one another. A row that starts before the previous one ended is
    // damage (the verification names it): it is skipped, so that the walk reads each
    // edge once, where overlapping rows of an unverified view would read the edges once
    // per hyperstate.
    let mut next_row = 0;
    for source in 0..h as u64 {
        let row = saved.edge_range(source);
        if row.start < next_row {
            continue;
        }
        next_row = row.end;
        for i in row {
            // An unverified view may hold any target: one past the count is skipped.
            let Some(t) = saved.edge(i).and_then(|e| usize::try_from(e.target).ok()) else {
                continue;
            };
            let Some(slot) = cursor.get_mut(t).filter(|c| (**c as usize) < total) else {
                continue;
            };
            let at = *slot as usize;
            *slot += 1;
            edge[at] = i;
            sources[at] = source;
        }
    }
    let sources = if (h as u64) <= u64::from(u32::MAX) {
        IdVec::U32(sources.into_iter().map(|x| x as u32).collect())
    } else {
        IdVec::U64(sources.into())
    };
    Reverse {
        offsets,
        edge,
        sources,
    }
}

impl<S: StateSource> Workbench for AnalysisBench<S> {
    fn overview(&self) -> Overview {
        overview_of(
            self.saved().summary(),
            &self.facts,
            self.states.bfs_histogram(),
        )
    }

    fn hyperstate_count(&self) -> u64 {
        self.saved().hyperstate_count()
    }

    fn state_count(&self) -> u64 {
        self.saved().state_count()
    }

    fn root(&self) -> u64 {
        self.saved().summary().root_hyperstate
    }

    fn ideal_path(&self) -> Vec<u64> {
        self.saved().ideal_path().to_vec()
    }

    fn row(&self, h: u64) -> Option<Row> {
        let i = self.info(h)?;
        let r = self.member_range(h);
        Some(Row {
            id: h,
            tag: i.tag,
            size: r.end - r.start,
            depth: i.depth,
            headroom: i.headroom_hyperstates,
            loss_distance: i.loss_distance,
            win_distance: i.win_distance,
        })
    }

    fn details(&self, h: u64) -> Option<Details> {
        let row = self.row(h)?;
        let i = self.info(h)?;
        let first_state = self.saved().member(self.member_range(h).start)?;
        let (out, inc) = (self.edge_range(h), self.in_range(h));
        Some(Details {
            row,
            first_state,
            bfs_depth: self.states.bfs_depth(first_state),
            headroom_states: i.headroom_states,
            one_step_headroom: i.one_step_headroom,
            out_critical: out.clone().map(|e| self.multiplicity(e)).sum(),
            in_critical: inc
                .clone()
                .filter_map(|i| self.reverse.edge.get(i as usize))
                .map(|&e| self.multiplicity(e))
                .sum(),
            out_edges: count_distinct(|f| self.for_each_successor(h, f)),
            in_edges: count_distinct(|f| self.for_each_predecessor(h, f)),
            out_labelled: out.end - out.start,
            in_labelled: inc.end - inc.start,
            contains_target: i.flags & hsg::tags::CONTAINS_TARGET != 0,
            open: i.flags & hsg::tags::OPEN != 0,
        })
    }

    fn for_each_successor(&self, h: u64, f: &mut dyn FnMut(u64)) {
        // A row's edges are sorted by target: each successor once.
        let mut previous = None;
        for i in self.edge_range(h) {
            let Some(t) = self.saved().edge(i).map(|e| e.target) else {
                continue;
            };
            if previous != Some(t) {
                f(t);
                previous = Some(t);
            }
        }
    }

    fn for_each_predecessor(&self, h: u64, f: &mut dyn FnMut(u64)) {
        let mut previous = None;
        for i in self.in_range(h) {
            let Some(p) = self.reverse.sources.get(i) else {
                continue;
            };
            if previous != Some(p) {
                f(p);
                previous = Some(p);
            }
        }
    }

    fn critical_out(&self, h: u64, limit: usize) -> Listing<CriticalAction> {
        let range = self.edge_range(h);
        let items = range
            .clone()
            .take(limit)
            .map(|i| self.critical(i, self.saved().edge(i).map_or(0, |e| e.target)))
            .collect();
        Listing {
            items,
            total: range.end - range.start,
        }
    }

    fn critical_in(&self, h: u64, limit: usize) -> Listing<CriticalAction> {
        let range = self.in_range(h);
        let items = range
            .clone()
            .take(limit)
            .filter_map(|i| {
                let edge = *self.reverse.edge.get(i as usize)?;
                Some(self.critical(edge, self.reverse.sources.get(i)?))
            })
            .collect();
        Listing {
            items,
            total: range.end - range.start,
        }
    }

    fn member(&self, h: u64, index: u64) -> Option<Member> {
        let r = self.member_range(h);
        if index >= r.end - r.start {
            return None;
        }
        let state = self.saved().member(r.start + index)?;
        let moves = self
            .states
            .moves(state)
            .into_iter()
            .map(|(action, target)| {
                let th = self.hyperstate_of_state(target).unwrap_or(h);
                Move {
                    action: self.label(action),
                    target_state: target,
                    target_hyperstate: th,
                    target_tag: self.tag(th),
                }
            })
            .collect();
        let outcome = self.states.outcome(state).map(|o| {
            self.facts
                .outcome_names
                .get(usize::from(o))
                .cloned()
                .unwrap_or_else(|| format!("outcome {o}"))
        });
        Some(Member {
            state,
            index,
            bfs_depth: self.states.bfs_depth(state),
            text: self.states.render(state)?,
            colors: self.states.render_colors(state),
            legend: self.states.render_legend(state),
            outcome,
            moves,
        })
    }

    fn hyperstate_of_state(&self, s: u64) -> Option<u64> {
        self.saved().component(s)
    }

    fn state_text(&self, s: u64) -> Option<String> {
        if s >= self.state_count() {
            return None;
        }
        self.states.render(s)
    }

    fn rule_report(&self) -> Option<Result<super::rules::RuleReport, String>> {
        let lost = |s: u64| {
            self.hyperstate_of_state(s)
                .is_some_and(|h| self.tag(h).is_lost())
        };
        self.states.rule_report(&lost)
    }

    fn state_member(&self, s: u64) -> Option<Member> {
        let h = self.hyperstate_of_state(s)?;
        self.member(h, self.member_index(h, s)?)
    }

    fn actions_to_win(&self, s: u64, budget: u64) -> WinSearch {
        let may_win = |t: u64| {
            self.hyperstate_of_state(t)
                .is_some_and(|h| self.tag(h).is_winnable())
        };
        if !may_win(s) {
            return WinSearch::Unreachable;
        }
        win_search::actions_to_win(
            s,
            self.state_count(),
            budget,
            |t| self.states.moves(t),
            |t| self.is_win(t),
            may_win,
        )
    }

    fn live_progress(&self) -> Option<LiveProgress> {
        self.states.live_progress()
    }

    fn is_live(&self) -> bool {
        self.facts.run_state == RunState::Running
    }

    fn run_dir(&self) -> Option<&Path> {
        self.states.run_dir()
    }

    fn run_key(&self) -> Option<RunKey> {
        self.states.run_key()
    }

    fn verify_work(&self) -> u64 {
        self.saved.verify_work() + self.states.verify_work()
    }

    fn verify(&self, tick: &mut dyn FnMut(&Path, u64) -> bool) -> Result<bool, Damage> {
        // The analysis first: every screen shows it, and it is the smaller part.
        Ok(self.saved.verify(tick)? && self.states.verify(tick)?)
    }
}
