//! The hyperstate workbench: a terminal UI (ratatui + crossterm) to browse the
//! hyperstates of an analysed run, built to work over SSH at 80x24.

pub mod data;
pub mod error;

pub use data::Workbench;
pub use error::TuiError;
pub mod bookmarks;
pub mod layout;
pub mod layout_cache;
