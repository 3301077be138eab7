//! How a `.game` state reads: the text picture of a state, and the named
//! features (tracks and array elements) that weak-equivalence projections
//! may ignore.

use super::game::GrammarGame;
use super::ir::{Dom, Val, NONE};

impl GrammarGame {
    /// One value as written in the file (`-` for `none`).
    fn show_value(&self, v: Val, dom: Dom) -> String {
        match dom {
            Dom::Int { .. } => v.to_string(),
            Dom::Bool => (v != 0).to_string(),
            Dom::Enum { .. } if v == NONE => "-".to_string(),
            Dom::Enum { .. } => self
                .rules
                .values
                .get(v as usize)
                .cloned()
                .unwrap_or_default(),
        }
    }

    /// One line per track: `turn: X`, `board: X - O ...` (arrays indexed by
    /// named values show `index=value`); the error state says so.
    pub(super) fn render_state(&self, state: &[u8]) -> String {
        let mut slots = Vec::new();
        let Some(_) = self.layout.unpack(state, &self.rules.slots, &mut slots) else {
            return format!("(not a state of this game: {} bytes)", state.len());
        };
        let mut lines = Vec::new();
        for t in &self.rules.tracks {
            let first = t.first_slot as usize;
            let line = match &t.index_labels {
                None => self.show_value(slots.get(first).copied().unwrap_or(0), t.dom),
                Some(labels) => {
                    let numeric = labels.iter().all(|l| l.parse::<i64>().is_ok());
                    let cells: Vec<String> = labels
                        .iter()
                        .enumerate()
                        .map(|(k, label)| {
                            let v =
                                self.show_value(slots.get(first + k).copied().unwrap_or(0), t.dom);
                            if numeric {
                                v
                            } else {
                                format!("{label}={v}")
                            }
                        })
                        .collect();
                    cells.join(" ")
                }
            };
            lines.push(format!("{}: {line}", t.name));
        }
        if let Some(reason) = self.rule_error_reason(state) {
            lines.push(reason);
        }
        lines.join("\n")
    }

    /// The features: each track as a whole, then each element of an array.
    pub(super) fn feature_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for t in &self.rules.tracks {
            names.push(t.name.clone());
            if let Some(labels) = &t.index_labels {
                names.extend(labels.iter().map(|l| format!("{}[{l}]", t.name)));
            }
        }
        names
    }

    /// The slots each feature covers, in [`GrammarGame::feature_names`] order.
    fn feature_slots(&self) -> Vec<std::ops::Range<usize>> {
        let mut ranges = Vec::new();
        for t in &self.rules.tracks {
            let first = t.first_slot as usize;
            match &t.index_labels {
                None => ranges.push(first..first + 1),
                Some(labels) => {
                    ranges.push(first..first + labels.len());
                    ranges.extend((0..labels.len()).map(|k| first + k..first + k + 1));
                }
            }
        }
        ranges
    }

    /// `state` with the ignored features set to their set's first value.
    pub(super) fn project_state(&self, state: &[u8], ignored: &[usize], out: &mut Vec<u8>) {
        let mut slots = Vec::new();
        let Some(error) = self.layout.unpack(state, &self.rules.slots, &mut slots) else {
            out.extend_from_slice(state);
            return;
        };
        let ranges = self.feature_slots();
        for f in ignored {
            for s in ranges.get(*f).cloned().unwrap_or(0..0) {
                if let (Some(v), Some(d)) = (slots.get_mut(s), self.rules.slots.get(s)) {
                    *v = d.value(0);
                }
            }
        }
        self.layout.pack(&slots, &self.rules.slots, error, out);
    }
}
