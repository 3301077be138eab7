//! `hsg info` and `hsg report`: summaries of a store for people and scripts.
//!
//! The JSON report is a stable interface: `"schema": "hyperstate.report/1"`;
//! keys are only ever added, never renamed (`rule_coverage` and `hangs`, for
//! PuzzleScript runs, were added so).

use crate::analyze_cmd::{analysis_for, AnalysisFlags};
use anyhow::Result;
use clap::{Args, ValueEnum};
use hsg::SavedAnalysis;
use model::numbers::grouped;
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use std::process::ExitCode;
use store::{Run, RunStatus};

/// Arguments of `hsg info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The run directory.
    pub dir: PathBuf,
}

/// Report formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// The stable machine-readable report (schema hyperstate.report/1).
    Json,
    /// The same for people, as Markdown.
    Md,
}

/// Arguments of `hsg report`. A format is required: without one clap refuses the command
/// line (exit code 2) and lists the choices.
#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("output").required(true).args(["json", "format"])))]
pub struct ReportArgs {
    /// The run directory.
    pub dir: PathBuf,
    /// Print JSON (same as --format json).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// The report's format.
    #[arg(long, value_enum)]
    pub format: Option<ReportFormat>,
    /// Report the exploration only, without analysing the hyperstate graph.
    #[arg(long)]
    pub no_analysis: bool,
    #[command(flatten)]
    pub analysis: AnalysisFlags,
}

/// Terminal states per outcome, in the order the game declares its outcomes (scores in
/// increasing order), then those of an outcome the game does not declare.
struct OutcomeCounts {
    /// Each declared outcome's name and its terminal states.
    declared: Vec<(String, u64)>,
    /// Terminal states whose outcome the game does not declare (a damaged store).
    undeclared: u64,
    /// States an HSG depth limit held back: recorded beside the terminals, but neither
    /// terminal nor expanded.
    held_back: u64,
}

fn outcome_counts(run: &Run) -> OutcomeCounts {
    let names = &run.identity().outcome_names;
    let mut counts = vec![0u64; names.len()];
    let (mut undeclared, mut held_back) = (0u64, 0u64);
    for (_, outcome) in run.terminals() {
        if outcome == store::CUT_OUTCOME {
            held_back += 1;
            continue;
        }
        match counts.get_mut(usize::from(outcome)) {
            Some(c) => *c += 1,
            None => undeclared += 1,
        }
    }
    OutcomeCounts {
        declared: names.iter().cloned().zip(counts).collect(),
        undeclared,
        held_back,
    }
}

impl OutcomeCounts {
    /// The report's `outcomes` object (its keys are sorted: JSON readers look them up).
    fn json(&self) -> Map<String, Value> {
        let mut map: Map<String, Value> = self
            .declared
            .iter()
            .map(|(n, c)| (n.clone(), json!(c)))
            .collect();
        if self.undeclared > 0 {
            map.insert("undeclared".into(), json!(self.undeclared));
        }
        map
    }

    /// `win 3, fail 0` in the game's order; for a game of many outcomes (scores) the
    /// ones no state reached are summed up at the end rather than listed.
    fn text(&self) -> String {
        let many = self.declared.len() > 4;
        let mut parts: Vec<String> = self
            .declared
            .iter()
            .filter(|(_, c)| !many || *c > 0)
            .map(|(n, c)| format!("{n}: {c}"))
            .collect();
        let unreached = self.declared.iter().filter(|(_, c)| *c == 0).count();
        if many && unreached > 0 {
            parts.push(format!("{unreached} other outcomes: 0"));
        }
        if self.undeclared > 0 {
            parts.push(format!("undeclared: {}", self.undeclared));
        }
        parts.join(", ")
    }
}

pub(crate) fn status_name(status: RunStatus) -> &'static str {
    match status {
        RunStatus::Running => "running",
        RunStatus::Interrupted => "interrupted",
        RunStatus::Complete => "complete",
        RunStatus::Partial => "partial",
    }
}

/// The `exploration` object of the report.
fn exploration(run: &Run) -> Value {
    let layers = run.layers();
    let count = run.state_count();
    let sizes: Vec<u64> = layers
        .iter()
        .enumerate()
        .map(|(d, &start)| {
            layers.get(d + 1).copied().unwrap_or(count).min(count) - start.min(count)
        })
        .filter(|&n| n > 0)
        .collect();
    let id = run.identity();
    let outcomes = outcome_counts(run);
    // Regression: states held back by --hsg-depth lie below the expanded count with
    // empty rows, so `expanded` counted them and `outcomes` called them `undeclared`,
    // while the analysis said they were never expanded.
    json!({
        "complete": run.status() == RunStatus::Complete,
        "status": status_name(run.status()),
        "states": count,
        "expanded": run.expanded_count().saturating_sub(outcomes.held_back),
        "held_back": outcomes.held_back,
        "transitions": run.transition_count(),
        "max_depth": sizes.len().saturating_sub(1),
        "layer_sizes": sizes,
        "outcomes": outcomes.json(),
        "options": id.options,
    })
}

/// Runs `hsg report`.
pub fn report(args: ReportArgs) -> Result<ExitCode> {
    let format = match (args.json, args.format) {
        (true, _) => ReportFormat::Json,
        (false, Some(f)) => f,
        (false, None) => {
            return Err(crate::usage::usage(
                "choose a format: --json or --format json|md",
            ))
        }
    };
    let run = Run::open(&args.dir)?;
    // The whole analysis, not only its summary: PuzzleGraph's counters need its
    // per-hyperstate files, which must be the ones the summary describes.
    let analysis = if args.no_analysis {
        None
    } else {
        Some(analysis_for(&run, &args.analysis)?)
    };
    match format {
        ReportFormat::Json => {
            let report = json_report(&run, &args.dir, analysis.as_ref())?;
            outln!("{}", serde_json::to_string_pretty(&report)?);
        }
        ReportFormat::Md => out!("{}", markdown_report(&run, &args.dir, analysis.as_ref())?),
    }
    Ok(ExitCode::SUCCESS)
}

/// The JSON report: `exploration` always, `hsg` when the run was analysed.
pub(crate) fn json_report(
    run: &Run,
    dir: &std::path::Path,
    analysis: Option<&SavedAnalysis>,
) -> Result<Value> {
    let summary = analysis.map(|a| &a.summary);
    let id = run.identity();
    let mut report = json!({
        "schema": "hyperstate.report/1",
        "store": dir.display().to_string(),
        "game": id.game,
        "level": { "title": id.level_title, "hash": id.level_hash },
        "exploration": exploration(run),
    });
    if let (Some(s), Some(map)) = (summary, report.as_object_mut()) {
        map.insert("hsg".into(), serde_json::to_value(s)?);
    }
    if let Some(map) = report.as_object_mut() {
        let counters = puzzlegraph_counters(run, analysis);
        map.insert(
            "puzzlegraph_counters".into(),
            serde_json::to_value(counters)?,
        );
        // PuzzleScript only: the rules that fired and the inputs that hang.
        if let Some(c) = crate::coverage_cmd::survey_run(run, analysis)? {
            map.insert("rule_coverage".into(), crate::coverage_cmd::json(run, &c));
            map.insert("hangs".into(), crate::coverage_cmd::hangs_json(run, &c));
        }
    }
    Ok(report)
}

/// The Markdown report: the exploration as a short table, then the analysis.
fn markdown_report(
    run: &Run,
    dir: &std::path::Path,
    analysis: Option<&SavedAnalysis>,
) -> Result<String> {
    let summary = analysis.map(|a| &a.summary);
    let id = run.identity();
    let e = exploration(run);
    let mut md = format!(
        "# {} / {}\n\nStore `{}`, level hash `{}`.\n\n## Exploration\n\n\
         | | |\n|---|---|\n| status | {} |\n| states | {} |\n| expanded | {} |\n\
         | held back (--hsg-depth) | {} |\n| transitions | {} |\n| max depth | {} |\n",
        id.game,
        id.level_title,
        dir.display(),
        id.level_hash,
        e["status"].as_str().unwrap_or("?"),
        e["states"],
        e["expanded"],
        e["held_back"],
        e["transitions"],
        e["max_depth"],
    );
    let outcomes = outcome_counts(run);
    for (name, count) in &outcomes.declared {
        md.push_str(&format!("| terminal `{name}` | {count} |\n"));
    }
    if outcomes.undeclared > 0 {
        md.push_str(&format!(
            "| terminal of an undeclared outcome | {} |\n",
            outcomes.undeclared
        ));
    }
    if let Some(s) = summary {
        md.push('\n');
        md.push_str(&hsg::summary_markdown(s));
    }
    md.push('\n');
    md.push_str(&hsg::bfs_counters::counters_markdown(
        &puzzlegraph_counters(run, analysis),
    ));
    if let Some(c) = crate::coverage_cmd::survey_run(run, analysis)? {
        md.push_str(&crate::coverage_cmd::markdown(run, &c));
    }
    Ok(md)
}

/// PuzzleGraph's counters of the run; the states that cannot reach a goal come from
/// the analysis (unknown without one, or while it is provisional).
///
/// Regression: they came from the saved files only when those matched the summary, and
/// a freshly computed summary never matched its reloaded floats, so the report that ran
/// the analysis printed `"cannot_reach_goal": null`, as did one over damaged files.
fn puzzlegraph_counters(run: &Run, analysis: Option<&SavedAnalysis>) -> hsg::BfsCounters {
    let target = analysis.map_or(model::WIN, |a| a.summary.target.as_str());
    hsg::bfs_counters(run, target, analysis)
}

/// Runs `hsg verify`.
pub fn verify(args: InfoArgs) -> Result<ExitCode> {
    let run = Run::open(&args.dir)?;
    run.verify()?;
    outln!(
        "{}: ok ({} states, {} transitions, every checksum verified)",
        args.dir.display(),
        run.state_count(),
        run.transition_count()
    );
    verify_analysis(&run)?;
    // The user's own notes: the workbench's database, read through a copy.
    if let Some(line) = tui::bookmarks::verify(&args.dir)? {
        outln!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Checks the analysis saved under `DIR/hsg/`, when there is one: every checksum and the
/// files against each other (`hsg::load`), then whether it matches the run as it is now.
fn verify_analysis(run: &Run) -> Result<()> {
    let folder = run.dir().join(hsg::persist::FOLDER);
    if !folder.exists() {
        outln!("{}: no saved analysis", folder.display());
        return Ok(());
    }
    let saved = hsg::load(run.dir()).map_err(|err| {
        anyhow::anyhow!("the saved analysis is damaged: {err}; `hsg analyze` computes it again")
    })?;
    let advice = format!(
        "`hsg analyze {}` analyses the run as it is now.",
        run.dir().display()
    );
    let currency = hsg::currency_of(&saved.summary, run);
    let state = if currency.is_current() {
        "matches the run"
    } else {
        "not of the run as it is now"
    };
    outln!(
        "{}: ok ({} hyperstates, every checksum verified, {state})",
        folder.display(),
        saved.summary.hyperstates
    );
    if let Some(warning) = currency.warning(&advice) {
        outln!("{warning}");
    }
    Ok(())
}

/// Runs `hsg info`.
pub fn info(args: InfoArgs) -> Result<ExitCode> {
    let run = match Run::open(&args.dir) {
        Err(store::StoreError::NothingCommitted { .. }) => return info_uncommitted(&args.dir),
        other => other?,
    };
    let id = run.identity();
    let e = exploration(&run);
    outln!("store       {}", args.dir.display());
    outln!(
        "game        {} / level \"{}\" ({})",
        id.game,
        id.level_title,
        id.level_hash
    );
    let unfinished = matches!(run.status(), RunStatus::Interrupted | RunStatus::Running);
    let status = if unfinished {
        unfinished_status(&args.dir, run.status())?
    } else {
        e["status"].as_str().unwrap_or("?").to_string()
    };
    outln!("status      {status}");
    let outcomes = outcome_counts(&run);
    let held_back = match outcomes.held_back {
        0 => String::new(),
        n => {
            format!(", {n} held back by the HSG depth limit: never expanded, their future unknown")
        }
    };
    let count = |v: &serde_json::Value| v.as_u64().map_or_else(|| v.to_string(), grouped);
    outln!(
        "states      {} ({} expanded{held_back})",
        count(&e["states"]),
        count(&e["expanded"])
    );
    outln!("transitions {}", count(&e["transitions"]));
    outln!("max depth   {}", e["max_depth"]);
    outln!("terminals   {}", outcomes.text());
    if !id.options.is_empty() {
        let list: Vec<String> = id.options.iter().map(|(k, v)| format!("{k}={v}")).collect();
        outln!("options     {}", list.join(" "));
    }
    let p = &run.manifest().progress;
    outln!(
        "last run    {:.1} s, {} states/s, {} on disk",
        p.elapsed_secs,
        grouped(p.states_per_sec.round() as u64),
        crate::sizes::human(p.disk_bytes)
    );
    if unfinished {
        outln!(
            "resume      {}",
            crate::stored_run::resume_command(&args.dir)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// What an unfinished run is doing, as the store's lock tells: a manifest that says
/// `running` after its explorer was killed is stopped, not running.
fn unfinished_status(dir: &std::path::Path, status: RunStatus) -> Result<String> {
    Ok(match (store::layout::lock_holder(dir)?, status) {
        (Some(pid), _) => format!("running (pid {pid} holds the store)"),
        (None, RunStatus::Interrupted) => {
            "interrupted; no process holds the store; resumable from its last checkpoint"
                .to_string()
        }
        (None, _) => "stopped: no process holds the store (its explorer was killed or \
                      crashed); resumable from its last checkpoint"
            .to_string(),
    })
}

/// `hsg info` on a run that has committed nothing yet (its explorer has not reached its
/// first checkpoint, or stopped before it): what the manifest says, never "damaged".
fn info_uncommitted(dir: &std::path::Path) -> Result<ExitCode> {
    let m = store::Manifest::read(dir)?;
    let id = &m.identity;
    outln!("store      {}", dir.display());
    outln!(
        "game       {} / level \"{}\" ({})",
        id.game,
        id.level_title,
        id.level_hash
    );
    let holder = store::layout::lock_holder(dir)?;
    match &holder {
        Some(pid) => outln!(
            "status     running, nothing committed yet (pid {pid} holds the store; \
             its first checkpoint is still to come)"
        ),
        None => outln!(
            "status     stopped, nothing committed: no process holds the store and it \
             stopped before its first checkpoint, so nothing can be resumed"
        ),
    }
    let p = &m.progress;
    if p.states > 0 {
        outln!("progress   {} states found, not checkpointed", p.states);
    }
    if holder.is_none() {
        outln!("start over {}", crate::stored_run::resume_command(dir));
    }
    Ok(ExitCode::SUCCESS)
}
