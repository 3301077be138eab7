//! Unit tests of the sandbox: every rule and token, the level files, the
//! generator and the game as the explorer sees it.

use super::*;
use crate::test_support::census;
use model::Game;

/// A board from its rows (`@@` the start), a ration and extra lines.
fn board_with(rows: &[&str], moves: u16, extra: &str) -> Board {
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

fn board(rows: &[&str], moves: u16) -> Board {
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

const EMPTY5: [&str; 5] = [
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
fn instance_text_round_trips_through_the_loader() {
    let spec = preset("exp6").unwrap();
    let inst = generate(&spec, 7, 3).unwrap();
    let text = instance_text(&inst);
    let level = crate::load("x.sandbox", &text, &crate::LevelSelector::First).unwrap();
    assert_eq!(level.text, text);
    let again = crate::load("level.sandbox", &level.text, &crate::LevelSelector::First).unwrap();
    assert_eq!(again.text, level.text);
    assert_eq!(level.game.kind(), "sandbox");
    assert_eq!(again.game.initial_states(), level.game.initial_states());
}

#[test]
fn every_token_kind_survives_the_text() {
    let mut spec = Spec::empty("all", 11);
    for kind in TokenKind::ALL {
        spec.counts[usize::from(kind.code())] = 2;
    }
    spec.hidden[0] = 3;
    spec.walls = 4;
    spec.rules.toroidal = true;
    let inst = generate(&spec, 1, 0).unwrap();
    let back = load_instances("a.sandbox", &instance_text(&inst)).unwrap();
    assert_eq!(back, vec![inst]);
    let spec_back = load_spec("s.sandbox", &spec_text(&spec)).unwrap();
    assert_eq!(spec_back, spec);
}

#[test]
fn generation_is_reproducible_and_avoids_the_centre() {
    let spec = preset("exp3").unwrap();
    let a = generate(&spec, 42, 5).unwrap();
    assert_eq!(a, generate(&spec, 42, 5).unwrap());
    assert_ne!(a, generate(&spec, 42, 6).unwrap());
    assert_eq!(a.tokens.len(), 15);
    let centre = Instance::centre(11);
    assert!(a
        .tokens
        .iter()
        .all(|t| t.cell != centre && (1..=6).contains(&t.value)));
    let mut cells: Vec<u8> = a.tokens.iter().map(|t| t.cell).collect();
    cells.sort();
    cells.dedup();
    assert_eq!(cells.len(), 15);
}

#[test]
fn a_spec_loads_as_its_first_instance() {
    let text = spec_text(&preset("exp2").unwrap());
    let level = crate::load("e.sandbox", &text, &crate::LevelSelector::First).unwrap();
    assert!(level.title.ends_with("#1"));
    assert_eq!(list_levels("e.sandbox", &text).unwrap().len(), 1);
}

#[test]
fn bad_files_name_the_line() {
    let text = "sandbox instance\ntitle t\nside 3\nboard\n.. .. ..\n.. @@ Q1\n.. .. ..\n";
    let err = crate::load("bad.sandbox", text, &crate::LevelSelector::First).unwrap_err();
    assert!(err.to_string().starts_with("bad.sandbox:6:"), "{err}");
    let text = "sandbox spec\nside 4\n";
    let err = crate::load("bad.sandbox", text, &crate::LevelSelector::First).unwrap_err();
    assert!(err.to_string().contains("odd"), "{err}");
    let err = crate::load(
        "bad.sandbox",
        "sandbox spec\nside 3\nrule fly yes\n",
        &crate::LevelSelector::First,
    )
    .unwrap_err();
    assert!(err.to_string().contains("bad.sandbox:3:"), "{err}");
}

#[test]
fn the_game_ends_with_its_score_as_outcome() {
    let b = board(&[".. B1 ..", ".. @@ ..", ".. .. .."], 2);
    let game = SandboxGame::new(b);
    let names = game.outcome_names();
    assert_eq!(names.first().map(String::as_str), Some("score 0"));
    let census = census(&game, 10_000).unwrap();
    assert!(census.terminals > 0);
    // Every terminal reached by exhaustive play carries a score within the names.
    let mut out = model::Successors::new();
    let init = game.initial_states().remove(0);
    assert_eq!(game.terminal(&init), None);
    game.successors(&init, &mut out);
    assert_eq!(out.len(), 4);
}

#[test]
fn states_decode_to_what_was_encoded() {
    let inst = generate(&preset("exp6").unwrap(), 3, 0).unwrap();
    let game = SandboxGame::new(Board::new(&inst).unwrap());
    let mut state = game.initial_states().remove(0);
    let mut out = model::Successors::new();
    for _ in 0..10 {
        out.clear();
        game.successors(&state, &mut out);
        let Some((_, next)) = out.get(out.len() - 1) else {
            break;
        };
        let next = next.to_vec();
        let p = game.decode(&next).unwrap();
        let mut again = Vec::new();
        game.project(&next, &[], &mut again);
        assert_eq!(again, next);
        assert!(usize::from(p.pos) < 121);
        state = next;
    }
}

#[test]
fn projection_forgets_the_ignored_features() {
    let b = board(&EMPTY5, 9);
    let game = SandboxGame::new(b);
    let mut a = model::Successors::new();
    let init = game.initial_states().remove(0);
    game.successors(&init, &mut a);
    let (first, second) = (a.get(0).unwrap().1.to_vec(), a.get(1).unwrap().1.to_vec());
    let project = |s: &[u8], ignored: &[usize]| {
        let mut out = Vec::new();
        game.project(s, ignored, &mut out);
        out
    };
    assert_ne!(project(&first, &[]), project(&second, &[]));
    assert_eq!(project(&first, &[2, 3, 7]), project(&second, &[2, 3, 7]));
    assert_eq!(game.features()[0], "score");
}

#[test]
fn small_boards_explore_exhaustively() {
    let inst = generate(
        &preset("exp2")
            .unwrap()
            .with(TokenKind::Blue, 1)
            .with(TokenKind::Red, 1),
        1,
        0,
    )
    .unwrap();
    let game = SandboxGame::new(Board::new(&inst).unwrap());
    let census = census(&game, 2_000_000).expect("a 7x7 board with a short ration is small");
    assert!(census.states > 100);
}

#[test]
fn txt_files_are_recognised_by_their_content() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../levels/sandbox/tiny.sandbox"
    ))
    .unwrap();
    let level = crate::load("tiny.txt", &text, &crate::LevelSelector::First).unwrap();
    assert_eq!(level.game.kind(), "sandbox");
    assert!(level
        .game
        .render(&level.game.initial_states()[0])
        .contains("@@"));
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
