//! The integration tests: each drives the real `hsg` binary on real levels.

mod analysis;
mod compare;
mod corruption;
mod errors;
mod explore_counts;
mod fling;
mod grammar;
mod live;
mod numbers;
mod oracle;
mod puzzlegraph;
mod resume;
mod sandbox;
mod util;
mod weak;
mod workbench;
