//! `hsg html`: one self-contained HTML file (inline CSS, SVG and script, no network)
//! with the run and its analysis: the summary, the distributions as plots, the failure
//! spectrum and ideal path, the HSG map with pan and zoom, the hyperstates with member
//! states drawn, the shortest solution, and for PuzzleScript runs the rule coverage and
//! hangs (`html_rules.rs`). Every figure that `hsg report --json` also
//! gives carries its JSON pointer in `data-metric` and its exact JSON in `data-value`.

#[path = "html_assets.rs"]
mod assets;
#[path = "html_rules.rs"]
mod rules;
#[path = "html_svg.rs"]
mod svg;

use crate::analyze_cmd::AnalysisFlags;
use crate::path_cmd::{lurd, Loaded};
use anyhow::{Context, Result};
use clap::Args;
use hsg::explain::{self, Destination};
use hsg::Tag;
use serde_json::Value;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use svg::{escape, group, tag_words};

/// Arguments of `hsg html`.
#[derive(Args, Debug)]
pub struct HtmlArgs {
    /// The run directory (analysed first when it has no current analysis).
    pub dir: PathBuf,
    /// The HTML file to write.
    #[arg(long, short)]
    pub out: PathBuf,
    /// Hyperstates listed and drawn on the map (the nearest to the root first; the map
    /// draws at most 2,000, laid out as in the workbench).
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..=20000))]
    pub max_hyperstates: u32,
    /// Member states drawn per listed hyperstate.
    #[arg(long, default_value_t = 3)]
    pub members: u32,
    #[command(flatten)]
    pub analysis: AnalysisFlags,
}

/// Runs `hsg html`.
pub fn run(args: HtmlArgs) -> Result<ExitCode> {
    let loaded = Loaded::open(&args.dir, &args.analysis)?;
    let report = crate::report::json_report(&loaded.run, &args.dir, Some(&loaded.saved))?;
    let page = page(&loaded, &report, &args)?;
    // Written whole or not at all, and never over a device, FIFO or link (see out_file).
    let mut file = crate::out_file::OutFile::create(&args.out)?;
    file.write_all(page.as_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    file.commit()?;
    eprintln!("wrote {} ({} bytes)", args.out.display(), page.len());
    Ok(ExitCode::SUCCESS)
}

/// The report page of the run in `dir` with the default limits (`hsg batch` writes one
/// per level beside its index).
pub fn page_of(dir: &std::path::Path, analysis: &AnalysisFlags) -> Result<String> {
    let args = HtmlArgs {
        dir: dir.to_path_buf(),
        out: PathBuf::new(),
        max_hyperstates: 300,
        members: 3,
        analysis: analysis.clone(),
    };
    let loaded = Loaded::open(dir, analysis)?;
    let report = crate::report::json_report(&loaded.run, dir, Some(&loaded.saved))?;
    page(&loaded, &report, &args)
}

fn page(loaded: &Loaded, report: &Value, args: &HtmlArgs) -> Result<String> {
    let id = loaded.run.identity();
    let title = format!("{} / {}", id.game, id.level_title);
    let mut html = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{t}</title>\
         <style>{css}</style></head><body><h1>{t}</h1><p class=\"small\">Store <code>{store}</code>, \
         level hash <code>{hash}</code>; written by hsg {version}. Metrics are defined in \
         docs/metrics.md of the hyperstate project.</p>",
        t = escape(&title),
        css = assets::CSS,
        store = escape(&args.dir.display().to_string()),
        hash = escape(&id.level_hash),
        version = env!("CARGO_PKG_VERSION"),
    );
    summary_section(&mut html, report);
    plots_section(&mut html, report);
    spectrum_section(&mut html, loaded, report);
    let chosen = svg::chosen_hyperstates(&loaded.saved, args.max_hyperstates as usize);
    map_section(&mut html, loaded, &chosen);
    solution_section(&mut html, loaded)?;
    rules::rules_section(&mut html, report);
    list_section(&mut html, loaded, &chosen, args.members);
    let _ = writeln!(html, "<script>{}</script></body></html>", assets::SCRIPT);
    Ok(html)
}

/// One figure of the report: a table row whose cell names its JSON pointer.
fn figure(html: &mut String, report: &Value, label: &str, pointer: &str) {
    let value = report.pointer(pointer).cloned().unwrap_or(Value::Null);
    let shown = match &value {
        Value::Null => "none".to_string(),
        Value::Bool(b) => if *b { "yes" } else { "no" }.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => group(i),
            (None, Some(f)) => format!("{f:.4}"),
            _ => n.to_string(),
        },
        Value::String(s) => s.replace('_', " "),
        other => other.to_string(),
    };
    let _ = write!(
        html,
        "<tr><th>{}</th><td data-metric=\"{pointer}\" data-value=\"{}\">{}</td></tr>",
        escape(label),
        escape(&value.to_string()),
        escape(&shown)
    );
}

const RUN_FIGURES: [(&str, &str); 6] = [
    ("status", "/exploration/status"),
    ("states", "/exploration/states"),
    ("expanded states", "/exploration/expanded"),
    ("transitions", "/exploration/transitions"),
    ("BFS depth (deepest layer)", "/exploration/max_depth"),
    ("target", "/hsg/target"),
];

const HSG_FIGURES: [(&str, &str); 20] = [
    ("hyperstates", "/hsg/hyperstates"),
    ("compression (1 - hyperstates / states)", "/hsg/compression"),
    (
        "critical actions (transitions between hyperstates)",
        "/hsg/critical_actions",
    ),
    ("HSG edges", "/hsg/hsg_edges"),
    ("labelled HSG edges", "/hsg/hsg_labelled_edges"),
    ("root tag", "/hsg/root_tag"),
    ("provisional (unexplored states remain)", "/hsg/provisional"),
    ("open states", "/hsg/open_states"),
    ("shortest win, actions", "/hsg/shortest_win/actions"),
    (
        "shortest win, critical actions",
        "/hsg/shortest_win/critical_actions",
    ),
    (
        "longest winning path, critical actions",
        "/hsg/winning_paths/longest",
    ),
    ("largest HSG depth", "/hsg/depth/max"),
    (
        "hyperstates the root reaches",
        "/hsg/depth/reachable_hyperstates",
    ),
    (
        "immediately reversible actions",
        "/hsg/immediately_reversible_actions",
    ),
    (
        "eventually reversible actions",
        "/hsg/eventually_reversible_actions",
    ),
    (
        "root headroom, hyperstates",
        "/hsg/headroom/root_hyperstates",
    ),
    ("root headroom, states", "/hsg/headroom/root_states"),
    ("root one-step headroom", "/hsg/headroom/root_one_step"),
    ("failure-spectrum breadth", "/hsg/failure_spectrum/breadth"),
    (
        "root loss distance",
        "/hsg/failure_spectrum/root_loss_distance",
    ),
];

fn summary_section(html: &mut String, report: &Value) {
    html.push_str(
        "<section id=\"summary\"><h2>Summary</h2><div class=\"cols\"><table><caption>Run</caption>",
    );
    for (label, pointer) in RUN_FIGURES {
        figure(html, report, label, pointer);
    }
    html.push_str("</table><table><caption>Tags (hyperstates)</caption>");
    for tag in Tag::ALL {
        figure(
            html,
            report,
            &tag_words(tag),
            &format!("/hsg/tags/{}", tag.name()),
        );
    }
    html.push_str("</table><table><caption>Hyperstate graph</caption>");
    for (label, pointer) in HSG_FIGURES {
        figure(html, report, label, pointer);
    }
    html.push_str("</table></div>");
    if let Some(note) = report.pointer("/hsg/headroom_note").and_then(Value::as_str) {
        let _ = write!(html, "<p class=\"note\">Headroom: {}</p>", escape(note));
    }
    html.push_str("</section>");
}

/// The numbers of an array in the report; `null` entries are `None`.
fn numbers(report: &Value, pointer: &str) -> Vec<Option<f64>> {
    report
        .pointer(pointer)
        .and_then(Value::as_array)
        .map(|a| a.iter().map(Value::as_f64).collect())
        .unwrap_or_default()
}

fn indices(n: usize) -> Vec<String> {
    (0..n).map(|i| i.to_string()).collect()
}

fn plots_section(html: &mut String, report: &Value) {
    html.push_str("<section id=\"plots\"><h2>Distributions</h2><div class=\"cols\">");
    let tags: Vec<Option<f64>> = Tag::ALL
        .iter()
        .map(|t| {
            report
                .pointer(&format!("/hsg/tags/{}", t.name()))
                .and_then(Value::as_f64)
        })
        .collect();
    let names: Vec<String> = Tag::ALL.iter().map(|t| tag_words(*t)).collect();
    let colours: Vec<&str> = Tag::ALL.iter().map(|t| svg::colour(*t)).collect();
    html.push_str(&svg::bars("Hyperstates per tag", &names, &tags, &colours));
    let depth = numbers(report, "/hsg/depth/histogram");
    html.push_str(&svg::bars(
        "Hyperstates per HSG depth (critical actions from the root)",
        &indices(depth.len()),
        &depth,
        &["#5d6d7e"],
    ));
    let layers = numbers(report, "/exploration/layer_sizes");
    html.push_str(&svg::bars(
        "States per BFS layer (actions from the start)",
        &indices(layers.len()),
        &layers,
        &["#7d8c9e"],
    ));
    let loss = numbers(report, "/hsg/failure_spectrum/loss_distance_histogram");
    html.push_str(&svg::bars(
        "Reachable hyperstates per loss distance",
        &indices(loss.len()),
        &loss,
        &["#e59866"],
    ));
    html.push_str("</div></section>");
}

fn spectrum_section(html: &mut String, loaded: &Loaded, report: &Value) {
    html.push_str("<section id=\"spectrum\"><h2>Failure spectrum and ideal path</h2>");
    let values = numbers(report, "/hsg/failure_spectrum/ideal_path_profile");
    let labels: Vec<String> = indices(values.len());
    html.push_str(&svg::bars(
        "Loss distance along the ideal path (none: no loss reachable)",
        &labels,
        &values,
        &["#af7ac5"],
    ));
    html.push_str("<ol class=\"path\" start=\"0\">");
    for (i, &h) in loaded.saved.ideal_path.iter().enumerate() {
        let Some(info) = loaded.saved.hyperstates.get(h as usize) else {
            continue;
        };
        let loss = info
            .loss_distance
            .map_or("no loss reachable".into(), |d| format!("loss distance {d}"));
        let _ = write!(
            html,
            "<li><a href=\"#h-{h}\">hyperstate {h}</a> <span class=\"tag t{}\">{}</span> {loss}{}</li>",
            info.tag as u8,
            tag_words(info.tag),
            if i == 0 { " (root)" } else { "" }
        );
    }
    html.push_str("</ol></section>");
}

fn map_section(html: &mut String, loaded: &Loaded, chosen: &[u64]) {
    let total = loaded.saved.summary.hyperstates;
    // The workbench's layout costs time and memory growing with the square of the
    // nodes: the map draws at most as many as `hsg export --format svg` does.
    let drawn = &chosen[..chosen.len().min(tui::SVG_MAX_NODES)];
    let note = if drawn.len() as u64 == total {
        format!("All {} hyperstates.", group(total as i64))
    } else {
        format!(
            "Showing {} of {} hyperstates (--max-hyperstates, at most {} on the map): the ideal path and the winnable ones first, then the nearest to the root by HSG depth.",
            group(drawn.len() as i64),
            group(total as i64),
            group(tui::SVG_MAX_NODES as i64)
        )
    };
    let _ = write!(
        html,
        "<section id=\"hsg-map\"><h2>HSG map</h2><p id=\"map-note\">{note} Laid out as in the \
         workbench: hyperstates few critical actions apart lie close. Arrows are HSG edges between \
         the hyperstates shown. Drag to pan, wheel to zoom, click a hyperstate for its states.</p>\
         <div class=\"buttons\"><button type=\"button\" data-zoom=\"in\">+</button>\
         <button type=\"button\" data-zoom=\"out\">&minus;</button><button type=\"button\" data-zoom=\"fit\">fit</button></div>{}{}</section>",
        svg::legend(),
        svg::hsg_map(&loaded.saved, drawn)
    );
}

fn solution_section(html: &mut String, loaded: &Loaded) -> Result<()> {
    html.push_str("<section id=\"solution\"><h2>Shortest solution</h2>");
    let graph = hsg::RunGraph::new(&loaded.run)?;
    let labels = hsg::labels_of(&loaded.run);
    let target = hsg::target::resolve(&labels.outcomes, Some(&loaded.saved.summary.target), None)?;
    let Some(walk) = explain::path_to(&graph, &loaded.saved, &target, 0, Destination::Win) else {
        html.push_str("<p>No win is reachable from the start in what was explored.</p></section>");
        return Ok(());
    };
    let sokoban = loaded.run.identity().game == "sokoban";
    let _ = write!(
        html,
        "<p><span data-solution-length=\"{}\">{}</span> actions, {} of them critical (marked); \
         this is the fewest actions, and a win may need as few as {} critical actions \
         on another path.</p><p class=\"moves\">",
        walk.steps.len(),
        walk.steps.len(),
        walk.critical_count(),
        loaded
            .saved
            .summary
            .shortest_win
            .critical_actions
            .map_or("?".to_string(), |c| c.to_string())
    );
    let letters: Vec<char> = if sokoban {
        lurd(loaded, &walk).chars().collect()
    } else {
        Vec::new()
    };
    for (i, step) in walk.steps.iter().enumerate() {
        let word = letters
            .get(i)
            .map_or_else(|| loaded.label(step.action), |c| c.to_string());
        let class = if step.critical {
            " class=\"critical\""
        } else {
            ""
        };
        let _ = write!(
            html,
            "<span{class} title=\"step {}: state {} to {}\">{}</span> ",
            i + 1,
            step.from,
            step.to,
            escape(&word)
        );
    }
    html.push_str("</p><div class=\"boards\">");
    let _ = write!(
        html,
        "<figure><pre>{}</pre><figcaption>start (state {})</figcaption></figure>",
        escape(&loaded.draw(walk.start)),
        walk.start
    );
    for (i, step) in walk
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s.critical)
        .take(40)
    {
        let _ = write!(
            html,
            "<figure><pre>{}</pre><figcaption>after step {} `{}` (critical)</figcaption></figure>",
            escape(&loaded.draw(step.to)),
            i + 1,
            escape(&loaded.label(step.action))
        );
    }
    html.push_str("</div></section>");
    Ok(())
}

fn list_section(html: &mut String, loaded: &Loaded, chosen: &[u64], per: u32) {
    let _ = write!(
        html,
        "<section id=\"hyperstates\"><h2>Hyperstates</h2><p>{} listed, as on the map; \
         open one to see its member states.</p>",
        group(chosen.len() as i64)
    );
    let saved = &loaded.saved;
    for &h in chosen {
        let Some(info) = saved.hyperstates.get(h as usize) else {
            continue;
        };
        let size = svg::members(saved, h);
        let opt = |v: Option<u32>| v.map_or("none".to_string(), |d| d.to_string());
        let _ = write!(
            html,
            "<details id=\"h-{h}\"><summary>hyperstate {h} <span class=\"tag t{}\">{}</span> \
             {} states, depth {}, critical actions to a win {}, loss distance {}</summary><div class=\"boards\">",
            info.tag as u8,
            tag_words(info.tag),
            group(size as i64),
            opt(info.depth),
            opt(info.win_distance),
            opt(info.loss_distance)
        );
        let start = saved.member_offsets.get(h as usize).copied().unwrap_or(0);
        for i in start..start + size.min(u64::from(per)) {
            if let Some(state) = saved.members.get(i) {
                let _ = write!(
                    html,
                    "<figure><pre>{}</pre><figcaption>state {state}</figcaption></figure>",
                    escape(&loaded.draw(state))
                );
            }
        }
        if size > u64::from(per) {
            let _ = write!(
                html,
                "<p class=\"small\">and {} more states</p>",
                group((size - u64::from(per)) as i64)
            );
        }
        html.push_str("</div></details>");
    }
    html.push_str("</section>");
}
