//! `hsg tui` (the workbench on a store) and `hsg open` (explore a level into its
//! default store, resuming if it exists, analyse, then open the workbench).

use crate::analyze_cmd::{ensure_saved, AnalysisFlags};
use crate::colour::ColourWhen;
use crate::explore_cmd::{self, ExploreArgs, Explored, LevelArgs};
use crate::sizes::parse_size;
use anyhow::{bail, Result};
use clap::Args;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use store::{Run, RunStatus};

/// How the workbench draws.
#[derive(Args, Debug, Clone, Copy)]
pub struct DrawFlags {
    /// Plain ASCII instead of Unicode borders, braille and symbols.
    #[arg(long)]
    pub ascii: bool,
    /// No colour: the same as --color never (colour is also off when the NO_COLOR
    /// environment variable is set, unless --color always is given).
    #[arg(long = "no-color")]
    pub no_colour: bool,
}

impl DrawFlags {
    fn options(self, colour: ColourWhen) -> tui::TuiOptions {
        tui::TuiOptions {
            ascii: self.ascii,
            no_colour: self.no_colour || colour == ColourWhen::Never,
            force_colour: !self.no_colour && colour == ColourWhen::Always,
        }
    }
}

/// Arguments of `hsg tui`.
#[derive(Args, Debug)]
pub struct TuiArgs {
    /// The run directory (finished, partial, or being explored by another process).
    /// Without it, `--demo` opens a small built-in level.
    #[arg(required_unless_present = "demo")]
    pub dir: Option<PathBuf>,
    /// Open the built-in demo level (explored in memory) to try the keys.
    #[arg(long, conflicts_with = "dir")]
    pub demo: bool,
    #[command(flatten)]
    pub draw: DrawFlags,
}

/// Arguments of `hsg open`.
#[derive(Args, Debug)]
pub struct OpenArgs {
    #[command(flatten)]
    pub which: LevelArgs,
    /// The run directory (default: runs/NAME beside the current directory, where NAME
    /// is the level file's name and the level's number or title).
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Memory budget of the exploration, e.g. 800M or 4G.
    #[arg(long, value_parser = parse_size)]
    pub mem: Option<u64>,
    /// Worker threads of the exploration, 1 to 1024 (default: every core).
    #[arg(long, value_parser = crate::flags::threads)]
    pub threads: Option<usize>,
    /// Delete the store's previous run (of another level, or of this level before its
    /// file was edited) and explore afresh.
    #[arg(long)]
    pub force_new: bool,
    #[command(flatten)]
    pub analysis: AnalysisFlags,
    #[command(flatten)]
    pub draw: DrawFlags,
}

/// Refuses to start the workbench when standard output is not a terminal (a pipe, a
/// file, a job without one), before any work: it draws there and reads keys from it.
///
/// Regression: `hsg tui DIR | cat` and a cron job failed with the operating system's
/// `terminal: No such device or address`, which says nothing of what is needed.
fn require_terminal(command: &str) -> Result<()> {
    if std::io::stdout().is_terminal() {
        return Ok(());
    }
    bail!(
        "`hsg {command}` opens the workbench, which needs a terminal, and standard output \
         is not one; run it in a terminal (for a file, use `hsg report`, `hsg html` or \
         `hsg export`)"
    )
}

/// Runs `hsg tui`.
pub fn run(args: TuiArgs, colour: ColourWhen) -> Result<ExitCode> {
    match &args.dir {
        Some(dir) => {
            // Fail here, with the store's own message, rather than inside the workbench.
            // Only the manifest is read: opening the store checks every row (about a
            // second on room4), which the workbench's loader does behind its first frame.
            if !dir.join(store::layout::MANIFEST).is_file() {
                bail!(
                    "{}: not a hyperstate store (no MANIFEST file)",
                    dir.display()
                );
            }
            // Before its first checkpoint a run has nothing to show: wait for it.
            crate::first_checkpoint::wait_for_first(dir, crate::first_checkpoint::WAIT)?;
            require_terminal("tui")?;
            tui::run(dir, args.draw.options(colour))?;
        }
        None => {
            require_terminal("tui")?;
            tui::run_demo(None, args.draw.options(colour))?
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `hsg open`.
pub fn open(args: OpenArgs, colour: ColourWhen) -> Result<ExitCode> {
    // A wrong level file or number is said first; then, before any exploring, that
    // the workbench will need a terminal.
    let w = &args.which;
    explore_cmd::load_level(&w.level_file, w.level, w.title.as_deref())?;
    require_terminal("open")?;
    let store = match &args.store {
        Some(dir) => dir.clone(),
        None => {
            let w = &args.which;
            default_store(&w.level_file, w.level, w.title.as_deref())?
        }
    };
    let mut explore = ExploreArgs::new(args.which.clone(), store.clone());
    explore.mem = args.mem;
    explore.threads = args.threads;
    explore.force_new = args.force_new;
    eprintln!("store: {}", store.display());
    if explore_cmd::explore(&explore)? == Explored::Interrupted {
        return Ok(ExitCode::from(130));
    }
    // Headers, lengths and structure only: on a finished store this path runs at
    // every `hsg open`, and a cold checksum pass over room4 takes about 47 s before
    // the workbench could appear (`hsg verify` checks the checksums).
    let run = Run::open_unverified(&store)?;
    if run.status() == RunStatus::Running {
        // The status alone does not tell a live run from a killed one: the lock does.
        match store::layout::lock_holder(&store)? {
            Some(pid) => bail!(
                "{} is being explored by another process (pid {pid}); open it with `hsg tui {}`",
                store.display(),
                crate::advice::shell_path(&store)
            ),
            None => bail!(
                "{} is unfinished and no process is exploring it; resume it with `hsg explore --store {}`",
                store.display(),
                crate::advice::shell_path(&store)
            ),
        }
    }
    ensure_saved(&run, &args.analysis)?;
    drop(run);
    tui::run(&store, args.draw.options(colour))?;
    Ok(ExitCode::SUCCESS)
}

/// `runs/NAME`, where NAME is the level file's stem and, when a level was chosen, its
/// number or title: the same level always maps to the same store, so `hsg open`
/// resumes, and different levels of one file never share a store.
pub fn default_store(
    level_file: &Path,
    level: Option<usize>,
    title: Option<&str>,
) -> Result<PathBuf> {
    let Some(stem) = level_file.file_stem().and_then(|s| s.to_str()) else {
        bail!(
            "{}: cannot name a store after this file; pass --store DIR",
            level_file.display()
        );
    };
    let mut name = slug(stem);
    match (level, title) {
        (Some(n), _) => name.push_str(&format!("-{n}")),
        (None, Some(t)) => {
            name.push('-');
            name.push_str(&slug(t));
        }
        (None, None) => {}
    }
    Ok(PathBuf::from("runs").join(name))
}

/// Letters, digits, `-` and `_` kept; anything else becomes `-` (run folder names).
pub(crate) fn slug(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_stores_differ_per_level_and_are_stable() {
        let file = Path::new("levels/sokoban/small-set.sok");
        let first = default_store(file, None, None).unwrap();
        assert_eq!(first, Path::new("runs/small-set"));
        assert_eq!(
            default_store(file, Some(2), None).unwrap(),
            Path::new("runs/small-set-2")
        );
        assert_eq!(
            default_store(file, None, Some("Two boxes / hard")).unwrap(),
            Path::new("runs/small-set-Two-boxes---hard")
        );
    }
}
