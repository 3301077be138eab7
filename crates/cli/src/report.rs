//! `hsg info` and `hsg report`: summaries of a store for people and scripts.
//!
//! The JSON report is a stable interface: `"schema": "hyperstate.report/1"`;
//! keys are only ever added, never renamed.

use crate::analyze_cmd::{analysis_for, AnalysisFlags};
use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use hsg::SavedAnalysis;
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

/// Arguments of `hsg report`.
#[derive(Args, Debug)]
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

/// Terminal states per outcome name.
fn outcome_counts(run: &Run) -> Map<String, Value> {
    let names = &run.identity().outcome_names;
    let mut counts = vec![0u64; names.len()];
    let mut unknown = 0u64;
    for (_, outcome) in run.terminals() {
        match counts.get_mut(outcome as usize) {
            Some(c) => *c += 1,
            None => unknown += 1,
        }
    }
    let mut map: Map<String, Value> = names
        .iter()
        .zip(counts)
        .map(|(n, c)| (n.clone(), json!(c)))
        .collect();
    if unknown > 0 {
        map.insert("undeclared".into(), json!(unknown));
    }
    map
}

fn status_name(status: RunStatus) -> &'static str {
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
    json!({
        "complete": run.status() == RunStatus::Complete,
        "status": status_name(run.status()),
        "states": count,
        "expanded": run.expanded_count(),
        "transitions": run.transition_count(),
        "max_depth": sizes.len().saturating_sub(1),
        "layer_sizes": sizes,
        "outcomes": outcome_counts(run),
        "options": id.options,
    })
}

/// Runs `hsg report`.
pub fn report(args: ReportArgs) -> Result<ExitCode> {
    let format = match (args.json, args.format) {
        (true, _) => ReportFormat::Json,
        (false, Some(f)) => f,
        (false, None) => bail!("choose a format: --json or --format json|md"),
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
        ReportFormat::Md => out!("{}", markdown_report(&run, &args.dir, analysis.as_ref())),
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
    }
    Ok(report)
}

/// The Markdown report: the exploration as a short table, then the analysis.
fn markdown_report(run: &Run, dir: &std::path::Path, analysis: Option<&SavedAnalysis>) -> String {
    let summary = analysis.map(|a| &a.summary);
    let id = run.identity();
    let e = exploration(run);
    let mut md = format!(
        "# {} / {}\n\nStore `{}`, level hash `{}`.\n\n## Exploration\n\n\
         | | |\n|---|---|\n| status | {} |\n| states | {} |\n| expanded | {} |\n\
         | transitions | {} |\n| max depth | {} |\n",
        id.game,
        id.level_title,
        dir.display(),
        id.level_hash,
        e["status"].as_str().unwrap_or("?"),
        e["states"],
        e["expanded"],
        e["transitions"],
        e["max_depth"],
    );
    if let Some(outcomes) = e["outcomes"].as_object() {
        for (name, count) in outcomes {
            md.push_str(&format!("| terminal `{name}` | {count} |\n"));
        }
    }
    if let Some(s) = summary {
        md.push('\n');
        md.push_str(&hsg::summary_markdown(s));
    }
    md.push('\n');
    md.push_str(&hsg::bfs_counters::counters_markdown(
        &puzzlegraph_counters(run, analysis),
    ));
    md
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
    let currency = if hsg::is_current(&saved.summary, run) {
        "matches the run"
    } else {
        "stale: the run changed since; `hsg analyze` computes it again"
    };
    outln!(
        "{}: ok ({} hyperstates, every checksum verified, {currency})",
        folder.display(),
        saved.summary.hyperstates
    );
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
    outln!("store      {}", args.dir.display());
    outln!(
        "game       {} / level \"{}\" ({})",
        id.game,
        id.level_title,
        id.level_hash
    );
    outln!("status     {}", e["status"].as_str().unwrap_or("?"));
    outln!("states     {} ({} expanded)", e["states"], e["expanded"]);
    outln!("transitions {}", e["transitions"]);
    outln!("max depth  {}", e["max_depth"]);
    if let Some(outcomes) = e["outcomes"].as_object() {
        let list: Vec<String> = outcomes.iter().map(|(k, v)| format!("{k} {v}")).collect();
        outln!("terminals  {}", list.join(", "));
    }
    if !id.options.is_empty() {
        let list: Vec<String> = id.options.iter().map(|(k, v)| format!("{k}={v}")).collect();
        outln!("options    {}", list.join(" "));
    }
    let p = &run.manifest().progress;
    outln!(
        "last run   {:.1} s, {:.0} states/s, {} on disk",
        p.elapsed_secs,
        p.states_per_sec,
        crate::sizes::human(p.disk_bytes)
    );
    if run.status() == RunStatus::Interrupted || run.status() == RunStatus::Running {
        outln!("           (not finished: run `hsg explore` on this store again to resume)");
    }
    Ok(ExitCode::SUCCESS)
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
    outln!("status     running, nothing committed yet");
    let p = &m.progress;
    if p.states > 0 {
        outln!(
            "progress   {} states found so far (pid {}), not yet checkpointed",
            p.states,
            p.pid
        );
    }
    outln!(
        "           (an exploration is before its first checkpoint, or stopped before it: \
         run `hsg explore` on this store again to start it over)"
    );
    Ok(ExitCode::SUCCESS)
}
