//! The seed's experiment design: instances of one specification, each
//! solved by independent runs; every run seeded from (seed, instance, run),
//! so the results do not depend on the thread count.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use games::sandbox::{collected_counts, generate, Board, Instance, Spec, SplitMix};

use crate::agr::{Decoder, Gene};
use crate::ea::{evolve, Params};
use crate::EvolveError;

/// An experiment to run.
#[derive(Clone, Debug)]
pub struct Design {
    /// The specification instances are drawn from.
    pub spec: Spec,
    /// How many instances (the seed: 100).
    pub instances: usize,
    /// Runs per instance (the seed: 30).
    pub runs: usize,
    /// The seed of instance generation and of every run.
    pub seed: u64,
    /// The algorithm's parameters.
    pub params: Params,
    /// Worker threads; 0 for every core.
    pub threads: usize,
}

/// One run's result with what its best chromosome picked up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunRecord {
    /// 0-based instance.
    pub instance: usize,
    /// 0-based run.
    pub run: usize,
    /// Best score of the final population.
    pub best_score: u16,
    /// Tokens picked up by that chromosome, by kind code.
    pub picked: [u16; 12],
    /// The chromosome.
    pub best_genes: Vec<Gene>,
}

/// Every run of an experiment, instance-major.
#[derive(Clone, Debug)]
pub struct Results {
    /// The design that produced them.
    pub design: Design,
    /// The generated instances.
    pub instances: Vec<Instance>,
    /// `runs[instance * design.runs + run]`.
    pub runs: Vec<RunRecord>,
}

impl Results {
    /// The runs of one instance.
    pub fn of_instance(&self, instance: usize) -> &[RunRecord] {
        let r = self.design.runs;
        self.runs
            .get(instance * r..(instance + 1) * r)
            .unwrap_or(&[])
    }

    /// Games played in all.
    pub fn games(&self) -> u64 {
        (self.runs.len() as u64).saturating_mul(self.design.params.games_per_run())
    }
}

/// Generates the instances of a design.
pub fn instances(design: &Design) -> Result<Vec<Instance>, EvolveError> {
    (0..design.instances)
        .map(|i| generate(&design.spec, design.seed, i as u64).map_err(EvolveError::Spec))
        .collect()
}

/// Runs the experiment on `threads` workers (0: every core); `progress` is
/// called with the number of runs finished so far.
pub fn run(design: &Design, progress: &(dyn Fn(usize) + Sync)) -> Result<Results, EvolveError> {
    design.params.check().map_err(EvolveError::Params)?;
    let instances = instances(design)?;
    let boards: Vec<Board> = instances
        .iter()
        .map(|i| Board::new(i).map_err(EvolveError::Spec))
        .collect::<Result<_, _>>()?;
    let jobs = design.instances * design.runs;
    let threads = match design.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .min(jobs.max(1));
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let records: Mutex<Vec<RunRecord>> = Mutex::new(Vec::with_capacity(jobs));
    let work = || {
        let mut mine = Vec::new();
        loop {
            let job = next.fetch_add(1, Ordering::Relaxed);
            if job >= jobs {
                break;
            }
            mine.push(run_one(design, &boards, job));
            progress(done.fetch_add(1, Ordering::Relaxed) + 1);
        }
        if let Ok(mut all) = records.lock() {
            all.extend(mine);
        }
    };
    // The workers share the jobs through a counter, so a thread the system refuses only
    // ends the spawning; with none started, this thread runs them (it used to panic).
    std::thread::scope(|scope| {
        let started = (0..threads)
            .map_while(|_| std::thread::Builder::new().spawn_scoped(scope, work).ok())
            .count();
        if started == 0 {
            work();
        }
    });
    let mut runs = records.into_inner().map_err(|_| EvolveError::Worker)?;
    if runs.len() != jobs {
        return Err(EvolveError::Worker);
    }
    runs.sort_by_key(|r| (r.instance, r.run));
    Ok(Results {
        design: design.clone(),
        instances,
        runs,
    })
}

/// Run `job` (instance-major) with its own generator.
fn run_one(design: &Design, boards: &[Board], job: usize) -> RunRecord {
    let (instance, run) = (job / design.runs, job % design.runs);
    let board = &boards[instance];
    let mut rng = SplitMix::derive(&[design.seed, instance as u64, run as u64, 0xE7]);
    let result = evolve(board, &design.params, &mut rng);
    let end = Decoder::new(design.params.order).play(board, &board.start(), &result.best_genes);
    RunRecord {
        instance,
        run,
        best_score: result.best_score,
        picked: collected_counts(board, &end),
        best_genes: result.best_genes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use games::sandbox::preset;

    fn design(threads: usize) -> Design {
        Design {
            spec: preset("exp4").unwrap(),
            instances: 3,
            runs: 4,
            seed: 11,
            params: Params {
                population: 60,
                updates: 300,
                ..Params::default()
            },
            threads,
        }
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        let one = run(&design(1), &|_| {}).unwrap();
        let three = run(&design(3), &|_| {}).unwrap();
        assert_eq!(one.runs, three.runs);
        assert_eq!(one.runs.len(), 12);
        assert_eq!(one.instances, three.instances);
    }

    #[test]
    fn runs_differ_and_instances_differ() {
        let r = run(&design(2), &|_| {}).unwrap();
        assert_ne!(r.instances[0], r.instances[1]);
        assert_ne!(r.runs[0].best_genes, r.runs[1].best_genes);
        assert_eq!(r.of_instance(2).len(), 4);
        assert!(r.runs.iter().all(|x| x.picked.iter().sum::<u16>() > 0));
    }
}
