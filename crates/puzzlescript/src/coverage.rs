//! Rule coverage and hangs, computed after an exploration by expanding its
//! stored states again with the engine's firing record switched on: which
//! rule lines fire in how many reachable states (and whether only in states
//! that can no longer win), which never fire, and which (state, input)
//! pairs start an `again` chain that never ends. The explorer itself
//! records none of it, so exploring costs nothing more when nobody asks.
//!
//! A rule *fires in a state* s when, while s is expanded under some input
//! (the input's turn, the `again` turns after it, on every random path),
//! one of the rule's applications changes the board (objects, movements or
//! a rigid mark) or the rule matches and has commands. `docs/puzzlescript.md`
//! gives the definition with its consequences.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use model::{Game, Successors};

use crate::compile::SourceRule;
use crate::{Error, PuzzleScriptGame};

/// The most hangs a survey lists (the first by state id, then input); it
/// counts them all.
pub const MAX_HANGS: usize = 1_000;

/// States handed to a thread at a time.
const CHUNK: u64 = 512;

/// What expanding one state recorded ([`PuzzleScriptGame::probe`]).
#[derive(Debug, Default)]
pub struct Probe {
    /// The rules that fired, one bit per rule line
    /// ([`crate::Compiled::rule_sources`]).
    pub fired: Vec<u64>,
    /// The actions (indices into the game's action labels) whose `again`
    /// chain never ends.
    pub endless: Vec<u16>,
    /// Scratch for the successors.
    pub(crate) successors: Successors,
}

impl Probe {
    /// True when the rule line of index `rule` fired.
    pub fn fired(&self, rule: usize) -> bool {
        self.fired
            .get(rule / 64)
            .is_some_and(|w| w >> (rule % 64) & 1 == 1)
    }
}

/// One rule line and where it fired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleCount {
    /// The rule as written.
    pub rule: SourceRule,
    /// The surveyed states in which it fired.
    pub states: u64,
    /// Of those, the states that can still win (or whose future is unknown).
    pub live_states: u64,
    /// True when it fired while the level loaded (`run_rules_on_level_start`).
    pub at_start: bool,
}

impl RuleCount {
    /// True when the rule fired nowhere: not in a surveyed state, not at the
    /// level's start. A decorative rule (see [`SourceRule::decorative`]) is
    /// left out: it cannot change the game as explored.
    pub fn never_fires(&self) -> bool {
        self.states == 0 && !self.at_start && !self.rule.decorative
    }

    /// True when the rule fired, but only in states that can no longer win.
    pub fn fires_only_when_lost(&self) -> bool {
        self.states > 0 && self.live_states == 0 && !self.at_start
    }
}

/// A (state, input) pair whose `again` chain never ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hang {
    /// The state's id in the run.
    pub state: u64,
    /// The action (an index into the game's action labels).
    pub action: u16,
}

/// The result of [`survey`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coverage {
    /// Every rule line, in the order written.
    pub rules: Vec<RuleCount>,
    /// The states expanded again (stored, expanded and not won).
    pub surveyed: u64,
    /// The first [`MAX_HANGS`] hangs by state id, then action.
    pub hangs: Vec<Hang>,
    /// Every hang found.
    pub hang_count: u64,
}

/// The stored states a survey expands again.
pub struct Stored<'a> {
    /// States `0..count` are looked at.
    pub count: u64,
    /// A state's encoding, or `None` for a state the run did not expand
    /// (a partial run's frontier, a state held back).
    pub state: &'a (dyn Fn(u64) -> Option<&'a [u8]> + Sync),
    /// True for a state that can no longer win.
    pub lost: &'a (dyn Fn(u64) -> bool + Sync),
}

/// How a survey runs.
pub struct Control<'a> {
    /// Worker threads (at least one).
    pub threads: usize,
    /// Raised to stop the survey (SIGINT): it then returns
    /// [`Error::Interrupted`].
    pub stop: Arc<AtomicBool>,
    /// States looked at so far, for a progress display.
    pub done: &'a AtomicU64,
}

/// What one thread found.
#[derive(Default)]
struct Tally {
    states: Vec<u64>,
    live: Vec<u64>,
    surveyed: u64,
    hangs: Vec<Hang>,
    hang_count: u64,
}

impl Tally {
    fn note(&mut self, id: u64, probe: &Probe, lost: bool) {
        self.surveyed += 1;
        for (w, &word) in probe.fired.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let rule = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if let Some(n) = self.states.get_mut(rule) {
                    *n += 1;
                }
                if !lost {
                    if let Some(n) = self.live.get_mut(rule) {
                        *n += 1;
                    }
                }
            }
        }
        for &action in &probe.endless {
            self.hang_count += 1;
            if self.hangs.len() < MAX_HANGS {
                self.hangs.push(Hang { state: id, action });
            }
        }
    }

    fn add(&mut self, other: Tally) {
        for (a, b) in self.states.iter_mut().zip(&other.states) {
            *a += b;
        }
        for (a, b) in self.live.iter_mut().zip(&other.live) {
            *a += b;
        }
        self.surveyed += other.surveyed;
        self.hang_count += other.hang_count;
        self.hangs.extend(other.hangs);
    }
}

/// Expands every stored state of `stored` again with `game` (the level the
/// run explored, rebuilt), on `control.threads` threads, and counts where
/// each rule line fired and which inputs hang. Memory is one tally per
/// thread (two counts a rule line, at most [`MAX_HANGS`] hangs); time is
/// about that of the exploration's successor generation.
pub fn survey(
    game: &PuzzleScriptGame,
    stored: &Stored<'_>,
    control: &Control<'_>,
) -> Result<Coverage, Error> {
    game.interrupt_on(control.stop.clone());
    let rules = &game.compiled().rule_sources;
    let next = AtomicU64::new(0);
    let threads = control.threads.max(1);
    let tallies: Vec<Tally> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| scope.spawn(|| survey_part(game, stored, control, &next, rules.len())))
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_default())
            .collect()
    });
    if let Some(why) = game.failure() {
        return Err(Error::Survey(why));
    }
    if control.stop.load(Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    let mut total = Tally {
        states: vec![0; rules.len()],
        live: vec![0; rules.len()],
        ..Tally::default()
    };
    for t in tallies {
        total.add(t);
    }
    // Each thread listed its first hangs in id order, so the first of all
    // are among them.
    total.hangs.sort_unstable();
    total.hangs.truncate(MAX_HANGS);
    let at_start = start_firings(game)?;
    let rules = rules
        .iter()
        .enumerate()
        .map(|(i, rule)| RuleCount {
            rule: rule.clone(),
            states: total.states[i],
            live_states: total.live[i],
            at_start: at_start.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1),
        })
        .collect();
    Ok(Coverage {
        rules,
        surveyed: total.surveyed,
        hangs: total.hangs,
        hang_count: total.hang_count,
    })
}

/// One thread's share: chunks of state ids taken in order until none is left.
fn survey_part(
    game: &PuzzleScriptGame,
    stored: &Stored<'_>,
    control: &Control<'_>,
    next: &AtomicU64,
    rules: usize,
) -> Tally {
    let mut tally = Tally {
        states: vec![0; rules],
        live: vec![0; rules],
        ..Tally::default()
    };
    let mut probe = Probe::default();
    loop {
        let from = next.fetch_add(CHUNK, Ordering::Relaxed);
        if from >= stored.count {
            return tally;
        }
        for id in from..(from + CHUNK).min(stored.count) {
            if game.stopped() {
                return tally;
            }
            let Some(state) = (stored.state)(id) else {
                continue;
            };
            if game.terminal(state).is_some() {
                continue;
            }
            game.probe(state, &mut probe);
            tally.note(id, &probe, (stored.lost)(id));
        }
        control
            .done
            .fetch_add((from + CHUNK).min(stored.count) - from, Ordering::Relaxed);
    }
}

/// The rules that fired while the level loaded (its start rules and their
/// `again` turns), one bit per rule line; none without
/// `run_rules_on_level_start`.
fn start_firings(game: &PuzzleScriptGame) -> Result<Vec<u64>, Error> {
    let g = game.compiled();
    if !g.flags.run_rules_on_level_start {
        return Ok(Vec::new());
    }
    let index = crate::list_levels(g)
        .into_iter()
        .find(|l| l.number == game.number())
        .map_or(0, |l| l.index);
    let session = crate::Session::until_win_recording(g, index)?;
    Ok(session.fired_rules().unwrap_or_default().to_vec())
}
