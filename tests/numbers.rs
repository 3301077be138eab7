//! Reports never show a wrong number (issue 22): shares near 1 are not rounded to
//! 100 %, and every report says how headroom was computed.

use crate::util::{explore, level, ok, path_arg};

#[test]
fn every_report_names_the_headroom_method_and_no_share_rounds_to_its_end() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/twoboxes.xsb"), &store, &[]);
    let out = ok(&["analyze", path_arg(&store)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("headroom: exact"), "{text}");
    let md = ok(&["report", path_arg(&store), "--format", "md"]);
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(md.contains("| headroom method | exact |"), "{md}");
    // twoboxes: 59 hyperstates of 2,887 states, 97.956 % compression, in the one
    // format every report and screen uses.
    assert!(md.contains("| compression | 97.96% |"), "{md}");
    assert!(md.contains("| states | 2,887 |"), "{md}");
    for line in md.lines().filter(|l| l.contains("100.00%")) {
        assert!(!line.contains("compression"), "{line}");
    }
    let bare = ok(&["analyze", path_arg(&store), "--no-headroom"]);
    let text = String::from_utf8_lossy(&bare.stdout);
    assert!(
        text.contains("headroom: not computed (not requested)"),
        "{text}"
    );
}
