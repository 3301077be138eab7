//! What the level fuzz targets and the workspace's smoke test do with one input: parse it
//! as a level file of the given name and, when it loads, play its game a little, checking
//! the `Game` contract on the way. Any panic is a bug; so is a level whose canonical text
//! does not reload as the same level (its hash would change between two runs).

use std::collections::{HashSet, VecDeque};

/// States expanded per input: enough to reach rules past the initial state, few enough
/// to keep thousands of executions a second.
const STATES: usize = 48;

/// Parses `data` as the level file `name` and exercises the level it holds, if any.
pub fn level_file(name: &str, data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = games::list_levels(name, text);
    let Ok(level) = games::load(name, text, &games::LevelSelector::First) else {
        return;
    };
    play(level.game.as_ref());
    // The stored run rebuilds its game from the kind and the canonical text alone
    // (`games::reload`), so that text must give back the same level.
    let options = std::collections::BTreeMap::new();
    match games::reload(level.game.kind(), &level.text, &options) {
        Ok(reloaded) => assert_eq!(
            reloaded.initial_states(),
            level.game.initial_states(),
            "the canonical text reloads as another level\n{}",
            level.text
        ),
        Err(err) => panic!("the canonical text does not reload: {err}\n{}", level.text),
    }
}

/// Compiles `data` as a PuzzleScript game with the `puzzlescript` crate directly (so that
/// text the format detection would hand to another parser still reaches the compiler),
/// then goes through [`level_file`] as a `.txt` file.
pub fn puzzlescript_file(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(compiled) = puzzlescript::compile("fuzz.txt", text) {
        let _ = puzzlescript::list_levels(&compiled);
    }
    level_file("fuzz.txt", data);
}

/// A breadth-first walk over the first [`STATES`] states, checking widths and that
/// every call the explorer makes returns.
fn play(game: &dyn model::Game) {
    let width = game.state_width().max_len();
    let _ = (game.action_labels(), game.outcome_names(), game.features());
    let mut queue: VecDeque<Vec<u8>> = game.initial_states().into();
    let mut seen = HashSet::new();
    let mut out = model::Successors::new();
    let mut expanded = 0;
    while let Some(state) = queue.pop_front() {
        if expanded == STATES {
            break;
        }
        if !seen.insert(state.clone()) {
            continue;
        }
        assert!(
            state.len() <= width,
            "a state wider than the declared width"
        );
        let _ = (game.render(&state), game.to_move(&state));
        if game.terminal(&state).is_some() {
            continue;
        }
        out.clear();
        game.successors(&state, &mut out);
        expanded += 1;
        for (_, next) in out.iter() {
            queue.push_back(next.to_vec());
        }
    }
}
