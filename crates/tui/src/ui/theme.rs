//! Colours and symbols: a 16-colour palette (or none with `NO_COLOR`) and Unicode or
//! plain ASCII glyphs, chosen once so every screen draws the same way.

use crate::app::ViewOptions;
use crate::data::Tag;
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::border;

/// Styles and glyphs of one drawing.
#[derive(Clone, Copy, Debug)]
pub struct Theme {
    colour: bool,
    /// Plain ASCII glyphs.
    pub ascii: bool,
}

const ASCII_BORDER: border::Set = border::Set {
    top_left: "+",
    top_right: "+",
    bottom_left: "+",
    bottom_right: "+",
    vertical_left: "|",
    vertical_right: "|",
    horizontal_top: "-",
    horizontal_bottom: "-",
};

impl Theme {
    /// The theme of `view`.
    pub fn new(view: ViewOptions) -> Theme {
        Theme {
            colour: view.colour,
            ascii: view.ascii,
        }
    }

    /// True when this theme draws colours.
    pub fn colour(&self) -> bool {
        self.colour
    }

    fn fg(&self, c: Color) -> Style {
        if self.colour {
            Style::default().fg(c)
        } else {
            Style::default()
        }
    }

    /// Colour of a tag (in the 16-colour palette).
    pub fn tag(&self, t: Tag) -> Style {
        self.fg(match t {
            Tag::Win => Color::Green,
            Tag::Fail => Color::Red,
            Tag::EventuallyWinnable => Color::Cyan,
            Tag::ImplicitlyFailed => Color::Magenta,
            Tag::Unknown => Color::Yellow,
        })
    }

    /// A board cell in a game's own colour (true colour): the colour fills the cell and
    /// the character is black or white, whichever reads better on it, so that a black
    /// object stays visible on a black terminal; none without colour.
    pub fn cell(&self, [r, g, b]: model::Rgb) -> Style {
        if !self.colour {
            return Style::default();
        }
        // Perceived brightness (ITU-R BT.601 weights), on a 0..=255_000 scale.
        let luma = 299 * u32::from(r) + 587 * u32::from(g) + 114 * u32::from(b);
        let ink = if luma >= 128_000 {
            Color::Black
        } else {
            Color::White
        };
        Style::default().bg(Color::Rgb(r, g, b)).fg(ink)
    }

    /// The highlighted row or node.
    pub fn selected(&self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED)
    }

    /// Headings and the focused pane's title.
    pub fn title(&self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }

    /// Secondary text.
    pub fn dim(&self) -> Style {
        if self.colour {
            Style::default().fg(Color::DarkGray)
        } else {
            Style::default()
        }
    }

    /// Key names in hints and help.
    pub fn key(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    /// Errors.
    pub fn error(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    /// Box borders.
    pub fn border(&self) -> border::Set {
        if self.ascii {
            ASCII_BORDER
        } else {
            border::PLAIN
        }
    }

    /// Eight levels of a sparkline, lowest first.
    pub fn levels(&self) -> [char; 8] {
        if self.ascii {
            ['_', '.', ':', '-', '=', '+', '*', '#']
        } else {
            ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█']
        }
    }

    /// The filled part of a horizontal bar.
    pub fn bar(&self) -> char {
        if self.ascii {
            '#'
        } else {
            '█'
        }
    }

    /// Spinner frame number `tick`.
    pub fn spinner(&self, tick: u64) -> char {
        const UNICODE: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
        const ASCII: [char; 4] = ['|', '/', '-', '\\'];
        if self.ascii {
            ASCII[(tick % 4) as usize]
        } else {
            UNICODE[(tick % 10) as usize]
        }
    }

    /// An arrow for "leads to".
    pub fn arrow(&self) -> &'static str {
        if self.ascii {
            "->"
        } else {
            "→"
        }
    }

    /// An arrow for "comes from".
    pub fn back_arrow(&self) -> &'static str {
        if self.ascii {
            "<-"
        } else {
            "←"
        }
    }

    /// A separator between facts on one line.
    pub fn dot(&self) -> &'static str {
        if self.ascii {
            "|"
        } else {
            "·"
        }
    }

    /// The mark of text cut short.
    pub fn ellipsis(&self) -> &'static str {
        if self.ascii {
            "~"
        } else {
            "…"
        }
    }

    /// Infinity (no loss reachable).
    pub fn infinity(&self) -> &'static str {
        if self.ascii {
            "inf"
        } else {
            "∞"
        }
    }

    /// The glyph of a node of the graph view.
    pub fn node(&self, t: Tag) -> char {
        match (t, self.ascii) {
            (Tag::Win, false) => '◆',
            (Tag::Fail, false) => '■',
            // Shapes differ by tag so that the graph reads without colour (NO_COLOR).
            (Tag::EventuallyWinnable, false) => '●',
            (Tag::ImplicitlyFailed, false) => '×',
            (Tag::Unknown, false) => '?',
            (Tag::Win, true) => 'W',
            (Tag::Fail, true) => 'F',
            (Tag::EventuallyWinnable, true) => 'o',
            (Tag::ImplicitlyFailed, true) => 'x',
            (Tag::Unknown, true) => '?',
        }
    }
}

/// A short name of a tag for tables and lists.
pub fn tag_short(t: Tag) -> &'static str {
    match t {
        Tag::Win => "win",
        Tag::Fail => "fail",
        Tag::EventuallyWinnable => "e-win",
        Tag::ImplicitlyFailed => "i-fail",
        Tag::Unknown => "unkn",
    }
}

/// The tag's name in words.
pub fn tag_long(t: Tag) -> &'static str {
    match t {
        Tag::Win => "win",
        Tag::Fail => "fail",
        Tag::EventuallyWinnable => "eventually winnable",
        Tag::ImplicitlyFailed => "implicitly failed",
        Tag::Unknown => "unknown",
    }
}
