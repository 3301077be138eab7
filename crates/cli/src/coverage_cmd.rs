//! Rule coverage and hangs of a PuzzleScript run for `hsg report`, `hsg html` and
//! `hsg path --to hang`: the run's stored states expanded again by the engine with its
//! firing record on (`puzzlescript::coverage`), on every core. Other games have none.

use anyhow::{Context, Result};
use games::puzzlescript::coverage::{self, Control, Coverage, Stored};
use hsg::SavedAnalysis;
use model::numbers::grouped;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use store::Run;

/// The coverage of `run`, or `None` when it is not a PuzzleScript run. A state
/// counts as lost when the analysis tags its hyperstate fail or implicitly failed
/// (without an analysis, none does). SIGINT ends the process as usual: nothing is
/// written.
pub fn survey_run(run: &Run, saved: Option<&SavedAnalysis>) -> Result<Option<Coverage>> {
    let id = run.identity();
    let Some(game) = games::puzzlescript::stored_engine(&id.game, &id.level_text, &id.options)
        .context("cannot rebuild the run's PuzzleScript level")?
    else {
        return Ok(None);
    };
    let expanded = run.expanded_count();
    let state = |s: u64| (s < expanded && run.outcome(s).is_none()).then(|| run.state(s));
    let lost = |s: u64| {
        saved.is_some_and(|a| hsg::explain::tag_of_state(a, s).is_some_and(hsg::Tag::is_lost))
    };
    let done = AtomicU64::new(0);
    let stored = Stored {
        count: run.state_count(),
        state: &state,
        lost: &lost,
    };
    let control = Control {
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        stop: Arc::new(AtomicBool::new(false)),
        done: &done,
    };
    let found = coverage::survey(&game, &stored, &control)
        .with_context(|| format!("rule coverage of {}", run.dir().display()))?;
    Ok(Some(found))
}

/// Whether the survey covers every reachable state: a partial run's counts are
/// lower bounds, and "never fires" is then only "never fired in what was explored".
fn complete(run: &Run) -> bool {
    run.status() == store::RunStatus::Complete
}

/// The report's `rule_coverage` object.
pub fn json(run: &Run, c: &Coverage) -> Value {
    let rules: Vec<Value> = c
        .rules
        .iter()
        .map(|r| {
            json!({
                "line": r.rule.line,
                "text": r.rule.text,
                "late": r.rule.late,
                "decorative": r.rule.decorative,
                "states": r.states,
                "live_states": r.live_states,
                "at_level_start": r.at_start,
                "never_fires": r.never_fires(),
                "fires_only_when_lost": r.fires_only_when_lost(),
            })
        })
        .collect();
    json!({
        "complete": complete(run),
        "states_surveyed": c.surveyed,
        "rules": rules,
        "never_fire": lines(c, |r| r.never_fires()),
        "fire_only_when_lost": lines(c, |r| r.fires_only_when_lost()),
    })
}

fn lines(c: &Coverage, keep: impl Fn(&coverage::RuleCount) -> bool) -> Vec<usize> {
    c.rules
        .iter()
        .filter(|r| keep(r))
        .map(|r| r.rule.line)
        .collect()
}

/// The report's `hangs` object: every (state, input) whose `again` chain never ends,
/// the first of them with the shortest input sequence from the start that triggers it.
pub fn hangs_json(run: &Run, c: &Coverage) -> Value {
    let labels = &run.identity().action_labels;
    let list: Vec<Value> = c
        .hangs
        .iter()
        .map(|h| {
            json!({
                "state": h.state,
                "input": label(labels, h.action),
                "inputs_from_start": hang_inputs(run, h.state, h.action),
            })
        })
        .collect();
    json!({
        "count": c.hang_count,
        "listed": list.len(),
        "hangs": list,
    })
}

fn label(labels: &[String], action: u16) -> String {
    labels
        .get(usize::from(action))
        .cloned()
        .unwrap_or_else(|| format!("#{action}"))
}

/// The shortest input sequence from the start to `state`, then `action`.
pub fn hang_inputs(run: &Run, state: u64, action: u16) -> Vec<String> {
    let labels = &run.identity().action_labels;
    let mut inputs: Vec<String> = hsg::explain::actions_from_root(run, state)
        .into_iter()
        .map(|a| label(labels, a))
        .collect();
    inputs.push(label(labels, action));
    inputs
}

/// The Markdown section of `hsg report --format md`.
pub fn markdown(run: &Run, c: &Coverage) -> String {
    let mut md = String::from("\n## Rule coverage\n\n");
    md.push_str(&format!(
        "Each rule with the reachable states in which it fired (changed the grid, or matched \
         with commands, under some input), over {} states expanded again{}.\n\n",
        grouped(c.surveyed),
        if complete(run) {
            ""
        } else {
            " (a partial run: counts are lower bounds)"
        }
    ));
    md.push_str("| line | rule | states | of them winnable | note |\n|---|---|---|---|---|\n");
    for r in &c.rules {
        md.push_str(&format!(
            "| {} | `{}` | {} | {} | {} |\n",
            r.rule.line,
            r.rule.text.replace('|', "\\|"),
            grouped(r.states),
            grouped(r.live_states),
            note(r)
        ));
    }
    md.push_str(&format!(
        "\n## Hangs\n\n{} (state, input) pairs whose again chain never ends.\n",
        grouped(c.hang_count)
    ));
    for h in c.hangs.iter().take(20) {
        md.push_str(&format!(
            "- state {} on `{}`: from the start, `{}`\n",
            h.state,
            label(&run.identity().action_labels, h.action),
            hang_inputs(run, h.state, h.action).join(" ")
        ));
    }
    if c.hangs.len() > 20 {
        md.push_str(&format!(
            "- ... ({} listed in the JSON report)\n",
            c.hangs.len()
        ));
    }
    md
}

/// What a rule's row says beside its counts.
pub fn note(r: &coverage::RuleCount) -> &'static str {
    if r.rule.decorative {
        "decorative: writes only inert objects (counted with --keep-inert)"
    } else if r.never_fires() {
        "never fires"
    } else if r.fires_only_when_lost() {
        "fires only in lost states"
    } else if r.at_start && r.states == 0 {
        "fires at the level's start only"
    } else {
        ""
    }
}
