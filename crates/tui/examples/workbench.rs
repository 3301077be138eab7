//! Runs the workbench without the `hsg` binary: on a run directory, or on the built-in
//! demo level when none is given. `cargo run -p tui --example workbench -- [DIR]
//! [--ascii] [--no-color] [--svg OUT]`.

use std::path::PathBuf;
use tui::TuiOptions;

fn main() {
    let mut opts = TuiOptions::default();
    let mut dir: Option<PathBuf> = None;
    let mut svg: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--ascii" => opts.ascii = true,
            "--no-color" => opts.no_colour = true,
            "--svg" => svg = args.next().map(PathBuf::from),
            _ => dir = Some(PathBuf::from(a)),
        }
    }
    let result = match (&dir, &svg) {
        (Some(d), Some(out)) => tui::export_svg(d, out).map(|s| println!("{s:?}")),
        (Some(d), None) => tui::run(d, opts),
        (None, _) => tui::run_demo(None, opts),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
