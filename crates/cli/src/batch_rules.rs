//! Rule coverage over a batch (`rules.md`): for each PuzzleScript game file, every rule
//! with the levels it fired in, the rules that fire in no level of the batch, and those
//! that fire only in states that can no longer win. One level's coverage is its
//! report's `rule_coverage` (`hsg report`); this file only adds the levels up.

use super::LevelRow;
use model::numbers::grouped;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The name of the batch's coverage file in OUT.
pub const FILE: &str = "rules.md";

/// One rule's firing in one level, as the level's report counts it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RuleFired {
    /// The rule's line in the game file.
    pub line: usize,
    /// The rule as written.
    pub text: String,
    /// Reachable states in which it fired.
    pub states: u64,
    /// Those of them that can still win.
    pub live_states: u64,
    /// The report's `never_fires` (which also weighs firing at the level's start and
    /// decorative rules).
    #[serde(default)]
    pub never_fires: bool,
    /// The report's `fires_only_when_lost`.
    #[serde(default)]
    pub only_when_lost: bool,
}

/// The rules of a report's `rule_coverage` (none when the report has no coverage).
pub fn of_report(report: &Value) -> Vec<RuleFired> {
    let rules = report
        .get("rule_coverage")
        .and_then(|c| c.get("rules"))
        .and_then(Value::as_array);
    let number = |r: &Value, key: &str| r.get(key).and_then(Value::as_u64).unwrap_or(0);
    let flag = |r: &Value, key: &str| r.get(key).and_then(Value::as_bool).unwrap_or(false);
    rules
        .into_iter()
        .flatten()
        .map(|r| RuleFired {
            line: number(r, "line") as usize,
            text: r
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            states: number(r, "states"),
            live_states: number(r, "live_states"),
            never_fires: flag(r, "never_fires"),
            only_when_lost: flag(r, "fires_only_when_lost"),
        })
        .collect()
}

/// One rule added up over the levels of its file.
#[derive(Default)]
struct Tally {
    text: String,
    levels_fired: usize,
    /// Levels in which it fired in some state that can still win.
    levels_live: usize,
    states: u64,
    live_states: u64,
}

impl Tally {
    /// It fires in some level, and in each only where the level is lost.
    fn fires_only_when_lost(&self) -> bool {
        self.levels_fired > 0 && self.levels_live == 0
    }
}

/// `rules.md`, or `None` when no level of the batch has rule coverage.
pub fn markdown(rows: &[&LevelRow]) -> Option<String> {
    let mut by_file: BTreeMap<&str, Vec<&LevelRow>> = BTreeMap::new();
    for row in rows.iter().filter(|r| !r.rules.is_empty()) {
        by_file.entry(row.file.as_str()).or_default().push(row);
    }
    if by_file.is_empty() {
        return None;
    }
    let mut md = String::from(
        "# Rule coverage over the batch\n\n\
         Each PuzzleScript game of the batch: every rule with the number of its levels \
         in which it fired in some reachable state, and the states over all of them \
         (docs/puzzlescript.md, \"Rule coverage\").\n",
    );
    for (file, levels) in by_file {
        file_section(&mut md, file, &levels);
    }
    Some(md)
}

fn file_section(md: &mut String, file: &str, levels: &[&LevelRow]) {
    let tallies = tally(levels);
    let partial = levels.iter().filter(|r| !r.complete).count();
    let plural = if levels.len() == 1 { "" } else { "s" };
    let _ = write!(md, "\n## {file}\n\n{} level{plural}", levels.len());
    if partial > 0 {
        let _ = write!(
            md,
            ", {partial} of them partial (stopped by --max-states): \"never fires\" means \
             never fired in what was explored"
        );
    }
    md.push_str(".\n\n");
    let never: Vec<String> = lines_where(&tallies, |t| t.levels_fired == 0);
    let lost: Vec<String> = lines_where(&tallies, Tally::fires_only_when_lost);
    if never.is_empty() {
        md.push_str("Every rule fires in at least one level.\n");
    } else {
        let _ = writeln!(md, "Never fires in any level: lines {}.", never.join(", "));
    }
    if !lost.is_empty() {
        let _ = writeln!(
            md,
            "Fires only in states that can no longer win: lines {}.",
            lost.join(", ")
        );
    }
    md.push_str("\n| line | rule | levels | states | winnable states |\n|---|---|---|---|---|\n");
    for (line, t) in &tallies {
        let _ = writeln!(
            md,
            "| {line} | `{}` | {} of {} | {} | {} |",
            t.text.replace('|', "\\|").replace('`', "'"),
            t.levels_fired,
            levels.len(),
            grouped(t.states),
            grouped(t.live_states)
        );
    }
}

/// Each rule line of the levels, added up (a level that lacks a line, as an edited
/// file might, simply does not count for it).
fn tally(levels: &[&LevelRow]) -> BTreeMap<usize, Tally> {
    let mut tallies: BTreeMap<usize, Tally> = BTreeMap::new();
    for level in levels {
        for rule in &level.rules {
            let t = tallies.entry(rule.line).or_default();
            if t.text.is_empty() {
                t.text.clone_from(&rule.text);
            }
            t.levels_fired += usize::from(!rule.never_fires);
            t.levels_live += usize::from(!rule.never_fires && !rule.only_when_lost);
            t.states += rule.states;
            t.live_states += rule.live_states;
        }
    }
    tallies
}

fn lines_where(tallies: &BTreeMap<usize, Tally>, keep: impl Fn(&Tally) -> bool) -> Vec<String> {
    tallies
        .iter()
        .filter(|(_, t)| keep(t))
        .map(|(line, _)| line.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(line: usize, states: u64, live_states: u64) -> RuleFired {
        RuleFired {
            line,
            text: format!("[ rule {line} ] -> [ ]"),
            states,
            live_states,
            never_fires: states == 0,
            only_when_lost: states > 0 && live_states == 0,
        }
    }

    fn level(key: &str, complete: bool, rules: Vec<RuleFired>) -> LevelRow {
        LevelRow {
            key: key.into(),
            file: "game.txt".into(),
            complete,
            rules,
            ..LevelRow::default()
        }
    }

    #[test]
    fn a_rule_counts_as_dead_only_when_no_level_fires_it() {
        let a = level(
            "a",
            true,
            vec![rule(10, 5, 5), rule(11, 0, 0), rule(12, 3, 0)],
        );
        let b = level(
            "b",
            true,
            vec![rule(10, 0, 0), rule(11, 0, 0), rule(12, 2, 0)],
        );
        let md = markdown(&[&a, &b]).unwrap();
        assert!(md.contains("Never fires in any level: lines 11."), "{md}");
        assert!(md.contains("no longer win: lines 12."), "{md}");
        assert!(
            md.contains("| 10 | `[ rule 10 ] -> [ ]` | 1 of 2 | 5 | 5 |"),
            "{md}"
        );
        assert!(
            md.contains("| 12 | `[ rule 12 ] -> [ ]` | 2 of 2 | 5 | 0 |"),
            "{md}"
        );
        assert!(!md.contains("partial"), "{md}");
    }

    /// A rule that fires only while the level loads has no states but is not dead.
    #[test]
    fn a_rule_firing_at_the_start_is_not_dead() {
        let mut start = rule(10, 0, 0);
        start.never_fires = false;
        let a = level("a", true, vec![start]);
        let md = markdown(&[&a]).unwrap();
        assert!(
            md.contains("Every rule fires in at least one level."),
            "{md}"
        );
    }

    #[test]
    fn partial_levels_qualify_never_fires() {
        let a = level("a", false, vec![rule(10, 0, 0)]);
        let md = markdown(&[&a]).unwrap();
        assert!(md.contains("1 of them partial"), "{md}");
    }

    #[test]
    fn levels_without_coverage_write_no_file() {
        let a = level("a", true, Vec::new());
        assert_eq!(markdown(&[&a]), None);
    }

    #[test]
    fn the_report_json_gives_the_rules() {
        let report = serde_json::json!({"rule_coverage": {"rules": [
            {"line": 7, "text": "[ a ] -> [ b ]", "states": 4, "live_states": 1,
             "never_fires": false, "fires_only_when_lost": false}
        ]}});
        assert_eq!(
            of_report(&report),
            vec![RuleFired {
                line: 7,
                text: "[ a ] -> [ b ]".into(),
                states: 4,
                live_states: 1,
                never_fires: false,
                only_when_lost: false,
            }]
        );
        assert!(of_report(&serde_json::json!({})).is_empty());
    }
}
