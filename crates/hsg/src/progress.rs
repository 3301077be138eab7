//! What a running analysis reports: the phase it has entered, numbered out of the
//! phases it will run, so that a front end can draw a progress bar over phases (the
//! analysis of a few million states takes seconds to minutes, and was silent).
//!
//! Only phase boundaries are reported: the phases' inner loops (the SCC above all) stay
//! free of callbacks. The fraction is of phases, not of time, and front ends say so.

use std::fmt;
use std::sync::Arc;

/// A phase of an analysis, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Strongly connected components, hyperstate members and HSG edges.
    Components,
    /// Tags of the hyperstates.
    Tags,
    /// Depths, distances to the target and the failure spectrum.
    Distances,
    /// Headroom (skipped when not asked for).
    Headroom,
    /// The summary's metrics: reversibility, branching, paths.
    Summary,
    /// Writing the analysis files (only when the analysis is saved).
    Saving,
}

impl Phase {
    /// What the phase computes, for people.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Components => "strongly connected components",
            Phase::Tags => "tags",
            Phase::Distances => "depths, distances, failure spectrum",
            Phase::Headroom => "headroom",
            Phase::Summary => "reversibility, branching, paths",
            Phase::Saving => "saving",
        }
    }
}

/// One report: `phase` is the `number`-th (from 1) of `of` phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The phase entered.
    pub phase: Phase,
    /// Its number, from 1.
    pub number: usize,
    /// How many phases this analysis runs.
    pub of: usize,
}

/// The function that receives the [`Step`]s, or none. Options holding one still
/// compare equal: an observer does not change the analysis.
#[derive(Clone, Default)]
pub struct Observer(Option<Arc<dyn Fn(Step) + Send + Sync>>);

impl Observer {
    /// An observer calling `f` at each phase.
    pub fn new(f: impl Fn(Step) + Send + Sync + 'static) -> Observer {
        Observer(Some(Arc::new(f)))
    }

    /// Reports that `phase` starts, out of the phases an analysis with or without
    /// headroom, saved or not, runs.
    pub(crate) fn enter(&self, phase: Phase, headroom: bool, saved: bool) {
        let Some(f) = &self.0 else { return };
        let phases: Vec<Phase> = [
            Phase::Components,
            Phase::Tags,
            Phase::Distances,
            Phase::Headroom,
            Phase::Summary,
            Phase::Saving,
        ]
        .into_iter()
        .filter(|&p| (headroom || p != Phase::Headroom) && (saved || p != Phase::Saving))
        .collect();
        if let Some(index) = phases.iter().position(|&p| p == phase) {
            f(Step {
                phase,
                number: index + 1,
                of: phases.len(),
            });
        }
    }
}

impl fmt::Debug for Observer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Observer(set)"
        } else {
            "Observer(none)"
        })
    }
}

impl PartialEq for Observer {
    fn eq(&self, _: &Observer) -> bool {
        true
    }
}

impl Eq for Observer {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn phases_are_numbered_among_those_that_run() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let observer = Observer::new(move |s| sink.lock().unwrap().push((s.number, s.of)));
        observer.enter(Phase::Components, false, false);
        observer.enter(Phase::Summary, false, false);
        observer.enter(Phase::Headroom, false, false);
        observer.enter(Phase::Saving, true, true);
        assert_eq!(*seen.lock().unwrap(), vec![(1, 4), (4, 4), (6, 6)]);
        Observer::default().enter(Phase::Tags, true, true);
    }

    #[test]
    fn an_analysis_reports_each_phase_once_in_order() {
        use crate::analysis::tests::{labels, sample};
        use crate::analysis::{analyze_graph, AnalyzeOptions};
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let opts = AnalyzeOptions {
            progress: Observer::new(move |s| sink.lock().unwrap().push(s)),
            ..AnalyzeOptions::default()
        };
        analyze_graph(&sample(), &labels(), &opts, Default::default()).expect("analysis");
        let seen = seen.lock().unwrap();
        let phases: Vec<Phase> = seen.iter().map(|s| s.phase).collect();
        assert_eq!(
            phases,
            [
                Phase::Components,
                Phase::Tags,
                Phase::Distances,
                Phase::Headroom,
                Phase::Summary
            ]
        );
        assert!(seen
            .iter()
            .enumerate()
            .all(|(i, s)| s.number == i + 1 && s.of == 5));
    }
}
