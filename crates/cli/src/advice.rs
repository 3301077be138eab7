//! Commands printed as advice: the exact command line to run next, quoted for a POSIX
//! shell, so that every piece of advice `hsg` prints is a command that works when it is
//! pasted (tests/advice.rs runs each one).

use std::ffi::OsString;

/// `text` as one shell word: unchanged when it holds only characters no shell treats
/// specially, otherwise in single quotes (a quote inside becomes `'\''`).
pub fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// A path as one shell word.
pub fn shell_path(path: &std::path::Path) -> String {
    shell_word(&path.to_string_lossy())
}

/// `args` (the program first) as one shell line.
fn command_of(args: impl IntoIterator<Item = OsString>) -> String {
    args.into_iter()
        .map(|a| shell_word(&a.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// When `message` advises `--force-new`, this command accepts it (`accepts`) and its
/// command line lacks it: the command line with `--force-new` added, to print under the
/// error as the command that follows the advice (`hsg open` and `hsg explore` on an
/// edited level, a damaged finished run). A command without the flag (`hsg info` on a
/// store of an old format) gets no such line: it would be a dead end.
pub fn force_new_command(message: &str, accepts: bool) -> Option<String> {
    if !accepts {
        return None;
    }
    with_force_new(message, std::env::args_os().collect())
}

/// True when the command `words` (`explore`, `fling select`) of `cli` takes --force-new.
pub fn takes_force_new(cli: &clap::Command, words: &str) -> bool {
    let mut command = cli.clone();
    for word in words.split_whitespace() {
        command.build();
        match command.find_subcommand(word) {
            Some(sub) => command = sub.clone(),
            None => return false,
        }
    }
    let takes = command
        .get_arguments()
        .any(|a| a.get_long() == Some("force-new"));
    takes
}

fn with_force_new(message: &str, args: Vec<OsString>) -> Option<String> {
    if !message.contains("--force-new") || args.iter().any(|a| a == "--force-new") {
        return None;
    }
    let mut args = args;
    args.push("--force-new".into());
    Some(command_of(args))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_a_shell_would_split_or_expand_them() {
        assert_eq!(shell_word("runs/room3"), "runs/room3");
        assert_eq!(shell_word("--level=2"), "--level=2");
        assert_eq!(shell_word("my runs/a b"), "'my runs/a b'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn force_new_is_added_once_and_only_when_advised() {
        let args = |list: &[&str]| list.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            with_force_new(
                "x holds another run: level; use --force-new to replace it",
                args(&["hsg", "open", "a b.xsb"])
            )
            .as_deref(),
            Some("hsg open 'a b.xsb' --force-new")
        );
        assert_eq!(
            with_force_new("use --force-new", args(&["hsg", "open", "--force-new"])),
            None
        );
        assert_eq!(
            with_force_new("disk full", args(&["hsg", "open", "x"])),
            None
        );
    }
}
