//! Direct turns (`engine::direct`: the whole turn of a game of narrow rules
//! in one function) change no successor: every game of the shared
//! conformance suite whose turns can run so, explored with direct turns and
//! with the general turn, gives the same successors, state by state, in the
//! same order.

use crate::crates_game;
use crate::no_match::compare_suite;
use puzzlescript::{compile, engine::direct, PuzzleScriptGame};

/// True when the turns of `source` can run as direct turns.
fn has_direct_turns(source: &str) -> bool {
    compile("case", source).is_ok_and(|g| direct::applies(&g))
}

#[test]
fn direct_turns_change_no_successor() {
    let off = |g: &mut PuzzleScriptGame| g.set_direct_turns(false);
    let Some((games, states)) = compare_suite(has_direct_turns, off) else {
        return;
    };
    assert!(
        games >= 20 && states >= 5_000,
        "{games} games with direct turns, {states} states compared"
    );
}

/// The bundled rooms' game runs direct turns; a late rule, a rule with a
/// command or an unanchored rule leaves the general turn.
#[test]
fn direct_turns_are_found_where_they_apply() {
    let applies = |rules: &str| {
        let g = compile("case", &crates_game(rules)).expect("the game compiles");
        let level = PuzzleScriptGame::new(g.clone(), 1).expect("the level loads");
        assert_eq!(level.direct_turns(), direct::applies(&g));
        direct::applies(&g)
    };
    assert!(applies("[ > Player | Crate ] -> [ > Player | > Crate ]"));
    assert!(applies(
        "[ > Player | Crate | no Wall ] -> [ > Player | > Crate | ]\n\
         [ > Crate | Wall ] -> [ Crate | Wall ]"
    ));
    assert!(!applies(
        "[ > Player | Crate ] -> [ > Player | > Crate ]\nlate [ Crate ] -> [ Wall ]"
    ));
    assert!(!applies(
        "[ > Player | Crate ] -> [ > Player | > Crate ] again"
    ));
    assert!(!applies("[ Player | Crate ] -> [ Player | Wall ]"));
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../levels/puzzlescript/room4.ps.txt"
    ))
    .expect("room4 reads");
    assert!(direct::applies(
        &compile("room4", &text).expect("room4 compiles")
    ));
}

/// A lone player's steps found without running the turn
/// (`engine::direct::walk`) change no successor: every game of the shared
/// conformance suite with direct turns gives the same successors with them
/// and without, and so does room4.
#[test]
fn walks_change_no_successor() {
    let off = |g: &mut PuzzleScriptGame| g.set_walks(false);
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../levels/puzzlescript/room4.ps.txt"
    ))
    .expect("room4 reads");
    crate::no_match::assert_level_unchanged(&text, off, 300);
    let Some((games, states)) = compare_suite(has_direct_turns, off) else {
        return;
    };
    assert!(
        games >= 20 && states >= 5_000,
        "{games} games with direct turns, {states} states compared"
    );
}
