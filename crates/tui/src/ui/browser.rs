//! The hyperstate browser: the table (virtual scrolling: only the rows on screen are
//! read), the details pane, outgoing and incoming critical actions, and the member
//! states drawn by the game with their moves.

use super::fit;
use super::theme::{tag_long, tag_short, Theme};
use super::{opt, opt_f, page_start, pane};
use crate::app::{App, Pane};
use crate::data::{CriticalAction, Details, Listing, Member, Row};
use model::numbers::grouped;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row as TableRow, Table};
use ratatui::Frame;

/// Height of the member pane for a body of `body` rows when the member's board has
/// `board` rows: 45% of the body, more when that shows the whole board and the table
/// keeps a few rows.
fn member_height(body: u16, board: u16) -> u16 {
    let share = (body * 45 / 100).clamp(6, 20);
    let whole = board.saturating_add(2);
    share.max(whole.min(body.saturating_sub(MIN_TABLE)))
}

/// Rows the table keeps at least, borders and header included.
const MIN_TABLE: u16 = 7;

/// Rows of the focused member's board (0 when none is on show).
pub fn board_rows(app: &App) -> u16 {
    let member = app.focus.as_ref().and_then(|f| f.member.as_ref());
    member.map_or(0, |m| {
        m.text.lines().count().min(usize::from(u16::MAX)) as u16
    })
}

/// Rows of the table visible on a terminal of `size` (columns, rows) whose focused
/// member has a board of `board` rows: the body minus the member pane, the borders
/// and the header line. The key handlers page by it.
pub fn table_rows(size: (u16, u16), board: u16) -> u16 {
    let body = size.1.saturating_sub(2);
    body.saturating_sub(member_height(body, board))
        .saturating_sub(3)
}

/// Where the browser's panes lie in `area`: table, member, details, out, in. Drawing
/// and mouse clicks share it.
pub fn areas(area: Rect, app: &App, t: &Theme) -> [Rect; 5] {
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    let [table, member] = Layout::vertical([
        Constraint::Min(4),
        Constraint::Length(member_height(area.height, board_rows(app))),
    ])
    .areas(left);
    let details_height = app
        .focus
        .as_ref()
        .and_then(|f| f.details.as_ref())
        .map_or(0, |d| {
            detail_lines(d, right.width.saturating_sub(2), t).len() as u16
        })
        .saturating_add(2)
        .min(right.height.saturating_sub(6));
    let [details, out, inc] = Layout::vertical([
        Constraint::Length(details_height),
        Constraint::Fill(1),
        Constraint::Fill(1),
    ])
    .areas(right);
    [table, member, details, out, inc]
}

/// Draws the browser into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let [table, member, details, out, inc] = areas(area, app, t);
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
        grouped(order.len()),
        tv.sort.name()
    );
    let block = pane(t, &title, app.pane == Pane::Table, area.width);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let visible = inner.height.saturating_sub(1) as usize;
    let cursor = tv.cursor as usize;
    // The last page is filled from the end: the root, often the last hyperstate, once
    // opened the table showing itself alone.
    let len = usize::try_from(order.len()).unwrap_or(usize::MAX);
    let first = page_start(cursor, visible).min(len.saturating_sub(visible));
    let rows: Vec<Row> = (first..first + visible)
        .filter_map(|i| bench.row(order.at(i as u64)?))
        .collect();
    let columns = table_columns(&rows, inner.width);
    let cells: Vec<TableRow> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let style = if first + i == cursor {
                t.selected()
            } else {
                Style::default()
            };
            let line = columns
                .iter()
                .map(|&(c, w)| table_cell(c, r, usize::from(w), t))
                .collect::<Vec<_>>();
            TableRow::new(line).style(style)
        })
        .collect();
    let widths: Vec<Constraint> = columns
        .iter()
        .map(|&(_, w)| Constraint::Length(w))
        .collect();
    let header = TableRow::new(
        columns
            .iter()
            .map(|&(c, _)| Line::styled(c.title(), t.title()).right_aligned()),
    )
    .style(t.title());
    frame.render_widget(Table::new(cells, widths).header(header), inner);
}

/// The columns of the hyperstate table, in screen order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    Id,
    Tag,
    Size,
    Depth,
    Headroom,
    Loss,
}

impl Column {
    const ALL: [Column; 6] = [
        Column::Id,
        Column::Tag,
        Column::Size,
        Column::Depth,
        Column::Headroom,
        Column::Loss,
    ];

    fn title(self) -> &'static str {
        match self {
            Column::Id => "id",
            Column::Tag => "tag",
            Column::Size => "size",
            Column::Depth => "dep",
            Column::Headroom => "head",
            Column::Loss => "loss",
        }
    }

    /// Narrowest width that still shows every value (abbreviated if need be).
    fn min_width(self) -> u16 {
        match self {
            Column::Tag => 6,
            Column::Depth | Column::Loss => 3,
            _ => 4,
        }
    }
}

/// The columns that fit `width` and their widths: each as wide as its widest value
/// on screen, narrowed (values abbreviated) from the widest down when the row is too
/// long, and dropped from the right (loss, then headroom) when even that is not
/// enough, as k9s hides columns on narrow terminals.
fn table_columns(rows: &[Row], width: u16) -> Vec<(Column, u16)> {
    // A value's width is that of its grouped form (`1,048,577`), as `fit::count` writes
    // it when the column is wide enough; narrowing falls back to plain digits, then units.
    let digits = |n: u64| model::numbers::grouped(n).len() as u16;
    let widest = |f: &dyn Fn(&Row) -> u16| rows.iter().map(f).max().unwrap_or(0);
    let wanted = |c: Column| -> u16 {
        let values = match c {
            Column::Id => widest(&|r| digits(r.id)),
            Column::Tag => 6,
            Column::Size => widest(&|r| digits(r.size)),
            Column::Depth => widest(&|r| r.depth.map_or(1, |d| digits(u64::from(d)))),
            Column::Headroom => 5,
            Column::Loss => widest(&|r| r.loss_distance.map_or(1, |d| digits(u64::from(d)))),
        };
        values.max(c.title().len() as u16).max(c.min_width())
    };
    let mut columns: Vec<(Column, u16)> = Column::ALL.iter().map(|&c| (c, wanted(c))).collect();
    loop {
        let total: u16 = columns.iter().map(|&(_, w)| w + 1).sum();
        if total <= width.saturating_add(1) {
            return columns;
        }
        let widest = columns
            .iter()
            .enumerate()
            .filter(|(_, (c, w))| *w > c.min_width())
            .max_by_key(|(_, (_, w))| *w)
            .map(|(i, _)| i);
        match widest {
            Some(i) => columns[i].1 -= 1,
            None if columns.len() > 1 => {
                columns.pop();
            }
            None => return columns,
        }
    }
}

/// One cell of the table, fitted to `width` columns.
fn table_cell<'a>(c: Column, r: &Row, width: usize, t: &Theme) -> Line<'a> {
    let small = |x: Option<u32>| x.map_or("-".to_string(), |v| fit::count(u64::from(v), width));
    let text = match c {
        Column::Id => fit::count(r.id, width),
        Column::Tag => return Line::styled(tag_short(r.tag), t.tag(r.tag)),
        Column::Size => fit::count(r.size, width),
        Column::Depth => small(r.depth),
        Column::Headroom => r
            .headroom
            .map_or("-".to_string(), |h| fit::fraction(h, width)),
        Column::Loss => small(r.loss_distance),
    };
    Line::raw(text).right_aligned()
}

fn draw_details(frame: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let block = pane(t, "Details", false, area.width);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(d) = app.focus.as_ref().and_then(|f| f.details.as_ref()) else {
        return;
    };
    let mut lines = detail_lines(d, inner.width, t);
    let room = usize::from(inner.height);
    if lines.len() > room {
        // Facts that do not fit are never dropped silently.
        let hidden = lines.len() + 1 - room;
        lines.truncate(room.saturating_sub(1));
        let more = format!("{}{hidden} more lines hidden", t.ellipsis());
        lines.push(Line::styled(
            fit::ellipsize(&more, usize::from(inner.width), t.ellipsis()),
            t.error(),
        ));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The details of one hyperstate, named and counted as `docs/metrics.md` defines
/// them; the facts flow onto as many lines as the width needs, whole.
pub fn detail_lines<'a>(d: &Details, width: u16, t: &Theme) -> Vec<Line<'a>> {
    let r = &d.row;
    let sep = format!(" {} ", t.dot());
    let max = usize::from(width);
    let head = vec![
        Span::styled(format!("hyperstate {} ", r.id), t.title()),
        Span::styled(tag_long(r.tag), t.tag(r.tag)),
    ];
    let mut lines = vec![fit::line(head, max, t.ellipsis())];
    let groups: [Vec<String>; 5] = [
        vec![
            plural(r.size, "member", "members"),
            format!("first state {}", d.first_state),
            format!("its BFS depth {}", d.bfs_depth),
        ],
        vec![
            format!("HSG depth {}", opt(r.depth)),
            format!("win in {}", opt(r.win_distance)),
            format!("loss in {}", opt(r.loss_distance)),
        ],
        vec![
            format!("headroom {}", opt_f(r.headroom)),
            format!("in states {}", opt_f(d.headroom_states)),
            format!("one-step {}", opt_f(d.one_step_headroom)),
        ],
        vec![
            format!("critical actions out {}", grouped(d.out_critical)),
            format!("in {}", grouped(d.in_critical)),
        ],
        vec![
            format!(
                "HSG edges out {} ({} labelled)",
                grouped(d.out_edges),
                grouped(d.out_labelled)
            ),
            format!("in {} ({})", grouped(d.in_edges), grouped(d.in_labelled)),
        ],
    ];
    for group in groups {
        lines.extend(
            fit::flow(&group, &sep, max, t.ellipsis())
                .into_iter()
                .map(Line::raw),
        );
    }
    let mut flags = Vec::new();
    if d.contains_target {
        flags.push("contains a win");
    }
    if d.open {
        flags.push("never expanded");
    }
    if !flags.is_empty() {
        lines.push(Line::styled(
            fit::ellipsize(&flags.join(", "), max, t.ellipsis()),
            t.dim(),
        ));
    }
    lines
}

/// `n` followed by the singular or plural noun.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", grouped(n), if n == 1 { one } else { many })
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
        format!(
            "{name} {} of {}",
            grouped(list.items.len() as u64),
            grouped(list.total)
        )
    } else {
        format!("{name} {}", grouped(list.total))
    };
    let block = pane(t, &shown, focused, area.width);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = inner.height as usize;
    let first = page_start(cursor, rows);
    let max = usize::from(inner.width);
    let lines: Vec<Line> = list
        .items
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, a)| {
            let marker = if i == cursor { ">" } else { " " };
            let action = fit::ellipsize(&a.action, 6, t.ellipsis());
            let head = format!("{marker}{action:<6} {arrow} {:>6} ", fit::count(a.other, 6));
            let tag = format!("{:<6}", tag_short(a.other_tag));
            // The multiplicity gets what is left, abbreviated rather than cut.
            let room = max.saturating_sub(fit::width(&head) + tag.len() + 2).max(1);
            let spans = vec![
                Span::raw(head),
                Span::styled(tag, t.tag(a.other_tag)),
                Span::styled(format!(" x{}", fit::count(a.multiplicity, room)), t.dim()),
            ];
            let line = fit::line(spans, max, t.ellipsis());
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
    let member = app.focus.as_ref().and_then(|f| f.member.as_ref());
    let block = pane(
        t,
        &member_title(app, member),
        app.pane == Pane::Members,
        area.width,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(m) = member else { return };
    draw_board(frame, inner, app, m, t, false);
}

/// The title of the member pane: which member of how many, its state, BFS depth and
/// outcome.
pub fn member_title(app: &App, member: Option<&Member>) -> String {
    let size = app
        .focus
        .as_ref()
        .and_then(|f| f.details.as_ref())
        .map_or(0, |d| d.row.size);
    let Some(m) = member else {
        return "Member".to_string();
    };
    let outcome = m
        .outcome
        .as_ref()
        .map_or(String::new(), |o| format!(" {o}"));
    format!(
        "Member {}/{} s{} d{}{outcome}",
        grouped(m.index + 1),
        grouped(size),
        m.state,
        m.bfs_depth
    )
}

/// The member's board with its moves beside it. A board that does not fit is never
/// cut silently: its last row says so and names the key that shows it whole.
pub fn draw_board(frame: &mut Frame, inner: Rect, app: &App, m: &Member, t: &Theme, whole: bool) {
    let board_rows = m.text.lines().count();
    let board_width = m.text.lines().map(fit::width).max().unwrap_or(0);
    let fits = board_rows <= usize::from(inner.height) && board_width <= usize::from(inner.width);
    let shown_width = (board_width.min(usize::from(inner.width)) + 1) as u16;
    let [board, moves] =
        Layout::horizontal([Constraint::Length(shown_width), Constraint::Fill(1)]).areas(inner);
    let mut text = board_lines(m, t);
    if !fits {
        let keep = usize::from(inner.height.saturating_sub(1));
        text.truncate(keep);
        let hint = if whole {
            format!(
                "{}cut: the terminal is smaller than the board",
                t.ellipsis()
            )
        } else {
            format!("{}cut, z: whole board", t.ellipsis())
        };
        let hint = fit::ellipsize(&hint, usize::from(inner.width), t.ellipsis());
        text.push(Line::styled(hint, t.error()));
        frame.render_widget(Paragraph::new(text), inner);
        let moves = Rect {
            height: inner.height.saturating_sub(1),
            ..moves
        };
        frame.render_widget(
            Paragraph::new(moves_and_legend(m, app.selected, moves.width, t)),
            moves,
        );
        return;
    }
    frame.render_widget(Paragraph::new(text), board);
    frame.render_widget(
        Paragraph::new(moves_and_legend(m, app.selected, moves.width, t)),
        moves,
    );
}

/// The board's lines, each character in the colour the game gives it (runs of one
/// colour in one span), when the game has colours and the theme draws them.
fn board_lines<'a>(m: &'a Member, t: &Theme) -> Vec<Line<'a>> {
    let lines = m.text.lines();
    let Some(colors) = m.colors.as_ref().filter(|_| t.colour()) else {
        return lines.map(|l| Line::raw(l.to_string())).collect();
    };
    let no_colors = Vec::new();
    lines
        .enumerate()
        .map(|(y, line)| {
            let row = colors.get(y).unwrap_or(&no_colors);
            let mut spans: Vec<Span> = Vec::new();
            let mut run = String::new();
            let mut run_color = None;
            for (x, ch) in line.chars().enumerate() {
                let c = row.get(x).copied().flatten();
                if c != run_color && !run.is_empty() {
                    spans.push(colored_span(std::mem::take(&mut run), run_color, t));
                }
                run_color = c;
                run.push(ch);
            }
            if !run.is_empty() {
                spans.push(colored_span(run, run_color, t));
            }
            Line::from(spans)
        })
        .collect()
}

fn colored_span<'a>(text: String, color: Option<model::Rgb>, t: &Theme) -> Span<'a> {
    match color {
        Some(c) => Span::styled(text, t.cell(c)),
        None => Span::raw(text),
    }
}

/// The member's moves, then (when the game names them) what the board's characters
/// stand for, each character drawn as on the board, entries flowed to `width` columns.
fn moves_and_legend<'a>(m: &'a Member, h: u64, width: u16, t: &Theme) -> Vec<Line<'a>> {
    let mut lines = move_lines(m, h, t);
    lines.extend(legend_lines(m, usize::from(width), t));
    lines
}

/// The board's legend (`# wall · p player`), each character in its cell's colour
/// (where it first appears on the board), flowed between entries to `width` columns.
fn legend_lines<'a>(m: &'a Member, width: usize, t: &Theme) -> Vec<Line<'a>> {
    let sep = if t.ascii { ", " } else { " · " };
    let mut lines: Vec<Line> = Vec::new();
    let mut current: Vec<Span> = Vec::new();
    let mut used = 0;
    for (c, what) in &m.legend {
        let entry_width = 2 + fit::width(what);
        if !current.is_empty() && used + fit::width(sep) + entry_width > width {
            lines.push(Line::from(std::mem::take(&mut current)));
            used = 0;
        }
        if !current.is_empty() {
            current.push(Span::raw(sep));
            used += fit::width(sep);
        }
        let glyph = match first_color_of(m, *c).filter(|_| t.colour()) {
            Some(rgb) => Span::styled(c.to_string(), t.cell(rgb)),
            None => Span::raw(c.to_string()),
        };
        current.push(glyph);
        current.push(Span::raw(format!(" {what}")));
        used += entry_width;
    }
    if !current.is_empty() {
        lines.push(Line::from(current));
    }
    lines
}

/// The colour of the first cell of `m`'s board that shows `c`.
fn first_color_of(m: &Member, c: char) -> Option<model::Rgb> {
    let colors = m.colors.as_ref()?;
    m.text.lines().zip(colors).find_map(|(line, row)| {
        let x = line.chars().position(|ch| ch == c)?;
        row.get(x).copied().flatten()
    })
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
