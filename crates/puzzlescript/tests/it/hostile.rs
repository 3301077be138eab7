//! Hostile games stay bounded: a rule that expands into millions of rules, a
//! rule of twenty bracketed parts, legends of thousands of chained
//! properties, misspelled or missing section headers. Each fails (or
//! compiles) quickly with an error that names its line, never a hang.

use std::time::{Duration, Instant};

use model::{Game, Successors};
use puzzlescript::{compile, Error, PuzzleScriptGame};

/// A game with objects A to D, `legend` and `rules` added, and `level`.
fn game(legend: &str, layers: &str, rules: &str, level: &str) -> String {
    format!(
        "title hostile\n\nOBJECTS\n\nBackground\nblack\n\nPlayer\nwhite\n\nTarget\nyellow\n\n\
         Wall\nbrown\n\nA\nred\n\nB\nblue\n\nC\ngreen\n\nD\npink\n\n\
         LEGEND\n\n. = Background\nP = Player\n# = Wall\n{legend}\n\
         SOUNDS\n\nCOLLISIONLAYERS\n\nBackground\nTarget\n{layers}\n\n\
         RULES\n\n{rules}\n\nWINCONDITIONS\n\nLEVELS\n\n{level}"
    )
}

const SMALL: &str = "#####\n#P..#\n#####\n";

/// The line of `needle` in `text`, from 1.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("in the text")
        + 1
}

#[test]
fn a_rule_that_expands_past_the_bound_is_an_error_naming_its_line() {
    let rule = "[ moving Prop | moving Prop | moving Prop | moving Prop ] -> \
                [ moving Prop | moving Prop | moving Prop | moving Prop ]";
    let text = game(
        "Prop = A or B or C or D\n",
        "Player, Wall, A, B\nC, D",
        rule,
        SMALL,
    );
    let started = Instant::now();
    let err = compile("prop.txt", &text).expect_err("refused");
    assert!(started.elapsed() < Duration::from_secs(60));
    match err {
        Error::Compile { line, message, .. } => {
            assert_eq!(line, Some(line_of(&text, "moving Prop |")));
            assert!(message.contains("expands into more than"), "{message}");
        }
        other => panic!("{other}"),
    }
}

#[test]
fn a_rule_of_twenty_parts_stops_its_turn_with_an_error_naming_its_line() {
    let parts = vec!["[ Background ]"; 20].join(" ");
    let rule = format!("[ > Player ] {parts} -> [ > Player ] {parts}");
    let level = format!(
        "############\n{}#P.........#\n############\n",
        "#..........#\n".repeat(5)
    );
    let text = game("", "Player, Wall, A, B, C, D", &rule, &level);
    let compiled = compile("parts.txt", &text).expect("compiles");
    let level = PuzzleScriptGame::new(compiled, 1).expect("level 1");
    let mut out = Successors::new();
    let started = Instant::now();
    level.successors(&level.initial_states()[0], &mut out);
    assert!(started.elapsed() < Duration::from_secs(30));
    let why = level.failure().expect("the turn went past the bound");
    let line = line_of(&text, "[ > Player ]");
    assert!(why.contains(&format!("rule on line {line}")), "{why}");
}

#[test]
fn chained_legend_properties_resolve_in_linear_time() {
    for n in [2_000, 20_000] {
        let legend: String = std::iter::once("Pr0 = Wall or Target\n".to_string())
            .chain((1..n).map(|i| format!("Pr{i} = Pr{} or Target\n", i - 1)))
            .collect();
        let rule = format!("[ > Player | Pr{} ] -> [ > Player | Pr{} ]", n - 1, n - 1);
        let text = game(&legend, "Player, Wall, A, B, C, D", &rule, SMALL);
        let started = Instant::now();
        let compiled = compile("chain.txt", &text).unwrap_or_else(|e| panic!("{e}"));
        // Debug builds on a loaded machine: generous, but far below the
        // minutes (and gigabytes) of the quadratic resolution.
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{n}: {:?}",
            started.elapsed()
        );
        let top = compiled
            .names
            .property(&format!("pr{}", n - 1))
            .expect("the last property");
        assert_eq!(top, &vec!["wall".to_string(), "target".to_string()]);
    }
}

#[test]
fn a_misspelled_header_or_no_levels_is_named() {
    let text = game("", "Player, Wall, A, B, C, D", "", SMALL);
    let misspelled = text.replacen("OBJECTS", "OBJECT", 1);
    let err = compile("typo.txt", &misspelled).expect_err("refused");
    let message = err.to_string();
    assert!(
        message.starts_with("typo.txt:3:1: unknown section header \"OBJECT\""),
        "{message}"
    );
    assert!(message.contains("did you mean OBJECTS?"), "{message}");
    let cut = &text[..text.find("LEVELS").expect("a LEVELS header")];
    let err = compile("nolevels.txt", cut).expect_err("refused");
    assert!(err.to_string().contains("no LEVELS section"), "{err}");
}

#[test]
fn compile_errors_carry_their_line_and_column_as_data() {
    let text = game(
        "",
        "Player, Wall, A, B, C, D",
        "[ Player ] -> [ Flag ]",
        SMALL,
    );
    match compile("flag.txt", &text).expect_err("refused") {
        Error::Compile { line, message, .. } => {
            assert_eq!(line, Some(line_of(&text, "-> [ Flag ]")));
            assert!(message.contains("flag"), "{message}");
            assert!(!message.starts_with("line"), "{message}");
        }
        other => panic!("{other}"),
    }
    let bad_glyph = game("", "Player, Wall, A, B, C, D", "", "#####\n#P.?#\n#####\n");
    match compile("glyph.txt", &bad_glyph).expect_err("refused") {
        Error::Compile { line, column, .. } => {
            assert_eq!(
                (line, column),
                (Some(line_of(&bad_glyph, "#P.?#")), Some(4))
            );
        }
        other => panic!("{other}"),
    }
}
