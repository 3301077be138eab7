//! Rules compiled to plain words (`compile::NarrowRule`, matched and applied
//! by `engine::narrow_rule`) change no successor: every game of the shared
//! conformance suite that has such a rule, explored with that path and with
//! the general matcher alone, gives the same successors, state by state, in
//! the same order.

use crate::no_match::compare_level;
use puzzlescript::{compile, PuzzleScriptGame};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// True when some rule of `source` has a narrow form.
fn has_narrow_rule(source: &str) -> bool {
    compile("case", source).is_ok_and(|g| {
        [&g.rules, &g.late_rules]
            .iter()
            .flat_map(|set| set.groups.iter().flatten())
            .any(|r| r.narrow.is_some())
    })
}

#[test]
fn narrow_rules_change_no_successor() {
    let Some(path) = crate::shared_cases_file() else {
        return;
    };
    let text = std::fs::read_to_string(path).expect("the cases file reads");
    let mut sources = HashSet::new();
    let (mut games, mut states) = (0, 0);
    // A bound on the whole test's time, as in `no_match.rs`.
    let stop = Arc::new(AtomicBool::new(false));
    let watchdog = stop.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(40));
        watchdog.store(true, Ordering::Relaxed);
    });
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let case: serde_json::Value = serde_json::from_str(line).expect("a JSON case");
        let Some(source) = case.get("source").and_then(|s| s.as_str()) else {
            continue;
        };
        if !sources.insert(source.to_string()) || !has_narrow_rule(source) {
            continue;
        }
        games += 1;
        for level in 1..=2 {
            let off = |g: &mut PuzzleScriptGame| g.set_narrow_rules(false);
            match compare_level(source, level, Duration::from_millis(50), &stop, off) {
                Some(n) => states += n,
                None => break,
            }
        }
    }
    assert!(
        games >= 10 && states >= 1_000,
        "{games} games with narrow rules, {states} states compared"
    );
}

/// The Sokoban rule, and the bundled rooms' rule, has the narrow form; a
/// rule with an ellipsis, a random replacement or `rigid` has not.
#[test]
fn the_narrow_form_is_found_where_it_applies() {
    let game = |rules: &str| {
        format!(
            "OBJECTS\nBackground\nblack\nPlayer\nwhite\nCrate\nred\nWall\nblue\n\
             LEGEND\n. = Background\nP = Player\n* = Crate\n# = Wall\nSOUNDS\n\
             COLLISIONLAYERS\nBackground\nPlayer, Wall, Crate\nRULES\n{rules}\n\
             WINCONDITIONS\nLEVELS\n.P*.\n"
        )
    };
    let narrow = |rules: &str| {
        let g = compile("case", &game(rules)).expect("the game compiles");
        let all: Vec<_> = g.rules.groups.iter().flatten().collect();
        assert!(!all.is_empty());
        all.iter().all(|r| r.narrow.is_some())
    };
    assert!(narrow("[ > Player | Crate ] -> [ > Player | > Crate ]"));
    assert!(narrow(
        "[ > Player | Crate | no Wall ] -> [ > Player | > Crate | ]"
    ));
    assert!(!narrow(
        "[ > Player | ... | Crate ] -> [ > Player | ... | > Crate ]"
    ));
    assert!(!narrow(
        "rigid [ > Player | Crate ] -> [ > Player | > Crate ]"
    ));
    assert!(!narrow(
        "[ > Player | Crate ] -> [ > Player | random Crate ]"
    ));
    // No cell needs a movement: the scan of the general path.
    assert!(!narrow("[ Player | Crate ] -> [ Player | Wall ]"));
}
