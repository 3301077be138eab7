//! Tests of level selection, listing and the shipped level files.

use std::path::PathBuf;

use super::*;
use crate::test_support::census;

const SET: &str = "\
; Test set
; made for these tests

; One
4#|#@.#|4#

; Two
-#####
##@$.#
######

Not a board line

; room4: four boxes
#####
#@$.#
#####
";

#[test]
fn first_level_by_default() {
    let level = load("set.sok", SET, &LevelSelector::default()).unwrap();
    assert_eq!(
        (level.index, level.count, level.title.as_str()),
        (1, 3, "One")
    );
    assert_eq!(level.text, "####\n#@.#\n####\n");
    assert_eq!(level.game.kind(), "sokoban");
}

#[test]
fn selects_by_number_and_title() {
    let level = load("set.sok", SET, &LevelSelector::Index(2)).unwrap();
    assert_eq!((level.index, level.title.as_str()), (2, "Two"));
    assert_eq!(level.text, " #####\n##@$.#\n######\n");
    for wanted in ["room4: four boxes", "ROOM4: FOUR BOXES", "room4"] {
        let level = load("set.sok", SET, &LevelSelector::Title(wanted.into())).unwrap();
        assert_eq!(level.index, 3, "{wanted}");
    }
    let level = load("set.sok", SET, &LevelSelector::Title("two".into())).unwrap();
    assert_eq!(level.index, 2);
}

#[test]
fn missing_level_number_says_how_many_there_are() {
    for n in [0, 4] {
        let err = load("set.sok", SET, &LevelSelector::Index(n)).unwrap_err();
        assert_eq!(
            err,
            GamesError::NoSuchIndex {
                file: "set.sok".into(),
                index: n,
                count: 3
            }
        );
        assert!(err.to_string().contains("holds 3 level(s)"), "{err}");
    }
}

#[test]
fn missing_title_lists_known_titles() {
    let err = load("set.sok", SET, &LevelSelector::Title("Three".into())).unwrap_err();
    assert_eq!(
        err.to_string(),
        "set.sok: no level titled \"Three\" among its 3 level(s) \
         (titles: \"One\", \"Two\", \"room4: four boxes\")"
    );
}

#[test]
fn lists_levels_with_titles() {
    let list = list_levels("set.sok", SET).unwrap();
    let expect = [(1, "One"), (2, "Two"), (3, "room4: four boxes")];
    assert_eq!(list, expect.map(|(i, t)| (i, t.to_string())).to_vec());
}

#[test]
fn errors_carry_the_file_position() {
    let err = load(
        "x.xsb",
        "; a\n####\n#@ #\n#@ #\n####\n",
        &LevelSelector::First,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("x.xsb:4:2: level \"a\" has a second player"),
        "{err}"
    );
    let err = load("x.xsb", "\n\n", &LevelSelector::First).unwrap_err();
    assert_eq!(
        err,
        GamesError::EmptyFile {
            file: "x.xsb".into()
        }
    );
    let err = list_levels("x.xsb", "####\n#@?#\n####\n").unwrap_err();
    assert!(matches!(
        err,
        GamesError::ForeignCharacter {
            line: 2,
            column: 3,
            found: '?',
            ..
        }
    ));
}

#[test]
fn level_text_identifies_the_board_not_its_spelling() {
    let a = load("a.xsb", "Title: a\n5#|#@$.#|5#\n", &LevelSelector::First).unwrap();
    let b = load("b.xsb", "#####\n#@$.#   \n#####\n", &LevelSelector::First).unwrap();
    assert_eq!(a.text, b.text);
}

fn shipped_levels() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../levels/sokoban");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e != "md"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn every_shipped_level_loads() {
    let files = shipped_levels();
    assert!(files.len() >= 9, "{files:?}");
    for (name, text) in files {
        let list = list_levels(&name, &text).unwrap();
        for (index, title) in list {
            let level = load(&name, &text, &LevelSelector::Index(index)).unwrap();
            assert_eq!(level.title, title);
            let again = load(&name, &level.text, &LevelSelector::First).unwrap();
            assert_eq!(
                again.text, level.text,
                "{name} level {index}: canonical text is stable"
            );
        }
    }
}

#[test]
fn shipped_titles_come_from_comments() {
    let files = shipped_levels();
    let text_of = |name: &str| {
        files
            .iter()
            .find(|f| f.0 == name)
            .map(|f| f.1.clone())
            .unwrap()
    };
    let boxoban = list_levels("b.txt", &text_of("boxoban-hard-000-first20.txt")).unwrap();
    let expect: Vec<(usize, String)> = (1..=20).map(|i| (i, (i - 1).to_string())).collect();
    assert_eq!(boxoban, expect);
    let room = load(
        "room4.xsb",
        &text_of("room4.xsb"),
        &LevelSelector::Title("room4".into()),
    )
    .unwrap();
    assert_eq!(room.title, "room4: 10x10 room, 4 boxes");
    let set = list_levels("s.sok", &text_of("small-set.sok")).unwrap();
    let titles: Vec<&str> = set.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Warm-up",
            "Turn the corner",
            "Run-length",
            "Two rooms",
            "Goal under the player"
        ]
    );
}

#[test]
fn handwritten_state_counts_stay_put() {
    // The corridor by hand: with the box on cell b (2..=7) the player has
    // the b cells left of it; the box on the goal (cell 8) is reached
    // once, terminal. 2 + 3 + ... + 7 + 1 = 28.
    let files = shipped_levels();
    let counts = [
        ("corridor.xsb", 28, 1),
        ("tiny.xsb", 198, 2),
        ("twoboxes.xsb", 2887, 2),
        ("nowin.xsb", 5228, 0),
    ];
    for (name, states, wins) in counts {
        let text = &files.iter().find(|f| f.0 == name).unwrap().1;
        let level = load(name, text, &LevelSelector::First).unwrap();
        let c = census(level.game.as_ref(), 100_000).unwrap();
        assert_eq!((c.states, c.terminals), (states, wins), "{name}");
    }
}

#[test]
fn handwritten_levels_are_small() {
    for (name, text) in shipped_levels() {
        if name.starts_with("room") || name.starts_with("boxoban") {
            continue;
        }
        for (index, title) in list_levels(&name, &text).unwrap() {
            let level = load(&name, &text, &LevelSelector::Index(index)).unwrap();
            let c = census(level.game.as_ref(), 100_000);
            assert!(c.is_some(), "{name} {title}: over 100k states");
        }
    }
}

/// The error of loading `text` as the `.txt` file `name`.
fn txt_error(name: &str, text: &str) -> String {
    match load(name, text, &LevelSelector::First) {
        Ok(level) => panic!("{name} loaded as {}", level.game.kind()),
        Err(err) => err.to_string(),
    }
}

#[test]
fn a_damaged_fling_or_puzzlegraph_txt_file_gets_its_own_formats_error() {
    // Regression: a damaged Fling! or PuzzleGraph `.txt` file fell back to the Sokoban
    // parser, which said "no level found (a board needs ... a `#` wall)" without a position.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../levels");
    let read = |name: &str| std::fs::read_to_string(root.join(name)).expect("bundled level");
    let fling = read("fling/level1.txt").replacen("..o....", "..o.x..", 1);
    let err = txt_error("fling.txt", &fling);
    assert!(err.starts_with("fling.txt:4:"), "{err}");
    assert!(!err.contains("`#` wall"), "{err}");
    let plain = ".......\n..o.o..\n.......\n.......\n..O....\n.......\n.......\n.......\n";
    let err = txt_error("plain.txt", plain);
    assert!(err.starts_with("plain.txt:5:"), "{err}");
    let graph = read("puzzlegraph/Hanoi 3.txt").replacen("PuzzleNode A", "PuzzleNod A", 1);
    let err = txt_error("hanoi.txt", &graph);
    assert!(err.starts_with("hanoi.txt:2:"), "{err}");
    let sandbox = read("sandbox/exp2.sandbox").replacen("side 7", "side seven", 1);
    let err = txt_error("exp2.txt", &sandbox);
    assert!(err.starts_with("exp2.txt:3"), "{err}");
    // A Sokoban file is still read as Sokoban.
    assert!(txt_error("soko.txt", "#####\n#@ X#\n#$ .#\n#####\n").contains(":2:4"));
}

#[test]
fn a_feature_map_is_named_as_one_not_read_as_a_sokoban_level() {
    // Regression: `hsg explore` on the bundled `.map` file said its first comment line was
    // "a level with no player".
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../levels");
    let name = "grammar/tictactoe-to-three-to-fifteen.map";
    let text = std::fs::read_to_string(root.join(name)).expect("bundled map");
    let err = txt_error("t.map", &text);
    assert!(err.starts_with("t.map:1:1: this is a feature map"), "{err}");
    assert!(err.contains("--map"), "{err}");
    let listed = list_levels("t.map", &text).expect_err("a map has no levels");
    assert_eq!(listed.to_string(), err);
}
