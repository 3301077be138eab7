//! Hand-built graphs for every tag.

use super::*;
use crate::condense::condense;
use crate::mem::MemGraph;

const WIN: OutcomeId = 0;
const LOSS: OutcomeId = 1;

fn tags_of(g: &MemGraph) -> Vec<Tag> {
    let c = condense(g);
    let t = tag_hyperstates(g, &c, WIN);
    (0..g.state_count())
        .map(|s| t.tag(c.hyperstate_of(s)))
        .collect()
}

#[test]
fn paper_figure_three_tags() {
    // 0 <-> 1 (root hyperstate), 0 -> 2 lost terminal, 1 -> 3 <-> 4 ring, 3 -> 5 win,
    // 0 -> 6 <-> 7 sink cycle without a win (a fail leaf), 1 -> 8 -> 6 (implicitly failed).
    let edges = [
        (0, 0, 1),
        (1, 1, 0),
        (0, 2, 2),
        (1, 3, 3),
        (3, 0, 4),
        (4, 1, 3),
        (3, 2, 5),
        (0, 3, 6),
        (6, 0, 7),
        (7, 1, 6),
        (1, 2, 8),
        (8, 0, 6),
    ];
    let g = MemGraph::new(9, &edges, &[(2, LOSS), (5, WIN)]).unwrap();
    let tags = tags_of(&g);
    assert_eq!(tags[0], Tag::EventuallyWinnable);
    assert_eq!(tags[1], Tag::EventuallyWinnable);
    assert_eq!(tags[2], Tag::Fail);
    assert_eq!(tags[3], Tag::EventuallyWinnable);
    assert_eq!(tags[5], Tag::Win);
    assert_eq!(
        tags[6],
        Tag::Fail,
        "a sink cycle without a win is a fail leaf"
    );
    assert_eq!(tags[7], Tag::Fail);
    assert_eq!(tags[8], Tag::ImplicitlyFailed);
}

#[test]
fn stuck_state_without_outcome_is_a_fail_leaf() {
    let g = MemGraph::new(2, &[(0, 0, 1)], &[]).unwrap();
    assert_eq!(tags_of(&g), vec![Tag::ImplicitlyFailed, Tag::Fail]);
}

#[test]
fn win_state_inside_a_non_trivial_component() {
    // A win that lets play go on: 1 is a target state on the cycle 1 <-> 2.
    let g = MemGraph::new(3, &[(0, 0, 1), (1, 0, 2), (2, 0, 1)], &[(1, WIN)]).unwrap();
    assert_eq!(
        tags_of(&g),
        vec![Tag::EventuallyWinnable, Tag::Win, Tag::Win]
    );
}

#[test]
fn non_leaf_holding_a_target_state_is_eventually_winnable() {
    let g = MemGraph::new(2, &[(0, 0, 1)], &[(0, WIN)]).unwrap();
    assert_eq!(tags_of(&g), vec![Tag::EventuallyWinnable, Tag::Fail]);
}

#[test]
fn other_outcomes_fail_against_the_target() {
    let g = MemGraph::new(3, &[(0, 0, 1), (0, 1, 2)], &[(1, LOSS), (2, 7)]).unwrap();
    assert_eq!(
        tags_of(&g),
        vec![Tag::ImplicitlyFailed, Tag::Fail, Tag::Fail]
    );
    let c = condense(&g);
    let t = tag_hyperstates(&g, &c, 7);
    assert_eq!(t.tag(c.hyperstate_of(0)), Tag::EventuallyWinnable);
}

#[test]
fn unexplored_states_give_unknown_never_fail() {
    // 0 -> 1 (expanded, stuck), 0 -> 2 (never expanded); 3 is never expanded either.
    let g = MemGraph::partial(4, 2, &[(0, 0, 1), (0, 1, 2)], &[]).unwrap();
    let tags = tags_of(&g);
    assert_eq!(tags[0], Tag::Unknown);
    assert_eq!(tags[1], Tag::Fail);
    assert_eq!(tags[2], Tag::Unknown);
    assert_eq!(tags[3], Tag::Unknown);
}

#[test]
fn winnable_stays_winnable_in_partial_graphs() {
    let g = MemGraph::partial(4, 2, &[(0, 0, 1), (0, 1, 2), (1, 0, 3)], &[(3, WIN)]).unwrap();
    let tags = tags_of(&g);
    assert_eq!(tags[0], Tag::EventuallyWinnable);
    assert_eq!(tags[1], Tag::EventuallyWinnable);
    assert_eq!(tags[2], Tag::Unknown);
    assert_eq!(tags[3], Tag::Win, "an unexpanded terminal is known");
}
