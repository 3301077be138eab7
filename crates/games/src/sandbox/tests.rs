//! Unit tests of the sandbox rules: every rule parameter and every token.

use super::*;

/// A board from its rows (`@@` the start), a ration and extra lines.
pub(super) fn board_with(rows: &[&str], moves: u16, extra: &str) -> Board {
    let text = format!(
        "sandbox instance\ntitle t\nside {}\nmoves {moves}\n{extra}\nboard\n{}\n",
        rows.len(),
        rows.join("\n")
    );
    let blocks = parse("t.sandbox", &text).expect("test level parses");
    match &blocks[0] {
        Block::Instance(inst, _) => Board::new(inst).expect("test level is valid"),
        Block::Spec(..) => unreachable!("an instance block"),
    }
}

pub(super) fn board(rows: &[&str], moves: u16) -> Board {
    board_with(rows, moves, "")
}

/// Plays `dirs` (each must be admissible) and returns the final play.
fn play(board: &Board, dirs: &[Dir]) -> Play {
    let mut p = board.start();
    for &d in dirs {
        assert!(
            board.admissible(&p) & (1 << d) != 0,
            "move {d} not admissible:\n{}",
            draw_play(board, &p)
        );
        board.step(&mut p, d);
    }
    p
}

pub(super) const EMPTY5: [&str; 5] = [
    ".. .. .. .. ..",
    ".. .. .. .. ..",
    ".. .. @@ .. ..",
    ".. .. .. .. ..",
    ".. .. .. .. ..",
];

#[test]
fn new_squares_score_and_block_and_the_ration_ends_play() {
    let b = board(&EMPTY5, 3);
    let p = play(&b, &[UP, LEFT, DOWN]);
    assert_eq!((p.score, p.moves_left), (3, 0));
    assert!(b.is_over(&p));
    let p = play(&b, &[UP]);
    assert_eq!(b.admissible(&p), 0b1101, "down is the filled start square");
}

#[test]
fn the_edge_blocks_and_a_trapped_agent_is_done() {
    let b = board(&[".. .. ..", ".. @@ ..", ".. .. .."], 20);
    let p = play(&b, &[UP]);
    assert_eq!(b.admissible(&p), 0b1100, "up is off the board");
    let p = play(&b, &[UP, LEFT, DOWN, DOWN, RIGHT, RIGHT, UP, UP]);
    assert_eq!(p.score, 8);
    assert!(b.is_over(&p), "every square is filled");
}

#[test]
fn default_moves_are_three_s() {
    assert_eq!(default_moves(11), 15);
    assert_eq!(default_moves(7), 9);
}

#[test]
fn start_square_may_be_left_open() {
    let b = board_with(
        &[".. .. ..", ".. @@ ..", ".. .. .."],
        9,
        "rule start-filled no",
    );
    let p = play(&b, &[UP, DOWN]);
    assert_eq!(p.score, 2, "re-entering the open start scores");
}

#[test]
fn walls_block() {
    let b = board(&[".. [] ..", ".. @@ ..", ".. .. .."], 9);
    assert_eq!(b.admissible(&b.start()), 0b1110);
}

#[test]
fn the_torus_wraps() {
    let b = board_with(
        &[".. @@ ..", ".. .. ..", ".. .. .."],
        9,
        "rule toroidal yes",
    );
    let p = play(&b, &[UP]);
    assert_eq!(p.pos, 7, "up from row 0 lands on the last row");
}

#[test]
fn blue_adds_its_value_to_the_moves() {
    let b = board(&[".. B4 ..", ".. @@ ..", ".. .. .."], 3);
    let p = play(&b, &[UP]);
    assert_eq!(p.moves_left, 2 + 4);
    assert_eq!(p.active, 0, "picked up");
}

#[test]
fn red_clears_oldest_squares_first_but_not_the_agents() {
    let b = board(
        &[
            ".. .. .. .. ..",
            ".. .. .. .. ..",
            ".. .. @@ .. ..",
            ".. .. .. R2 ..",
            ".. .. .. .. ..",
        ],
        20,
    );
    // Start (12), up (7), right (8)... take a path, then the red at 18.
    let p = play(&b, &[RIGHT, DOWN]);
    // Filled in order: 12 (start), 13, 18; red 2 clears 12 and 13.
    assert_eq!(p.fill_order().collect::<Vec<_>>(), vec![18]);
    assert_eq!(p.score, 2);
    let p2 = play(&b, &[RIGHT, DOWN, UP, LEFT]);
    assert_eq!(p2.score, 4, "cleared squares score again");
}

#[test]
fn red_skips_or_clears_the_agents_square_as_the_rules_say() {
    let rows = [".. .. ..", ".. @@ R9", ".. .. .."];
    let b = board(&rows, 9);
    let p = play(&b, &[RIGHT]);
    assert_eq!(
        p.filled,
        board::bit(5),
        "only the agent's square stays filled"
    );
    let b = board_with(&rows, 9, "rule red-clears-agent yes");
    let p = play(&b, &[RIGHT]);
    assert_eq!(p.filled, 0);
}

#[test]
fn cleared_squares_do_not_get_their_tokens_back() {
    let b = board(&["B2 R9 ..", ".. @@ ..", ".. .. .."], 9);
    let p = play(&b, &[LEFT, UP, RIGHT]);
    assert_eq!(p.active, 0);
    let p = play(&b, &[LEFT, UP, RIGHT, DOWN, LEFT, UP]);
    assert_eq!(p.active, 0, "re-entering the blue square gives nothing");
}

#[test]
fn gold_rewards_each_change_of_direction_after_pickup() {
    let b = board(
        &[
            ".. .. .. .. ..",
            ".. .. .. .. ..",
            ".. .. @@ G. ..",
            ".. .. .. .. ..",
            ".. .. .. .. ..",
        ],
        20,
    );
    let p = play(&b, &[RIGHT, RIGHT, UP, UP, LEFT]);
    // Squares: 5 new; turns after pickup: right->up, up->left = 2.
    assert_eq!(p.score, 5 + 2);
}

#[test]
fn black_matches_new_squares_while_the_pool_lasts() {
    let rows = [
        ".. .. .. .. ..",
        ".. .. K2 .. ..",
        ".. .. @@ .. ..",
        ".. .. .. .. ..",
        ".. .. .. .. ..",
    ];
    let b = board(&rows, 20);
    let p = play(&b, &[UP, UP, LEFT, DOWN]);
    assert_eq!(p.score, 4 + 2);
    assert_eq!(p.pool, 0);
}

#[test]
fn black_matches_turns_only_when_the_rule_says() {
    let rows = [
        ".. .. .. .. ..",
        ".. .. G. .. ..",
        ".. .. @@ K9 ..",
        ".. .. .. .. ..",
        ".. .. .. .. ..",
    ];
    // up (gold), right (turn +1), down (turn +1), right... gather black first.
    let dirs = [RIGHT, UP, LEFT, UP];
    // right: black 9, new square 1 (pool fills after the square scores).
    // up: new +1 +1 match; left onto gold: +1 +1; up: +1 +1, turn +1.
    let b = board(&rows, 20);
    let p = play(&b, &dirs);
    assert_eq!(p.score, 4 + 3 + 1);
    let b = board_with(&rows, 20, "rule black-matches-turns yes");
    let p = play(&b, &dirs);
    assert_eq!(p.score, 4 + 3 + 1 + 1);
}

#[test]
fn purple_scores_and_switches_the_turn_reward_off() {
    let b = board(&[".. G. P3", ".. @@ ..", ".. .. .."], 20);
    let p = play(&b, &[UP, RIGHT, DOWN]);
    // 3 squares, purple 3, turn up->right +1; then off: right->down no turn.
    assert_eq!(p.score, 3 + 3 + 1);
    assert!(!p.gold);
}

#[test]
fn white_lets_the_agent_cross_filled_squares_without_scoring() {
    let b = board(&[".. .. ..", "W2 @@ ..", ".. .. .."], 20);
    let p = play(&b, &[LEFT]);
    assert_eq!(p.white, 2);
    assert_eq!(
        b.admissible(&p),
        0b1011,
        "right, onto the filled start, is open"
    );
    let p = play(&b, &[LEFT, RIGHT, RIGHT]);
    assert_eq!(p.score, 2, "the start square scored nothing");
    assert_eq!(p.white, 0);
    assert_eq!(b.admissible(&p) & (1 << LEFT), 0, "charges spent");
}

#[test]
fn white_crosses_walls_only_when_the_rule_says() {
    let rows = ["[] .. ..", "W2 @@ ..", ".. .. .."];
    let b = board(&rows, 20);
    let p = play(&b, &[LEFT]);
    assert_eq!(b.admissible(&p) & (1 << UP), 0);
    let b = board_with(&rows, 20, "rule white-crosses-walls yes");
    let p = play(&b, &[LEFT]);
    assert_ne!(b.admissible(&p) & (1 << UP), 0);
}

#[test]
fn green_reveals_its_hidden_tokens() {
    let text = "sandbox instance\ntitle g\nside 3\nmoves 3\nboard\n.. N. ..\n.. @@ ..\n.. .. ..\nhidden B5 at 1 3 by 1 2\n";
    let inst = load_instances("g.sandbox", text).unwrap().remove(0);
    let b = Board::new(&inst).unwrap();
    let p = play(&b, &[RIGHT]);
    assert_eq!(p.active & board::bit(2), 0, "hidden before the green");
    let p = play(&b, &[UP, RIGHT]);
    assert_eq!(p.moves_left, 1 + 5, "revealed blue picked up");
}

#[test]
fn dark_green_costs_its_value_and_stays() {
    let b = board(&[".. D3 ..", ".. @@ ..", ".. .. .."], 9);
    let p = play(&b, &[UP]);
    assert_eq!(p.moves_left, 6);
    assert_ne!(p.active & board::bit(1), 0, "terrain stays");
}

#[test]
fn silver_forces_moves_and_blocked_ones_are_wasted() {
    let b = board(
        &[
            ".. .. .. .. ..",
            ".. .. S3 .. ..",
            ".. .. @@ .. ..",
            ".. .. .. .. ..",
            ".. .. .. .. ..",
        ],
        20,
    );
    let p = play(&b, &[UP]);
    assert_eq!(b.admissible(&p), 1 << UP, "only up is offered");
    let p = play(&b, &[UP, UP, UP, UP]);
    // up onto silver (1 move), up to row 0 (1 move), two wasted at the edge.
    assert_eq!((p.pos, p.score, p.moves_left), (2, 2, 16));
    assert_eq!(b.admissible(&p), 0b1100);
}

#[test]
fn arrows_choose_the_exit() {
    let b = board(&[".. A< ..", ".. @@ ..", ".. .. .."], 9);
    let p = play(&b, &[UP]);
    assert_eq!(b.admissible(&p), 1 << LEFT);
    let b = board(&["[] A< ..", ".. @@ ..", ".. .. .."], 9);
    let p = play(&b, &[UP]);
    assert!(b.is_over(&p), "an arrow into a wall traps the agent");
}

#[test]
fn bombs_clear_around_them_as_the_rules_say() {
    let rows = [
        ".. .. .. .. ..",
        ".. .. .. .. ..",
        ".. .. @@ .. ..",
        ".. .. B1 X. ..",
        ".. .. [] .. ..",
    ];
    let b = board(&rows, 20);
    let p = play(&b, &[RIGHT, DOWN]);
    // Start, 13 and 18 filled, bomb at 18 clears 12 and 13, not the agent's 18.
    assert_eq!(p.filled, board::bit(18));
    assert_ne!(p.walls & board::bit(22), 0);
    assert_eq!(p.fill_order().collect::<Vec<_>>(), vec![18]);
    let b = board_with(
        &rows,
        20,
        "rule bomb-clears-walls yes\nrule bomb-destroys-tokens yes",
    );
    let p = play(&b, &[RIGHT, DOWN]);
    assert_eq!(p.walls, 0);
    assert_eq!(p.active & board::bit(17), 0, "the blue next to it is gone");
}

#[test]
fn brown_teleports_once() {
    let b = board(&["T1 .. ..", ".. @@ T1", ".. .. .."], 9);
    let p = play(&b, &[RIGHT]);
    assert_eq!(p.pos, 0);
    assert_eq!(p.score, 2, "both ends entered");
    assert_eq!(p.active, 0);
}

#[test]
fn the_bomb_radius_sets_the_blast() {
    let rows = [
        ".. .. .. .. ..",
        ".. .. .. .. ..",
        ".. .. @@ .. ..",
        ".. .. .. .. ..",
        ".. .. .. .. X.",
    ];
    // A walk down the middle column and along the bottom row, then onto the bomb.
    let walk = [DOWN, DOWN, RIGHT, RIGHT];
    let b = board_with(&rows, 20, "rule bomb-radius 0");
    let p = play(&b, &walk);
    assert_eq!(
        p.filled.count_ones(),
        5,
        "radius 0 clears nothing but its own square, which the agent holds"
    );
    let b = board_with(&rows, 20, "rule bomb-radius 2");
    let p = play(&b, &walk);
    // Radius 2 around the corner (row 4, column 4) covers rows and columns 2 to 4.
    assert_eq!(p.filled, board::bit(24), "only the agent's square is left");
}

#[test]
fn an_untitled_spec_gets_a_title_that_reloads_as_the_same_level() {
    // Regression: a specification without `title` gave its instance the title " #1",
    // which its canonical text reloaded as "#1", with another level hash.
    let spec = "sandbox spec\nside 5\ntokens blue 2\nseed 3\n";
    let first = crate::load("spec.sandbox", spec, &crate::LevelSelector::First).expect("loads");
    assert_eq!(first.title, "#1");
    let again = crate::load("again.sandbox", &first.text, &crate::LevelSelector::First)
        .expect("the canonical text reloads");
    assert_eq!((again.title, again.text), (first.title, first.text));
}
