//! The `hsg` command line: wiring of the library crates, nothing more.
//!
//! Exit codes: 0 success, 1 failure (bad level, corrupt store, I/O error),
//! 2 usage error (clap's own code for a wrong flag or argument, and [`usage::UsageError`]
//! for what clap cannot check alone).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// `println!` that never panics: when standard output is closed early (`hsg info | head`)
/// the process ends quietly, and any other write error ends it with a message.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(err) = writeln!(std::io::stdout(), $($arg)*) {
            $crate::stdout_failed(err);
        }
    }};
}

/// `print!` with the same handling of a closed standard output as [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(err) = write!(std::io::stdout(), $($arg)*) {
            $crate::stdout_failed(err);
        }
    }};
}

mod advice;
mod analyze_cmd;
mod batch_cmd;
mod cluster_cmd;
mod colour;
mod compare_cmd;
mod coverage_cmd;
mod diff_cmd;
mod explore_cmd;
mod export_cmd;
mod features_cmd;
mod first_checkpoint;
mod flags;
mod fling_cmd;
mod html_cmd;
mod live;
mod local_cluster;
mod manual;
mod out_file;
mod path_cmd;
mod progress;
mod puzzlescript_cmd;
mod report;
mod sandbox_cmd;
mod sizes;
mod stored_run;
mod text_file;
mod tui_cmd;
mod usage;
mod weak_cmd;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// hyperstate: explore the state space of a game level and analyse its
/// hyperstate space graph.
#[derive(Parser)]
#[command(name = "hsg", version, about, long_about = None)]
struct Cli {
    /// When to colour: the workbench and the help and error messages (auto: on a
    /// terminal unless NO_COLOR is set).
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t)]
    color: colour::ColourWhen,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Explore a level's complete state space into a store (resumes an
    /// interrupted run on the same store).
    Explore(explore_cmd::ExploreArgs),
    /// Merge the parts of a distributed exploration (`explore --cluster`) into one store,
    /// byte for byte the store a single machine would have written.
    Gather(cluster_cmd::GatherArgs),
    /// Condense a run into its hyperstate space graph and save the analysis in DIR/hsg.
    Analyze(analyze_cmd::AnalyzeArgs),
    /// Print a human summary of a store.
    Info(report::InfoArgs),
    /// Print a report of a store and its analysis (JSON for scripts, Markdown for people).
    Report(report::ReportArgs),
    /// Write the HSG or the SSG as DOT, GraphML, JSON lines or SVG.
    Export(export_cmd::ExportArgs),
    /// Browse the hyperstates of a store in the terminal workbench.
    Tui(tui_cmd::TuiArgs),
    /// Explore a level into its default store (resuming), analyse, and open the workbench.
    Open(tui_cmd::OpenArgs),
    /// Check every block checksum and the structure of a store.
    Verify(report::InfoArgs),
    /// Affordance Sandbox: generate instances, run the evolutionary difficulty experiment.
    Sandbox(sandbox_cmd::SandboxArgs),
    /// Fling! level design: retrograde tables, board analysis, level selection.
    Fling(fling_cmd::FlingArgs),
    /// The weak-equivalence HSG: states equal but for the ignored features are one.
    Weak(weak_cmd::WeakArgs),
    /// Rank the game's features by how much ignoring each shrinks the HSG and changes the game.
    Features(features_cmd::FeaturesArgs),
    /// Compare two games: tree or agency equivalence, or similarity by sampling.
    Compare(compare_cmd::CompareArgs),
    /// Write a game's tree (Algorithm 2 of the game-grammar paper) as a store.
    Tree(compare_cmd::TreeArgs),
    /// Compare a depth-limited run's HSG with the exhaustive run's: merges the limit
    /// prevented, how tags moved, the metrics side by side.
    Diff(diff_cmd::DiffArgs),
    /// A shortest action sequence from the root (or --from) to the nearest win, fail
    /// state, dead state or a given state (LURD for Sokoban).
    Path(path_cmd::PathArgs),
    /// Explain a lost state: the first critical action on the shortest path from the
    /// root after which no win is reachable, with the boards before and after.
    Why(path_cmd::WhyArgs),
    /// Explore and analyse every level of files, folders or level ranges (resumable),
    /// and rank them in table.csv, table.md and index.html.
    Batch(batch_cmd::BatchArgs),
    /// Write one self-contained HTML report of a run and its analysis (plots, the HSG
    /// map, hyperstates with their states, the shortest solution) to mail or open offline.
    Html(html_cmd::HtmlArgs),
    /// PuzzleScript: replay conformance cases, or play inputs on a level.
    Puzzlescript(puzzlescript_cmd::PuzzleScriptArgs),
    /// Print a shell completion script, e.g. `hsg completions bash > /etc/bash_completion.d/hsg`.
    Completions(manual::CompletionsArgs),
    /// Print a manual page in roff, e.g. `hsg man | man -l -` or `hsg man explore`.
    Man(manual::ManArgs),
}

/// Ends the process after a failed write to standard output: quietly (success) when the
/// reader went away, as a pipe into `head` does, otherwise with an error.
fn stdout_failed(err: std::io::Error) -> ! {
    if err.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("hsg: error: cannot write to standard output: {err}");
    std::process::exit(1);
}

/// The error and its causes on one line, leaving out a cause whose text the message
/// already contains (the library errors quote the I/O error they wrap).
fn message(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

/// True when `err` comes from writing into a pipe whose reader has gone.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn main() -> ExitCode {
    let colour = colour::ColourWhen::from_args(std::env::args_os());
    let cli: Cli = stored_run::parse(colour.clap());
    let result = match cli.command {
        // A distributed exploration: one process of a cluster, or a cluster on this machine.
        Command::Explore(args) if args.cluster.is_some() && !args.list => {
            cluster_cmd::run_process(&args)
        }
        Command::Explore(args) if args.local_processes.is_some() && !args.list => {
            local_cluster::run(&args)
        }
        Command::Explore(args) => explore_cmd::run(args),
        Command::Gather(args) => cluster_cmd::gather(args),
        Command::Analyze(args) => analyze_cmd::run(args),
        Command::Info(args) => report::info(args),
        Command::Report(args) => report::report(args),
        Command::Export(args) => export_cmd::run(args),
        Command::Tui(args) => tui_cmd::run(args, cli.color),
        Command::Open(args) => tui_cmd::open(args, cli.color),
        Command::Verify(args) => report::verify(args),
        Command::Sandbox(args) => sandbox_cmd::run(args),
        Command::Fling(args) => fling_cmd::run(args),
        Command::Weak(args) => weak_cmd::run(args),
        Command::Features(args) => features_cmd::run(args),
        Command::Compare(args) => compare_cmd::run(args),
        Command::Tree(args) => compare_cmd::tree(args),
        Command::Diff(args) => diff_cmd::run(args),
        Command::Path(args) => path_cmd::path(args),
        Command::Why(args) => path_cmd::why(args),
        Command::Batch(args) => batch_cmd::run(args),
        Command::Html(args) => html_cmd::run(args),
        Command::Puzzlescript(args) => puzzlescript_cmd::run(args),
        Command::Completions(args) => manual::completions(args, Cli::command()),
        Command::Man(args) => manual::man(args, Cli::command()),
    };
    match result {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            let text = message(&err);
            eprintln!("hsg: error: {text}");
            let args: Vec<String> = std::env::args().collect();
            let command = usage::subcommand(&args);
            let accepts = advice::takes_force_new(&Cli::command(), &command);
            if let Some(line) = advice::force_new_command(&text, accepts) {
                eprintln!("to delete that run and start again:\n  {line}");
            }
            if usage::is_usage(&err) {
                eprintln!("\nFor more information, try 'hsg {command} --help'.");
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_commands_that_take_force_new_are_advised_it() {
        let cli = Cli::command();
        for command in ["explore", "open", "gather", "tree"] {
            assert!(advice::takes_force_new(&cli, command), "{command}");
        }
        for command in ["info", "analyze", "tui", "fling select", "nosuch"] {
            assert!(!advice::takes_force_new(&cli, command), "{command}");
        }
    }
}
