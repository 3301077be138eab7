//! The workbench over a real run directory: the states come from `store::Run` (memory
//! mapped, read-only, never the sled database), the hyperstates from the analysis saved
//! in `DIR/hsg/` (also mapped; computed first if there is none), and pictures from the
//! game rebuilt out of the level text in the run's identity. Both are opened without
//! reading them through and verified in the background ([`super::Workbench::verify`]).

use super::analysis::{overview_of, AnalysisBench, RunFacts, SavedData, StateSource};
use super::{Damage, LiveFigures, LiveProgress, Overview, RunState, StaleNote};
use crate::bookmarks::RunKey;
use crate::error::TuiError;
use hsg::summary::Source;
use hsg::{AnalyzeOptions, Currency, MappedAnalysis, SavedAnalysis, SavedView};
use model::Game;
use std::path::{Path, PathBuf};
use store::{Manifest, Run, RunStatus};

/// The states of a stored run.
pub struct RunStates {
    run: Run,
    /// The game, or why it could not be rebuilt from the run's identity.
    game: Result<Box<dyn Game>, games::GamesError>,
    analysed_states: u64,
    /// True when the store was verified while opening (before an analysis).
    store_verified: bool,
    dir: PathBuf,
}

/// The workbench type over a store.
pub type StoreBench = AnalysisBench<RunStates>;

fn run_state(status: RunStatus) -> RunState {
    match status {
        RunStatus::Running => RunState::Running,
        RunStatus::Interrupted => RunState::Interrupted,
        RunStatus::Complete => RunState::Complete,
        RunStatus::Partial => RunState::Partial,
    }
}

/// The progress part of a manifest.
pub fn progress_of(m: &Manifest) -> LiveProgress {
    let p = &m.progress;
    LiveProgress {
        state: Some(run_state(m.status)),
        states: p.states.max(m.states),
        expanded: p.expanded.max(m.expanded),
        transitions: p.transitions.max(m.transitions),
        depth: p.depth,
        states_per_sec: p.states_per_sec,
        elapsed_secs: p.elapsed_secs,
        phase: p.phase.clone(),
        live_hsg: p.live_hsg.as_ref().map(live_figures),
    }
}

/// The figures of a manifest's `live_hsg` object (written by the CLI's live analysis),
/// or why they cannot be read.
fn live_figures(v: &serde_json::Value) -> Result<LiveFigures, String> {
    LiveFigures::from_json(v).map_err(|e| e.to_string())
}

impl StateSource for RunStates {
    fn rule_report(
        &self,
        lost: &(dyn Fn(u64) -> bool + Sync),
    ) -> Option<Result<super::rules::RuleReport, String>> {
        let run = &self.run;
        let id = run.identity();
        let expanded = run.expanded_count().min(self.analysed_states);
        let state = |s: u64| (s < expanded && run.outcome(s).is_none()).then(|| run.state(s));
        let path = |s: u64| hsg::explain::actions_from_root(run, s);
        super::rules::survey(&super::rules::Source {
            kind: &id.game,
            level_text: &id.level_text,
            options: &id.options,
            stored: games::puzzlescript::coverage::Stored {
                count: expanded,
                state: &state,
                lost,
            },
            labels: &id.action_labels,
            path: &path,
            complete: run.status() == RunStatus::Complete,
        })
    }

    fn render(&self, s: u64) -> Option<String> {
        if s >= self.run.state_count() {
            return None;
        }
        let record = self.run.state(s);
        Some(match &self.game {
            Ok(g) => g.render(record),
            // Without the game, say why in the member pane, then show the bytes.
            Err(e) => format!(
                "cannot draw this state: the game does not rebuild from the run's level\n\
                 ({e})\nstate bytes: {}",
                record
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
            ),
        })
    }

    fn render_colors(&self, s: u64) -> Option<Vec<Vec<Option<model::Rgb>>>> {
        if s >= self.run.state_count() {
            return None;
        }
        self.game.as_ref().ok()?.render_colors(self.run.state(s))
    }

    fn moves(&self, s: u64) -> Vec<(u16, u64)> {
        if s >= self.analysed_states.min(self.run.state_count()) {
            return Vec::new();
        }
        self.run
            .out_edges(s)
            .filter(|e| e.target < self.analysed_states)
            .map(|e| (e.action, e.target))
            .collect()
    }

    fn bfs_depth(&self, s: u64) -> u32 {
        self.run.depth(s)
    }

    fn bfs_histogram(&self) -> Vec<u64> {
        let end = self.analysed_states.min(self.run.state_count());
        layer_histogram(self.run.layers(), end)
    }

    fn outcome(&self, s: u64) -> Option<u16> {
        self.run.outcome(s).filter(|&o| o != store::CUT_OUTCOME)
    }

    fn live_progress(&self) -> Option<LiveProgress> {
        Manifest::read(&self.dir).ok().map(|m| progress_of(&m))
    }

    fn run_dir(&self) -> Option<&Path> {
        Some(&self.dir)
    }

    fn run_key(&self) -> Option<RunKey> {
        Some(RunKey::of(self.run.identity()))
    }

    fn verify_work(&self) -> u64 {
        if self.store_verified {
            0
        } else {
            self.run.verify_work()
        }
    }

    fn verify(&self, tick: &mut dyn FnMut(&Path, u64) -> bool) -> Result<bool, Damage> {
        if self.store_verified {
            return Ok(true);
        }
        self.run.verify_watched(tick).map_err(|e| Damage {
            what: e.to_string(),
            remedy: format!(
                "A store cannot be repaired: explore the level again into it \
                 (`hsg explore LEVEL --store {} --force-new`; bookmarks are kept).",
                self.dir.display()
            ),
        })
    }
}

/// States per BFS layer among the first `end` states, from the layer start ids.
fn layer_histogram(layers: &[u64], end: u64) -> Vec<u64> {
    layers
        .iter()
        .enumerate()
        .map(|(i, &start)| {
            let next = layers.get(i + 1).copied().unwrap_or(end);
            next.min(end).saturating_sub(start)
        })
        .collect()
}

/// What the overview says about the run in `m` beside an analysis of `analysed`:
/// the run's identity and state, and a note when the analysis may not describe the
/// run as it is shown (see [`stale_note`]).
fn facts_of(dir: &Path, m: &Manifest, analysed: &Source, saved: bool) -> RunFacts {
    let id = &m.identity;
    RunFacts {
        game: id.game.clone(),
        level_title: id.level_title.clone(),
        options: id
            .options
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        run_state: run_state(m.status),
        stale_note: stale_note(dir, m, analysed, saved),
        action_labels: id.action_labels.clone(),
        outcome_names: id.outcome_names.clone(),
    }
}

/// Why an analysis of `analysed` may not describe the run in `dir` as its manifest
/// `m` has it (`saved`: the analysis is the one saved in `DIR/hsg/`): it is of an
/// earlier checkpoint (as [`hsg::currency`] tells), or the run is still being explored
/// and will have moved on by the time the user reads it.
pub fn stale_note(dir: &Path, m: &Manifest, analysed: &Source, saved: bool) -> Option<StaleNote> {
    let now = hsg::source_of_manifest(m);
    let states = |n: u64| hsg::currency::grouped(n);
    let currency = hsg::currency(analysed, &now);
    if let Currency::Earlier { analysed, now } = &currency {
        let advice = format!(
            "`hsg analyze {}` analyses the run as it is now.",
            dir.display()
        );
        let full = currency.warning(&advice)?;
        let short = format!(
            "Stale analysis: of {} of the run's {} states; 1 Overview says more",
            states(analysed.states),
            states(now.states)
        );
        return Some(StaleNote { full, short });
    }
    if m.status != RunStatus::Running {
        return None;
    }
    let not_saved = if saved { "" } else { ", and is not saved" };
    Some(StaleNote {
        full: format!(
            "The run is still being explored: this analysis is of its checkpoint at {} states{not_saved}. \
             Its figures will change as the run goes on; open the workbench again when the \
             run has finished.",
            states(analysed.states)
        ),
        short: format!(
            "Live run: the analysis is of its checkpoint at {} states",
            states(analysed.states)
        ),
    })
}

/// The overview of the run in `dir` from its `MANIFEST` and saved analysis summary
/// alone: milliseconds. `None` when there is no analysis or it is not of this run.
pub fn preview(dir: &Path) -> Option<Overview> {
    let m = Manifest::read(dir).ok()?;
    let summary = hsg::load_summary(dir).ok()?;
    if let Currency::Foreign { .. } = hsg::currency(&summary.source, &hsg::source_of_manifest(&m)) {
        return None;
    }
    let facts = facts_of(dir, &m, &summary.source, true);
    let bfs = layer_histogram(&m.layers, summary.states.min(m.states));
    Some(overview_of(&summary, &facts, bfs))
}

/// Opens the run in `dir` and its analysis, fast: the store's headers and frame
/// tables and the saved analysis's headers only, both read in place, so that the
/// first screen comes in milliseconds whatever the size of the run; the checksums and
/// the values are verified afterwards by [`super::Workbench::verify`], which the workbench
/// runs in the background. A run without an analysis of its own (none saved, or one of
/// another exploration of the directory) is verified and analysed first, and the
/// analysis saved unless another process is still exploring the run (it would be of
/// an earlier checkpoint at once). `phase` is told what is being done.
pub fn open_store(dir: &Path, phase: &dyn Fn(&str)) -> Result<StoreBench, TuiError> {
    phase("opening the store");
    let run = Run::open_lazy(dir)?;
    let id = run.identity().clone();
    let game = games::reload(&id.game, &id.level_text, &id.options);
    let (saved, saved_to_disk, store_verified) = match saved_analysis(&run, phase)? {
        Some(mapped) => (SavedData::Mapped(mapped), true, false),
        None => {
            let (analysis, saved) = analyse(&run, phase)?;
            (
                SavedData::Loaded(SavedAnalysis::from_analysis(&analysis)),
                saved,
                true,
            )
        }
    };
    let summary = saved.view().summary();
    let facts = facts_of(dir, run.manifest(), &summary.source, saved_to_disk);
    let states = RunStates {
        analysed_states: summary.states,
        game,
        run,
        store_verified,
        dir: dir.to_path_buf(),
    };
    Ok(AnalysisBench::new(saved, facts, states))
}

/// The analysis saved in the run's directory, mapped, when there is one of this run
/// (as it is now or of an earlier checkpoint); `None` when there is none or it is of
/// another exploration of the directory. Damage in what is read at once (the summary,
/// a header) is an error naming the file.
fn saved_analysis(run: &Run, phase: &dyn Fn(&str)) -> Result<Option<MappedAnalysis>, TuiError> {
    let dir = run.dir();
    if !dir
        .join(hsg::persist::FOLDER)
        .join(store::layout::ANALYSIS_SUMMARY)
        .exists()
    {
        return Ok(None);
    }
    phase("reading the analysis");
    let mapped = MappedAnalysis::open(dir).map_err(|e| TuiError::SavedAnalysis {
        path: dir.to_path_buf(),
        source: e,
    })?;
    match hsg::currency(&mapped.summary().source, &hsg::source_of(run)) {
        Currency::Foreign { why } => {
            phase(&format!(
                "the saved analysis is of another exploration of this directory ({why}): analysing again"
            ));
            Ok(None)
        }
        Currency::Current | Currency::Earlier { .. } => Ok(Some(mapped)),
    }
}

/// Verifies `run` (an analysis reads all of it: it must not read damage) and analyses
/// it, saving the analysis unless another process is still exploring the run. Returns
/// the analysis and whether it was saved.
fn analyse(run: &Run, phase: &dyn Fn(&str)) -> Result<(hsg::Analysis, bool), TuiError> {
    let total = run.verify_work().max(1);
    let mut done = 0u64;
    let mut shown = u64::MAX;
    run.verify_watched(&mut |_, n| {
        done += n;
        let percent = done * 100 / total;
        if percent != shown {
            shown = percent;
            phase(&format!(
                "verifying the store before analysing it ({percent}%)"
            ));
        }
        true
    })?;
    let opts = AnalyzeOptions::default();
    if hsg::may_save(run) {
        phase("analysing (no saved analysis yet)");
        Ok((hsg::analyze(run, &opts)?, true))
    } else {
        phase("analysing the latest checkpoint (the run is still being explored; not saved)");
        Ok((hsg::analyze_unsaved(run, &opts)?, false))
    }
}
