//! The store-reader fuzz target's stable stand-in that CI runs on a short budget: every
//! file of a small valid run replaced by seeds and mutants of them, raw or behind valid
//! checksums (the manifest's commit recomputed), then opened with `store::Run::open`,
//! read whole and analysed (see `fuzz/exercise/store.rs`). It lives beside the analysis
//! because it analyses what opens; the store crate cannot depend on `hsg`.

#[path = "../../../../fuzz/exercise/store.rs"]
mod store_files;

use crate::mutate;

/// Mutants in all: a few thousand opens, seconds in a release build.
const MUTANTS: usize = 2000;

#[test]
fn the_store_reader_survives_damage_behind_valid_checksums() {
    let base = store_files::Base::new();
    // The first byte picks the file and the mode; the corpus is refreshed with
    // HSG_WRITE_STORE_FUZZ_SEEDS=fuzz/corpus/<target>.
    mutate::seeds_then_mutants(
        &base.seeds(),
        "HSG_WRITE_STORE_FUZZ_SEEDS",
        MUTANTS,
        0x5707e,
        |input| base.apply(input),
    );
}
