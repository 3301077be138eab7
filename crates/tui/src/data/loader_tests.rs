//! The loader on real run directories: a store opened without reading it through and
//! verified in the background (damage named, the run's figures dropped), and an
//! analysis of another checkpoint never saved or shown without saying so in full.

use super::super::run::open_store;
use super::{complete_store, write_store};
use crate::app::{App, Event, Integrity};
use crate::data::Workbench;
use crate::test_support::{press, render, run_jobs, UNICODE};
use crate::ui::fit;
use std::path::Path;
use std::sync::Arc;

/// The application on the store in `dir` at `size`, loaded, its jobs and its
/// verification run inline.
fn store_app(dir: &Path, size: (u16, u16)) -> App {
    let bench: Arc<dyn Workbench> = Arc::new(open_store(dir, &|_| {}).unwrap());
    let mut app = App::new(UNICODE, size);
    app.on_event(Event::Loaded(Ok(bench)));
    run_jobs(&mut app);
    app
}

fn flip(path: &Path, at: usize, mask: u8) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] ^= mask;
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_flipped_bit_in_the_edges_opens_at_once_and_is_named_by_the_verification() {
    // Regression: the workbench showed a store whose edges.bits had a flipped bit
    // (`down -> s1` for `up -> s1`) while every other command refused it.
    let dir = tempfile::tempdir().unwrap();
    write_store(dir.path(), true, 0);
    let sound = open_store(dir.path(), &|_| {}).unwrap();
    let root = sound.root();
    let moves = sound.member(root, 0).unwrap().moves;
    drop(sound);
    flip(&dir.path().join("edges.bits"), 64, 1);
    let damaged = open_store(dir.path(), &|_| {}).unwrap();
    assert_ne!(
        damaged.member(root, 0).unwrap().moves,
        moves,
        "the lazy open reads the damaged edge (what the verification must catch)"
    );
    drop(damaged);

    let mut app = store_app(dir.path(), (80, 24));
    let damage = app.damage().cloned().expect("damage found");
    assert!(
        damage
            .what
            .contains("edges.bits: checksum mismatch in block 0 (data bytes 0..")
            && damage.what.contains("file offset 64)"),
        "{}",
        damage.what
    );
    assert!(damage.remedy.contains("--force-new"), "{}", damage.remedy);
    assert!(app.bench.is_none() && app.focus.is_none() && app.overview.is_none());
    for keys in ["", "2", "3", "4", "1"] {
        press(&mut app, keys);
        let screen = render(&app);
        assert!(screen.contains("The run is damaged"), "{screen}");
        assert!(screen.contains("edges.bits: checksum"), "{screen}");
        assert!(screen.contains("DAMAGED"), "{screen}");
        assert!(
            !screen.contains(" s1 ") && !screen.contains("→"),
            "{screen}"
        );
    }
}

#[test]
fn a_sound_store_is_verified_in_the_background_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    write_store(dir.path(), true, 0);
    drop(open_store(dir.path(), &|_| {}).unwrap());
    let bench = open_store(dir.path(), &|_| {}).unwrap();
    assert!(
        bench.verify_work() > 0,
        "the reopened store is verified afterwards"
    );
    let mut app = App::new(UNICODE, (80, 24));
    app.on_event(Event::Loaded(Ok(Arc::new(bench))));
    assert!(matches!(app.integrity, Integrity::Verifying { .. }));
    assert!(render(&app).contains("verifying 0%"), "{}", render(&app));
    run_jobs(&mut app);
    assert_eq!(app.integrity, Integrity::Verified);
    assert!(render(&app).contains("✓ verified"), "{}", render(&app));
}

#[test]
fn damage_in_the_saved_analysis_is_named_with_the_command_that_recomputes_it() {
    let dir = tempfile::tempdir().unwrap();
    write_store(dir.path(), true, 0);
    drop(open_store(dir.path(), &|_| {}).unwrap());
    flip(&dir.path().join("hsg/members.bin"), 70, 0x40);
    let app = store_app(dir.path(), (80, 24));
    let damage = app.damage().expect("damage found");
    assert!(
        damage.what.contains("members.bin") && damage.what.contains("checksum mismatch"),
        "{}",
        damage.what
    );
    assert!(damage.remedy.contains("hsg analyze"), "{}", damage.remedy);
}

#[test]
fn the_runtime_verifies_on_its_own_thread_and_drops_a_damaged_run() {
    use crate::bench_support::Harness;
    use std::time::Duration;
    let limit = Duration::from_secs(60);
    let dir = tempfile::tempdir().unwrap();
    write_store(dir.path(), true, 0);
    drop(open_store(dir.path(), &|_| {}).unwrap());
    let loader = crate::store_loader(dir.path().to_path_buf());
    let (mut h, startup) = Harness::start(loader, UNICODE, (80, 24), limit).unwrap();
    assert!(startup.loaded.is_some());
    assert!(h.await_verification(limit).unwrap().is_some());
    assert_eq!(h.app.integrity, Integrity::Verified);
    drop(h);

    flip(&dir.path().join("states-00000.seg"), 64 + 3, 2);
    let loader = crate::store_loader(dir.path().to_path_buf());
    let (mut h, _) = Harness::start(loader, UNICODE, (80, 24), limit).unwrap();
    assert!(h.await_verification(limit).unwrap().is_some());
    let damage = h.app.damage().expect("damage found");
    assert!(damage.what.contains("states-00000.seg"), "{}", damage.what);
    assert!(h.screen().contains("The run is damaged"), "{}", h.screen());
}

#[test]
fn a_run_being_explored_is_analysed_unsaved_and_reopened_whole_once_complete() {
    // Regression: the workbench opened during a run saved an analysis of the
    // snapshot; reopened after the run completed, it showed "win 0 ... shortest win:
    // none found" for the finished level.
    let dir = tempfile::tempdir().unwrap();
    let writer = write_store(dir.path(), false, 200).unwrap();
    let live = open_store(dir.path(), &|_| {}).unwrap();
    assert!(
        !dir.path().join("hsg").exists(),
        "nothing saved of a running run"
    );
    let note = live.overview().stale_note.expect("a live run is announced");
    assert!(
        note.full.contains("still being explored") && note.full.contains("not saved"),
        "{}",
        note.full
    );
    drop(live);
    complete_store(writer);
    let whole = open_store(dir.path(), &|_| {}).unwrap().overview();
    let fixture = super::super::fixture::two_boxes(None).unwrap().overview();
    assert_eq!(whole.stale_note, None);
    assert_eq!(
        (whole.states, whole.tags, whole.shortest_win_actions),
        (fixture.states, fixture.tags, fixture.shortest_win_actions)
    );
    assert!(whole.shortest_win_actions.is_some());
}

#[test]
fn an_analysis_of_an_earlier_checkpoint_is_announced_in_full_at_80x24() {
    let dir = tempfile::tempdir().unwrap();
    let writer = write_store(dir.path(), false, 200).unwrap();
    // What an earlier version of the workbench (or `hsg analyze` then) saved.
    let run = store::Run::open(dir.path()).unwrap();
    hsg::analyze(&run, &hsg::AnalyzeOptions::default()).unwrap();
    drop(run);
    complete_store(writer);
    let mut app = store_app(dir.path(), (80, 24));
    let note = app.overview.as_ref().unwrap().stale_note.clone().unwrap();
    assert!(note.full.contains("earlier checkpoint"), "{}", note.full);
    assert!(note.full.contains("hsg analyze"), "{}", note.full);
    for (keys, text) in [("", &note.full), ("2", &note.short), ("1", &note.full)] {
        press(&mut app, keys);
        let screen = render(&app);
        for line in fit::wrap(text, 80) {
            assert!(screen.contains(&line), "{line:?} missing from\n{screen}");
        }
    }
    assert_eq!(app.integrity, Integrity::Verified);
}

#[test]
fn the_reload_key_shows_a_run_that_moved_on() {
    use crate::bench_support::{parse_keys, Harness};
    use std::time::Duration;
    let limit = Duration::from_secs(60);
    let dir = tempfile::tempdir().unwrap();
    let writer = write_store(dir.path(), false, 200).unwrap();
    let loader = crate::store_loader(dir.path().to_path_buf());
    let (mut h, _) = Harness::start(loader, UNICODE, (80, 24), limit).unwrap();
    let again = dir.path().to_path_buf();
    h.set_reloader(Box::new(move || crate::store_loader(again.clone())));
    let live = h.app.overview.clone().unwrap();
    assert!(live.stale_note.is_some());
    h.press(parse_keys("2").unwrap()[0], limit).unwrap();
    complete_store(writer);
    h.press(parse_keys("R").unwrap()[0], limit).unwrap();
    let whole = h.app.overview.clone().expect("reloaded");
    let fixture = super::super::fixture::two_boxes(None).unwrap().overview();
    assert_eq!(whole.stale_note, None);
    assert_eq!((whole.states, whole.tags), (fixture.states, fixture.tags));
    assert!(whole.states > live.states);
    assert_eq!(
        h.app.screen,
        crate::app::Screen::Browser,
        "the screen is kept"
    );
}
