//! `hsg sandbox`: instances of an Affordance Sandbox specification, and the
//! seed's experiment (evolutionary solver over instances x runs) with its
//! tables, box plots and extreme boards written to a directory.

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use evolve::{report, stats, svg, Decoder, Design, Params, Results};
use games::sandbox::{generate, instance_text, load_spec, preset, spec_text, Spec, PRESETS};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `hsg sandbox`.
#[derive(Args, Debug)]
pub struct SandboxArgs {
    #[command(subcommand)]
    command: SandboxCommand,
}

#[derive(Subcommand, Debug)]
enum SandboxCommand {
    /// Draw instances of a specification (uniform placement away from the centre).
    Generate(GenerateArgs),
    /// Run the seed's experiment: instances x evolutionary runs, with statistics and figures.
    Experiment(ExperimentArgs),
}

/// Arguments of `hsg sandbox generate`.
#[derive(Args, Debug)]
struct GenerateArgs {
    /// A specification file (`sandbox spec`) or a preset: exp2, exp3, exp4, exp5, exp6.
    spec: String,
    /// How many instances.
    #[arg(long, default_value_t = 100, value_parser = crate::flags::instances)]
    instances: usize,
    /// The generation seed (default: the specification's own).
    #[arg(long)]
    seed: Option<u64>,
    /// Write DIR/spec.sandbox and DIR/instance-NNN.sandbox instead of printing the instances.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Arguments of `hsg sandbox experiment`.
#[derive(Args, Debug)]
struct ExperimentArgs {
    /// A specification file (`sandbox spec`) or a preset: exp2, exp3, exp4, exp5, exp6.
    spec: String,
    /// How many instances.
    #[arg(long, default_value_t = 100, value_parser = crate::flags::instances)]
    instances: usize,
    /// Evolutionary runs per instance.
    #[arg(long, default_value_t = 30, value_parser = crate::flags::instances)]
    runs: usize,
    /// The seed of instance generation and of every run (default: the specification's own).
    #[arg(long)]
    seed: Option<u64>,
    /// The directory to write the results to (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Worker threads (default: every core); results do not depend on it.
    #[arg(long, value_parser = crate::flags::threads)]
    threads: Option<usize>,
    /// Population size.
    #[arg(long, default_value_t = 1000, value_parser = crate::flags::population)]
    population: usize,
    /// Genes per chromosome.
    #[arg(long, default_value_t = 98, value_parser = crate::flags::genes)]
    genes: usize,
    /// Tournament updates per run.
    #[arg(long, default_value_t = 10_000, value_parser = crate::flags::updates)]
    updates: usize,
}

/// Runs `hsg sandbox`.
pub fn run(args: SandboxArgs) -> Result<ExitCode> {
    match args.command {
        SandboxCommand::Generate(a) => run_generate(a),
        SandboxCommand::Experiment(a) => run_experiment(a),
    }
}

/// A preset by name, else the first specification in the file of that name.
fn read_spec(spec: &str) -> Result<Spec> {
    if let Some(s) = preset(spec) {
        return Ok(s);
    }
    let path = Path::new(spec);
    if !path.exists() {
        bail!(
            "{spec}: no such specification file or preset (presets: {})",
            PRESETS.join(", ")
        );
    }
    let text = crate::text_file::read_text(path, "specification file")?;
    Ok(load_spec(spec, &text)?)
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

fn run_generate(a: GenerateArgs) -> Result<ExitCode> {
    let spec = read_spec(&a.spec)?;
    let seed = a.seed.unwrap_or(spec.seed);
    let mut all = String::new();
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        write(
            &dir.join("spec.sandbox"),
            &spec_text(&Spec {
                seed,
                ..spec.clone()
            }),
        )?;
    }
    for i in 0..a.instances {
        let inst =
            generate(&spec, seed, i as u64).map_err(|m| anyhow::anyhow!("{}: {m}", a.spec))?;
        let text = instance_text(&inst);
        match &a.out {
            Some(dir) => write(&dir.join(format!("instance-{:03}.sandbox", i + 1)), &text)?,
            None => all.push_str(&text),
        }
    }
    match &a.out {
        Some(dir) => eprintln!("wrote {} instances to {}", a.instances, dir.display()),
        None => out!("{all}"),
    }
    Ok(ExitCode::SUCCESS)
}

fn run_experiment(a: ExperimentArgs) -> Result<ExitCode> {
    let spec = read_spec(&a.spec)?;
    let design = Design {
        seed: a.seed.unwrap_or(spec.seed),
        spec,
        instances: a.instances,
        runs: a.runs,
        params: Params {
            population: a.population,
            genes: a.genes,
            updates: a.updates,
            ..Params::default()
        },
        threads: a.threads.unwrap_or(0),
    };
    if design.instances == 0 || design.runs == 0 {
        bail!("an experiment needs at least one instance and one run");
    }
    std::fs::create_dir_all(&a.out)
        .with_context(|| format!("cannot create {}", a.out.display()))?;
    let jobs = design.instances * design.runs;
    let started = Instant::now();
    let progress = |done: usize| {
        // Report each tenth of the runs as it is crossed.
        if done * 10 / jobs != (done - 1) * 10 / jobs {
            eprintln!(
                "{done}/{jobs} runs ({:.1} s)",
                started.elapsed().as_secs_f64()
            );
        }
    };
    let results = evolve::run(&design, &progress)?;
    let seconds = started.elapsed().as_secs_f64();
    let stats = stats::analyse(&results);
    write_outputs(&a.out, &results, &stats, seconds)?;
    out!("{}", headline(&results, &stats, seconds));
    Ok(ExitCode::SUCCESS)
}

fn headline(results: &Results, stats: &stats::ExperimentStats, seconds: f64) -> String {
    format!(
        "{}: {} instances x {} runs ({} games, {seconds:.1} s); top scores {} to {}, mean best {:.1} to {:.1}; \
         {} instances without variation; hardness {:.2}, interest {:.2}; highest instance {}, lowest {}\n",
        results.design.spec.title,
        results.design.instances,
        results.design.runs,
        results.games(),
        stats.top_scores.min,
        stats.top_scores.max,
        stats.mean_scores.min,
        stats.mean_scores.max,
        stats.without_variation,
        stats.hardness,
        stats.interest,
        stats.highest + 1,
        stats.lowest + 1
    )
}

/// Writes the tables, summary, box plot and the extreme boards.
fn write_outputs(
    dir: &Path,
    results: &Results,
    stats: &stats::ExperimentStats,
    seconds: f64,
) -> Result<()> {
    let spec = Spec {
        seed: results.design.seed,
        ..results.design.spec.clone()
    };
    write(&dir.join("spec.sandbox"), &spec_text(&spec))?;
    write(&dir.join("runs.csv"), &report::runs_csv(results))?;
    write(&dir.join("instances.csv"), &report::instances_csv(stats))?;
    write(&dir.join("tokens.csv"), &report::tokens_csv(results, stats))?;
    write(
        &dir.join("summary.md"),
        &report::summary_md(results, stats, seconds),
    )?;
    let title = format!(
        "Distribution of best fitness over {} instances: {}",
        results.instances.len(),
        spec.title
    );
    write(&dir.join("boxplot.svg"), &svg::box_plot(stats, &title))?;
    for (name, i) in [("highest", stats.highest), ("lowest", stats.lowest)] {
        let Some(inst) = results.instances.get(i) else {
            continue;
        };
        write(&dir.join(format!("{name}.sandbox")), &instance_text(inst))?;
        let path = best_path(results, i);
        let s = &stats.instances[i].summary;
        let caption = format!(
            "{name} mean best score: instance {} (mean {:.2}, max {})",
            i + 1,
            s.mean,
            s.max
        );
        write(
            &dir.join(format!("{name}.svg")),
            &svg::board(inst, &path, &caption),
        )?;
    }
    Ok(())
}

/// The squares walked by the best chromosome of an instance's best run.
fn best_path(results: &Results, instance: usize) -> Vec<u8> {
    let Some(best) = results
        .of_instance(instance)
        .iter()
        .max_by_key(|r| (r.best_score, std::cmp::Reverse(r.run)))
    else {
        return Vec::new();
    };
    let Some(inst) = results.instances.get(instance) else {
        return Vec::new();
    };
    match games::sandbox::Board::new(inst) {
        Ok(board) => Decoder::new(results.design.params.order).path(&board, &best.best_genes),
        Err(_) => Vec::new(),
    }
}
