//! Regression tests of the language's limits against hostile files (issue
//! 20): each test is named after the defect it guards against, and each
//! limit ends in a clear error or a `rule error`, never a crash or a hang.

use model::{Game, Successors};

use super::{compile, GamelangError};

/// The message of the error `src` gives, with its line and column.
fn error_of(src: &str) -> (usize, usize, String) {
    match compile("hostile.game", src) {
        Err(GamelangError::Syntax {
            line,
            column,
            message,
            ..
        }) => (line, column, message),
        Err(other) => panic!("unexpected error {other}"),
        Ok(_) => panic!("accepted a hostile file"),
    }
}

/// A game whose outcome `yes` holds when `cond` does, in a state where
/// `t` is 0 and `u` is 1.
fn outcome_when(cond: &str) -> Result<String, GamelangError> {
    let src = format!(
        "players solo\ntrack t: 0..1 = 0\ntrack u: 0..1 = 1\n\
         outcome \"yes\" when {cond}\noutcome \"no\" otherwise\n"
    );
    let game = compile("chain.game", &src)?.game;
    let start = &game.initial_states()[0];
    let outcome = game.terminal(start).expect("the start is terminal");
    Ok(game.outcome_names()[outcome as usize].clone())
}

#[test]
fn long_flat_operator_chains_are_refused_not_overflowed() {
    // The chains that overflowed the stack: about 4,900 `+` terms and 5,100
    // `or` terms, and far longer ones.
    for cond in [
        format!("{} == 0", vec!["t"; 4_900].join(" + ")),
        vec!["t == 1"; 5_100].join(" or "),
        format!("{} == 0", vec!["t"; 200_000].join(" + ")),
    ] {
        let message = outcome_when(&cond).unwrap_err().to_string();
        assert!(
            message.contains("more than 1000 operators deep"),
            "{message}"
        );
        assert!(message.starts_with("chain.game:4:"), "{message}");
    }
    // A long chain within the limit compiles and evaluates on a test thread.
    let sum = format!("{} == 900", vec!["u"; 900].join(" + "));
    assert_eq!(outcome_when(&sum).unwrap(), "yes");
    let any = format!("{} or u == 1", vec!["t == 1"; 900].join(" or "));
    assert_eq!(outcome_when(&any).unwrap(), "yes");
}

#[test]
fn large_sets_are_shallow_not_overflowed() {
    // 16,500 set elements overflowed once compiled to a chain of `or`.
    let set: Vec<String> = (2..16_502).map(|i| i.to_string()).collect();
    let cond = format!("u in {{{}, 1}}", set.join(", "));
    assert_eq!(outcome_when(&cond).unwrap(), "yes");
    let cond = format!("t in {{{}}}", set.join(", "));
    assert_eq!(outcome_when(&cond).unwrap(), "no");
}

#[test]
fn definitions_inlined_into_deep_rules_are_refused() {
    // Each use of `f` inlines a 600-deep chain: two nested uses are too deep.
    let chain = vec!["1"; 600].join(" + ");
    let src = format!(
        "players solo\ntrack t: 0..1 = 0\ndefine f(x) = x + {chain}\n\
         outcome \"yes\" when f(f(t)) > 0\noutcome \"no\" otherwise\n"
    );
    let (line, _, message) = error_of(&src);
    assert_eq!(line, 4, "{message}");
    assert!(
        message.contains("once definitions are inlined"),
        "{message}"
    );
    // The same through memoised definitions, which evaluation enters too.
    let src = format!(
        "players solo\ntrack t: 0..1 = 0\ndefine a = t + {chain}\n\
         define b = a + {chain}\n\
         outcome \"yes\" when b > 0\noutcome \"no\" otherwise\n"
    );
    let (_, _, message) = error_of(&src);
    assert!(
        message.contains("once definitions are inlined"),
        "{message}"
    );
}

#[test]
fn decision_cross_product_is_checked_before_it_is_built() {
    // 30,000 x 30,000 parameter values: 9e8 combinations, refused at once.
    let src = "players solo\ntrack t: bool\n\
               decision pick(a in 0..29999, b in 0..29999) { t := true }\n\
               outcome \"end\" otherwise\n";
    let (line, column, message) = error_of(src);
    assert_eq!((line, column), (3, 10));
    assert!(
        message.contains("more than 30000 concrete decisions"),
        "{message}"
    );
    // A product that overflows a machine word is refused the same way.
    let src = "players solo\ntrack t: bool\n\
               decision pick(a in 0..29999, b in 0..29999, c in 0..29999, d in 0..29999, \
               e in 0..29999) { t := true }\n\
               outcome \"end\" otherwise\n";
    assert!(error_of(src).2.contains("concrete decisions"));
}

#[test]
fn integers_are_64_bit_as_documented() {
    let two_53 = 1i64 << 53;
    let src = format!(
        "players solo\nconst BIG = {two_53}\nconst MAX = {}\n\
         track t: 0..1 = 0\n\
         outcome \"yes\" when BIG + 1 == {} and MAX - 1 == {}\n\
         outcome \"no\" otherwise\n",
        i64::MAX,
        two_53 + 1,
        i64::MAX - 1
    );
    let game = compile("big.game", &src)
        .unwrap_or_else(|e| panic!("{e}"))
        .game;
    let start = &game.initial_states()[0];
    let yes = game
        .terminal(start)
        .map(|o| game.outcome_names()[o as usize].clone());
    assert_eq!(yes.as_deref(), Some("yes"));
    // One past the largest 64-bit integer is refused, saying why.
    let src = format!(
        "players solo\ntrack t: bool\noutcome \"a\" when {} > 0\n",
        1u64 << 63
    );
    let (line, column, message) = error_of(&src);
    assert_eq!((line, column), (3, 18));
    assert!(message.contains("64-bit"), "{message}");
}

#[test]
fn extreme_ranges_are_refused_not_overflowed() {
    let min = "(-9223372036854775807 - 1)";
    let max = i64::MAX;
    for decl in [
        format!("track u: {min}..{max}"),
        format!("track u[{min}..{max}]: bool"),
        format!("track u[{min}]: bool"),
        format!("decision d(x in {min}..{max}) {{ t := true }}"),
    ] {
        let src = format!("players solo\ntrack t: bool\n{decl}\noutcome \"a\" otherwise\n");
        let (line, _, message) = error_of(&src);
        assert_eq!(line, 3, "{decl}: {message}");
    }
    // A constant index far outside an array is an error, not an overflow.
    let src = format!(
        "players solo\ntrack a[{max}..{max}]: bool\n\
         outcome \"a\" when a[{min}]\noutcome \"b\" otherwise\n"
    );
    assert!(error_of(&src).2.contains("outside the indices"));
    // So is a computed one, during play.
    let src = format!(
        "players solo\ntrack a[{max}..{max}]: bool\ntrack i: 0..1 = 0\n\
         decision go when i == 0 {{ i := 1 }}\n\
         outcome \"a\" when i == 1 and a[{min} + i - 1]\noutcome \"b\" otherwise\n"
    );
    let game = compile("far.game", &src)
        .unwrap_or_else(|e| panic!("{e}"))
        .game;
    let mut out = Successors::new();
    game.successors(&game.initial_states()[0], &mut out);
    let (_, next) = out.iter().next().expect("one move");
    let name = &game.outcome_names()[game.terminal(next).expect("terminal") as usize];
    assert_eq!(name, super::RULE_ERROR);
}

/// The only successor of `game`'s start state, and its outcome's name.
fn first_move(game: &super::GrammarGame) -> (Vec<u8>, Option<String>) {
    let mut out = Successors::new();
    game.successors(&game.initial_states()[0], &mut out);
    assert_eq!(out.len(), 1);
    let (_, next) = out.iter().next().expect("one move");
    let names = game.outcome_names();
    let outcome = game.terminal(next).map(|o| names[o as usize].clone());
    (next.to_vec(), outcome)
}

/// Why the only successor of `game`'s start state is a rule error.
fn rule_error_of_the_first_move(game: &super::GrammarGame) -> String {
    let (next, outcome) = first_move(game);
    assert_eq!(outcome.as_deref(), Some(super::RULE_ERROR));
    game.render(&next)
}

#[test]
fn a_loop_of_a_trillion_steps_is_a_rule_error_not_a_hang() {
    for body in [
        "for i in 0..1000000000000 { t := 0 }",
        // Through the branching runner, which a `random` selects.
        "for i in 0..1000000000000 { t := 0 } random { 1/2: t := 1  1/2: t := 0 }",
    ] {
        let src = format!(
            "players solo\ntrack t: 0..1 = 0\ntrack done: bool = false\n\
             decision go when not done {{ {body} done := true }}\n\
             outcome \"end\" otherwise\n"
        );
        let game = compile("loop.game", &src)
            .unwrap_or_else(|e| panic!("{e}"))
            .game;
        let (_, outcome) = first_move(&game);
        assert_eq!(outcome.as_deref(), Some(super::RULE_ERROR), "{body}");
    }
    let src = "players solo\ntrack t: 0..1 = 0\n\
               decision go when t == 0 { for i in 0..1000000000000 { t := 0 } t := 1 }\n\
               outcome \"end\" otherwise\n";
    let game = compile("loop.game", src)
        .unwrap_or_else(|e| panic!("{e}"))
        .game;
    let reason = rule_error_of_the_first_move(&game);
    assert!(reason.contains("more than 10000000 loop steps"), "{reason}");
    // A quantifier in a condition: the state's legality fails to evaluate.
    let src = "players solo\ntrack t: 0..1 = 0\n\
               decision go when any i in 0..1000000000000: i < 0 { t := 1 }\n\
               outcome \"end\" otherwise\n";
    let game = compile("quant.game", src)
        .unwrap_or_else(|e| panic!("{e}"))
        .game;
    let start = &game.initial_states()[0];
    let outcome = game
        .terminal(start)
        .expect("a failing condition ends the game");
    assert_eq!(game.outcome_names()[outcome as usize], super::RULE_ERROR);
}

#[test]
fn loops_within_the_step_limit_need_no_rule_error() {
    // The checker counts loop steps soundly, nested loops multiplied, so a game
    // whose loops cannot reach the limit keeps its declared outcomes only.
    let src = "players solo\ntrack t: 0..9 = 0\n\
               decision go when t == 0 { for i in 0..999 { for j in 0..999 { t := 0 } } t := 1 }\n\
               outcome \"end\" otherwise\n";
    let game = compile("small.game", src)
        .unwrap_or_else(|e| panic!("{e}"))
        .game;
    assert_eq!(game.outcome_names(), vec!["end".to_string()]);
    let src = src.replace("0..999 {", "0..9999 {");
    let game = compile("big.game", &src)
        .unwrap_or_else(|e| panic!("{e}"))
        .game;
    assert_eq!(game.outcome_names().len(), 2, "10^8 steps may fail");
}

#[test]
fn a_raised_stop_flag_ends_an_evaluation_at_once() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    // A loop of 10^6 steps, within the limit: it ends the game normally.
    let src = "players solo\ntrack t: 0..1 = 0\n\
               decision go when t == 0 { for i in 0..999999 { t := 0 } t := 1 }\n\
               outcome \"end\" otherwise\n";
    let game = compile("loop.game", src)
        .unwrap_or_else(|e| panic!("{e}"))
        .game;
    let (done, outcome) = first_move(&game);
    assert_eq!(outcome.as_deref(), Some("end"));
    // With the flag raised, the loop gives up within a thousand steps; the
    // move leads to the error state (the explorer discards it).
    game.interrupt_on(Arc::new(AtomicBool::new(true)));
    let (cut, _) = first_move(&game);
    assert_ne!(cut, done);
    assert_ne!(cut, game.initial_states()[0]);
}

#[test]
fn branches_of_a_wide_game_are_bounded_in_memory() {
    // 2^20 chance branches of 4,000 slots each would hold 32 GiB; the tuple
    // becomes a rule error once its branches hold 2^23 values.
    let src =
        "players solo\ntrack wide[0..3999]: bool\ntrack x: 0..1 = 0\ntrack done: bool = false\n\
               decision go when not done {\n\
                 done := true\n\
                 for i in 1..20 { random { 1/2: x := 0  1/2: x := 1 } }\n\
               }\n\
               outcome \"end\" otherwise\n";
    let game = compile("wide.game", src)
        .unwrap_or_else(|e| panic!("{e}"))
        .game;
    let reason = rule_error_of_the_first_move(&game);
    assert!(reason.contains("8388608 values"), "{reason}");
}

#[test]
fn wide_games_provide_a_rule_error_for_their_branch_memory() {
    // 3,000 branches of 4,000 slots exceed 2^23 values: the checker sees it
    // coming and gives the game its `rule error` outcome, which the move gets.
    let src = "players solo\ntrack wide[0..3999]: bool\ntrack x: 0..2999 = 0\n\
               track done: bool = false\n\
               decision go when not done { done := true  random d in 0..2999 { x := d } }\n\
               outcome \"end\" otherwise\n";
    let game = compile("wide.game", src)
        .unwrap_or_else(|e| panic!("{e}"))
        .game;
    assert_eq!(
        game.outcome_names().last().map(String::as_str),
        Some(super::RULE_ERROR)
    );
    rule_error_of_the_first_move(&game);
    // With 40 slots the same branching fits, and needs no rule error.
    let narrow = src.replace("wide[0..3999]", "wide[0..39]");
    let game = compile("narrow.game", &narrow)
        .unwrap_or_else(|e| panic!("{e}"))
        .game;
    assert_eq!(game.outcome_names(), vec!["end".to_string()]);
    let mut out = Successors::new();
    game.successors(&game.initial_states()[0], &mut out);
    assert_eq!(out.len(), 3000);
}

#[test]
fn the_successors_of_one_state_are_bounded_in_memory() {
    // 30,000 moves to states of 16 KiB would take 480 MiB: beyond 64 MiB the
    // state's first move leads to the error state instead.
    let src = "players solo\ntrack big[0..4093]: 0..4000000000\ntrack x: 0..29999 = 0\n\
               track done: bool = false\n\
               decision go(a in 0..29999) when not done { done := true  x := a }\n\
               outcome \"end\" otherwise\n";
    let game = compile("many.game", src)
        .unwrap_or_else(|e| panic!("{e}"))
        .game;
    let reason = rule_error_of_the_first_move(&game);
    assert!(reason.contains("67108864 bytes of successors"), "{reason}");
    // A hundred such moves fit, and need no rule error.
    let few = src.replace("0..29999)", "0..99)");
    let game = compile("few.game", &few)
        .unwrap_or_else(|e| panic!("{e}"))
        .game;
    assert_eq!(game.outcome_names(), vec!["end".to_string()]);
    let mut out = Successors::new();
    game.successors(&game.initial_states()[0], &mut out);
    assert_eq!(out.len(), 100);
}
