//! The experiment's tables and summary as text: `runs.csv`,
//! `instances.csv`, `tokens.csv` and a Markdown summary with the highest-
//! and lowest-scoring boards drawn as in the seed's Figure 5.

use std::fmt::Write as _;

use games::sandbox::{draw_instance, spec_text, Spec, TokenKind};

use crate::experiment::Results;
use crate::stats::{kinds_used, ExperimentStats, Summary};

/// `instance,run,best_score`, one line per run (1-based instance and run).
pub fn runs_csv(results: &Results) -> String {
    let mut out = String::from("instance,run,best_score\n");
    for r in &results.runs {
        let _ = writeln!(out, "{},{},{}", r.instance + 1, r.run + 1, r.best_score);
    }
    out
}

/// `instance,min,q1,median,q3,max,mean,sd` plus hardness, top rate and
/// interest, one line per instance.
pub fn instances_csv(stats: &ExperimentStats) -> String {
    let mut out =
        String::from("instance,min,q1,median,q3,max,mean,sd,hardness,top_rate,interest\n");
    for s in &stats.instances {
        let m = &s.summary;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{:.3},{:.3},{:.3},{:.3},{:.3}",
            s.instance + 1,
            m.min,
            m.q1,
            m.median,
            m.q3,
            m.max,
            m.mean,
            m.sd,
            s.hardness,
            s.top_rate,
            s.interest
        );
    }
    out
}

/// Mean tokens of each kind picked up by the best chromosomes, per instance.
pub fn tokens_csv(results: &Results, stats: &ExperimentStats) -> String {
    let kinds = kinds_used(results);
    let mut out = String::from("instance");
    for k in &kinds {
        let _ = write!(out, ",{}", k.name());
    }
    out.push('\n');
    for s in &stats.instances {
        let _ = write!(out, "{}", s.instance + 1);
        for k in &kinds {
            let _ = write!(out, ",{:.2}", s.picked[usize::from(k.code())]);
        }
        out.push('\n');
    }
    out
}

fn summary_row(name: &str, s: &Summary) -> String {
    format!(
        "| {name} | {} | {} | {} | {} | {} | {:.2} | {:.2} |\n",
        s.min, s.q1, s.median, s.q3, s.max, s.mean, s.sd
    )
}

/// The human summary: design, spread across instances, hardness and
/// interest, tokens picked up, and the extreme boards.
pub fn summary_md(results: &Results, stats: &ExperimentStats, seconds: f64) -> String {
    let d = &results.design;
    let mut out = format!("# Affordance Sandbox experiment: {}\n\n", d.spec.title);
    let _ = writeln!(
        out,
        "{} instances x {} runs, seed {}; population {}, {} genes, {} updates, tournament {}; {} games in {:.1} s ({:.1} M games/s).\n",
        d.instances,
        d.runs,
        d.seed,
        d.params.population,
        d.params.genes,
        d.params.updates,
        d.params.tournament,
        results.games(),
        seconds,
        results.games() as f64 / seconds.max(1e-9) / 1e6
    );
    out.push_str("## Specification\n\n```\n");
    out.push_str(&spec_text(&Spec {
        seed: d.seed,
        ..d.spec.clone()
    }));
    out.push_str("```\n\n## Best scores across instances\n\n");
    out.push_str(
        "| | min | q1 | median | q3 | max | mean | sd |\n|---|---|---|---|---|---|---|---|\n",
    );
    out.push_str(&summary_row("top score of an instance", &stats.top_scores));
    out.push_str(&summary_row(
        "mean best score of an instance",
        &stats.mean_scores,
    ));
    let _ = writeln!(
        out,
        "\nInstances without variation (every run found the same best score): {} of {}.\n\
         Mean hardness (sd of best scores): {:.2}. Mean interest (range x rarity of the top): {:.2}.\n",
        stats.without_variation,
        stats.instances.len(),
        stats.hardness,
        stats.interest
    );
    out.push_str(&tokens_section(results, stats));
    for (label, i) in [("Highest", stats.highest), ("Lowest", stats.lowest)] {
        out.push_str(&board_section(results, stats, label, i));
    }
    out
}

fn tokens_section(results: &Results, stats: &ExperimentStats) -> String {
    let mut out = String::from("## Tokens picked up by the best chromosomes (mean per run)\n\n");
    for k in kinds_used(results) {
        let placed =
            results.design.spec.count(k) + results.design.spec.hidden[usize::from(k.code())];
        let _ = writeln!(
            out,
            "- {}: {:.2} of {}",
            k.name(),
            stats.picked[usize::from(k.code())],
            placed
        );
    }
    out.push('\n');
    out
}

fn board_section(results: &Results, stats: &ExperimentStats, label: &str, i: usize) -> String {
    let Some(inst) = results.instances.get(i) else {
        return String::new();
    };
    let s = &stats.instances[i].summary;
    let mut out = format!(
        "## {label} mean best score: instance {} (mean {:.2}, min {}, max {})\n\n```\n",
        i + 1,
        s.mean,
        s.min,
        s.max
    );
    out.push_str(&draw_instance(inst));
    let blue: u32 = inst
        .all_tokens()
        .filter(|t| t.kind == TokenKind::Blue)
        .map(|t| u32::from(t.value))
        .sum();
    let _ = writeln!(
        out,
        "```\n\nBlue total {blue}; start ration {}.\n",
        inst.moves
    );
    out
}
