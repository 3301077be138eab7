//! Play mode in the application: opening it on the state on show, what each key of the
//! play rows does, and the search for the nearest win that follows every move.

use super::{Input, Play, WinDistance};
use crate::app::{App, Job};
use crate::data::WinSearch;
use crate::keys::Action;

impl App {
    /// Opens play mode on the member on show (the selected hyperstate's first member
    /// until another is picked in the browser).
    pub(crate) fn open_play(&mut self) {
        let Some(bench) = self.bench.clone() else {
            return;
        };
        let Some(state) = self
            .focus
            .as_ref()
            .and_then(|f| f.member.as_ref())
            .map(|m| m.state)
        else {
            self.status = "no state to play from here".into();
            return;
        };
        match Play::new(bench.as_ref(), state) {
            Some(play) => {
                self.play = Some(play);
                self.overlay = crate::app::Overlay::None;
                self.request_win_distance();
            }
            None => self.status = format!("state {state} is not in the analysis"),
        }
    }

    /// Carries out `action` in play mode.
    pub(crate) fn apply_play(&mut self, action: Action) {
        let Some(bench) = self.bench.clone() else {
            return;
        };
        let Some(play) = self.play.as_mut() else {
            return;
        };
        let moved = match action {
            Action::Quit => {
                self.quit = true;
                return;
            }
            Action::Help => {
                self.overlay = crate::app::Overlay::Help(0);
                return;
            }
            Action::LeavePlay => return self.leave_play(),
            Action::PlayInput(input) => return self.play_input(input),
            Action::PlayNumber(n) => {
                let index = usize::from(n.max(1) - 1);
                let moved = play.make(bench.as_ref(), index);
                if !moved {
                    self.status = format!("there is no move {n} here");
                }
                moved
            }
            Action::PlaySelected => play.make(bench.as_ref(), play.cursor),
            Action::Undo => {
                let undone = play.undo(bench.as_ref());
                if !undone {
                    self.status = "nothing to undo: this is where play started".into();
                }
                undone
            }
            Action::Restart => {
                play.restart(bench.as_ref());
                true
            }
            Action::PageUp | Action::Top => {
                play.cursor = 0;
                false
            }
            Action::PageDown | Action::Bottom => {
                play.cursor = play.here.member.moves.len().saturating_sub(1);
                false
            }
            _ => {
                self.status = "not in play mode: Esc goes back to the workbench".into();
                false
            }
        };
        if moved {
            self.request_win_distance();
        }
    }

    /// A direction or the action key: the move of that label, or, in a game whose
    /// actions are not directions, the list's cursor.
    fn play_input(&mut self, input: Input) {
        let (Some(bench), Some(play)) = (self.bench.clone(), self.play.as_mut()) else {
            return;
        };
        if !play.has_directions() {
            let n = play.here.member.moves.len();
            match input {
                Input::Up => play.cursor = play.cursor.saturating_sub(1),
                Input::Down => play.cursor = (play.cursor + 1).min(n.saturating_sub(1)),
                Input::Action => return self.apply_play(Action::PlaySelected),
                _ => self.status =
                    "this game's actions are not directions: pick one by its number or with Enter"
                        .into(),
            }
            return;
        }
        let moves = play.moves_for(input);
        match moves.as_slice() {
            [] => {
                self.status = format!("{} is not a move here", input.label());
            }
            [one] => {
                play.make(bench.as_ref(), *one);
                self.request_win_distance();
            }
            several => {
                // Chance: one input, several stored outcomes; the player picks which.
                play.cursor = several[0];
                self.status = format!(
                    "{} has {} outcomes here: pick one by its number",
                    input.label(),
                    several.len()
                );
            }
        }
    }

    /// Leaves play mode, selecting the hyperstate play reached (Back returns to the
    /// one play started from).
    fn leave_play(&mut self) {
        let Some(play) = self.play.take() else {
            return;
        };
        self.status.clear();
        let h = play.here.hyperstate();
        self.go(h);
        let index = play.here.member.index;
        if index > 0 {
            self.show_member(index);
        }
    }

    /// Asks a worker for the nearest win from the state play is in.
    fn request_win_distance(&mut self) {
        let Some(play) = self.play.as_mut() else {
            return;
        };
        if play.here.tag().is_lost() {
            // No search needed, nor a wait behind one still running for an earlier move.
            play.win = WinDistance::Known(WinSearch::Unreachable);
            return;
        }
        play.win = WinDistance::Searching;
        let state = play.state();
        let gen = self.next_play_gen();
        self.queue_job(Job::PlayWin { gen, state });
    }

    /// The search's answer, if it is about the state play is in.
    pub(crate) fn on_win_distance(&mut self, state: u64, found: WinSearch) {
        if let Some(play) = self.play.as_mut().filter(|p| p.state() == state) {
            play.win = WinDistance::Known(found);
        }
    }
}
