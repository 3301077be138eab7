//! Games described in the `.game` language, as one more level format: a thin
//! adapter over the `gamelang` crate, which holds the language itself
//! (`docs/game-language.md`). It turns the language's errors into this
//! crate's and gives untitled games their file's name.

use crate::{GamesError, Level, LevelSelector};

impl From<gamelang::GamelangError> for GamesError {
    fn from(e: gamelang::GamelangError) -> GamesError {
        match e {
            gamelang::GamelangError::Syntax {
                file,
                line,
                column,
                message,
                excerpt,
            } => GamesError::Syntax {
                file,
                line,
                column,
                message,
                excerpt,
            },
            gamelang::GamelangError::NoThread { file, reason } => GamesError::Syntax {
                file,
                line: 1,
                column: 1,
                message: format!("cannot start a thread to compile the game: {reason}"),
                excerpt: String::new(),
            },
        }
    }
}

/// Loads the game of a `.game` file (one level per file).
pub fn load(file_name: &str, text: &str, selector: &LevelSelector) -> Result<Level, GamesError> {
    let compiled = gamelang::compile(file_name, text)?;
    let mut canonical = compiled.canonical;
    let title = compiled.title.unwrap_or_else(|| {
        // The canonical text carries the title, so that a level reloaded
        // from it (by `crate::reload`) keeps its name.
        let title = default_title(file_name).replace('"', "'");
        canonical = format!("game \"{title}\"\n{canonical}");
        title
    });
    crate::select(file_name, &[title.as_str()], selector)?;
    Ok(Level {
        game: Box::new(compiled.game),
        title,
        text: canonical,
        index: 1,
        count: 1,
    })
}

/// Lists the levels of a `.game` file: the one game it describes.
pub fn list_levels(file_name: &str, text: &str) -> Result<Vec<(usize, String)>, GamesError> {
    load(file_name, text, &LevelSelector::First).map(|l| vec![(1, l.title)])
}

/// The file's stem, for games without a `game "title"` line.
fn default_title(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    base.split('.').next().unwrap_or(base).to_string()
}

#[cfg(test)]
mod tests {
    use crate::{load, LevelSelector};

    #[test]
    fn every_level_loads_and_round_trips() {
        let dir = format!("{}/../../levels/grammar", env!("CARGO_MANIFEST_DIR"));
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("game") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path.to_string_lossy().to_string();
            let level = load(&name, &text, &LevelSelector::First).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(level.game.kind(), "grammar");
            let again = load("level.game", &level.text, &LevelSelector::First).unwrap();
            assert_eq!(
                again.text, level.text,
                "{name}: canonical text is a fixpoint"
            );
            assert_eq!(again.title, level.title);
            assert_eq!(again.game.initial_states(), level.game.initial_states());
            assert_eq!(again.game.action_labels(), level.game.action_labels());
            assert_eq!(again.game.outcome_names(), level.game.outcome_names());
        }
    }

    #[test]
    fn an_untitled_game_keeps_its_file_name_as_title_through_a_reload() {
        let src = "players solo\ntrack t: bool\noutcome \"end\" otherwise\n";
        let level = load("dir/my puzzle.game", src, &LevelSelector::First).unwrap();
        assert_eq!(level.title, "my puzzle");
        assert!(
            level.text.starts_with("game \"my puzzle\"\n"),
            "{}",
            level.text
        );
        let again = load("level.game", &level.text, &LevelSelector::First).unwrap();
        assert_eq!(again.title, "my puzzle");
        assert_eq!(again.text, level.text);
    }
}
