//! The application state and its one event enum. Everything the screens show lives in
//! [`App`]; events change it, `ui::draw(&App)` only reads it. Slow work is described
//! as [`Job`]s that the event loop runs on worker threads (tests run them inline) and
//! whose results come back as [`Event::Done`].

mod actions;
mod goto;
pub mod integrity;
pub mod jobs;
mod mouse;
mod nav;

pub use integrity::{verify_now, Integrity, VerifyStatus};
pub use jobs::{execute, Done, GraphData, Job};

use crate::bookmarks::Bookmarks;
use crate::data::{
    CriticalAction, Details, Listing, LiveProgress, Member, Order, Overview, SortKey, Tag,
    Workbench,
};
use crate::keys::{action_for, Action, Context};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::VecDeque;
use std::sync::Arc;

/// Everything that can happen to the application.
pub enum Event {
    /// A key was pressed.
    Key(KeyEvent),
    /// The mouse was clicked or its wheel turned.
    Mouse(crossterm::event::MouseEvent),
    /// The terminal was resized to (columns, rows).
    Resize(u16, u16),
    /// Time passed (drives the spinner).
    Tick,
    /// The loader reports what it is doing.
    Phase(String),
    /// The loader read the overview ahead of the rest of the data.
    Preview(Box<Overview>),
    /// The run and its analysis are ready, or could not be opened.
    Loaded(Result<Arc<dyn Workbench>, String>),
    /// A job finished.
    Done(Done),
    /// The exploring process published new progress.
    Progress(LiveProgress),
    /// A job failed (a bug: the message of its panic).
    Failed(String),
    /// The background verification of the data of generation `gen` reports.
    Verify {
        /// Which loaded data it verifies (a refresh starts a new generation).
        gen: u64,
        /// What it found.
        status: VerifyStatus,
    },
}

/// The screens, in tab order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    /// Facts and histograms.
    Overview,
    /// The hyperstate table with details, critical actions and members.
    Browser,
    /// Root path, shortest win and ideal path.
    Paths,
    /// The HSG map.
    Graph,
}

impl Screen {
    /// Every screen, in tab order.
    pub const ALL: [Screen; 4] = [
        Screen::Overview,
        Screen::Browser,
        Screen::Paths,
        Screen::Graph,
    ];

    /// Tab title.
    pub fn title(self) -> &'static str {
        match self {
            Screen::Overview => "Overview",
            Screen::Browser => "Browser",
            Screen::Paths => "Paths",
            Screen::Graph => "Graph",
        }
    }

    fn index(self) -> usize {
        Screen::ALL.iter().position(|&s| s == self).unwrap_or(0)
    }
}

/// The focused pane of the browser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    /// The hyperstate table.
    Table,
    /// Outgoing critical actions.
    Out,
    /// Incoming critical actions.
    In,
    /// Member states.
    Members,
}

impl Pane {
    const ORDER: [Pane; 4] = [Pane::Table, Pane::Out, Pane::In, Pane::Members];

    fn step(self, forward: bool) -> Pane {
        let i = Pane::ORDER.iter().position(|&p| p == self).unwrap_or(0);
        let n = Pane::ORDER.len();
        Pane::ORDER[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }
}

/// What a text prompt is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptKind {
    /// A search query.
    Search,
    /// A bookmark note.
    Note,
    /// A hyperstate or state to go to (`:`).
    Goto,
}

/// What is drawn over the screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Overlay {
    /// Nothing.
    None,
    /// The key help, showing this page.
    Help(usize),
    /// The bookmark list with its cursor.
    Bookmarks(usize),
    /// A text prompt.
    Prompt(PromptKind, String),
    /// The browser's member board over the whole body.
    Board,
    /// Rule coverage and hangs (PuzzleScript), scrolled to this line.
    Rules(usize),
}

/// Where the rules overlay's report stands.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum RulesView {
    /// Not asked for yet.
    #[default]
    NotAsked,
    /// Being computed on a worker.
    Computing,
    /// Computed.
    Ready(Arc<crate::data::rules::RuleReport>),
    /// Not available: why (another game, or the survey failed).
    Unavailable(String),
}

/// How to draw: colours and character set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewOptions {
    /// Plain ASCII instead of Unicode symbols.
    pub ascii: bool,
    /// Colours (off with `NO_COLOR`).
    pub colour: bool,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions {
            ascii: false,
            colour: true,
        }
    }
}

/// The selected hyperstate, read once per selection change.
#[derive(Clone, Debug, PartialEq)]
pub struct Focus {
    /// The hyperstate.
    pub h: u64,
    /// Its details.
    pub details: Option<Details>,
    /// Outgoing critical actions (first ones).
    pub out: Listing<CriticalAction>,
    /// Incoming critical actions (first ones).
    pub inc: Listing<CriticalAction>,
    /// The member on show.
    pub member: Option<Member>,
}

/// The hyperstate table's order and cursor.
#[derive(Clone, Debug)]
pub struct TableView {
    /// Row order (the identity until a sort or filter is asked for).
    pub order: Arc<Order>,
    /// The sort asked for (the order may still be computing).
    pub sort: SortKey,
    /// Descending sort asked for.
    pub descending: bool,
    /// Tag filter asked for.
    pub filter: Option<Tag>,
    /// Row of the cursor.
    pub cursor: u64,
}

/// Names of the three paths, in the order of [`PathsView::lists`].
pub const PATH_NAMES: [&str; 3] = ["root to here", "shortest win", "ideal path"];

/// The paths screen: paths computed for an anchor hyperstate.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathsView {
    /// The hyperstate the paths were (or are being) computed for.
    pub anchor: Option<u64>,
    /// True once the paths of the anchor arrived.
    pub ready: bool,
    /// Root to anchor, anchor to nearest win, the ideal path.
    pub lists: [Vec<u64>; 3],
    /// The focused path.
    pub which: usize,
    /// Cursor in each path.
    pub cursor: [usize; 3],
}

/// The graph view's data and camera.
#[derive(Clone, Debug)]
pub struct GraphView {
    /// Neighbourhood radius in critical actions.
    pub radius: u32,
    /// Zoom factor (1 fits the drawing).
    pub zoom: f32,
    /// Camera offset in fractions of the drawing's extent.
    pub pan: (f32, f32),
    /// The nodes and layout on show.
    pub data: Option<Arc<GraphData>>,
    /// The (center, radius) the data was asked for.
    pub wanted: Option<(u64, u32)>,
}

/// Job generations: a result whose generation is not the latest is dropped.
#[derive(Clone, Copy, Debug, Default)]
struct Generations {
    order: u64,
    paths: u64,
    search: u64,
    graph: u64,
    play: u64,
    rules: u64,
}

/// The whole application state.
pub struct App {
    /// Colours and character set.
    pub view: ViewOptions,
    /// The data, once loaded.
    pub bench: Option<Arc<dyn Workbench>>,
    /// What the loader is doing.
    pub phase: String,
    /// Why the run could not be opened.
    pub fatal: Option<String>,
    /// The overview facts.
    pub overview: Option<Overview>,
    /// Latest published progress of an exploring process.
    pub live: Option<LiveProgress>,
    /// The screen on show.
    pub screen: Screen,
    /// What is drawn over it.
    pub overlay: Overlay,
    /// The browser's focused pane.
    pub pane: Pane,
    /// The selected hyperstate.
    pub selected: u64,
    /// Hyperstates to go back to, latest last.
    pub back: Vec<u64>,
    /// Hyperstates to go forward to, latest last.
    pub forward: Vec<u64>,
    /// The selected hyperstate's data.
    pub focus: Option<Focus>,
    /// Selected outgoing critical action.
    pub out_cursor: usize,
    /// Selected incoming critical action.
    pub in_cursor: usize,
    /// Member on show.
    pub member_index: u64,
    /// The table.
    pub table: TableView,
    /// The paths screen.
    pub paths: PathsView,
    /// The graph view.
    pub graph: GraphView,
    /// Bookmarks.
    pub bookmarks: Bookmarks,
    /// Last search query.
    pub last_search: Option<String>,
    /// The status line message.
    pub status: String,
    /// Terminal size (columns, rows).
    pub size: (u16, u16),
    /// Jobs queued or running.
    pub pending: usize,
    /// Ticks seen (spinner frame).
    pub tick: u64,
    /// Set when the user quits.
    pub quit: bool,
    /// Where the verification of the data on show stands.
    pub integrity: Integrity,
    verify_gen: u64,
    verify_wanted: Option<u64>,
    /// Play mode, while it is open.
    pub play: Option<crate::play::Play>,
    /// The rules overlay's report.
    pub rules: RulesView,
    reload_wanted: bool,
    jobs: VecDeque<Job>,
    gens: Generations,
    /// The screen last asked for while the workbench was still loading, opened
    /// once it has loaded.
    screen_asked: Option<u8>,
    /// Play mode or the bookmark list, asked for while loading: opened once loaded.
    mode_asked: Option<Action>,
}

/// Most critical actions read for the focus lists.
pub const ACTION_LIMIT: usize = 500;

impl App {
    /// A fresh application, loading.
    pub fn new(view: ViewOptions, size: (u16, u16)) -> App {
        App {
            view,
            bench: None,
            phase: "starting".into(),
            fatal: None,
            overview: None,
            live: None,
            screen: Screen::Overview,
            overlay: Overlay::None,
            pane: Pane::Table,
            selected: 0,
            back: Vec::new(),
            forward: Vec::new(),
            focus: None,
            out_cursor: 0,
            in_cursor: 0,
            member_index: 0,
            table: TableView {
                order: Arc::new(Order::identity(0)),
                sort: SortKey::Id,
                descending: false,
                filter: None,
                cursor: 0,
            },
            paths: PathsView::default(),
            graph: GraphView {
                radius: crate::DEFAULT_RADIUS,
                zoom: 1.0,
                pan: (0.0, 0.0),
                data: None,
                wanted: None,
            },
            bookmarks: Bookmarks::default(),
            last_search: None,
            status: String::new(),
            size,
            pending: 0,
            tick: 0,
            quit: false,
            integrity: Integrity::NothingToVerify,
            verify_gen: 0,
            verify_wanted: None,
            play: None,
            reload_wanted: false,
            jobs: VecDeque::new(),
            rules: RulesView::NotAsked,
            gens: Generations::default(),
            screen_asked: None,
            mode_asked: None,
        }
    }

    /// Applies one event.
    pub fn on_event(&mut self, event: Event) {
        match event {
            Event::Key(key) => self.on_key(key),
            Event::Mouse(m) => self.on_mouse(m),
            Event::Resize(w, h) => self.size = (w, h),
            Event::Tick => self.tick = self.tick.wrapping_add(1),
            Event::Phase(p) => self.phase = p,
            // The loaded data's own overview wins if it came first.
            Event::Preview(o) if self.bench.is_none() => self.overview = Some(*o),
            Event::Preview(_) => {}
            Event::Loaded(Ok(bench)) => self.on_loaded(bench),
            Event::Loaded(Err(message)) => self.fatal = Some(message),
            // Nothing computed from a run found damaged is shown.
            Event::Done(_) | Event::Progress(_) if self.damage().is_some() => {}
            Event::Done(done) => self.on_done(done),
            Event::Progress(p) => self.live = Some(p),
            Event::Verify { gen, status } => self.on_verify(gen, status),
            Event::Failed(why) => {
                self.pending = self.pending.saturating_sub(1);
                self.status = format!("background work failed: {why}");
            }
        }
    }

    /// The next job to run, if any.
    pub fn take_job(&mut self) -> Option<Job> {
        while let Some(job) = self.jobs.pop_front() {
            // A search for the nearest win from a state play has already left is
            // dropped unrun: moving fast must not queue a search per move.
            match job {
                Job::PlayWin { gen, .. } if gen != self.gens.play => {
                    self.pending = self.pending.saturating_sub(1)
                }
                job => return Some(job),
            }
        }
        None
    }

    /// True while work runs (the spinner turns).
    pub fn busy(&self) -> bool {
        self.pending > 0
            || (self.bench.is_none() && self.fatal.is_none() && self.damage().is_none())
    }

    /// The key context of what has the keyboard.
    pub fn context(&self) -> Context {
        match (&self.overlay, self.screen) {
            (Overlay::Prompt(..), _) => Context::Prompt,
            (Overlay::Bookmarks(_), _) => Context::Bookmarks,
            (Overlay::Rules(_), _) => Context::Rules,
            _ if self.play.is_some() => Context::Play,
            (_, Screen::Browser) => Context::Browser,
            (_, Screen::Paths) => Context::Paths,
            (_, Screen::Graph) => Context::Graph,
            (_, Screen::Overview) => Context::Global,
        }
    }

    fn queue(&mut self, job: Job) {
        self.pending += 1;
        self.jobs.push_back(job);
    }

    /// Queues `job` for a worker (for the modes outside this module).
    pub(crate) fn queue_job(&mut self, job: Job) {
        self.queue(job);
    }

    /// Opens the rules overlay, asking a worker for the report the first time.
    pub(crate) fn open_rules(&mut self) {
        self.overlay = Overlay::Rules(0);
        if self.rules == RulesView::NotAsked {
            self.gens.rules += 1;
            self.rules = RulesView::Computing;
            self.queue(Job::Rules {
                gen: self.gens.rules,
            });
        }
    }

    /// A new generation for play mode's jobs; older results are dropped.
    pub(crate) fn next_play_gen(&mut self) -> u64 {
        self.gens.play += 1;
        self.gens.play
    }

    fn on_key(&mut self, key: KeyEvent) {
        if let Some(plain) = escape_then_key(&key, self.context()) {
            self.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
            return self.on_key(plain);
        }
        if let Overlay::Prompt(_, text) = &mut self.overlay {
            let plain = !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
            match key.code {
                KeyCode::Char(ch) if plain => return text.push(ch),
                KeyCode::Backspace => {
                    text.pop();
                    return;
                }
                _ => {}
            }
        }
        let Some(action) = action_for(&key, self.context()) else {
            return;
        };
        if let Overlay::Help(page) = self.overlay {
            // Movement keys turn the pages; any other bound key closes the help, so
            // quitting from it takes a second `q`.
            self.overlay = match action {
                Action::Down | Action::PageDown => Overlay::Help(page + 1),
                Action::Up | Action::PageUp => Overlay::Help(page.saturating_sub(1)),
                _ => Overlay::None,
            };
            return;
        }
        // A message answers the key that caused it; the next key gives the footer
        // back to the key hints.
        self.status.clear();
        if self.bench.is_none() {
            // The preview of the overview shows while the rest loads, and a
            // screen key pressed then was once lost: it now opens its screen
            // as soon as the workbench is ready.
            match action {
                Action::Quit => self.quit = true,
                Action::Help => self.overlay = Overlay::Help(0),
                Action::Screen(i) => self.screen_asked = Some(i),
                Action::Play | Action::BookmarkList => self.mode_asked = Some(action),
                // After damage or a failed open, the run may have been put right.
                Action::Reload if self.damage().is_some() || self.fatal.is_some() => self.reload(),
                _ => {}
            }
            return;
        }
        self.apply(action);
    }

    fn on_loaded(&mut self, bench: Arc<dyn Workbench>) {
        self.overview = Some(bench.overview());
        self.table.order = Arc::new(Order::identity(bench.hyperstate_count()));
        self.selected = bench.root();
        let key = bench.run_key();
        match Bookmarks::open(bench.run_dir().zip(key.as_ref())) {
            Ok(b) => {
                if b.notice().is_some() {
                    self.status = "about the bookmarks: ' (the bookmark list) says more".into();
                } else if b.hidden() > 0 {
                    self.status = format!(
                        "{} bookmarks of another exploration of this directory (other level or options) are hidden",
                        b.hidden()
                    );
                }
                self.bookmarks = b;
            }
            Err(e) => {
                // Changes are refused rather than kept in memory as if saved.
                self.status = format!("bookmarks unavailable: {e}");
                self.bookmarks = Bookmarks::unavailable(format!("bookmarks unavailable: {e}"));
            }
        }
        if bench.is_live() {
            self.status = "another process is exploring this run: progress refreshes live".into();
        }
        self.want_verification(bench.as_ref());
        self.bench = Some(bench);
        self.phase = "ready".into();
        self.select(self.selected);
        match self.screen_asked.take() {
            Some(i) => self.apply(Action::Screen(i)),
            None => self.request_screen_data(),
        }
        if let Some(action) = self.mode_asked.take() {
            self.apply(action);
        }
    }

    fn on_done(&mut self, done: Done) {
        self.pending = self.pending.saturating_sub(1);
        match done {
            Done::Order { gen, order } if gen == self.gens.order => {
                self.table.order = Arc::new(order);
                self.on_order();
            }
            Done::Paths { gen, anchor, lists } if gen == self.gens.paths => {
                self.on_paths(anchor, lists)
            }
            Done::Search { gen, hit } if gen == self.gens.search => self.on_search(hit),
            Done::Graph { gen, data } if gen == self.gens.graph => {
                self.graph.data = Some(Arc::new(data));
            }
            Done::PlayWin { gen, state, found } if gen == self.gens.play => {
                self.on_win_distance(state, found)
            }
            Done::Rules { gen, report } if gen == self.gens.rules => {
                self.rules = match report {
                    None => RulesView::Unavailable(
                        "rule coverage is PuzzleScript's: this run is another game".into(),
                    ),
                    Some(Ok(r)) => RulesView::Ready(Arc::new(r)),
                    Some(Err(e)) => RulesView::Unavailable(e),
                };
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod refusal_tests;
#[cfg(test)]
mod tests;

/// The plain key of an unbound Alt key, which is Escape and that key typed quickly: the
/// terminal sends Alt-q as the bytes of Escape then `q`, and over SSH the two arrive in
/// one read when the user typed them apart. Bound Alt keys keep their meaning.
fn escape_then_key(key: &KeyEvent, context: Context) -> Option<KeyEvent> {
    if !key.modifiers.contains(KeyModifiers::ALT) || action_for(key, context).is_some() {
        return None;
    }
    let mut plain = *key;
    plain.modifiers.remove(KeyModifiers::ALT);
    Some(plain)
}
