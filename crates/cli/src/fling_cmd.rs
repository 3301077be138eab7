//! `hsg fling`: Fling! level design. `tables` builds the retrograde tables of
//! every board of up to K pieces, `board` analyses one board, `select` picks
//! the uniquely solvable boards an expert solves far faster than a novice.

use crate::explore_cmd::{load_level, LevelArgs};
use crate::progress::Progress;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use fling::{Analysis, Tables};
use games::fling::{action_label, hog2_file, Board, WIDTH};
use model::numbers::grouped;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

/// Arguments of `hsg fling`.
#[derive(Args, Debug)]
pub struct FlingArgs {
    #[command(subcommand)]
    command: FlingCommand,
}

#[derive(Subcommand, Debug)]
enum FlingCommand {
    /// Build (or resume) the retrograde tables of every board of 2..K pieces (above
    /// --full-tables, the lists of the uniquely solvable boards).
    Tables(TablesArgs),
    /// Analyse one board: solvability, search sizes, symmetry, solvable edits.
    Board(BoardArgs),
    /// Write the best uniquely solvable boards of K pieces as a HOG2 level file.
    Select(SelectArgs),
}

/// Arguments of `hsg fling tables`.
#[derive(Args, Debug)]
struct TablesArgs {
    /// The largest piece count to cover (2 to 14; 9 takes minutes).
    #[arg(long, value_parser = crate::flags::fling_pieces)]
    max_pieces: usize,
    /// The tables directory (created if missing; finished piece counts are kept).
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    full: FullTables,
    /// Worker threads (default: every core). The tables do not depend on it.
    #[arg(long, value_parser = crate::flags::threads)]
    threads: Option<usize>,
}

/// How far the full tables go; above, the uniquely solvable boards are listed.
#[derive(Args, Debug)]
struct FullTables {
    /// Tabulate every board up to this many pieces (default: --max-pieces); the (at
    /// most two) piece counts above get a list of their uniquely solvable boards only,
    /// found from the count below in minutes. Their solvable boards are not counted.
    #[arg(long, value_parser = crate::flags::fling_pieces)]
    full_tables: Option<usize>,
}

impl FullTables {
    /// The full tables' piece count for a build up to `max_pieces`.
    fn pieces(&self, max_pieces: usize) -> usize {
        self.full_tables.unwrap_or(max_pieces).min(max_pieces)
    }
}

/// Arguments of `hsg fling board`. Its level file holds Fling! boards only, so its help
/// says so rather than listing every format `hsg explore` reads.
#[derive(Args, Debug)]
#[command(mut_arg("level_file", |arg| arg.help(
    "The Fling! level file: HOG2 (`Hash:` lines, boards separated by `----`) or plain boards \
     of 8 rows of 7 `o` and `.`; several boards per file allowed (levels/fling has examples)"
)))]
struct BoardArgs {
    #[command(flatten)]
    which: LevelArgs,
    /// Tables to answer solvability from (default: a direct search).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Arguments of `hsg fling select`.
#[derive(Args, Debug)]
struct SelectArgs {
    /// Pieces on the selected boards.
    #[arg(long, value_parser = crate::flags::fling_pieces)]
    pieces: usize,
    /// How many boards to write.
    #[arg(long, default_value_t = 50, value_parser = crate::flags::count)]
    top: usize,
    /// The tables directory; missing piece counts up to --pieces are built there first.
    #[arg(long, default_value = "fling-tables")]
    tables: PathBuf,
    /// The HOG2 level file to write.
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
    #[command(flatten)]
    full: FullTables,
    /// Worker threads (default: every core).
    #[arg(long, value_parser = crate::flags::threads)]
    threads: Option<usize>,
}

/// Runs `hsg fling`.
pub fn run(args: FlingArgs) -> Result<ExitCode> {
    match args.command {
        FlingCommand::Tables(a) => tables(a),
        FlingCommand::Board(a) => board(a),
        FlingCommand::Select(a) => select(a),
    }
    .map(|()| ExitCode::SUCCESS)
}

fn threads(asked: Option<usize>) -> usize {
    asked
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// What a build did with one piece count: a full table or a list.
enum Built {
    Table(fling::Built),
    List(fling::BuiltList),
}

/// Builds or resumes the full tables up to `full` pieces in `dir` and the lists up to
/// `max_pieces` above them, with a progress report per piece count (a bar on a terminal,
/// lines otherwise: a 9-piece build takes minutes).
fn build_tables(dir: &Path, max_pieces: usize, full: usize, threads: usize) -> Result<Vec<Built>> {
    let current: Mutex<Option<(usize, Progress)>> = Mutex::new(None);
    let progress = |p: fling::Progress| {
        let Ok(mut slot) = current.lock() else { return };
        if slot.as_ref().map(|(k, _)| *k) != Some(p.pieces) {
            if let Some((_, old)) = slot.take() {
                old.finish();
            }
            let what = if p.pieces > full {
                format!(
                    "uniquely solvable {}-piece boards (from those below)",
                    p.pieces
                )
            } else {
                format!("tables of {} pieces", p.pieces)
            };
            *slot = Some((p.pieces, Progress::counted(p.total, what)));
        }
        if let Some((_, report)) = slot.as_ref() {
            report.set(p.done);
        }
    };
    fling::check_reach(full, max_pieces)?;
    let context = || format!("cannot build the Fling! tables in {}", dir.display());
    // The tables hold each mirror class's bits at its canonical board (a quarter
    // of the work, no copies) unless lists are built above them, which read every board.
    let layout = if max_pieces > full {
        fling::Layout::Full
    } else {
        fling::Layout::Canonical
    };
    let mut built: Vec<Built> = fling::build_with_layout(dir, full, threads, layout, &progress)
        .with_context(context)?
        .into_iter()
        .map(Built::Table)
        .collect();
    if max_pieces > full {
        let lists =
            fling::build_lists(dir, full, max_pieces, threads, &progress).with_context(context)?;
        built.extend(lists.into_iter().map(Built::List));
    }
    if let Ok(Some((_, report))) = current.into_inner() {
        report.finish();
    }
    Ok(built)
}

fn tables(args: TablesArgs) -> Result<()> {
    let full = args.full.pieces(args.max_pieces);
    let built = build_tables(&args.out, args.max_pieces, full, threads(args.threads))?;
    outln!(
        "pieces  boards            with a move       solvable          uniquely solvable  seconds"
    );
    for b in built {
        let (pieces, boards, with_move, solvable, unique, millis, kept) = match b {
            Built::Table(t) => {
                let s = t.stats;
                let (m, v) = (grouped(s.with_move), grouped(s.solvable));
                (s.pieces, s.boards, m, v, s.unique, s.millis, t.kept)
            }
            Built::List(l) => {
                let s = l.stats;
                let none = "(not counted)".to_string();
                (
                    s.pieces,
                    s.boards,
                    none.clone(),
                    none,
                    s.unique,
                    s.millis,
                    l.kept,
                )
            }
        };
        outln!(
            "{:>6}  {:>16}  {:>16}  {:>16}  {:>17}  {:>8.1}{}",
            pieces,
            grouped(boards),
            with_move,
            solvable,
            grouped(unique),
            millis as f64 / 1000.0,
            if kept { " (kept)" } else { "" }
        );
    }
    if args.max_pieces > full {
        outln!(
            "above {full} pieces only the uniquely solvable boards are listed \
             (without --full-tables every board is tabulated, more slowly)"
        );
    } else {
        outln!("the tables hold each mirror class's bits at its canonical board");
    }
    outln!("tables in {}", args.out.display());
    Ok(())
}

fn board(args: BoardArgs) -> Result<()> {
    let path = &args.which.level_file;
    let level = load_level(path, args.which.level, args.which.title.as_deref())?;
    if level.game.kind() != "fling" {
        bail!(
            "{}: not a Fling! board (the file was read as {})",
            path.display(),
            level.game.kind()
        );
    }
    let board = games::fling::parse(&path.display().to_string(), &level.text)?
        .first()
        .map(|raw| raw.board)
        .with_context(|| format!("{}: no Fling! board", path.display()))?;
    let tables = match &args.tables {
        Some(dir) => Some(
            Tables::open(dir)
                .with_context(|| format!("cannot open the tables in {}", dir.display()))?,
        ),
        None => None,
    };
    let analysis = fling::analyze(board, tables.as_ref());
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&analysis_json(&level.title, &analysis))?
        );
    } else {
        print_analysis(&level.title, &analysis);
    }
    Ok(())
}

fn cell_name(cell: usize) -> String {
    format!("{},{}", cell % WIDTH, cell / WIDTH)
}

fn edits(analysis: &Analysis) -> Vec<String> {
    analysis
        .solvable_edits
        .iter()
        .map(|e| {
            format!(
                "{} {}",
                if e.add { "add" } else { "remove" },
                cell_name(e.cell)
            )
        })
        .collect()
}

fn analysis_json(title: &str, a: &Analysis) -> serde_json::Value {
    serde_json::json!({
        "title": title,
        "hash": a.board.mask(),
        "pieces": a.board.pieces(),
        "solvable": a.solvable,
        "uniquely_solvable": a.unique,
        "moves": a.moves.iter().map(|&m| action_label(m)).collect::<Vec<_>>(),
        "solving_moves": a.solving_moves.iter().map(|&m| action_label(m)).collect::<Vec<_>>(),
        "plain_search": a.plain_size,
        "pruned_search": a.pruned_size,
        "ratio": a.ratio(),
        "canonical_hash": a.canonical.mask(),
        "is_canonical": a.canonical == a.board,
        "solvable_edits": edits(a),
    })
}

fn print_analysis(title: &str, a: &Analysis) {
    let yes = |b: bool| if b { "yes" } else { "no" };
    outln!(
        "{title}: {} pieces, hash {}",
        a.board.pieces(),
        a.board.mask()
    );
    out!("{}", a.board.rows());
    outln!("solvable: {}", yes(a.solvable));
    outln!("uniquely solvable: {}", yes(a.unique));
    let solving: Vec<String> = a.solving_moves.iter().map(|&m| action_label(m)).collect();
    outln!(
        "moves: {} legal, {} lead to a solution: {}",
        a.moves.len(),
        solving.len(),
        solving.join("; ")
    );
    outln!(
        "search: plain BFS {} boards, pruned by move commutation {} boards, ratio {:.2}",
        a.plain_size,
        a.pruned_size,
        a.ratio()
    );
    let canonical = if a.canonical == a.board {
        " (this board)"
    } else {
        ""
    };
    outln!("canonical form: hash {}{canonical}", a.canonical.mask());
    let kept = edits(a);
    outln!(
        "single-cell edits that keep it solvable ({}): {}",
        kept.len(),
        kept.join(", ")
    );
}

fn select(args: SelectArgs) -> Result<()> {
    if !(2..=fling::MAX_TABLE_PIECES).contains(&args.pieces) {
        return Err(crate::usage::usage(format!(
            "--pieces {}: select works on 2 to {} pieces",
            args.pieces,
            fling::MAX_TABLE_PIECES
        )));
    }
    let threads = threads(args.threads);
    let full = args.full.pieces(args.pieces);
    build_tables(&args.tables, args.pieces, full, threads)?;
    let tables = Tables::open(&args.tables)
        .with_context(|| format!("cannot open the tables in {}", args.tables.display()))?;
    let report = Progress::counted(
        fling::boards(args.pieces),
        format!("ranking {}-piece boards", args.pieces),
    );
    let progress = |done: u64, _total: u64| report.set(done);
    let selection = fling::select(&tables, args.pieces, args.top, threads, &progress)?;
    report.finish();
    let boards: Vec<Board> = selection.top.iter().map(|c| c.board).collect();
    // Written whole or not at all: the file is a level file others load.
    let mut file = crate::out_file::OutFile::create(&args.output)?;
    file.write_all(hog2_file(&boards).as_bytes())
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    file.commit()?;
    outln!(
        "{} uniquely solvable {}-piece boards in {} symmetry classes; the best {} written to {}",
        selection.unique_boards,
        args.pieces,
        selection.classes,
        boards.len(),
        args.output.display()
    );
    outln!("level  hash               plain  pruned  ratio");
    for (i, c) in selection.top.iter().enumerate() {
        outln!(
            "{:>5}  {:>17}  {:>5}  {:>6}  {:>5.2}",
            i + 1,
            c.board.mask(),
            c.plain,
            c.pruned,
            c.ratio()
        );
    }
    Ok(())
}
