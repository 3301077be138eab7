//! `-o DEST` of `export`, `html` and `fling select` never harms what DEST is: a device
//! or FIFO is written through (never replaced by a regular file), a symbolic link stays
//! a link and its target is written, a directory is named as one, and a failure (a full
//! disk, a directory) leaves no temporary file behind.

use crate::util::{explore, hsg, level, ok, path_arg, run};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A small analysed store.
fn store(dir: &Path) -> PathBuf {
    let store = dir.join("run");
    explore(&level("sokoban/tiny.xsb"), &store, &["--analyze"]);
    store
}

/// The entries of `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("readable")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Character devices like `/dev/null` (`1 3`) and `/dev/full` (`1 7`) made inside the
/// test's folder, so that a regression replaces a copy and never the machine's own
/// device; `None` where this user may not make devices.
fn devices(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let make = |name: &str, minor: &str| {
        let path = dir.join(name);
        let made = Command::new("mknod")
            .arg(&path)
            .args(["c", "1", minor])
            .status()
            .is_ok_and(|s| s.success());
        made.then_some(path)
    };
    Some((make("null", "3")?, make("full", "7")?))
}

fn is_char_device(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_char_device())
}

#[test]
fn export_and_html_write_through_devices_and_a_full_one_is_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = store(dir.path());
    let devs = dir.path().join("dev");
    std::fs::create_dir(&devs).expect("dev folder");
    let Some((null, full)) = devices(&devs) else {
        eprintln!("mknod is not allowed here: the device test is skipped");
        return;
    };
    ok(&[
        "export",
        path_arg(&store),
        "--format",
        "dot",
        "-o",
        path_arg(&null),
    ]);
    assert!(is_char_device(&null), "the null device stays a device");
    for command in [
        vec!["export", path_arg(&store), "--format", "dot", "-o"],
        vec!["html", path_arg(&store), "-o"],
    ] {
        let mut args = command.clone();
        args.push(path_arg(&full));
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{command:?} on a full device: {err}");
        assert!(
            err.contains(path_arg(&full)) && err.contains("No space left"),
            "{command:?}: {err}"
        );
        assert!(
            is_char_device(&full),
            "{command:?}: the full device stays a device"
        );
        assert_eq!(
            names(&devs),
            ["full", "null"],
            "{command:?}: nothing left beside"
        );
    }
}

#[test]
fn a_fifo_reader_gets_the_export() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = store(dir.path());
    let fifo = dir.path().join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).expect("read the FIFO"))
    };
    ok(&[
        "export",
        path_arg(&store),
        "--format",
        "dot",
        "-o",
        path_arg(&fifo),
    ]);
    let kind = std::fs::symlink_metadata(&fifo)
        .expect("still there")
        .file_type();
    assert!(kind.is_fifo(), "the FIFO stays a FIFO");
    let text = reader.join().expect("reader");
    assert!(
        text.starts_with("digraph"),
        "the reader got the graph: {text:.80}"
    );
}

/// Regression: `-o /dev/stdout` with stdout a pipe failed ("cannot create"), since the
/// link `/proc/self/fd/1` names `pipe:[N]`, no path; it is now written through.
#[test]
fn dev_stdout_on_a_pipe_gets_the_export() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = store(dir.path());
    let out = ok(&[
        "export",
        path_arg(&store),
        "--format",
        "dot",
        "-o",
        "/dev/stdout",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("digraph"),
        "the pipe got the graph: {text:.80}"
    );
}

#[test]
fn a_link_stays_a_link_and_its_target_is_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = store(dir.path());
    let targets = dir.path().join("targets");
    std::fs::create_dir(&targets).expect("folder");
    std::fs::write(targets.join("old.dot"), "old").expect("old file");
    let cases = [
        ("to-file.dot", "targets/old.dot"),
        ("dangling.html", "targets/new.html"),
    ];
    for (link, target) in cases {
        std::os::unix::fs::symlink(target, dir.path().join(link)).expect("link");
    }
    let link = dir.path().join("to-file.dot");
    ok(&[
        "export",
        path_arg(&store),
        "--format",
        "dot",
        "-o",
        path_arg(&link),
    ]);
    let html = dir.path().join("dangling.html");
    ok(&["html", path_arg(&store), "-o", path_arg(&html)]);
    for (link, target) in cases {
        let meta = std::fs::symlink_metadata(dir.path().join(link)).expect("link");
        assert!(meta.file_type().is_symlink(), "{link} stays a link");
        let written = std::fs::read_to_string(dir.path().join(target)).expect("target");
        assert!(written.len() > 100, "{target} written through {link}");
    }
    assert_eq!(
        names(&targets),
        ["new.html", "old.dot"],
        "no temporary file"
    );
}

#[test]
fn html_into_a_directory_is_named_and_leaves_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = store(dir.path());
    let folder = dir.path().join("site");
    std::fs::create_dir(&folder).expect("folder");
    let before = names(dir.path());
    for dest in ["site/", "site"] {
        let dest = format!("{}/{dest}", dir.path().display());
        let out = run(&["html", path_arg(&store), "-o", &dest]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{dest}: {err}");
        assert!(err.contains("is a directory"), "{dest}: {err}");
        assert_eq!(names(dir.path()), before, "{dest}: nothing left behind");
        assert!(names(&folder).is_empty(), "{dest}: nothing inside");
    }
}

#[test]
fn fling_select_writes_through_a_link() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tables = dir.path().join("tables");
    let link = dir.path().join("chosen.txt");
    std::os::unix::fs::symlink("boards.txt", &link).expect("link");
    let out = hsg()
        .args(["fling", "select", "--pieces", "3", "--top", "2", "--tables"])
        .arg(&tables)
        .arg("-o")
        .arg(&link)
        .output()
        .expect("hsg runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta = std::fs::symlink_metadata(&link).expect("link");
    assert!(meta.file_type().is_symlink(), "the link stays a link");
    let written = std::fs::read_to_string(dir.path().join("boards.txt")).expect("target");
    assert!(written.contains("Hash:"), "{written}");
}
