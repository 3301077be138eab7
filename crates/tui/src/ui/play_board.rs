//! Play mode's board: the game's picture of the state drawn large. The grid rows are
//! scaled up (each character twice as many columns as rows, since a terminal cell is
//! about twice as tall as it is wide) as far as the pane allows; the lines of words a
//! game writes beside its grid (a score, a title, a legend) are drawn as they are.

use super::fit;
use super::pane;
use super::theme::Theme;
use crate::data::Member;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// Draws `m`'s picture in a pane titled `title` over `area`.
pub fn draw(frame: &mut Frame, area: Rect, title: &str, m: &Member, t: &Theme) {
    let block = pane(t, title, true, area.width);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut wrapped = wrap_words(&m.text, usize::from(inner.width));
    wrapped.extend(legend_rows(m, usize::from(inner.width), t));
    let rows: Vec<&str> = wrapped.iter().map(|(l, _)| l.as_str()).collect();
    let text: Vec<bool> = wrapped.iter().map(|&(_, words)| words).collect();
    let grid = |want: bool| rows.iter().zip(&text).filter(move |(_, &w)| w == want);
    let grid_width = grid(false).map(|(r, _)| fit::width(r)).max().unwrap_or(0);
    let grid_height = grid(false).count();
    let words_width = grid(true).map(|(r, _)| fit::width(r)).max().unwrap_or(0);
    let words_height = grid(true).count();
    let room = Rect {
        height: inner.height.saturating_sub(words_height as u16),
        ..inner
    };
    let (sx, sy) = scale(grid_width, grid_height, room);
    let width = (grid_width * sx).max(words_width);
    let height = grid_height * sy + words_height;
    let mut lines = scaled_lines(&rows, &text, m.colors.as_deref(), (sx, sy), t);
    if width > usize::from(inner.width) || height > usize::from(inner.height) {
        lines.truncate(usize::from(inner.height.saturating_sub(1)));
        let hint = format!(
            "{}cut: the terminal is smaller than the board",
            t.ellipsis()
        );
        let hint = fit::ellipsize(&hint, usize::from(inner.width), t.ellipsis());
        lines.push(Line::styled(hint, t.error()));
        frame.render_widget(Paragraph::new(lines), inner);
        return;
    }
    // Centred in the pane.
    let used = Rect {
        x: inner.x + (inner.width - width as u16) / 2,
        y: inner.y + (inner.height - height as u16) / 2,
        width: width as u16,
        height: height as u16,
    };
    frame.render_widget(Paragraph::new(lines), used);
}

/// The picture's lines, each with whether it is a line of words; those wider than
/// `max` columns are wrapped at spaces (grid rows are kept whole: a grid too wide is
/// said to be cut).
fn wrap_words(text: &str, max: usize) -> Vec<(String, bool)> {
    let mut lines = Vec::new();
    for line in text.lines() {
        if !is_words(line) {
            lines.push((line.to_string(), false));
        } else if fit::width(line) <= max {
            lines.push((line.to_string(), true));
        } else {
            let words: Vec<String> = line.split(' ').map(str::to_string).collect();
            lines.extend(
                fit::flow(&words, " ", max, "…")
                    .into_iter()
                    .map(|l| (l, true)),
            );
        }
    }
    lines
}

/// The board's legend as lines of words (`P player · * Crate + Target`), wrapped
/// between entries to `max` columns; none when the game names nothing.
fn legend_rows(m: &Member, max: usize, t: &Theme) -> Vec<(String, bool)> {
    let entries: Vec<String> = m
        .legend
        .iter()
        .map(|(c, what)| format!("{c} {what}"))
        .collect();
    if entries.is_empty() {
        return Vec::new();
    }
    let sep = if t.ascii { ", " } else { " · " };
    fit::flow(&entries, sep, max, t.ellipsis())
        .into_iter()
        .map(|l| (l, true))
        .collect()
}

/// Columns the widest grid row of a picture takes unscaled (lines of words wrap).
pub fn width(text: &str) -> u16 {
    let rows = text.lines().filter(|l| !is_words(l));
    let w = rows.map(fit::width).max().unwrap_or(0);
    u16::try_from(w).unwrap_or(u16::MAX)
}

/// True for a line of words rather than of grid cells: one with a word of three or
/// more letters between spaces (`score 0`, `Toggle D: off`); grid rows are glyphs
/// without spaces between letters (`#..*.#`, `K2 B3`).
pub fn is_words(line: &str) -> bool {
    line.split(' ').any(|w| {
        let w = w.trim_end_matches([':', ',', ';', '.', ')']);
        let w = w.trim_start_matches('(');
        w.chars().count() >= 3 && w.chars().all(char::is_alphabetic)
    })
}

/// How many columns and rows each character of a `width` x `height` grid takes in
/// `area`: twice as many columns as rows, as large as fits, at least one of each.
pub fn scale(width: usize, height: usize, area: Rect) -> (usize, usize) {
    let (w, h) = (usize::from(area.width), usize::from(area.height));
    if width == 0 || height == 0 {
        return (1, 1);
    }
    let s = (w / (2 * width)).min(h / height);
    if s >= 1 {
        (2 * s, s)
    } else {
        (1, 1)
    }
}

/// The picture's lines: grid rows with every character repeated `sx` times across
/// and every row `sy` times down, lines of words as they are; in the game's colours
/// when it has them.
fn scaled_lines<'a>(
    rows: &[&str],
    words: &[bool],
    colors: Option<&[Vec<Option<model::Rgb>>]>,
    (sx, sy): (usize, usize),
    t: &Theme,
) -> Vec<Line<'a>> {
    let colors = colors.filter(|_| t.colour());
    let mut lines = Vec::new();
    for (y, row) in rows.iter().enumerate() {
        let (sx, sy) = if words[y] { (1, 1) } else { (sx, sy) };
        let spans: Vec<Span> = row
            .chars()
            .enumerate()
            .map(|(x, ch)| {
                let color = colors.and_then(|c| c.get(y)?.get(x).copied().flatten());
                let text: String = std::iter::repeat_n(ch, sx).collect();
                match color {
                    Some(c) => Span::styled(text, t.cell(c)),
                    None => Span::raw(text),
                }
            })
            .collect();
        for _ in 0..sy {
            lines.push(Line::from(spans.clone()));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_told_from_grid_rows() {
        for words in [
            "score 0 moves left 6",
            "Toggle D: off",
            "(won)",
            "players at A;",
        ] {
            assert!(is_words(words), "{words:?}");
        }
        for grid in [
            "#..*.#",
            "K2 B3 .. ..",
            "##  $$  #",
            "..o....",
            "[A @]---[B]",
        ] {
            assert!(!is_words(grid), "{grid:?}");
        }
    }

    #[test]
    fn the_grid_is_scaled_as_far_as_it_fits() {
        let area = Rect::new(0, 0, 40, 20);
        assert_eq!(scale(10, 10, area), (4, 2));
        assert_eq!(scale(7, 6, area), (4, 2));
        assert_eq!(scale(30, 5, area), (1, 1));
        assert_eq!(scale(3, 2, area), (12, 6));
        assert_eq!(scale(0, 0, area), (1, 1));
    }
}
