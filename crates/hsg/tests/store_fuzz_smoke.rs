//! The store-reader fuzz target's stable stand-in that CI runs on a short budget: every
//! file of a small valid run replaced by seeds and mutants of them, raw or behind valid
//! checksums (the manifest's commit recomputed), then opened with `store::Run::open`,
//! read whole and analysed (see `fuzz/exercise/store.rs`). It lives beside the analysis
//! because it analyses what opens; the store crate cannot depend on `hsg`.

#[path = "../../../fuzz/exercise/mutate.rs"]
mod mutate;
#[path = "../../../fuzz/exercise/store.rs"]
mod store_files;

/// Mutants in all: a few thousand opens, seconds in a release build.
const MUTANTS: usize = 2000;

#[test]
fn the_store_reader_survives_damage_behind_valid_checksums() {
    let base = store_files::Base::new();
    let seeds = base.seeds();
    if let Some(dir) = std::env::var_os("HSG_WRITE_STORE_FUZZ_SEEDS") {
        // Writes the fuzz target's seed corpus (fuzz/corpus/store).
        for (i, seed) in seeds.iter().enumerate() {
            let path = std::path::Path::new(&dir).join(format!("seed-{i:02}"));
            std::fs::write(path, seed).expect("seed written");
        }
    }
    for seed in &seeds {
        base.apply(seed);
    }
    let mut rng = mutate::Rng::new(0x5707e);
    for i in 0..MUTANTS {
        let seed = &seeds[i % seeds.len()];
        let other = &seeds[rng.below(seeds.len())];
        // The first byte picks the file and the mode: keep it, mutate the rest.
        let mut mutant = vec![seed[0]];
        mutant.extend(mutate::mutate(&mut rng, &seed[1..], &other[1..]));
        base.apply(&mutant);
    }
}
