//! Fuzzes the PuzzleScript parser and compiler (`puzzlescript::compile`), then the level
//! `games::load` builds from the same text, played a little (see `exercise/levels.rs`).

#![no_main]

#[path = "../exercise/levels.rs"]
mod levels;

libfuzzer_sys::fuzz_target!(|data: &[u8]| levels::puzzlescript_file(data));
