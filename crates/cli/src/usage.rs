//! Usage errors found after the command line was parsed (arguments that clap cannot
//! check alone: two runs given in the wrong order, a level number the file does not
//! have, a target outcome the run does not know), so that every usage error ends with
//! exit code 2, as clap's own do, and every other failure with 1.

use std::fmt;

/// A command line that asks for something impossible; `hsg` exits with code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// A usage error, as an `anyhow` error that `main` turns into exit code 2.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}

/// True when `err` is a usage error: a [`UsageError`] anywhere in its chain, or an error
/// of the libraries that is one in substance (a level number or title the file does
/// not have, a target outcome the run does not name, a memory budget too small to
/// start, impossible solver parameters).
pub fn is_usage(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.is::<UsageError>()
            || matches!(
                cause.downcast_ref::<explore::ExploreError>(),
                Some(explore::ExploreError::BudgetTooSmall { .. })
            )
            || matches!(
                cause.downcast_ref::<games::GamesError>(),
                Some(
                    games::GamesError::NoSuchIndex { .. }
                        | games::GamesError::NoSuchTitle { .. }
                        | games::GamesError::TooManyTokens { .. }
                )
            )
            || matches!(
                cause.downcast_ref::<hsg::HsgError>(),
                Some(hsg::HsgError::UnknownOutcome { .. })
            )
            || matches!(
                cause.downcast_ref::<cluster::ClusterError>(),
                Some(cluster::ClusterError::Unsupported(_))
            )
            || matches!(
                cause.downcast_ref::<evolve::EvolveError>(),
                Some(evolve::EvolveError::Params(_))
            )
    })
}

/// The subcommand of a command line (`diff`, `fling select`), for the hint under a
/// usage error: the first argument, and the second too after a command that has
/// subcommands of its own.
pub fn subcommand(args: &[String]) -> String {
    // The value of the global `--color WHEN` is not a word of the command.
    let values: Vec<usize> = (1..args.len())
        .filter(|&i| args[i - 1] == "--color")
        .collect();
    let mut words = args
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(i, a)| !a.starts_with('-') && !values.contains(i))
        .map(|(_, a)| a);
    let first = words.next().cloned().unwrap_or_default();
    match (first.as_str(), words.next()) {
        ("fling" | "sandbox" | "puzzlescript", Some(second)) => format!("{first} {second}"),
        _ => first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context as _;

    #[test]
    fn usage_errors_are_found_through_context() {
        let err = Err::<(), _>(usage("swapped"))
            .context("while comparing")
            .unwrap_err();
        assert!(is_usage(&err));
        assert!(!is_usage(&anyhow::anyhow!("disk full")));
        let budget = anyhow::Error::new(explore::ExploreError::BudgetTooSmall {
            budget: 1024,
            needed: 1 << 20,
        });
        assert!(is_usage(&budget));
    }

    #[test]
    fn the_hint_names_nested_subcommands() {
        let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(subcommand(&args(&["hsg", "diff", "a", "b"])), "diff");
        assert_eq!(
            subcommand(&args(&["hsg", "--color", "never", "diff", "a", "b"])),
            "diff"
        );
        assert_eq!(
            subcommand(&args(&["hsg", "fling", "select", "--pieces", "3"])),
            "fling select"
        );
    }
}
