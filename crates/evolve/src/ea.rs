//! The evolutionary solver: a steady-state algorithm over AGR chromosomes
//! with the seed's parameters as defaults (population 1000, 98 genes,
//! 10,000 updates of size-7 single tournament selection, two-point
//! crossover, 1 to 3 genes replaced).

use games::sandbox::{Board, Dir, Play, SplitMix};

use crate::agr::{Decoder, Gene, SEED_ORDER};

/// The most genes a population may hold (a gigabyte): each is allocated up front.
pub const MAX_POPULATION_GENES: usize = 1 << 28;

/// The algorithm's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Chromosomes in the population.
    pub population: usize,
    /// Genes per chromosome.
    pub genes: usize,
    /// Tournaments (each makes two children).
    pub updates: usize,
    /// Chromosomes in a tournament.
    pub tournament: usize,
    /// Fewest genes replaced in each child.
    pub min_mutations: u32,
    /// Most genes replaced in each child.
    pub max_mutations: u32,
    /// Order in which admissible directions split [0,1).
    pub order: [Dir; 4],
}

impl Default for Params {
    fn default() -> Params {
        Params {
            population: 1000,
            genes: 98,
            updates: 10_000,
            tournament: 7,
            min_mutations: 1,
            max_mutations: 3,
            order: SEED_ORDER,
        }
    }
}

impl Params {
    /// Checks that the algorithm can run; the error is a full sentence.
    pub fn check(&self) -> Result<(), String> {
        if self.tournament < 4 || self.tournament > 64 {
            return Err(format!(
                "the tournament size must be 4 to 64, not {}",
                self.tournament
            ));
        }
        if self.population < self.tournament {
            return Err(format!(
                "the population ({}) must be at least the tournament size ({})",
                self.population, self.tournament
            ));
        }
        if self.genes < 2 {
            return Err(
                "a chromosome needs at least two genes for two-point crossover".to_string(),
            );
        }
        if self.population.saturating_mul(self.genes) > MAX_POPULATION_GENES {
            return Err(format!(
                "the population ({}) times the genes ({}) must be at most {MAX_POPULATION_GENES} (4 bytes each, held in memory)",
                self.population, self.genes
            ));
        }
        if self.min_mutations > self.max_mutations {
            return Err("the fewest mutations exceed the most".to_string());
        }
        Ok(())
    }

    /// Games played by one run: the initial population and two per update.
    pub fn games_per_run(&self) -> u64 {
        (self.population as u64).saturating_add((self.updates as u64).saturating_mul(2))
    }
}

/// What one run found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunResult {
    /// The best score in the final population (the seed's "best final fitness").
    pub best_score: u16,
    /// A chromosome with that score (the first in population order).
    pub best_genes: Vec<Gene>,
}

/// One run of the algorithm on `board`, its randomness drawn from `rng`.
pub fn evolve(board: &Board, params: &Params, rng: &mut SplitMix) -> RunResult {
    let mut run = Run::new(board, params, rng);
    for _ in 0..params.updates {
        run.update(rng);
    }
    run.result()
}

/// A population in progress.
struct Run<'a> {
    board: &'a Board,
    params: &'a Params,
    decoder: Decoder,
    start: Play,
    /// Chromosome i is `genes[i * len .. (i + 1) * len]`.
    genes: Vec<Gene>,
    fitness: Vec<u16>,
    /// Genes each chromosome's game read: changes beyond them change nothing.
    used: Vec<usize>,
}

impl<'a> Run<'a> {
    fn new(board: &'a Board, params: &'a Params, rng: &mut SplitMix) -> Run<'a> {
        let genes: Vec<Gene> = (0..params.population * params.genes)
            .map(|_| rng.next_u32())
            .collect();
        let mut run = Run {
            board,
            params,
            decoder: Decoder::new(params.order),
            start: board.start(),
            fitness: vec![0; params.population],
            used: vec![0; params.population],
            genes,
        };
        for i in 0..params.population {
            run.evaluate(i);
        }
        run
    }

    fn chromosome(&self, i: usize) -> &[Gene] {
        &self.genes[i * self.params.genes..(i + 1) * self.params.genes]
    }

    /// Plays chromosome `i` and records its fitness and the genes it read.
    fn evaluate(&mut self, i: usize) {
        let (end, used) = self
            .decoder
            .play_counted(self.board, &self.start, self.chromosome(i));
        self.fitness[i] = end.score;
        self.used[i] = used;
    }

    /// Gives `child`, a copy of `parent` changed from locus `change` on,
    /// its fitness: the parent's when the change lies beyond the genes the
    /// parent's game read (the games are then identical), else by playing.
    fn settle(&mut self, child: usize, parent: (u16, usize), change: usize) {
        let (fitness, used) = parent;
        if change >= used {
            self.fitness[child] = fitness;
            self.used[child] = used;
        } else {
            self.evaluate(child);
        }
    }

    /// One tournament: the two best of a random sample, ties broken at
    /// random, are copied over its two worst; the copies are crossed over
    /// at two points, mutated and evaluated.
    fn update(&mut self, rng: &mut SplitMix) {
        let mut keyed = [0u64; 64];
        let size = self.params.tournament;
        self.sample(rng, &mut keyed[..size]);
        // Key: fitness above a random tie-breaker above the index.
        for k in keyed[..size].iter_mut() {
            let i = *k as usize;
            *k = (u64::from(self.fitness[i]) << 48)
                | (u64::from(rng.next_u32() >> 16) << 32)
                | i as u64;
        }
        keyed[..size].sort_unstable_by(|a, b| b.cmp(a));
        let index = |k: u64| (k & 0xFFFF_FFFF) as usize;
        let (best, second) = (index(keyed[0]), index(keyed[1]));
        let (child_a, child_b) = (index(keyed[size - 1]), index(keyed[size - 2]));
        let len = self.params.genes;
        let parent_a = (self.fitness[best], self.used[best]);
        let parent_b = (self.fitness[second], self.used[second]);
        self.genes
            .copy_within(best * len..(best + 1) * len, child_a * len);
        self.genes
            .copy_within(second * len..(second + 1) * len, child_b * len);
        let crossed = self.cross(rng, child_a, child_b);
        let change_a = crossed.min(self.mutate(rng, child_a));
        let change_b = crossed.min(self.mutate(rng, child_b));
        self.settle(child_a, parent_a, change_a);
        self.settle(child_b, parent_b, change_b);
    }

    /// Fills `out` with distinct population indices.
    fn sample(&self, rng: &mut SplitMix, out: &mut [u64]) {
        let n = self.params.population as u32;
        let mut filled = 0;
        while filled < out.len() {
            let i = u64::from(rng.below(n));
            if !out[..filled].contains(&i) {
                out[filled] = i;
                filled += 1;
            }
        }
    }

    /// Two-point crossover: the genes between two distinct cut points swap.
    /// Returns the first locus where the chromosomes changed (the length
    /// when the swapped genes were equal).
    fn cross(&mut self, rng: &mut SplitMix, a: usize, b: usize) -> usize {
        let len = self.params.genes;
        let cuts = len as u32 + 1;
        let (mut lo, mut hi) = (rng.below(cuts) as usize, rng.below(cuts) as usize);
        while lo == hi {
            hi = rng.below(cuts) as usize;
        }
        if lo > hi {
            std::mem::swap(&mut lo, &mut hi);
        }
        let mut first = len;
        for g in lo..hi {
            if self.genes[a * len + g] != self.genes[b * len + g] {
                first = first.min(g);
                self.genes.swap(a * len + g, b * len + g);
            }
        }
        first
    }

    /// Replaces a uniform number (in the mutation range) of random genes;
    /// returns the first locus replaced.
    fn mutate(&mut self, rng: &mut SplitMix, i: usize) -> usize {
        let p = self.params;
        let count = p.min_mutations + rng.below(p.max_mutations - p.min_mutations + 1);
        let mut first = p.genes;
        for _ in 0..count {
            let locus = rng.below(p.genes as u32) as usize;
            self.genes[i * p.genes + locus] = rng.next_u32();
            first = first.min(locus);
        }
        first
    }

    fn result(&self) -> RunResult {
        let best = (0..self.params.population)
            .max_by_key(|&i| (self.fitness[i], std::cmp::Reverse(i)))
            .unwrap_or(0);
        RunResult {
            best_score: self.fitness.get(best).copied().unwrap_or(0),
            best_genes: self.chromosome(best).to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use games::sandbox::{generate, preset};

    fn small() -> Params {
        Params {
            population: 100,
            updates: 1000,
            ..Params::default()
        }
    }

    #[test]
    fn a_run_is_reproducible_from_its_seed() {
        let board = Board::new(&generate(&preset("exp2").unwrap(), 1, 0).unwrap()).unwrap();
        let a = evolve(&board, &small(), &mut SplitMix::new(9));
        let b = evolve(&board, &small(), &mut SplitMix::new(9));
        assert_eq!(a, b);
        let replay = Decoder::new(SEED_ORDER).play(&board, &board.start(), &a.best_genes);
        assert_eq!(
            replay.score, a.best_score,
            "the best chromosome scores its fitness"
        );
    }

    #[test]
    fn evolution_improves_on_the_initial_population() {
        let board = Board::new(&generate(&preset("exp3").unwrap(), 1, 0).unwrap()).unwrap();
        let params = small();
        let mut rng = SplitMix::new(4);
        let initial = Run::new(&board, &params, &mut rng).result().best_score;
        let evolved = evolve(&board, &params, &mut SplitMix::new(4)).best_score;
        assert!(
            evolved > initial,
            "{evolved} after evolution, {initial} before"
        );
    }

    #[test]
    fn crossover_and_mutation_keep_chromosome_lengths_and_change_few_genes() {
        let board = Board::new(&generate(&preset("exp2").unwrap(), 1, 0).unwrap()).unwrap();
        let params = small();
        let mut rng = SplitMix::new(5);
        let mut run = Run::new(&board, &params, &mut rng);
        let before = run.genes.clone();
        run.mutate(&mut rng, 3);
        let changed = (0..params.genes)
            .filter(|&g| before[3 * params.genes + g] != run.genes[3 * params.genes + g])
            .count();
        assert!((1..=3).contains(&changed), "{changed} genes changed");
        assert_eq!(run.genes.len(), before.len());
        run.cross(&mut rng, 0, 1);
        let mut pair: Vec<Gene> = run.genes[..2 * params.genes].to_vec();
        let mut old: Vec<Gene> = before[..2 * params.genes].to_vec();
        pair.sort_unstable();
        old.sort_unstable();
        assert_eq!(pair, old, "crossover only exchanges genes");
    }

    #[test]
    fn skipped_evaluations_give_the_fitness_a_full_evaluation_gives() {
        let board = Board::new(&generate(&preset("exp6").unwrap(), 2, 0).unwrap()).unwrap();
        let params = small();
        let mut rng = SplitMix::new(8);
        let mut run = Run::new(&board, &params, &mut rng);
        for _ in 0..2000 {
            run.update(&mut rng);
        }
        let decoder = Decoder::new(params.order);
        for i in 0..params.population {
            let (end, used) = decoder.play_counted(&board, &board.start(), run.chromosome(i));
            assert_eq!(
                (run.fitness[i], run.used[i]),
                (end.score, used),
                "chromosome {i}"
            );
        }
    }

    #[test]
    fn bad_parameters_are_refused() {
        let p = Params {
            population: 3,
            ..Params::default()
        };
        assert!(p.check().is_err());
        assert_eq!(Params::default().games_per_run(), 21_000);
    }

    #[test]
    fn a_population_beyond_memory_is_refused_not_allocated() {
        // Regression: `--population 18446744073709551615` panicked with a capacity overflow.
        let p = Params {
            population: usize::MAX,
            genes: usize::MAX,
            updates: usize::MAX,
            ..Params::default()
        };
        assert!(p.check().is_err());
        assert_eq!(p.games_per_run(), u64::MAX);
    }
}
