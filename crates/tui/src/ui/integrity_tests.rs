//! Snapshots of what the screens say about the data they show: the verification in
//! the header, the screen of a damaged run, and the banner of a stale analysis.

use crate::app::{Event, Integrity, VerifyStatus};
use crate::data::{Damage, StaleNote};
use crate::test_support::{fixture_app, press, render, UNICODE};
use std::path::PathBuf;

const SMALL: (u16, u16) = (80, 24);

/// The fixture's verification generation (its first load).
const FIRST: u64 = 1;

#[test]
fn the_header_says_how_far_the_verification_got_then_that_it_is_done() {
    let mut app = fixture_app(UNICODE, SMALL, None);
    let progress = VerifyStatus::Progress {
        done: 37,
        total: 100,
        file: PathBuf::from("edges.bits"),
    };
    app.on_event(Event::Verify {
        gen: FIRST,
        status: progress,
    });
    assert!(render(&app)
        .lines()
        .next()
        .unwrap()
        .contains("verifying 37%"));
    app.on_event(Event::Verify {
        gen: FIRST + 1,
        status: VerifyStatus::Verified,
    });
    assert!(
        matches!(app.integrity, Integrity::Verifying { .. }),
        "a report of another load is ignored"
    );
    app.on_event(Event::Verify {
        gen: FIRST,
        status: VerifyStatus::Verified,
    });
    insta::assert_snapshot!("verified_browser_80x24", {
        press(&mut app, "2");
        render(&app)
    });
}

#[test]
fn a_damaged_run_shows_the_damage_in_full_and_nothing_of_the_run() {
    let mut app = fixture_app(UNICODE, SMALL, None);
    press(&mut app, "2");
    let damage = Damage {
        what: "/runs/room4/edges.bits: checksum mismatch in block 0 (data bytes 0..1048576, \
               file offset 64): the block or its checksum in /runs/room4/edges.bits.sum is \
               damaged"
            .into(),
        remedy: "A store cannot be repaired: explore the level again into it (`hsg explore \
                 LEVEL --store /runs/room4 --force-new`; bookmarks are kept)."
            .into(),
    };
    app.on_event(Event::Verify {
        gen: FIRST,
        status: VerifyStatus::Damaged(damage),
    });
    insta::assert_snapshot!("damaged_80x24", render(&app));
    press(&mut app, "3");
    assert!(render(&app).contains("The run is damaged"));
}

fn stale() -> StaleNote {
    StaleNote {
        full: "This analysis is of an earlier checkpoint of the run: 3,400,000 states, \
               3,100,000 of them expanded, and 11,200,000 transitions; the run now holds \
               32,344,588 states, 32,344,588 expanded, and 107,972,226 transitions. Its \
               figures describe that snapshot, not the run. `hsg analyze runs/room4` analyses \
               the run as it is now."
            .into(),
        short: "Stale analysis: of 3,400,000 of the run's 32,344,588 states; 1 Overview says \
                more"
            .into(),
    }
}

#[test]
fn a_stale_analysis_is_announced_in_full_on_the_overview_and_in_a_line_elsewhere() {
    let mut app = fixture_app(UNICODE, SMALL, None);
    app.overview.as_mut().unwrap().stale_note = Some(stale());
    insta::assert_snapshot!("stale_overview_80x24", render(&app));
    press(&mut app, "2");
    insta::assert_snapshot!("stale_browser_80x24", render(&app));
}
