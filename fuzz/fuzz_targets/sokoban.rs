//! Fuzzes the level parser that `games::load` picks for a `.xsb` file, and the game it builds.

#![no_main]

#[path = "../exercise/levels.rs"]
mod levels;

libfuzzer_sys::fuzz_target!(|data: &[u8]| levels::level_file("fuzz.xsb", data));
