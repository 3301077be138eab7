//! Helpers shared by the crate's tests.
