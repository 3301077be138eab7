//! `--color auto|always|never`, global to every command: it decides the colours of
//! clap's help and error messages and of the workbench (`hsg tui`, `hsg open`). `auto`
//! colours a terminal unless `NO_COLOR` is set (to anything but the empty string);
//! `always` colours even then; `never` (or the workbench's older `--no-color`) never.

use std::ffi::OsString;

/// When to colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColourWhen {
    /// On a terminal, unless NO_COLOR is set.
    #[default]
    Auto,
    /// Always, even when NO_COLOR is set.
    Always,
    /// Never.
    Never,
}

impl ColourWhen {
    /// clap's own choice for its help and error messages (its `auto` honours NO_COLOR).
    pub fn clap(self) -> clap::ColorChoice {
        match self {
            ColourWhen::Auto => clap::ColorChoice::Auto,
            ColourWhen::Always => clap::ColorChoice::Always,
            ColourWhen::Never => clap::ColorChoice::Never,
        }
    }

    /// The choice on a command line, read before clap parses it, so that clap's own
    /// messages (a wrong flag, `--help`) follow it too. A missing or wrong value is
    /// `auto` here; clap then reports a wrong one.
    pub fn from_args(args: impl IntoIterator<Item = OsString>) -> ColourWhen {
        let mut choice = ColourWhen::Auto;
        let mut args = args.into_iter().skip(1);
        while let Some(arg) = args.next() {
            let arg = arg.to_string_lossy().into_owned();
            let value = if arg == "--" {
                break;
            } else if arg == "--color" {
                args.next().map(|v| v.to_string_lossy().into_owned())
            } else {
                arg.strip_prefix("--color=").map(str::to_string)
            };
            if let Some(value) = value {
                choice =
                    <ColourWhen as clap::ValueEnum>::from_str(&value, true).unwrap_or_default();
            }
        }
        choice
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(args: &[&str]) -> ColourWhen {
        ColourWhen::from_args(args.iter().map(OsString::from))
    }

    #[test]
    fn the_last_color_flag_wins_and_nothing_past_a_double_dash_counts() {
        assert_eq!(read(&["hsg", "tui", "d"]), ColourWhen::Auto);
        assert_eq!(read(&["hsg", "--color", "never", "tui"]), ColourWhen::Never);
        assert_eq!(read(&["hsg", "tui", "--color=always"]), ColourWhen::Always);
        assert_eq!(read(&["hsg", "tui", "--color=purple"]), ColourWhen::Auto);
        assert_eq!(read(&["hsg", "x", "--", "--color=never"]), ColourWhen::Auto);
    }
}
