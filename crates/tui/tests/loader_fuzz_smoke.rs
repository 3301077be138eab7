//! The workbench-loader fuzz target's stable stand-in that CI runs on a short budget:
//! every file of a small explored and analysed run replaced by seeds and mutants of them,
//! raw or behind valid checksums, then loaded, drawn at 80x24 and verified as `hsg tui`
//! does (see `fuzz/exercise/loader.rs`): an error or damage named is fine, a panic is a
//! bug, and so is a damaged run whose figures stay on screen.

#[path = "../../../fuzz/exercise/loader.rs"]
mod loader;
#[path = "../../../fuzz/exercise/mutate.rs"]
mod mutate;

/// Mutants in all: each loads, draws and verifies a run of a few hundred states.
const MUTANTS: usize = 300;

#[test]
fn the_workbench_loader_survives_damage() {
    let base = loader::Base::new();
    // The first byte picks the file and the mode; the corpus is refreshed with
    // HSG_WRITE_LOADER_FUZZ_SEEDS=fuzz/corpus/loader.
    mutate::seeds_then_mutants(
        &base.seeds(),
        "HSG_WRITE_LOADER_FUZZ_SEEDS",
        MUTANTS,
        0x10ad,
        |input| base.apply(input),
    );
}
