//! `hsg export DIR --format svg`: the graph view's picture as an SVG file — the same
//! nodes (the whole HSG when small, else the root's neighbourhood), the same layout
//! (and layout cache) and the same projection, with wins as diamonds, fails as
//! squares and tags in colour.

use crate::app::jobs::graph_data;
use crate::data::{Tag, Workbench};
use crate::ui::plot::Projection;
use std::io::{self, Write};

/// Pixels of the drawing's longer side.
const SIZE: f32 = 1000.0;
/// Margin around the drawing, in pixels.
const MARGIN: f32 = 24.0;
/// Node radius, in pixels.
const R: f32 = 6.0;

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

/// Writes the graph around `center` (radius in critical actions) as SVG.
pub fn write_svg(
    bench: &dyn Workbench,
    center: u64,
    radius: u32,
    out: &mut dyn Write,
) -> io::Result<SvgStats> {
    let data = graph_data(bench, center, radius);
    let (w, h) = canvas(&data.layout.positions);
    let proj = Projection::fit(&data.layout.positions, (w, h), 1.0, 1.0, (0.0, 0.0));
    let at = |i: usize| {
        let (x, y) = proj.apply(data.layout.positions.get(i).copied().unwrap_or_default());
        (x + MARGIN, y + MARGIN)
    };
    writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{:.0}" height="{:.0}" font-family="sans-serif" font-size="12">"##,
        w + 2.0 * MARGIN,
        h + 2.0 * MARGIN
    )?;
    writeln!(
        out,
        r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#888"/></marker></defs>"##
    )?;
    writeln!(out, r##"<rect width="100%" height="100%" fill="white"/>"##)?;
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
    let label = if data.hood.radius == u32::MAX {
        format!("whole HSG, {} hyperstates", data.hood.nodes.len())
    } else {
        format!(
            "h{} radius {}, {} hyperstates",
            center,
            data.hood.radius,
            data.hood.nodes.len()
        )
    };
    writeln!(out, r##"<text x="8" y="16" fill="#333">{label}</text>"##)?;
    writeln!(out, "</svg>")?;
    Ok(SvgStats {
        nodes: data.hood.nodes.len(),
        edges: data.hood.edges.len(),
        whole: data.hood.radius == u32::MAX,
        truncated: data.hood.truncated,
    })
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
    let fill = colour(tag);
    let stroke = if selected {
        r##" stroke="black" stroke-width="3""##
    } else {
        r##" stroke="white" stroke-width="1""##
    };
    let title = format!("<title>h{h} {}</title>", tag.name());
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
        let stats = write_svg(&bench, bench.root(), 3, &mut out).unwrap();
        let svg = String::from_utf8(out).unwrap();
        assert!(stats.whole);
        assert_eq!(stats.nodes as u64, bench.hyperstate_count());
        assert_eq!(svg.matches("<polygon").count(), 2, "two win diamonds");
        assert_eq!(svg.matches("<rect x=").count(), 20, "twenty fail squares");
        assert_eq!(svg.matches("<line").count(), stats.edges);
        assert!(svg.contains(r#"stroke="black""#), "the root is highlighted");
        assert!(svg.trim_end().ends_with("</svg>"));
    }
}
