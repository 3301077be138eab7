//! Every kind of error a `.game` file can have, each with the exact line,
//! column and caret of the report.

use super::compile;
use crate::GamelangError;

const HEAD: &str = "players X, O\ntrack t: 0..3 = 0\ntrack a[0..3]: bool\n";

/// The error of a file made of `HEAD` (three lines) and `rest`.
fn error(rest: &str) -> (usize, usize, String, String) {
    let src = format!("{HEAD}{rest}");
    match compile("bad.game", &src) {
        Err(GamelangError::Syntax {
            file,
            line,
            column,
            message,
            excerpt,
        }) => {
            assert_eq!(file, "bad.game");
            (line, column, message, excerpt)
        }
        Err(other) => panic!("unexpected error {other}"),
        Ok(_) => panic!("accepted:\n{src}"),
    }
}

/// Asserts the error is at line 4, `column`, and its message contains `words`.
fn at(rest: &str, column: usize, words: &str) {
    at_line(rest, 4, column, words);
}

/// Asserts the error is at `line` (of the whole file), `column`, with `words`.
fn at_line(rest: &str, line: usize, column: usize, words: &str) {
    let (l, col, message, excerpt) = error(rest);
    assert_eq!((l, col), (line, column), "{message}");
    assert!(message.contains(words), "{message:?} lacks {words:?}");
    let quoted = rest.lines().nth(line - 4).unwrap_or("");
    assert_eq!(excerpt, format!("\n{quoted}\n{}^", " ".repeat(column - 1)));
}

#[test]
fn syntax_errors() {
    at("track u 0..3", 9, "expected `:`");
    at(
        "decision d when t == { t := 1 }",
        22,
        "expected an expression",
    );
    at("outcome \"a\" when t = 1", 20, "expected a declaration");
    at("track when: bool", 7, "expected a name");
    at("decision d { t = 1 }", 16, "expected `:=`");
    at("outcome a otherwise", 9, "expected a double-quoted string");
    at("game \"open", 6, "not closed");
    at("outcome \"a\" when t $ 1", 20, "unexpected character '$'");
    at("random", 1, "expected a declaration");
}

#[test]
fn unknown_names_and_arity() {
    at("outcome \"a\" when foo", 18, "unknown name `foo`");
    at("outcome \"a\" when bar(1)", 18, "unknown definition `bar`");
    at("outcome \"a\" when t[1] == 0", 18, "not an array");
    at("outcome \"a\" when a == a", 18, "array of tracks");
    at(
        "outcome \"a\" when min(t) == 0",
        18,
        "takes 2 argument(s), 1 given",
    );
    at("decision d { u := 1 }", 14, "unknown name `u`");
    at("track t: bool", 7, "already declared");
    at("decision d by Z, X { }", 15, "`Z` is not a player");
}

#[test]
fn type_errors() {
    at(
        "outcome \"a\" when t",
        18,
        "expected a boolean, found an integer",
    );
    at(
        "outcome \"a\" when t == X",
        20,
        "cannot compare an integer with a value of `player`",
    );
    at(
        "outcome \"a\" when a[X]",
        20,
        "expected an integer, found a value of `player`",
    );
    at(
        "outcome \"a\" when a[0] + 1 == 2",
        18,
        "expected an integer, found a boolean",
    );
    at(
        "decision d { t := true }",
        19,
        "expected an integer, found a boolean",
    );
    at(
        "track turn: player = none",
        22,
        "expected a value of `player`, found `none`",
    );
    at(
        "outcome \"a\" when next(t) == 1",
        23,
        "`next` takes a player or a named value",
    );
    at(
        "outcome \"a\" when (if a[0] then 1 else X) == 1",
        32,
        "different types",
    );
}

#[test]
fn probabilities_must_sum_to_one() {
    at(
        "decision d { random { 1/2: t := 1  1/3: t := 2 } }",
        14,
        "sum to 5/6, not 1",
    );
    at(
        "decision d { random { 1/2: t := 1  0/2: t := 2  1/2: t := 3 } }",
        36,
        "more than 0",
    );
    at("decision d { random { 3/2: t := 1 } }", 23, "at most 1");
    at(
        "start { random { 1: t := 1 } }",
        9,
        "cannot appear in a start block",
    );
}

#[test]
fn values_outside_sets() {
    at(
        "track u: 0..3 = 7",
        17,
        "the value 7 is outside the values of `u` (0..3)",
    );
    at("decision d { t := 4 }", 19, "outside the values of `t`");
    at(
        "outcome \"a\" when a[4]",
        20,
        "index 4 is outside the indices of `a`",
    );
    at(
        "track u[2]: 0..3 = [1, 2, 3]",
        20,
        "has 2 element(s) but 3 initial value(s)",
    );
    at("track u: 3..1", 10, "empty or too large");
    at(
        "outcome \"a\" when 1 / 0 == 1",
        20,
        "constant arithmetic fails",
    );
    at(
        "start { t := t + 5 }",
        14,
        "this start block fails: value outside the values of `t`",
    );
}

#[test]
fn definitions_cannot_recurse() {
    // The cycle is reported where it closes: `f` called inside `g`.
    at_line(
        "define f(x) = g(x) or true\ndefine g(y) = f(y)\noutcome \"a\" when f(1)",
        5,
        15,
        "definition `f` uses itself (through f -> g -> f)",
    );
    at(
        "define loop = not loop\noutcome \"a\" when loop",
        19,
        "definition `loop` uses itself",
    );
    at("define f(x, x) = x\n", 13, "parameter `x` appears twice");
}

#[test]
fn rules_order_and_missing_parts() {
    at_line(
        "outcome \"a\" otherwise\noutcome \"b\" when true",
        5,
        1,
        "no outcome rule can follow `otherwise`",
    );
    at("players Y", 9, "a second `players`");
    let no_players = compile("x.game", "track t: bool\noutcome \"a\" otherwise\n").unwrap_err();
    assert!(
        no_players.to_string().contains("declares no `players`"),
        "{no_players}"
    );
    let no_outcome = compile("x.game", HEAD).unwrap_err();
    assert!(
        no_outcome.to_string().contains("declares no `outcome`"),
        "{no_outcome}"
    );
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let deep = format!(
        "outcome \"a\" when {}true{}",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    let (line, _, message, _) = error(&deep);
    assert_eq!(line, 4);
    assert!(message.contains("nesting deeper than"), "{message}");
    let nots = format!("outcome \"a\" when {}true", "not ".repeat(5000));
    assert!(error(&nots).2.contains("nesting deeper than"));
    // Regression (found by fuzzing): 56 negations parsed, but their canonical text
    // `-(-(...))` nests twice as deep and did not parse again when a run was reloaded.
    let negations = format!("outcome \"a\" when {}1 == 1", "- ".repeat(56));
    assert!(error(&negations).2.contains("nesting deeper than"));
}

#[test]
fn a_long_negation_chain_reloads_from_its_canonical_text() {
    // Regression (found by fuzzing): 36 negations on the right of a subtraction parsed,
    // but their canonical text `a - -(-(-(...)))` added a pair of parentheses a level and
    // went past the nesting limit when a stored run rebuilt its game.
    let chain = "-".repeat(36);
    let src = format!(
        "game \"g\"\nplayers X\ntrack n: -5..5 = 0\noutcome \"a\" when n - {chain}n == 0\n"
    );
    let first = compile("chain.game", &src).expect("the chain parses");
    let again = compile("chain.game", &first.canonical).expect("its canonical text parses");
    assert_eq!(again.canonical, first.canonical);
}
