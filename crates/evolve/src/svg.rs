//! SVG pictures: box plots of best scores per instance (the seed's Figures
//! 2 to 4) and boards with a best path (its Figure 5).

use std::fmt::Write as _;

use games::sandbox::{Instance, TokenKind, ARROW_GLYPHS};

use crate::stats::ExperimentStats;

/// One box per instance (whiskers min to max, box q1 to q3, median line,
/// mean dot), instances sorted by median then mean, as in the seed's figures.
pub fn box_plot(stats: &ExperimentStats, title: &str) -> String {
    let mut order: Vec<_> = stats.instances.iter().collect();
    order.sort_by(|a, b| {
        a.summary
            .median
            .total_cmp(&b.summary.median)
            .then(a.summary.mean.total_cmp(&b.summary.mean))
    });
    let lo = stats
        .instances
        .iter()
        .map(|s| s.summary.min)
        .fold(f64::INFINITY, f64::min)
        .floor();
    let hi = stats
        .instances
        .iter()
        .map(|s| s.summary.max)
        .fold(f64::NEG_INFINITY, f64::max)
        .ceil();
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo - 1.0, hi + 1.0)
    } else {
        (0.0, 1.0)
    };
    let (left, top, plot_h, step) = (50.0, 40.0, 300.0, 8.0);
    let plot_right = left + step * order.len() as f64;
    let width = box_plot_width(plot_right, title);
    let y = |v: f64| top + plot_h * (1.0 - (v - lo) / (hi - lo));
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{:.0}\" font-family=\"sans-serif\" font-size=\"11\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{left}\" y=\"20\" font-size=\"14\">{}</text>\n",
        top + plot_h + 40.0,
        escape(title)
    );
    for t in ticks(lo, hi) {
        let _ = writeln!(
            out,
            "<line x1=\"{left}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{t}</text>",
            plot_right, y(t), y(t), left - 4.0, y(t) + 4.0
        );
    }
    for (n, s) in order.iter().enumerate() {
        let x = left + step * (n as f64 + 0.5);
        let m = &s.summary;
        let _ = writeln!(
            out,
            "<g><title>instance {}: min {} q1 {} median {} q3 {} max {} mean {:.2}</title>\
             <line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"black\"/>\
             <rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#9ecae1\" stroke=\"black\" stroke-width=\"0.6\"/>\
             <line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#c00\" stroke-width=\"1.5\"/>\
             <circle cx=\"{x:.1}\" cy=\"{:.1}\" r=\"1.3\"/></g>",
            s.instance + 1, m.min, m.q1, m.median, m.q3, m.max, m.mean,
            y(m.max), y(m.min),
            x - step * 0.35, y(m.q3), step * 0.7, (y(m.q1) - y(m.q3)).max(0.5),
            x - step * 0.4, x + step * 0.4, y(m.median), y(m.median),
            y(m.mean)
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"{left}\" y=\"{:.0}\">{CAPTION}</text>\n</svg>",
        top + plot_h + 25.0
    );
    out
}

/// The line under a box plot.
const CAPTION: &str =
    "instances sorted by median best score (box: quartiles, whiskers: min to max, red: median, dot: mean)";

/// The width of a box plot whose boxes end at `plot_right`: wide enough for the boxes,
/// the title (14 px type, at most about 8.5 px a character) and the caption (11 px type,
/// about 6.5 px a character).
///
/// Regression: the width followed the boxes alone, so a plot of a few instances was
/// 94 px wide and cut its title and caption.
fn box_plot_width(plot_right: f64, title: &str) -> f64 {
    let left = 50.0;
    let title_px = left + 8.5 * title.chars().count() as f64;
    let caption_px = left + 6.5 * CAPTION.chars().count() as f64;
    plot_right.max(title_px).max(caption_px) + 20.0
}

/// Round tick values between `lo` and `hi`.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let raw = (hi - lo) / 6.0;
    let step = [1.0, 2.0, 5.0, 10.0, 20.0, 25.0, 50.0, 100.0]
        .into_iter()
        .find(|s| *s >= raw)
        .unwrap_or(200.0);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi {
        out.push(t);
        t += step;
    }
    out
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The fill colour and text colour of a token.
fn colours(kind: TokenKind) -> (&'static str, &'static str) {
    match kind {
        TokenKind::Blue => ("#2b6cd6", "white"),
        TokenKind::Red => ("#d62b2b", "white"),
        TokenKind::Gold => ("#e8b020", "black"),
        TokenKind::Black => ("#111111", "white"),
        TokenKind::Purple => ("#7b3fb5", "white"),
        TokenKind::White => ("#ffffff", "black"),
        TokenKind::Green => ("#3cb043", "black"),
        TokenKind::DarkGreen => ("#1d5e20", "white"),
        TokenKind::Silver => ("#b8b8c0", "black"),
        TokenKind::Arrow => ("#f0f0f0", "black"),
        TokenKind::Bomb => ("#444444", "#ffcc00"),
        TokenKind::Brown => ("#8b5a2b", "white"),
    }
}

/// The board of an instance: walls, tokens as numbered discs, the start as
/// a green star, and `path` (squares in order) as a line when given.
pub fn board(inst: &Instance, path: &[u8], caption: &str) -> String {
    let cell = 36.0;
    let side = f64::from(inst.side);
    let size = cell * side;
    let centre = |c: u8| {
        let (r, col) = (c / inst.side, c % inst.side);
        (
            f64::from(col) * cell + cell / 2.0 + 10.0,
            f64::from(r) * cell + cell / 2.0 + 10.0,
        )
    };
    // Wide enough for the caption too (14 px type, at most about 8.5 px a character).
    let width = (size + 20.0).max(20.0 + 8.5 * caption.chars().count() as f64);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{:.0}\" font-family=\"sans-serif\" font-size=\"14\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        size + 40.0
    );
    for i in 0..=inst.side {
        let v = f64::from(i) * cell + 10.0;
        let _ = writeln!(out, "<line x1=\"10\" x2=\"{:.0}\" y1=\"{v}\" y2=\"{v}\" stroke=\"#999\"/><line y1=\"10\" y2=\"{:.0}\" x1=\"{v}\" x2=\"{v}\" stroke=\"#999\"/>", size + 10.0, size + 10.0);
    }
    for &w in &inst.walls {
        let (x, y) = centre(w);
        let _ = writeln!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{cell}\" height=\"{cell}\" fill=\"#555\"/>",
            x - cell / 2.0,
            y - cell / 2.0
        );
    }
    if path.len() > 1 {
        let points: Vec<String> = path
            .iter()
            .map(|&c| {
                let (x, y) = centre(c);
                format!("{x:.1},{y:.1}")
            })
            .collect();
        let _ = writeln!(out, "<polyline points=\"{}\" fill=\"none\" stroke=\"#e07000\" stroke-width=\"3\" stroke-opacity=\"0.6\"/>", points.join(" "));
    }
    for t in &inst.tokens {
        let (x, y) = centre(t.cell);
        let (fill, ink) = colours(t.kind);
        let label = match t.kind {
            TokenKind::Arrow => ARROW_GLYPHS
                .get(usize::from(t.value))
                .map_or(String::new(), |g| g.to_string()),
            TokenKind::Gold | TokenKind::Green | TokenKind::Bomb => String::new(),
            _ => t.value.to_string(),
        };
        let _ = writeln!(out, "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{:.1}\" fill=\"{fill}\" stroke=\"black\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"{ink}\">{}</text>", cell * 0.38, y + 5.0, escape(&label));
    }
    let (sx, sy) = centre(inst.start);
    let _ = writeln!(out, "<text x=\"{sx:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"26\" fill=\"#0a0\">&#9733;</text>", sy + 9.0);
    let _ = writeln!(
        out,
        "<text x=\"10\" y=\"{:.0}\">{}</text>\n</svg>",
        size + 32.0,
        escape(caption)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_plot_of_few_instances_is_wide_enough_for_its_title_and_caption() {
        let title = "Distribution of best fitness over 1 instances: tiny: 5x5, blue, red";
        let width = box_plot_width(58.0, title);
        assert!(width >= 50.0 + 8.5 * title.len() as f64, "{width}");
        assert!(width >= 50.0 + 6.5 * CAPTION.len() as f64, "{width}");
        // Many instances: the boxes decide.
        assert_eq!(box_plot_width(5000.0, title), 5020.0);
    }
}
