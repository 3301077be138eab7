//! What a key means in play mode, in the game's own terms: the four directions and the
//! action key name the actions of Sokoban, PuzzleScript and the sandbox (their labels
//! are `up`, `down`, `left`, `right` and `action`); other games' actions are picked
//! from a numbered list. And what a move would do to the level's chances.

use crate::data::{Move, Tag};

/// A directional input or the action key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// Up.
    Up,
    /// Down.
    Down,
    /// Left.
    Left,
    /// Right.
    Right,
    /// The action key (PuzzleScript's X).
    Action,
}

impl Input {
    /// Every input, in the order the help names them.
    pub const ALL: [Input; 5] = [
        Input::Up,
        Input::Down,
        Input::Left,
        Input::Right,
        Input::Action,
    ];

    /// The action label this input plays.
    pub fn label(self) -> &'static str {
        match self {
            Input::Up => "up",
            Input::Down => "down",
            Input::Left => "left",
            Input::Right => "right",
            Input::Action => "action",
        }
    }

    /// The input an action label stands for, if it is one of the five.
    pub fn of_label(label: &str) -> Option<Input> {
        Input::ALL
            .into_iter()
            .find(|i| i.label().eq_ignore_ascii_case(label.trim()))
    }

    /// True when `label` is this input's action.
    pub fn matches(self, label: &str) -> bool {
        Input::of_label(label) == Some(self)
    }

    /// A one-character picture of the input (`ascii` spells it with a letter).
    pub fn glyph(self, ascii: bool) -> &'static str {
        match (self, ascii) {
            (Input::Up, false) => "↑",
            (Input::Down, false) => "↓",
            (Input::Left, false) => "←",
            (Input::Right, false) => "→",
            (Input::Up, true) => "U",
            (Input::Down, true) => "D",
            (Input::Left, true) => "L",
            (Input::Right, true) => "R",
            (Input::Action, _) => "X",
        }
    }
}

/// What a move would do to the level's chances, judged by the tag of the hyperstate
/// it leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It stays in the hyperstate: it can be undone in the game, nothing changes.
    Reversible,
    /// A critical action into a hyperstate that can still win.
    Keeps,
    /// A critical action into a lost hyperstate (fail or implicitly failed): after it
    /// the level cannot be won.
    Loses,
    /// A critical action whose outcome the run does not know (partial run).
    Unknown,
    /// A critical action made when the level is already lost.
    StillLost,
}

impl Verdict {
    /// The verdict of `mv` made from hyperstate `here` tagged `tag`.
    pub fn of(mv: &Move, here: u64, tag: Tag) -> Verdict {
        if mv.target_hyperstate == here {
            Verdict::Reversible
        } else if tag.is_lost() {
            Verdict::StillLost
        } else if mv.target_tag.is_winnable() {
            Verdict::Keeps
        } else if mv.target_tag.is_lost() {
            Verdict::Loses
        } else {
            Verdict::Unknown
        }
    }

    /// The mark drawn before the move (`ascii` keeps to ASCII).
    pub fn mark(self, ascii: bool) -> &'static str {
        match (self, ascii) {
            (Verdict::Reversible, _) => " ",
            (Verdict::Keeps, false) => "✓",
            (Verdict::Keeps, true) => "+",
            (Verdict::Loses, false) => "✗",
            (Verdict::Loses, true) => "x",
            (Verdict::Unknown, _) => "?",
            (Verdict::StillLost, _) => "-",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_inputs_whatever_their_case() {
        assert_eq!(Input::of_label("up"), Some(Input::Up));
        assert_eq!(Input::of_label("Action"), Some(Input::Action));
        assert_eq!(Input::of_label("1,1 down"), None);
        assert!(Input::Left.matches("LEFT"));
        assert!(!Input::Left.matches("right"));
    }

    #[test]
    fn a_move_is_judged_by_where_it_leads() {
        let mv = |h: u64, tag: Tag| Move {
            action: "up".into(),
            target_state: 1,
            target_hyperstate: h,
            target_tag: tag,
        };
        let ew = Tag::EventuallyWinnable;
        assert_eq!(Verdict::of(&mv(5, ew), 5, ew), Verdict::Reversible);
        assert_eq!(Verdict::of(&mv(4, Tag::Win), 5, ew), Verdict::Keeps);
        assert_eq!(Verdict::of(&mv(4, Tag::Fail), 5, ew), Verdict::Loses);
        assert_eq!(
            Verdict::of(&mv(4, Tag::ImplicitlyFailed), 5, ew),
            Verdict::Loses
        );
        assert_eq!(Verdict::of(&mv(4, Tag::Unknown), 5, ew), Verdict::Unknown);
        let lost = Tag::ImplicitlyFailed;
        assert_eq!(Verdict::of(&mv(4, Tag::Fail), 5, lost), Verdict::StillLost);
    }
}
