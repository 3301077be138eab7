//! The workbench's whole view of an analysed run: the narrow [`Workbench`] trait that
//! every screen reads, and the plain values it returns.
//!
//! Screens never touch the store or the analysis directly. A backend answers questions
//! about one hyperstate (or one visible table row) at a time, so drawing stays
//! proportional to what is on screen; whole-graph questions (sorting, path searches,
//! neighbourhoods, text search) are provided methods built on the small required core
//! and are meant to run on worker threads.

pub mod analysis;
pub mod big_fixture;
pub mod fixture;
pub mod queries;
pub mod rules;
pub mod run;
pub mod win_search;

pub use hsg::{LiveFigures, Tag};
pub use queries::{Neighbourhood, Order, SearchHit, SortKey};
pub use win_search::WinSearch;

use crate::bookmarks::RunKey;
use std::path::Path;

/// Where the exploration of the run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// Every reachable state was expanded.
    Complete,
    /// Finished under a limit: some states were never expanded.
    Partial,
    /// Stopped on request; resumable.
    Interrupted,
    /// A writer is (or was, until it died) exploring.
    Running,
    /// An in-memory graph (tests and fixtures), not a store.
    InMemory,
}

impl RunState {
    /// A short lower-case name for the overview.
    pub fn name(self) -> &'static str {
        match self {
            RunState::Complete => "complete",
            RunState::Partial => "partial",
            RunState::Interrupted => "interrupted",
            RunState::Running => "running",
            RunState::InMemory => "in memory",
        }
    }
}

/// Progress published by the exploring process.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiveProgress {
    /// Where the run stands now.
    pub state: Option<RunState>,
    /// States stored.
    pub states: u64,
    /// States expanded.
    pub expanded: u64,
    /// Transitions stored.
    pub transitions: u64,
    /// Current BFS depth.
    pub depth: u32,
    /// Average exploration rate.
    pub states_per_sec: f64,
    /// Seconds the writer has been running.
    pub elapsed_secs: f64,
    /// What the writer is doing.
    pub phase: String,
    /// The exploration's live hyperstate figures, when it maintains them
    /// (`hsg explore --live-hsg` or `--hsg-depth`), or why they cannot be read.
    pub live_hsg: Option<Result<LiveFigures, String>>,
}

/// The facts of the overview screen.
#[derive(Clone, Debug, PartialEq)]
pub struct Overview {
    /// Game family.
    pub game: String,
    /// Level title.
    pub level_title: String,
    /// Level hash (identifies the level text).
    pub level_hash: String,
    /// Exploration options that change the result.
    pub options: Vec<(String, String)>,
    /// Where the exploration stood when the workbench opened.
    pub run_state: RunState,
    /// States, expanded states and transitions that were analysed.
    pub states: u64,
    /// Expanded states that were analysed.
    pub expanded: u64,
    /// Transitions that were analysed.
    pub transitions: u64,
    /// Hyperstates.
    pub hyperstates: u64,
    /// Critical actions (transitions between hyperstates).
    pub critical_actions: u64,
    /// `1 - hyperstates / states`.
    pub compression: f64,
    /// States never expanded and not terminal.
    pub open_states: u64,
    /// Why the analysis may not describe the run as it is shown, if it may not.
    pub stale_note: Option<StaleNote>,
    /// Name of the target outcome.
    pub target: String,
    /// Hyperstates per tag, indexed by tag code.
    pub tags: [u64; 5],
    /// States per BFS depth.
    pub bfs_depths: Vec<u64>,
    /// Hyperstates per shortest HSG depth from the root.
    pub hsg_depths: Vec<u64>,
    /// Headroom (in hyperstates) in ten buckets of width 0.1, when computed.
    pub headroom: Option<Vec<u64>>,
    /// Why headroom is missing, if it is.
    pub headroom_note: Option<String>,
    /// The root hyperstate and its tag.
    pub root: u64,
    /// Tag of the root.
    pub root_tag: Tag,
    /// Shortest win from state 0 in actions.
    pub shortest_win_actions: Option<u64>,
    /// Shortest win from the root in critical actions.
    pub shortest_win_critical: Option<u32>,
    /// Loss distances along the ideal path, root first (`None`: no loss reachable).
    pub ideal_profile: Vec<Option<u32>>,
    /// Largest finite loss distance on the ideal path.
    pub breadth: Option<u32>,
}

/// Why an analysis may not describe the run it is shown with: said in full on the
/// overview, and in a line on every other screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleNote {
    /// The whole explanation, with what to do.
    pub full: String,
    /// One short sentence for the banner of the other screens.
    pub short: String,
}

/// Damage found by [`Workbench::verify`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    /// What is damaged and where: the file, and the block and byte offsets when known.
    pub what: String,
    /// What brings back a sound run, as a command where there is one.
    pub remedy: String,
}

/// One row of the hyperstate table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    /// Hyperstate number.
    pub id: u64,
    /// Tag.
    pub tag: Tag,
    /// Member states.
    pub size: u64,
    /// Shortest depth from the root in critical actions.
    pub depth: Option<u32>,
    /// Headroom in hyperstates.
    pub headroom: Option<f32>,
    /// Fewest critical actions to a loss.
    pub loss_distance: Option<u32>,
    /// Fewest critical actions to a win.
    pub win_distance: Option<u32>,
}

/// Everything the details pane shows about one hyperstate.
#[derive(Clone, Debug, PartialEq)]
pub struct Details {
    /// The table values.
    pub row: Row,
    /// Smallest member state id (the first one BFS met).
    pub first_state: u64,
    /// BFS depth of the first member state.
    pub bfs_depth: u32,
    /// Headroom in states.
    pub headroom_states: Option<f32>,
    /// One-step headroom.
    pub one_step_headroom: Option<f32>,
    /// Critical actions (SSG transitions) out of it, counted with multiplicity.
    pub out_critical: u64,
    /// Critical actions into it, counted with multiplicity.
    pub in_critical: u64,
    /// HSG edges out of it: distinct successor hyperstates.
    pub out_edges: u64,
    /// HSG edges into it: distinct predecessor hyperstates.
    pub in_edges: u64,
    /// Labelled HSG edges out of it: distinct `(successor, action)` pairs.
    pub out_labelled: u64,
    /// Labelled HSG edges into it: distinct `(predecessor, action)` pairs.
    pub in_labelled: u64,
    /// True when a member has the target outcome.
    pub contains_target: bool,
    /// True when it is a state that was never expanded.
    pub open: bool,
}

/// A labelled critical action seen from one end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CriticalAction {
    /// Action label.
    pub action: String,
    /// The hyperstate at the other end (target for outgoing, source for incoming).
    pub other: u64,
    /// Tag of the other end.
    pub other_tag: Tag,
    /// Number of state transitions the action stands for.
    pub multiplicity: u64,
}

/// The first items of a possibly long list, with the list's length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listing<T> {
    /// The items returned.
    pub items: Vec<T>,
    /// How many items the whole list has.
    pub total: u64,
}

impl<T> Default for Listing<T> {
    fn default() -> Self {
        Listing {
            items: Vec::new(),
            total: 0,
        }
    }
}

/// A move out of a member state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    /// Action label.
    pub action: String,
    /// State reached.
    pub target_state: u64,
    /// Its hyperstate.
    pub target_hyperstate: u64,
    /// Tag of that hyperstate.
    pub target_tag: Tag,
}

/// One member state of a hyperstate, drawn by the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// State id.
    pub state: u64,
    /// Position among the hyperstate's members.
    pub index: u64,
    /// BFS depth.
    pub bfs_depth: u32,
    /// The game's picture of the state.
    pub text: String,
    /// The colour of each character of `text`, line by line, when the game has colours.
    pub colors: Option<Vec<Vec<Option<model::Rgb>>>>,
    /// Outcome name if the state is terminal.
    pub outcome: Option<String>,
    /// Its moves; those staying inside the hyperstate are the reversible ones.
    pub moves: Vec<Move>,
}

/// The questions the screens ask about an analysed run.
///
/// Required methods answer about one hyperstate, state or row and must be cheap
/// (proportional to a degree or a page); provided methods walk the graph and belong on
/// worker threads.
pub trait Workbench: Send + Sync {
    /// The overview facts (cheap: from the saved summary).
    fn overview(&self) -> Overview;
    /// Number of hyperstates.
    fn hyperstate_count(&self) -> u64;
    /// Number of analysed states.
    fn state_count(&self) -> u64;
    /// The root hyperstate (that of state 0).
    fn root(&self) -> u64;
    /// Hyperstates of the ideal path, root first.
    fn ideal_path(&self) -> Vec<u64>;
    /// The table row of hyperstate `h`.
    fn row(&self, h: u64) -> Option<Row>;
    /// The details of hyperstate `h`.
    fn details(&self, h: u64) -> Option<Details>;
    /// Calls `f` for every distinct successor of `h`.
    fn for_each_successor(&self, h: u64, f: &mut dyn FnMut(u64));
    /// Calls `f` for every distinct predecessor of `h`.
    fn for_each_predecessor(&self, h: u64, f: &mut dyn FnMut(u64));
    /// The first `limit` labelled critical actions out of `h`.
    fn critical_out(&self, h: u64, limit: usize) -> Listing<CriticalAction>;
    /// The first `limit` labelled critical actions into `h`.
    fn critical_in(&self, h: u64, limit: usize) -> Listing<CriticalAction>;
    /// Member number `index` of `h` (members are sorted by state id).
    fn member(&self, h: u64, index: u64) -> Option<Member>;
    /// The hyperstate containing state `s`.
    fn hyperstate_of_state(&self, s: u64) -> Option<u64>;
    /// The game's picture of state `s`.
    fn state_text(&self, s: u64) -> Option<String>;
    /// State `s` as a member of its hyperstate (picture, outcome, moves): what play
    /// mode shows of the state it is in.
    fn state_member(&self, s: u64) -> Option<Member>;
    /// The fewest actions from state `s` to a win, meeting at most `budget` states
    /// (slow: a search over the states).
    fn actions_to_win(&self, s: u64, budget: u64) -> WinSearch;

    /// Re-reads the progress the exploring process publishes (stores only).
    fn live_progress(&self) -> Option<LiveProgress> {
        None
    }
    /// True when another process may still be exploring, so progress is worth polling.
    fn is_live(&self) -> bool {
        false
    }
    /// The run directory, where bookmarks and the layout cache live (stores only).
    fn run_dir(&self) -> Option<&Path> {
        None
    }
    /// What the run's state ids depend on, which its bookmarks are tied to.
    fn run_key(&self) -> Option<RunKey> {
        None
    }
    /// The work [`Workbench::verify`] reports in all (bytes and values read).
    fn verify_work(&self) -> u64 {
        0
    }
    /// Verifies every checksum (and every value a lazy open left unchecked) of the
    /// files this workbench reads from, calling `tick(file, units)` as it goes; `tick`
    /// returning false stops it (`Ok(false)`). Slow (a pass over every file): the
    /// runtime calls it on a thread of its own while the user browses. The error is
    /// the first damage found, naming the file and where in it.
    fn verify(&self, _tick: &mut dyn FnMut(&Path, u64) -> bool) -> Result<bool, Damage> {
        Ok(true)
    }

    /// Rule coverage and hangs (slow: every state expanded again): `None` when the
    /// run is not a PuzzleScript run, else the report or why it could not be made.
    fn rule_report(&self) -> Option<Result<rules::RuleReport, String>> {
        None
    }

    /// Hyperstate ids in table order (slow: whole graph).
    fn order(&self, sort: SortKey, descending: bool, filter: Option<Tag>) -> Order {
        queries::order(self, sort, descending, filter)
    }
    /// Shortest path of hyperstates from the root to `h` (slow).
    fn path_from_root(&self, h: u64) -> Vec<u64> {
        queries::path_from_root(self, h)
    }
    /// Shortest path from `h` to a win (empty when none is reachable).
    fn path_to_win(&self, h: u64) -> Vec<u64> {
        queries::path_down(self, h, |r| r.win_distance)
    }
    /// Shortest path from `h` to a loss (empty when none is reachable).
    fn path_to_loss(&self, h: u64) -> Vec<u64> {
        queries::path_down(self, h, |r| r.loss_distance)
    }
    /// The next hyperstate after `from` matching `query` (slow).
    fn search(&self, query: &str, from: u64) -> SearchHit {
        queries::search(self, query, from)
    }
    /// The hyperstates within `radius` critical actions of `center` (either way).
    fn neighbourhood(&self, center: u64, radius: u32, max_nodes: usize) -> Neighbourhood {
        queries::neighbourhood(self, center, radius, max_nodes)
    }
}

#[cfg(test)]
mod run_tests;
#[cfg(test)]
mod tests;
