//! The integration tests: each drives the real `hsg` binary on real levels.

mod corruption;
mod errors;
mod explore_counts;
mod oracle;
mod resume;
mod util;
