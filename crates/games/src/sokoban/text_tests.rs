//! Tests of level splitting and title finding.

use super::*;

fn titles(text: &str) -> Vec<String> {
    split_levels("t.xsb", text)
        .unwrap()
        .into_iter()
        .map(|l| l.title)
        .collect()
}

fn rows(level: &RawLevel) -> Vec<String> {
    level
        .rows
        .iter()
        .map(|r| r.iter().map(|c| c.ch).collect())
        .collect()
}

#[test]
fn semicolon_titles_before_boards_as_in_boxoban() {
    let text = "; 0\n####\n#@.#\n####\n\n; 1\n\n####\n#@ #\n####\n";
    assert_eq!(titles(text), vec!["0", "1"]);
    let levels = split_levels("t", text).unwrap();
    assert_eq!(levels[1].first_line, 8);
    assert_eq!(rows(&levels[1]), vec!["####", "#@ #", "####"]);
}

#[test]
fn comment_titles_without_blank_lines_as_in_bench_rooms() {
    let text = "; room3: three\n####\n#@ #\n####\n; room4: four\n####\n#@ #\n####\n";
    assert_eq!(titles(text), vec!["room3: three", "room4: four"]);
}

#[test]
fn title_key_after_board_wins() {
    let text =
        "Level one\n####\n#@ #\n####\nTitle: First\nAuthor: me\n\nLevel two\n####\n#@ #\n####\n";
    assert_eq!(titles(text), vec!["First", "Level two"]);
}

#[test]
fn plain_text_after_boards_when_the_file_does_so() {
    let text = "####\n#@ #\n####\nAlpha\n\n####\n#@ #\n####\nBeta\n";
    assert_eq!(titles(text), vec!["Alpha", "Beta"]);
}

#[test]
fn nearest_paragraph_names_the_level_not_the_file_header() {
    let text = "; My collection\n; by someone\n\n; 1\n; hard\n\n####\n#@ #\n####\n";
    assert_eq!(titles(text), vec!["1"]);
}

#[test]
fn untitled_levels_are_numbered() {
    let text = "####\n#@ #\n####\n\n####\n#@ #\n####\n";
    assert_eq!(titles(text), vec!["level 1", "level 2"]);
}

#[test]
fn run_lengths_and_bars_inside_a_board() {
    let text = "Title: rle\n4#|#@.#\n4#\n";
    let levels = split_levels("t", text).unwrap();
    assert_eq!(rows(&levels[0]), vec!["####", "#@.#", "####"]);
    assert_eq!(levels[0].title, "rle");
}

#[test]
fn a_text_line_is_not_a_board_line() {
    assert!(is_board_line("  ####"));
    assert!(is_board_line("3#|#@#"));
    assert!(!is_board_line("#1"));
    assert!(!is_board_line("Level 1"));
    assert!(!is_board_line("  $ . "));
    assert!(!is_board_line("##\t#"));
}

#[test]
fn foreign_character_inside_a_board_is_reported() {
    let text = "; x\n#####\n#@ $.#\n# x  #\n#####\n";
    let err = split_levels("bad.xsb", text).unwrap_err();
    assert_eq!(
        err,
        GamesError::ForeignCharacter {
            file: "bad.xsb".into(),
            line: 4,
            column: 3,
            found: 'x'
        }
    );
}

#[test]
fn foreign_character_in_a_last_row_is_reported() {
    let text = "#####\n#@$.#\n##z##\n\nLevel 2 text\n";
    let err = split_levels("bad.xsb", text).unwrap_err();
    assert!(matches!(
        err,
        GamesError::ForeignCharacter {
            line: 3,
            column: 3,
            found: 'z',
            ..
        }
    ));
}

#[test]
fn title_text_next_to_a_board_is_not_a_row() {
    let text = "Level 2\n####\n#@.#\n####\n#5 is next\n";
    assert_eq!(titles(text), vec!["Level 2"]);
}

#[test]
fn file_without_board_is_empty() {
    for text in ["", "\n\n", "; only a comment\nTitle: x\n"] {
        assert_eq!(
            split_levels("e.sok", text).unwrap_err(),
            GamesError::EmptyFile {
                file: "e.sok".into()
            }
        );
    }
}

#[test]
fn windows_line_ends_are_accepted() {
    let levels = split_levels("w.xsb", "; crlf\r\n####\r\n#@.#\r\n####\r\n").unwrap();
    assert_eq!(levels[0].title, "crlf");
    assert_eq!(rows(&levels[0]), vec!["####", "#@.#", "####"]);
}
