//! Deterministic sampling of reachable states: random playouts from a game's
//! initial states with a seeded SplitMix64 generator (no dependency, the same
//! samples on every machine), and a game re-rooted at a sampled state.

use model::{Game, OutcomeId, PlayerId, StateWidth, Successors};

/// SplitMix64: small, fast and reproducible.
pub(crate) struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A state reached by a random playout of up to `max_walk` moves from a
/// random initial state; `None` for a game without initial states.
pub(crate) fn random_state(
    game: &dyn Game,
    rng: &mut Rng,
    max_walk: u32,
    buf: &mut Successors,
) -> Option<Vec<u8>> {
    let starts = game.initial_states();
    let mut state = starts.get(rng.below(starts.len() as u64) as usize)?.clone();
    let steps = rng.below(u64::from(max_walk) + 1);
    for _ in 0..steps {
        if game.terminal(&state).is_some() {
            break;
        }
        buf.clear();
        game.successors(&state, buf);
        let Some((_, next)) = buf.get(rng.below(buf.len() as u64) as usize) else {
            break;
        };
        state = next.to_vec();
    }
    Some(state)
}

/// A game started at one given state instead of its initial states.
pub(crate) struct Rooted<'g> {
    pub game: &'g dyn Game,
    pub root: Vec<u8>,
}

impl Game for Rooted<'_> {
    fn kind(&self) -> &'static str {
        self.game.kind()
    }
    fn players(&self) -> u8 {
        self.game.players()
    }
    fn state_width(&self) -> StateWidth {
        self.game.state_width()
    }
    fn initial_states(&self) -> Vec<Vec<u8>> {
        vec![self.root.clone()]
    }
    fn action_labels(&self) -> Vec<String> {
        self.game.action_labels()
    }
    fn outcome_names(&self) -> Vec<String> {
        self.game.outcome_names()
    }
    fn terminal(&self, state: &[u8]) -> Option<OutcomeId> {
        self.game.terminal(state)
    }
    fn successors(&self, state: &[u8], out: &mut Successors) {
        self.game.successors(state, out)
    }
    fn render(&self, state: &[u8]) -> String {
        self.game.render(state)
    }
    fn has_chance(&self) -> bool {
        self.game.has_chance()
    }
    fn to_move(&self, state: &[u8]) -> Option<PlayerId> {
        self.game.to_move(state)
    }
    fn decision_tuple(&self, action: model::ActionId) -> Option<Vec<Option<String>>> {
        self.game.decision_tuple(action)
    }
    fn features(&self) -> Vec<String> {
        self.game.features()
    }
    fn project(&self, state: &[u8], ignored: &[usize], out: &mut Vec<u8>) {
        self.game.project(state, ignored, out)
    }
}
