//! Colour names as PuzzleScript reads them: the default palette
//! (`arnecolors`) and hexadecimal `#rgb` / `#rrggbb`.
//!
//! The `color_palette` prelude flag (another of the reference's palettes) is
//! not honoured: named colours always take the default palette's values.

use model::Rgb;

/// The default palette of the reference (`arnecolors`, `src/js/colors.js`).
const ARNECOLORS: [(&str, u32); 24] = [
    ("black", 0x000000),
    ("white", 0xffffff),
    ("grey", 0x9d9d9d),
    ("darkgrey", 0x697175),
    ("lightgrey", 0xcccccc),
    ("gray", 0x9d9d9d),
    ("darkgray", 0x697175),
    ("lightgray", 0xcccccc),
    ("red", 0xbe2633),
    ("darkred", 0x732930),
    ("lightred", 0xe06f8b),
    ("brown", 0xa46422),
    ("darkbrown", 0x493c2b),
    ("lightbrown", 0xeeb62f),
    ("orange", 0xeb8931),
    ("yellow", 0xf7e26b),
    ("green", 0x44891a),
    ("darkgreen", 0x2f484e),
    ("lightgreen", 0xa3ce27),
    ("blue", 0x1d57f7),
    ("lightblue", 0xb2dcef),
    ("darkblue", 0x1b2632),
    ("purple", 0x342a97),
    ("pink", 0xde65e2),
];

/// The colour a name or hex code stands for; `None` for `transparent` and
/// for anything unknown.
pub fn rgb(name: &str) -> Option<Rgb> {
    let name = name.trim().to_ascii_lowercase();
    if let Some(hex) = name.strip_prefix('#') {
        return parse_hex(hex);
    }
    ARNECOLORS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, v)| split(v))
}

fn split(v: u32) -> Rgb {
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// `rgb` or `rrggbb` (a short form doubles each digit).
fn parse_hex(hex: &str) -> Option<Rgb> {
    let digits: Vec<u32> = hex.chars().map(|c| c.to_digit(16)).collect::<Option<_>>()?;
    match digits.as_slice() {
        [r, g, b] => Some([(r * 17) as u8, (g * 17) as u8, (b * 17) as u8]),
        [r1, r2, g1, g2, b1, b2] => Some([
            (r1 * 16 + r2) as u8,
            (g1 * 16 + g2) as u8,
            (b1 * 16 + b2) as u8,
        ]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::rgb;

    #[test]
    fn names_and_hex_codes() {
        assert_eq!(rgb("Orange"), Some([0xeb, 0x89, 0x31]));
        assert_eq!(rgb("LIGHTGREEN"), Some([0xa3, 0xce, 0x27]));
        assert_eq!(rgb("#f00"), Some([255, 0, 0]));
        assert_eq!(rgb("#1d57F7"), Some([0x1d, 0x57, 0xf7]));
        assert_eq!(rgb("transparent"), None);
        assert_eq!(rgb("#12345"), None);
        assert_eq!(rgb("mauve"), None);
    }
}
