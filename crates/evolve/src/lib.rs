//! The evolutionary solver of the Affordance Sandbox (Ashlock and
//! Montgomery): the adaptive generative representation ([`agr`]), the
//! steady-state algorithm ([`ea`]), the experiment design over instances
//! and runs ([`experiment`]), its statistics ([`stats`]) and its pictures
//! and tables ([`report`], [`svg`]).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod agr;
pub mod ea;
pub mod experiment;
pub mod report;
pub mod stats;
pub mod svg;

pub use agr::{gene, Decoder, Gene, CLOCKWISE, SEED_ORDER};
pub use ea::{evolve, Params, RunResult};
pub use experiment::{run, Design, Results, RunRecord};
pub use stats::{ExperimentStats, InstanceStats, Summary};

use thiserror::Error;

/// What can stop an experiment.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum EvolveError {
    /// The specification cannot produce instances.
    #[error("bad specification: {0}")]
    Spec(String),
    /// The algorithm's parameters are impossible.
    #[error("bad solver parameters: {0}")]
    Params(String),
    /// A worker thread stopped without delivering its runs.
    #[error("a worker thread failed before finishing its runs")]
    Worker,
}
