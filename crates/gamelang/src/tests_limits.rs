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
