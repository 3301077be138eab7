//! The paths screen: root to the anchor, the anchor's shortest win, and the ideal path
//! with its loss distances. Stepping along a path moves the selection.

use super::theme::{tag_short, Theme};
use super::{opt, page_start, pane};
use crate::app::{App, PATH_NAMES};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// Draws the paths screen into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let [lists, summary] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(2)]).areas(area);
    let columns = Layout::horizontal([Constraint::Ratio(1, 3); 3]).split(lists);
    for (i, column) in columns.iter().enumerate() {
        draw_path(frame, *column, app, t, i);
    }
    let anchor = app
        .paths
        .anchor
        .map_or("-".to_string(), |a| format!("h{a}"));
    let p = &app.paths;
    let list = &p.lists[p.which];
    let cursor = p.cursor[p.which];
    let steps = super::browser::plural(list.len().saturating_sub(1) as u64, "step", "steps");
    let place = match list.get(cursor) {
        Some(&h) if h == app.selected => {
            format!(
                "selection h{h}: step {cursor} of {steps} along {}",
                PATH_NAMES[p.which]
            )
        }
        Some(&h) => format!(
            "selection h{} is not on {}; highlighted: step {cursor} of {steps}, h{h}",
            app.selected, PATH_NAMES[p.which]
        ),
        None => format!(
            "selection h{}; {} is empty",
            app.selected, PATH_NAMES[p.which]
        ),
    };
    let text = vec![
        Line::raw(super::fit::ellipsize(
            &format!("paths of {anchor}; {place}"),
            usize::from(area.width),
            t.ellipsis(),
        )),
        Line::styled("j/k step along, h/l change path, Enter follow", t.dim()),
    ];
    frame.render_widget(Paragraph::new(text), summary);
}

fn draw_path(frame: &mut Frame, area: Rect, app: &App, t: &Theme, which: usize) {
    let p = &app.paths;
    let list = &p.lists[which];
    let focused = p.which == which;
    let title = format!("{} ({})", PATH_NAMES[which], list.len().saturating_sub(1));
    let block = pane(t, &title, focused, area.width);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if !p.ready {
        let text = format!("{} computing", t.spinner(app.tick));
        frame.render_widget(Paragraph::new(text), inner);
        return;
    }
    if list.is_empty() {
        // On a partial run a win may lie beyond the states never expanded.
        let partial = app
            .bench
            .as_ref()
            .is_some_and(|b| b.overview().open_states > 0);
        let why = match which {
            0 => "the root does not reach it",
            1 if partial => "no win found yet (the run is partial)",
            1 => "no win is reachable",
            _ => "there is no ideal path",
        };
        frame.render_widget(Paragraph::new(Line::styled(why, t.dim())), inner);
        return;
    }
    let Some(bench) = &app.bench else { return };
    let rows = inner.height as usize;
    let cursor = p.cursor[which];
    let lines: Vec<Line> = list
        .iter()
        .enumerate()
        .skip(page_start(cursor, rows))
        .take(rows)
        .filter_map(|(i, &h)| Some((i, bench.row(h)?)))
        .map(|(i, r)| {
            let style = if i == cursor && focused {
                t.selected()
            } else {
                Style::default()
            };
            Line::from(vec![
                Span::raw(format!("{i:>3} {:>6} ", r.id)),
                Span::styled(format!("{:<6}", tag_short(r.tag)), t.tag(r.tag)),
                Span::styled(format!(" ld {}", opt(r.loss_distance)), t.dim()),
            ])
            .style(style)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}
