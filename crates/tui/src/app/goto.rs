//! The `:` prompt: a jump straight to a hyperstate (`12`, `h12`) or to the hyperstate of
//! a state with that state on show (`s34`), checked against the run's counts.

use super::App;

/// Where a `:` answer points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A hyperstate id.
    Hyperstate(u64),
    /// A state id.
    State(u64),
}

/// Reads `12`, `h12` or `s34` (spaces around it allowed), or says why it cannot.
pub fn parse(text: &str) -> Result<Target, String> {
    let text = text.trim();
    let (kind, digits) = match text.as_bytes().first() {
        Some(b'h' | b'H') => (Target::Hyperstate as fn(u64) -> Target, &text[1..]),
        Some(b's' | b'S') => (Target::State as fn(u64) -> Target, &text[1..]),
        _ => (Target::Hyperstate as fn(u64) -> Target, text),
    };
    digits
        .parse::<u64>()
        .map(kind)
        .map_err(|_| format!("go to: {text:?} is not h12, 12 or s34"))
}

impl App {
    /// Jumps to what `text` names, or says in the status line why it cannot.
    pub(super) fn goto(&mut self, text: &str) {
        let Some(bench) = self.bench.clone() else {
            return;
        };
        match parse(text) {
            Err(why) => self.status = why,
            Ok(Target::Hyperstate(h)) if h < bench.hyperstate_count() => {
                self.status = format!("hyperstate {h}");
                self.go(h);
            }
            Ok(Target::Hyperstate(h)) => {
                self.status = format!(
                    "go to: there is no hyperstate {h} (the run has {})",
                    bench.hyperstate_count()
                )
            }
            Ok(Target::State(s)) => match bench.state_member(s) {
                Some(member) => {
                    let h = bench.hyperstate_of_state(s).unwrap_or(self.selected);
                    self.status = format!("state {s}, in hyperstate {h}");
                    self.go(h);
                    self.show_member(member.index);
                }
                None => {
                    self.status = format!(
                        "go to: the analysis has no state {s} (it covers {})",
                        bench.state_count()
                    )
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{fixture_app, press, UNICODE};

    #[test]
    fn answers_are_read_as_hyperstates_or_states() {
        assert_eq!(parse(" 12 "), Ok(Target::Hyperstate(12)));
        assert_eq!(parse("h7"), Ok(Target::Hyperstate(7)));
        assert_eq!(parse("S34"), Ok(Target::State(34)));
        assert!(parse("x1").is_err());
        assert!(parse("").is_err());
        assert!(parse("s-1").is_err());
    }

    #[test]
    fn the_prompt_jumps_and_refuses_what_the_run_lacks() {
        let mut app = fixture_app(UNICODE, (80, 24), None);
        press(&mut app, ":h3<Enter>");
        assert_eq!(app.selected, 3);
        let bench = app.bench.clone().unwrap();
        let s = bench.state_count() - 1;
        press(&mut app, &format!(":s{s}<Enter>"));
        assert_eq!(Some(app.selected), bench.hyperstate_of_state(s));
        let shown = app.focus.as_ref().and_then(|f| f.member.as_ref());
        assert_eq!(shown.map(|m| m.state), Some(s));
        let before = app.selected;
        press(&mut app, ":99999<Enter>");
        assert_eq!(app.selected, before);
        assert!(app.status.contains("no hyperstate 99999"), "{}", app.status);
        press(&mut app, &format!(":s{}<Enter>", s + 1));
        assert!(app.status.contains("no state"), "{}", app.status);
        // Esc goes back through the jumps.
        press(&mut app, "<Esc>");
        assert_eq!(app.selected, 3);
    }
}
