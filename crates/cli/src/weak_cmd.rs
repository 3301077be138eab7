//! `hsg weak`: the weak-equivalence HSG of a stored run, where states equal but for the
//! ignored features are one state (paper section VI-B.2), compared with the exact HSG.
//!
//! Also the shared preparation of `hsg features`: reloading the run's game from its
//! manifest (wrapped again in its flip tokens when the run recorded some), the exact
//! analysis, and the projection of a state id through `Game::project`.

use crate::sizes::{default_budget, parse_size};
use anyhow::{bail, Context, Result};
use clap::Args;
use hsg::weak::{analyze_weak, WeakAnalysis, WeakComparison};
use hsg::{Analysis, AnalyzeOptions, HsgSummary, RunGraph};
use model::numbers::{grouped, percent};
use model::Game;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use store::Run;

/// Arguments of `hsg weak`.
#[derive(Args, Debug)]
pub struct WeakArgs {
    /// The run directory.
    pub dir: PathBuf,
    /// A feature of the game to ignore (repeatable); `hsg features DIR` lists them.
    #[arg(long = "ignore", required = true, value_name = "FEATURE")]
    pub ignore: Vec<String>,
    /// Print JSON (the comparison and the weak HSG's full summary).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub flags: WeakFlags,
}

/// The analysis flags of `hsg weak` and `hsg features`.
#[derive(Args, Debug, Clone, Default)]
pub struct WeakFlags {
    /// The outcome that counts as winning when tagging hyperstates (default: win).
    #[arg(long)]
    pub target: Option<String>,
    /// Memory the analyses may use, e.g. 2G (default: half the machine's RAM).
    #[arg(long = "analysis-mem", value_parser = parse_size)]
    pub analysis_mem: Option<u64>,
}

impl WeakFlags {
    /// The library's options: headroom is left out (the comparison does not use it,
    /// and it is the most expensive metric).
    pub fn options(&self) -> AnalyzeOptions {
        AnalyzeOptions {
            target: self.target.clone(),
            mem_budget_bytes: self.analysis_mem.unwrap_or_else(default_budget),
            headroom: false,
            scratch_dir: None,
            progress: hsg::progress::Observer::default(),
            saving: false,
        }
    }
}

/// A run ready for weak analyses: its game, and its exact analysis.
pub struct Prepared {
    /// The stored run.
    pub run: Run,
    /// The game reloaded from the manifest.
    pub game: Box<dyn Game>,
    /// The exact analysis, for comparisons.
    pub exact: Analysis,
    /// The analysis options.
    pub opts: AnalyzeOptions,
}

/// Reloads the game of `run` from its manifest, with its flip tokens if it has any, and
/// checks that it is the game that was explored.
pub fn reload_game(run: &Run) -> Result<Box<dyn Game>> {
    let id = run.identity();
    let game = games::reload(&id.game, &id.level_text, &id.options).with_context(|| {
        format!(
            "cannot reload the {} level recorded in {}",
            id.game,
            run.dir().display()
        )
    })?;
    if game.action_labels() != id.action_labels {
        bail!(
            "{}: the level recorded in the manifest reloads with actions {:?}, but the run \
             was explored with {:?}",
            run.dir().display(),
            game.action_labels(),
            id.action_labels
        );
    }
    Ok(game)
}

/// Opens the run in `dir`, reloads its game and analyses it exactly.
pub fn prepare(dir: &std::path::Path, flags: &WeakFlags) -> Result<Prepared> {
    let run = Run::open_unverified(dir)?;
    let game = reload_game(&run)?;
    let opts = flags.options();
    let exact = hsg::analyze_unsaved(&run, &opts)
        .with_context(|| format!("cannot analyse the run in {}", dir.display()))?;
    Ok(Prepared {
        run,
        game,
        exact,
        opts,
    })
}

/// The indices of `names` among the game's features; an unknown name is an error that
/// lists the known ones.
pub fn feature_indices(game: &dyn Game, names: &[String]) -> Result<Vec<usize>> {
    let features = game.features();
    names
        .iter()
        .map(|name| {
            features.iter().position(|f| f == name).ok_or_else(|| {
                crate::usage::usage(if features.is_empty() {
                    format!("the {} game names no features to ignore", game.kind())
                } else {
                    format!(
                        "unknown feature {name:?}; the {} game has: {}",
                        game.kind(),
                        features.join(", ")
                    )
                })
            })
        })
        .collect()
}

/// The weak analysis of a prepared run ignoring the features `ignored` (indices).
pub fn weak_analysis(p: &Prepared, ignored: &[usize]) -> Result<WeakAnalysis> {
    let graph = RunGraph::new(&p.run)?;
    let project = |id: u64, out: &mut Vec<u8>| p.game.project(p.run.state(id), ignored, out);
    let weak = analyze_weak(
        &graph,
        &p.exact,
        &hsg::labels_of(&p.run),
        &p.opts,
        hsg::source_of(&p.run),
        project,
    )
    .with_context(|| format!("cannot analyse the weak HSG of {}", p.run.dir().display()))?;
    Ok(weak)
}

/// Runs `hsg weak`.
pub fn run(args: WeakArgs) -> Result<ExitCode> {
    let p = prepare(&args.dir, &args.flags)?;
    let ignored = feature_indices(p.game.as_ref(), &args.ignore)?;
    let weak = weak_analysis(&p, &ignored)?;
    if args.json {
        let report = json!({
            "schema": "hyperstate.weak/1",
            "store": args.dir.display().to_string(),
            "ignored": args.ignore,
            "comparison": weak.comparison,
            "hsg": weak.analysis.summary,
        });
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_weak(&args.ignore, &weak.comparison, &weak.analysis.summary);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_weak(ignored: &[String], c: &WeakComparison, s: &HsgSummary) {
    outln!(
        "ignoring {}: {} states -> {} classes -> {} hyperstates (exact HSG: {} hyperstates)",
        ignored.join(", "),
        grouped(c.states),
        grouped(c.quotient_states),
        grouped(c.hyperstates),
        grouped(c.exact_hyperstates)
    );
    // Not "compression", which is 1 - hyperstates / states everywhere else.
    outln!(
        "HSG reduction {} (1 - weak / exact hyperstates; states into classes: {} fewer); \
         {} critical actions, {} HSG edges",
        percent(c.hsg_reduction),
        percent(c.state_reduction),
        grouped(s.critical_actions),
        grouped(s.hsg_edges)
    );
    let t = &s.tags;
    outln!(
        "tags: win {}, fail {}, eventually winnable {}, implicitly failed {}, unknown {}; root: {} (exact: {})",
        t.win,
        t.fail,
        t.eventually_winnable,
        t.implicitly_failed,
        t.unknown,
        c.root_tag.name(),
        c.exact_root_tag.name()
    );
    outln!(
        "states whose tag changed: {} ({})",
        grouped(c.tag_changed_states),
        percent(c.tag_changed_share)
    );
    for change in &c.tag_changes {
        outln!(
            "  {} -> {}: {} states",
            change.exact.name(),
            change.weak.name(),
            change.states
        );
    }
    outln!(
        "outcomes reached: {} (exact: {})",
        list(&c.outcomes_reached),
        list(&c.exact_outcomes_reached)
    );
    if c.conflicting_classes > 0 {
        outln!(
            "{} classes merge states with different outcomes (a class with a {} member counts as {})",
            c.conflicting_classes,
            s.target,
            s.target
        );
    }
    if c.mixed_open_classes > 0 {
        outln!(
            "{} classes mix expanded and unexplored states (partial run)",
            c.mixed_open_classes
        );
    }
    outln!("impact {:.4}, score {:.4}", c.impact, c.score);
}

/// A list of names for people, `none` when empty.
pub fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

#[cfg(test)]
#[path = "weak_cmd_tests.rs"]
mod tests;
