//! The hsg crate's integration tests, one binary (each test binary links the whole
//! dependency graph, so one binary instead of three saves `cargo test` links).

// The mutator the fuzz stand-ins share (one copy: a file is a module once).
#[path = "../../../../fuzz/exercise/mutate.rs"]
mod mutate;

mod fuzz_smoke;
mod power_loss;
mod store_fuzz_smoke;
