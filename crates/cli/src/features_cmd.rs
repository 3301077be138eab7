//! `hsg features`: for every feature of a run's game, how much ignoring it shrinks the
//! HSG and how much it changes the game, ranked so that features with large compression
//! and small impact come first (the paper's future work of section VI-B.2; definitions
//! in `docs/metrics.md`, "Weak equivalence").

use crate::weak_cmd::{list, prepare, weak_analysis, WeakFlags};
use anyhow::Result;
use clap::Args;
use hsg::weak::{rank_features, FeatureRank};
use model::numbers::{grouped, percent};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `hsg features`.
#[derive(Args, Debug)]
pub struct FeaturesArgs {
    /// The run directory.
    pub dir: PathBuf,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub flags: WeakFlags,
}

/// Runs `hsg features`.
pub fn run(args: FeaturesArgs) -> Result<ExitCode> {
    let p = prepare(&args.dir, &args.flags)?;
    let mut ranks = Vec::new();
    for (index, feature) in p.game.features().into_iter().enumerate() {
        let weak = weak_analysis(&p, &[index])?;
        ranks.push(FeatureRank {
            feature,
            comparison: weak.comparison,
        });
    }
    rank_features(&mut ranks);
    let states = p.run.state_count();
    let exact_hyperstates = p.exact.condensation.hyperstate_count();
    if args.json {
        let report = json!({
            "schema": "hyperstate.features/1",
            "store": args.dir.display().to_string(),
            "game": p.game.kind(),
            "states": states,
            "exact_hyperstates": exact_hyperstates,
            "features": ranks,
        });
        outln!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{} states, {} hyperstates; features ranked by score = HSG reduction x (1 - impact), \
         where HSG reduction = 1 - weak / exact hyperstates:",
        grouped(states),
        grouped(exact_hyperstates)
    );
    if ranks.is_empty() {
        outln!("the {} game names no features", p.game.kind());
    }
    outln!(
        "{:<4} {:<16} {:>13} {:>13} {:>11} {:>11} {:>10} {:>8} {:>8}  outcomes reached",
        "rank",
        "feature",
        "classes",
        "hyperstates",
        "reduction",
        "tags moved",
        "root wins",
        "impact",
        "score"
    );
    for (i, r) in ranks.iter().enumerate() {
        let c = &r.comparison;
        outln!(
            "{:<4} {:<16} {:>13} {:>13} {:>11} {:>11} {:>10} {:>8.4} {:>8.4}  {}",
            i + 1,
            r.feature,
            grouped(c.quotient_states),
            grouped(c.hyperstates),
            percent(c.hsg_reduction),
            percent(c.tag_changed_share),
            format!(
                "{}/{}",
                yes_no(c.exact_root_tag.is_winnable()),
                yes_no(c.root_tag.is_winnable())
            ),
            c.impact,
            c.score,
            list(&c.outcomes_reached)
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}
