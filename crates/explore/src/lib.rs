//! Placeholder; being written.
