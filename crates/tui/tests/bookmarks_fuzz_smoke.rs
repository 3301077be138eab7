//! The bookmarks-database fuzz target's stable stand-in that CI runs on a short budget:
//! every file of a small valid `hsg-user.sled` replaced by seeds and mutants of them, then
//! opened with `Bookmarks::open` and used (see `fuzz/exercise/bookmarks.rs`): an error is
//! fine, a panic is a bug.

#[path = "../../../fuzz/exercise/bookmarks.rs"]
mod bookmark_files;
#[path = "../../../fuzz/exercise/mutate.rs"]
mod mutate;

/// Mutants in all: each opens a sled database, a few milliseconds apiece.
const MUTANTS: usize = 300;

#[test]
fn the_bookmarks_database_survives_damage() {
    let base = bookmark_files::Base::new();
    // The first byte picks the file; the corpus is refreshed with
    // HSG_WRITE_BOOKMARKS_FUZZ_SEEDS=fuzz/corpus/bookmarks.
    mutate::seeds_then_mutants(
        &base.seeds(),
        "HSG_WRITE_BOOKMARKS_FUZZ_SEEDS",
        MUTANTS,
        0xb00c,
        |input| base.apply(input),
    );
}
