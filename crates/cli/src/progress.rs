//! The one progress display of every command, on standard error. On a terminal it is a
//! live line (a bar when the amount of work is known, a spinner when it is not); when
//! standard error is a pipe or a file it prints plain lines instead, so that a piped
//! long job is never silent and a log stays readable:
//!
//! - [`Progress::counted`] (Fling! tables and ranking, the levels of a batch): a bar,
//!   or one line per tenth done (and at least every [`LINE_EVERY`]);
//! - [`Progress::status`] (an exploration, a cluster): a spinner with the latest
//!   status, or each status as a `[  12.3s] ...` line, at most one per period;
//! - [`Progress::terminal_only`] (the analysis's phases): a bar, or nothing at all,
//!   since the lines before and after say what it does.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The longest silence between two progress lines when standard error is not a terminal.
pub const LINE_EVERY: Duration = Duration::from_secs(30);

/// How often a terminal's live line is redrawn.
const TICK: Duration = Duration::from_millis(200);

/// A progress display (see the module documentation for its three kinds).
pub struct Progress {
    sink: Sink,
}

enum Sink {
    Bar(ProgressBar),
    Lines(Mutex<Lines>),
    Quiet,
}

/// The state of the line printer: what it printed last.
struct Lines {
    message: String,
    total: u64,
    started: Instant,
    last_line: Option<Instant>,
    last_tenth: u64,
    /// For status lines: the shortest time between two of them.
    every: Duration,
}

impl Progress {
    /// Work of `total` units: a bar on a terminal, else a line per tenth done.
    pub fn counted(total: u64, message: String) -> Progress {
        Progress::counted_on(total, message, std::io::stderr().is_terminal())
    }

    fn counted_on(total: u64, message: String, terminal: bool) -> Progress {
        if terminal {
            let bar = ProgressBar::new(total);
            bar.set_style(style(
                "{msg} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} ({percent}%) eta {eta}",
            ));
            bar.set_message(message);
            bar.enable_steady_tick(TICK);
            return Progress {
                sink: Sink::Bar(bar),
            };
        }
        Progress::lines(message, total, LINE_EVERY)
    }

    /// Work of unknown size told as status lines: a spinner with the latest status on a
    /// terminal, else each status as a line, at most one per `every`.
    pub fn status(every: Duration) -> Progress {
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new_spinner();
            bar.set_style(style("{spinner} {elapsed_precise} {msg}"));
            bar.enable_steady_tick(TICK);
            return Progress {
                sink: Sink::Bar(bar),
            };
        }
        Progress::lines(String::new(), 0, every)
    }

    /// Steps of a job shown on a terminal only (`message` before the bar); nothing is
    /// printed elsewhere.
    pub fn terminal_only(message: String) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress { sink: Sink::Quiet };
        }
        let bar = ProgressBar::new(1);
        bar.set_style(style(&format!(
            "{{spinner}} {message} [{{elapsed_precise}}] {{bar:20}} {{msg}}"
        )));
        bar.enable_steady_tick(TICK);
        Progress {
            sink: Sink::Bar(bar),
        }
    }

    fn lines(message: String, total: u64, every: Duration) -> Progress {
        Progress {
            sink: Sink::Lines(Mutex::new(Lines {
                message,
                total,
                started: Instant::now(),
                last_line: None,
                last_tenth: 0,
                every,
            })),
        }
    }

    /// Records that `done` units of a counted job are finished.
    pub fn set(&self, done: u64) {
        match &self.sink {
            Sink::Bar(bar) => bar.set_position(done),
            Sink::Lines(lines) => {
                if let Some(line) = lines.lock().ok().and_then(|mut l| l.line_at(done)) {
                    eprintln!("{line}");
                }
            }
            Sink::Quiet => {}
        }
    }

    /// Step `number` (from 1) of `of`, named `name` (a terminal-only display).
    pub fn step(&self, number: usize, of: usize, name: &str) {
        if let Sink::Bar(bar) = &self.sink {
            bar.set_length(of as u64);
            bar.set_position(number.saturating_sub(1) as u64);
            bar.set_message(format!("phase {number} of {of}: {name}"));
        }
    }

    /// The latest status of a status display, `elapsed_secs` into the job.
    pub fn update(&self, elapsed_secs: f64, status: String) {
        match &self.sink {
            Sink::Bar(bar) => bar.set_message(status),
            Sink::Lines(lines) => {
                let Ok(mut lines) = lines.lock() else { return };
                let now = Instant::now();
                if lines.last_line.is_some_and(|t| now - t < lines.every) {
                    return;
                }
                lines.last_line = Some(now);
                eprintln!("[{elapsed_secs:>7.1}s] {status}");
            }
            Sink::Quiet => {}
        }
    }

    /// One item of a counted job finished (a level of a batch): the bar moves to
    /// `done` and names it; off a terminal, every item gets its line. A `notable`
    /// item (a failure) is printed above the bar too.
    pub fn item(&self, done: u64, name: &str, line: &str, notable: bool) {
        match &self.sink {
            Sink::Bar(bar) => {
                if notable {
                    bar.println(line);
                }
                bar.set_position(done);
                bar.set_message(name.to_string());
            }
            Sink::Lines(lines) => {
                let total = lines.lock().map_or(0, |l| l.total);
                eprintln!("[{done}/{total}] {line}");
            }
            Sink::Quiet => {}
        }
    }

    /// A message that stays: above the live line on a terminal, a plain line elsewhere.
    pub fn println(&self, message: &str) {
        match &self.sink {
            Sink::Bar(bar) => bar.println(message),
            Sink::Lines(_) | Sink::Quiet => eprintln!("{message}"),
        }
    }

    /// Ends the display: the live line is cleared (the command prints its own summary).
    pub fn finish(&self) {
        if let Sink::Bar(bar) = &self.sink {
            bar.finish_and_clear();
        }
    }
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar())
}

impl Lines {
    /// The line to print for `done` units, when a new tenth was crossed or the last
    /// line is older than [`LINE_EVERY`].
    fn line_at(&mut self, done: u64) -> Option<String> {
        let tenth = done.saturating_mul(10) / self.total.max(1);
        let now = Instant::now();
        let since = now.duration_since(self.last_line.unwrap_or(self.started));
        if tenth <= self.last_tenth && since < LINE_EVERY {
            return None;
        }
        self.last_tenth = self.last_tenth.max(tenth);
        self.last_line = Some(now);
        let percent = done as f64 * 100.0 / self.total.max(1) as f64;
        Some(format!(
            "{}: {percent:.0}% ({} of {}) after {:.0} s",
            self.message,
            model::numbers::grouped(done),
            model::numbers::grouped(self.total),
            now.duration_since(self.started).as_secs_f64()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_come_once_per_tenth() {
        let progress = Progress::counted_on(1000, "ranking".into(), false);
        let Sink::Lines(lines) = &progress.sink else {
            panic!("a line printer off a terminal");
        };
        let mut lines = lines.lock().unwrap();
        let printed: Vec<String> = (0..=1000)
            .step_by(7)
            .filter_map(|done| lines.line_at(done))
            .collect();
        assert_eq!(printed.len(), 9, "{printed:?}");
        assert!(
            printed[0].starts_with("ranking: 10% (105 of 1,000)"),
            "{printed:?}"
        );
        assert_eq!(
            lines.line_at(1000).as_deref().map(|l| l.contains("100%")),
            Some(true)
        );
    }
}
