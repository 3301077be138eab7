//! The pictures of `hsg html`, as inline SVG: bar charts and the HSG map (hyperstates
//! placed by the workbench's spring layout, shaped and coloured by tag, with labels and
//! a legend).

use hsg::{SavedAnalysis, Tag};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Escapes text for HTML and SVG.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The fill colour of a tag (the legend names them, and shapes tell them apart too).
pub fn colour(tag: Tag) -> &'static str {
    match tag {
        Tag::Win => "#2e8b57",
        Tag::Fail => "#c0392b",
        Tag::EventuallyWinnable => "#5dade2",
        Tag::ImplicitlyFailed => "#e59866",
        Tag::Unknown => "#aab7b8",
    }
}

/// A tag's name for people.
pub fn tag_words(tag: Tag) -> String {
    tag.name().replace('_', " ")
}

/// A vertical bar chart of `values` with a label under every bar (every k-th when they
/// are many) and the value above it; `title` sits inside the picture's width.
/// A missing value (`None`) draws no bar and says `none`.
pub fn bars(title: &str, labels: &[String], values: &[Option<f64>], colours: &[&str]) -> String {
    let n = values.len().max(1);
    let bar = (560.0 / n as f64).clamp(2.0, 120.0);
    // Wide enough for the title at about 7 px a character.
    let title_width = title.chars().count() as f64 * 7.2 + 24.0;
    let width = (bar * n as f64 + 80.0).max(360.0).max(title_width);
    let (top, plot) = (34.0, 150.0);
    let max = values
        .iter()
        .flatten()
        .copied()
        .fold(0.0_f64, f64::max)
        .max(1.0);
    let mut svg = format!(
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"220\" \
         viewBox=\"0 0 {width:.0} 220\" role=\"img\" aria-label=\"{t}\"><text x=\"8\" y=\"18\" \
         class=\"title\">{t}</text><line x1=\"40\" y1=\"{base}\" x2=\"{end:.0}\" y2=\"{base}\" \
         stroke=\"#444\"/><text x=\"36\" y=\"{top}\" text-anchor=\"end\" class=\"small\">{max}</text>",
        t = escape(title),
        base = top + plot,
        end = width - 8.0,
        max = number(max),
    );
    let every = (n / 20).max(1);
    for (i, &value) in values.iter().enumerate() {
        let v = value.unwrap_or(0.0);
        let shown = value.map_or("none".to_string(), number);
        let h = plot * v / max;
        let x = 44.0 + i as f64 * bar;
        let fill = colours
            .get(i % colours.len().max(1))
            .copied()
            .unwrap_or("#5d6d7e");
        let label = labels.get(i).map_or(String::new(), |l| escape(l));
        let _ = write!(
            svg,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"{fill}\">\
             <title>{label}: {shown}</title></rect>",
            top + plot - h,
            (bar - 2.0).max(1.0),
        );
        if i % every == 0 {
            let cx = x + bar / 2.0;
            let _ = write!(
                svg,
                "<text x=\"{cx:.1}\" y=\"{:.0}\" text-anchor=\"middle\" class=\"small\">{label}</text>",
                top + plot + 14.0
            );
            if n <= 24 {
                let _ = write!(
                    svg,
                    "<text x=\"{cx:.1}\" y=\"{:.1}\" text-anchor=\"middle\" class=\"small\">{shown}</text>",
                    top + plot - h - 3.0,
                );
            }
        }
    }
    svg.push_str("</svg>");
    svg
}

/// An integer with thousands separators, or a short decimal.
pub fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        group(v as i64)
    } else {
        format!("{v:.4}")
    }
}

/// `1234567` as `1,234,567`.
pub fn group(v: i64) -> String {
    let digits = v.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0 {
        out.insert(0, '-');
    }
    out
}

/// One node shape per tag, as DOT exports draw them: win a diamond, fail a square,
/// implicitly failed a triangle, eventually winnable a circle, unknown a dashed circle.
fn shape(tag: Tag, x: f64, y: f64) -> String {
    let fill = colour(tag);
    let r = 9.0;
    match tag {
        Tag::Win => format!(
            "<polygon points=\"{x},{:.1} {:.1},{y} {x},{:.1} {:.1},{y}\" fill=\"{fill}\" stroke=\"#222\"/>",
            y - r - 2.0,
            x + r + 2.0,
            y + r + 2.0,
            x - r - 2.0
        ),
        Tag::Fail => format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\" stroke=\"#222\"/>",
            x - r,
            y - r,
            2.0 * r,
            2.0 * r
        ),
        Tag::ImplicitlyFailed => format!(
            "<polygon points=\"{x},{:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"{fill}\" stroke=\"#222\"/>",
            y - r - 1.0,
            x + r + 1.0,
            y + r,
            x - r - 1.0,
            y + r
        ),
        Tag::EventuallyWinnable => {
            format!("<circle cx=\"{x}\" cy=\"{y}\" r=\"{r}\" fill=\"{fill}\" stroke=\"#222\"/>")
        }
        Tag::Unknown => format!(
            "<circle cx=\"{x}\" cy=\"{y}\" r=\"{r}\" fill=\"{fill}\" stroke=\"#222\" stroke-dasharray=\"3 2\"/>"
        ),
    }
}

/// The legend: one shape and name per tag.
pub fn legend() -> String {
    let mut svg = String::from(
        "<svg class=\"legend\" xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"30\" viewBox=\"0 0 900 30\">",
    );
    for (i, tag) in Tag::ALL.iter().enumerate() {
        let x = 16.0 + i as f64 * 180.0;
        svg.push_str(&shape(*tag, x, 15.0));
        let _ = write!(
            svg,
            "<text x=\"{:.0}\" y=\"19\">{}</text>",
            x + 16.0,
            tag_words(*tag)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// The hyperstates the map and the list show, at most `cap`: first the ideal path and
/// the winnable hyperstates (the few that matter most on a big graph), then the rest
/// by HSG depth from the root; ties by number. Those the root does not reach come last.
pub fn chosen_hyperstates(saved: &SavedAnalysis, cap: usize) -> Vec<u64> {
    let on_path: std::collections::HashSet<u64> = saved.ideal_path.iter().copied().collect();
    let mut all: Vec<(bool, u32, u64)> = saved
        .hyperstates
        .iter()
        .enumerate()
        .map(|(h, info)| {
            let h = h as u64;
            let first = on_path.contains(&h) || info.tag.is_winnable();
            (!first, info.depth.unwrap_or(u32::MAX), h)
        })
        .collect();
    all.sort_unstable();
    all.into_iter().take(cap).map(|(_, _, h)| h).collect()
}

/// The HSG map of the `chosen` hyperstates, laid out as the workbench lays them out,
/// an arrow for every HSG edge between two chosen hyperstates, each node a link to
/// the hyperstate's entry in the list.
pub fn hsg_map(saved: &SavedAnalysis, chosen: &[u64]) -> String {
    let place = spring_places(saved, chosen);
    let width = place.values().map(|p| p.0).fold(0.0, f64::max) + 80.0;
    let height = place.values().map(|p| p.1).fold(0.0, f64::max) + 40.0;
    let mut svg = format!(
        "<svg id=\"map\" xmlns=\"http://www.w3.org/2000/svg\" width=\"100%\" height=\"520\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" data-width=\"{width:.0}\" data-height=\"{height:.0}\">\
         <defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" \
         markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#777\"/>\
         </marker></defs><g id=\"edges\">"
    );
    let mut drawn = 0usize;
    for &h in chosen {
        let Some(&(x1, y1)) = place.get(&h) else {
            continue;
        };
        let mut last = None;
        saved.edges.for_each_successor(h, |t| {
            if last == Some(t) || drawn >= 5000 {
                return;
            }
            last = Some(t);
            if let Some(&(x2, y2)) = place.get(&t) {
                drawn += 1;
                // Stop at the target's rim, whatever the direction, so the arrowhead shows.
                let (dx, dy) = (x2 - x1, y2 - y1);
                let len = (dx * dx + dy * dy).sqrt().max(1e-6);
                let (ex, ey) = (x2 - dx / len * 11.0, y2 - dy / len * 11.0);
                let _ = write!(
                    svg,
                    "<line x1=\"{x1:.0}\" y1=\"{y1:.0}\" x2=\"{ex:.0}\" y2=\"{ey:.0}\" stroke=\"#999\" \
                     stroke-width=\"1\" marker-end=\"url(#arrow)\"/>"
                );
            }
        });
    }
    svg.push_str("</g><g id=\"nodes\">");
    for &h in chosen {
        let (Some(&(x, y)), Some(info)) = (place.get(&h), saved.hyperstates.get(h as usize)) else {
            continue;
        };
        let size = members(saved, h);
        let _ = write!(
            svg,
            "<a href=\"#h-{h}\" class=\"node\" data-h=\"{h}\"><title>hyperstate {h}: {}, {} states, depth {}</title>{}\
             <text x=\"{x:.0}\" y=\"{:.0}\" text-anchor=\"middle\" class=\"small\">{h}</text></a>",
            tag_words(info.tag),
            group(size as i64),
            info.depth.map_or("unreachable".into(), |d| d.to_string()),
            shape(info.tag, x, y),
            y + 22.0
        );
    }
    svg.push_str("</g></svg>");
    svg
}

/// Pixels per unit of the spring layout (one critical action between neighbours).
const MAP_UNIT: f64 = 56.0;

/// Node positions from the workbench's graph view layout (`tui::spring_layout`: springs
/// as long as the graph distances, in critical actions either way), scaled to pixels
/// with a margin, so that the map looks like the picture in `hsg tui` and `hsg export
/// --format svg`. A layout cannot fail; the positions are deterministic.
fn spring_places(saved: &SavedAnalysis, chosen: &[u64]) -> HashMap<u64, (f64, f64)> {
    let index: HashMap<u64, u32> = chosen
        .iter()
        .enumerate()
        .map(|(i, &h)| (h, i as u32))
        .collect();
    let mut edges = Vec::new();
    for (i, &h) in chosen.iter().enumerate() {
        saved.edges.for_each_successor(h, |t| {
            if let Some(&j) = index.get(&t) {
                edges.push((i as u32, j));
            }
        });
    }
    edges.sort_unstable();
    edges.dedup();
    let layout = tui::spring_layout::spring_layout(chosen.len(), &edges);
    let (min_x, min_y) = layout
        .positions
        .iter()
        .fold((f64::MAX, f64::MAX), |(x, y), p| {
            (x.min(f64::from(p.0)), y.min(f64::from(p.1)))
        });
    chosen
        .iter()
        .zip(&layout.positions)
        .map(|(&h, &(x, y))| {
            let px = 60.0 + (f64::from(x) - min_x) * MAP_UNIT;
            let py = 40.0 + (f64::from(y) - min_y) * MAP_UNIT;
            (h, (px, py))
        })
        .collect()
}

/// Member count of hyperstate `h`.
pub fn members(saved: &SavedAnalysis, h: u64) -> u64 {
    let o = &saved.member_offsets;
    match (o.get(h as usize), o.get(h as usize + 1)) {
        (Some(a), Some(b)) => b - a,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_and_never_cut() {
        assert_eq!(group(1_396_152), "1,396,152");
        assert_eq!(group(12), "12");
        assert_eq!(number(0.99979), "0.9998");
        assert_eq!(number(58053.0), "58,053");
    }

    #[test]
    fn a_chart_names_every_bar_and_escapes_its_title() {
        let svg = bars(
            "a < b",
            &["x".into(), "y".into()],
            &[Some(3.0), None],
            &["#000"],
        );
        assert!(svg.contains("a &lt; b"));
        assert_eq!(svg.matches("<rect").count(), 2);
        assert!(svg.contains(">3<") && svg.contains(">none<"));
    }
}
