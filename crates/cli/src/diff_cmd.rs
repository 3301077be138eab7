//! `hsg diff LIMITED FULL`: the HSG of a depth-limited (or partial) run against the
//! exhaustive run of the same level: merges the limit prevented, tag moves, metrics.

use crate::analyze_cmd::{ensure_saved, AnalysisFlags};
use anyhow::{bail, Context, Result};
use clap::Args;
use hsg::depth_compare::{compare_runs, RunComparison};
use std::path::PathBuf;
use std::process::ExitCode;
use store::Run;

/// Arguments of `hsg diff`.
#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The limited run (e.g. explored with --hsg-depth or --max-depth).
    pub limited: PathBuf,
    /// The exhaustive run of the same level.
    pub full: PathBuf,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub analysis: AnalysisFlags,
}

/// Runs `hsg diff`.
pub fn run(args: DiffArgs) -> Result<ExitCode> {
    let limited = Run::open_unverified(&args.limited)?;
    let full = Run::open_unverified(&args.full)?;
    let (li, fi) = (limited.identity(), full.identity());
    if li.game != fi.game || li.level_hash != fi.level_hash {
        bail!(
            "{} ({} level {:?}) and {} ({} level {:?}) are runs of different levels",
            args.limited.display(),
            li.game,
            li.level_title,
            args.full.display(),
            fi.game,
            fi.level_title
        );
    }
    ensure_saved(&limited, &args.analysis)?;
    ensure_saved(&full, &args.analysis)?;
    let ls = hsg::load(limited.dir())
        .with_context(|| format!("cannot load the analysis of {}", args.limited.display()))?;
    let fs = hsg::load(full.dir())
        .with_context(|| format!("cannot load the analysis of {}", args.full.display()))?;
    let c = compare_runs(&ls, &fs, |s| full.find_state(limited.state(s)))?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&c)?);
    } else {
        print_text(&c);
    }
    Ok(ExitCode::SUCCESS)
}

const TAGS: [&str; 5] = [
    "win",
    "fail",
    "eventually winnable",
    "implicitly failed",
    "unknown",
];

fn print_text(c: &RunComparison) {
    outln!("{:<28} {:>14} {:>14}", "", "limited", "exhaustive");
    let row = |name: &str, a: String, b: String| outln!("{name:<28} {a:>14} {b:>14}");
    row(
        "states",
        c.states.limited.to_string(),
        c.states.full.to_string(),
    );
    row(
        "hyperstates",
        c.hyperstates.limited.to_string(),
        c.hyperstates.full.to_string(),
    );
    row(
        "compression",
        format!("{:.4}", c.compression.limited),
        format!("{:.4}", c.compression.full),
    );
    row(
        "critical actions",
        c.critical_actions.limited.to_string(),
        c.critical_actions.full.to_string(),
    );
    row(
        "HSG edges",
        c.hsg_edges.limited.to_string(),
        c.hsg_edges.full.to_string(),
    );
    row(
        "HSG depth",
        c.hsg_depth.limited.to_string(),
        c.hsg_depth.full.to_string(),
    );
    row(
        "root tag",
        c.root_tag.limited.clone(),
        c.root_tag.full.clone(),
    );
    let opt = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
    row(
        "shortest win (critical)",
        opt(c.shortest_win_critical.limited),
        opt(c.shortest_win_critical.full),
    );
    for (i, tag) in TAGS.iter().enumerate() {
        row(
            &format!("hyperstates {tag}"),
            c.tags.limited[i].to_string(),
            c.tags.full[i].to_string(),
        );
    }
    outln!(
        "\n{} exhaustive hyperstates are split in the limited run ({} of its states): merges the limit prevented",
        c.split_hyperstates,
        c.states_in_split_hyperstates
    );
    for (a, b) in &c.examples {
        outln!("  e.g. states {a} and {b}: one hyperstate when exhaustive, two when limited");
    }
    if c.missing_states > 0 || c.merged_only_in_limited > 0 {
        outln!(
            "warning: {} limited states are missing from the exhaustive run and {} limited hyperstates span several exhaustive ones: the runs are not a run and its sub-run",
            c.missing_states,
            c.merged_only_in_limited
        );
    }
    outln!("\nstates by tag, limited (rows) against exhaustive (columns):");
    for (i, tag) in TAGS.iter().enumerate() {
        let cells: Vec<String> = c.tag_moves[i].iter().map(|n| format!("{n:>10}")).collect();
        outln!("  {tag:<20}{}", cells.join(""));
    }
}
