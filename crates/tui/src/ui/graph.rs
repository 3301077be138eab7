//! The graph view: the HSG (whole when small, else the selection's neighbourhood) laid
//! out by the spring layout and drawn on a braille canvas, with pan and zoom.

use super::pane;
use super::plot::{braille_char, Cell, Plot};
use super::theme::Theme;
use crate::app::App;
use crate::data::Tag;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// Draws the graph view into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, t: &Theme) {
    let data = app.graph.data.as_ref();
    let title = match data {
        None => "Graph".to_string(),
        Some(d) if d.hood.radius == u32::MAX => {
            format!(
                "Graph: whole HSG, {} nodes",
                model::numbers::grouped(d.hood.nodes.len() as u64)
            )
        }
        Some(d) => format!(
            "Graph: h{} radius {}, {} nodes{}",
            d.hood.center,
            d.hood.radius,
            model::numbers::grouped(d.hood.nodes.len() as u64),
            if d.hood.truncated { " (capped)" } else { "" }
        ),
    };
    let block = pane(t, &title, false, area.width);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [canvas, legend] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(inner);
    frame.render_widget(Paragraph::new(legend_line(app, t)), legend);
    let Some(data) = data else {
        let text = format!("{} laying out the graph", t.spinner(app.tick));
        frame.render_widget(Paragraph::new(text), canvas);
        return;
    };
    let target = app
        .focus
        .as_ref()
        .and_then(|f| f.out.items.get(app.out_cursor))
        .map(|a| a.other);
    let plot = Plot::draw(
        data,
        (canvas.width as usize, canvas.height as usize),
        !t.ascii,
        (app.graph.zoom, app.graph.pan),
        (app.selected, target),
    );
    paint(frame.buffer_mut(), canvas, &plot, t);
}

fn legend_line<'a>(app: &App, t: &Theme) -> Line<'a> {
    let mut spans = Vec::new();
    for (tag, name) in [
        (Tag::Win, "win"),
        (Tag::Fail, "fail"),
        (Tag::EventuallyWinnable, "e-win"),
        (Tag::ImplicitlyFailed, "i-fail"),
    ] {
        spans.push(Span::styled(format!("{}", t.node(tag)), t.tag(tag)));
        spans.push(Span::raw(format!(" {name} ")));
    }
    let sweeps = app.graph.data.as_ref().map_or(String::new(), |d| {
        let cached = if d.cached { ", cached" } else { "" };
        format!(" {} layout {} sweeps{cached}", t.dot(), d.layout.sweeps)
    });
    spans.push(Span::styled(
        format!("zoom {:.2}{sweeps}", app.graph.zoom),
        t.dim(),
    ));
    Line::from(spans)
}

/// Copies the plot into the terminal buffer.
fn paint(buf: &mut Buffer, area: Rect, plot: &Plot, t: &Theme) {
    for r in 0..area.height as usize {
        for c in 0..area.width as usize {
            let Some(cell) = buf.cell_mut((area.x + c as u16, area.y + r as u16)) else {
                continue;
            };
            match plot.cell(c, r) {
                Cell::Empty => {}
                Cell::Dots(bits) => {
                    let ch = if t.ascii { '.' } else { braille_char(bits) };
                    cell.set_char(ch).set_style(t.dim());
                }
                Cell::Node {
                    tag,
                    selected,
                    target,
                } => {
                    let mut style = t.tag(tag);
                    if selected {
                        style = style.patch(t.selected());
                    } else if target {
                        style = style.add_modifier(Modifier::UNDERLINED | Modifier::BOLD);
                    }
                    let ch = if selected && t.ascii {
                        '@'
                    } else {
                        t.node(tag)
                    };
                    cell.set_char(ch).set_style(style);
                }
            }
        }
    }
}
