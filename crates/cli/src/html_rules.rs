//! The HTML report's section on a PuzzleScript run's rules: each rule line with the
//! states in which it fired, the rules that never fire or fire only in lost states,
//! and the inputs that hang. Read from the JSON report's `rule_coverage` and `hangs`
//! (`coverage_cmd.rs`), so the page and `hsg report --json` always agree.

use serde_json::Value;
use std::fmt::Write as _;

use super::svg::{escape, group};

/// Appends the section, when the report has rule coverage (PuzzleScript runs).
pub fn rules_section(html: &mut String, report: &Value) {
    let Some(coverage) = report.get("rule_coverage") else {
        return;
    };
    let surveyed = coverage["states_surveyed"].as_i64().unwrap_or(0);
    let partial = if coverage["complete"] == true {
        ""
    } else {
        " The run is partial: the counts are lower bounds."
    };
    let _ = write!(
        html,
        "<section id=\"rules\"><h2>Rule coverage</h2><p>Each rule with the reachable states \
         in which it fired (changed the grid, or matched with commands, under some input), \
         over {} states expanded again.{partial}</p><table><tr><th>line</th><th>rule</th>\
         <th>states</th><th>of them winnable</th><th>note</th></tr>",
        group(surveyed)
    );
    for rule in coverage["rules"].as_array().into_iter().flatten() {
        let note = if rule["decorative"] == true {
            "decorative: writes only inert objects"
        } else if rule["never_fires"] == true {
            "never fires"
        } else if rule["fires_only_when_lost"] == true {
            "fires only in lost states"
        } else if rule["at_level_start"] == true && rule["states"] == 0 {
            "fires at the level's start only"
        } else {
            ""
        };
        let _ = write!(
            html,
            "<tr data-rule-line=\"{line}\"><td>{line}</td><td><code>{text}</code></td>\
             <td>{states}</td><td>{live}</td><td>{note}</td></tr>",
            line = rule["line"],
            text = escape(rule["text"].as_str().unwrap_or("")),
            states = group(rule["states"].as_i64().unwrap_or(0)),
            live = group(rule["live_states"].as_i64().unwrap_or(0)),
        );
    }
    html.push_str("</table>");
    let hangs = &report["hangs"];
    let _ = write!(
        html,
        "<h3>Hangs</h3><p>{} (state, input) pairs whose again chain never ends.</p>",
        group(hangs["count"].as_i64().unwrap_or(0))
    );
    let list = hangs["hangs"].as_array().map_or(&[][..], Vec::as_slice);
    if !list.is_empty() {
        html.push_str("<ul>");
        for h in list.iter().take(50) {
            let inputs: Vec<&str> = h["inputs_from_start"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let _ = write!(
                html,
                "<li>state {}: <code>{}</code></li>",
                h["state"],
                escape(&inputs.join(" "))
            );
        }
        if list.len() > 50 {
            html.push_str("<li>... (hsg report --json lists more)</li>");
        }
        html.push_str("</ul>");
    }
    html.push_str("</section>");
}
