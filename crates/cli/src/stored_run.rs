//! `hsg explore --store DIR` without a level file: the run that DIR holds, resumed from
//! what its manifest records (the game kind, the level's canonical text and the options
//! that make the run what it is), and the one spelling of that command that every piece
//! of advice about resuming prints.

use crate::advice::shell_word;
use anyhow::{bail, Context, Result};
use clap::{CommandFactory, FromArgMatches};
use std::path::{Path, PathBuf};

/// Parses the command line. `explore`'s level file may be left out (it is then empty):
/// the store named by `--store` says which level it explores.
pub fn parse<C: CommandFactory + FromArgMatches>(colour: clap::ColorChoice) -> C {
    let command = C::command()
        .color(colour)
        .mut_subcommand("explore", |explore| {
            explore.mut_arg("level_file", |arg| {
                arg.required(false)
                    .value_parser(|text: &str| Ok::<PathBuf, String>(PathBuf::from(text)))
                    .default_value("")
                    .hide_default_value(true)
            })
        });
    let matches = command.get_matches();
    C::from_arg_matches(&matches).unwrap_or_else(|err| err.exit())
}

/// The command that resumes the run in `dir`: `hsg explore --store DIR`, the program
/// named as this process was, with DIR quoted for a POSIX shell when it needs it.
pub fn resume_command(dir: &Path) -> String {
    format!(
        "{} explore --store {}",
        program(),
        shell_word(&dir.display().to_string())
    )
}

/// This process's command line as a command that resumes its run: every argument
/// quoted for a POSIX shell, and `--force-new` left out (run again, it would delete
/// what is to be resumed).
pub fn this_command_resumed() -> String {
    let mut words = vec![program()];
    words.extend(
        std::env::args_os()
            .skip(1)
            .map(|arg| arg.to_string_lossy().into_owned())
            .filter(|arg| arg != "--force-new")
            .map(|arg| shell_word(&arg)),
    );
    words.join(" ")
}

/// The program as this process was started (`hsg` when it cannot tell).
fn program() -> String {
    std::env::args_os()
        .next()
        .map_or("hsg".to_string(), |p| shell_word(&p.to_string_lossy()))
}

/// The level of the run in `dir`, rebuilt from its manifest (without its token flips,
/// which the exploration adds from `--flip-tokens` as for a level file).
pub fn stored_level(dir: &Path) -> Result<games::Level> {
    let id = identity_in(dir)?;
    let no_options = Default::default();
    let game = games::reload(&id.game, &id.level_text, &no_options)
        .with_context(|| format!("cannot rebuild the level of the run in {}", dir.display()))?;
    Ok(games::Level {
        game,
        title: id.level_title,
        text: id.level_text,
        index: 1,
        count: 1,
    })
}

/// The identity the manifest of `dir` records.
pub(crate) fn identity_in(dir: &Path) -> Result<store::RunIdentity> {
    if !dir.join(store::layout::MANIFEST).exists() {
        bail!(
            "{} holds no run to resume (no {}); name a level file to explore: \
             hsg explore LEVEL --store {}",
            dir.display(),
            store::layout::MANIFEST,
            shell_word(&dir.display().to_string())
        );
    }
    Ok(store::Manifest::read(dir)?.identity)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_a_shell_needs_it() {
        assert_eq!(shell_word("/tmp/run-1"), "/tmp/run-1");
        assert_eq!(shell_word("my runs/it's"), r"'my runs/it'\''s'");
        assert_eq!(shell_word(""), "''");
        assert!(resume_command(Path::new("a b")).ends_with(" explore --store 'a b'"));
    }
}
