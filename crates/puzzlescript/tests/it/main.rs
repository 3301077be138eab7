//! The puzzlescript crate's integration tests, one binary (each test binary links the
//! whole dependency graph, so one binary instead of five saves `cargo test` links).

mod cell_runs;
mod conformance;
mod direct_turns;
mod game;
mod hostile;
mod inert;
mod move_slots;
mod narrow_rules;
mod no_match;
mod reference_counts;
mod settle;

/// The shared conformance cases (`shared/fixtures/puzzlescript/testdata.jsonl`), looked
/// for beside the checkout (one level higher for a worktree); `None` (and a line saying
/// the test is skipped) when they are not there.
pub fn shared_cases_file() -> Option<std::path::PathBuf> {
    let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = ["../../../shared", "../../../../shared"]
        .map(|up| {
            crate_dir
                .join(up)
                .join("fixtures/puzzlescript/testdata.jsonl")
        })
        .into_iter()
        .find(|p| p.exists());
    if found.is_none() {
        eprintln!("skipped: no shared/fixtures/puzzlescript/testdata.jsonl beside the checkout");
    }
    found
}

/// A game of a player, crates and walls with `rules`, and one level `.P*.`: the
/// frame the tests of the fast paths write their rules into.
pub fn crates_game(rules: &str) -> String {
    format!(
        "OBJECTS\nBackground\nblack\nPlayer\nwhite\nCrate\nred\nWall\nblue\n\
         LEGEND\n. = Background\nP = Player\n* = Crate\n# = Wall\nSOUNDS\n\
         COLLISIONLAYERS\nBackground\nPlayer, Wall, Crate\nRULES\n{rules}\n\
         WINCONDITIONS\nLEVELS\n.P*.\n"
    )
}
