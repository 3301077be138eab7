//! The hyperstate workbench: a terminal UI (ratatui + crossterm) to browse the
//! hyperstates of an analysed run, built to work over SSH at 80x24, and the SVG export
//! of its graph view.
//!
//! Entry points for the command line: [`run`] (`hsg tui DIR`), [`run_demo`] (the
//! built-in fixture, for trying the keys without a store) and [`export_svg`]
//! (`hsg export DIR --format svg`).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod app;
pub mod bench_support;
pub mod bookmarks;
pub mod bookmarks_check;
pub mod data;
pub mod error;
pub mod keys;
pub mod play;
pub mod runtime;
pub mod spring_layout;
pub mod spring_layout_cache;
pub mod svg;
mod terminal;
pub mod ui;

pub use app::ViewOptions;
pub use data::Workbench;
pub use error::TuiError;
pub use svg::{SvgStats, SVG_MAX_NODES};

use runtime::{Loader, Report};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Radius of the neighbourhood the graph view and the SVG export start with.
pub const DEFAULT_RADIUS: u32 = 3;

/// How the workbench draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TuiOptions {
    /// `--ascii`: plain ASCII instead of Unicode borders, braille and symbols.
    pub ascii: bool,
    /// Draw without colour (`--no-color`); colour is also off when `NO_COLOR` is set.
    pub no_colour: bool,
    /// Draw in colour even when `NO_COLOR` is set (`--color always`).
    pub force_colour: bool,
}

impl TuiOptions {
    /// The drawing options, with `NO_COLOR` (any non-empty value) turning colour off
    /// unless colour is forced; forcing it also tells crossterm, which honours
    /// `NO_COLOR` on its own.
    pub fn view(self) -> ViewOptions {
        if self.force_colour && !self.no_colour {
            crossterm::style::force_color_output(true);
        }
        let no_color_env = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        ViewOptions {
            ascii: self.ascii,
            colour: !self.no_colour && (self.force_colour || !no_color_env),
        }
    }
}

/// Opens the run in `dir` (finished, partial, or still being explored by another
/// process) and runs the workbench on the terminal until the user quits. The store is
/// opened and its analysis loaded (or computed and saved if there is none) on a
/// background thread while a spinner turns. The terminal is restored on quit, on
/// error and on panic.
pub fn run(dir: &Path, opts: TuiOptions) -> Result<(), TuiError> {
    let again = dir.to_path_buf();
    terminal::run_with_loader(
        opts.view(),
        store_loader(dir.to_path_buf()),
        Some(Box::new(move || store_loader(again.clone()))),
    )
}

/// The loader of [`run`]: it reports the overview first (from `MANIFEST` and the
/// analysis summary), then opens the store and loads (or computes) the analysis.
pub fn store_loader(dir: PathBuf) -> Loader {
    Box::new(move |report| {
        if let Some(o) = data::run::preview(&dir) {
            report(Report::Overview(Box::new(o)));
        }
        let phase = |p: &str| report(Report::Phase(p.to_string()));
        let bench = data::run::open_store(&dir, &phase)?;
        Ok(Arc::new(bench) as Arc<dyn Workbench>)
    })
}

/// Runs the workbench on the built-in fixture (a small Sokoban level explored in
/// memory); bookmarks and layouts are kept in `dir` when given.
pub fn run_demo(dir: Option<&Path>, opts: TuiOptions) -> Result<(), TuiError> {
    let dir = dir.map(Path::to_path_buf);
    terminal::run_with_loader(
        opts.view(),
        Box::new(move |report| {
            report(Report::Phase("exploring the demo level".into()));
            let bench = data::fixture::two_boxes(dir.as_deref())?;
            Ok(Arc::new(bench) as Arc<dyn Workbench>)
        }),
        None,
    )
}

/// Writes the graph view's picture of the run in `dir` to `out` as SVG: the whole HSG
/// when it is small, else the root's neighbourhood of [`DEFAULT_RADIUS`].
pub fn export_svg(dir: &Path, out: &Path) -> Result<SvgStats, TuiError> {
    let file = std::fs::File::create(out).map_err(|e| TuiError::io(out, e))?;
    let mut writer = std::io::BufWriter::new(file);
    write_svg_of(dir, DEFAULT_RADIUS, svg::SVG_MAX_NODES, &mut writer, out)
}

/// Writes the graph view's picture of the run in `dir` to `writer` as SVG: the whole HSG
/// when it has at most `max_nodes` hyperstates, else the root's neighbourhood of
/// `radius` critical actions (at most `max_nodes` of them). `name` names the output in
/// errors (a file, or `-` for standard output).
pub fn write_svg_of(
    dir: &Path,
    radius: u32,
    max_nodes: usize,
    writer: &mut dyn std::io::Write,
    name: &Path,
) -> Result<SvgStats, TuiError> {
    let bench = data::run::open_store(dir, &|_| {})?;
    // The workbench verifies in the background; an export has no time to show first.
    bench.verify_analysis().map_err(|d| TuiError::Corrupt {
        path: dir.to_path_buf(),
        what: format!("{} {}", d.what, d.remedy),
    })?;
    svg::write_svg(&bench, bench.root(), radius, max_nodes, writer)
        .and_then(|s| writer.flush().map(|_| s))
        .map_err(|e| TuiError::io(name, e))
}

#[cfg(test)]
mod test_support;
