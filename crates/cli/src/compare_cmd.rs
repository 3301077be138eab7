//! `hsg compare` (tree or agency equivalence of two games, or their similarity
//! by sampling) and `hsg tree` (a game's tree written as a store).

use anyhow::Result;
use clap::{Args, ValueEnum};
use equiv::{GameTree, Mode, TreeOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Which equivalence `hsg compare` decides.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Equivalence {
    /// Game tree equivalence up to relabeling players, decisions and outcomes.
    Tree,
    /// Agency equivalence: the same after removing bookkeeping, single-player
    /// chains, symmetric duplicates and redundant choices.
    Agency,
}

#[derive(Args)]
pub struct CompareArgs {
    /// The first game (a `.game` file or any level file).
    pub a: PathBuf,
    /// The second game.
    pub b: PathBuf,
    /// Which equivalence to decide (default: tree; for --similarity, the one
    /// applied to the partial trees, default: agency).
    #[arg(long, value_enum)]
    pub equivalence: Option<Equivalence>,
    /// Print one JSON object (key `equivalent`, or `similarity` with --similarity).
    #[arg(long)]
    pub json: bool,
    /// Estimate similarity by sampling states of A instead of deciding equivalence.
    #[arg(long, requires = "map")]
    pub similarity: bool,
    /// The feature mapping from A to B (lines `A-feature -> B-feature`, `#` comments).
    /// Example: levels/grammar/tictactoe-to-three-to-fifteen.map, for tictactoe.game
    /// against three-to-fifteen.game.
    #[arg(long, value_name = "FILE")]
    pub map: Option<PathBuf>,
    /// Depth of the partial trees compared at each sampled state.
    #[arg(long, default_value_t = 2)]
    pub depth: u32,
    /// Number of states sampled.
    #[arg(long, default_value_t = 200, value_parser = crate::flags::count_u32)]
    pub samples: u32,
    /// Seed of the sampler.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Refuse game trees with more nodes than this.
    #[arg(long, default_value_t = 20_000_000, value_parser = crate::flags::count)]
    pub max_nodes: usize,
}

#[derive(Args)]
pub struct TreeArgs {
    /// The game (a `.game` file or any level file).
    pub level: PathBuf,
    /// The store directory to write the tree into.
    #[arg(long)]
    pub store: PathBuf,
    /// Replace a run already in the store directory.
    #[arg(long)]
    pub force_new: bool,
    /// Refuse game trees with more nodes than this.
    #[arg(long, default_value_t = 20_000_000, value_parser = crate::flags::count)]
    pub max_nodes: usize,
    /// Leave states at this depth unexpanded (a partial tree).
    #[arg(long)]
    pub max_depth: Option<u32>,
}

fn load(path: &Path) -> Result<games::Level> {
    let text = crate::text_file::read_text(path, "level file")?;
    Ok(games::load(
        &path.display().to_string(),
        &text,
        &games::LevelSelector::First,
    )?)
}

fn build(level: &games::Level, max_nodes: usize, max_depth: Option<u32>) -> Result<GameTree> {
    let opts = TreeOptions {
        max_nodes,
        max_depth,
    };
    Ok(GameTree::build(level.game.as_ref(), &level.title, opts)?)
}

/// Runs `hsg compare`.
pub fn run(args: CompareArgs) -> Result<ExitCode> {
    let (a, b) = (load(&args.a)?, load(&args.b)?);
    if args.similarity {
        return similarity(&args, &a, &b);
    }
    let mode = mode_of(args.equivalence.unwrap_or(Equivalence::Tree));
    let (ta, tb) = (
        build(&a, args.max_nodes, None)?,
        build(&b, args.max_nodes, None)?,
    );
    let result = equiv::compare(&ta, &tb, mode)?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        print_comparison(&result);
    }
    Ok(ExitCode::SUCCESS)
}

fn mode_of(e: Equivalence) -> Mode {
    match e {
        Equivalence::Tree => Mode::Tree,
        Equivalence::Agency => Mode::Agency,
    }
}

fn print_comparison(c: &equiv::Comparison) {
    let sense = match c.mode {
        Mode::Tree => "game tree equivalent up to relabeling",
        Mode::Agency => "agency equivalent",
    };
    let verdict = if c.equivalent { "" } else { "not " };
    outln!("{} and {} are {verdict}{sense}", c.a.title, c.b.title);
    for s in [&c.a, &c.b] {
        outln!(
            "  {}: {} nodes, {} plays, {} nodes compared, {} distinct subtrees",
            s.title,
            s.nodes,
            s.terminals,
            s.compared_nodes,
            s.distinct_subtrees
        );
    }
    if let Some(w) = &c.witness {
        let pairs = |v: &[equiv::Pair]| {
            v.iter()
                .map(|p| format!("{} = {}", p.a, p.b))
                .collect::<Vec<_>>()
                .join(", ")
        };
        outln!("  players: {}", pairs(&w.players));
        outln!("  outcomes: {}", pairs(&w.outcomes));
        let depths: Vec<String> = w.nodes_per_depth.iter().map(u64::to_string).collect();
        outln!("  corresponding nodes per depth: {}", depths.join(" "));
    }
    if let Some(d) = &c.difference {
        outln!("  first difference: {}", d.reason);
        outln!("  path in {}: {}", c.a.title, show_path(&d.path_a));
        outln!("  path in {}: {}", c.b.title, show_path(&d.path_b));
    }
}

fn show_path(path: &[String]) -> String {
    if path.is_empty() {
        "(root)".to_string()
    } else {
        path.join(" > ")
    }
}

fn similarity(args: &CompareArgs, a: &games::Level, b: &games::Level) -> Result<ExitCode> {
    let Some(map_path) = &args.map else {
        return Err(crate::usage::usage("--similarity needs --map FILE (example: levels/grammar/tictactoe-to-three-to-fifteen.map)",
        ));
    };
    let text = crate::text_file::read_text(map_path, "map file")?;
    let opts = equiv::SimilarityOptions {
        depth: args.depth,
        samples: args.samples,
        seed: args.seed,
        mode: mode_of(args.equivalence.unwrap_or(Equivalence::Agency)),
        max_nodes: args.max_nodes,
        ..equiv::SimilarityOptions::default()
    };
    let map = equiv::FeatureMap::parse(
        &map_path.display().to_string(),
        &text,
        a.game.as_ref(),
        b.game.as_ref(),
        args.seed,
    )?;
    let s = equiv::similarity(
        a.game.as_ref(),
        b.game.as_ref(),
        &|state: &[u8]| map.apply(state),
        &opts,
    )?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        outln!(
            "similarity of {} and {}: {:.3} (95% confidence interval {:.3} to {:.3}; {} of {} sampled states give {} equivalent trees of depth {})",
            a.title,
            b.title,
            s.similarity,
            s.low,
            s.high,
            s.matched,
            s.samples,
            if s.mode == Mode::Agency { "agency" } else { "tree" },
            s.depth
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `hsg tree`.
pub fn tree(args: TreeArgs) -> Result<ExitCode> {
    let level = load(&args.level)?;
    let t = build(&level, args.max_nodes, args.max_depth)?;
    let info = equiv::LevelInfo {
        title: &level.title,
        text: &level.text,
    };
    let w = equiv::write_store(&t, level.game.as_ref(), &info, &args.store, args.force_new)?;
    outln!(
        "{}: game tree of {} nodes ({} plays), written to {} as {} states and {} transitions, depth {}",
        level.title,
        t.len(),
        t.terminal_count(),
        args.store.display(),
        w.states,
        w.transitions,
        w.depth
    );
    Ok(ExitCode::SUCCESS)
}
