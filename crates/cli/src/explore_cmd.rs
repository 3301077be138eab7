//! `hsg explore`: load a level, open (or resume) a store, run the explorer
//! with a progress display, and stop cleanly on SIGINT or SIGTERM.

use crate::analyze_cmd::{self, AnalysisFlags};
use crate::flags;
use crate::live::LiveAnalysis;
use crate::sizes::{default_budget, human, parse_size};
use anyhow::{bail, Context, Result};
use clap::Args;
use explore::{Ending, ExploreOptions, ProgressSink, Slot};
use model::numbers::grouped;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use store::{OpenMode, Progress, RunIdentity, RunStatus, RunWriter};

/// Which level to load: a level file and, when it holds several, which one.
#[derive(Args, Debug, Clone)]
pub struct LevelArgs {
    /// The level file (Sokoban .xsb/.sok/.txt, PuzzleGraph, Fling!, sandbox, .game, or a
    /// PuzzleScript game whatever its extension; several levels per file allowed).
    pub level_file: PathBuf,
    /// Which level of the file, 1-based (default: the first; PuzzleScript counts only
    /// playable levels, not messages).
    #[arg(long, conflicts_with = "title", value_parser = flags::count)]
    pub level: Option<usize>,
    /// Which level of the file, by title.
    #[arg(long)]
    pub title: Option<String>,
}

/// Arguments of `hsg explore`.
#[derive(Args, Debug)]
pub struct ExploreArgs {
    #[command(flatten)]
    pub which: LevelArgs,
    /// The run directory to write (created if missing; resumed if it holds this run).
    #[arg(long, required_unless_present = "list")]
    pub store: Option<PathBuf>,
    /// List the file's levels with their numbers and titles, and explore nothing.
    #[arg(long, conflicts_with_all = ["level", "title"])]
    pub list: bool,
    /// Memory budget for the visited index and buffers, e.g. 800M or 4G
    /// (default: half the machine's RAM). Beyond it duplicates are detected on disk.
    #[arg(long, value_parser = parse_size)]
    pub mem: Option<u64>,
    /// Worker threads, 1 to 1024 (default: every core). Ids do not depend on it.
    #[arg(long, value_parser = flags::threads)]
    pub threads: Option<usize>,
    /// Stop at the first parent boundary with at least this many states (partial run).
    #[arg(long)]
    pub max_states: Option<u64>,
    /// Store states at this BFS depth but do not expand them (partial run).
    #[arg(long)]
    pub max_depth: Option<u32>,
    /// Delete the store's previous run, even one of another level or options.
    #[arg(long)]
    pub force_new: bool,
    /// Seconds between checkpoints (at least 0.05 is used; up to 1e9, in effect never).
    #[arg(long, default_value_t = 2.0, value_parser = flags::seconds)]
    pub checkpoint_secs: f64,
    /// Testing aid: cap the in-memory index at this many states, so that
    /// small levels exercise disk-based duplicate detection.
    #[arg(long, hide = true, value_parser = flags::count)]
    pub index_limit: Option<usize>,
    /// Testing aid: resolve the disk phase's candidates every N of them, so
    /// that small levels exercise the mid-layer rounds.
    #[arg(long, hide = true, value_parser = clap::value_parser!(u64).range(1..))]
    pub round_candidates: Option<u64>,
    /// Testing aid: parents each thread expands between two merges, so that
    /// small levels have many chunks per layer.
    #[arg(long, hide = true, value_parser = clap::value_parser!(u32).range(1..))]
    pub chunk_parents: Option<u32>,
    /// Analyse the hyperstate space graph when the exploration ends (as `hsg analyze`).
    #[arg(long)]
    pub analyze: bool,
    /// Add K two-sided tokens that the player may flip as an action (the paper's
    /// answer to Lantz et al.: the SSG doubles per token, the HSG stays the same).
    #[arg(long, value_name = "K")]
    pub flip_tokens: Option<u32>,
    /// PuzzleScript: keep the inert objects (which no rule, win condition or movement
    /// depends on) in the states instead of leaving them out (docs/puzzlescript.md).
    #[arg(long)]
    pub keep_inert: bool,
    /// PuzzleScript: the most random outcomes one (state, input) may have before the
    /// run stops with an error naming the rule [default: 20000].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_outcomes: Option<u64>,
    /// Maintain the hyperstates while exploring (incremental SCC after every BFS
    /// layer): the progress shows hyperstates, HSG depth and states that can no
    /// longer win, as they become certain.
    #[arg(long)]
    pub live_hsg: bool,
    /// Depth-limited HSG: do not expand states whose hyperstate lies more than D
    /// critical actions from the root's (as known when their layer starts).
    /// Implies --live-hsg; the run is partial when states were held back.
    #[arg(long, value_name = "D")]
    pub hsg_depth: Option<u32>,
    #[command(flatten)]
    pub analysis: AnalysisFlags,
    /// Explore as one process of a cluster: HOSTS lists every process's `host:port`,
    /// one a line, the same file on every machine. --store names this process's part;
    /// `hsg gather` turns the parts into one store.
    #[arg(
        long,
        value_name = "HOSTS",
        requires = "process",
        conflicts_with = "local_processes"
    )]
    pub cluster: Option<PathBuf>,
    /// This process's index in the --cluster host file, from 0.
    #[arg(long, value_name = "I", requires = "cluster")]
    pub process: Option<usize>,
    /// The cluster key every process of --cluster proves: a file (the same on every
    /// machine, readable by its owner only). Or set HSG_CLUSTER_KEY_FILE to its path, or
    /// HSG_CLUSTER_KEY to the secret itself; never the secret on the command line.
    #[arg(long, value_name = "FILE", requires = "cluster")]
    pub cluster_key: Option<PathBuf>,
    /// Explore with N processes on this machine (over 127.0.0.1), their parts in
    /// DIR/cluster/, then gather them into the store DIR (1 to 64).
    #[arg(long, value_name = "N", value_parser = flags::local_processes)]
    pub local_processes: Option<usize>,
    /// Seconds a process of a cluster waits for every other to connect before it gives up.
    #[arg(long, value_name = "SECS", default_value_t = 120.0, value_parser = flags::seconds)]
    pub connect_timeout: f64,
    /// Verify every block checksum of a run that is already finished before saying there
    /// is nothing to do (`hsg explore`); `hsg open` checks the structure only, as the
    /// workbench it opens next does (a cold checksum pass over room4 takes about 47 s).
    #[arg(skip = true)]
    pub verify_finished: bool,
}

impl ExploreArgs {
    /// The arguments of a plain exploration of the level `which` into `store`.
    pub fn new(which: LevelArgs, store: PathBuf) -> ExploreArgs {
        ExploreArgs {
            which,
            store: Some(store),
            list: false,
            mem: None,
            threads: None,
            max_states: None,
            max_depth: None,
            force_new: false,
            checkpoint_secs: 2.0,
            index_limit: None,
            round_candidates: None,
            chunk_parents: None,
            analyze: false,
            live_hsg: false,
            flip_tokens: None,
            keep_inert: false,
            max_outcomes: None,
            hsg_depth: None,
            analysis: AnalysisFlags::default(),
            cluster: None,
            process: None,
            cluster_key: None,
            local_processes: None,
            connect_timeout: 120.0,
            verify_finished: false,
        }
    }
}

/// How an exploration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Explored {
    /// It ran to its end (complete or partial) now or in an earlier run.
    Finished,
    /// SIGINT or SIGTERM stopped it after a checkpoint; it can be resumed.
    Interrupted,
}

/// Runs `hsg explore`.
pub fn run(mut args: ExploreArgs) -> Result<ExitCode> {
    if is_stored(&args) {
        fill_from_store(&mut args)?;
    }
    if args.list {
        return list(&args.which.level_file);
    }
    if explore(&args)? == Explored::Interrupted {
        return Ok(ExitCode::from(130));
    }
    analyze_if_asked(&args)?;
    Ok(ExitCode::SUCCESS)
}

/// With `--analyze`, analyses the store just explored and prints its outline.
pub(crate) fn analyze_if_asked(args: &ExploreArgs) -> Result<()> {
    if args.analyze {
        // The store was just written and checksummed block by block; a second
        // checksum pass is `hsg verify`'s job (on room4 it reads 3 GB).
        let run = store::Run::open_unverified(store_dir(args)?)?;
        let summary = analyze_cmd::summary_for(&run, &args.analysis)?;
        analyze_cmd::print_outline(&summary);
    }
    Ok(())
}

/// Checks a finished run before saying there is nothing to do: its headers, lengths and
/// structure, and with `checksums` every block checksum (what `hsg verify` checks), so
/// that a damaged store is named rather than passed off as done. Returns what was checked.
///
/// Regression: the run was only resumed, which checks headers and the tails of the last
/// checkpoint, so a store damaged elsewhere was "finished; nothing to do" with exit 0.
fn check_finished(store_dir: &Path, checksums: bool) -> Result<&'static str> {
    let damaged = |err: store::StoreError| {
        anyhow::anyhow!(
            "the finished run in {} is damaged: {err}; explore it again with --force-new",
            store_dir.display()
        )
    };
    let run = store::Run::open_unverified(store_dir).map_err(damaged)?;
    if !checksums {
        return Ok("its structure checked");
    }
    run.verify().map_err(damaged)?;
    Ok("every checksum verified")
}

/// `hsg explore FILE --list`: every level of the file as `number  title`, then the
/// message a player reads before it (PuzzleScript) and a small preview of its board.
fn list(path: &Path) -> Result<ExitCode> {
    let text = crate::text_file::read_text(path, "level file")?;
    let name = path.display().to_string();
    let messages = games::level_messages(&name, &text)?;
    for (number, title) in games::list_levels(&name, &text)? {
        outln!("{number:>4}  {title}");
        if let Some(Some(message)) = messages.get(number - 1) {
            outln!("      \"{}\"", ellipsized(message, PREVIEW_COLUMNS));
        }
        for line in preview(&name, &text, number) {
            outln!("      {line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The widest and tallest board preview `--list` draws.
const PREVIEW_COLUMNS: usize = 40;
const PREVIEW_ROWS: usize = 12;

/// The first initial state of level `number`, drawn by its game, cut to
/// [`PREVIEW_ROWS`] x [`PREVIEW_COLUMNS`] with the cut marked; a level that does not
/// load says why in one line.
fn preview(name: &str, text: &str, number: usize) -> Vec<String> {
    let level = match games::load(name, text, &games::LevelSelector::Index(number)) {
        Ok(level) => level,
        Err(err) => return vec![format!("(cannot load: {err})")],
    };
    let Some(state) = level.game.initial_states().into_iter().next() else {
        return vec!["(no initial state)".to_string()];
    };
    let board = level.game.render(&state);
    let lines: Vec<&str> = board.lines().collect();
    let mut out: Vec<String> = lines
        .iter()
        .take(PREVIEW_ROWS)
        .map(|l| ellipsized(l, PREVIEW_COLUMNS))
        .collect();
    if lines.len() > PREVIEW_ROWS {
        out.push(format!("... {} more rows", lines.len() - PREVIEW_ROWS));
    }
    out
}

/// `text` in at most `max` characters, ending with `...` when cut.
fn ellipsized(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(3)).collect();
    format!("{kept}...")
}

/// The run directory, which clap requires unless `--list` is given.
pub(crate) fn store_dir(args: &ExploreArgs) -> Result<&Path> {
    args.store
        .as_deref()
        .context("--store DIR is required to explore")
}

/// Explores (or resumes) the run `args` describe, showing progress on stderr.
pub fn explore(args: &ExploreArgs) -> Result<Explored> {
    let store_dir = store_dir(args)?;
    let w = &args.which;
    let stored = is_stored(args);
    let mut level = if stored {
        crate::stored_run::stored_level(store_dir)?
    } else {
        load_level(&w.level_file, w.level, w.title.as_deref())?
    };
    if !stored {
        level = puzzlescript_options(level, args)?;
    }
    for note in level.game.notes() {
        eprintln!("{note}");
    }
    if let Some(k) = args.flip_tokens.filter(|&k| k > 0) {
        level = games::flip::wrap(level, k as usize)?;
    }
    let game = level.game.as_ref();
    let identity = identity(&level, args);
    let mode = if args.force_new {
        OpenMode::ForceNew
    } else {
        OpenMode::ResumeOrCreate
    };
    // Refused before the store is opened: a new store made only to be refused would
    // read as an exploration that never committed.
    let budget = args.mem.unwrap_or_else(default_budget);
    if budget < explore::least_budget() {
        return Err(explore::ExploreError::BudgetTooSmall {
            budget,
            needed: explore::least_budget(),
        }
        .into());
    }
    let (writer, checkpoint) = RunWriter::open(store_dir, identity, mode)?;
    if matches!(writer.status(), RunStatus::Complete | RunStatus::Partial) && checkpoint.is_some() {
        let checked = check_finished(store_dir, args.verify_finished)?;
        eprintln!(
            "{} already holds this finished run ({} states, {checked}); nothing to do",
            store_dir.display(),
            grouped(writer.state_count())
        );
        return Ok(Explored::Finished);
    }
    let stop = stop_flag()?;
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(flags::MAX_THREADS))
    });
    let opts = ExploreOptions {
        mem_budget: args.mem.unwrap_or_else(default_budget),
        threads,
        max_states: args.max_states,
        max_depth: args.max_depth,
        checkpoint_every: Duration::from_secs_f64(args.checkpoint_secs.max(0.05)),
        progress_every: Duration::from_millis(if std::io::stderr().is_terminal() {
            200
        } else {
            5000
        }),
        stop,
        scratch_dir: store_dir.join(store::layout::SCRATCH),
        index_limit: args.index_limit,
        round_limit: args.round_candidates,
        parents_per_part: args
            .chunk_parents
            .map_or(explore::PARENTS_PER_PART, |n| n as usize),
    };
    let mut sink = Display::new();
    let mut live = (args.live_hsg || args.hsg_depth.is_some()).then(|| {
        let outcomes = game.outcome_names();
        // Without a target asked for, a scoring game has none yet: its default is the
        // best score the finished exploration reaches.
        let spec = args.analysis.target_spec();
        let has_win = outcomes.iter().any(|o| o == model::WIN);
        let target = (spec.is_some() || has_win)
            .then(|| hsg::target::resolve(&outcomes, spec.as_deref(), None))
            .and_then(Result::ok)
            .map(|t| t.outcomes)
            .unwrap_or_default();
        LiveAnalysis::new(target, args.hsg_depth)
    });
    let watcher = live.as_mut().map(|l| l as &mut dyn explore::Watcher);
    EXPLORING.store(true, Ordering::SeqCst);
    let summary = explore::explore_watched(game, writer, checkpoint, &opts, &mut sink, watcher);
    EXPLORING.store(false, Ordering::SeqCst);
    sink.done();
    let summary = summary?;
    if let Some(why) = game.failure() {
        // The game stopped the run itself: an error, not an interruption.
        anyhow::bail!("{why}\n(the run is saved as interrupted at its last checkpoint)");
    }
    if let Some(live) = live.as_mut() {
        let l = live.finish();
        eprintln!(
            "live HSG: {} hyperstates, HSG depth {}, {} winning, {} states in {} hyperstates can no longer win{}",
            grouped(l.hyperstates),
            l.depth,
            grouped(l.winning),
            grouped(l.dead_states),
            grouped(l.dead_hyperstates),
            args.hsg_depth
                .map(|d| format!(", HSG depth limited to {d}"))
                .unwrap_or_default()
        );
    }
    let rate = summary.states as f64 / summary.elapsed.as_secs_f64().max(1e-9);
    match summary.ending {
        Ending::Interrupted => {
            eprintln!(
                "interrupted at {} states (checkpoint saved); to resume, run:\n  {}",
                grouped(summary.states),
                crate::stored_run::this_command_resumed()
            );
            Ok(Explored::Interrupted)
        }
        ending => {
            eprintln!(
                "{}: {} states, {} transitions, depth {}, in {:.2} s ({} states/s){}",
                if ending == Ending::Complete {
                    "complete"
                } else {
                    "partial"
                },
                grouped(summary.states),
                grouped(summary.transitions),
                summary.max_depth,
                summary.elapsed.as_secs_f64(),
                grouped(rate.round() as u64),
                if summary.used_disk {
                    ", duplicates detected on disk"
                } else {
                    ""
                }
            );
            for (what, count) in game.exploration_counts() {
                eprintln!("{} {what}", grouped(count));
            }
            let index = summary.index;
            if index.full_states > 0 {
                eprintln!(
                    "visited index: {} at its largest, {:.1} bytes a state when full{}",
                    crate::sizes::human(index.bytes),
                    index.bytes_per_state(),
                    match index.overflow {
                        0 => String::new(),
                        n => format!(", {} entries in its overflow list", grouped(n)),
                    }
                );
            }
            Ok(Explored::Finished)
        }
    }
}

/// True while an exploration watches the stop flag; otherwise SIGINT and SIGTERM end
/// the process at once (an analysis has nothing to checkpoint).
pub(crate) static EXPLORING: AtomicBool = AtomicBool::new(false);

/// The flag SIGINT and SIGTERM raise, with the handler installed on first use (a
/// process may explore only once, but `hsg open` explores and then analyses).
pub(crate) fn stop_flag() -> Result<Arc<AtomicBool>> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    if let Some(flag) = FLAG.get() {
        return Ok(flag.clone());
    }
    let flag = Arc::new(AtomicBool::new(false));
    let seen = flag.clone();
    ctrlc::set_handler(move || {
        if EXPLORING.load(Ordering::SeqCst) {
            seen.store(true, Ordering::SeqCst);
        } else {
            eprintln!("interrupted");
            std::process::exit(130);
        }
    })
    .context("cannot install the SIGINT/SIGTERM handler")?;
    Ok(FLAG.get_or_init(|| flag).clone())
}

/// The PuzzleScript options of `args` applied to `level`: `--keep-inert` rebuilds
/// it from its canonical text with the inert objects kept (as `games::reload` does
/// for a stored run), `--max-outcomes` sets its bound; both are usage errors on other
/// games.
pub(crate) fn puzzlescript_options(
    mut level: games::Level,
    args: &ExploreArgs,
) -> Result<games::Level> {
    let puzzlescript = level.game.kind() == "puzzlescript";
    if !puzzlescript && (args.keep_inert || args.max_outcomes.is_some()) {
        return Err(crate::usage::usage(
            "--keep-inert and --max-outcomes apply to PuzzleScript games only".to_string(),
        ));
    }
    if args.keep_inert || args.max_outcomes.is_some() {
        // Built again from the file as given, so that errors keep its line numbers.
        let w = &args.which;
        let text = crate::text_file::read_text(&w.level_file, "level file")?;
        let again = games::puzzlescript::load_with(
            &w.level_file.display().to_string(),
            &text,
            &games::LevelSelector::Index(level.index),
            args.keep_inert,
            args.max_outcomes,
        )?;
        level.game = again.game;
    }
    Ok(level)
}

/// Reads and parses the selected level of a level file.
pub fn load_level(path: &Path, index: Option<usize>, title: Option<&str>) -> Result<games::Level> {
    if path.as_os_str().is_empty() {
        anyhow::bail!(
            "name the level file (only `hsg explore --store DIR` alone resumes the run in DIR)"
        );
    }
    let text = crate::text_file::read_text(path, "level file")?;
    let selector = match (index, title) {
        (Some(n), _) => games::LevelSelector::Index(n),
        (None, Some(t)) => games::LevelSelector::Title(t.to_string()),
        (None, None) => games::LevelSelector::First,
    };
    Ok(games::load(&path.display().to_string(), &text, &selector)?)
}

/// What makes two runs the same run: the level and the options that change
/// the result (not threads, memory or checkpoint interval).
pub(crate) fn identity(level: &games::Level, args: &ExploreArgs) -> RunIdentity {
    let game = level.game.as_ref();
    let slot = Slot::for_width(game.state_width());
    let mut options = BTreeMap::new();
    if let Some(d) = args.max_depth {
        options.insert("max_depth".to_string(), d.to_string());
    }
    if let Some(n) = args.max_states {
        options.insert("max_states".to_string(), n.to_string());
    }
    if let Some(d) = args.hsg_depth {
        options.insert("hsg_depth".to_string(), d.to_string());
    }
    if let Some(k) = args.flip_tokens.filter(|&k| k > 0) {
        options.insert(games::flip::OPTION.to_string(), k.to_string());
    }
    if args.keep_inert {
        options.insert(
            games::puzzlescript::KEEP_INERT.to_string(),
            "true".to_string(),
        );
    }
    RunIdentity::new(
        game.kind().to_string(),
        level.title.clone(),
        level.text.clone(),
        options,
        slot.width() as u32,
        slot.is_variable(),
        game.action_labels(),
        game.outcome_names(),
        game.players(),
        game.has_chance(),
    )
}

/// Progress on a terminal as a live line, elsewhere as plain log lines (the shared
/// display; the explorer already paces its reports, so every one is printed).
struct Display {
    shown: crate::progress::Progress,
}

impl Display {
    fn new() -> Display {
        Display {
            shown: crate::progress::Progress::status(Duration::ZERO),
        }
    }

    fn done(&self) {
        self.shown.finish();
    }
}

fn line(p: &Progress) -> String {
    let mut text = format!(
        "{} states, {} transitions, depth {}, {} states/s, {} on disk",
        grouped(p.states),
        grouped(p.transitions),
        p.depth,
        grouped(p.states_per_sec.round() as u64),
        human(p.disk_bytes)
    );
    match p.live_hsg.as_ref().map(hsg::LiveFigures::from_json) {
        Some(Ok(live)) => text.push_str(&format!(
            "; {} hyperstates, HSG depth {}, {} states can no longer win",
            grouped(live.hsg.hyperstates),
            live.hsg.depth,
            grouped(live.hsg.dead_states)
        )),
        Some(Err(e)) => text.push_str(&format!("; {e}")),
        None => {}
    }
    text
}

impl ProgressSink for Display {
    fn progress(&mut self, p: &Progress) {
        self.shown.update(p.elapsed_secs, line(p));
    }

    fn note(&mut self, message: &str) {
        self.shown.println(message);
    }
}

/// True when `explore` was given no level file.
pub fn is_stored(args: &ExploreArgs) -> bool {
    args.which.level_file.as_os_str().is_empty()
}

/// Fills in what the run in `--store` records and the command line left out: the
/// options of the run's identity (`max_depth`, `max_states`, `hsg_depth` and the
/// token-flip count). Options given on the command line win; a different value then
/// makes another run, which the store refuses unless `--force-new` is given.
pub fn fill_from_store(args: &mut ExploreArgs) -> Result<()> {
    if args.list {
        bail!("--list needs a level file");
    }
    if args.which.level.is_some() || args.which.title.is_some() {
        bail!("--level and --title choose a level of a level file: name the file");
    }
    let dir = args
        .store
        .clone()
        .context("--store DIR is required to explore")?;
    let id = crate::stored_run::identity_in(&dir)?;
    for (key, value) in &id.options {
        let number = |what: &str| -> Result<u64> {
            value.parse().with_context(|| {
                format!(
                    "{}: the run's option {what}={value} is not a whole number",
                    dir.display()
                )
            })
        };
        match key.as_str() {
            "max_depth" => {
                let stored = u32::try_from(number(key)?)?;
                args.max_depth.get_or_insert(stored);
            }
            "max_states" => {
                let stored = number(key)?;
                args.max_states.get_or_insert(stored);
            }
            "hsg_depth" => {
                let stored = u32::try_from(number(key)?)?;
                args.hsg_depth.get_or_insert(stored);
            }
            k if k == games::flip::OPTION => {
                let stored = u32::try_from(number(key)?)?;
                args.flip_tokens.get_or_insert(stored);
            }
            other => bail!(
                "{}: the run has the option {other}={value}, which this version does not know; \
                 name the level file and the options to explore it",
                dir.display()
            ),
        }
    }
    Ok(())
}
