//! The puzzlescript crate's integration tests, one binary (each test binary links the
//! whole dependency graph, so one binary instead of five saves `cargo test` links).

mod conformance;
mod game;
mod hostile;
mod inert;
mod no_match;
mod reference_counts;
