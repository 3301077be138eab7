//! `hsg puzzlescript`: the PuzzleScript engine's own tools. `conformance`
//! replays a file of cases in the format of the reference's test suite and
//! says which fail; `play` replays inputs on a level and prints the final
//! level in the reference's text form, to compare with the reference by hand.

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use puzzlescript::conformance::{self, CaseResult};
use puzzlescript::{Input, Session};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `hsg puzzlescript`.
#[derive(Args, Debug)]
pub struct PuzzleScriptArgs {
    #[command(subcommand)]
    command: PuzzleScriptCommand,
}

#[derive(Subcommand, Debug)]
enum PuzzleScriptCommand {
    /// Replay every case of a JSON-lines file (the shared `testdata.jsonl` format): print
    /// one line per failing case and `N passed, M failed`; exit 1 if any failed.
    Conformance(ConformanceArgs),
    /// Replay inputs on a level and print the final board (with `--text-form`, the
    /// reference's text form that conformance cases expect).
    Play(PlayArgs),
}

/// Arguments of `hsg puzzlescript conformance`.
#[derive(Args, Debug)]
struct ConformanceArgs {
    /// The cases, one JSON object a line.
    cases: PathBuf,
    /// Print a JSON object: `cases` (each `{name, passed}`), `passed` and `failed`.
    #[arg(long)]
    json: bool,
}

/// Arguments of `hsg puzzlescript play`.
#[derive(Args, Debug)]
struct PlayArgs {
    /// The game file.
    file: PathBuf,
    /// The playable level, counted from 1 with message levels skipped.
    #[arg(long, default_value_t = 1)]
    level: usize,
    /// Comma-separated inputs: 0 up, 1 left, 2 down, 3 right, 4 action (or those
    /// names), undo, restart, tick.
    #[arg(long, default_value = "")]
    inputs: String,
    /// The random seed given to the level's generator, as the reference takes it.
    #[arg(long)]
    seed: Option<String>,
    /// Print the level in the reference's text form (the `expected` of a conformance
    /// case) instead of the board.
    #[arg(long)]
    text_form: bool,
}

/// Runs `hsg puzzlescript`.
pub fn run(args: PuzzleScriptArgs) -> Result<ExitCode> {
    match args.command {
        PuzzleScriptCommand::Conformance(a) => run_conformance(&a),
        PuzzleScriptCommand::Play(a) => play(&a),
    }
}

fn run_conformance(args: &ConformanceArgs) -> Result<ExitCode> {
    let report = conformance::run_file(&args.cases)?;
    let (passed, failed) = (report.passed(), report.failed());
    if args.json {
        let cases: Vec<_> = report
            .cases
            .iter()
            .map(|c| json!({"name": c.name, "passed": c.passed}))
            .collect();
        let out = json!({"cases": cases, "passed": passed, "failed": failed});
        outln!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        for case in report.cases.iter().filter(|c| !c.passed) {
            outln!("FAIL {}", failure(case));
        }
        outln!("{passed} passed, {failed} failed");
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A failing case in one line: its name and where it first differs, or why
/// it could not run.
fn failure(case: &CaseResult) -> String {
    match (&case.error, case.first_difference) {
        (Some(error), _) => format!("{}: {error}", case.name),
        (None, Some((line, cell))) => {
            format!(
                "{}: first difference at text line {line}, cell {cell}",
                case.name
            )
        }
        (None, None) => case.name.clone(),
    }
}

fn play(args: &PlayArgs) -> Result<ExitCode> {
    let path = &args.file;
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read game file {}", path.display()))?;
    let game = puzzlescript::compile(&path.display().to_string(), &text)?;
    let index = level_index(&game, path, args.level)?;
    let inputs = parse_inputs(&args.inputs)?;
    let mut session = Session::new(&game, index, args.seed.as_deref())?;
    for input in inputs {
        session.input(input);
        if let Some(overrun) = session.fault() {
            anyhow::bail!("{}:{overrun}", path.display());
        }
    }
    if args.text_form {
        out!("{}", session.text_form());
    } else {
        out!("{}", session.board_text());
    }
    Ok(ExitCode::SUCCESS)
}

/// The LEVELS entry of playable level `number` (from 1).
fn level_index(game: &puzzlescript::Compiled, path: &Path, number: usize) -> Result<usize> {
    let levels = puzzlescript::list_levels(game);
    match levels.iter().find(|l| l.number == number) {
        Some(l) => Ok(l.index),
        None => Err(crate::usage::usage(format!(
            "{}: there is no playable level {number}: the game has {} level(s), numbered from 1",
            path.display(),
            levels.len()
        ))),
    }
}

fn parse_inputs(list: &str) -> Result<Vec<Input>> {
    list.split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(|w| {
            Input::parse(w).ok_or_else(|| {
                crate::usage::usage(format!(
                    "unknown input {w:?} (0-4, up, left, down, right, action, undo, restart, tick)"
                ))
            })
        })
        .collect()
}
