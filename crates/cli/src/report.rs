//! `hsg info` and `hsg report`: summaries of a store for people and scripts.
//!
//! The JSON report is a stable interface: `"schema": "hyperstate.report/1"`;
//! keys are only ever added, never renamed.

use anyhow::{bail, Result};
use clap::Args;
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

/// Arguments of `hsg report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The run directory.
    pub dir: PathBuf,
    /// Print JSON (the only format for now; kept for forward compatibility).
    #[arg(long)]
    pub json: bool,
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
    if !args.json {
        bail!("choose a format: --json");
    }
    let run = Run::open(&args.dir)?;
    let id = run.identity();
    let report = json!({
        "schema": "hyperstate.report/1",
        "store": args.dir.display().to_string(),
        "game": id.game,
        "level": { "title": id.level_title, "hash": id.level_hash },
        "exploration": exploration(&run),
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(ExitCode::SUCCESS)
}

/// Runs `hsg info`.
pub fn info(args: InfoArgs) -> Result<ExitCode> {
    let run = Run::open(&args.dir)?;
    let id = run.identity();
    let e = exploration(&run);
    println!("store      {}", args.dir.display());
    println!(
        "game       {} / level \"{}\" ({})",
        id.game, id.level_title, id.level_hash
    );
    println!("status     {}", e["status"].as_str().unwrap_or("?"));
    println!("states     {} ({} expanded)", e["states"], e["expanded"]);
    println!("transitions {}", e["transitions"]);
    println!("max depth  {}", e["max_depth"]);
    if let Some(outcomes) = e["outcomes"].as_object() {
        let list: Vec<String> = outcomes.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!("terminals  {}", list.join(", "));
    }
    if !id.options.is_empty() {
        let list: Vec<String> = id.options.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!("options    {}", list.join(" "));
    }
    let p = &run.manifest().progress;
    println!(
        "last run   {:.1} s, {:.0} states/s, {} on disk",
        p.elapsed_secs,
        p.states_per_sec,
        crate::sizes::human(p.disk_bytes)
    );
    if run.status() == RunStatus::Interrupted || run.status() == RunStatus::Running {
        println!("           (not finished: run `hsg explore` on this store again to resume)");
    }
    Ok(ExitCode::SUCCESS)
}
