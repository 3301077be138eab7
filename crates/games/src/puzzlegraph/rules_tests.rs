//! Hand-counted state spaces of tiny puzzles, one or two per node and edge kind:
//! each expected count is derived in the comment above it.

use super::{parse, PuzzleGraph};
use crate::test_support::{census, Census};
use model::Game;

/// Builds a puzzle from object lines (the name line is added).
fn game(lines: &str) -> PuzzleGraph {
    let text = format!("test\n{lines}");
    let puzzle = match parse("test.puzzlegraph", &text) {
        Ok(p) => p,
        Err(e) => panic!("test puzzle does not parse: {e}"),
    };
    PuzzleGraph::new(puzzle).expect("few labels")
}

fn count(lines: &str) -> (usize, usize) {
    let Census { states, terminals } = census(&game(lines), 100_000).expect("small");
    (states, terminals)
}

const AB: &str = "PuzzleNode A { pos:0,0 }\nPuzzleNode B { pos:1,0 }\nPuzzleEdge A-B {  }\n";

#[test]
fn default_edges_walk_both_ways() {
    // Player at A, B or C; C is a goal and terminal.
    let lines = "PuzzleNode A { pos:0,0 }\nPuzzleNode B { pos:1,0 }\nPuzzleNode C { pos:2,0 }\n\
                 PuzzleEdge A-B {  }\nPuzzleEdge B-C {  }\nPuzzleGoal C {  }\nPuzzlePlayer A {  }\n";
    assert_eq!(count(lines), (3, 1));
}

#[test]
fn goal_refuses_balls() {
    // (A,A) -> walk to the goal B; bringing the ball onto B is refused: 2 states.
    let lines = format!("{AB}PuzzleGoal B {{  }}\nPuzzlePlayer A {{  }}\nPuzzleBall A {{  }}\n");
    assert_eq!(count(&lines), (2, 1));
}

#[test]
fn default_edge_brings_both_ways_and_never_pushes() {
    // (player, ball): (A,A) -> walk (B,A), bring (B,B); (B,B) -> walk (A,B), bring (A,A);
    // (A,B) -> walk (B,B). No push ever: 4 states.
    let lines = format!("{AB}PuzzlePlayer A {{  }}\nPuzzleBall A {{  }}\n");
    assert_eq!(count(&lines), (4, 0));
    let g = game(&lines);
    assert!(!g.action_labels().iter().any(|l| l.starts_with("push")));
}

#[test]
fn step_moves_balls_forward_only() {
    // Forward A->B: (A,A) -> walk (B,A), bring (B,B), push (A,B); (B,A) -> walk back;
    // (B,B) -> walk back (A,B); (A,B) -> walk (B,B): 4 states.
    let lines = format!("{AB}PuzzleStep A-B {{  }}\nPuzzlePlayer A {{  }}\nPuzzleBall A {{  }}\n");
    assert_eq!(count(&lines), (4, 0));
    // Backward B->A from B: only walking, (B,B) <-> (A,B): 2 states.
    let lines = format!("{AB}PuzzleStep A-B {{  }}\nPuzzlePlayer B {{  }}\nPuzzleBall B {{  }}\n");
    assert_eq!(count(&lines), (2, 0));
}

#[test]
fn wall_is_climbed_backward_only_from_a_ball() {
    // Forward: (A,A) -> walk (B,A) (stuck: no ball at B), bring (B,B), push (A,B);
    // (B,B) -> climb back leaving the ball (A,B); (A,B) -> walk (B,B): 4 states.
    let lines = format!("{AB}PuzzleWall A-B {{  }}\nPuzzlePlayer A {{  }}\nPuzzleBall A {{  }}\n");
    assert_eq!(count(&lines), (4, 0));
    // From B with a ball there: climb to (A,B), jump back to (B,B): 2 states.
    let lines = format!("{AB}PuzzleWall A-B {{  }}\nPuzzlePlayer B {{  }}\nPuzzleBall B {{  }}\n");
    assert_eq!(count(&lines), (2, 0));
    // From B without a ball: no move at all.
    let lines = format!("{AB}PuzzleWall A-B {{  }}\nPuzzlePlayer B {{  }}\n");
    assert_eq!(count(&lines), (1, 0));
}

#[test]
fn one_way_goes_forward_only() {
    let forward = format!("{AB}PuzzleOneWay A-B {{  }}\nPuzzlePlayer A {{  }}\n");
    assert_eq!(count(&forward), (2, 0));
    let backward = format!("{AB}PuzzleOneWay A-B {{  }}\nPuzzlePlayer B {{  }}\n");
    assert_eq!(count(&backward), (1, 0));
    // With a ball: walk (B,A), bring (B,B), push (A,B); (A,B) -> walk (B,B): 4 states.
    let ball = format!("{AB}PuzzleOneWay A-B {{  }}\nPuzzlePlayer A {{  }}\nPuzzleBall A {{  }}\n");
    assert_eq!(count(&ball), (4, 0));
}

#[test]
fn no_ball_lets_players_pass_alone() {
    // (A,A) <-> (B,A) by walking; the ball never moves: 2 states.
    let lines =
        format!("{AB}PuzzleNoBall A-B {{  }}\nPuzzlePlayer A {{  }}\nPuzzleBall A {{  }}\n");
    assert_eq!(count(&lines), (2, 0));
}

#[test]
fn vision_edge_only_shoots() {
    // The toggle at B can only be shot from A: off <-> on, 2 states.
    let lines =
        format!("{AB}PuzzleVision A-B {{  }}\nPuzzleToggle B {{ off }}\nPuzzlePlayer A {{  }}\n");
    assert_eq!(count(&lines), (2, 0));
    // A NoBall edge has no vision: nothing to do from A except walk and press: 4 states
    // (A or B) x (off or on); a Step edge likewise.
    let lines =
        format!("{AB}PuzzleNoBall A-B {{  }}\nPuzzleToggle B {{ off }}\nPuzzlePlayer A {{  }}\n");
    assert_eq!(count(&lines), (4, 0));
    let g = game(&lines);
    assert!(!g.action_labels().iter().any(|l| l.starts_with("shoot")));
}

#[test]
fn toggle_flips_its_receivers() {
    // Toggle A (on) drives gate A-B (off). Press: toggle off, gate open; walk to B;
    // shoot A across the open gate: toggle on, gate closed, player stuck at B.
    // States: (A,on,closed), (A,off,open), (B,off,open), (B,on,closed): 4. Setting
    // the gate to the toggle's value instead of flipping it would give 2.
    let lines =
        "PuzzleNode A { pos:0,0 notify:A-B }\nPuzzleNode B { pos:1,0 }\nPuzzleEdge A-B {  }\n\
                 PuzzleToggle A { on }\nPuzzleGate A-B { off }\nPuzzlePlayer A {  }\n";
    assert_eq!(count(lines), (4, 0));
}

#[test]
fn gate_blocks_walking_and_vision_while_closed() {
    // Toggle C beyond a closed gate B-C cannot be reached or shot: 2 states (A, B).
    let lines = "PuzzleNode A { pos:0,0 }\nPuzzleNode B { pos:1,0 }\nPuzzleNode C { pos:2,0 }\n\
                 PuzzleEdge A-B {  }\nPuzzleEdge B-C {  }\nPuzzleGate B-C { off }\n\
                 PuzzleToggle C { off }\nPuzzlePlayer A {  }\n";
    assert_eq!(count(lines), (2, 0));
}

#[test]
fn hazard_needs_a_ball_while_active() {
    // Active (off): only bringing the ball crosses: (A,A) <-> (B,B): 2 states.
    let lines = format!(
        "{AB}PuzzleBlockableHazard A-B {{ off }}\nPuzzlePlayer A {{  }}\nPuzzleBall A {{  }}\n"
    );
    assert_eq!(count(&lines), (2, 0));
    // Safe (on): like a default edge: 4 states.
    let lines = format!(
        "{AB}PuzzleBlockableHazard A-B {{ on }}\nPuzzlePlayer A {{  }}\nPuzzleBall A {{  }}\n"
    );
    assert_eq!(count(&lines), (4, 0));
}

#[test]
fn ball_track_pushes_both_ways_and_nobody_walks() {
    let forward =
        format!("{AB}PuzzleBallTrack A-B {{  }}\nPuzzlePlayer A {{  }}\nPuzzleBall A {{  }}\n");
    assert_eq!(count(&forward), (2, 0));
    let backward =
        format!("{AB}PuzzleBallTrack A-B {{  }}\nPuzzlePlayer B {{  }}\nPuzzleBall B {{  }}\n");
    assert_eq!(count(&backward), (2, 0));
}

#[test]
fn button_latches_and_opens_a_gate() {
    // Walking onto button B opens gate B-C for good: (A,off), (B,on), (A,on), (C,on).
    let lines =
        "PuzzleNode A { pos:0,0 }\nPuzzleNode B { pos:1,0 notify:B-C }\nPuzzleNode C { pos:2,0 }\n\
                 PuzzleEdge A-B {  }\nPuzzleEdge B-C {  }\nPuzzleGoal C {  }\n\
                 PuzzleButton B { off }\nPuzzleGate B-C { off }\nPuzzlePlayer A {  }\n";
    assert_eq!(count(lines), (4, 1));
}

#[test]
fn plate_follows_balls_only_and_drives_a_bridge() {
    // Plate B drives bridge C (off); edges A-B, A-C. (player, ball, plate=bridge):
    // (A,A,off) -> walk (B,A,off) [a player does not press a plate], bring (B,B,on);
    // (B,B,on) -> walk (A,B,on), bring back (A,A,off); (A,B,on) -> walk C (C,B,on).
    // 5 states.
    let lines =
        "PuzzleNode A { pos:0,0 }\nPuzzleNode B { pos:1,0 notify:C }\nPuzzleNode C { pos:0,1 }\n\
                 PuzzleEdge A-B {  }\nPuzzleEdge A-C {  }\nPuzzlePlate B { off }\n\
                 PuzzleBridge C { off }\nPuzzlePlayer A {  }\nPuzzleBall A {  }\n";
    assert_eq!(count(lines), (5, 0));
}

#[test]
fn players_are_interchangeable_and_all_must_reach_a_goal() {
    // Two players on A, goal B: {A,A}, {A,B}, {B,B} (terminal): 3 states.
    let lines = format!("{AB}PuzzleGoal B {{  }}\nPuzzlePlayer A {{  }}\nPuzzlePlayer A {{  }}\n");
    assert_eq!(count(&lines), (3, 1));
}

#[test]
fn balls_are_interchangeable() {
    // Player on A or B times balls {A,A}, {A,B}, {B,B}: 6 states (8 if balls had names).
    let lines = format!("{AB}PuzzlePlayer A {{  }}\nPuzzleBall A {{  }}\nPuzzleBall B {{  }}\n");
    assert_eq!(count(&lines), (6, 0));
}

#[test]
fn no_player_means_no_move_and_no_goal() {
    let lines = format!("{AB}PuzzleGoal B {{  }}\nPuzzleBall A {{  }}\n");
    assert_eq!(count(&lines), (1, 0));
}
