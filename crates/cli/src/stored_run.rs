//! `hsg explore --store DIR` without a level file: the run that DIR holds, resumed from
//! what its manifest records (the game kind, the level's canonical text and the options
//! that make the run what it is), and the one spelling of that command that every piece
//! of advice about resuming prints.

use crate::explore_cmd::ExploreArgs;
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

/// True when `explore` was given no level file.
pub fn is_stored(args: &ExploreArgs) -> bool {
    args.which.level_file.as_os_str().is_empty()
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

/// `text` as one word of a POSIX shell: as it is when it holds only safe characters,
/// else in single quotes (a single quote inside written `'\''`).
fn shell_word(text: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c);
    if !text.is_empty() && text.chars().all(safe) {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Fills in what the run in `--store` records and the command line left out: the
/// options of the run's identity (`max_depth`, `max_states`, `hsg_depth` and the
/// token-flip count). Options given on the command line win; a different value then
/// makes another run, which the store refuses unless `--force-new` is given.
pub fn fill_from_store(args: &mut ExploreArgs) -> Result<()> {
    if args.list {
        bail!("--list needs a level file");
    }
    if args.which.level.is_some() || args.which.title.is_some() {
        bail!("--level and --title choose a level of a level file: name the file");
    }
    let dir = args
        .store
        .clone()
        .context("--store DIR is required to explore")?;
    let id = identity_in(&dir)?;
    for (key, value) in &id.options {
        let number = |what: &str| -> Result<u64> {
            value.parse().with_context(|| {
                format!(
                    "{}: the run's option {what}={value} is not a whole number",
                    dir.display()
                )
            })
        };
        match key.as_str() {
            "max_depth" => {
                let stored = u32::try_from(number(key)?)?;
                args.max_depth.get_or_insert(stored);
            }
            "max_states" => {
                let stored = number(key)?;
                args.max_states.get_or_insert(stored);
            }
            "hsg_depth" => {
                let stored = u32::try_from(number(key)?)?;
                args.hsg_depth.get_or_insert(stored);
            }
            k if k == games::flip::OPTION => {
                let stored = u32::try_from(number(key)?)?;
                args.flip_tokens.get_or_insert(stored);
            }
            other => bail!(
                "{}: the run has the option {other}={value}, which this version does not know; \
                 name the level file and the options to explore it",
                dir.display()
            ),
        }
    }
    Ok(())
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
fn identity_in(dir: &Path) -> Result<store::RunIdentity> {
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
