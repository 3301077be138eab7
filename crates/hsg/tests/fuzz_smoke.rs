//! The saved-analysis fuzz target's stable stand-in that CI runs on a short budget: every
//! file of a valid analysis replaced by seeds and mutants of them, raw or behind a valid
//! checksum, then loaded with `hsg::load` (see `fuzz/exercise/analysis.rs`).

#[path = "../../../fuzz/exercise/analysis.rs"]
mod analysis;
#[path = "../../../fuzz/exercise/mutate.rs"]
mod mutate;

/// Mutants in all: a few thousand loads, seconds in a release build.
const MUTANTS: usize = 2000;

#[test]
fn the_saved_analysis_reader_survives_damage_behind_valid_checksums() {
    let base = analysis::Base::new();
    let seeds = base.seeds();
    if let Some(dir) = std::env::var_os("HSG_WRITE_FUZZ_SEEDS") {
        // Writes the fuzz target's seed corpus (fuzz/corpus/analysis).
        for (i, seed) in seeds.iter().enumerate() {
            let path = std::path::Path::new(&dir).join(format!("seed-{i:02}"));
            std::fs::write(path, seed).expect("seed written");
        }
    }
    for seed in &seeds {
        base.apply(seed);
    }
    let mut rng = mutate::Rng::new(0xa11a);
    for i in 0..MUTANTS {
        let seed = &seeds[i % seeds.len()];
        let other = &seeds[rng.below(seeds.len())];
        // The first byte picks the file and the mode: keep it, mutate the rest.
        let mut mutant = vec![seed[0]];
        mutant.extend(mutate::mutate(&mut rng, &seed[1..], &other[1..]));
        base.apply(&mutant);
    }
}
