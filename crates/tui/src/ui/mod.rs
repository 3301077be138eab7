//! Drawing: `draw(&App)` only reads the application state. Each screen reads from the
//! workbench only what is visible (table rows, list items on screen), so a frame costs
//! the same whatever the size of the run.

pub mod browser;
pub mod fit;
mod footer;
pub mod graph;
pub(crate) mod overlays;
mod overview;
mod paths;
mod play;
mod play_board;
pub mod plot;
pub mod theme;

use crate::app::{App, Integrity, Screen};
use crate::data::Damage;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;
use theme::Theme;

/// Draws the whole application.
pub fn draw(frame: &mut Frame, app: &App) {
    let t = Theme::new(app.view);
    let [header, body, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    draw_header(frame, header, app, &t);
    draw_footer(frame, footer, app, &t);
    if let Some(damage) = app.damage() {
        draw_damage(frame, body, &t, damage);
        return overlays::draw(frame, body, app, &t);
    }
    let body = draw_banner(frame, body, app, &t);
    if let Some(message) = &app.fatal {
        draw_message(frame, body, &t, "Cannot open the run", message, t.error());
    } else if app.bench.is_none() && app.overview.is_some() {
        // The overview read ahead of the rest of the data; keys wait for the rest.
        overview::draw(frame, body, app, &t);
    } else if app.bench.is_none() {
        let text = format!("{} {}", t.spinner(app.tick), app.phase);
        draw_message(frame, body, &t, "Loading", &text, Style::default());
    } else {
        match app.screen {
            Screen::Overview => overview::draw(frame, body, app, &t),
            Screen::Browser => browser::draw(frame, body, app, &t),
            Screen::Paths => paths::draw(frame, body, app, &t),
            Screen::Graph => graph::draw(frame, body, app, &t),
        }
        play::draw(frame, body, app, &t);
    }
    overlays::draw(frame, body, app, &t);
}

fn draw_header(frame: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let mut spans = Vec::new();
    for (i, s) in Screen::ALL.iter().enumerate() {
        let style = if *s == app.screen {
            t.selected()
        } else {
            Style::default()
        };
        spans.push(Span::styled(tab_title(i, *s), style));
    }
    let mut right = Vec::new();
    if app.busy() {
        right.push(Span::raw(format!("{} ", t.spinner(app.tick))));
    }
    match &app.integrity {
        Integrity::NothingToVerify => {}
        Integrity::Verifying { .. } => right.push(Span::styled(
            format!("verifying {}% ", app.integrity.percent().unwrap_or(0)),
            t.dim(),
        )),
        Integrity::Verified => right.push(Span::styled(
            format!("{}verified ", if t.ascii { "" } else { "✓ " }),
            t.dim(),
        )),
        Integrity::Damaged(_) => right.push(Span::styled("DAMAGED ", t.error())),
        Integrity::Failed(_) => right.push(Span::styled("not verified ", t.error())),
    }
    // In play mode the hyperstate play is in, else the selection.
    let shown = match &app.play {
        Some(p) => p.here.row,
        None => app
            .focus
            .as_ref()
            .and_then(|f| f.details.as_ref())
            .map(|d| d.row),
    };
    if let Some(row) = shown {
        right.push(Span::raw(format!("h{} ", row.id)));
        right.push(Span::styled(theme::tag_short(row.tag), t.tag(row.tag)));
        right.push(Span::raw(" "));
    }
    let right_width: usize = right.iter().map(|s| s.width()).sum();
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
    if right_width as u16 <= area.width {
        let r = Rect {
            x: area.right() - right_width as u16,
            width: right_width as u16,
            ..area
        };
        frame.render_widget(Paragraph::new(Line::from(right)), r);
    }
}

/// The screen whose tab covers column `x` of the header, as `draw_header` lays the
/// tabs out.
pub fn tab_at(x: u16) -> Option<u8> {
    let mut start = 0u16;
    for (i, s) in Screen::ALL.iter().enumerate() {
        let width = fit::width(&tab_title(i, *s)) as u16;
        if (start..start + width).contains(&x) {
            return u8::try_from(i).ok();
        }
        start += width;
    }
    None
}

fn tab_title(i: usize, s: Screen) -> String {
    format!(" {} {} ", i + 1, s.title())
}

fn draw_footer(frame: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let hint = vec![
        Span::styled("?", t.key()),
        Span::raw(" help "),
        Span::styled("q", t.key()),
        Span::raw(" quit"),
    ];
    let hint_width = 15u16;
    let status_width = area.width.saturating_sub(hint_width + 1);
    let status = Rect {
        width: status_width,
        ..area
    };
    let text = if app.bench.is_none() && app.overview.is_some() {
        format!("{}; the other screens open when it is done", app.phase)
    } else {
        app.status.clone()
    };
    if text.is_empty() && app.bench.is_some() {
        // Nothing to say: the keys of what has the focus, as lazygit shows them.
        let hints = footer::key_hints(app, t, usize::from(status_width));
        frame.render_widget(Paragraph::new(hints), status);
    } else {
        // A message too long for the line ends with an ellipsis rather than a cut word.
        let text = fit::ellipsize(&text, usize::from(status_width), t.ellipsis());
        frame.render_widget(Paragraph::new(text).style(t.dim()), status);
    }
    if area.width >= hint_width {
        let r = Rect {
            x: area.right() - hint_width,
            width: hint_width,
            ..area
        };
        frame.render_widget(Paragraph::new(Line::from(hint)).right_aligned(), r);
    }
}

/// The lines of the banner over the body when the analysis on show may not describe
/// the run as shown: the whole explanation on the overview, one sentence elsewhere,
/// wrapped to `width` columns and never cut.
pub fn banner_lines(app: &App, width: u16) -> Vec<String> {
    let Some(note) = app.overview.as_ref().and_then(|o| o.stale_note.as_ref()) else {
        return Vec::new();
    };
    let text = if app.screen == Screen::Overview || app.bench.is_none() {
        &note.full
    } else {
        &note.short
    };
    fit::wrap(text, usize::from(width))
}

/// Draws the banner (if any) at the top of `area` and returns the rest of it.
fn draw_banner(frame: &mut Frame, area: Rect, app: &App, t: &Theme) -> Rect {
    let lines = banner_lines(app, area.width);
    let rows = (lines.len() as u16).min(area.height);
    if rows == 0 {
        return area;
    }
    let [banner, rest] =
        Layout::vertical([Constraint::Length(rows), Constraint::Min(0)]).areas(area);
    let text: Vec<Line> = lines
        .into_iter()
        .map(|l| Line::styled(l, t.error()))
        .collect();
    frame.render_widget(Paragraph::new(text), banner);
    rest
}

/// The screen of a run found damaged: what and where, that nothing more of the run is
/// shown, and what brings back a sound one.
fn draw_damage(frame: &mut Frame, area: Rect, t: &Theme, damage: &Damage) {
    let text = format!(
        "Verifying the run found damage:\n{}\n\nNothing from this run is shown any more: its \
         figures cannot be trusted. `hsg verify` names the same damage.\n{}",
        damage.what, damage.remedy
    );
    draw_message(frame, area, t, "The run is damaged", &text, t.error());
}

fn draw_message(frame: &mut Frame, area: Rect, t: &Theme, title: &str, text: &str, style: Style) {
    let block = pane(t, title, false, area.width);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let lines: Vec<Line> = text
        .lines()
        .map(|l| Line::styled(l.to_string(), style))
        .chain([Line::raw(""), Line::raw("press q to quit")])
        .collect();
    frame.render_widget(
        Paragraph::new(lines).wrap(ratatui::widgets::Wrap { trim: false }),
        inner,
    );
}

/// A bordered pane of `width` columns; the focused one has a bold title marked `*`.
/// A title too long for the border ends with an ellipsis.
pub fn pane<'a>(t: &Theme, title: &str, focused: bool, width: u16) -> Block<'a> {
    let style = if focused { t.title() } else { Style::default() };
    let marker = if focused { "*" } else { "" };
    let room = usize::from(width).saturating_sub(4 + marker.len());
    let title = fit::ellipsize(title, room, t.ellipsis());
    Block::default()
        .borders(Borders::ALL)
        .border_set(t.border())
        .title(Span::styled(format!(" {title}{marker} "), style))
}

/// An optional number, or `-`.
pub fn opt<T: std::fmt::Display>(x: Option<T>) -> String {
    x.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// An optional fraction with three decimals, or `-`.
pub fn opt_f(x: Option<f32>) -> String {
    x.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"))
}

/// The first row of the page holding `cursor` when `rows` fit.
pub fn page_start(cursor: usize, rows: usize) -> usize {
    if rows == 0 {
        0
    } else {
        cursor - cursor % rows
    }
}

#[cfg(test)]
mod color_tests;
#[cfg(test)]
mod integrity_tests;
#[cfg(test)]
mod number_tests;
#[cfg(test)]
mod play_tests;
#[cfg(test)]
mod rules_tests;
#[cfg(test)]
mod tests;
