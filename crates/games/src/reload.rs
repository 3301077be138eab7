//! Rebuilding the game of a stored run: the one place that maps a game kind
//! (what [`model::Game::kind`] returned when the run was explored) back to
//! its parser, so that no caller has to make up a file name whose extension
//! picks the right one.

use std::collections::BTreeMap;

use model::Game;

use crate::{fling, flip, grammar, puzzlegraph, puzzlescript, sandbox, GamesError, LevelSelector};

/// The game kinds [`reload`] knows, as [`model::Game::kind`] names them.
pub const KINDS: [&str; 6] = [
    "sokoban",
    "puzzlegraph",
    "fling",
    "sandbox",
    "grammar",
    "puzzlescript",
];

/// Rebuilds the game of a stored run from its identity: the game's `kind`,
/// the level's canonical text (`Level::text` when it was explored) and the
/// run's options, of which only the token-flip count ([`flip::OPTION`])
/// and PuzzleScript's `keep_inert` ([`puzzlescript::KEEP_INERT`]) change the
/// game. Errors name the stored level (`stored KIND level`)
/// and the position in its text.
pub fn reload(
    kind: &str,
    level_text: &str,
    options: &BTreeMap<String, String>,
) -> Result<Box<dyn Game>, GamesError> {
    let file = format!("stored {kind} level");
    let first = &LevelSelector::First;
    let level = match kind {
        "sokoban" => crate::load_sokoban(&file, level_text, first)?,
        "puzzlegraph" => puzzlegraph::load(&file, level_text, first)?,
        "fling" => fling::load(&file, level_text, first)?,
        "sandbox" => sandbox::load(&file, level_text, first)?,
        "grammar" => grammar::load(&file, level_text, first)?,
        "puzzlescript" => {
            let keep_inert = options.contains_key(puzzlescript::KEEP_INERT);
            puzzlescript::reload(&file, level_text, keep_inert)?
        }
        _ => {
            return Err(GamesError::UnknownKind {
                kind: kind.to_string(),
                known: KINDS.join(", "),
            })
        }
    };
    let tokens = match options.get(flip::OPTION) {
        Some(value) => value.parse().map_err(|_| GamesError::BadOption {
            option: flip::OPTION.to_string(),
            value: value.clone(),
        })?,
        None => 0,
    };
    Ok(flip::wrap(level, tokens)?.game)
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashSet, VecDeque};

    use model::{Game, Successors};

    use super::reload;
    use crate::{flip, load, GamesError, LevelSelector};

    /// A bundled level, loaded as `hsg explore` loads it.
    fn bundled(path: &str) -> crate::Level {
        let path = format!("{}/../../levels/{path}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        load(&path, &text, &LevelSelector::First).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Asserts that two games have the same initial states, labels and outcomes,
    /// and the same terminal outcome and successors at the first `limit` states
    /// reachable breadth first.
    fn assert_same_game(a: &dyn Game, b: &dyn Game, limit: usize) {
        assert_eq!(a.kind(), b.kind());
        assert_eq!(a.initial_states(), b.initial_states());
        assert_eq!(a.action_labels(), b.action_labels());
        assert_eq!(a.outcome_names(), b.outcome_names());
        let mut seen: HashSet<Vec<u8>> = a.initial_states().into_iter().collect();
        let mut queue: VecDeque<Vec<u8>> = a.initial_states().into();
        let (mut out_a, mut out_b) = (Successors::new(), Successors::new());
        let mut visited = 0;
        while let Some(state) = queue.pop_front() {
            visited += 1;
            if visited > limit {
                break;
            }
            assert_eq!(a.terminal(&state), b.terminal(&state));
            out_a.clear();
            out_b.clear();
            a.successors(&state, &mut out_a);
            b.successors(&state, &mut out_b);
            let moves =
                |out: &Successors| -> Vec<_> { out.iter().map(|(m, s)| (m, s.to_vec())).collect() };
            assert_eq!(moves(&out_a), moves(&out_b));
            for (_, next) in out_a.iter() {
                if seen.insert(next.to_vec()) {
                    queue.push_back(next.to_vec());
                }
            }
        }
        assert!(visited > 1, "the comparison expanded no state");
    }

    #[test]
    fn every_game_kind_reloads_from_its_kind_and_canonical_text() {
        let levels = [
            "sokoban/twoboxes.xsb",
            "puzzlegraph/plate-relay.puzzlegraph",
            "fling/level3.txt",
            "sandbox/tiny.sandbox",
            "grammar/tictactoe.game",
            "grammar/pig.game",
            "puzzlescript/room3.ps.txt",
        ];
        let mut kinds = HashSet::new();
        for path in levels {
            let level = bundled(path);
            let kind = level.game.kind();
            kinds.insert(kind);
            let again = reload(kind, &level.text, &BTreeMap::new())
                .unwrap_or_else(|e| panic!("{path}: {e}"));
            assert_same_game(level.game.as_ref(), again.as_ref(), 2_000);
        }
        assert_eq!(kinds.len(), super::KINDS.len(), "one level per kind");
    }

    #[test]
    fn flip_tokens_are_rebuilt_from_the_runs_options() {
        let level = bundled("grammar/tictactoe.game");
        let text = level.text.clone();
        let wrapped = flip::wrap(level, 2).unwrap();
        let options = BTreeMap::from([(flip::OPTION.to_string(), "2".to_string())]);
        let again = reload("grammar", &text, &options).unwrap();
        assert_same_game(wrapped.game.as_ref(), again.as_ref(), 2_000);
    }

    #[test]
    fn a_reload_error_names_the_kind_the_option_or_the_position() {
        let none = BTreeMap::new();
        let unknown = reload("chess", "", &none).err().unwrap();
        assert!(matches!(&unknown, GamesError::UnknownKind { kind, .. } if kind == "chess"));
        assert!(unknown.to_string().contains("grammar"), "{unknown}");
        let broken = reload("grammar", "players X\ntrack t: 0..3 = 7\n", &none)
            .err()
            .unwrap();
        let message = broken.to_string();
        assert!(message.starts_with("stored grammar level:2:"), "{message}");
        let options = BTreeMap::from([(flip::OPTION.to_string(), "two".to_string())]);
        let text = bundled("sokoban/tiny.xsb").text;
        let bad = reload("sokoban", &text, &options).err().unwrap();
        assert!(matches!(bad, GamesError::BadOption { ref value, .. } if value == "two"));
        // The made-up extension that used to select the `.game` parser is gone.
        let err = load(
            "level.grammar",
            "players X\ntrack t: bool\n",
            &LevelSelector::First,
        );
        assert!(!matches!(err, Err(GamesError::Syntax { .. })), "{err:?}");
    }
}
