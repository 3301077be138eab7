//! Fuzzes the store reader (`store::Run::open`, then every read and the analysis) with
//! one file of a small valid run replaced, raw or behind valid checksums (see
//! `exercise/store.rs`).

#![no_main]

#[path = "../exercise/store.rs"]
mod store_files;

static BASE: std::sync::OnceLock<store_files::Base> = std::sync::OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| BASE.get_or_init(store_files::Base::new).apply(data));
