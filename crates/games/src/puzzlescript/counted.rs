//! A PuzzleScript level as the explorer sees it: the engine's game, plus the
//! counts a run's summary reports ([`Game::exploration_counts`]), which the
//! engine keeps but the trait has no other way to ask for.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use model::{ActionId, Game, OutcomeId, PlayerId, Rgb, StateWidth, Successors};
use puzzlescript::PuzzleScriptGame;

/// The engine's game, every call passed through.
pub struct Counted {
    inner: PuzzleScriptGame,
    notes: Vec<String>,
}

impl Counted {
    /// Wraps one level.
    pub fn new(inner: PuzzleScriptGame, notes: Vec<String>) -> Counted {
        Counted { inner, notes }
    }
}

impl Game for Counted {
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    fn players(&self) -> u8 {
        self.inner.players()
    }

    fn state_width(&self) -> StateWidth {
        self.inner.state_width()
    }

    fn initial_states(&self) -> Vec<Vec<u8>> {
        self.inner.initial_states()
    }

    fn action_labels(&self) -> Vec<String> {
        self.inner.action_labels()
    }

    fn outcome_names(&self) -> Vec<String> {
        self.inner.outcome_names()
    }

    fn terminal(&self, state: &[u8]) -> Option<OutcomeId> {
        self.inner.terminal(state)
    }

    fn successors(&self, state: &[u8], out: &mut Successors) {
        self.inner.successors(state, out);
    }

    fn render(&self, state: &[u8]) -> String {
        self.inner.render(state)
    }

    fn render_colors(&self, state: &[u8]) -> Option<Vec<Vec<Option<Rgb>>>> {
        self.inner.render_colors(state)
    }

    fn render_legend(&self, state: &[u8]) -> Vec<(char, String)> {
        self.inner.render_legend(state)
    }

    fn has_chance(&self) -> bool {
        self.inner.has_chance()
    }

    fn to_move(&self, state: &[u8]) -> Option<PlayerId> {
        self.inner.to_move(state)
    }

    fn decision_tuple(&self, action: ActionId) -> Option<Vec<Option<String>>> {
        self.inner.decision_tuple(action)
    }

    fn features(&self) -> Vec<String> {
        self.inner.features()
    }

    fn project(&self, state: &[u8], ignored: &[usize], out: &mut Vec<u8>) {
        self.inner.project(state, ignored, out);
    }

    fn interrupt_on(&self, stop: Arc<AtomicBool>) {
        self.inner.interrupt_on(stop);
    }

    fn failure(&self) -> Option<String> {
        self.inner.failure()
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    fn exploration_counts(&self) -> Vec<(String, u64)> {
        let mut counts = vec![(
            "(state, input) pairs whose again chain never ends".to_string(),
            self.inner.again_loops(),
        )];
        let overfull = self.inner.overfull_states();
        if overfull > 0 {
            counts.push((
                "states with two objects of one collision layer in a cell (the encoding kept one: the counts may be wrong)"
                    .to_string(),
                overfull,
            ));
        }
        counts
    }
}
