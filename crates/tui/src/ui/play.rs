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
/// Narrowest the side panel gets to give a wide board room.
const MIN_SIDE_WIDTH: u16 = 28;

/// Draws play mode over `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let Some(play) = &app.play else { return };
    frame.render_widget(Clear, area);
    // The side panel gives the board room down to MIN_SIDE_WIDTH before the board
    // is cut.
    let needed = super::play_board::width(&play.here.member.text) + 2;
    let room = area.width.saturating_sub(needed).max(MIN_SIDE_WIDTH);
    let side = SIDE_WIDTH.min(room).min(area.width / 2);
    let [board, side] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(side)]).areas(area);
    let title = app
        .overview
        .as_ref()
        .map_or("Play".to_string(), |o| format!("Play: {}", o.level_title));
    super::play_board::draw(frame, board, &title, &play.here.member, t);
    let facts = analysis_lines(play, t);
    let wrapped = wrapped_height(&facts, side.width.saturating_sub(2));
    // The facts take what they need; the moves keep at least two rows and the legend.
    let facts_height = (wrapped + 2).min(side.height.saturating_sub(5));
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
                Span::styled(" reversible", t.dim())
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
    let mut spans = item(Verdict::Keeps, "can win");
    spans.extend(item(Verdict::Loses, "lost"));
    spans.extend(item(Verdict::Unknown, "unknown"));
    Line::from(spans)
}
