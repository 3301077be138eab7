//! Tests of the Fling! file reader and writer.

use super::*;

const HOG2: &str = "Hash: 37154696925872128
.......
.......
..o....
.......
.......
.......
.......
.o....o


----

Hash: 6656
.......
..o.oo.
.......
.......
.......
.......
.......
.......


----

";

#[test]
fn reads_hog2_blocks_and_checks_hashes() {
    let boards = parse("l.txt", HOG2).unwrap();
    let masks: Vec<u64> = boards.iter().map(|b| b.board.mask()).collect();
    assert_eq!(masks, vec![37154696925872128, 6656]);
    assert_eq!(boards[1].line, 14);
    assert!(looks_like(HOG2));
}

#[test]
fn written_files_read_back() {
    let boards: Vec<Board> = parse("l.txt", HOG2)
        .unwrap()
        .iter()
        .map(|b| b.board)
        .collect();
    let text = hog2_file(&boards);
    assert_eq!(text, HOG2);
    let again: Vec<Board> = parse("w.txt", &text)
        .unwrap()
        .iter()
        .map(|b| b.board)
        .collect();
    assert_eq!(again, boards);
}

#[test]
fn a_plain_board_needs_no_hash() {
    let plain = ".......\n..o.oo.\n.......\n.......\n.......\n.......\n.......\n.......\n";
    assert!(looks_like(plain));
    assert_eq!(parse("p.txt", plain).unwrap()[0].board.mask(), 6656);
}

#[test]
fn sokoban_text_is_not_fling() {
    assert!(!looks_like("#####\n#@$.#\n#####\n"));
    assert!(!looks_like("\n\n"));
}

fn error_at(text: &str) -> (usize, usize, String) {
    match parse("bad.txt", text).unwrap_err() {
        GamesError::Syntax {
            line,
            column,
            message,
            ..
        } => (line, column, message),
        other => panic!("unexpected error {other:?}"),
    }
}

#[test]
fn errors_name_the_line() {
    let wrong_hash = HOG2.replacen("6656", "6657", 1);
    let (line, column, message) = error_at(&wrong_hash);
    assert_eq!((line, column), (14, 7));
    assert!(message.contains("does not match"), "{message}");

    let (line, column, _) = error_at(".......\n..x....\n");
    assert_eq!((line, column), (2, 3));

    let (line, _, message) = error_at(".......\n.......\n");
    assert_eq!(line, 2);
    assert!(message.contains("8 rows"), "{message}");

    let (line, _, message) = error_at(&".......\n".repeat(8));
    assert_eq!(line, 1);
    assert!(message.contains("at least one piece"), "{message}");

    let (line, column, _) = error_at("Hash: twelve\n");
    assert_eq!((line, column), (1, 7));

    let (line, _, message) = error_at(".......\n.o.....\n........\n");
    assert_eq!(line, 3);
    assert!(message.contains("7 cells"), "{message}");
}
