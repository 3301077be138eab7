//! The integration tests: each drives the real `hsg` binary on real levels.

mod analysis;
mod batch;
mod cluster;
mod compare;
mod corruption;
mod errors;
mod explore_counts;
mod flags;
mod fling;
mod grammar;
mod html;
mod level_files;
mod live;
mod numbers;
mod oracle;
mod paths;
mod puzzlegraph;
mod puzzlescript;
mod resume;
mod sandbox;
mod saved_analysis;
mod uncommitted;
mod util;
mod ux;
mod weak;
mod workbench;
