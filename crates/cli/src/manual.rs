//! `hsg completions SHELL` and `hsg man [COMMAND]`: shell completion scripts and
//! manual pages generated from the command line's own clap definitions, so they never
//! disagree with `hsg --help`.

use anyhow::{Context, Result};
use clap::Args;
use std::process::ExitCode;

/// Arguments of `hsg completions`.
#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `hsg man`.
#[derive(Args, Debug)]
pub struct ManArgs {
    /// A command (`explore`, or `fling select` as `fling select`) whose page to print
    /// instead of hsg's own, which lists every command.
    #[arg(value_name = "COMMAND", num_args = 0..=2)]
    pub command: Vec<String>,
}

/// Prints the completion script of `cli` for `args.shell`.
pub fn completions(args: CompletionsArgs, mut cli: clap::Command) -> Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cli, "hsg", &mut script);
    write_out(&script)
}

/// Prints the manual page of `cli` or of one of its commands.
pub fn man(args: ManArgs, cli: clap::Command) -> Result<ExitCode> {
    let mut page = cli;
    let mut name = String::from("hsg");
    for word in &args.command {
        page.build();
        let Some(sub) = page.find_subcommand(word).cloned() else {
            return Err(crate::usage::usage(format!(
                "`{name} {word}` is not a command; `hsg --help` lists them"
            )));
        };
        name = format!("{name}-{word}");
        page = sub.name(name.clone());
    }
    let mut roff = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut roff)
        .context("cannot render the manual page")?;
    write_out(&roff)
}

fn write_out(bytes: &[u8]) -> Result<ExitCode> {
    use std::io::Write as _;
    if let Err(err) = std::io::stdout().write_all(bytes) {
        crate::stdout_failed(err);
    }
    Ok(ExitCode::SUCCESS)
}
