//! Colour names as PuzzleScript reads them: a palette's names (the default
//! `arnecolors`, or the one the `color_palette` prelude flag picks, see
//! [`super::palettes`]) and hexadecimal `#rgb` / `#rrggbb`.

use super::palettes::{NAMES, PALETTES};
use model::Rgb;

/// The palette's colours, in the order of [`NAMES`]: the one named by the
/// `color_palette` value (a name, or its number from 1), else the default
/// `arnecolors`, as the reference does for an unknown one.
fn table(palette: Option<&str>) -> &'static [u32; 24] {
    let wanted = palette.map(|p| p.trim().to_ascii_lowercase());
    let by_name = |name: &str| PALETTES.iter().find(|(n, _)| *n == name).map(|(_, t)| t);
    let by_number = |value: &str| {
        let n: usize = value.parse().ok()?;
        // Aliases are written `1` to `14`: a leading zero or sign names nothing.
        (n.to_string() == value).then(|| n.checked_sub(1).and_then(|k| PALETTES.get(k)))?
    };
    wanted
        .as_deref()
        .and_then(|w| by_number(w).map(|(_, t)| t).or_else(|| by_name(w)))
        .or_else(|| by_name("arnecolors"))
        .unwrap_or(&PALETTES[0].1)
}

/// The colour a name or hex code stands for in the default palette; `None`
/// for `transparent` and for anything unknown.
#[cfg(test)]
pub fn rgb(name: &str) -> Option<Rgb> {
    rgb_in(None, name)
}

/// The colour a name or hex code stands for in the palette `palette` (the
/// `color_palette` value, if any); `None` for `transparent` and for
/// anything unknown.
pub fn rgb_in(palette: Option<&str>, name: &str) -> Option<Rgb> {
    let name = name.trim().to_ascii_lowercase();
    if let Some(hex) = name.strip_prefix('#') {
        return parse_hex(hex);
    }
    let k = NAMES.iter().position(|n| *n == name)?;
    table(palette).get(k).map(|&v| split(v))
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
    use super::{rgb, rgb_in};

    #[test]
    fn the_color_palette_flag_picks_a_palette_by_name_or_number() {
        assert_eq!(rgb_in(Some("amiga"), "red"), Some([0xdd, 0x11, 0x11]));
        assert_eq!(rgb_in(Some("3"), "red"), Some([0xdd, 0x11, 0x11]));
        assert_eq!(
            rgb_in(Some(" GameBoyColour "), "blue"),
            Some([0x5d, 0x6f, 0xa7])
        );
        assert_eq!(rgb_in(Some("14"), "black"), Some([0x20, 0x25, 0x27]));
        assert_eq!(rgb_in(Some("1"), "pink"), Some([0xff, 0xaa, 0xff]));
        // Unknown palettes fall back to the default, as the reference does.
        for unknown in ["15", "0", "03", "nonesuch"] {
            assert_eq!(rgb_in(Some(unknown), "red"), rgb("red"), "{unknown}");
        }
        assert_eq!(rgb_in(Some("4"), "orange"), rgb("orange"));
        // Hex codes are read as written whatever the palette.
        assert_eq!(rgb_in(Some("amiga"), "#f00"), Some([255, 0, 0]));
    }

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
