//! `hsg export`: the HSG or the SSG of an analysed run for Graphviz (DOT), Gephi and
//! Cytoscape (GraphML), pandas (JSON lines), or as the workbench's picture (SVG).

use crate::analyze_cmd::{analyze_and_save, ensure_saved, AnalysisFlags};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use hsg::{ExportFormat, GraphKind};
use std::fs::File;
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
    /// Write at most this many nodes, chosen breadth-first from the root.
    #[arg(long, default_value_t = 10_000, value_parser = crate::flags::count_u64)]
    pub max_nodes: u64,
    /// SVG only: draw the root's neighbourhood of this many critical actions when the
    /// HSG is too large to draw whole.
    #[arg(long, default_value_t = tui::DEFAULT_RADIUS)]
    pub radius: u32,
    /// Output file (default: standard output).
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub analysis: AnalysisFlags,
}

/// Runs `hsg export`.
pub fn run(args: ExportArgs) -> Result<ExitCode> {
    let run = Run::open(&args.dir)?;
    ensure_saved(&run, &args.analysis)?;
    let name = args.out.clone().unwrap_or_else(|| PathBuf::from("-"));
    let mut out: Box<dyn Write> = match &args.out {
        Some(path) => Box::new(BufWriter::new(
            File::create(path).with_context(|| format!("cannot create {}", path.display()))?,
        )),
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    let summary = match args.format {
        FormatArg::Svg => svg(&args, &mut out, &name)?,
        _ => graph_file(&run, &args, &mut out)?,
    };
    out.flush()
        .with_context(|| format!("cannot write {}", name.display()))?;
    eprintln!("{summary}");
    Ok(ExitCode::SUCCESS)
}

fn svg(args: &ExportArgs, out: &mut dyn Write, name: &Path) -> Result<String> {
    if matches!(args.graph, GraphArg::Ssg) {
        bail!(
            "--format svg draws the HSG only; use --graph hsg (or dot/graphml/jsonl for the SSG)"
        );
    }
    let stats = tui::write_svg_of(&args.dir, args.radius, out, name)?;
    let scope = if stats.whole {
        "the whole HSG".to_string()
    } else {
        format!("the root's neighbourhood of radius {}", args.radius)
    };
    Ok(format!(
        "wrote {} hyperstates and {} links ({scope}{})",
        stats.nodes,
        stats.edges,
        if stats.truncated { ", capped" } else { "" }
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
    let (kind, stats) = match args.graph {
        GraphArg::Hsg => (
            GraphKind::Hsg,
            hsg::export_hsg(&saved, &labels, format, args.max_nodes, out)?,
        ),
        GraphArg::Ssg => {
            let graph = hsg::RunGraph::new(run)?;
            let stats = hsg::export_ssg(&graph, &saved, &labels, format, args.max_nodes, out)?;
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
            format!(" (capped at --max-nodes {})", args.max_nodes)
        } else {
            String::new()
        }
    ))
}
