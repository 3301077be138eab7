//! `hsg batch`: explore and analyse every level of a corpus (files, folders, a range of
//! a multi-level file), one result file per level so that an interrupted batch resumes
//! where it stopped, then rank the levels in `table.csv`, `table.md` and `index.html`.
//!
//! Each level goes through the same library calls as `hsg explore` and `hsg analyze`
//! (`explore::explore_watched`, `hsg::analyze`), quietly, on `--jobs` worker threads
//! that share the memory budget.

#[path = "batch_levels.rs"]
mod levels;
#[path = "batch_rules.rs"]
mod rules;
#[path = "batch_table.rs"]
mod table;

use crate::analyze_cmd::AnalysisFlags;
use crate::explore_cmd::{self, ExploreArgs, LevelArgs};
use crate::sizes::{default_budget, parse_size};
use anyhow::{Context, Result};
use clap::Args;
use explore::{ExploreOptions, ProgressSink};
use levels::LevelSpec;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use store::{OpenMode, Progress, RunStatus, RunWriter};

/// Arguments of `hsg batch`.
#[derive(Args, Debug)]
pub struct BatchArgs {
    /// Level files (every level in them), folders (every file in them), or a file with
    /// a 1-based level range: `file.txt:1-20`, `file.txt:7`.
    #[arg(required = true, value_name = "LEVELS")]
    pub levels: Vec<String>,
    /// The folder for the results, the stores (with --keep-stores) and the tables.
    #[arg(long)]
    pub out: PathBuf,
    /// Stop each exploration at this many states (the level's figures are then
    /// provisional, marked `partial`).
    #[arg(long)]
    pub max_states: Option<u64>,
    /// Levels explored and analysed at the same time (each on one thread).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: u32,
    /// Memory budget of the whole batch, shared by the jobs (default: half the RAM).
    #[arg(long, value_parser = parse_size)]
    pub mem: Option<u64>,
    /// Keep every level's store under OUT/runs (default: only the results are kept,
    /// each store is removed once its level is measured).
    #[arg(long)]
    pub keep_stores: bool,
    /// Redo the levels that failed in an earlier batch (finished levels are never redone).
    #[arg(long)]
    pub retry_failed: bool,
    #[command(flatten)]
    pub analysis: AnalysisFlags,
}

/// The figures of one level, as `docs/metrics.md` ("Corpus ranking") defines them.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LevelRow {
    /// The level's key (file stem and number), also its result file's name.
    pub key: String,
    /// The level file.
    pub file: String,
    /// 1-based number of the level in its file.
    pub number: usize,
    /// The level's title.
    pub title: String,
    /// False when `--max-states` stopped the exploration.
    pub complete: bool,
    /// States stored.
    pub states: u64,
    /// Hyperstates.
    pub hyperstates: u64,
    /// `1 - hyperstates / states`.
    pub compression: f64,
    /// Fewest actions to a win (`None`: no win found).
    pub shortest_win_actions: Option<u64>,
    /// Fewest critical actions to a win.
    pub shortest_win_critical: Option<u32>,
    /// Share of states in fail or implicitly failed hyperstates.
    pub dead_state_share: f64,
    /// The failure spectrum's breadth (largest finite loss distance on the ideal path).
    pub spectrum_breadth: Option<u32>,
    /// Headroom of the root in hyperstates (`None`: not computed).
    pub root_headroom: Option<f64>,
    /// Seconds spent exploring and analysing.
    pub seconds: f64,
    /// The rule coverage of a PuzzleScript level (`hsg report`'s `rule_coverage`
    /// rules); empty for other games and for results written before it existed.
    #[serde(default)]
    pub rules: Vec<rules::RuleFired>,
}

/// What a result file holds: the figures, or why the level failed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LevelResult {
    /// The level's key.
    pub key: String,
    /// The level file (canonical path) and the level's number: a result file whose key
    /// now names another level (the batch's arguments changed) is redone, not reused.
    #[serde(default)]
    pub level: Option<(String, usize)>,
    /// The `--max-states` it was measured with (a batch with another limit redoes it).
    pub max_states: Option<u64>,
    /// The figures, when the level was measured.
    pub row: Option<LevelRow>,
    /// The error, when it failed.
    pub error: Option<String>,
}

/// Runs `hsg batch`.
pub fn run(args: BatchArgs) -> Result<ExitCode> {
    let specs = match levels::expand(&args.levels) {
        Ok(specs) => specs,
        Err(levels::SpecError::Usage(message)) => {
            eprintln!("hsg: error: {message}");
            return Ok(ExitCode::from(2));
        }
        Err(levels::SpecError::Other(err)) => return Err(err),
    };
    let results_dir = args.out.join("results");
    std::fs::create_dir_all(&results_dir)
        .with_context(|| format!("cannot create {}", results_dir.display()))?;
    let todo: Vec<LevelSpec> = specs
        .iter()
        .filter(|s| needs_work(&results_dir, s, &args))
        .cloned()
        .collect();
    let start = Instant::now();
    eprintln!(
        "{} levels, {} already done, {} to do on {} job(s)",
        specs.len(),
        specs.len() - todo.len(),
        todo.len(),
        args.jobs
    );
    run_jobs(&args, &todo, &results_dir)?;
    let results: Vec<LevelResult> = specs
        .iter()
        .filter_map(|s| read_result(&results_dir, &s.key))
        .filter(|r| r.max_states == args.max_states)
        .collect();
    let written = table::write_all(&args.out, &results)?;
    let failed = results.iter().filter(|r| r.error.is_some()).count();
    eprintln!(
        "{} levels measured, {failed} failed, in {:.1} s; wrote {}",
        results.len() - failed,
        start.elapsed().as_secs_f64(),
        written
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(ExitCode::SUCCESS)
}

fn result_path(results_dir: &Path, key: &str) -> PathBuf {
    results_dir.join(format!("{key}.json"))
}

fn read_result(results_dir: &Path, key: &str) -> Option<LevelResult> {
    let bytes = std::fs::read(result_path(results_dir, key)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// A level is done when its result file holds figures (or an error, unless failed
/// levels are retried) for the same `--max-states`. A damaged result file is redone.
fn needs_work(results_dir: &Path, spec: &LevelSpec, args: &BatchArgs) -> bool {
    match read_result(results_dir, &spec.key) {
        Some(r) if r.max_states != args.max_states => true,
        Some(r) if r.level != Some(level_of(spec)) => true,
        Some(r) => r.row.is_none() && args.retry_failed,
        None => true,
    }
}

/// Writes a level's result atomically (a temporary file renamed over it), so that a
/// batch killed mid-write never leaves a result that reads as done.
fn write_result(results_dir: &Path, result: &LevelResult) -> Result<()> {
    let path = result_path(results_dir, &result.key);
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(result)?)
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))
}

/// Runs the levels on `args.jobs` threads; the calling thread records each result and
/// moves the progress display.
fn run_jobs(args: &BatchArgs, todo: &[LevelSpec], results_dir: &Path) -> Result<()> {
    let bar = crate::progress::Progress::counted(todo.len() as u64, "levels".to_string());
    let next = AtomicUsize::new(0);
    let budget = args.mem.unwrap_or_else(default_budget) / u64::from(args.jobs);
    let (send, receive) = mpsc::channel::<LevelResult>();
    std::thread::scope(|scope| -> Result<()> {
        for _ in 0..args.jobs.min(todo.len().max(1) as u32) {
            let send = send.clone();
            let next = &next;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(spec) = todo.get(i) else { break };
                let result = measure(args, spec, budget);
                if send.send(result).is_err() {
                    break;
                }
            });
        }
        drop(send);
        for (done, result) in receive.iter().enumerate() {
            write_result(results_dir, &result)?;
            let line = describe(&result);
            let failed = result.error.is_some();
            bar.item(done as u64 + 1, &result.key, &line, failed);
        }
        Ok(())
    })?;
    bar.finish();
    Ok(())
}

fn describe(result: &LevelResult) -> String {
    match (&result.row, &result.error) {
        (Some(r), _) => format!(
            "{}: {} states, {} hyperstates{} ({:.1} s)",
            r.key,
            model::numbers::grouped(r.states),
            model::numbers::grouped(r.hyperstates),
            if r.complete { "" } else { ", partial" },
            r.seconds
        ),
        (None, Some(e)) => format!("{}: failed: {e}", result.key),
        (None, None) => format!("{}: no result", result.key),
    }
}

/// The level a result is of: its file's canonical path and its number.
fn level_of(spec: &LevelSpec) -> (String, usize) {
    let file = std::fs::canonicalize(&spec.file).unwrap_or_else(|_| spec.file.clone());
    (file.display().to_string(), spec.number)
}

/// Explores and analyses one level; any error becomes the level's recorded failure.
fn measure(args: &BatchArgs, spec: &LevelSpec, budget: u64) -> LevelResult {
    let store = args.out.join("runs").join(&spec.key);
    let outcome = measure_level(args, spec, &store, budget);
    if !args.keep_stores {
        // The figures are in the result file; a store left behind only costs disk.
        let _ = std::fs::remove_dir_all(&store);
        // The folder goes too once empty (an error means another job still uses it).
        let _ = std::fs::remove_dir(args.out.join("runs"));
    }
    match outcome {
        Ok(row) => LevelResult {
            key: spec.key.clone(),
            level: Some(level_of(spec)),
            max_states: args.max_states,
            row: Some(row),
            error: None,
        },
        Err(err) => LevelResult {
            key: spec.key.clone(),
            level: Some(level_of(spec)),
            max_states: args.max_states,
            row: None,
            error: Some(crate::message(&err)),
        },
    }
}

fn measure_level(
    args: &BatchArgs,
    spec: &LevelSpec,
    store: &Path,
    budget: u64,
) -> Result<LevelRow> {
    let start = Instant::now();
    if let Some(problem) = &spec.problem {
        anyhow::bail!("{problem}");
    }
    let level = explore_cmd::load_level(&spec.file, Some(spec.number), None)?;
    let mut explore_args = ExploreArgs::new(
        LevelArgs {
            level_file: spec.file.clone(),
            level: Some(spec.number),
            title: None,
        },
        store.to_path_buf(),
    );
    explore_args.max_states = args.max_states;
    let identity = explore_cmd::identity(&level, &explore_args);
    // The store is the batch's own scratch: one of another level (a level file edited
    // since an earlier batch with --keep-stores) is replaced, not a dead end.
    let (writer, checkpoint) =
        match RunWriter::open(store, identity.clone(), OpenMode::ResumeOrCreate) {
            Err(store::StoreError::IdentityMismatch { .. }) => {
                RunWriter::open(store, identity, OpenMode::ForceNew)?
            }
            other => other?,
        };
    let finished = matches!(writer.status(), RunStatus::Complete | RunStatus::Partial);
    if !(finished && checkpoint.is_some()) {
        let opts = ExploreOptions {
            mem_budget: budget,
            threads: 1,
            max_states: args.max_states,
            max_depth: None,
            checkpoint_every: Duration::from_secs(30),
            progress_every: Duration::from_secs(3600),
            stop: Arc::new(AtomicBool::new(false)),
            scratch_dir: store.join(store::layout::SCRATCH),
            index_limit: None,
            round_limit: None,
            parents_per_part: explore::PARENTS_PER_PART,
        };
        explore::explore_watched(
            level.game.as_ref(),
            writer,
            checkpoint,
            &opts,
            &mut Quiet,
            None,
        )?;
    } else {
        drop(writer);
    }
    let run = store::Run::open_unverified(store)?;
    let mut opts = args.analysis.options();
    opts.mem_budget_bytes = args.analysis.analysis_mem.unwrap_or(budget);
    let analysis = hsg::analyze(&run, &opts)?;
    // Saved, so that the level's HTML report (and `hsg tui` on a kept store) reads it.
    hsg::persist::save(&analysis, store)?;
    let mut row = row_of(spec, &run, &analysis, start.elapsed().as_secs_f64());
    drop((run, analysis));
    row.rules = write_report(args, spec, store)?;
    Ok(row)
}

/// The level's own HTML report (`hsg html`), in OUT/reports/KEY.html, which index.html
/// links; written while the level's store still exists. Returns the report's rule
/// coverage (surveyed once, for the page and the batch's `rules.md`).
fn write_report(args: &BatchArgs, spec: &LevelSpec, store: &Path) -> Result<Vec<rules::RuleFired>> {
    let dir = args.out.join(table::REPORTS);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let (page, report) = crate::html_cmd::page_and_report_of(store, &args.analysis)?;
    let fired = rules::of_report(&report);
    let path = dir.join(format!("{}.html", spec.key));
    let tmp = dir.join(format!("{}.html.tmp", spec.key));
    std::fs::write(&tmp, page).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(fired)
}

/// The level's figures from its analysis (definitions in `docs/metrics.md`).
fn row_of(spec: &LevelSpec, run: &store::Run, a: &hsg::Analysis, seconds: f64) -> LevelRow {
    let s = &a.summary;
    let c = &a.condensation;
    let dead: u64 = (0..c.hyperstate_count())
        .filter(|&h| a.tagging.tag(h).is_lost())
        .map(|h| c.member_offsets[h as usize + 1] - c.member_offsets[h as usize])
        .sum();
    LevelRow {
        key: spec.key.clone(),
        file: spec.file.display().to_string(),
        number: spec.number,
        title: spec.title.clone(),
        complete: run.status() == RunStatus::Complete && !s.provisional,
        states: s.states,
        hyperstates: s.hyperstates,
        compression: s.compression,
        shortest_win_actions: s.shortest_win.actions,
        shortest_win_critical: s.shortest_win.critical_actions,
        dead_state_share: if s.states == 0 {
            0.0
        } else {
            dead as f64 / s.states as f64
        },
        spectrum_breadth: s.failure_spectrum.breadth,
        root_headroom: s.headroom.as_ref().map(|h| h.root_hyperstates),
        seconds,
        rules: Vec::new(),
    }
}

/// Progress of one level's exploration is not shown: the batch shows levels.
struct Quiet;

impl ProgressSink for Quiet {
    fn progress(&mut self, _: &Progress) {}
    fn note(&mut self, _: &str) {}
}
