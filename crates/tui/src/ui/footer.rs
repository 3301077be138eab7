//! The footer's key hints, as lazygit shows them: the keys of the context in use (the
//! focused screen, pane, list, prompt or play mode), read from the key table, as many
//! as fit the line, each one whole.

use super::fit;
use super::theme::Theme;
use crate::app::App;
use crate::keys::{first_key, footer_hints, key_name, Action, Context};
use crate::play::Input;
use ratatui::text::{Line, Span};

/// The hints of `app`'s context in at most `width` columns.
pub fn key_hints<'a>(app: &App, t: &Theme, width: usize) -> Line<'a> {
    let mut spans = Vec::new();
    let mut used = 0;
    let mut hints = footer_hints(app.context(), t.ascii);
    if app.play.as_ref().is_some_and(|p| !p.has_directions()) && hints.len() > 2 {
        // Actions that are not directions are picked from the list.
        let key = |a| first_key(a, Context::Play).map_or(String::new(), |k| key_name(k, t.ascii));
        let select = [Action::PlayInput(Input::Up), Action::PlayInput(Input::Down)];
        let sep = if t.ascii { "/" } else { "" };
        let select = select.map(key).join(sep);
        hints.splice(
            0..2,
            [(select, "select"), (key(Action::PlaySelected), "play")],
        );
    }
    for (keys, word) in hints {
        let gap = if spans.is_empty() { 0 } else { 2 };
        let item = fit::width(&keys) + 1 + word.len();
        if used + gap + item > width {
            break;
        }
        if gap > 0 {
            spans.push(Span::raw("  "));
        }
        spans.push(Span::styled(keys, t.key()));
        spans.push(Span::styled(format!(" {word}"), t.dim()));
        used += gap + item;
    }
    Line::from(spans)
}
