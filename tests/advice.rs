//! Every piece of advice `hsg` prints is a command that works: each case triggers an
//! error (or a stop) whose message advises a command, takes that command out of the
//! message as printed, runs it through a shell, and checks that it succeeds.
//!
//! Regression: `hsg open FILE` on an edited level said "use --force-new", and `open`
//! had no --force-new: the advice was a dead end.

use crate::util::{explore, hsg, level, ok, path_arg, run};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A folder with `hsg` on it, so that advice spelled `hsg ...` runs as printed.
fn bin_dir(scratch: &Path) -> PathBuf {
    let bin = scratch.join("bin");
    std::fs::create_dir_all(&bin).expect("bin folder");
    let link = bin.join("hsg");
    if !link.exists() {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hsg"), &link).expect("symlink");
    }
    bin
}

/// Runs `command` (a shell line, as `hsg` printed it) with `hsg` on the PATH.
fn shell(command: &str, scratch: &Path) -> Output {
    let path = format!(
        "{}:{}",
        bin_dir(scratch).display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .arg("-c")
        .arg(command)
        .env("PATH", path)
        .current_dir(scratch)
        .stdin(Stdio::null())
        .output()
        .expect("sh runs")
}

/// Runs the advised `command` and asserts it succeeds.
fn advice_works(command: &str, scratch: &Path) -> Output {
    let out = shell(command, scratch);
    assert!(
        out.status.success(),
        "the advised command `{command}` failed with {:?}: {}",
        out.status,
        stderr(&out)
    );
    out
}

/// The command on the line after `intro` (printed indented on a line of its own).
fn command_after(text: &str, intro: &str) -> String {
    let (_, rest) = text
        .split_once(intro)
        .unwrap_or_else(|| panic!("no `{intro}` in: {text}"));
    rest.trim_start_matches(['\n', ' '])
        .lines()
        .next()
        .expect("a command line")
        .trim()
        .to_string()
}

/// The first command in backquotes that starts with `hsg `.
fn quoted_command(text: &str) -> String {
    text.split('`')
        .skip(1)
        .step_by(2)
        .find(|c| c.starts_with("hsg "))
        .unwrap_or_else(|| panic!("no `hsg ...` advice in: {text}"))
        .to_string()
}

/// A Sokoban level file in `dir` (a folder name with a space), then the same file
/// edited: one more wall, so it is another level.
fn edited_level(dir: &Path) -> PathBuf {
    let folder = dir.join("my levels");
    std::fs::create_dir_all(&folder).expect("folder");
    let file = folder.join("tiny.xsb");
    std::fs::copy(level("sokoban/tiny.xsb"), &file).expect("copy");
    file
}

/// One more wall in the top right corner of tiny.xsb.
fn edit(file: &Path) {
    let text = std::fs::read_to_string(file).expect("level");
    let edited = text.replacen("#     #", "#    ##", 1);
    assert_ne!(edited, text);
    std::fs::write(file, edited).expect("write");
}

#[test]
fn explore_on_an_edited_level_prints_the_force_new_command() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = edited_level(dir.path());
    let store = dir.path().join("my runs/tiny");
    explore(&file, &store, &[]);
    edit(&file);
    let out = run(&["explore", path_arg(&file), "--store", path_arg(&store)]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("use --force-new"), "{err}");
    let command = command_after(&err, "to delete that run and start again:");
    advice_works(&command, dir.path());
    // Resuming the replaced run now works without the flag.
    ok(&["explore", path_arg(&file), "--store", path_arg(&store)]);
}

#[test]
fn a_damaged_finished_run_and_a_lost_manifest_point_to_force_new() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = level("sokoban/room3.xsb");
    let store = dir.path().join("run");
    let limit = ["--max-states", "200000"];
    explore(&file, &store, &limit);
    let mut args = vec!["explore", path_arg(&file), "--store", path_arg(&store)];
    args.extend(limit);
    // A flipped byte in the first of the largest file's checksummed blocks (of 1 MiB),
    // which resuming does not read: the finished run's full check finds it.
    let largest = std::fs::read_dir(&store)
        .expect("store")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .max_by_key(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .expect("a data file");
    let mut bytes = std::fs::read(&largest).expect("data file");
    assert!(
        bytes.len() > (1 << 20) + 8192,
        "{}: {} bytes",
        largest.display(),
        bytes.len()
    );
    bytes[5000] ^= 0x40;
    std::fs::write(&largest, bytes).expect("write");
    let out = run(&args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("damaged"), "{err}");
    advice_works(
        &command_after(&err, "to delete that run and start again:"),
        dir.path(),
    );
    // A run's files without its MANIFEST.
    std::fs::remove_file(store.join("MANIFEST")).expect("remove");
    let err = stderr(&run(&args));
    assert!(err.contains("use --force-new"), "{err}");
    advice_works(
        &command_after(&err, "to delete that run and start again:"),
        dir.path(),
    );
}

#[test]
fn an_interrupted_exploration_prints_a_resume_command_that_pastes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = dir.path().join("my levels");
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("room 3.xsb");
    std::fs::copy(level("sokoban/room3.xsb"), &file).unwrap();
    let store = dir.path().join("my runs/room 3");
    let child = hsg()
        .args(["explore", path_arg(&file), "--store", path_arg(&store)])
        .args(["--max-states", "300000", "--checkpoint-secs", "0.1"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("hsg starts");
    std::thread::sleep(Duration::from_millis(700));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let out = child.wait_with_output().expect("hsg ends");
    let err = stderr(&out);
    if out.status.code() != Some(130) {
        // The machine finished before the signal: nothing to resume.
        assert!(out.status.success(), "{err}");
        return;
    }
    let command = command_after(&err, "to resume, run the same command again:");
    let resumed = advice_works(&command, dir.path());
    assert!(stderr(&resumed).contains("partial"), "{}", stderr(&resumed));
}

#[test]
fn why_on_a_winnable_state_points_to_a_path_command_that_works() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("my run");
    explore(&level("sokoban/twoboxes.xsb"), &store, &["--analyze"]);
    let out = run(&["why", path_arg(&store), "0"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    let command = quoted_command(&err.replace("`hsg why`", ""));
    assert!(command.starts_with("hsg path"), "{command}");
    let path = advice_works(&command, dir.path());
    assert!(!path.stdout.is_empty());
}

#[test]
fn usage_errors_advise_commands_that_work() {
    let dir = tempfile::tempdir().expect("temp dir");
    let twoboxes = level("sokoban/twoboxes.xsb");
    let store = dir.path().join("run");
    explore(&twoboxes, &store, &["--analyze"]);
    let limited = dir.path().join("limited");
    explore(&twoboxes, &limited, &["--max-depth", "3"]);

    // Runs given to diff in the wrong order: the message spells the right order.
    let out = run(&["diff", path_arg(&store), path_arg(&limited)]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    let (_, tail) = err.split_once("second: ").expect("the swapped order");
    advice_works(tail.lines().next().unwrap(), dir.path());
    // ... and the hint under every usage error.
    advice_works(&quoted_help(&err).replace("'", ""), dir.path());

    // An SVG of the SSG: use --graph hsg.
    let svg = dir.path().join("map.svg");
    let mut args = vec![
        "export",
        path_arg(&store),
        "--format",
        "svg",
        "--graph",
        "ssg",
    ];
    args.extend(["-o", path_arg(&svg)]);
    let err = stderr(&run(&args));
    assert!(err.contains("use --graph hsg"), "{err}");
    args[5] = "hsg";
    ok(&args);

    // LURD on a game that is not Sokoban: use actions or json.
    let graph = dir.path().join("graph");
    explore(&level("puzzlegraph/Ball Track.txt"), &graph, &[]);
    let mut args = vec!["path", path_arg(&graph), "--to", "win", "--format", "lurd"];
    let out = run(&args);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("use actions or json"));
    args[5] = "actions";
    ok(&args);

    // A memory budget too small to start names the least one.
    let tiny = dir.path().join("tiny");
    let tiny_level = level("sokoban/tiny.xsb");
    let out = run(&[
        "explore",
        path_arg(&tiny_level),
        "--store",
        path_arg(&tiny),
        "--mem",
        "1K",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    let least = err
        .split("at least ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .unwrap_or_else(|| panic!("{err}"))
        .replace(',', "");
    ok(&[
        "explore",
        path_arg(&tiny_level),
        "--store",
        path_arg(&tiny),
        "--mem",
        &least,
    ]);
}

/// The `hsg ... --help` of the hint under a usage error.
fn quoted_help(err: &str) -> String {
    let (_, rest) = err.split_once("try '").expect("the help hint");
    rest.split('\'').next().expect("closing quote").to_string()
}

/// `hsg open` on an edited level, in a terminal (tmux): the error prints the command
/// with --force-new, which explores the edited level and opens the workbench.
#[test]
fn open_on_an_edited_level_advises_a_force_new_that_open_accepts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = edited_level(dir.path());
    let store = dir.path().join("my runs/tiny");
    explore(&file, &store, &[]);
    edit(&file);
    let bin = bin_dir(dir.path());
    let socket = dir.path().join("tmux");
    let _server = crate::manual::KillOnDrop(socket.clone());
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .args(["-S", path_arg(&socket), "-f", "/dev/null"])
            .args(args)
            .env_remove("TMUX")
            .output()
            .expect("tmux runs (install it, e.g. `apt-get install tmux`; .ci/run does)")
    };
    let line = format!(
        "cd '{}'; PATH='{}':$PATH; hsg open 'my levels/tiny.xsb' --store 'my runs/tiny'; exec cat",
        path_arg(dir.path()),
        path_arg(&bin)
    );
    let started = tmux(&["new-session", "-d", "-x", "120", "-y", "30", &line]);
    assert!(started.status.success(), "{}", stderr(&started));
    let screen = |want: &str| {
        let start = Instant::now();
        loop {
            let text =
                String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-J"]).stdout).into_owned();
            if text.contains(want) {
                return text;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no `{want}` on screen:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let text = screen("start again:");
    let command = command_after(&text, "to delete that run and start again:");
    assert!(command.ends_with("--force-new"), "{command}");
    tmux(&[
        "respawn-pane",
        "-k",
        &format!(
            "cd '{}'; PATH='{}':$PATH; {command}; echo EXIT=$?; exec cat",
            path_arg(dir.path()),
            path_arg(&bin)
        ),
    ]);
    screen("Overview");
    tmux(&["send-keys", "q"]);
    screen("EXIT=0");
    tmux(&["kill-server"]);
}
