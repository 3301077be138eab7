//! Progress of a long job with a known amount of work, on standard error: a bar on a
//! terminal, and when standard error is a pipe or a file, one line per tenth done (and
//! at least every [`LINE_EVERY`]), so that a piped `hsg fling select` does not sit
//! silent for minutes.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The longest silence between two progress lines when standard error is not a terminal.
pub const LINE_EVERY: Duration = Duration::from_secs(30);

/// A progress report over `total` units of work.
pub struct Progress {
    sink: Sink,
}

enum Sink {
    Bar(ProgressBar),
    Lines(Mutex<Lines>),
}

/// The state of the line printer: what it printed last.
struct Lines {
    message: String,
    total: u64,
    started: Instant,
    last_line: Instant,
    last_tenth: u64,
}

impl Progress {
    /// A bar when standard error is a terminal, else progress lines.
    pub fn new(total: u64, message: String) -> Progress {
        Progress::with_terminal(total, message, std::io::stderr().is_terminal())
    }

    fn with_terminal(total: u64, message: String, terminal: bool) -> Progress {
        let sink = if terminal {
            let bar = ProgressBar::new(total);
            let style = ProgressStyle::with_template(
                "{msg} [{elapsed_precise}] {wide_bar} {percent}% eta {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.set_message(message);
            Sink::Bar(bar)
        } else {
            let now = Instant::now();
            Sink::Lines(Mutex::new(Lines {
                message,
                total,
                started: now,
                last_line: now,
                last_tenth: 0,
            }))
        };
        Progress { sink }
    }

    /// Records that `done` units are finished.
    pub fn set(&self, done: u64) {
        match &self.sink {
            Sink::Bar(bar) => bar.set_position(done),
            Sink::Lines(lines) => {
                if let Some(line) = lines.lock().ok().and_then(|mut l| l.line_at(done)) {
                    eprintln!("{line}");
                }
            }
        }
    }

    /// Ends the report: the bar is cleared (the command prints its own summary).
    pub fn finish(self) {
        if let Sink::Bar(bar) = self.sink {
            bar.finish_and_clear();
        }
    }
}

impl Lines {
    /// The line to print for `done` units, when a new tenth was crossed or the last
    /// line is older than [`LINE_EVERY`].
    fn line_at(&mut self, done: u64) -> Option<String> {
        let tenth = done.saturating_mul(10) / self.total.max(1);
        let now = Instant::now();
        if tenth <= self.last_tenth && now.duration_since(self.last_line) < LINE_EVERY {
            return None;
        }
        self.last_tenth = self.last_tenth.max(tenth);
        self.last_line = now;
        let percent = done as f64 * 100.0 / self.total.max(1) as f64;
        Some(format!(
            "{}: {percent:.0} % ({done} of {}) after {:.0} s",
            self.message,
            self.total,
            now.duration_since(self.started).as_secs_f64()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_come_once_per_tenth() {
        let progress = Progress::with_terminal(1000, "ranking".into(), false);
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
            printed[0].starts_with("ranking: 10 % (105 of 1000)"),
            "{printed:?}"
        );
        assert_eq!(
            lines.line_at(1000).as_deref().map(|l| l.contains("100 %")),
            Some(true)
        );
    }
}
