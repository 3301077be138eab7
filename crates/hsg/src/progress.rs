//! What a running analysis reports: the phase it has entered, numbered out of the
//! phases it will run, so that a front end can draw a progress bar over phases (the
//! analysis of a few million states takes seconds to minutes, and was silent).
//!
//! Only phase boundaries are reported: the phases' inner loops (the SCC above all) stay
//! free of callbacks. The fraction is of phases, not of time, and front ends say so.
//! Beside them, *notes* tell how the analysis chose to run where the choice depends on
//! the graph and the budget and changes its time but not its result (whether the
//! one-way list fitted its room), so that a long run says why it took what it took.

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

/// How long the steps of a phase took, told as a note at its end (a run of many
/// minutes says where they went).
#[derive(Clone, Debug)]
pub(crate) struct StepTimes {
    steps: Vec<(&'static str, f64)>,
    since: std::time::Instant,
}

impl StepTimes {
    /// Timing from now.
    pub(crate) fn start() -> StepTimes {
        StepTimes {
            steps: Vec::new(),
            since: std::time::Instant::now(),
        }
    }

    /// The step `name` ended now: it took the time since the last one ended.
    pub(crate) fn done(&mut self, name: &'static str) {
        let now = std::time::Instant::now();
        self.steps
            .push((name, now.duration_since(self.since).as_secs_f64()));
        self.since = now;
    }

    /// `phase: step 1.2 s, step 0.3 s`.
    pub(crate) fn note(&self, phase: &str) -> String {
        let steps: Vec<String> = self
            .steps
            .iter()
            .map(|(name, secs)| format!("{name} {secs:.1} s"))
            .collect();
        format!("{phase}: {}", steps.join(", "))
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

/// What receives the notes.
type NoteSink = Arc<dyn Fn(&str) + Send + Sync>;

/// The functions that receive the [`Step`]s and the notes, or none. Options holding
/// them still compare equal: an observer does not change the analysis.
#[derive(Clone, Default)]
pub struct Observer {
    steps: Option<Arc<dyn Fn(Step) + Send + Sync>>,
    notes: Option<NoteSink>,
}

impl Observer {
    /// An observer calling `f` at each phase.
    pub fn new(f: impl Fn(Step) + Send + Sync + 'static) -> Observer {
        Observer {
            steps: Some(Arc::new(f)),
            notes: None,
        }
    }

    /// This observer, also calling `f` with each note (a sentence for people).
    pub fn with_notes(self, f: impl Fn(&str) + Send + Sync + 'static) -> Observer {
        Observer {
            notes: Some(Arc::new(f)),
            ..self
        }
    }

    /// Tells the note `text`.
    pub(crate) fn note(&self, text: &str) {
        if let Some(f) = &self.notes {
            f(text);
        }
    }

    /// Reports that `phase` starts, out of the phases an analysis with or without
    /// headroom, saved or not, runs.
    pub(crate) fn enter(&self, phase: Phase, headroom: bool, saved: bool) {
        let Some(f) = &self.steps else { return };
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
        f.write_str(if self.steps.is_some() || self.notes.is_some() {
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
