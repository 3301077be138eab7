//! Bookmarks the workbench cannot save are refused with the reason, never reported
//! saved; what the user must know about the database is shown whole in the list.

use crate::app::Overlay;
use crate::test_support::{fixture_app, press, render, UNICODE};

const SIZE: (u16, u16) = (80, 24);

#[cfg(unix)]
fn set_mode(path: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[cfg(unix)]
#[test]
fn in_a_read_only_directory_saved_bookmarks_show_and_b_is_refused() {
    // Regression: the bookmarks were hidden and `b` reported one it never saved.
    let dir = tempfile::tempdir().unwrap();
    let mut app = fixture_app(UNICODE, SIZE, Some(dir.path()));
    press(&mut app, "bkept<Enter>");
    drop(app);
    set_mode(dir.path(), 0o555);
    let mut app = fixture_app(UNICODE, SIZE, Some(dir.path()));
    assert_eq!(app.bookmarks.items().len(), 1);
    press(&mut app, "b");
    assert_eq!(
        app.overlay,
        Overlay::None,
        "no prompt for a note that cannot be saved"
    );
    assert!(
        app.status.starts_with("not bookmarked: the run directory")
            && app.status.contains("read-only"),
        "{}",
        app.status
    );
    press(&mut app, "'");
    let screen = render(&app);
    assert!(
        screen.contains("read-only") && screen.contains("kept"),
        "{screen}"
    );
    press(&mut app, "d");
    assert_eq!(app.bookmarks.items().len(), 1);
    assert!(app.status.contains("read-only"), "{}", app.status);
    set_mode(dir.path(), 0o755);
}

#[test]
fn a_database_that_cannot_be_opened_refuses_bookmarks_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    // A first workbench holds the database (sled locks it).
    let first = fixture_app(UNICODE, SIZE, Some(dir.path()));
    let mut second = fixture_app(UNICODE, SIZE, Some(dir.path()));
    assert!(
        second.status.starts_with("bookmarks unavailable"),
        "{}",
        second.status
    );
    press(&mut second, "b");
    assert_eq!(second.overlay, Overlay::None);
    assert!(
        second
            .status
            .starts_with("not bookmarked: bookmarks unavailable"),
        "{}",
        second.status
    );
    assert!(second.bookmarks.items().is_empty());
    drop(first);
}
