//! The hyperstate browser: the table (virtual scrolling: only the rows on screen are
//! read), the details pane, outgoing and incoming critical actions, and the member
//! states drawn by the game with their moves.

use super::theme::{tag_long, tag_short, Theme};
use super::{opt, opt_f, page_start, pane};
use crate::app::{App, Pane};
use crate::data::{CriticalAction, Listing, Member};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row as TableRow, Table};
use ratatui::Frame;

/// Height of the member pane for a body of `body` rows.
fn member_height(body: u16) -> u16 {
    (body * 45 / 100).clamp(6, 20)
}

/// Rows of the table visible on a terminal of `size` (columns, rows): the body minus
/// the member pane, the borders and the header line. The key handlers page by it.
pub fn table_rows(size: (u16, u16)) -> u16 {
    let body = size.1.saturating_sub(2);
    body.saturating_sub(member_height(body)).saturating_sub(3)
}

/// Draws the browser into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    let [table, member] = Layout::vertical([
        Constraint::Min(4),
        Constraint::Length(member_height(area.height)),
    ])
    .areas(left);
    let [details, out, inc] = Layout::vertical([
        Constraint::Length(9),
        Constraint::Fill(1),
        Constraint::Fill(1),
    ])
    .areas(right);
    draw_table(frame, table, app, t);
    draw_member(frame, member, app, t);
    draw_details(frame, details, app, t);
    let focus = app.focus.as_ref();
    let empty = Listing::default();
    let outs = focus.map_or(&empty, |f| &f.out);
    let ins = focus.map_or(&empty, |f| &f.inc);
    let out_focused = app.pane == Pane::Out;
    draw_actions(
        frame,
        out,
        t,
        ("Out", t.arrow()),
        outs,
        app.out_cursor,
        out_focused,
    );
    let in_focused = app.pane == Pane::In;
    draw_actions(
        frame,
        inc,
        t,
        ("In", t.back_arrow()),
        ins,
        app.in_cursor,
        in_focused,
    );
}

fn draw_table(frame: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let Some(bench) = &app.bench else { return };
    let tv = &app.table;
    let order = &tv.order;
    let direction = match (tv.descending, t.ascii) {
        (false, true) => "^",
        (true, true) => "v",
        (false, false) => "↑",
        (true, false) => "↓",
    };
    let filter = tv
        .filter
        .map_or(String::new(), |f| format!(" [{}]", tag_short(f)));
    let title = format!(
        "Hyperstates {} by {}{direction}{filter}",
        order.len(),
        tv.sort.name()
    );
    let block = pane(t, &title, app.pane == Pane::Table);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let visible = inner.height.saturating_sub(1) as usize;
    let cursor = tv.cursor as usize;
    let first = page_start(cursor, visible);
    let rows: Vec<TableRow> = (first..first + visible)
        .filter_map(|i| Some((i, bench.row(order.at(i as u64)?)?)))
        .map(|(i, r)| {
            let style = if i == cursor {
                t.selected()
            } else {
                Style::default()
            };
            TableRow::new(vec![
                Line::raw(r.id.to_string()).right_aligned(),
                Line::styled(tag_short(r.tag), t.tag(r.tag)),
                Line::raw(r.size.to_string()).right_aligned(),
                Line::raw(opt(r.depth)).right_aligned(),
                Line::raw(opt_f(r.headroom).replace("0.", ".")).right_aligned(),
                Line::raw(opt(r.loss_distance)).right_aligned(),
            ])
            .style(style)
        })
        .collect();
    let widths = [
        Constraint::Length(7),
        Constraint::Length(6),
        Constraint::Length(6),
        Constraint::Length(4),
        Constraint::Length(5),
        Constraint::Length(4),
    ];
    let header = TableRow::new(
        ["id", "tag", "size", "dep", "head", "loss"]
            .map(|h| Line::styled(h, t.title()).right_aligned()),
    )
    .style(t.title());
    frame.render_widget(Table::new(rows, widths).header(header), inner);
}

fn draw_details(frame: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let block = pane(t, "Details", false);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(d) = app.focus.as_ref().and_then(|f| f.details.as_ref()) else {
        return;
    };
    let r = &d.row;
    let sep = format!(" {} ", t.dot());
    let mut flags = Vec::new();
    if d.contains_target {
        flags.push("contains a win");
    }
    if d.open {
        flags.push("never expanded");
    }
    let lines = vec![
        Line::from(vec![
            Span::styled(format!("hyperstate {} ", r.id), t.title()),
            Span::styled(tag_long(r.tag), t.tag(r.tag)),
        ]),
        Line::raw(format!(
            "members {}{sep}state {}{sep}bfs depth {}",
            r.size, d.first_state, d.bfs_depth
        )),
        Line::raw(format!(
            "depth {}{sep}win in {}{sep}loss in {}",
            opt(r.depth),
            opt(r.win_distance),
            opt(r.loss_distance)
        )),
        Line::raw(format!(
            "headroom {} (states {})",
            opt_f(r.headroom),
            opt_f(d.headroom_states)
        )),
        Line::raw(format!("one-step headroom {}", opt_f(d.one_step_headroom))),
        Line::raw(format!(
            "critical actions out {}{sep}in {}",
            d.out_actions, d.in_actions
        )),
        Line::styled(flags.join(", "), t.dim()),
    ];
    frame.render_widget(Paragraph::new(lines), inner);
}

fn draw_actions(
    frame: &mut Frame,
    area: Rect,
    t: &Theme,
    (name, arrow): (&str, &str),
    list: &Listing<CriticalAction>,
    cursor: usize,
    focused: bool,
) {
    let shown = if (list.items.len() as u64) < list.total {
        format!("{name} {} of {}", list.items.len(), list.total)
    } else {
        format!("{name} {}", list.total)
    };
    let block = pane(t, &shown, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = inner.height as usize;
    let first = page_start(cursor, rows);
    let lines: Vec<Line> = list
        .items
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, a)| {
            let marker = if i == cursor { ">" } else { " " };
            let line = Line::from(vec![
                Span::raw(format!("{marker}{:<6} {arrow} {:>6} ", a.action, a.other)),
                Span::styled(format!("{:<6}", tag_short(a.other_tag)), t.tag(a.other_tag)),
                Span::styled(format!(" x{}", a.multiplicity), t.dim()),
            ]);
            if i == cursor && focused {
                line.style(t.selected())
            } else {
                line
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

fn draw_member(frame: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let size = app
        .focus
        .as_ref()
        .and_then(|f| f.details.as_ref())
        .map_or(0, |d| d.row.size);
    let member = app.focus.as_ref().and_then(|f| f.member.as_ref());
    let title = match member {
        Some(m) => {
            let outcome = m
                .outcome
                .as_ref()
                .map_or(String::new(), |o| format!(" {o}"));
            format!(
                "Member {}/{size} s{} d{}{outcome}",
                m.index + 1,
                m.state,
                m.bfs_depth
            )
        }
        None => "Member".to_string(),
    };
    let block = pane(t, &title, app.pane == Pane::Members);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(m) = member else { return };
    let board_width = m.text.lines().map(|l| l.chars().count()).max().unwrap_or(0) as u16;
    let [board, moves] = Layout::horizontal([
        Constraint::Length(board_width.min(inner.width) + 1),
        Constraint::Fill(1),
    ])
    .areas(inner);
    let text: Vec<Line> = m.text.lines().map(|l| Line::raw(l.to_string())).collect();
    frame.render_widget(Paragraph::new(text), board);
    frame.render_widget(Paragraph::new(move_lines(m, app.selected, t)), moves);
}

/// One line per move: reversible ones stay inside the hyperstate, the others are
/// critical actions to the named hyperstate.
fn move_lines<'a>(m: &'a Member, h: u64, t: &Theme) -> Vec<Line<'a>> {
    m.moves
        .iter()
        .map(|mv| {
            let head = Span::raw(format!("{} {} s{} ", mv.action, t.arrow(), mv.target_state));
            if mv.target_hyperstate == h {
                Line::from(vec![head, Span::styled("same", t.dim())])
            } else {
                Line::from(vec![
                    head,
                    Span::raw(format!("h{} ", mv.target_hyperstate)),
                    Span::styled(tag_short(mv.target_tag), t.tag(mv.target_tag)),
                ])
            }
        })
        .collect()
}
