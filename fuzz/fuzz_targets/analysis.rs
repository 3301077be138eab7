//! Fuzzes the saved-analysis reader (`hsg::load`) with one file of a valid analysis
//! replaced, raw or behind a valid checksum (see `exercise/analysis.rs`).

#![no_main]

#[path = "../exercise/analysis.rs"]
mod analysis;

static BASE: std::sync::OnceLock<analysis::Base> = std::sync::OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| BASE.get_or_init(analysis::Base::new).apply(data));
