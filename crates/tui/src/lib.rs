//! The hyperstate workbench: a terminal UI (ratatui + crossterm) to browse the
//! hyperstates of an analysed run, built to work over SSH at 80x24.

pub mod app;
pub mod bookmarks;
pub mod data;
pub mod error;
pub mod keys;
pub mod layout;
pub mod layout_cache;
pub mod ui;

pub use data::Workbench;
pub use error::TuiError;

#[cfg(test)]
mod test_support;
