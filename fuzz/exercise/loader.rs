//! What the workbench-loader fuzz target and its smoke test do with one input: replace
//! one file of a small explored and analysed run (a Sokoban level), then do what
//! `hsg tui` does with it: the preview, the fast open (`tui::store_loader`: the store and
//! the saved analysis mapped without reading them through), the first screens drawn
//! from that data and the background verification, on a ratatui `TestBackend` at 80x24.
//! The loader may refuse the run (an error) and the verification may find damage, but
//! nothing may panic, and damage found must be named and every figure of the run
//! dropped from the screens.
//!
//! Input: byte 0 picks the file (`% FILES.len()`) and how the rest is used (`/
//! FILES.len() % 2`): raw (the whole file, header included), or behind valid checksums
//! (a store data file with its sidecar and the manifest's commit recomputed, a
//! manifest's body behind a valid prefix, an analysis file behind a valid header, the
//! analysis summary with its `summary.json.xxh3`), as `store.rs` and `analysis.rs` do.
//!
//! The workbench runs its loader and its verification on threads of their own; here
//! they run one after the other on the calling thread, as the workbench's unit tests
//! run them, so that a panic is not caught and turned into a message on screen.
//!
//! The run directory is read-only (its permissions; the harness writes the files
//! themselves, whose permissions allow it), as a run from someone else may be: the
//! workbench then opens no bookmarks database (the `bookmarks` target damages that), which
//! keeps each input to a fraction of a millisecond of file work.

// A test binary that includes two of these harnesses includes this file twice.
#[allow(clippy::duplicate_mod)]
#[path = "checksums.rs"]
mod checksums;

use checksums::{
    analysis_header, block_sums, manifest_bytes, recommit, summary_sum, write, CommitAt, HEADER,
    MANIFEST_PREFIX,
};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use model::Game;
use ratatui::{backend::TestBackend, Terminal};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use store::{Edge, OpenMode, Progress, RunIdentity, RunStatus, RunWriter};
use tui::app::{execute, verify_now, App, Event, Integrity, ViewOptions};
use tui::runtime::Report;

/// How a file of the run is damaged behind valid checksums.
#[derive(Clone, Copy)]
pub enum Part {
    /// `MANIFEST`: its JSON body behind a valid prefix.
    Manifest,
    /// A store data file: the data behind its header, its sidecar (the file at this
    /// index of [`FILES`]) and its commit in the manifest recomputed.
    Data(CommitAt, usize),
    /// A store checksum sidecar: the sums behind its header.
    Sums,
    /// A saved analysis file of records of this width: the data behind a valid header.
    Analysis(u32),
    /// The analysis summary, with its `summary.json.xxh3` (the file at this index).
    Summary(usize),
    /// The summary's checksum file (text: replaced whole either way).
    SummarySum,
}

/// The files of the run, relative to its directory, and how each is damaged.
pub const FILES: [(&str, Part); 22] = [
    ("MANIFEST", Part::Manifest),
    ("states-00000.seg", Part::Data(("states", Some(0)), 7)),
    ("rows.idx", Part::Data(("rows", Some(0)), 8)),
    ("rows.bits", Part::Data(("rows", Some(1)), 9)),
    ("edges.idx", Part::Data(("edges", Some(0)), 10)),
    ("edges.bits", Part::Data(("edges", Some(1)), 11)),
    ("terminals", Part::Data(("terminals", None), 12)),
    ("states-00000.seg.sum", Part::Sums),
    ("rows.idx.sum", Part::Sums),
    ("rows.bits.sum", Part::Sums),
    ("edges.idx.sum", Part::Sums),
    ("edges.bits.sum", Part::Sums),
    ("terminals.sum", Part::Sums),
    ("hsg/component.bin", Part::Analysis(4)),
    ("hsg/members.idx", Part::Analysis(8)),
    ("hsg/members.bin", Part::Analysis(4)),
    ("hsg/edges.idx", Part::Analysis(8)),
    ("hsg/edges.bin", Part::Analysis(16)),
    ("hsg/hyperstates.bin", Part::Analysis(32)),
    ("hsg/ideal_path.bin", Part::Analysis(8)),
    ("hsg/summary.json", Part::Summary(21)),
    ("hsg/summary.json.xxh3", Part::SummarySum),
];

/// The level explored: wins, dead ends and reversible moves in 2,887 states.
pub const LEVEL: &str = tui::data::fixture::TWO_BOXES;

/// The terminal size the workbench promises to work at.
const SIZE: (u16, u16) = (80, 24);

/// A read-only run directory holding a small explored and analysed run, and the bytes
/// of every file in it.
pub struct Base {
    _dir: tempfile::TempDir,
    /// The run directory.
    pub run_dir: PathBuf,
    /// Every file of the run directory (relative to it) and its bytes, sorted.
    pub files: Vec<(PathBuf, Vec<u8>)>,
    /// Every entry of the run directory, folders too, sorted.
    entries: Vec<PathBuf>,
    /// The original bytes of each of [`FILES`].
    originals: Vec<Vec<u8>>,
}

impl Base {
    /// Explores [`LEVEL`] into a run directory, analyses it (the workbench's first open
    /// does), and makes the directory read-only.
    pub fn new() -> Base {
        let dir = tempfile::tempdir().expect("temp dir");
        let run_dir = dir.path().join("run");
        write_run(&run_dir);
        let bench = tui::data::run::open_store(&run_dir, &|_| {}).expect("the run opens");
        drop(bench);
        set_read_only(&run_dir, true);
        let mut entries = Vec::new();
        collect_names(&run_dir, &run_dir, &mut entries);
        entries.sort();
        let files: Vec<(PathBuf, Vec<u8>)> = entries
            .iter()
            .filter(|name| run_dir.join(name).is_file())
            .map(|name| {
                (
                    name.clone(),
                    std::fs::read(run_dir.join(name)).expect("readable"),
                )
            })
            .collect();
        let originals = FILES
            .iter()
            .map(|(name, _)| {
                let found = files.iter().find(|(path, _)| path == Path::new(name));
                found.expect("a file of the run").1.clone()
            })
            .collect();
        Base {
            _dir: dir,
            run_dir,
            files,
            entries,
            originals,
        }
    }

    /// Seeds for a corpus: each file raw and behind valid checksums.
    pub fn seeds(&self) -> Vec<Vec<u8>> {
        let n = FILES.len();
        let mut seeds = Vec::new();
        for (i, bytes) in self.originals.iter().enumerate() {
            let skip = match FILES[i].1 {
                Part::Manifest => MANIFEST_PREFIX,
                Part::Data(..) | Part::Sums | Part::Analysis(_) => HEADER,
                Part::Summary(_) | Part::SummarySum => 0,
            };
            seeds.push([&[i as u8][..], bytes].concat());
            seeds.push([&[(i + n) as u8][..], &bytes[skip.min(bytes.len())..]].concat());
        }
        seeds
    }

    /// Writes `data`'s file, loads, draws and verifies the run as the workbench does,
    /// checks what it shows, and puts the run directory back as it was.
    pub fn apply(&self, data: &[u8]) {
        let Some((&pick, payload)) = data.split_first() else {
            return;
        };
        let index = usize::from(pick) % FILES.len();
        let valid = usize::from(pick) / FILES.len() % 2 == 1;
        self.damage(index, valid, payload);
        let damaged = FILES[index].0;
        workbench(&self.run_dir, damaged);
        self.restore();
    }

    /// Replaces file `index` by `payload`, raw or behind valid checksums.
    fn damage(&self, index: usize, valid: bool, payload: &[u8]) {
        let (name, part) = FILES[index];
        let original = &self.originals[index];
        let path = self.run_dir.join(name);
        let path_of = |i: usize| self.run_dir.join(FILES[i].0);
        if !valid {
            return write(&path, payload);
        }
        match part {
            Part::Manifest => write(&path, &manifest_bytes(original, payload)),
            Part::Data(at, sums) => {
                write(&path, &[&original[..HEADER], payload].concat());
                let header = &self.originals[sums][..HEADER];
                write(&path_of(sums), &block_sums(header, payload));
                let body = recommit(&self.originals[0], at, payload);
                write(&path_of(0), &manifest_bytes(&self.originals[0], &body));
            }
            Part::Sums => write(&path, &[&original[..HEADER], payload].concat()),
            Part::Analysis(width) => {
                let header = analysis_header(original, width, payload);
                write(&path, &[&header[..], payload].concat());
            }
            Part::Summary(sum) => {
                write(&path, payload);
                write(&path_of(sum), &summary_sum(payload));
            }
            Part::SummarySum => write(&path, payload),
        }
    }

    /// Puts every file back as it was and removes whatever the workbench added (a
    /// fresh analysis of a run whose saved one no longer matched it, say).
    fn restore(&self) {
        let mut now = Vec::new();
        collect_names(&self.run_dir, &self.run_dir, &mut now);
        for name in now {
            if self.entries.binary_search(&name).is_err() {
                let path = self.run_dir.join(&name);
                let _ = std::fs::remove_file(&path).or_else(|_| std::fs::remove_dir_all(&path));
            }
        }
        for (name, bytes) in &self.files {
            let path = self.run_dir.join(name);
            if std::fs::read(&path).ok().as_ref() != Some(bytes) {
                let parent = path.parent().expect("inside the run directory");
                std::fs::create_dir_all(parent).expect("folder restored");
                write(&path, bytes);
            }
        }
    }
}

impl Default for Base {
    fn default() -> Base {
        Base::new()
    }
}

impl Drop for Base {
    fn drop(&mut self) {
        // The temporary directory is removed by its owner, which needs to write here.
        set_read_only(&self.run_dir, false);
    }
}

/// What `hsg tui` does with the run in `dir`, the threads' work done in order, and what
/// its screens must show afterwards (`damaged`: the file the input replaced).
fn workbench(dir: &Path, damaged: &str) {
    let view = ViewOptions {
        ascii: false,
        colour: true,
    };
    let mut app = App::new(view, SIZE);
    let mut terminal = Terminal::new(TestBackend::new(SIZE.0, SIZE.1)).expect("test backend");
    let mut draw = |app: &App| {
        terminal
            .draw(|f| tui::ui::draw(f, app))
            .expect("drawn on the test backend");
    };
    let reports = std::cell::RefCell::new(Vec::new());
    let loaded = tui::store_loader(dir.to_path_buf())(&|r| reports.borrow_mut().push(r));
    for report in reports.into_inner() {
        app.on_event(match report {
            Report::Phase(p) => Event::Phase(p),
            Report::Overview(o) => Event::Preview(o),
        });
    }
    draw(&app);
    app.on_event(Event::Loaded(loaded.map_err(|e| e.to_string())));
    run_jobs(&mut app);
    // The screens the user sees while the verification runs, drawn from the data as
    // the fast open mapped it.
    for key in ['2', '3', '4', '1'] {
        draw(&app);
        app.on_event(Event::Key(KeyEvent::new(
            KeyCode::Char(key),
            KeyModifiers::NONE,
        )));
        run_jobs(&mut app);
    }
    if let Some(gen) = app.take_verification() {
        let bench = app.bench.clone().expect("verification of loaded data");
        let mut events = Vec::new();
        verify_now(bench.as_ref(), gen, &|| false, &mut |e| events.push(e));
        drop(bench);
        for e in events {
            app.on_event(e);
        }
    }
    draw(&app);
    check(&app, &terminal.backend().to_string(), dir, damaged);
}

/// Runs the jobs the application queued, as the workers would.
fn run_jobs(app: &mut App) {
    while let Some(job) = app.take_job() {
        let Some(bench) = app.bench.clone() else {
            break;
        };
        let done = execute(bench.as_ref(), job);
        app.on_event(Event::Done(done));
    }
}

/// What the screens promise once loading and verification are over: an error or
/// damage is said, naming the file (a file of the run directory `dir`), and damage
/// leaves nothing of the run on screen.
fn check(app: &App, screen: &str, dir: &Path, damaged: &str) {
    let names_a_file = |message: &str| message.contains(&*dir.to_string_lossy());
    if let Some(message) = &app.fatal {
        assert!(
            names_a_file(message),
            "{damaged} damaged, no file named: {message}"
        );
        return;
    }
    assert!(
        !matches!(
            app.integrity,
            Integrity::Verifying { .. } | Integrity::Failed(_)
        ),
        "the verification did not end: {:?}",
        app.integrity
    );
    if let Some(damage) = app.damage() {
        assert!(
            app.bench.is_none() && app.overview.is_none() && app.focus.is_none(),
            "figures of a damaged run kept ({damaged})"
        );
        assert!(
            names_a_file(&damage.what) && !damage.remedy.is_empty(),
            "{damaged} damaged, no file named: {damage:?}"
        );
        assert!(
            screen.contains("damaged"),
            "damage not on screen:\n{screen}"
        );
    }
}

/// Explores [`LEVEL`] breadth-first and writes it as a finished run in `dir`.
fn write_run(dir: &Path) {
    let level = games::load("level.xsb", LEVEL, &games::LevelSelector::First).expect("level");
    let game = level.game;
    let x = explore(game.as_ref());
    let width = game.state_width();
    let identity = RunIdentity::new(
        "sokoban".to_string(),
        level.title.clone(),
        level.text.clone(),
        BTreeMap::new(),
        width.max_len() as u32 + if width.fixed().is_some() { 0 } else { 2 },
        matches!(width, model::StateWidth::Variable { .. }),
        game.action_labels(),
        game.outcome_names(),
        1,
        false,
    );
    let (mut w, _) = RunWriter::open(dir, identity, OpenMode::CreateNew).expect("writer");
    for record in &x.records {
        w.append_state(record).expect("state");
    }
    for (s, row) in x.rows.iter().enumerate() {
        w.append_edges(s as u64, row, None).expect("row");
    }
    for &(s, o) in &x.terminals {
        w.mark_terminal(s, o).expect("terminal");
    }
    w.set_layers(&x.layers);
    let progress = Progress {
        states: x.records.len() as u64,
        expanded: x.rows.len() as u64,
        phase: "done".into(),
        ..Progress::default()
    };
    w.finish(RunStatus::Complete, progress).expect("finished");
}

/// A level explored whole: the states in BFS order, the rows of their edges, the
/// terminal states with their outcomes and the first state of each layer.
struct Explored {
    records: Vec<Vec<u8>>,
    rows: Vec<Vec<Edge>>,
    terminals: Vec<(u64, u16)>,
    layers: Vec<u64>,
}

fn explore(game: &dyn Game) -> Explored {
    let mut ids: HashMap<Vec<u8>, u64> = HashMap::new();
    let mut x = Explored {
        records: Vec::new(),
        rows: Vec::new(),
        terminals: Vec::new(),
        layers: vec![0],
    };
    let mut depths = Vec::new();
    for state in game.initial_states() {
        if !ids.contains_key(&state) {
            ids.insert(state.clone(), x.records.len() as u64);
            x.records.push(state);
            depths.push(0u32);
        }
    }
    let mut out = model::Successors::new();
    while x.rows.len() < x.records.len() {
        let id = x.rows.len();
        let record = x.records[id].clone();
        let mut row = Vec::new();
        if let Some(outcome) = game.terminal(&record) {
            x.terminals.push((id as u64, outcome));
        } else {
            out.clear();
            game.successors(&record, &mut out);
            for (m, state) in out.iter() {
                let next = x.records.len() as u64;
                let target = *ids.entry(state.to_vec()).or_insert(next);
                if target == next {
                    x.records.push(state.to_vec());
                    depths.push(depths[id] + 1);
                }
                row.push(Edge {
                    action: m.action,
                    target,
                });
            }
        }
        x.rows.push(row);
    }
    for (id, pair) in depths.windows(2).enumerate() {
        if pair[1] != pair[0] {
            x.layers.push(id as u64 + 1);
        }
    }
    x
}

/// Sets or clears the write permission of `dir` itself.
fn set_read_only(dir: &Path, read_only: bool) {
    let mut permissions = std::fs::metadata(dir).expect("run dir").permissions();
    permissions.set_readonly(read_only);
    std::fs::set_permissions(dir, permissions).expect("permissions set");
}

/// Every entry under `at` (folders before what they hold), relative to `root`.
fn collect_names(root: &Path, at: &Path, names: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(at) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        names.push(path.strip_prefix(root).expect("inside").to_path_buf());
        if path.is_dir() {
            collect_names(root, &path, names);
        }
    }
}
