//! `hsg export DIR --format svg`: the graph view's picture as an SVG file — the same
//! layout (and layout cache) and the same projection, with wins as diamonds, fails as
//! squares and tags in colour, every node labelled with its hyperstate number, and a
//! legend. The whole HSG is drawn up to a node limit; past it, the root's neighbourhood,
//! and the picture says how many of the hyperstates it shows.

use crate::app::jobs::GraphData;
use crate::data::{Tag, Workbench};
use crate::ui::plot::Projection;
use std::io::{self, Write};

/// Pixels of the drawing's longer side.
const SIZE: f32 = 1000.0;
/// Margin around the drawing, in pixels.
const MARGIN: f32 = 24.0;
/// Node radius, in pixels.
const R: f32 = 6.0;
/// Height of the band above the drawing that holds the title and the legend.
const HEADER: f32 = 44.0;
/// The most hyperstates [`write_svg`] draws unless asked otherwise: the layout costs
/// `n^2` time and `2 n^2` bytes, about a second at this size.
pub const SVG_MAX_NODES: usize = 2_000;

/// What an SVG export drew.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SvgStats {
    /// Hyperstates drawn.
    pub nodes: usize,
    /// Critical-action links drawn (one per connected pair).
    pub edges: usize,
    /// True when the whole HSG was drawn.
    pub whole: bool,
    /// True when the neighbourhood was capped.
    pub truncated: bool,
    /// Hyperstates in the whole HSG (more than `nodes` when only a part is drawn).
    pub total: u64,
}

fn colour(t: Tag) -> &'static str {
    match t {
        Tag::Win => "#2e7d32",
        Tag::Fail => "#c62828",
        Tag::EventuallyWinnable => "#00838f",
        Tag::ImplicitlyFailed => "#8e24aa",
        Tag::Unknown => "#f9a825",
    }
}

/// The nodes an SVG picture shows: the whole HSG, grown from the root, when it has at
/// most `max_nodes` hyperstates, else the neighbourhood of `center` within `radius`
/// critical actions, capped at `max_nodes`.
fn svg_data(bench: &dyn Workbench, center: u64, radius: u32, max_nodes: usize) -> GraphData {
    let hood = if bench.hyperstate_count() <= max_nodes as u64 {
        bench.neighbourhood(bench.root(), u32::MAX, max_nodes)
    } else {
        bench.neighbourhood(center, radius, max_nodes)
    };
    crate::app::jobs::laid_out(bench, hood)
}

/// The picture's title: what it shows, and how much of the HSG that is.
fn title(data: &GraphData, center: u64, total: u64) -> String {
    let shown = data.hood.nodes.len();
    if data.hood.radius == u32::MAX {
        return format!("whole HSG: {shown} hyperstates");
    }
    format!(
        "showing {shown} of {total} hyperstates: h{center} and its neighbourhood of radius {}{}",
        data.hood.radius,
        if data.hood.truncated { " (capped)" } else { "" }
    )
}

/// Writes the graph around `center` (radius in critical actions) as SVG, the whole HSG
/// when it has at most `max_nodes` hyperstates.
pub fn write_svg(
    bench: &dyn Workbench,
    center: u64,
    radius: u32,
    max_nodes: usize,
    out: &mut dyn Write,
) -> io::Result<SvgStats> {
    let data = svg_data(bench, center, radius, max_nodes.max(1));
    let total = bench.hyperstate_count();
    let (w, h) = canvas(&data.layout.positions);
    let proj = Projection::fit(&data.layout.positions, (w, h), 1.0, 1.0, (0.0, 0.0));
    let at = |i: usize| {
        let (x, y) = proj.apply(data.layout.positions.get(i).copied().unwrap_or_default());
        (x + MARGIN, y + MARGIN + HEADER)
    };
    writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{:.0}" height="{:.0}" font-family="sans-serif" font-size="12">"##,
        w + 2.0 * MARGIN,
        h + 2.0 * MARGIN + HEADER
    )?;
    writeln!(
        out,
        r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#888"/></marker></defs>"##
    )?;
    writeln!(out, r##"<rect width="100%" height="100%" fill="white"/>"##)?;
    writeln!(
        out,
        r##"<text x="8" y="16" fill="#333">{}</text>"##,
        title(&data, center, total)
    )?;
    write_legend(out, &data.hood.tags)?;
    for &(a, b) in &data.hood.edges {
        let (p, q) = (at(a as usize), at(b as usize));
        let (dx, dy) = (q.0 - p.0, q.1 - p.1);
        let len = (dx * dx + dy * dy).sqrt().max(1e-3);
        // Stop at the target's rim so the arrowhead shows.
        let end = (q.0 - dx / len * (R + 2.0), q.1 - dy / len * (R + 2.0));
        writeln!(
            out,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#888" stroke-opacity="0.6" marker-end="url(#arrow)"/>"##,
            p.0, p.1, end.0, end.1
        )?;
    }
    for (i, (&node, &tag)) in data.hood.nodes.iter().zip(&data.hood.tags).enumerate() {
        write_node(out, at(i), node, tag, node == center)?;
    }
    writeln!(out, "</svg>")?;
    Ok(SvgStats {
        nodes: data.hood.nodes.len(),
        edges: data.hood.edges.len(),
        whole: data.hood.radius == u32::MAX,
        truncated: data.hood.truncated,
        total,
    })
}

/// The legend: each tag's shape and colour, its name and how many drawn nodes have it,
/// and the mark of the root.
fn write_legend(out: &mut dyn Write, tags: &[Tag]) -> io::Result<()> {
    let y = 34.0;
    let mut x = 8.0 + R;
    for tag in Tag::ALL {
        let count = tags.iter().filter(|&&t| t == tag).count();
        write_shape(
            out,
            (x, y),
            tag,
            r##" stroke="white" stroke-width="1""##,
            "",
        )?;
        let text = format!("{} ({count})", tag.name().replace('_', " "));
        writeln!(
            out,
            r##"<text x="{:.1}" y="{:.1}" fill="#333">{text}</text>"##,
            x + R + 4.0,
            y + 4.0
        )?;
        // About 7 pixels per character at this font size.
        x += R * 2.0 + 14.0 + 7.0 * text.len() as f32;
    }
    writeln!(
        out,
        r##"<circle cx="{x:.1}" cy="{y:.1}" r="{R}" fill="white" stroke="black" stroke-width="3"/><text x="{:.1}" y="{:.1}" fill="#333">root (or centre)</text>"##,
        x + R + 4.0,
        y + 4.0
    )
}

/// The drawing's size in pixels: the longer side [`SIZE`], the other in proportion.
fn canvas(positions: &[(f32, f32)]) -> (f32, f32) {
    let span = |f: fn(&(f32, f32)) -> f32| {
        let (lo, hi) = positions
            .iter()
            .map(f)
            .fold((f32::MAX, f32::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
        (hi - lo).max(1e-3)
    };
    if positions.len() < 2 {
        return (200.0, 200.0);
    }
    let (sx, sy) = (span(|p| p.0), span(|p| p.1));
    let longest = sx.max(sy);
    (
        (SIZE * sx / longest).max(200.0),
        (SIZE * sy / longest).max(200.0),
    )
}

fn write_node(
    out: &mut dyn Write,
    (x, y): (f32, f32),
    h: u64,
    tag: Tag,
    selected: bool,
) -> io::Result<()> {
    let stroke = if selected {
        r##" stroke="black" stroke-width="3""##
    } else {
        r##" stroke="white" stroke-width="1""##
    };
    let title = format!("<title>h{h} {}</title>", tag.name());
    write_shape(out, (x, y), tag, stroke, &title)?;
    writeln!(
        out,
        r##"<text x="{:.1}" y="{:.1}" font-size="9" fill="#444">h{h}</text>"##,
        x + R + 2.0,
        y - R + 2.0
    )
}

/// The node shape of `tag` at `(x, y)`: a diamond for a win, a square for a fail, a
/// circle otherwise, filled with the tag's colour.
fn write_shape(
    out: &mut dyn Write,
    (x, y): (f32, f32),
    tag: Tag,
    stroke: &str,
    title: &str,
) -> io::Result<()> {
    let fill = colour(tag);
    match tag {
        Tag::Win => {
            let d = R * 1.4;
            writeln!(
                out,
                r##"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{fill}"{stroke}>{title}</polygon>"##,
                x,
                y - d,
                x + d,
                y,
                x,
                y + d,
                x - d,
                y
            )
        }
        Tag::Fail => writeln!(
            out,
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{fill}"{stroke}>{title}</rect>"##,
            x - R,
            y - R,
            2.0 * R,
            2.0 * R
        ),
        _ => writeln!(
            out,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="{R}" fill="{fill}"{stroke}>{title}</circle>"##
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::fixture::two_boxes;

    #[test]
    fn the_fixture_is_drawn_whole_with_shapes_per_tag() {
        let bench = two_boxes(None).unwrap();
        let mut out = Vec::new();
        let stats = write_svg(&bench, bench.root(), 3, SVG_MAX_NODES, &mut out).unwrap();
        let svg = String::from_utf8(out).unwrap();
        assert!(stats.whole);
        assert_eq!(stats.nodes as u64, bench.hyperstate_count());
        // One more of each shape in the legend.
        assert_eq!(svg.matches("<polygon").count(), 3, "two win diamonds");
        assert_eq!(svg.matches("<rect x=").count(), 21, "twenty fail squares");
        assert_eq!(svg.matches("<line").count(), stats.edges);
        assert!(svg.contains(r#"stroke="black""#), "the root is highlighted");
        assert!(svg.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn every_node_is_labelled_and_the_legend_counts_the_tags() {
        let bench = two_boxes(None).unwrap();
        let mut out = Vec::new();
        let stats = write_svg(&bench, bench.root(), 3, SVG_MAX_NODES, &mut out).unwrap();
        let svg = String::from_utf8(out).unwrap();
        assert_eq!(svg.matches(r#"font-size="9""#).count(), stats.nodes);
        assert!(svg.contains(&format!(">h{}</text>", bench.root())));
        assert!(svg.contains(">win (2)</text>"), "{svg}");
        assert!(svg.contains(">fail (20)</text>"));
        assert!(svg.contains(">implicitly failed ("));
        assert!(svg.contains(&format!("whole HSG: {} hyperstates", stats.nodes)));
    }

    #[test]
    fn a_part_of_the_hsg_says_how_much_it_shows() {
        let bench = two_boxes(None).unwrap();
        let mut out = Vec::new();
        let stats = write_svg(&bench, bench.root(), 1, 5, &mut out).unwrap();
        let svg = String::from_utf8(out).unwrap();
        assert!(!stats.whole);
        assert!(stats.nodes <= 5);
        assert_eq!(stats.total, bench.hyperstate_count());
        let showing = format!("showing {} of {} hyperstates", stats.nodes, stats.total);
        assert!(svg.contains(&showing), "{svg}");
    }
}
