//! The workbench over a real run directory: the states come from `store::Run` (memory
//! mapped, read-only, never the sled database), the hyperstates from the analysis saved
//! in `DIR/hsg/` (computed and saved first if there is none), and pictures from the
//! game rebuilt out of the level text in the run's identity.

use super::analysis::{overview_of, AnalysisBench, RunFacts, StateSource};
use super::{LiveFigures, LiveProgress, Overview, RunState};
use crate::bookmarks::RunKey;
use crate::error::TuiError;
use hsg::summary::{HsgSummary, Source};
use hsg::{AnalyzeOptions, SavedAnalysis};
use model::Game;
use std::path::{Path, PathBuf};
use store::{Manifest, Run, RunStatus};

/// The states of a stored run.
pub struct RunStates {
    run: Run,
    /// The game, or why it could not be rebuilt from the run's identity.
    game: Result<Box<dyn Game>, games::GamesError>,
    analysed_states: u64,
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

/// What the overview says about the run in `m` beside the analysis `summary`, with a
/// note when the run has changed since it was analysed (as `hsg::is_current` tells).
fn facts_of(m: &Manifest, summary: &HsgSummary) -> RunFacts {
    let id = &m.identity;
    let now = Source {
        level_hash: id.level_hash.clone(),
        states: m.states,
        expanded: m.expanded,
        transitions: m.transitions,
    };
    let stale_note = (summary.source != now).then(|| {
        format!(
            "analysis covers {} states; the run now has {} (run `hsg analyze` to refresh)",
            summary.states, m.states
        )
    });
    RunFacts {
        game: id.game.clone(),
        level_title: id.level_title.clone(),
        options: id
            .options
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        run_state: run_state(m.status),
        stale_note,
        action_labels: id.action_labels.clone(),
        outcome_names: id.outcome_names.clone(),
    }
}

/// The overview of the run in `dir` from its `MANIFEST` and saved analysis summary
/// alone: milliseconds, where opening the store and loading the whole analysis take
/// seconds on a big run. `None` when there is no analysis or it does not match.
pub fn preview(dir: &Path) -> Option<Overview> {
    let m = Manifest::read(dir).ok()?;
    let summary = hsg::load_summary(dir).ok()?;
    let hash = &summary.source.level_hash;
    if (!hash.is_empty() && *hash != m.identity.level_hash) || summary.states > m.states {
        return None;
    }
    let facts = facts_of(&m, &summary);
    let bfs = layer_histogram(&m.layers, summary.states.min(m.states));
    Some(overview_of(&summary, &facts, bfs))
}

/// Opens the run in `dir` and its saved analysis, analysing first when none is saved.
/// `phase` is told what is being done, for the loading screen.
pub fn open_store(dir: &Path, phase: &dyn Fn(&str)) -> Result<StoreBench, TuiError> {
    phase("opening the store");
    // Checksums are verified by `hsg verify`; the workbench only needs consistent
    // headers and lengths, which keeps opening a large store fast.
    let run = Run::open_unverified(dir)?;
    let id = run.identity().clone();
    let game = games::reload(&id.game, &id.level_text, &id.options);
    let summary_path = dir
        .join(store::layout::ANALYSIS)
        .join(store::layout::ANALYSIS_SUMMARY);
    let saved = if summary_path.exists() {
        phase("loading the analysis");
        hsg::load(dir)?
    } else {
        phase("analysing (no saved analysis yet)");
        SavedAnalysis::from_analysis(&hsg::analyze(&run, &AnalyzeOptions::default())?)
    };
    check_match(dir, &saved, &run)?;
    let facts = facts_of(run.manifest(), &saved.summary);
    let states = RunStates {
        analysed_states: saved.summary.states,
        game,
        run,
        dir: dir.to_path_buf(),
    };
    Ok(AnalysisBench::new(saved, facts, states))
}

fn check_match(dir: &Path, saved: &SavedAnalysis, run: &Run) -> Result<(), TuiError> {
    let mismatch = |why: String| {
        Err(TuiError::Mismatch {
            path: dir.to_path_buf(),
            why,
        })
    };
    let hash = &saved.summary.source.level_hash;
    if !hash.is_empty() && *hash != run.identity().level_hash {
        return mismatch(format!(
            "analysed level {hash}, stored level {}",
            run.identity().level_hash
        ));
    }
    if saved.summary.states > run.state_count() {
        return mismatch(format!(
            "{} states analysed but only {} stored",
            saved.summary.states,
            run.state_count()
        ));
    }
    Ok(())
}
