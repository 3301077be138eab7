//! Rule coverage and hangs end to end: the real `hsg` explores small PuzzleScript games
//! written for them (a dead rule, a rule that fires only once the level is lost, an
//! `again` chain that never ends) and `report`, `path --to hang` and `html` say so,
//! with every count worked out by hand in the comments.

use crate::util::{explore, level, ok, path_arg, report, run};
use std::path::{Path, PathBuf};

fn explored(dir: &Path, game: &str) -> PathBuf {
    let store = dir.join(game);
    explore(
        &level(&format!("puzzlescript/{game}.txt")),
        &store,
        &["--analyze"],
    );
    store
}

/// Pitfall: `#H.P.O#`, the player at 3. States: 0 the start, 1 the player at 2, 2 at
/// 4, 3 fallen into the pit (lost: no player), 4 won at the goal. The message rule
/// (line 62) matches only in state 3, under each input; the fall (line 63) happens
/// when state 1 steps left; the gem rule (line 64) never matches: no level has a gem.
#[test]
fn report_lists_every_rule_with_its_states_and_the_dead_and_lost_only_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = explored(dir.path(), "pitfall");
    let r = report(&store);
    let c = &r["rule_coverage"];
    assert_eq!(c["complete"], true);
    assert_eq!(c["states_surveyed"], 4, "the won state is not expanded");
    let rows: Vec<(u64, u64, u64, bool, bool)> = c["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|x| {
            (
                x["line"].as_u64().unwrap_or(0),
                x["states"].as_u64().unwrap_or(9),
                x["live_states"].as_u64().unwrap_or(9),
                x["never_fires"] == true,
                x["fires_only_when_lost"] == true,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (62, 1, 0, false, true),
            (63, 1, 1, false, false),
            (64, 0, 0, true, false)
        ]
    );
    assert_eq!(c["never_fire"], serde_json::json!([64]));
    assert_eq!(c["fire_only_when_lost"], serde_json::json!([62]));
    assert_eq!(
        c["rules"][2]["text"],
        "[ > player | gem ] -> [ > player | > gem ]"
    );
    assert_eq!(r["hangs"]["count"], 0);
    // The report's earlier keys are all still there.
    for key in ["schema", "exploration", "hsg", "puzzlegraph_counters"] {
        assert!(r.get(key).is_some(), "{key} missing");
    }
    let md = ok(&["report", path_arg(&store), "--format", "md"]);
    let md = String::from_utf8_lossy(&md.stdout).into_owned();
    let section = md
        .split("## Rule coverage")
        .nth(1)
        .expect("a coverage section");
    assert_eq!(
        section,
        "\n\nEach rule with the reachable states in which it fired (changed the grid, or \
         matched with commands, under some input), over 4 states expanded again.\n\n\
         | line | rule | states | of them winnable | note |\n|---|---|---|---|---|\n\
         | 62 | `[ ghost ] -> message you fell into the pit.` | 1 | 0 | fires only in lost states |\n\
         | 63 | `[ > player \\| pit ] -> [ \\| pit ghost ]` | 1 | 1 |  |\n\
         | 64 | `[ > player \\| gem ] -> [ > player \\| > gem ]` | 0 | 0 | never fires |\n\
         \n## Hangs\n\n0 (state, input) pairs whose again chain never ends.\n"
    );
}

/// Stuck switch: `#OP.S#a#`, the player at 2. States: 0 the start, 1 won (one step
/// left), 2 the player at 3, 3 on the switch at 4. `action` on the switch starts the
/// lamp blinking B, C, B, ... for ever: the one hang is (3, action), reached by
/// right, right.
#[test]
fn hangs_are_reported_and_path_to_hang_prints_the_shortest_inputs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = explored(dir.path(), "stuck-switch");
    let r = report(&store);
    assert_eq!(
        r["hangs"],
        serde_json::json!({
            "count": 1,
            "listed": 1,
            "hangs": [{"state": 3, "input": "action", "inputs_from_start": ["right", "right", "action"]}],
        })
    );
    let s = path_arg(&store);
    let out = ok(&["path", s, "--to", "hang"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "right right action\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "2 actions from state 0 to state 3, then `action`: its again chain never ends\n"
    );
    let out = ok(&["path", s, "--to", "hang", "--format", "puzzlescript"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "3,3,4\n");
    let out = ok(&["path", s, "--to", "hang", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["inputs"], serde_json::json!(["right", "right", "action"]));
    assert_eq!(
        (v["hang_state"].as_u64(), v["to"].as_str()),
        (Some(3), Some("hang"))
    );
}

/// No hang: exit 1 with a reason; not PuzzleScript: exit 2 and no coverage keys.
#[test]
fn path_to_hang_without_a_hang_or_on_another_game_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = explored(dir.path(), "pitfall");
    let out = run(&["path", path_arg(&store), "--to", "hang"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("no (state, input) of this run starts an again chain that never ends"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sokoban = dir.path().join("twoboxes");
    explore(&level("sokoban/twoboxes.xsb"), &sokoban, &["--analyze"]);
    let out = run(&["path", path_arg(&sokoban), "--to", "hang"]);
    assert_eq!(out.status.code(), Some(2));
    let r = report(&sokoban);
    assert!(r.get("rule_coverage").is_none() && r.get("hangs").is_none());
}

/// The HTML report has the same rows as the JSON report.
#[test]
fn the_html_report_has_a_rule_coverage_section() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = explored(dir.path(), "pitfall");
    let page = dir.path().join("pitfall.html");
    ok(&["html", path_arg(&store), "-o", path_arg(&page)]);
    let html = std::fs::read_to_string(&page).expect("page written");
    assert!(html.contains("<section id=\"rules\"><h2>Rule coverage</h2>"));
    assert!(
        html.contains(
            "<tr data-rule-line=\"64\"><td>64</td><td><code>[ &gt; player | gem ] -&gt; \
         [ &gt; player | &gt; gem ]</code></td><td>0</td><td>0</td><td>never fires</td></tr>"
        ),
        "{html}"
    );
    assert!(html.contains(
        "<tr data-rule-line=\"62\"><td>62</td><td><code>[ ghost ] -&gt; message you fell into \
         the pit.</code></td><td>1</td><td>0</td><td>fires only in lost states</td></tr>"
    ));
    let store = explored(dir.path(), "stuck-switch");
    ok(&["html", path_arg(&store), "-o", path_arg(&page)]);
    let html = std::fs::read_to_string(&page).expect("page written");
    assert!(
        html.contains("<li>state 3: <code>right right action</code></li>"),
        "{html}"
    );
}
