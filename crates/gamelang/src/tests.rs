//! Unit tests of the language's features, one small game each: expressions
//! (checked through the outcome of a game whose start is terminal),
//! statements, chance, simultaneous tuples, starts, features and the
//! canonical text.

use model::{Game, Successors};

use super::{compile, Compiled, GrammarGame, RULE_ERROR};

pub fn game(src: &str) -> GrammarGame {
    compile("t.game", src)
        .unwrap_or_else(|e| panic!("{e}"))
        .game
}

/// True when `cond` holds in the start state of a game with some tracks.
fn holds(cond: &str) -> bool {
    let src = format!(
        "players solo\n\
         type Hand = {{rock, paper, scissors}}\n\
         const N = 4\n\
         track a[1..N]: 0..9 = [3, 1, 4, 1]\n\
         track h: Hand = paper\n\
         track o: Hand? = none\n\
         track hand[player]: Hand = scissors\n\
         track flag: bool = true\n\
         define twice(x) = 2 * x\n\
         define big = a[3] > 3\n\
         outcome \"yes\" when {cond}\n\
         outcome \"no\" otherwise\n"
    );
    let g = game(&src);
    let start = &g.initial_states()[0];
    let o = g
        .terminal(start)
        .expect("no decisions: the start is terminal");
    g.outcome_names()[o as usize] == "yes"
}

#[test]
fn arithmetic_and_precedence() {
    assert!(holds("2 + 3 * 4 == 14"));
    assert!(holds("(2 + 3) * 4 == 20"));
    assert!(holds("10 - 3 - 2 == 5"));
    assert!(holds("-7 / 2 == -4 and -7 % 2 == 1 and 7 / 2 == 3"));
    assert!(holds(
        "min(3, a[1]) == 3 and max(a[2], 2) == 2 and abs(0 - 5) == 5"
    ));
    assert!(holds("-(-a[1]) == 3"));
}

#[test]
fn booleans_comparisons_and_membership() {
    assert!(holds("not 1 == 2"));
    assert!(holds("not false and true"));
    assert!(holds(
        "false or a[1] <= 3 and a[2] >= 1 and a[3] != 3 and a[4] < 2"
    ));
    assert!(holds("a[3] in {2, 4, 6}"));
    assert!(!holds("a[1] in {2, 4, 6}"));
    assert!(holds("flag and big"));
    assert!(holds("if a[1] > 2 then a[2] == 1 else false"));
}

#[test]
fn quantifiers_and_aggregates() {
    assert!(holds("(sum i in 1..N: a[i]) == 9"));
    assert!(holds("(count i in 1..N: a[i] == 1) == 2"));
    // A quantifier's body reaches as far right as it can.
    assert!(holds("any i in 1..N: a[i] == 4 and i == 3"));
    assert!(holds("any i in 1..N: a[i] == 4"));
    assert!(!holds("all i in 1..N: a[i] > 1"));
    // Dependent ranges and several bindings; count over pairs.
    assert!(holds("(count i in 1..N, j in i + 1..N: a[i] == a[j]) == 1"));
    assert!(holds("(sum i in 1..N, j in 1..2: j) == 12"));
    // An empty range: `any` is false, `all` true, `sum` zero.
    assert!(holds(
        "not (any i in 3..2: true) and (all i in 3..2: false) and (sum i in 3..2: 1) == 0"
    ));
    assert!(holds("all p in player: hand[p] == scissors"));
}

#[test]
fn named_values_next_none_and_definitions() {
    assert!(holds(
        "h == paper and next(h) == scissors and next(scissors) == rock"
    ));
    assert!(holds("o == none and next(o) == none and h != rock"));
    assert!(holds("hand[solo] == scissors and next(solo) == solo"));
    assert!(holds("twice(a[1]) == 6 and twice(twice(1)) == 4"));
}

#[test]
fn statements_run_in_order_with_loops_and_conditions() {
    let g = game(
        "players solo\n\
         track a[0..3]: 0..9 = 0\n\
         track done: bool = false\n\
         decision fill when not done {\n\
           for i in 0..3 { a[i] := i * 2 }\n\
           if a[3] == 6 { a[0] := 9 } else { a[0] := 1 }\n\
           a[a[1]] := a[2] + 1\n\
           done := true\n\
         }\n\
         outcome \"win\" when done\n",
    );
    let mut out = Successors::new();
    g.successors(&g.initial_states()[0], &mut out);
    assert_eq!(out.len(), 1);
    let (mv, state) = out.get(0).unwrap();
    assert_eq!(g.action_labels()[mv.action as usize], "fill");
    assert_eq!(g.render(state), "a: 9 2 5 6\ndone: true");
    // `a[a[1]]` may index outside the array, and no rule says `otherwise`.
    assert_eq!(g.outcome_names(), vec!["win", "rule error"]);
    assert_eq!(g.terminal(state), Some(0));
}

#[test]
fn chance_branches_merge_and_sum_to_one() {
    let g = game(
        "players solo\n\
         track x: 0..2 = 2\n\
         decision roll when x == 2 { random d in 1..6 { x := d % 2 } }\n\
         outcome \"win\" when x == 1\n\
         outcome \"fail\" otherwise\n",
    );
    assert!(g.has_chance());
    let mut out = Successors::new();
    g.successors(&g.initial_states()[0], &mut out);
    let probs: Vec<(u16, u32, u32)> = out
        .iter()
        .map(|(m, _)| (m.action, m.prob.num, m.prob.den))
        .collect();
    assert_eq!(probs, vec![(0, 1, 2), (0, 1, 2)]);
}

#[test]
fn nested_and_weighted_randoms_multiply() {
    let g = game(
        "players solo\n\
         track x: 0..9 = 0\n\
         track y: 0..9 = 0\n\
         decision go when x == 0 {\n\
           random { 1/3: x := 1  2/3: { x := 2  random { 1/2: y := 1  1/2: y := 2 } } }\n\
         }\n\
         outcome \"end\" otherwise\n",
    );
    let mut out = Successors::new();
    g.successors(&g.initial_states()[0], &mut out);
    let got: Vec<(String, u32, u32)> = out
        .iter()
        .map(|(m, s)| (g.render(s), m.prob.num, m.prob.den))
        .collect();
    assert_eq!(
        got,
        vec![
            ("x: 1\ny: 0".to_string(), 1, 3),
            ("x: 2\ny: 1".to_string(), 1, 3),
            ("x: 2\ny: 2".to_string(), 1, 3),
        ]
    );
}

#[test]
fn simultaneous_play_gives_decision_tuples() {
    let g = game(&super::tests_games::level_text("rock-paper-scissors.game"));
    let start = &g.initial_states()[0];
    assert_eq!(g.to_move(start), None);
    let mut out = Successors::new();
    g.successors(start, &mut out);
    assert_eq!(out.len(), 9);
    let labels = g.action_labels();
    let (mv, after) = out.get(1).unwrap();
    assert_eq!(
        labels[mv.action as usize],
        "(A:throw(rock), B:throw(paper))"
    );
    assert_eq!(
        g.decision_tuple(mv.action),
        Some(vec![
            Some("throw(rock)".to_string()),
            Some("throw(paper)".to_string())
        ])
    );
    assert_eq!(g.decision_tuple(0), None);
    assert_eq!(g.render(after), "hand: A=rock B=paper");
    let o = g.terminal(after).unwrap();
    assert_eq!(g.outcome_names()[o as usize], "b wins");
}

#[test]
fn joint_decision_runs_once_with_its_chance() {
    let g = game(&super::tests_games::level_text(
        "tictactoe-random-start.game",
    ));
    assert!(g.has_chance());
    let start = &g.initial_states()[0];
    let mut out = Successors::new();
    g.successors(start, &mut out);
    let moves: Vec<_> = out.iter().map(|(m, _)| m).collect();
    assert_eq!(moves.len(), 2);
    assert_eq!(moves[0].action, moves[1].action);
    assert_eq!((moves[0].prob.num, moves[0].prob.den), (1, 2));
    assert_eq!(
        g.action_labels()[moves[0].action as usize],
        "(X:flip, O:flip)"
    );
    let (_, x_first) = out.get(0).unwrap();
    assert_eq!(g.to_move(x_first), Some(0));
}

#[test]
fn several_start_blocks_give_several_initial_states() {
    let g = game(
        "players a, b\n\
         track turn: player = a\n\
         start { turn := a }\n\
         start { turn := b }\n\
         start { turn := b }\n\
         outcome \"end\" otherwise\n",
    );
    let starts: Vec<String> = g.initial_states().iter().map(|s| g.render(s)).collect();
    assert_eq!(starts, vec!["turn: a", "turn: b"]);
}

#[test]
fn features_name_tracks_and_elements_and_projection_forgets_them() {
    let g = game(&super::tests_games::level_text("tictactoe.game"));
    let features = g.features();
    assert_eq!(features[0], "turn");
    assert_eq!(features[1], "board");
    assert_eq!(features[2], "board[0]");
    assert_eq!(features.len(), 11);
    let mut out = Successors::new();
    g.successors(&g.initial_states()[0], &mut out);
    let (_, a) = out.get(0).unwrap();
    let (_, b) = out.get(1).unwrap();
    let project = |s: &[u8], ignored: &[usize]| {
        let mut v = Vec::new();
        g.project(s, ignored, &mut v);
        v
    };
    // X in cell 0 versus cell 1: equal once cells 0 and 1 are ignored, or the board.
    assert_ne!(project(a, &[0]), project(b, &[0]));
    assert_eq!(project(a, &[2, 3]), project(b, &[2, 3]));
    assert_eq!(
        project(a, &[0, 1]),
        project(&g.initial_states()[0], &[0, 1])
    );
}

#[test]
fn a_failing_rule_leads_to_the_rule_error_state() {
    let g = game(
        "players solo\n\
         track x: 0..3 = 2\n\
         decision inc when x < 5 { x := x + 1 }\n\
         outcome \"win\" when x == 3\n",
    );
    assert_eq!(
        g.outcome_names(),
        vec!["win".to_string(), RULE_ERROR.to_string()]
    );
    let states = super::tests_games::reachable(&g);
    assert_eq!(states.len(), 3);
    let errors: Vec<_> = states.iter().filter(|s| g.terminal(s) == Some(1)).collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(
        g.render(errors[0]),
        "x: 3\nrule error: value outside the values of `x` (line 3, column 32)"
    );
    // Rules that cannot fail need no error outcome.
    let safe = game(&super::tests_games::level_text("tictactoe.game"));
    assert!(!safe.outcome_names().contains(&RULE_ERROR.to_string()));
}

#[test]
fn canonical_text_is_a_fixpoint_and_keeps_meaning() {
    let src = "# comment\nplayers   solo  # who\ntrack a[3]:0..9=[1,2,3]\n\
               define f(x)=not (x>1 and x<3) or (any i in 0..2: a[i]==x) and -(-x) - (1 - 2) == 3\n\
               decision d(k in {0, 2}) when f(a[k]) { if k==0 {a[k]:=a[k]+1} else if k==2 {a[0]:=0} }\n\
               outcome \"end\" otherwise\n";
    let Compiled {
        game: g1,
        canonical: text1,
        ..
    } = compile("a.game", src).unwrap();
    let Compiled {
        game: g2,
        canonical: text2,
        ..
    } = compile("b.game", &text1).unwrap();
    assert_eq!(text1, text2);
    assert!(
        text1.starts_with("players solo\ntrack a[3]: 0..9 = [1, 2, 3]\n"),
        "{text1}"
    );
    assert!(
        text1.contains(
            "not (x > 1 and x < 3) or (any i in 0..2: a[i] == x) and - -x - (1 - 2) == 3"
        ),
        "{text1}"
    );
    assert_eq!(g1.action_labels(), vec!["d(0)", "d(2)"]);
    assert_eq!(
        super::tests_games::reachable(&g1),
        super::tests_games::reachable(&g2)
    );
}

#[test]
fn runaway_branching_is_a_rule_error_not_a_hang() {
    let g = game(
        "players solo\n\
         track x: 0..1 = 0\n\
         track y: 0..99 = 0\n\
         decision go when x == 0 {\n\
           x := 1\n\
           for i in 1..40 { random { 1/2: y := 0  1/2: y := 1 } }\n\
         }\n\
         outcome \"end\" otherwise\n",
    );
    assert_eq!(
        g.outcome_names(),
        vec!["end".to_string(), RULE_ERROR.to_string()]
    );
    let mut out = Successors::new();
    g.successors(&g.initial_states()[0], &mut out);
    assert_eq!(out.len(), 1);
    let (mv, s) = out.get(0).unwrap();
    assert!(mv.prob.is_one());
    assert_eq!(g.terminal(s), Some(1));
}

#[test]
fn tuples_give_inactive_players_the_null_decision() {
    let g = game(
        "players A, B, C\n\
         track said[player]: 0..2 = 0\n\
         decision say(v in 1..2) by p when p != C and said[p] == 0 { said[p] := v }\n\
         decision close by C when said[A] != 0 and said[C] == 0 { said[C] := 1 }\n\
         outcome \"end\" otherwise\n",
    );
    let start = &g.initial_states()[0];
    let mut out = Successors::new();
    g.successors(start, &mut out);
    assert_eq!(out.len(), 4);
    let labels = g.action_labels();
    let (mv, after) = out.get(1).unwrap();
    assert_eq!(labels[mv.action as usize], "(A:say(1), B:say(2), C:-)");
    assert_eq!(
        g.decision_tuple(mv.action),
        Some(vec![
            Some("say(1)".to_string()),
            Some("say(2)".to_string()),
            None
        ])
    );
    assert_eq!(mv.player, 0);
    // Afterwards only C decides: an ordinary move of player 2.
    let after = after.to_vec();
    assert_eq!(g.to_move(&after), Some(2));
    let mut out = Successors::new();
    g.successors(&after, &mut out);
    let (mv, _) = out.get(0).unwrap();
    assert_eq!(
        (labels[mv.action as usize].as_str(), mv.player),
        ("close", 2)
    );
    assert_eq!(g.decision_tuple(mv.action), None);
}
