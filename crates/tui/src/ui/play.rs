//! Play mode's screen: the level drawn large on the left, and on the right the analysis
//! of the state play is in (winnable or lost and since which move, the nearest win, the
//! hyperstate, whether the last move was critical, headroom) above the moves of the
//! state, each marked with what it would do to the level's chances.

use super::fit;
use super::pane;
use super::theme::{tag_short, Theme};
use crate::app::App;
use crate::data::{Tag, WinSearch};
use crate::play::{Input, Play, Verdict, WinDistance};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};
use ratatui::Frame;

/// Widest the side panel gets.
const SIDE_WIDTH: u16 = 36;

/// Draws play mode over `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let Some(play) = &app.play else { return };
    frame.render_widget(Clear, area);
    let side = SIDE_WIDTH.min(area.width / 2);
    let [board, side] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(side)]).areas(area);
    draw_board(frame, board, app, play, t);
    let facts = analysis_lines(play, t);
    let wrapped = wrapped_height(&facts, side.width.saturating_sub(2));
    let facts_height = (wrapped + 2).min(side.height / 2 + 2);
    let [top, bottom] =
        Layout::vertical([Constraint::Length(facts_height), Constraint::Fill(1)]).areas(side);
    let block = pane(t, &format!("Move {}", play.steps.len()), false, top.width);
    let inner = block.inner(top);
    frame.render_widget(block, top);
    frame.render_widget(Paragraph::new(facts).wrap(Wrap { trim: false }), inner);
    draw_moves(frame, bottom, play, t);
}

/// Rows `lines` take when wrapped at `width` columns.
fn wrapped_height(lines: &[Line], width: u16) -> u16 {
    let width = usize::from(width.max(1));
    let rows: usize = lines.iter().map(|l| l.width().max(1).div_ceil(width)).sum();
    u16::try_from(rows).unwrap_or(u16::MAX)
}

/// The board pane: the state's picture scaled up as far as it fits.
fn draw_board(frame: &mut Frame, area: Rect, app: &App, play: &Play, t: &Theme) {
    let title = app
        .overview
        .as_ref()
        .map_or("Play".to_string(), |o| format!("Play: {}", o.level_title));
    let block = pane(t, &title, true, area.width);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let m = &play.here.member;
    let rows: Vec<&str> = m.text.lines().collect();
    let width = rows.iter().map(|r| fit::width(r)).max().unwrap_or(0);
    let (sx, sy) = scale(width, rows.len(), inner);
    let mut lines = scaled_lines(&rows, m.colors.as_deref(), sx, sy, t);
    let fits =
        width * sx <= usize::from(inner.width) && rows.len() * sy <= usize::from(inner.height);
    if !fits {
        lines.truncate(usize::from(inner.height.saturating_sub(1)));
        let hint = format!(
            "{}cut: the terminal is smaller than the board",
            t.ellipsis()
        );
        let hint = fit::ellipsize(&hint, usize::from(inner.width), t.ellipsis());
        lines.push(Line::styled(hint, t.error()));
        frame.render_widget(Paragraph::new(lines), inner);
        return;
    }
    // Centred in the pane.
    let used = Rect {
        x: inner.x + (inner.width - (width * sx) as u16) / 2,
        y: inner.y + (inner.height - (rows.len() * sy) as u16) / 2,
        width: (width * sx) as u16,
        height: (rows.len() * sy) as u16,
    };
    frame.render_widget(Paragraph::new(lines), used);
}

/// How many columns and rows each character of a `width` x `height` board takes in
/// `area`: twice as many columns as rows (a terminal cell is about twice as tall as it
/// is wide), as large as fits, at least one of each.
pub fn scale(width: usize, height: usize, area: Rect) -> (usize, usize) {
    let (w, h) = (usize::from(area.width), usize::from(area.height));
    if width == 0 || height == 0 {
        return (1, 1);
    }
    let s = (w / (2 * width)).min(h / height);
    if s >= 1 {
        (2 * s, s)
    } else {
        (1, 1)
    }
}

/// The board's rows with every character repeated `sx` times across and every row
/// `sy` times down, in the game's colours when it has them.
fn scaled_lines<'a>(
    rows: &[&str],
    colors: Option<&[Vec<Option<model::Rgb>>]>,
    sx: usize,
    sy: usize,
    t: &Theme,
) -> Vec<Line<'a>> {
    let colors = colors.filter(|_| t.colour());
    let mut lines = Vec::new();
    for (y, row) in rows.iter().enumerate() {
        let mut spans: Vec<Span> = Vec::new();
        for (x, ch) in row.chars().enumerate() {
            let color = colors.and_then(|c| c.get(y)?.get(x).copied().flatten());
            let text: String = std::iter::repeat_n(ch, sx).collect();
            spans.push(match color {
                Some(c) => Span::styled(text, t.rgb(c)),
                None => Span::raw(text),
            });
        }
        for _ in 0..sy {
            lines.push(Line::from(spans.clone()));
        }
    }
    lines
}

/// The analysis of the state play is in, one fact a line.
fn analysis_lines<'a>(play: &Play, t: &Theme) -> Vec<Line<'a>> {
    let here = &play.here;
    let tag = here.tag();
    let mut lines = vec![verdict_line(play, t)];
    lines.push(Line::raw(win_text(play)));
    let states = here.row.map_or(0, |r| r.size);
    lines.push(Line::from(vec![
        Span::raw(format!("hyperstate {} ", here.hyperstate())),
        Span::styled(tag_short(tag), t.tag(tag)),
        Span::raw(format!(
            ", {}",
            super::browser::plural(states, "state", "states")
        )),
    ]));
    lines.push(Line::raw(match play.last_critical() {
        None => "last move: none yet".to_string(),
        Some(true) => "last move: critical (irreversible)".to_string(),
        Some(false) => "last move: reversible".to_string(),
    }));
    let headroom = here.row.and_then(|r| r.headroom);
    lines.push(Line::raw(format!(
        "headroom {}, in states {}",
        super::opt_f(headroom),
        super::opt_f(here.headroom_states)
    )));
    let made = super::browser::plural(play.steps.len() as u64, "move", "moves");
    lines.push(Line::styled(
        format!(
            "state {}; {made}, {} critical",
            here.member.state,
            play.critical_count()
        ),
        t.dim(),
    ));
    if here.open {
        lines.push(Line::styled(
            "never expanded (partial run): its moves are unknown; z undoes",
            t.error(),
        ));
    }
    lines
}

/// The first line: won, lost (since which move), winnable or unknown.
fn verdict_line<'a>(play: &Play, t: &Theme) -> Line<'a> {
    let here = &play.here;
    let tag = here.tag();
    if let Some(outcome) = &here.member.outcome {
        let style = if tag.is_winnable() {
            t.tag(Tag::Win)
        } else {
            t.error()
        };
        return Line::styled(format!("GAME OVER: {outcome}"), style);
    }
    match play.lost_since() {
        Some(0) => Line::styled("LOST from the start", t.error()),
        Some(k) => Line::styled(format!("LOST since move {k}"), t.error()),
        None if tag.is_winnable() => Line::styled("still winnable", t.tag(tag)),
        None => Line::styled("unknown: past the explored part", t.tag(Tag::Unknown)),
    }
}

/// The nearest win: in actions (searched) and in critical actions (the analysis).
fn win_text(play: &Play) -> String {
    let critical = play
        .here
        .row
        .and_then(|r| r.win_distance)
        .map_or(String::new(), |d| format!(", {d} critical"));
    match play.win {
        WinDistance::Searching => format!("nearest win: searching{critical}"),
        WinDistance::Known(WinSearch::Actions(0)) => "this is a win".to_string(),
        WinDistance::Known(WinSearch::Actions(n)) => {
            format!(
                "win in {}{critical}",
                super::browser::plural(n, "action", "actions")
            )
        }
        WinDistance::Known(WinSearch::Unreachable) if play.here.tag() == Tag::Unknown => {
            "no win among the explored states".to_string()
        }
        WinDistance::Known(WinSearch::Unreachable) => "no win reachable".to_string(),
        WinDistance::Known(WinSearch::Beyond { at_least, .. }) => {
            format!("win in over {at_least} actions{critical}")
        }
    }
}

/// The moves pane: one numbered line per move with its mark, the cursor's highlighted,
/// and the marks' legend.
fn draw_moves(frame: &mut Frame, area: Rect, play: &Play, t: &Theme) {
    let moves = &play.here.member.moves;
    let block = pane(t, &format!("Moves {}", moves.len()), false, area.width);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width);
    let legend = legend_line(t);
    let rows = usize::from(inner.height).saturating_sub(1).max(1);
    let start = super::page_start(play.cursor, rows);
    // Labels give way to the hyperstate ids, which are never cut: number, glyph,
    // label and mark take six columns besides the label.
    let tail =
        |m: &crate::data::Move| format!(" h{} {}", m.target_hyperstate, tag_short(m.target_tag));
    let widest_tail = moves
        .iter()
        .map(|m| fit::width(&tail(m)))
        .max()
        .unwrap_or(0);
    let label_width = moves
        .iter()
        .map(|m| fit::width(&m.action))
        .max()
        .unwrap_or(0)
        .min(width.saturating_sub(6 + widest_tail).max(3));
    let mut lines: Vec<Line> = moves
        .iter()
        .enumerate()
        .skip(start)
        .take(rows)
        .map(|(i, m)| {
            let verdict = play.verdict(i).unwrap_or(Verdict::Unknown);
            let number = if i < 9 {
                format!("{}", i + 1)
            } else {
                " ".into()
            };
            let glyph = Input::of_label(&m.action).map_or(" ", |i| i.glyph(t.ascii));
            let label = fit::ellipsize(&m.action, label_width, t.ellipsis());
            let head = format!("{number} {glyph} {label:<label_width$} ");
            let mark = Span::styled(verdict.mark(t.ascii), verdict_style(verdict, t));
            let tail = if verdict == Verdict::Reversible {
                Span::styled(" same hyperstate", t.dim())
            } else {
                Span::styled(tail(m), t.tag(m.target_tag))
            };
            let style = if i == play.cursor {
                t.selected()
            } else {
                Style::default()
            };
            fit::line(vec![Span::raw(head), mark, tail], width, t.ellipsis()).style(style)
        })
        .collect();
    if moves.is_empty() {
        let why = if play.here.open {
            "unknown: never expanded"
        } else if play.here.member.outcome.is_some() {
            "none: the game is over"
        } else {
            "none: stuck"
        };
        lines.push(Line::styled(why, t.dim()));
    }
    let list = Rect {
        height: inner.height.saturating_sub(1),
        ..inner
    };
    frame.render_widget(Paragraph::new(lines), list);
    if inner.height > 0 {
        let foot = Rect {
            y: inner.bottom() - 1,
            height: 1,
            ..inner
        };
        frame.render_widget(Paragraph::new(legend), foot);
    }
}

fn verdict_style(v: Verdict, t: &Theme) -> Style {
    match v {
        Verdict::Keeps => t.tag(Tag::EventuallyWinnable),
        Verdict::Loses => t.error(),
        Verdict::Unknown => t.tag(Tag::Unknown),
        Verdict::Reversible | Verdict::StillLost => t.dim(),
    }
}

/// What the marks mean.
fn legend_line<'a>(t: &Theme) -> Line<'a> {
    let item = |v: Verdict, what: &str| {
        vec![
            Span::styled(v.mark(t.ascii).to_string(), verdict_style(v, t)),
            Span::styled(format!(" {what} "), t.dim()),
        ]
    };
    let mut spans = item(Verdict::Keeps, "keeps a win");
    spans.extend(item(Verdict::Loses, "loses"));
    spans.extend(item(Verdict::Unknown, "unknown"));
    Line::from(spans)
}
