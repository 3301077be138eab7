//! The `hsg` command line: wiring of the library crates, nothing more.
//!
//! Exit codes: 0 success, 1 failure (bad level, corrupt store, I/O error),
//! 2 usage error (clap's own code for a wrong flag or argument).

mod explore_cmd;
mod report;
mod sizes;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// hyperstate: explore the state space of a game level and analyse its
/// hyperstate space graph.
#[derive(Parser)]
#[command(name = "hsg", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Explore a level's complete state space into a store (resumes an
    /// interrupted run on the same store).
    Explore(explore_cmd::ExploreArgs),
    /// Print a human summary of a store.
    Info(report::InfoArgs),
    /// Print a machine-readable report of a store.
    Report(report::ReportArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Explore(args) => explore_cmd::run(args),
        Command::Info(args) => report::info(args),
        Command::Report(args) => report::report(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("hsg: error: {err:#}");
            ExitCode::from(1)
        }
    }
}
