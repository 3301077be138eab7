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
