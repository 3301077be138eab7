//! Level files as an adversary writes them: endless, huge, damaged or of one format
//! dressed as another. Each gets a clear error naming the file, never a panic, a hang
//! or a process that grows until it runs out of memory.

use crate::util::run;

/// Runs `hsg explore FILE` into a fresh store; returns the exit code and stderr.
fn explore_file(file: &std::path::Path) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    let out = run(&[
        "explore",
        file.to_str().expect("utf-8 path"),
        "--store",
        store.to_str().expect("utf-8 path"),
    ]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    (out.status.code(), err)
}

#[test]
fn explore_dev_zero_is_refused_instead_of_growing_out_of_memory() {
    // Regression: level files were read without a size limit.
    let (code, err) = explore_file(std::path::Path::new("/dev/zero"));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("/dev/zero"), "{err}");
    assert!(err.contains("larger than 64 MiB"), "{err}");
}

#[test]
fn a_level_file_beyond_64_mib_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("huge.xsb");
    let file = std::fs::File::create(&path).expect("writable");
    file.set_len((64 << 20) + 1).expect("sparse file");
    let (code, err) = explore_file(&path);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("huge.xsb"), "{err}");
    assert!(err.contains("larger than 64 MiB"), "{err}");
    let (code, err) = explore_file(dir.path());
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("is a directory"), "{err}");
}

#[test]
fn a_store_without_its_manifest_is_refused_not_restarted() {
    // Regression: deleting MANIFEST made `explore` start a new run silently, without
    // --force-new, deleting what the directory held.
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    let lvl = crate::util::level("sokoban/twoboxes.xsb");
    crate::util::explore(&lvl, &store, &[]);
    std::fs::remove_file(store.join("MANIFEST")).expect("manifest removed");
    let args = [
        "explore",
        lvl.to_str().expect("utf-8 path"),
        "--store",
        store.to_str().expect("utf-8 path"),
    ];
    let out = run(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("MANIFEST: missing"), "{err}");
    assert!(err.contains("--force-new"), "{err}");
    assert!(store.join("edges.bits").exists(), "nothing was deleted");
    let out = run(&[&args[..], &["--force-new"]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_store_path_that_is_a_regular_file_says_so() {
    // Regression: the error was "File exists (os error 17)".
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "mine").expect("writable");
    let lvl = crate::util::level("sokoban/twoboxes.xsb");
    let out = run(&[
        "explore",
        lvl.to_str().expect("utf-8 path"),
        "--store",
        file.to_str().expect("utf-8 path"),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("is a file, not a directory"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).expect("kept"), "mine");
}
