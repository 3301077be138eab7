//! A Markdown rendering of an [`HsgSummary`] for people (`hsg report --format md`).

use crate::summary::HsgSummary;
use std::fmt::Write;

fn opt<T: std::fmt::Display>(x: Option<T>) -> String {
    x.map_or_else(|| "none".to_string(), |v| v.to_string())
}

// Shares read as everywhere else (`94.69%`, never rounded to 0% or 100%), counts with
// thousands separators.
use model::numbers::{grouped, percent};

/// Renders the summary as a Markdown section titled "Hyperstate analysis".
pub fn summary_markdown(s: &HsgSummary) -> String {
    let mut md = String::new();
    // Writing to a String cannot fail.
    let _ = write_all(&mut md, s);
    md
}

fn write_all(md: &mut String, s: &HsgSummary) -> std::fmt::Result {
    writeln!(md, "## Hyperstate analysis (target `{}`)\n", s.target)?;
    if s.provisional {
        writeln!(
            md,
            "*Provisional: {} states were never expanded.*\n",
            grouped(s.open_states)
        )?;
    }
    writeln!(md, "| metric | value |\n| --- | --- |")?;
    let rows: Vec<(&str, String)> = vec![
        ("states", grouped(s.states)),
        ("transitions", grouped(s.transitions)),
        ("hyperstates", grouped(s.hyperstates)),
        ("compression", percent(s.compression)),
        ("critical actions", grouped(s.critical_actions)),
        (
            "HSG edges (labelled)",
            format!(
                "{} ({})",
                grouped(s.hsg_edges),
                grouped(s.hsg_labelled_edges)
            ),
        ),
        (
            "immediately reversible actions",
            grouped(s.immediately_reversible_actions),
        ),
        (
            "eventually reversible actions",
            grouped(s.eventually_reversible_actions),
        ),
        ("root tag", s.root_tag.name().to_string()),
        (
            "tags (win / fail / eventually winnable / implicitly failed / unknown)",
            format!(
                "{} / {} / {} / {} / {}",
                grouped(s.tags.win),
                grouped(s.tags.fail),
                grouped(s.tags.eventually_winnable),
                grouped(s.tags.implicitly_failed),
                grouped(s.tags.unknown)
            ),
        ),
        ("largest hyperstate", grouped(s.hyperstate_sizes.max)),
        (
            "branching SSG / HSG",
            format!("{:.2} / {:.2}", s.branching.ssg_mean, s.branching.hsg_mean),
        ),
        ("HSG depth (max)", s.depth.max.to_string()),
        ("shortest win, actions", opt(s.shortest_win.actions)),
        (
            "shortest win, critical actions",
            opt(s.shortest_win.critical_actions),
        ),
        ("winning HSG paths", path_count(s)),
        (
            "root loss distance",
            opt(s.failure_spectrum.root_loss_distance),
        ),
        ("failure-spectrum breadth", opt(s.failure_spectrum.breadth)),
    ];
    for (name, value) in rows {
        writeln!(md, "| {name} | {value} |")?;
    }
    match &s.headroom {
        Some(h) => writeln!(
            md,
            "| root headroom (hyperstates / states) | {} / {} |\n| mean headroom | {} |\n| headroom method | {} |",
            percent(h.root_hyperstates),
            percent(h.root_states),
            percent(h.mean_hyperstates),
            method(&h.method)
        )?,
        None => writeln!(md, "| headroom | {} |", opt(s.headroom_note.as_deref()))?,
    }
    if let (Some(_), Some(note)) = (&s.headroom, &s.headroom_note) {
        writeln!(md, "| headroom note | {note} |")?;
    }
    Ok(())
}

/// How headroom was computed: exactly, or sketched with its error bound.
fn method(m: &crate::headroom::HeadroomMethod) -> String {
    match m {
        crate::headroom::HeadroomMethod::Exact => "exact".to_string(),
        crate::headroom::HeadroomMethod::HyperLogLog {
            precision,
            relative_standard_error,
        } => format!(
            "HyperLogLog sketch (precision {precision}, relative standard error {} per count)",
            percent(*relative_standard_error)
        ),
    }
}

fn path_count(s: &HsgSummary) -> String {
    let c = &s.winning_paths.count;
    match (c.exact, c.log2) {
        (Some(x), _) => grouped(x),
        (None, Some(l)) => format!("about 2^{l:.1}"),
        (None, None) => "0".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::tests::{labels, sample};
    use crate::analysis::{analyze_graph, AnalyzeOptions};
    use crate::summary::Source;

    #[test]
    fn markdown_lists_the_main_metrics() {
        let a = analyze_graph(
            &sample(),
            &labels(),
            &AnalyzeOptions::default(),
            Source::default(),
        )
        .unwrap();
        let md = super::summary_markdown(&a.summary);
        assert!(md.contains("| hyperstates | 5 |"), "{md}");
        assert!(md.contains("| root tag | eventually_winnable |"), "{md}");
        assert!(md.contains("| winning HSG paths | 1 |"), "{md}");
        assert!(md.contains("| headroom method | exact |"), "{md}");
    }

    #[test]
    fn shares_near_the_ends_never_round_to_them() {
        use super::percent;
        assert_eq!(percent(0.99979), "99.98%");
        assert_eq!(percent(0.5), "50.00%");
        assert_eq!(percent(1.0), "100.00%");
        assert_eq!(percent(0.0), "0.00%");
        assert_eq!(percent(0.0004), "0.04%");
        assert_eq!(percent(0.999_999), "99.9999%");
    }
}
