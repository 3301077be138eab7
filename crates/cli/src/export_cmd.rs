//! `hsg export`: the HSG or the SSG of an analysed run for Graphviz (DOT), Gephi and
//! Cytoscape (GraphML), pandas (JSON lines), or as the workbench's picture (SVG).

use crate::analyze_cmd::{analyze_and_save, ensure_saved, AnalysisFlags};
use crate::out_file::OutFile;
use crate::usage::usage;
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use hsg::{ExportFormat, GraphKind};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use store::Run;

/// Which graph to write.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum GraphArg {
    /// Hyperstates and the critical actions between them.
    Hsg,
    /// States and every transition, coloured by their hyperstate's tag.
    Ssg,
}

/// The file format.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormatArg {
    /// Graphviz: win as diamonds, fail as boxes (as in Cook and Raad's figures).
    Dot,
    /// GraphML with typed attributes, for Gephi and Cytoscape.
    Graphml,
    /// One JSON object per line, nodes then edges, for pandas.
    Jsonl,
    /// The workbench's graph view as a picture (HSG only).
    Svg,
}

/// Arguments of `hsg export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The run directory.
    pub dir: PathBuf,
    /// Which graph to write.
    #[arg(long, value_enum, default_value_t = GraphArg::Hsg)]
    pub graph: GraphArg,
    /// The file format.
    #[arg(long, value_enum)]
    pub format: FormatArg,
    /// Write at most this many nodes, chosen breadth-first from the root (default 10,000;
    /// for SVG 2,000, drawn whole up to it: its layout takes time and memory growing with
    /// the square of the nodes).
    #[arg(long, value_parser = crate::flags::count_u64)]
    pub max_nodes: Option<u64>,
    /// SVG only: draw the root's neighbourhood of this many critical actions when the
    /// HSG has more hyperstates than --max-nodes.
    #[arg(long, default_value_t = tui::DEFAULT_RADIUS)]
    pub radius: u32,
    /// Output file (default: standard output). It appears only once written whole: a
    /// failed export leaves no file (and an older one as it was).
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub analysis: AnalysisFlags,
}

/// The node limit of files when `--max-nodes` is not given.
const FILE_MAX_NODES: u64 = 10_000;

/// Runs `hsg export`.
pub fn run(args: ExportArgs) -> Result<ExitCode> {
    if matches!((args.format, args.graph), (FormatArg::Svg, GraphArg::Ssg)) {
        return Err(usage(
            "--format svg draws the HSG only; use --graph hsg (or dot/graphml/jsonl for the SSG)",
        ));
    }
    let run = Run::open(&args.dir)?;
    ensure_saved(&run, &args.analysis)?;
    let summary = match &args.out {
        Some(path) => {
            let mut file = OutFile::create(path)?;
            let summary = write_export(&run, &args, &mut file, path)?;
            file.commit()?;
            summary
        }
        None => {
            let mut out = BufWriter::new(std::io::stdout().lock());
            let summary = write_export(&run, &args, &mut out, Path::new("-"))?;
            out.flush().context("cannot write to standard output")?;
            summary
        }
    };
    eprintln!("{summary}");
    Ok(ExitCode::SUCCESS)
}

fn write_export(run: &Run, args: &ExportArgs, out: &mut dyn Write, name: &Path) -> Result<String> {
    match args.format {
        FormatArg::Svg => svg(args, out, name),
        _ => graph_file(run, args, out),
    }
}

fn svg(args: &ExportArgs, out: &mut dyn Write, name: &Path) -> Result<String> {
    let max_nodes = args.max_nodes.map_or(tui::SVG_MAX_NODES, |n| {
        usize::try_from(n).unwrap_or(usize::MAX)
    });
    let stats = tui::write_svg_of(&args.dir, args.radius, max_nodes, out, name)?;
    if stats.whole {
        return Ok(format!(
            "wrote {} hyperstates and {} links (the whole HSG)",
            stats.nodes, stats.edges
        ));
    }
    Ok(format!(
        "showing {} of {} hyperstates and {} links: the HSG has more than --max-nodes {max_nodes}, \
         so the picture shows the root's neighbourhood of radius {}{}",
        stats.nodes,
        stats.total,
        stats.edges,
        args.radius,
        if stats.truncated {
            ", capped at --max-nodes"
        } else {
            ""
        }
    ))
}

fn graph_file(run: &Run, args: &ExportArgs, out: &mut dyn Write) -> Result<String> {
    let format = match args.format {
        FormatArg::Dot => ExportFormat::Dot,
        FormatArg::Graphml => ExportFormat::GraphMl,
        FormatArg::Jsonl => ExportFormat::Jsonl,
        FormatArg::Svg => bail!("internal: svg is not a graph file format"),
    };
    let saved = match hsg::load(run.dir()) {
        Ok(saved) => saved,
        Err(err) => {
            // The analysis is derived data: a damaged file is recomputed, not fatal.
            eprintln!("the saved analysis cannot be read ({err}); analysing again");
            analyze_and_save(run, &args.analysis)?;
            hsg::load(run.dir())?
        }
    };
    let labels = hsg::labels_of(run);
    let max_nodes = args.max_nodes.unwrap_or(FILE_MAX_NODES);
    let (kind, stats) = match args.graph {
        GraphArg::Hsg => (
            GraphKind::Hsg,
            hsg::export_hsg(&saved, &labels, format, max_nodes, out)?,
        ),
        GraphArg::Ssg => {
            let graph = hsg::RunGraph::new(run)?;
            let stats = hsg::export_ssg(&graph, &saved, &labels, format, max_nodes, out)?;
            (GraphKind::Ssg, stats)
        }
    };
    let what = match kind {
        GraphKind::Hsg => "hyperstates",
        GraphKind::Ssg => "states",
    };
    Ok(format!(
        "wrote {} {what} and {} edges{}",
        stats.nodes,
        stats.edges,
        if stats.truncated {
            format!(" (capped at --max-nodes {max_nodes})")
        } else {
            String::new()
        }
    ))
}
