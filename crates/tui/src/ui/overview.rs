//! The overview: what was explored, where the exploration stands (live when another
//! process is exploring), counts and compression, and the analysis' distributions as
//! bar charts and sparklines.

use super::browser::plural;
use super::theme::{tag_long, Theme};
use super::{fit, opt, pane};
use crate::app::App;
use crate::data::{Overview, RunState, Tag};
use model::numbers::grouped;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// Draws the overview into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let Some(o) = &app.overview else { return };
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    let block = pane(t, "Run", false, left.width);
    let inner = block.inner(left);
    frame.render_widget(block, left);
    frame.render_widget(
        Paragraph::new(fit::clip(
            facts(o, app, usize::from(inner.width), t),
            usize::from(inner.height),
            usize::from(inner.width),
            t.ellipsis(),
        )),
        inner,
    );
    let block = pane(t, "Distributions", false, right.width);
    let inner = block.inner(right);
    frame.render_widget(block, right);
    frame.render_widget(Paragraph::new(charts(o, inner.width as usize, t)), inner);
}

fn facts<'a>(o: &'a Overview, app: &App, width: usize, t: &Theme) -> Vec<Line<'a>> {
    let sep = format!(" {} ", t.dot());
    let mut lines = vec![
        fit::line(
            vec![
                Span::styled(o.game.clone(), t.title()),
                Span::raw(format!(": {}", o.level_title)),
            ],
            width,
            t.ellipsis(),
        ),
        Line::styled(
            if o.level_hash.is_empty() {
                "level hash -".to_string()
            } else {
                format!("level hash {}", o.level_hash)
            },
            t.dim(),
        ),
    ];
    if !o.options.is_empty() {
        let options: Vec<String> = o.options.iter().map(|(k, v)| format!("{k}={v}")).collect();
        lines.push(Line::styled(
            format!("options {}", options.join(" ")),
            t.dim(),
        ));
    }
    lines.extend(status_lines(o, app, t));
    lines.push(Line::raw(""));
    let groups = [
        vec![
            format!("states {}", grouped(o.states)),
            format!("transitions {}", grouped(o.transitions)),
        ],
        vec![
            format!("hyperstates {}", grouped(o.hyperstates)),
            format!("critical actions {}", grouped(o.critical_actions)),
        ],
        vec![
            format!("compression {}", fit::percent(o.compression)),
            format!("open states {}", grouped(o.open_states)),
        ],
    ];
    for group in groups {
        lines.extend(
            fit::flow(&group, &sep, width, t.ellipsis())
                .into_iter()
                .map(Line::raw),
        );
    }
    lines.push(fit::line(
        vec![
            Span::raw(format!("root h{} ", o.root)),
            Span::styled(tag_long(o.root_tag), t.tag(o.root_tag)),
        ],
        width,
        t.ellipsis(),
    ));
    let shortest = match (o.shortest_win_actions, o.shortest_win_critical) {
        (None, None) => vec![format!("shortest {}: none found", o.target)],
        (actions, critical) => vec![
            format!(
                "shortest {}: {}",
                o.target,
                plural(actions.unwrap_or(0), "action", "actions")
            ),
            plural(
                u64::from(critical.unwrap_or(0)),
                "critical action",
                "critical actions",
            ),
        ],
    };
    lines.extend(
        fit::flow(&shortest, ", ", width, t.ellipsis())
            .into_iter()
            .map(Line::raw),
    );
    lines.push(Line::raw(fit::ellipsize(
        &format!("failure-spectrum breadth {}", opt(o.breadth)),
        width,
        t.ellipsis(),
    )));
    // A stale analysis is announced in full above the panes (`super::banner_lines`).
    lines
}

fn status_lines<'a>(o: &Overview, app: &App, t: &Theme) -> Vec<Line<'a>> {
    let Some(p) = &app.live else {
        return vec![Line::raw(format!("exploration {}", o.run_state.name()))];
    };
    let state = p.state.unwrap_or(o.run_state);
    let mut lines = vec![Line::from(vec![
        Span::raw("exploration "),
        Span::styled(state.name(), t.title()),
        Span::raw(if p.phase.is_empty() {
            String::new()
        } else {
            format!(" ({})", p.phase)
        }),
    ])];
    if state == RunState::Running || p.states != o.states {
        lines.push(Line::raw(format!(
            "now {} states, depth {}, {} states/s",
            grouped(p.states),
            p.depth,
            grouped(p.states_per_sec.round() as u64)
        )));
    }
    match &p.live_hsg {
        Some(Ok(live)) => {
            let limit = live
                .depth_limit
                .map(|d| format!(" (limit {d})"))
                .unwrap_or_default();
            let h = &live.hsg;
            lines.push(Line::raw(format!(
                "so far {} hyperstates, HSG depth {}{limit}, {} winning",
                grouped(h.hyperstates),
                h.depth,
                grouped(h.winning)
            )));
            lines.push(Line::raw(format!(
                "{} states in {} hyperstates can no longer win",
                grouped(h.dead_states),
                grouped(h.dead_hyperstates)
            )));
        }
        Some(Err(e)) => lines.push(Line::raw(format!("live hyperstates not available: {e}"))),
        None => {}
    }
    lines
}

fn charts<'a>(o: &Overview, width: usize, t: &Theme) -> Vec<Line<'a>> {
    let mut lines = vec![Line::styled("hyperstates per tag", t.title())];
    let largest = o.tags.iter().copied().max().unwrap_or(0).max(1);
    let bar_room = width.saturating_sub(22);
    for tag in Tag::ALL {
        let n = o.tags[tag as usize];
        let len = (n as usize * bar_room).div_ceil(largest as usize);
        lines.push(Line::from(vec![
            Span::styled(format!("{:<12}", short_label(tag)), t.tag(tag)),
            Span::styled(t.bar().to_string().repeat(len), t.tag(tag)),
            Span::raw(format!(" {}", grouped(n))),
        ]));
    }
    let spark_width = width.saturating_sub(1);
    let mut chart = |title: String, values: &[u64]| {
        lines.push(Line::styled(title, t.title()));
        lines.push(Line::raw(sparkline(values, spark_width, t)));
    };
    chart(
        format!("BFS depth 0..{}", o.bfs_depths.len().saturating_sub(1)),
        &o.bfs_depths,
    );
    chart(
        format!("HSG depth 0..{}", o.hsg_depths.len().saturating_sub(1)),
        &o.hsg_depths,
    );
    match &o.headroom {
        // A sketched headroom says so: its shares are estimates.
        Some(h) if o.headroom_note.is_some() => chart("headroom 0..1 (sketched)".to_string(), h),
        Some(h) => chart("headroom 0..1".to_string(), h),
        None => {
            let why = o.headroom_note.as_deref().unwrap_or("not computed");
            lines.push(Line::styled(format!("headroom: {why}"), t.title()));
            lines.push(Line::raw(""));
        }
    }
    lines.extend(profile_lines(o, spark_width, t));
    lines
}

fn short_label(tag: Tag) -> &'static str {
    match tag {
        Tag::EventuallyWinnable => "event. win",
        Tag::ImplicitlyFailed => "impl. fail",
        other => tag_long(other),
    }
}

/// The ideal path's loss distances: a sparkline (no reachable loss drawn full height),
/// and the numbers themselves when they fit.
fn profile_lines<'a>(o: &Overview, width: usize, t: &Theme) -> Vec<Line<'a>> {
    let finite_max = o.ideal_profile.iter().flatten().copied().max().unwrap_or(0);
    let values: Vec<u64> = o
        .ideal_profile
        .iter()
        .map(|d| u64::from(d.unwrap_or(finite_max + 1)) + 1)
        .collect();
    // On a partial run "no loss found" is not "no loss reachable": the states never
    // expanded may lead to one, so the value is unknown, as the report's `null` says.
    let unknown = o.open_states > 0;
    let none = if unknown { "?" } else { t.infinity() };
    let numbers: Vec<String> = o
        .ideal_profile
        .iter()
        .map(|d| d.map_or_else(|| none.to_string(), |x| x.to_string()))
        .collect();
    let numbers = numbers.join(" ");
    let steps = values.len().saturating_sub(1) as u64;
    let title = format!(
        "ideal path loss distance ({})",
        plural(steps, "step", "steps")
    );
    let noted = if unknown && o.ideal_profile.iter().any(Option::is_none) {
        format!("{numbers}  (? unknown: partial run)")
    } else {
        numbers.clone()
    };
    let body = if fit::width(&noted) <= width {
        noted
    } else if fit::width(&numbers) <= width {
        numbers
    } else {
        sparkline(&values, width, t)
    };
    vec![
        Line::styled(fit::ellipsize(&title, width, t.ellipsis()), t.title()),
        Line::raw(body),
    ]
}

/// Values drawn as a one-line sparkline of at most `width` columns: neighbouring
/// values are summed when there are more values than columns, and each value gets up
/// to three columns when there are few.
pub fn sparkline(values: &[u64], width: usize, t: &Theme) -> String {
    if values.is_empty() || width == 0 {
        return String::new();
    }
    let per = values.len().div_ceil(width);
    let buckets: Vec<u64> = values.chunks(per).map(|c| c.iter().sum()).collect();
    let repeat = (width / buckets.len()).clamp(1, 3);
    let largest = buckets.iter().copied().max().unwrap_or(0);
    let levels = t.levels();
    buckets
        .iter()
        .flat_map(|&v| {
            let ch = if v == 0 || largest == 0 {
                ' '
            } else {
                let level = (v as u128 * 7).div_ceil(largest as u128) as usize;
                levels[level.min(7)]
            };
            std::iter::repeat_n(ch, repeat)
        })
        .collect()
}
