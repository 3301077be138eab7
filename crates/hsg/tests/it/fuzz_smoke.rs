//! The saved-analysis fuzz target's stable stand-in that CI runs on a short budget: every
//! file of a valid analysis replaced by seeds and mutants of them, raw or behind a valid
//! checksum, then loaded with `hsg::load` (see `fuzz/exercise/analysis.rs`).

#[path = "../../../../fuzz/exercise/analysis.rs"]
mod analysis;

use crate::mutate;

/// Mutants in all: a few thousand loads, seconds in a release build.
const MUTANTS: usize = 2000;

#[test]
fn the_saved_analysis_reader_survives_damage_behind_valid_checksums() {
    let base = analysis::Base::new();
    // The first byte picks the file and the mode; the corpus is refreshed with
    // HSG_WRITE_FUZZ_SEEDS=fuzz/corpus/<target>.
    mutate::seeds_then_mutants(
        &base.seeds(),
        "HSG_WRITE_FUZZ_SEEDS",
        MUTANTS,
        0xa11a,
        |input| base.apply(input),
    );
}
