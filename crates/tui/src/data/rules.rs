//! Rule coverage and hangs of a PuzzleScript run for the workbench's rules overlay:
//! the run's states expanded again by the engine with its firing record on
//! (`puzzlescript::coverage`, through `games::puzzlescript`), on a worker thread,
//! the first time the overlay opens.

use games::puzzlescript::coverage::{self, Control, Stored};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

/// The most hangs the overlay lists with their inputs from the start.
pub const HANGS_SHOWN: usize = 20;

/// One rule line and where it fired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleRow {
    /// Its line in the game file.
    pub line: usize,
    /// The rule as written (case-folded, comments removed).
    pub text: String,
    /// The reachable states in which it fired.
    pub states: u64,
    /// Of those, the states that can still win (or whose future is unknown).
    pub live: u64,
    /// What stands out: `never`, `lost only`, `start only`, `decorative`, or nothing.
    pub note: &'static str,
}

/// A (state, input) whose `again` chain never ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HangRow {
    /// The state.
    pub state: u64,
    /// The inputs from the start, the last one hanging.
    pub inputs: Vec<String>,
}

/// What the rules overlay shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleReport {
    /// Every rule line, in the order written.
    pub rules: Vec<RuleRow>,
    /// The states expanded again.
    pub surveyed: u64,
    /// False for a partial run: counts are lower bounds.
    pub complete: bool,
    /// The first hangs (at most [`HANGS_SHOWN`]).
    pub hangs: Vec<HangRow>,
    /// Every hang found.
    pub hang_count: u64,
}

/// A run's states as a survey reads them.
pub struct Source<'a> {
    /// The game's kind, canonical level text and options (`games::reload`'s).
    pub kind: &'a str,
    /// The canonical level text.
    pub level_text: &'a str,
    /// The run's options.
    pub options: &'a std::collections::BTreeMap<String, String>,
    /// The states of the run, as `coverage::Stored` wants them.
    pub stored: Stored<'a>,
    /// The action labels.
    pub labels: &'a [String],
    /// The actions of a shortest path from the root to a state.
    pub path: &'a dyn Fn(u64) -> Vec<u16>,
    /// False for a partial run.
    pub complete: bool,
}

/// The survey of `source`: `None` when the run is not PuzzleScript, else the report
/// or why it could not be made.
pub fn survey(source: &Source<'_>) -> Option<Result<RuleReport, String>> {
    let game =
        match games::puzzlescript::stored_engine(source.kind, source.level_text, source.options) {
            Ok(Some(game)) => game,
            Ok(None) => return None,
            Err(e) => return Some(Err(e.to_string())),
        };
    let done = AtomicU64::new(0);
    let control = Control {
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        stop: Arc::new(AtomicBool::new(false)),
        done: &done,
    };
    let found = match coverage::survey(&game, &source.stored, &control) {
        Ok(c) => c,
        Err(e) => return Some(Err(e.to_string())),
    };
    let label = |a: u16| {
        source
            .labels
            .get(usize::from(a))
            .cloned()
            .unwrap_or_else(|| format!("#{a}"))
    };
    let rules = found
        .rules
        .iter()
        .map(|r| RuleRow {
            line: r.rule.line,
            text: r.rule.text.clone(),
            states: r.states,
            live: r.live_states,
            note: note(r),
        })
        .collect();
    let hangs = found
        .hangs
        .iter()
        .take(HANGS_SHOWN)
        .map(|h| {
            let mut inputs: Vec<String> = (source.path)(h.state).into_iter().map(label).collect();
            inputs.push(label(h.action));
            HangRow {
                state: h.state,
                inputs,
            }
        })
        .collect();
    Some(Ok(RuleReport {
        rules,
        surveyed: found.surveyed,
        complete: source.complete,
        hangs,
        hang_count: found.hang_count,
    }))
}

fn note(r: &coverage::RuleCount) -> &'static str {
    if r.rule.decorative {
        "decorative"
    } else if r.never_fires() {
        "never"
    } else if r.fires_only_when_lost() {
        "lost only"
    } else if r.at_start && r.states == 0 {
        "start only"
    } else {
        ""
    }
}
