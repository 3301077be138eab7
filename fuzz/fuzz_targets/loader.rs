//! Fuzzes the workbench's loader (`tui::store_loader`, the first screens drawn at 80x24,
//! then the background verification) with one file of a small explored and analysed run
//! replaced, raw or behind valid checksums (see `exercise/loader.rs`).

#![no_main]

#[path = "../exercise/loader.rs"]
mod loader;

static BASE: std::sync::OnceLock<loader::Base> = std::sync::OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| BASE.get_or_init(loader::Base::new).apply(data));
