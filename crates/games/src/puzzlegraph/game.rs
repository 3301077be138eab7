//! [`PuzzleGraph`]: one PuzzleGraph puzzle bound to its rules, as a [`Game`].

use model::{Game, Move, OutcomeId, StateWidth, Successors, FAIL, WIN};

use super::puzzle::Puzzle;
use super::render::render;
use super::rules::Rules;
use super::state::State;
use super::text::canonical_text;

/// The outcome id of a solved state.
const WIN_OUTCOME: OutcomeId = 0;

/// A PuzzleGraph puzzle as a one-player game.
///
/// States are encoded as described in [`super::state`]; a state where every
/// player (at least one) stands on a Goal is terminal with outcome `win`, as
/// PuzzleGraph stops there. `fail` is declared for the analyses but never given:
/// a stuck state simply has no way to a goal.
#[derive(Clone, Debug)]
pub struct PuzzleGraph {
    rules: Rules,
}

impl PuzzleGraph {
    /// The game of `puzzle`; `None` when it needs more than 65,536 action labels.
    pub fn new(puzzle: Puzzle) -> Option<PuzzleGraph> {
        Rules::new(puzzle).map(|rules| PuzzleGraph { rules })
    }

    /// The puzzle's design.
    pub fn puzzle(&self) -> &Puzzle {
        &self.rules.puzzle
    }

    /// The canonical save-file text of the puzzle.
    pub fn canonical_text(&self) -> String {
        canonical_text(&self.rules.puzzle)
    }

    /// The state encoded by `bytes`, if they encode one of this puzzle.
    pub fn decode(&self, bytes: &[u8]) -> Option<State> {
        State::decode(self.rules.layout, self.rules.puzzle.nodes.len(), bytes)
    }

    /// The bytes of `state`.
    pub fn encode(&self, state: &State) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.rules.layout.width());
        state.encode(self.rules.layout, &mut out);
        out
    }
}

impl Game for PuzzleGraph {
    fn kind(&self) -> &'static str {
        "puzzlegraph"
    }

    fn state_width(&self) -> StateWidth {
        StateWidth::Fixed(self.rules.layout.width())
    }

    fn initial_states(&self) -> Vec<Vec<u8>> {
        vec![self.encode(&State::initial(&self.rules.puzzle))]
    }

    fn action_labels(&self) -> Vec<String> {
        self.rules.labels.clone()
    }

    fn outcome_names(&self) -> Vec<String> {
        vec![WIN.to_string(), FAIL.to_string()]
    }

    fn terminal(&self, state: &[u8]) -> Option<OutcomeId> {
        let state = self.decode(state)?;
        self.rules.is_goal(&state).then_some(WIN_OUTCOME)
    }

    fn successors(&self, state: &[u8], out: &mut Successors) {
        let Some(state) = self.decode(state) else {
            return;
        };
        let layout = self.rules.layout;
        self.rules.for_each_move(&state, |action, child| {
            out.push_with(Move::solo(action), |buf| child.encode(layout, buf));
        });
    }

    fn render(&self, state: &[u8]) -> String {
        match self.decode(state) {
            Some(s) => render(&self.rules.puzzle, &s),
            None => format!("<not a state of this puzzle: {} bytes>\n", state.len()),
        }
    }

    /// Each dynamic element (`Gate B-C`), then `players` and `balls` (their
    /// positions as a whole: they are interchangeable).
    fn features(&self) -> Vec<String> {
        let p = &self.rules.puzzle;
        let mut names: Vec<String> = p
            .dynamic
            .iter()
            .map(|d| {
                format!(
                    "{} {}",
                    p.element_name(d.container),
                    p.container_name(d.container)
                )
            })
            .collect();
        names.push("players".into());
        names.push("balls".into());
        names
    }

    /// Clears ignored elements; ignored players or balls all move to a node
    /// index no puzzle uses.
    fn project(&self, state: &[u8], ignored: &[usize], out: &mut Vec<u8>) {
        let Some(mut s) = self.decode(state) else {
            out.extend_from_slice(state);
            return;
        };
        let elements = self.rules.puzzle.dynamic.len();
        for &f in ignored {
            if f < elements {
                s.set(f, false);
            } else if f == elements {
                s.players.iter_mut().for_each(|n| *n = u16::MAX);
            } else if f == elements + 1 {
                s.balls.iter_mut().for_each(|n| *n = u16::MAX);
            }
        }
        s.encode(self.rules.layout, out);
    }
}
