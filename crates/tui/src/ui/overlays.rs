//! What is drawn over the screens: the key help (generated from the key table), the
//! bookmark list, the rules overlay (rule coverage and hangs) and the text prompts.

use super::theme::{tag_short, Theme};
use super::{page_start, pane};
use crate::app::{App, Overlay, PromptKind};
use crate::keys::{key_name, Context, KEYS};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

/// Draws the overlay, if any, over `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, t: &Theme) {
    match &app.overlay {
        Overlay::None => {}
        Overlay::Help(page) => draw_help(frame, area, t, *page),
        Overlay::Bookmarks(cursor) => draw_bookmarks(frame, area, app, t, *cursor),
        Overlay::Prompt(kind, text) => draw_prompt(frame, area, t, *kind, text),
        Overlay::Board => draw_whole_board(frame, area, app, t),
        Overlay::Rules(top) => draw_rules(frame, area, app, t, *top),
    }
}

/// Width of the count columns of the rules overlay.
const COUNT: usize = 9;

/// The lines of the rules overlay, unclipped: one a rule, then the hangs.
fn rules_lines(app: &App, t: &Theme, max: usize) -> Vec<Line<'static>> {
    use crate::app::RulesView;
    let report = match &app.rules {
        RulesView::Ready(r) => r,
        RulesView::NotAsked | RulesView::Computing => {
            return vec![Line::styled(
                "expanding every state again to see which rules fire...",
                t.dim(),
            )]
        }
        RulesView::Unavailable(why) => {
            return super::fit::wrap(why, max)
                .into_iter()
                .map(|l| Line::styled(l, t.dim()))
                .collect()
        }
    };
    let e = t.ellipsis();
    let mut lines = Vec::new();
    let over = format!(
        "fired in how many of {} states{}",
        model::numbers::grouped(report.surveyed),
        if report.complete {
            ""
        } else {
            " (a partial run: lower bounds)"
        }
    );
    lines.push(Line::styled(super::fit::ellipsize(&over, max, e), t.dim()));
    let header = format!(
        "{:>5} {:>COUNT$} {:>COUNT$} {:<10} rule",
        "line", "states", "winnable", "note"
    );
    lines.push(Line::styled(
        super::fit::ellipsize(&header, max, e),
        t.title(),
    ));
    for r in &report.rules {
        let style = match r.note {
            "never" | "lost only" => t.error(),
            "decorative" | "start only" => t.dim(),
            _ => ratatui::style::Style::default(),
        };
        let spans = vec![
            Span::raw(format!(
                "{:>5} {:>COUNT$} {:>COUNT$} ",
                r.line,
                super::fit::count(r.states, COUNT),
                super::fit::count(r.live, COUNT)
            )),
            Span::styled(format!("{:<10} ", r.note), style),
            Span::raw(r.text.clone()),
        ];
        lines.push(super::fit::line(spans, max, e));
    }
    lines.push(Line::raw(""));
    let hangs = format!(
        "hangs: {} (state, input) pairs whose again chain never ends",
        model::numbers::grouped(report.hang_count)
    );
    let style = if report.hang_count > 0 {
        t.error()
    } else {
        t.dim()
    };
    lines.push(Line::styled(super::fit::ellipsize(&hangs, max, e), style));
    for h in &report.hangs {
        let text = format!("s{}: {}", h.state, h.inputs.join(" "));
        lines.push(Line::raw(super::fit::ellipsize(&text, max, e)));
    }
    if report.hang_count > report.hangs.len() as u64 {
        lines.push(Line::styled(
            super::fit::ellipsize("... (hsg report --json lists more)", max, e),
            t.dim(),
        ));
    }
    lines
}

/// How many lines the rules overlay has (for scrolling).
pub fn rules_line_count(app: &App) -> usize {
    let t = Theme::new(app.view);
    rules_lines(app, &t, usize::MAX).len()
}

fn draw_rules(frame: &mut Frame, area: Rect, app: &App, t: &Theme, top: usize) {
    let box_area = inset(area, 1);
    let title = match &app.rules {
        crate::app::RulesView::Ready(r) => {
            let never = r.rules.iter().filter(|x| x.note == "never").count();
            let lost = r.rules.iter().filter(|x| x.note == "lost only").count();
            format!(
                "Rules {}: never firing {never}, firing only when lost {lost}, hangs {}",
                r.rules.len(),
                model::numbers::grouped(r.hang_count)
            )
        }
        _ => "Rules".to_string(),
    };
    let block = pane(t, &title, true, box_area.width);
    let inner = block.inner(box_area);
    frame.render_widget(Clear, box_area);
    frame.render_widget(block, box_area);
    let lines = rules_lines(app, t, usize::from(inner.width));
    let shown: Vec<Line> = lines
        .into_iter()
        .skip(top)
        .take(usize::from(inner.height))
        .collect();
    frame.render_widget(Paragraph::new(shown), inner);
}

/// The browser's member over the whole body, for boards the member pane cuts.
fn draw_whole_board(frame: &mut Frame, area: Rect, app: &App, t: &Theme) {
    if app.screen != crate::app::Screen::Browser {
        return;
    }
    let member = app.focus.as_ref().and_then(|f| f.member.as_ref());
    let title = format!(
        "{} (z or Esc: back)",
        super::browser::member_title(app, member)
    );
    let block = pane(t, &title, true, area.width);
    let inner = block.inner(area);
    frame.render_widget(Clear, area);
    frame.render_widget(block, area);
    if let Some(m) = member {
        super::browser::draw_board(frame, inner, app, m, t, true);
    }
}

/// Narrowest column of the help: a key column and a short description.
const MIN_COLUMN: u16 = 37;

/// The help lines: one heading per context, one line per binding.
pub fn help_lines(t: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for ctx in Context::ALL {
        lines.push(Line::styled(ctx.title(), t.title()));
        let rows: Vec<_> = KEYS.iter().filter(|b| b.context == ctx).collect();
        // Consecutive rows with one help text (the number keys) make one line: `1-9`.
        for run in rows.chunk_by(|a, b| a.help == b.help) {
            let keys: Vec<String> = run[0].keys.iter().map(|k| key_name(k, t.ascii)).collect();
            let mut keys = keys.join(" ");
            if let Some(last) = run.get(1..).and_then(|r| r.last()) {
                let last = last.keys.first().map(|k| key_name(k, t.ascii));
                keys = format!("{keys}-{}", last.unwrap_or_default());
            }
            lines.push(Line::from(vec![
                Span::styled(format!(" {keys:<10}"), t.key()),
                Span::raw(run[0].help),
            ]));
        }
    }
    lines.push(Line::styled("Marks", t.title()));
    lines.push(Line::raw(" *          after a title: focused pane"));
    lines.push(Line::raw(" 1.4M …     abbreviated, cut short"));
    lines
}

fn draw_help(frame: &mut Frame, area: Rect, t: &Theme, page: usize) {
    let lines = help_lines(t);
    let box_area = inset(area, 1);
    let block = pane(t, "Keys", true, box_area.width);
    let inner = block.inner(box_area);
    frame.render_widget(Clear, box_area);
    frame.render_widget(block, box_area);
    // Flow the lines into as many columns of at least MIN_COLUMN cells as fit.
    let columns = (inner.width / MIN_COLUMN).max(1);
    let column_width = inner.width / columns;
    let rows = inner.height.max(1) as usize;
    let per_page = rows * columns as usize;
    let pages = lines.len().div_ceil(per_page).max(1);
    let page = page.min(pages - 1);
    let shown = lines.iter().skip(page * per_page).take(per_page).cloned();
    let shown: Vec<Line> = shown.collect();
    for (i, chunk) in shown.chunks(rows).enumerate() {
        let x = inner.x + i as u16 * column_width;
        let r = Rect {
            x,
            width: column_width,
            ..inner
        };
        frame.render_widget(Paragraph::new(chunk.to_vec()), r);
    }
    let footer = if pages > 1 {
        format!(
            " page {}/{pages}: j/k turn pages, any other key closes ",
            page + 1
        )
    } else {
        " any key closes ".to_string()
    };
    let r = Rect {
        y: box_area.bottom().saturating_sub(1),
        height: 1,
        x: box_area.x + 2,
        width: (footer.len() as u16).min(box_area.width.saturating_sub(4)),
    };
    frame.render_widget(Paragraph::new(Span::styled(footer, t.dim())), r);
}

fn draw_bookmarks(frame: &mut Frame, area: Rect, app: &App, t: &Theme, cursor: usize) {
    let box_area = inset(area, 2);
    let items = app.bookmarks.items();
    let block = pane(
        t,
        &format!("Bookmarks {}", items.len()),
        true,
        box_area.width,
    );
    let mut inner = block.inner(box_area);
    frame.render_widget(Clear, box_area);
    frame.render_widget(block, box_area);
    // What the user must know about the database comes first, whole.
    if let Some(notice) = app.bookmarks.notice() {
        let lines: Vec<Line> = super::fit::wrap(notice, usize::from(inner.width))
            .into_iter()
            .map(|l| Line::styled(l, t.error()))
            .collect();
        let rows = (lines.len() as u16).min(inner.height);
        frame.render_widget(
            Paragraph::new(lines),
            Rect {
                height: rows,
                ..inner
            },
        );
        inner.y += rows;
        inner.height -= rows;
    }
    if items.is_empty() {
        let text = match app.bookmarks.refusal() {
            Some(why) => format!("no bookmarks: {why}"),
            None => "no bookmarks yet: press b on a hyperstate to add one".to_string(),
        };
        let lines: Vec<Line> = super::fit::wrap(&text, usize::from(inner.width))
            .into_iter()
            .map(|l| Line::styled(l, t.dim()))
            .collect();
        frame.render_widget(Paragraph::new(lines), inner);
        return;
    }
    let rows = inner.height as usize;
    let bench = app.bench.as_ref();
    let lines: Vec<Line> = items
        .iter()
        .enumerate()
        .skip(page_start(cursor, rows))
        .take(rows)
        .map(|(i, b)| {
            let h = bench.and_then(|w| w.hyperstate_of_state(b.state));
            let row = h.and_then(|h| bench?.row(h));
            let (place, tag) = match row {
                Some(r) => (format!("h{:<6}", r.id), Some(r.tag)),
                None => ("gone   ".to_string(), None),
            };
            let mut spans = vec![Span::raw(format!("s{:<8} {place} ", b.state))];
            if let Some(tag) = tag {
                spans.push(Span::styled(format!("{:<6} ", tag_short(tag)), t.tag(tag)));
            }
            spans.push(Span::raw(b.note.clone()));
            let line = Line::from(spans);
            if i == cursor {
                line.style(t.selected())
            } else {
                line
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

fn draw_prompt(frame: &mut Frame, area: Rect, t: &Theme, kind: PromptKind, text: &str) {
    let label = match kind {
        PromptKind::Search => "Search (12, h12, s34, win, fail, or board text)",
        PromptKind::Note => "Bookmark note",
        PromptKind::Goto => "Go to (h12 or 12: hyperstate, s34: state)",
    };
    let box_area = Rect {
        y: area.bottom().saturating_sub(3),
        height: 3.min(area.height),
        ..area
    };
    let block = pane(t, label, true, box_area.width);
    let inner = block.inner(box_area);
    frame.render_widget(Clear, box_area);
    frame.render_widget(block, box_area);
    let cursor = if t.ascii { "_" } else { "▏" };
    frame.render_widget(Paragraph::new(format!("{text}{cursor}")), inner);
}

/// `area` shrunk by `margin` cells on every side (when it is big enough).
fn inset(area: Rect, margin: u16) -> Rect {
    if area.width <= 2 * margin + 10 || area.height <= 2 * margin + 3 {
        return area;
    }
    Rect {
        x: area.x + margin,
        y: area.y + margin,
        width: area.width - 2 * margin,
        height: area.height - 2 * margin,
    }
}
