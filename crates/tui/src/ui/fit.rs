//! Making text fit its cell without ever showing a wrong number: a number that does
//! not fit is abbreviated visibly (`1.4M`), text that does not fit ends with an
//! ellipsis, and a cell too narrow even for that shows `#`, never a cut figure.

use ratatui::text::{Line, Span};

/// `n` in at most `width` columns: in full with thousands separators when it fits
/// (`1,400,000`), else in full without them, else abbreviated with a metric suffix and
/// as many decimals as fit (`1.40M`, `1.4M`, `1M`), else `#`s.
pub fn count(n: u64, width: usize) -> String {
    let grouped = model::numbers::grouped(n);
    if grouped.len() <= width {
        return grouped;
    }
    let full = n.to_string();
    if full.len() <= width {
        return full;
    }
    for (unit, suffix) in [(1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T"), (1e15, "P")] {
        let scaled = n as f64 / unit;
        if scaled >= 999.5 {
            continue;
        }
        for decimals in (0..=2).rev() {
            let text = format!("{scaled:.decimals$}{suffix}");
            // Rounding must not reach the next unit (999.96k is 1.0M, not 1000.0k).
            if text.len() <= width && !text.starts_with("1000") {
                return text;
            }
        }
    }
    "#".repeat(width)
}

/// A share in `[0, 1]` in at most `width` columns, with as many decimals as fit
/// (`.068`, `1.000`, `1.00`), the leading zero dropped.
pub fn fraction(x: f32, width: usize) -> String {
    for decimals in (0..=3).rev() {
        let text = format!("{x:.decimals$}");
        let text = text
            .strip_prefix('0')
            .filter(|t| !t.is_empty())
            .unwrap_or(&text);
        if text.len() <= width {
            return text.to_string();
        }
    }
    "#".repeat(width)
}

/// A share in `[0, 1]` as a percentage (`94.69%`), as everywhere else
/// ([`model::numbers::percent`]).
pub use model::numbers::percent;

/// Columns `s` takes on screen.
pub fn width(s: &str) -> usize {
    Span::raw(s).width()
}

/// `s` in at most `max` columns, ending with `ellipsis` when it had to be cut.
pub fn ellipsize(s: &str, max: usize, ellipsis: &str) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let room = max.saturating_sub(width(ellipsis));
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = width(c.encode_utf8(&mut [0; 4]));
        if used + w > room {
            break;
        }
        used += w;
        out.push(c);
    }
    if width(ellipsis) <= max {
        out.push_str(ellipsis);
    }
    out
}

/// Packs `items` onto lines of at most `max` columns, joined by `sep`; an item too
/// long for a line alone is ellipsized.
pub fn flow(items: &[String], sep: &str, max: usize, ellipsis: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for item in items {
        let joined = width(&current) + width(sep) + width(item);
        if !current.is_empty() && joined <= max {
            current.push_str(sep);
            current.push_str(item);
            continue;
        }
        if !current.is_empty() {
            lines.push(std::mem::take(&mut current));
        }
        current = ellipsize(item, max, ellipsis);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// `text` wrapped into lines of at most `max` columns, at spaces where it can be and
/// inside a word only when the word alone is longer than a line: nothing is cut.
pub fn wrap(text: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let needed = width(&current) + usize::from(!current.is_empty()) + width(word);
        if !current.is_empty() && needed > max {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        for c in word.chars() {
            if width(&current) + width(c.encode_utf8(&mut [0; 4])) > max {
                lines.push(std::mem::take(&mut current));
            }
            current.push(c);
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// `lines` cut to `height` rows; when some are left out, the last row says how many,
/// so no fact is dropped silently.
pub fn clip<'a>(
    mut lines: Vec<Line<'a>>,
    height: usize,
    max: usize,
    ellipsis: &str,
) -> Vec<Line<'a>> {
    if lines.len() > height {
        let hidden = lines.len() + 1 - height;
        lines.truncate(height.saturating_sub(1));
        let more = format!("{ellipsis}{hidden} more lines hidden");
        lines.push(Line::raw(ellipsize(&more, max, ellipsis)));
    }
    lines
}

/// A line of spans cut to `max` columns, the last visible span ending with `ellipsis`.
pub fn line<'a>(spans: Vec<Span<'a>>, max: usize, ellipsis: &str) -> Line<'a> {
    let total: usize = spans.iter().map(|s| width(&s.content)).sum();
    if total <= max {
        return Line::from(spans);
    }
    let mut out = Vec::new();
    let mut used = 0;
    let room = max.saturating_sub(width(ellipsis));
    for span in spans {
        let w = width(&span.content);
        if used + w <= room {
            used += w;
            out.push(span);
            continue;
        }
        let cut = ellipsize(&span.content, room - used + width(ellipsis), ellipsis);
        out.push(Span::styled(cut, span.style));
        return Line::from(out);
    }
    Line::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_abbreviated_never_cut() {
        assert_eq!(count(1_396_152, 9), "1,396,152");
        assert_eq!(count(1_396_152, 7), "1396152");
        assert_eq!(count(1_396_152, 6), "1.40M");
        assert_eq!(count(1_396_152, 4), "1.4M");
        assert_eq!(count(1_396_152, 2), "1M");
        assert_eq!(count(1_396_152, 1), "#");
        assert_eq!(count(58_053, 4), "58k");
        assert_eq!(count(58_053, 5), "58053");
        assert_eq!(count(58_053, 6), "58,053");
        assert_eq!(count(999_999, 4), "1.0M");
        assert_eq!(count(999_999, 5), "1.00M");
        assert_eq!(count(u64::MAX, 5), "#####");
        assert_eq!(fraction(0.068, 5), ".068");
        assert_eq!(fraction(1.0, 5), "1.000");
        assert_eq!(fraction(1.0, 4), "1.00");
        assert_eq!(fraction(0.5, 2), ".5");
        assert_eq!(percent(0.99979), "99.98%");
        assert_eq!(percent(0.9999988), "99.9999%");
        assert_eq!(percent(1.0), "100.00%");
        assert_eq!(percent(0.0), "0.00%");
        assert_eq!(percent(0.000001), "0.0001%");
    }

    #[test]
    fn wrapping_keeps_every_character() {
        assert_eq!(wrap("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"]);
        assert_eq!(wrap("abcdefgh ij", 3), ["abc", "def", "gh", "ij"]);
        let text = "The run is still being explored: this analysis is of 3,400,000 states.";
        let lines = wrap(text, 20);
        assert!(lines.iter().all(|l| width(l) <= 20));
        assert_eq!(lines.join(" "), text);
    }

    #[test]
    fn grouping_and_ellipses() {
        assert_eq!(ellipsize("hyperstates", 6, "…"), "hyper…");
        assert_eq!(ellipsize("abc", 3, "…"), "abc");
        assert_eq!(
            flow(&["a b".into(), "cc".into(), "dddd".into()], " · ", 8, "…"),
            ["a b · cc", "dddd"]
        );
    }
}
