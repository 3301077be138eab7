//! `hsg analyze`: condense a stored run into its hyperstate space graph, save the
//! analysis under `DIR/hsg/`, and find (or compute) the analysis other commands need.

use crate::progress::Progress;
use crate::sizes::{default_budget, parse_size};
use anyhow::{Context, Result};
use clap::Args;
use hsg::{AnalyzeOptions, HsgSummary, SavedAnalysis};
use model::numbers::{grouped, percent};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use store::Run;

/// Arguments of `hsg analyze`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// The run directory.
    pub dir: PathBuf,
    #[command(flatten)]
    pub opts: AnalysisFlags,
}

/// The flags shared by every command that may analyse a run.
#[derive(Args, Debug, Clone, Default)]
pub struct AnalysisFlags {
    /// The outcome that counts as winning when tagging hyperstates, or `score>=N`
    /// (default: `win`; without one, the best score reached; else the game's first outcome).
    #[arg(long, conflicts_with = "win_score")]
    pub target: Option<String>,
    /// For scoring games: every score of at least N counts as a win (`--target score>=N`).
    #[arg(long, value_name = "N")]
    pub win_score: Option<u32>,
    /// Memory the analysis may use beyond the mapped store, e.g. 2G (default: half the
    /// machine's RAM). Headroom falls back to HyperLogLog sketches beyond it.
    #[arg(long = "analysis-mem", value_parser = parse_size)]
    pub analysis_mem: Option<u64>,
    /// Skip the headroom metric (the most expensive one).
    #[arg(long)]
    pub no_headroom: bool,
}

impl AnalysisFlags {
    /// The target as the library reads it; `None` leaves the choice to the run.
    pub fn target_spec(&self) -> Option<String> {
        self.win_score
            .map(hsg::target::threshold_spec)
            .or_else(|| self.target.clone())
    }

    /// The library's options for these flags.
    pub fn options(&self) -> AnalyzeOptions {
        AnalyzeOptions {
            target: self.target_spec(),
            mem_budget_bytes: self.analysis_mem.unwrap_or_else(default_budget),
            headroom: !self.no_headroom,
            scratch_dir: None,
            progress: hsg::progress::Observer::default(),
            saving: false,
        }
    }
}

/// Runs `hsg analyze`.
pub fn run(args: AnalyzeArgs) -> Result<ExitCode> {
    // The analysis verifies the rows' and edges' checksums in its first pass over them,
    // which reads them anyway, rather than in a pass of its own at open; it reads no
    // state record (see `store::Run::open_deferred`).
    let run = Run::open_deferred(&args.dir)?;
    let summary = analyze_and_save(&run, &args.opts)?;
    print_outline(&summary);
    Ok(ExitCode::SUCCESS)
}

/// Analyses `run`, saves the result into its directory and says so on stderr.
pub fn analyze_and_save(run: &Run, flags: &AnalysisFlags) -> Result<HsgSummary> {
    Ok(analyze_and_save_whole(run, flags)?.summary)
}

/// [`analyze_and_save`], returning the whole analysis.
fn analyze_and_save_whole(run: &Run, flags: &AnalysisFlags) -> Result<hsg::Analysis> {
    let start = Instant::now();
    eprintln!(
        "analysing {} ({} states)...",
        run.dir().display(),
        grouped(run.state_count())
    );
    let mut opts = flags.options();
    let needed = hsg::analysis::scc_bytes_needed(run.state_count());
    if needed > opts.mem_budget_bytes {
        eprintln!(
            "the per-state arrays need about {} MiB, more than --analysis-mem ({} MiB): they go to scratch files in {} (slower once they outgrow the page cache)",
            grouped(needed.div_ceil(1 << 20)),
            grouped(opts.mem_budget_bytes >> 20),
            run.dir().join(hsg::run::SCRATCH_FOLDER).display()
        );
    }
    // The phases on a terminal, so a long analysis is never silent; nothing in a pipe
    // (the lines before and after say what it does). It counts phases, not time: the
    // first (the components) is usually the longest, and the message says which runs.
    let bar = std::sync::Arc::new(Progress::terminal_only(format!(
        "analysing {} states",
        grouped(run.state_count())
    )));
    let phases = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    {
        let (bar, phases) = (bar.clone(), phases.clone());
        let notes = bar.clone();
        opts.progress = hsg::progress::Observer::new(move |step| {
            if let Ok(mut phases) = phases.lock() {
                phases.push((step.phase.name(), Instant::now()));
            }
            bar.step(step.number, step.of, step.phase.name());
        })
        .with_notes(move |note| notes.println(note));
    }
    let analysis = hsg::analyze(run, &opts);
    bar.finish();
    let analysis =
        analysis.with_context(|| format!("cannot analyse the run in {}", run.dir().display()))?;
    eprintln!(
        "analysis saved in {} ({:.1} s{})",
        run.dir().join(hsg::persist::FOLDER).display(),
        start.elapsed().as_secs_f64(),
        phase_times(&phases.lock().map(|p| p.clone()).unwrap_or_default())
    );
    Ok(analysis)
}

/// The seconds each phase took (each runs until the next starts, the last until now),
/// so that a long analysis says where its time went: `: tags 0.1 s; saving 0.3 s`.
fn phase_times(phases: &[(&str, Instant)]) -> String {
    let now = Instant::now();
    let parts: Vec<String> = phases
        .iter()
        .enumerate()
        .map(|(i, (name, at))| {
            let end = phases.get(i + 1).map_or(now, |next| next.1);
            format!("{name} {:.1} s", (end - *at).as_secs_f64())
        })
        .collect();
    match parts.is_empty() {
        true => String::new(),
        false => format!(": {}", parts.join("; ")),
    }
}

/// How headroom was computed, for people: exact, sketched (and why), or not at all.
pub fn headroom_line(s: &HsgSummary) -> String {
    match (&s.headroom, &s.headroom_note) {
        (Some(h), note) => match h.method {
            hsg::headroom::HeadroomMethod::Exact => "headroom: exact".to_string(),
            hsg::headroom::HeadroomMethod::HyperLogLog {
                precision,
                relative_standard_error,
            } => format!(
                "headroom: HyperLogLog estimate (precision {precision}, relative standard error {:.1}%){}",
                100.0 * relative_standard_error,
                note.as_deref().map(|n| format!("; {n}")).unwrap_or_default()
            ),
        },
        (None, note) => format!(
            "headroom: not computed ({})",
            note.as_deref().unwrap_or("not requested")
        ),
    }
}

/// True when the analysis saved in `dir` matches the run as it is now and was made
/// for the target asked for (any target when none is asked for: the saved summary
/// names the one it used, e.g. the one given to `hsg explore --analyze`).
/// A damaged summary is named on stderr (and then computed again, as a stale one is).
fn saved_is_usable(dir: &Path, run: &Run, target: Option<&str>) -> Option<HsgSummary> {
    let summary = match hsg::load_summary(dir) {
        Ok(summary) => summary,
        Err(hsg::HsgError::Io { source, .. }) if source.kind() == ErrorKind::NotFound => {
            return None
        }
        Err(err) => {
            eprintln!("the saved analysis cannot be read ({err}); analysing again");
            return None;
        }
    };
    let same_target = target.is_none_or(|t| summary.target == t);
    (same_target && hsg::is_current(&summary, run)).then_some(summary)
}

/// The analysis summary of `run` for `flags`: the saved one when it is current, else a
/// fresh analysis, saved when the run is no longer being written (a store another
/// process is still exploring is analysed in memory only).
pub fn summary_for(run: &Run, flags: &AnalysisFlags) -> Result<HsgSummary> {
    if let Some(summary) = saved_is_usable(run.dir(), run, flags.target_spec().as_deref()) {
        return Ok(summary);
    }
    if !hsg::may_save(run) {
        return Ok(hsg::analyze_unsaved(run, &flags.options())?.summary);
    }
    analyze_and_save(run, flags)
}

/// The whole analysis of `run` for `flags`, per-hyperstate arrays included: the saved one
/// when it is current and reads back whole, else a fresh one (saved unless another
/// process is still writing the run). A damaged saved file is named on stderr and the
/// analysis computed again, as `hsg export` does: it is derived data.
pub fn analysis_for(run: &Run, flags: &AnalysisFlags) -> Result<SavedAnalysis> {
    if saved_is_usable(run.dir(), run, flags.target_spec().as_deref()).is_some() {
        match hsg::load(run.dir()) {
            Ok(saved) => return Ok(saved),
            Err(err) => eprintln!("the saved analysis cannot be read ({err}); analysing again"),
        }
    }
    let analysis = if !hsg::may_save(run) {
        hsg::analyze_unsaved(run, &flags.options())?
    } else {
        analyze_and_save_whole(run, flags)?
    };
    Ok(SavedAnalysis::from_analysis(&analysis))
}

/// Makes sure `DIR/hsg/` holds an analysis of `run` as it is now (for exports and the
/// workbench, which read the saved per-hyperstate files).
pub fn ensure_saved(run: &Run, flags: &AnalysisFlags) -> Result<()> {
    if saved_is_usable(run.dir(), run, flags.target_spec().as_deref()).is_none() {
        analyze_and_save(run, flags)?;
    }
    Ok(())
}

/// A few lines for people after an analysis.
pub fn print_outline(s: &HsgSummary) {
    let t = &s.tags;
    outln!(
        "{} states -> {} hyperstates (compression {}), {} critical actions, {} HSG edges",
        grouped(s.states),
        grouped(s.hyperstates),
        percent(s.compression),
        grouped(s.critical_actions),
        grouped(s.hsg_edges)
    );
    outln!(
        "tags: win {}, fail {}, eventually winnable {}, implicitly failed {}, unknown {}; root: {}",
        grouped(t.win),
        grouped(t.fail),
        grouped(t.eventually_winnable),
        grouped(t.implicitly_failed),
        grouped(t.unknown),
        s.root_tag.name()
    );
    match (s.shortest_win.actions, s.shortest_win.critical_actions) {
        (Some(a), Some(c)) => outln!("shortest win: {} actions, {c} critical", grouped(a)),
        // In a partial run a win may still lie beyond the unexpanded states.
        _ if s.provisional => outln!("no win found yet for target `{}`", s.target),
        _ => outln!("no win reachable for target `{}`", s.target),
    }
    outln!("{}", headroom_line(s));
    if s.provisional {
        outln!(
            "provisional: {} states were never expanded (their tags are unknown)",
            grouped(s.open_states)
        );
    }
}
