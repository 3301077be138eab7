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
        Ok(_) => panic!("accepted a hostile file"),
    }
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
