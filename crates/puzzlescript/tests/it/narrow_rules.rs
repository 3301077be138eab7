//! Rules compiled to plain words (`compile::NarrowRule`, matched and applied
//! by `engine::narrow_rule`) change no successor: every game of the shared
//! conformance suite that has such a rule, explored with that path and with
//! the general matcher alone, gives the same successors, state by state, in
//! the same order.

use crate::crates_game;
use crate::no_match::compare_suite;
use puzzlescript::{compile, PuzzleScriptGame};

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
    let off = |g: &mut PuzzleScriptGame| g.set_narrow_rules(false);
    let Some((games, states)) = compare_suite(has_narrow_rule, off) else {
        return;
    };
    assert!(
        games >= 10 && states >= 1_000,
        "{games} games with narrow rules, {states} states compared"
    );
}

/// The Sokoban rule, and the bundled rooms' rule, has the narrow form; a
/// rule with an ellipsis, a random replacement or `rigid` has not.
#[test]
fn the_narrow_form_is_found_where_it_applies() {
    let narrow = |rules: &str| {
        let g = compile("case", &crates_game(rules)).expect("the game compiles");
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
