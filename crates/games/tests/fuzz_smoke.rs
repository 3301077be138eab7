//! The fuzz targets' stable stand-in that CI runs on a short budget: every seed of
//! `fuzz/corpus/<target>/` and a few thousand mutants of them go through the same
//! exercise as the coverage-guided targets in `fuzz/` (parse, play a little, reload the
//! canonical text). `cargo fuzz` runs the real thing; see `fuzz/README.md`.

#[path = "../../../fuzz/exercise/levels.rs"]
mod levels;
#[path = "../../../fuzz/exercise/mutate.rs"]
mod mutate;

use std::path::PathBuf;

/// Mutants per target: a few thousand, seconds in a release build.
const MUTANTS: usize = 10_000;

/// The seed files of the fuzz target `target`.
fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("corpus entry").path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read(f).expect("corpus file"))
        .collect()
}

/// Feeds the corpus of `target` and its mutants to the parser `name` picks.
fn smoke(target: &str, name: &str) {
    smoke_with(target, |data| levels::level_file(name, data));
}

/// Feeds the corpus of `target` and its mutants to `feed`.
fn smoke_with(target: &str, feed: impl Fn(&[u8])) {
    let seeds = corpus(target);
    assert!(!seeds.is_empty(), "no seeds for {target}");
    for seed in &seeds {
        feed(seed);
    }
    let mut rng = mutate::Rng::new(0x5eed ^ target.len() as u64);
    for i in 0..MUTANTS {
        let seed = &seeds[i % seeds.len()];
        let other = &seeds[rng.below(seeds.len())];
        let mutant = mutate::mutate(&mut rng, seed, other);
        feed(&mutant);
    }
}

#[test]
fn sokoban_parser_survives_its_corpus_and_mutants() {
    smoke("sokoban", "fuzz.xsb");
}

#[test]
fn puzzlegraph_parser_survives_its_corpus_and_mutants() {
    smoke("puzzlegraph", "fuzz.puzzlegraph");
}

#[test]
fn fling_parser_survives_its_corpus_and_mutants() {
    smoke("fling", "fuzz.fling");
}

#[test]
fn sandbox_parser_survives_its_corpus_and_mutants() {
    smoke("sandbox", "fuzz.sandbox");
}

#[test]
fn txt_detection_survives_its_corpus_and_mutants() {
    smoke("txt", "fuzz.txt");
}

#[test]
fn game_language_survives_its_corpus_and_mutants() {
    smoke("game", "fuzz.game");
}

#[test]
fn puzzlescript_compiler_survives_its_corpus_and_mutants() {
    smoke_with("puzzlescript", levels::puzzlescript_file);
}
