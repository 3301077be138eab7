//! The batch's tables: `table.csv` (one row per level), `table.md` (the extremes of
//! every ranking and the whole table) and `index.html` (the same, sortable, one file).

use super::{LevelResult, LevelRow};
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A ranked figure: its column name, what it means, and how to read it from a row.
pub struct Metric {
    /// Column name in the tables.
    pub name: &'static str,
    /// One line for people.
    pub meaning: &'static str,
    /// The value, when the level has one.
    pub value: fn(&LevelRow) -> Option<f64>,
    /// Decimal places in table.csv.
    pub decimals: usize,
    /// How people read it (table.md, index.html): counts grouped, shares as percentages.
    pub show: fn(f64) -> String,
    /// True when a partial run's value still means something (a provisional count);
    /// shares and headroom over a partial graph do not, and are left out for it.
    pub on_partial: bool,
}

fn count(v: f64) -> String {
    model::numbers::grouped(v as u64)
}

fn share(v: f64) -> String {
    model::numbers::percent(v)
}

fn ratio(v: f64) -> String {
    format!("{v:.4}")
}

/// The figures the levels are ranked by (`docs/metrics.md`, "Corpus ranking").
pub const METRICS: [Metric; 7] = [
    Metric {
        name: "states",
        meaning: "states stored",
        value: |r| Some(r.states as f64),
        decimals: 0,
        show: count,
        on_partial: true,
    },
    Metric {
        name: "hyperstates",
        meaning: "strongly connected components",
        value: |r| Some(r.hyperstates as f64),
        decimals: 0,
        show: count,
        on_partial: true,
    },
    Metric {
        name: "compression",
        meaning: "1 - hyperstates / states",
        value: |r| Some(r.compression),
        decimals: 4,
        show: share,
        on_partial: true,
    },
    Metric {
        name: "win_critical",
        meaning: "fewest critical actions on a win from the root",
        value: |r| r.shortest_win_critical.map(f64::from),
        decimals: 0,
        show: count,
        on_partial: true,
    },
    Metric {
        name: "dead_share",
        meaning: "share of states that can no longer win",
        value: |r| Some(r.dead_state_share),
        decimals: 4,
        show: share,
        on_partial: false,
    },
    Metric {
        name: "breadth",
        meaning: "failure-spectrum breadth (largest finite loss distance on the ideal path)",
        value: |r| r.spectrum_breadth.map(f64::from),
        decimals: 0,
        show: count,
        on_partial: false,
    },
    Metric {
        name: "root_headroom",
        meaning: "headroom of the root in hyperstates",
        value: |r| r.root_headroom,
        decimals: 4,
        show: ratio,
        on_partial: false,
    },
];

/// How many levels each end of a ranking lists.
const EXTREMES: usize = 5;

/// The folder of OUT that holds every level's own HTML report, `KEY.html`.
pub const REPORTS: &str = "reports";

/// The levels of a batch, split as the tables show them: complete levels are ranked,
/// partial ones (stopped by --max-states, with provisional figures) are listed apart.
struct Levels<'a> {
    complete: Vec<&'a LevelRow>,
    partial: Vec<&'a LevelRow>,
    failed: Vec<(&'a str, &'a str)>,
    /// Keys whose HTML report exists in OUT/reports.
    reports: std::collections::BTreeSet<String>,
}

impl Levels<'_> {
    /// The level's key, linked to its report when it has one.
    fn link(&self, key: &str) -> String {
        if self.reports.contains(key) {
            format!("<a href=\"{REPORTS}/{k}.html\">{k}</a>", k = escape(key))
        } else {
            escape(key)
        }
    }
}

/// Writes the three tables into `out` and returns their paths.
pub fn write_all(out: &Path, results: &[LevelResult]) -> Result<Vec<PathBuf>> {
    let rows: Vec<&LevelRow> = results.iter().filter_map(|r| r.row.as_ref()).collect();
    let failed: Vec<(&str, &str)> = results
        .iter()
        .filter_map(|r| r.error.as_deref().map(|e| (r.key.as_str(), e)))
        .collect();
    let levels = Levels {
        complete: rows.iter().copied().filter(|r| r.complete).collect(),
        partial: rows.iter().copied().filter(|r| !r.complete).collect(),
        failed: failed.clone(),
        reports: rows
            .iter()
            .filter(|r| out.join(REPORTS).join(format!("{}.html", r.key)).is_file())
            .map(|r| r.key.clone())
            .collect(),
    };
    let mut files = vec![
        ("table.csv", csv(&rows, &failed)),
        ("table.md", markdown(&levels)),
        ("index.html", html(&levels)),
    ];
    if let Some(md) = super::rules::markdown(&rows) {
        files.push((super::rules::FILE, md));
    }
    let mut written = Vec::new();
    for (name, text) in files {
        let path = out.join(name);
        let tmp = out.join(format!("{name}.tmp"));
        std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

fn cell(value: Option<f64>, decimals: usize) -> String {
    value.map_or(String::new(), |v| format!("{v:.decimals$}"))
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// One row per level in the batch's order; empty cells where a figure does not exist.
fn csv(rows: &[&LevelRow], failed: &[(&str, &str)]) -> String {
    let mut text = String::from("key,file,number,title,complete");
    for m in &METRICS {
        text.push(',');
        text.push_str(m.name);
    }
    text.push_str(",win_actions,seconds,error\n");
    for r in rows {
        let _ = write!(
            text,
            "{},{},{},{},{}",
            csv_field(&r.key),
            csv_field(&r.file),
            r.number,
            csv_field(&r.title),
            r.complete
        );
        for m in &METRICS {
            text.push(',');
            text.push_str(&cell((m.value)(r), m.decimals));
        }
        let _ = writeln!(
            text,
            ",{},{:.3},",
            r.shortest_win_actions
                .map_or(String::new(), |a| a.to_string()),
            r.seconds
        );
    }
    for (key, error) in failed {
        // Every column but the key and the error is empty.
        let empty = ",".repeat(METRICS.len() + 7);
        let _ = writeln!(text, "{}{empty}{}", csv_field(key), csv_field(error));
    }
    text
}

/// The levels with a value for `m`, highest first (ties by key, for a stable order).
fn ranked<'a>(rows: &[&'a LevelRow], m: &Metric) -> Vec<(&'a LevelRow, f64)> {
    let mut list: Vec<(&LevelRow, f64)> = rows
        .iter()
        .filter_map(|r| (m.value)(r).map(|v| (*r, v)))
        .collect();
    list.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.key.cmp(&b.0.key)));
    list
}

fn extremes_line(list: &[(&LevelRow, f64)], m: &Metric, highest: bool) -> String {
    let pick: Vec<&(&LevelRow, f64)> = if highest {
        list.iter().take(EXTREMES).collect()
    } else {
        list.iter().rev().take(EXTREMES).collect()
    };
    pick.iter()
        .map(|(r, v)| format!("{} ({})", r.key, (m.show)(*v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A figure as people read it, `-` when the level has none (or, for a partial level,
/// none that means anything).
fn shown(r: &LevelRow, m: &Metric) -> String {
    match (m.value)(r) {
        Some(v) if r.complete || m.on_partial => (m.show)(v),
        _ => "-".to_string(),
    }
}

fn win_actions(r: &LevelRow) -> String {
    r.shortest_win_actions
        .map_or("-".into(), model::numbers::grouped)
}

const INTRO: &str = "Figures are defined in docs/metrics.md (\"Corpus ranking\"). Only complete \
     levels are ranked. Partial levels (stopped by --max-states) are listed apart with their \
     provisional figures: a lower bound on states and hyperstates; their shares and headroom \
     over an unfinished graph mean nothing and are left out (-).";

fn markdown(l: &Levels) -> String {
    let mut md = format!(
        "# Batch: {} levels measured ({} complete, {} partial), {} failed\n\n{INTRO}\n\n\
         ## Extremes of the complete levels\n\n",
        l.complete.len() + l.partial.len(),
        l.complete.len(),
        l.partial.len(),
        l.failed.len()
    );
    if l.complete.is_empty() {
        md.push_str("No level is complete: nothing is ranked.\n");
    } else {
        md.push_str("| metric | meaning | highest | lowest |\n|---|---|---|---|\n");
        for m in &METRICS {
            let list = ranked(&l.complete, m);
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} |",
                m.name,
                m.meaning,
                extremes_line(&list, m, true),
                extremes_line(&list, m, false)
            );
        }
    }
    md.push_str("\n## Complete levels by hyperstates\n\n");
    md_table(&mut md, &ranked(&l.complete, &METRICS[1]), true);
    if !l.partial.is_empty() {
        md.push_str("\n## Partial levels (stopped by --max-states, not ranked)\n\n");
        md_table(&mut md, &ranked(&l.partial, &METRICS[0]), false);
    }
    if !l.failed.is_empty() {
        md.push_str("\n## Failed levels\n\n");
        for (key, error) in &l.failed {
            let _ = writeln!(md, "- {key}: {error}");
        }
    }
    md
}

/// One Markdown table of levels, with a rank column when `ranks`.
fn md_table(md: &mut String, rows: &[(&LevelRow, f64)], ranks: bool) {
    md.push_str(if ranks {
        "| rank | level | title |"
    } else {
        "| level | title |"
    });
    for m in &METRICS {
        let _ = write!(md, " {} |", m.name);
    }
    md.push_str(" win actions | seconds |\n|");
    md.push_str(&"---|".repeat(METRICS.len() + 4 + usize::from(ranks)));
    md.push('\n');
    for (rank, (r, _)) in rows.iter().enumerate() {
        if ranks {
            let _ = write!(md, "| {} ", rank + 1);
        }
        let _ = write!(md, "| {} | {} |", r.key, r.title.replace('|', "\\|"));
        for m in &METRICS {
            let _ = write!(md, " {} |", shown(r, m));
        }
        let _ = writeln!(md, " {} | {:.2} |", win_actions(r), r.seconds);
    }
}

/// Escapes text for HTML.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const SORT_SCRIPT: &str = r#"
for (const th of document.querySelectorAll('th[data-col]')) {
  th.addEventListener('click', () => {
    const table = th.closest('table');
    const col = Number(th.dataset.col);
    const down = th.dataset.dir !== 'desc';
    th.dataset.dir = down ? 'desc' : 'asc';
    const rows = Array.from(table.tBodies[0].rows);
    const key = r => { const c = r.cells[col]; const v = c.dataset.v; return v === undefined ? c.textContent : (v === '' ? -Infinity : Number(v)); };
    rows.sort((a, b) => { const x = key(a), y = key(b); const o = x < y ? -1 : x > y ? 1 : 0; return down ? -o : o; });
    for (const r of rows) table.tBodies[0].appendChild(r);
  });
}
document.body.dataset.ready = 'yes';
"#;

fn html(l: &Levels) -> String {
    let mut page = String::from(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>hsg batch</title>\
         <style>body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}\
         table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}\
         th[data-col]{cursor:pointer;background:#eef}td.n{text-align:right}\
         .partial{color:#a60}</style></head><body>",
    );
    let _ = write!(
        page,
        "<h1>Batch: {} levels measured ({} complete, {} partial), {} failed</h1><p>{} \
         Each level links to its own report. Click a column to sort.</p>\
         <h2>Extremes of the complete levels</h2>",
        l.complete.len() + l.partial.len(),
        l.complete.len(),
        l.partial.len(),
        l.failed.len(),
        escape(INTRO)
    );
    if l.complete.is_empty() {
        page.push_str("<p>No level is complete: nothing is ranked.</p>");
    } else {
        page.push_str(
            "<table><thead><tr><th>metric</th><th>highest</th><th>lowest</th></tr></thead><tbody>",
        );
        for m in &METRICS {
            let list = ranked(&l.complete, m);
            let _ = write!(
                page,
                "<tr><td title=\"{}\">{}</td><td>{}</td><td>{}</td></tr>",
                escape(m.meaning),
                m.name,
                escape(&extremes_line(&list, m, true)),
                escape(&extremes_line(&list, m, false))
            );
        }
        page.push_str("</tbody></table>");
    }
    page.push_str("<h2>Complete levels</h2>");
    html_table(&mut page, l, &l.complete, "complete");
    if !l.partial.is_empty() {
        page.push_str("<h2>Partial levels (stopped by --max-states, not ranked)</h2>");
        html_table(&mut page, l, &l.partial, "partial");
    }
    if !l.failed.is_empty() {
        page.push_str("<h2>Failed levels</h2><ul>");
        for (key, error) in &l.failed {
            let _ = write!(page, "<li>{}: {}</li>", escape(key), escape(error));
        }
        page.push_str("</ul>");
    }
    let _ = writeln!(page, "<script>{SORT_SCRIPT}</script></body></html>");
    page
}

/// One sortable table of levels; `id` names it (`complete`, `partial`).
fn html_table(page: &mut String, l: &Levels, rows: &[&LevelRow], id: &str) {
    let _ = write!(page, "<table id=\"{id}\"><thead><tr>");
    let mut headers = vec!["level", "title"];
    headers.extend(METRICS.iter().map(|m| m.name));
    headers.extend(["win actions", "seconds"]);
    for (i, h) in headers.iter().enumerate() {
        let _ = write!(page, "<th data-col=\"{i}\">{h}</th>");
    }
    page.push_str("</tr></thead><tbody>");
    for r in rows {
        let _ = write!(
            page,
            "<tr><td>{}</td><td>{}</td>",
            l.link(&r.key),
            escape(&r.title)
        );
        for m in &METRICS {
            let v = (m.value)(r).filter(|_| r.complete || m.on_partial);
            let _ = write!(
                page,
                "<td class=\"n\" data-v=\"{}\">{}</td>",
                v.map_or(String::new(), |v| v.to_string()),
                escape(&shown(r, m))
            );
        }
        let win = r.shortest_win_actions.map(|a| a as f64);
        let _ = write!(
            page,
            "<td class=\"n\" data-v=\"{}\">{}</td><td class=\"n\" data-v=\"{}\">{:.2}</td></tr>",
            win.map_or(String::new(), |v| v.to_string()),
            win_actions(r),
            r.seconds,
            r.seconds
        );
    }
    page.push_str("</tbody></table>");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(key: &str, states: u64, headroom: Option<f64>) -> LevelRow {
        LevelRow {
            key: key.into(),
            title: "a, \"quoted\" title".into(),
            states,
            hyperstates: states / 2,
            root_headroom: headroom,
            complete: true,
            ..LevelRow::default()
        }
    }

    #[test]
    fn rankings_put_the_largest_first_and_skip_missing_values() {
        let (a, b, c) = (
            row("a", 10, Some(0.5)),
            row("b", 30, None),
            row("c", 20, Some(0.9)),
        );
        let rows = vec![&a, &b, &c];
        let by_states: Vec<&str> = ranked(&rows, &METRICS[0])
            .iter()
            .map(|(r, _)| r.key.as_str())
            .collect();
        assert_eq!(by_states, ["b", "c", "a"]);
        assert_eq!(ranked(&rows, &METRICS[6]).len(), 2);
        let list = ranked(&rows, &METRICS[0]);
        assert_eq!(
            extremes_line(&list, &METRICS[0], false),
            "a (10), c (20), b (30)"
        );
    }

    #[test]
    fn csv_quotes_text_and_lists_failures() {
        let a = row("a", 10, None);
        let text = csv(&[&a], &[("bad", "no, level")]);
        let lines: Vec<&str> = text.lines().collect();
        let columns = lines[0].split(',').count();
        assert!(lines[1].contains("\"a, \"\"quoted\"\" title\""));
        assert!(lines[2].starts_with("bad,"));
        assert!(lines[2].ends_with("\"no, level\""));
        // Every line has as many columns as the header (the quoted comma is one field).
        assert_eq!(lines[2].matches(',').count(), columns);
    }

    #[test]
    fn partial_levels_are_listed_apart_and_never_ranked() {
        let done = row("done", 1000, Some(0.5));
        let mut cut = row("cut", 150_000, Some(0.0));
        cut.complete = false;
        let levels = Levels {
            complete: vec![&done],
            partial: vec![&cut],
            failed: Vec::new(),
            reports: ["done".to_string()].into(),
        };
        let md = markdown(&levels);
        let extremes = &md[md.find("## Extremes").unwrap()..md.find("## Complete").unwrap()];
        assert!(!extremes.contains("cut"), "{extremes}");
        assert!(extremes.contains("done (1,000)"), "{extremes}");
        let partial = &md[md.find("## Partial").unwrap()..];
        // Its count is shown grouped, its headroom over an unfinished graph is not.
        assert!(partial.contains("| cut | "), "{partial}");
        assert!(partial.contains(" 150,000 |"), "{partial}");
        assert!(!partial.contains("0.0000"), "{partial}");
        let page = html(&levels);
        assert!(page.contains("<a href=\"reports/done.html\">done</a>"));
        assert!(!page.contains("reports/cut.html"), "no report, no link");
    }
}
