//! Tests of the data layer on the in-memory fixture.

use super::fixture::two_boxes;
use super::*;

#[test]
fn fixture_has_wins_fails_and_reversible_moves() {
    let f = two_boxes(None).unwrap();
    let o = f.overview();
    eprintln!("{o:#?}");
    assert!(o.tags[Tag::Win as usize] > 0);
    assert!(o.tags[Tag::Fail as usize] > 0);
    assert!(o.hyperstates < o.states);
    let root = f.root();
    let d = f.details(root).unwrap();
    eprintln!("{d:#?}");
    let m = f.member(root, 0).unwrap();
    eprintln!("{}", m.text);
    assert!(m.moves.iter().any(|mv| mv.target_hyperstate == root));
}
