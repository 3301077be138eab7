//! Shell completions and manual pages generated from the clap definitions, and the
//! global `--color auto|always|never` (with NO_COLOR) on help, errors and the workbench.

use crate::util::{hsg, ok, run};
use std::process::Command;
use std::time::{Duration, Instant};

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn completions_cover_every_command_in_each_shell() {
    let bash = stdout(&ok(&["completions", "bash"]));
    assert!(bash.contains("_hsg()"), "{bash}");
    for command in ["explore", "batch", "open", "completions", "man"] {
        assert!(bash.contains(command), "bash lacks {command}");
    }
    assert!(bash.contains("--force-new"));
    let zsh = stdout(&ok(&["completions", "zsh"]));
    assert!(zsh.starts_with("#compdef hsg"), "{zsh}");
    let fish = stdout(&ok(&["completions", "fish"]));
    assert!(fish.contains("complete -c hsg"), "{fish}");
    // bash reads the script without a syntax error.
    let check = Command::new("bash").arg("-n").arg("-c").arg(&bash).output();
    if let Ok(check) = check {
        assert!(
            check.status.success(),
            "{}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
    assert_eq!(run(&["completions", "tcsh-but-not"]).status.code(), Some(2));
}

#[test]
fn man_pages_are_roff_for_hsg_and_each_command() {
    let page = stdout(&ok(&["man"]));
    assert!(
        page.starts_with(".ie") || page.contains(".TH hsg"),
        "{page}"
    );
    assert!(page.contains("explore"), "the main page lists the commands");
    let explore = stdout(&ok(&["man", "explore"]));
    assert!(explore.contains(".TH hsg-explore"), "{explore}");
    assert!(explore.contains("force\\-new"), "{explore}");
    let select = stdout(&ok(&["man", "fling", "select"]));
    assert!(select.contains(".TH hsg-fling-select"), "{select}");
    let wrong = run(&["man", "nosuch"]);
    assert_eq!(wrong.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("`hsg nosuch` is not a command"));
}

#[test]
fn help_and_errors_follow_color_and_no_color() {
    let help = |colour: &str, no_color: bool| {
        let mut cmd = hsg();
        cmd.args(["explore", "--help", "--color", colour]);
        if no_color {
            cmd.env("NO_COLOR", "1");
        } else {
            cmd.env_remove("NO_COLOR");
        }
        stdout(&cmd.output().expect("hsg runs"))
    };
    assert!(
        help("always", true).contains("\x1b["),
        "always colours, NO_COLOR or not"
    );
    assert!(!help("never", false).contains("\x1b["));
    // Not a terminal: auto does not colour.
    assert!(!help("auto", false).contains("\x1b["));
    let wrong = run(&["info", "x", "--color", "purple"]);
    assert_eq!(wrong.status.code(), Some(2));
    // The hint under a usage error names the command, not the colour's value.
    let err = run(&["--color", "never", "man", "nosuch"]);
    let text = String::from_utf8_lossy(&err.stderr);
    assert!(text.contains("try 'hsg man --help'"), "{text}");
}

/// The workbench in tmux with NO_COLOR set: `--color always` draws colours anyway,
/// `--color never` draws none.
#[test]
fn the_workbench_colours_with_color_always_even_under_no_color() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (flag, coloured) in [("always", true), ("never", false)] {
        let socket = dir.path().join(format!("tmux-{flag}"));
        let tmux = |args: &[&str]| {
            Command::new("tmux")
                .args(["-S", crate::util::path_arg(&socket), "-f", "/dev/null"])
                .args(args)
                .env_remove("TMUX")
                .output()
                .expect("tmux runs (install it, e.g. `apt-get install tmux`; .ci/run does)")
        };
        // The server goes when this test ends, failing or not.
        let _server = KillOnDrop(socket.clone());
        let line = format!(
            "NO_COLOR=1 '{}' tui --demo --color {flag}; exec cat",
            env!("CARGO_BIN_EXE_hsg")
        );
        assert!(tmux(&["new-session", "-d", "-x", "80", "-y", "24", &line])
            .status
            .success());
        let start = Instant::now();
        let screen = loop {
            let screen = stdout(&tmux(&["capture-pane", "-p", "-e"]));
            if screen.contains("compression") {
                break screen;
            }
            assert!(start.elapsed() < Duration::from_secs(30), "{screen}");
            std::thread::sleep(Duration::from_millis(100));
        };
        // Any foreground or background colour (not the resets 39 and 49).
        let has_colour = screen.split("\x1b[").skip(1).any(|seq| {
            seq.split_once('m').is_some_and(|(params, _)| {
                params.split(';').any(|p| {
                    matches!(
                        p.parse::<u32>(),
                        Ok(30..=38 | 40..=48 | 90..=97 | 100..=107)
                    )
                })
            })
        });
        assert_eq!(has_colour, coloured, "--color {flag}:\n{screen}");
        tmux(&["send-keys", "q"]);
        tmux(&["kill-server"]);
    }
}

/// Kills the tmux server on a socket when dropped.
pub(crate) struct KillOnDrop(pub(crate) std::path::PathBuf);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-S", crate::util::path_arg(&self.0), "kill-server"])
            .env_remove("TMUX")
            .output();
    }
}
