//! Corruption tests.
