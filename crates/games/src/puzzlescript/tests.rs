//! Tests of the PuzzleScript adapter: detection, level numbering, canonical
//! text and reload, and the positions of errors.

use std::collections::BTreeMap;

use super::{list_levels, load, looks_like};
use crate::{GamesError, LevelSelector};

/// A bundled game's text.
fn bundled(name: &str) -> String {
    let path = format!(
        "{}/../../levels/puzzlescript/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A small game: two levels, with a message between them.
const TWO_LEVELS: &str = "title Two\n\nOBJECTS\nBackground\nblack\nWall\nbrown\nPlayer\nwhite\nCrate\norange\nTarget\nyellow\n\nLEGEND\n. = Background\n# = Wall\nP = Player\n* = Crate\nO = Target\n\nSOUNDS\n\nCOLLISIONLAYERS\nBackground\nTarget\nPlayer, Wall, Crate\n\nRULES\n[ > Player | Crate ] -> [ > Player | > Crate ]\n\nWINCONDITIONS\nAll Target on Crate\n\nLEVELS\nmessage hello\n\n#####\n#P*O#\n#####\n\nmessage again\n\n######\n#P.*O#\n######\n";

#[test]
fn a_game_is_recognised_by_its_sections_whatever_its_extension() {
    assert!(looks_like(TWO_LEVELS));
    assert!(!looks_like("#####\n#@$.#\n#####\n"));
    for name in ["game.txt", "game.xsb", "game", "game.ps"] {
        let level = crate::load(name, TWO_LEVELS, &LevelSelector::First).unwrap();
        assert_eq!(level.game.kind(), "puzzlescript", "{name}");
    }
}

#[test]
fn levels_are_numbered_from_one_without_messages() {
    let list = list_levels("two.txt", TWO_LEVELS).unwrap();
    assert_eq!(
        list,
        vec![
            (1, "level 1: 5x3, Two".to_string()),
            (2, "level 2: 6x3, Two".to_string())
        ]
    );
    assert_eq!(crate::list_levels("two.txt", TWO_LEVELS).unwrap(), list);
    let second = load("two.txt", TWO_LEVELS, &LevelSelector::Index(2)).unwrap();
    assert_eq!((second.index, second.count), (2, 2));
    assert_eq!(
        second.game.render(&second.game.initial_states()[0]),
        "######\n#p.*o#\n######\n"
    );
    let by_title = load(
        "two.txt",
        TWO_LEVELS,
        &LevelSelector::Title("level 2".into()),
    )
    .unwrap();
    assert_eq!(by_title.index, 2);
    let missing = load("two.txt", TWO_LEVELS, &LevelSelector::Index(3)).unwrap_err();
    assert!(
        matches!(missing, GamesError::NoSuchIndex { count: 2, .. }),
        "{missing}"
    );
}

#[test]
fn the_canonical_text_rebuilds_the_level_and_is_a_fixpoint() {
    let crlf = TWO_LEVELS.replace('\n', "  \r\n");
    let level = load("two.txt", &crlf, &LevelSelector::Index(2)).unwrap();
    assert!(
        level.text.starts_with("(hyperstate: level 2)\ntitle Two\n"),
        "{}",
        level.text
    );
    assert!(!level.text.contains('\r') && !level.text.contains(" \n"));
    let plain = load("two.txt", TWO_LEVELS, &LevelSelector::Index(2)).unwrap();
    assert_eq!(
        plain.text, level.text,
        "line ends and trailing blanks do not matter"
    );
    let again = crate::reload("puzzlescript", &level.text, &BTreeMap::new()).unwrap();
    assert_eq!(again.initial_states(), level.game.initial_states());
    assert_eq!(again.action_labels(), level.game.action_labels());
    let reloaded = super::reload("x", &level.text, false).unwrap();
    assert_eq!(reloaded.text, level.text);
    assert_eq!(reloaded.title, level.title);
    let no_header = crate::reload("puzzlescript", TWO_LEVELS, &BTreeMap::new())
        .err()
        .unwrap();
    assert!(
        no_header
            .to_string()
            .starts_with("stored puzzlescript level:1:1:"),
        "{no_header}"
    );
}

#[test]
fn actions_are_named_as_the_game_names_them() {
    let level = load(
        "room3.ps.txt",
        &bundled("room3.ps.txt"),
        &LevelSelector::First,
    )
    .unwrap();
    assert_eq!(
        level.game.action_labels(),
        ["up", "left", "down", "right", "action"]
    );
    let counts = level.game.exploration_counts();
    assert_eq!(counts.len(), 1);
    assert_eq!(counts[0].1, 0);
}

#[test]
fn errors_name_the_file_line_and_column_and_quote_the_line() {
    let unknown = TWO_LEVELS.replace("[ > Player | Crate ]", "[ > Player | Box ]");
    let err = load("bad.txt", &unknown, &LevelSelector::First).unwrap_err();
    let GamesError::Syntax {
        file,
        line,
        column,
        excerpt,
        ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!((file.as_str(), *line), ("bad.txt", 30), "{err}");
    assert_eq!(*column, 14, "{err}");
    assert!(excerpt.contains("\n[ > Player | Box ] ->"), "{err}");
    let glyph = TWO_LEVELS.replace("#P*O#", "#P*Z#");
    let err = load("bad.txt", &glyph, &LevelSelector::First).unwrap_err();
    assert!(err.to_string().starts_with("bad.txt:39:"), "{err}");
}

#[test]
fn a_misspelled_or_missing_header_is_reported_as_puzzlescript() {
    let typo = TWO_LEVELS.replacen("OBJECTS", "OBJECT", 1);
    let err = crate::load("typo.txt", &typo, &LevelSelector::First).unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with("typo.txt:3:1: unknown section header \"OBJECT\""),
        "{message}"
    );
    let cut = &TWO_LEVELS[..TWO_LEVELS.find("LEVELS").unwrap()];
    let err = crate::load("cut.txt", cut, &LevelSelector::First).unwrap_err();
    assert!(err.to_string().contains("no LEVELS section"), "{err}");
}

/// A store's recorded level text is compiled again by `path`, `why`, `html` and
/// the workbench through `reload`: a forged one meets the compiler's bounds.
#[test]
fn a_forged_stored_text_meets_the_same_bounds() {
    let rule = "[ moving Prop | moving Prop | moving Prop | moving Prop ] -> \
                [ moving Prop | moving Prop | moving Prop | moving Prop ]";
    let forged = format!(
        "(hyperstate: level 1)\n{}",
        TWO_LEVELS
            .replace(
                "O = Target\n",
                "O = Target\nProp = Crate or Wall or Target\n"
            )
            .replace("[ > Player | Crate ] -> [ > Player | > Crate ]", rule)
    );
    let err = crate::reload("puzzlescript", &forged, &BTreeMap::new())
        .err()
        .expect("refused");
    let message = err.to_string();
    assert!(
        message.starts_with("stored puzzlescript level:32:"),
        "{message}"
    );
    assert!(message.contains("expands into more than"), "{message}");
}
