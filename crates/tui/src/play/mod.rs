//! Play mode: a level played move by move along the stored graph, with the analysis of
//! the state it is in. [`Play`] is the plain state (the moves made, the state reached,
//! its analysis), changed only through a [`Workbench`], so it is tested without a
//! terminal; `app.rs` binds it to the keys and `ui/play.rs` draws it.
//!
//! Moves are the stored successor rows of the current state, so play covers exactly
//! the states the analysis covers. A state the run never expanded (a partial run) has
//! no stored moves: play stops there and says so, and undo goes back.

mod app;
pub mod input;

use crate::data::{Member, Row, Tag, WinSearch, Workbench};
pub use input::{Input, Verdict};

/// Most states the search for the nearest win may meet after each move.
pub const WIN_SEARCH_BUDGET: u64 = 4_000_000;

/// One move made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The action's label.
    pub action: String,
    /// The state it was made in.
    pub from: u64,
    /// The state it led to.
    pub to: u64,
    /// True when it left the hyperstate (a critical action: it cannot be undone in
    /// the game).
    pub critical: bool,
    /// The tag of the hyperstate it led to.
    pub tag: Tag,
}

/// The state play is in, with its analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct Position {
    /// The state: picture, outcome and moves.
    pub member: Member,
    /// Its hyperstate's table row (tag, distances, headroom).
    pub row: Option<Row>,
    /// Headroom in states of its hyperstate.
    pub headroom_states: Option<f32>,
    /// True when the state was never expanded: its moves are unknown.
    pub open: bool,
}

impl Position {
    fn read(bench: &dyn Workbench, state: u64) -> Option<Position> {
        let member = bench.state_member(state)?;
        let h = bench.hyperstate_of_state(state)?;
        let details = bench.details(h);
        Some(Position {
            member,
            row: bench.row(h),
            headroom_states: details.as_ref().and_then(|d| d.headroom_states),
            // A singleton hyperstate flagged open is exactly this state, unexpanded.
            open: details.is_some_and(|d| d.open),
        })
    }

    /// The hyperstate of the state.
    pub fn hyperstate(&self) -> u64 {
        self.row.map_or(0, |r| r.id)
    }

    /// The tag of its hyperstate.
    pub fn tag(&self) -> Tag {
        self.row.map_or(Tag::Unknown, |r| r.tag)
    }
}

/// The nearest win from the current state, as far as it is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinDistance {
    /// Being searched (on a worker thread).
    Searching,
    /// The search's answer.
    Known(WinSearch),
}

/// A level being played.
#[derive(Clone, Debug, PartialEq)]
pub struct Play {
    /// The state play started from (`r` goes back to it).
    pub start: u64,
    /// The tag of the start's hyperstate.
    pub start_tag: Tag,
    /// The moves made, first first.
    pub steps: Vec<Step>,
    /// The state reached.
    pub here: Position,
    /// The nearest win from `here`.
    pub win: WinDistance,
    /// The selected move in the list (played with Enter).
    pub cursor: usize,
}

impl Play {
    /// Play from `state`, or `None` when the analysis does not cover it.
    pub fn new(bench: &dyn Workbench, state: u64) -> Option<Play> {
        let here = Position::read(bench, state)?;
        Some(Play {
            start: state,
            start_tag: here.tag(),
            steps: Vec::new(),
            here,
            win: WinDistance::Searching,
            cursor: 0,
        })
    }

    /// The state play is in.
    pub fn state(&self) -> u64 {
        self.here.member.state
    }

    /// Makes move `index` of the current state's list. Returns false (and changes
    /// nothing) when there is no such move.
    pub fn make(&mut self, bench: &dyn Workbench, index: usize) -> bool {
        let Some(mv) = self.here.member.moves.get(index).cloned() else {
            return false;
        };
        let Some(next) = Position::read(bench, mv.target_state) else {
            return false;
        };
        self.steps.push(Step {
            action: mv.action,
            from: self.state(),
            to: mv.target_state,
            critical: mv.target_hyperstate != self.here.hyperstate(),
            tag: mv.target_tag,
        });
        self.arrive(next);
        true
    }

    /// Takes the last move back. Returns false when no move was made.
    pub fn undo(&mut self, bench: &dyn Workbench) -> bool {
        let Some(step) = self.steps.last() else {
            return false;
        };
        let Some(back) = Position::read(bench, step.from) else {
            return false;
        };
        self.steps.pop();
        self.arrive(back);
        true
    }

    /// Goes back to the start, forgetting every move.
    pub fn restart(&mut self, bench: &dyn Workbench) {
        if let Some(start) = Position::read(bench, self.start) {
            self.steps.clear();
            self.arrive(start);
        }
    }

    fn arrive(&mut self, here: Position) {
        self.here = here;
        self.win = WinDistance::Searching;
        self.cursor = 0;
    }

    /// Since which move the level is lost: `Some(0)` when it was lost from the start,
    /// `Some(k)` when move `k` (1-based) lost it, `None` while it can still be won (or
    /// is unknown). A lost state reaches only lost states, so the first lost step is
    /// where the game was decided.
    pub fn lost_since(&self) -> Option<usize> {
        if self.start_tag.is_lost() {
            return Some(0);
        }
        self.steps
            .iter()
            .position(|s| s.tag.is_lost())
            .map(|i| i + 1)
    }

    /// Whether the last move was critical (irreversible), `None` before any move.
    pub fn last_critical(&self) -> Option<bool> {
        self.steps.last().map(|s| s.critical)
    }

    /// How many of the moves made were critical.
    pub fn critical_count(&self) -> usize {
        self.steps.iter().filter(|s| s.critical).count()
    }

    /// What move `index` would do to the level's chances.
    pub fn verdict(&self, index: usize) -> Option<Verdict> {
        let mv = self.here.member.moves.get(index)?;
        Some(Verdict::of(mv, self.here.hyperstate(), self.here.tag()))
    }

    /// The moves an input stands for (those whose label is the input's).
    pub fn moves_for(&self, input: Input) -> Vec<usize> {
        self.here
            .member
            .moves
            .iter()
            .enumerate()
            .filter(|(_, m)| input.matches(&m.action))
            .map(|(i, _)| i)
            .collect()
    }

    /// True when the current state's moves include a direction or the action key,
    /// so that the arrow keys play rather than move the list's cursor.
    pub fn has_directions(&self) -> bool {
        self.here
            .member
            .moves
            .iter()
            .any(|m| Input::of_label(&m.action).is_some())
    }
}

#[cfg(test)]
mod tests;
