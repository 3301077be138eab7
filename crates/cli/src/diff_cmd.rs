//! `hsg diff LIMITED FULL`: the HSG of a depth-limited (or partial) run against the
//! exhaustive run of the same level: merges the limit prevented, tag moves, metrics.

use crate::analyze_cmd::{ensure_saved, AnalysisFlags};
use crate::usage::usage;
use anyhow::{bail, Context, Result};
use clap::Args;
use hsg::depth_compare::{compare_runs, RunComparison};
use model::numbers::{grouped, percent};
use std::path::PathBuf;
use std::process::ExitCode;
use store::{Run, RunStatus};

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
    check_order(&args, &limited, &full)?;
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

/// The tags in `RunComparison`'s order, with the short names of the tag matrix's columns.
const TAGS: [(&str, &str); 5] = [
    ("win", "win"),
    ("fail", "fail"),
    ("eventually winnable", "e-win"),
    ("implicitly failed", "i-fail"),
    ("unknown", "unknown"),
];

/// Refuses two runs given in the wrong order: the limited run goes first, and it cannot
/// be complete while the exhaustive one is not, nor hold more states than it.
///
/// Regression: swapped arguments printed a full table of inverted figures (the
/// "limited" run with fewer hyperstates, every exhaustive state "missing") and exited 0.
fn check_order(args: &DiffArgs, limited: &Run, full: &Run) -> Result<()> {
    let (l, f) = (args.limited.display(), args.full.display());
    let swapped = || {
        format!(
            "the runs look swapped: the limited run goes first, the exhaustive one second: \
             hsg diff {} {}",
            crate::advice::shell_path(&args.full),
            crate::advice::shell_path(&args.limited)
        )
    };
    if limited.status() == RunStatus::Complete && full.status() != RunStatus::Complete {
        return Err(usage(format!(
            "{l} is complete but {f} is not (its status is {}): {}",
            crate::report::status_name(full.status()),
            swapped()
        )));
    }
    if limited.state_count() > full.state_count() {
        return Err(usage(format!(
            "{l} has {} states, more than the {} of {f}: {}",
            limited.state_count(),
            full.state_count(),
            swapped()
        )));
    }
    Ok(())
}

/// Rows of a name and one cell per column, printed with every column as wide as its
/// widest cell: names to the left, figures to the right.
fn print_table(header: &[&str], rows: &[(String, Vec<String>)], indent: &str) {
    let name_width = rows
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0);
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            rows.iter()
                .filter_map(|(_, cells)| cells.get(i))
                .chain(std::iter::once(&header[i].to_string()))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |name: &str, cells: &[String]| {
        let mut text = format!("{indent}{name:<name_width$}");
        for (cell, width) in cells.iter().zip(&widths) {
            text.push_str(&format!("  {cell:>width$}"));
        }
        outln!("{}", text.trim_end());
    };
    let head: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    line("", &head);
    for (name, cells) in rows {
        line(name, cells);
    }
}

fn metric_rows(c: &RunComparison) -> Vec<(String, Vec<String>)> {
    let pair = |name: &str, a: String, b: String| (name.to_string(), vec![a, b]);
    let opt = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
    let mut rows = vec![
        pair("states", grouped(c.states.limited), grouped(c.states.full)),
        pair(
            "hyperstates",
            grouped(c.hyperstates.limited),
            grouped(c.hyperstates.full),
        ),
        pair(
            "compression",
            percent(c.compression.limited),
            percent(c.compression.full),
        ),
        pair(
            "critical actions",
            grouped(c.critical_actions.limited),
            grouped(c.critical_actions.full),
        ),
        pair(
            "HSG edges",
            grouped(c.hsg_edges.limited),
            grouped(c.hsg_edges.full),
        ),
        pair(
            "HSG depth",
            c.hsg_depth.limited.to_string(),
            c.hsg_depth.full.to_string(),
        ),
        pair(
            "root tag",
            c.root_tag.limited.clone(),
            c.root_tag.full.clone(),
        ),
        pair(
            "shortest win (critical)",
            opt(c.shortest_win_critical.limited),
            opt(c.shortest_win_critical.full),
        ),
    ];
    for (i, (tag, _)) in TAGS.iter().enumerate() {
        rows.push(pair(
            &format!("hyperstates {tag}"),
            grouped(c.tags.limited[i]),
            grouped(c.tags.full[i]),
        ));
    }
    rows
}

fn print_text(c: &RunComparison) {
    print_table(&["limited", "exhaustive"], &metric_rows(c), "");
    outln!(
        "\n{} exhaustive hyperstates are split in the limited run ({} of its states): merges the limit prevented",
        grouped(c.split_hyperstates),
        grouped(c.states_in_split_hyperstates)
    );
    for (a, b) in &c.examples {
        outln!("  e.g. states {a} and {b}: one hyperstate when exhaustive, two when limited");
    }
    if c.missing_states > 0 || c.merged_only_in_limited > 0 {
        outln!(
            "warning: {} limited states are missing from the exhaustive run and {} limited hyperstates span several exhaustive ones: the runs are not a run and its sub-run",
            grouped(c.missing_states),
            grouped(c.merged_only_in_limited)
        );
    }
    outln!("\nstates by tag: limited run's tag (rows) against the exhaustive run's (columns)");
    let header: Vec<&str> = TAGS.iter().map(|(_, short)| *short).collect();
    let rows: Vec<(String, Vec<String>)> = TAGS
        .iter()
        .zip(&c.tag_moves)
        .map(|((tag, _), row)| (tag.to_string(), row.iter().map(|&n| grouped(n)).collect()))
        .collect();
    print_table(&header, &rows, "  ");
    outln!("  (e-win: eventually winnable, i-fail: implicitly failed)");
}
