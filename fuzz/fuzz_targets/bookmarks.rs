//! Fuzzes the workbench's bookmarks database (`tui::bookmarks::Bookmarks::open`, then a
//! list, an add and a remove) with one file of a small valid `hsg-user.sled` replaced
//! (see `exercise/bookmarks.rs`).

#![no_main]

#[path = "../exercise/bookmarks.rs"]
mod bookmark_files;

static BASE: std::sync::OnceLock<bookmark_files::Base> = std::sync::OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| BASE
    .get_or_init(bookmark_files::Base::new)
    .apply(data));
