//! The records of rules that found no match on an expansion's board
//! (`engine::NoMatch`) change no successor: every game of the shared
//! conformance suite, explored with and without them, gives the same
//! successors, state by state, in the same order.

use model::{Game, Successors};
use puzzlescript::{compile, PuzzleScriptGame};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The successors of `state` as comparable values.
fn successors(game: &PuzzleScriptGame, state: &[u8]) -> Vec<(model::Move, Vec<u8>)> {
    let mut out = Successors::new();
    game.successors(state, &mut out);
    out.iter().map(|(m, next)| (m, next.to_vec())).collect()
}

/// Level `level` of `source` twice: with a speed-up on, and with it off
/// (`off` turns it off).
fn game_pair(
    source: &str,
    level: usize,
    off: fn(&mut PuzzleScriptGame),
) -> Option<(PuzzleScriptGame, PuzzleScriptGame)> {
    let compiled = compile("case", source).ok()?;
    let with = PuzzleScriptGame::new(compiled.clone(), level).ok()?;
    let mut without = PuzzleScriptGame::new(compiled, level).ok()?;
    off(&mut without);
    Some((with, without))
}

/// Explores `level` of `source` breadth-first for at most `budget`,
/// comparing each state's successors with a speed-up on and off (`off`
/// turns it off); the number of states compared.
/// `stop` ends the comparison (an interrupted expansion is not compared).
pub fn compare_level(
    source: &str,
    level: usize,
    budget: Duration,
    stop: &Arc<AtomicBool>,
    off: fn(&mut PuzzleScriptGame),
) -> Option<usize> {
    let (with, without) = game_pair(source, level, off)?;
    compare_games(&with, &without, source, level, budget, stop)
}

/// Explores `level` of `source` breadth-first for at most `budget`,
/// comparing each state's successors in game `with` and game `without`
/// (the same level of two forms of `source`); the number of states
/// compared. `stop` ends the comparison.
pub fn compare_games(
    with: &PuzzleScriptGame,
    without: &PuzzleScriptGame,
    source: &str,
    level: usize,
    budget: Duration,
    stop: &Arc<AtomicBool>,
) -> Option<usize> {
    with.interrupt_on(stop.clone());
    without.interrupt_on(stop.clone());
    let start = Instant::now();
    let mut queue = with.initial_states();
    let mut seen: HashSet<Vec<u8>> = queue.iter().cloned().collect();
    let mut head = 0;
    while head < queue.len() && head < 400 && start.elapsed() < budget {
        let state = queue[head].clone();
        head += 1;
        if with.terminal(&state).is_some() {
            continue;
        }
        let found = successors(with, &state);
        let expected = successors(without, &state);
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        assert_eq!(
            found,
            expected,
            "level {level} of {}, state {}",
            source
                .lines()
                .find(|l| l.starts_with("title"))
                .unwrap_or("?"),
            with.render(&state)
        );
        if with.failure().is_some() {
            break;
        }
        for (_, next) in found {
            if seen.insert(next.clone()) {
                queue.push(next);
            }
        }
    }
    Some(head)
}

/// Compares, with a speed-up on and off (`off` turns it off), the first two
/// levels of every distinct game of the shared conformance suite that
/// `wanted` accepts, 50 ms a level, in file order, as many games as fit in 40
/// seconds (then the expansion in progress is interrupted): the games and
/// the states compared, or None without the suite.
pub fn compare_suite(
    wanted: fn(&str) -> bool,
    off: fn(&mut PuzzleScriptGame),
) -> Option<(usize, usize)> {
    compare_suite_by(wanted, &move |source, level, budget, stop| {
        compare_level(source, level, budget, stop, off)
    })
}

/// A comparison of one level of a game's source, as [`compare_level`]'s.
pub type CompareLevel = dyn Fn(&str, usize, Duration, &Arc<AtomicBool>) -> Option<usize>;

/// [`compare_suite`] with the levels compared by `compare`.
pub fn compare_suite_by(
    wanted: fn(&str) -> bool,
    compare: &CompareLevel,
) -> Option<(usize, usize)> {
    let path = crate::shared_cases_file()?;
    let text = std::fs::read_to_string(path).expect("the cases file reads");
    let mut sources = HashSet::new();
    let (mut games, mut states) = (0, 0);
    let stop = Arc::new(AtomicBool::new(false));
    let watchdog = stop.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(40));
        watchdog.store(true, Ordering::Relaxed);
    });
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let case: serde_json::Value = serde_json::from_str(line).expect("a JSON case");
        let Some(source) = case.get("source").and_then(|s| s.as_str()) else {
            continue;
        };
        if !sources.insert(source.to_string()) || !wanted(source) {
            continue;
        }
        games += 1;
        for level in 1..=2 {
            match compare(source, level, Duration::from_millis(50), &stop) {
                Some(n) => states += n,
                None => break,
            }
        }
    }
    Some((games, states))
}

/// Asserts that every game of the shared conformance suite gives the same
/// successors with a speed-up on and off (`off`), over at least 10 games
/// and 1,000 states (nothing without the suite).
pub fn assert_suite_unchanged(off: fn(&mut PuzzleScriptGame)) {
    let Some((games, states)) = compare_suite(|_| true, off) else {
        return;
    };
    assert!(
        games >= 10 && states >= 1_000,
        "{games} games, {states} states compared"
    );
}

/// Asserts that level 1 of `source` gives the same successors with a
/// speed-up on and off (`off`), over at least `min` states (20 s at most).
pub fn assert_level_unchanged(source: &str, off: fn(&mut PuzzleScriptGame), min: usize) {
    let stop = Arc::new(AtomicBool::new(false));
    let states = compare_level(source, 1, Duration::from_secs(20), &stop, off);
    assert!(
        states.is_some_and(|n| n >= min),
        "{states:?} states compared"
    );
}

#[test]
fn rule_records_change_no_successor() {
    assert_suite_unchanged(|g| g.set_rule_records(false));
}

/// A game whose decoration rules match everywhere on every turn and change
/// nothing but near the player (recorded across the inputs as unchanged,
/// `Rule::records_unchanged`), beside rules that must not be so recorded:
/// one that stops the player (it writes the player's movement) and one
/// that writes two cells a match.
const DECORATED: &str = "title decorated\nOBJECTS\nBackground\nblack\nWall\nblue\n\
    Light\nyellow\nMark\ngreen\nPlayer\nwhite\nCrate\nred\nLEGEND\n. = Background\n\
    # = Wall\nP = Player\n* = Crate\nm = Mark\nSOUNDS\nCOLLISIONLAYERS\nBackground\nMark\nLight\n\
    Player, Wall, Crate\nRULES\n\
    [ Wall | no Wall ] -> [ Wall Light | ]\n\
    [ Light no Wall ] -> [ ]\n\
    [ Mark | Player ] -> [ Mark | stationary Player ]\n\
    right [ Crate | Light ] -> [ Crate Mark | Light Mark ]\n\
    [ > Player | Crate ] -> [ > Player | > Crate ]\n\
    WINCONDITIONS\nLEVELS\n\
    #########\n#...#...#\n#.P.*.m.#\n#..##*..#\n#.*...m.#\n#########\n";

#[test]
fn unchanged_matches_recorded_across_inputs_change_no_successor() {
    let compiled = compile("case", DECORATED).expect("the game compiles");
    let unchanged: Vec<usize> = compiled
        .rules
        .groups
        .iter()
        .flatten()
        .filter(|r| r.records_unchanged)
        .map(|r| r.line)
        .collect();
    // The wall's light (four directions) and its removal; not the rule
    // that stops the player, nor the one writing two cells.
    assert_eq!(unchanged.len(), 5, "{unchanged:?}");
    assert_level_unchanged(DECORATED, |g| g.set_rule_records(false), 50);
}

/// A game whose first rule writes the player's cell on every move up (a
/// trail mark, the first input's), so that the records across the inputs
/// are made on a board already written there (`NoMatch::written_before`):
/// rules of one and of two rows that find no match, a decoration recorded as unchanged, a rule
/// of two rows whose recorded row matches near the writes, and one that
/// matches only where no trail is, as on the other inputs' turns, which
/// write none: its record from the first turn holds only with the trail's
/// cell searched again.
const TRAILED: &str = "title trailed\nOBJECTS\nBackground\nblack\nWall\nblue\n\
    Light\nyellow\nMark\ngreen\nTrail\ngray\nPlayer\nwhite\nCrate\nred\nLEGEND\n\
    . = Background\n# = Wall\nP = Player\n* = Crate\nm = Mark\nSOUNDS\nCOLLISIONLAYERS\n\
    Background\nTrail\nMark\nLight\nPlayer, Wall, Crate\nRULES\n\
    [ up Player ] -> [ up Player Trail ]\n\
    [ Player no Trail ] [ Mark ] -> [ Player ] [ ]\n\
    [ Wall | no Wall ] -> [ Wall Light | ]\n\
    [ Light no Wall ] -> [ ]\n\
    [ Crate | Crate | Crate ] -> [ Wall | Wall | Wall ]\n\
    [ Trail | Crate ] [ Mark ] -> [ Trail | Crate ] [ ]\n\
    [ Trail | Mark ] [ Crate ] -> [ Trail | Mark Light ] [ Crate ]\n\
    [ > Player | Crate ] -> [ > Player | > Crate ]\n\
    late [ Trail ] -> [ ]\n\
    WINCONDITIONS\nLEVELS\n\
    #########\n#...#...#\n#.P.*.m.#\n#..##*..#\n#.*...m.#\n#########\n";

#[test]
fn records_made_after_a_write_change_no_successor() {
    assert_level_unchanged(TRAILED, |g| g.set_rule_records(false), 50);
}

/// Explores `level` of `source` breadth-first with a speed-up on, for at
/// most 400 states and `budget`, then expands the same states in the same
/// order with it off (`off`): each game expands state after state, so that
/// what its worker keeps from one state to the next is tested too (the
/// comparisons above alternate the two games). The states compared.
pub fn compare_explorations(
    source: &str,
    level: usize,
    budget: Duration,
    stop: &Arc<AtomicBool>,
    off: fn(&mut PuzzleScriptGame),
) -> Option<usize> {
    let (with, without) = game_pair(source, level, off)?;
    with.interrupt_on(stop.clone());
    without.interrupt_on(stop.clone());
    let start = Instant::now();
    let mut queue = with.initial_states();
    let mut seen: HashSet<Vec<u8>> = queue.iter().cloned().collect();
    let (mut head, mut found) = (0, Vec::new());
    while head < queue.len() && head < 400 && start.elapsed() < budget {
        let state = queue[head].clone();
        head += 1;
        if with.terminal(&state).is_some() || with.failure().is_some() {
            continue;
        }
        let next = successors(&with, &state);
        for (_, n) in &next {
            if seen.insert(n.clone()) {
                queue.push(n.clone());
            }
        }
        found.push((state, next));
    }
    for (state, next) in &found {
        let expected = successors(&without, state);
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        assert_eq!(
            next,
            &expected,
            "level {level}, state {}",
            with.render(state)
        );
    }
    Some(found.len())
}

/// Replaying the rule groups that read no movement across the inputs
/// (`engine::turn_memo`) changes no successor in the suite's games,
/// explored state after state.
#[test]
fn turn_replays_change_no_successor() {
    let compare = |source: &str, level, budget, stop: &Arc<AtomicBool>| {
        compare_explorations(source, level, budget, stop, |g| g.set_turn_memo(false))
    };
    let Some((games, states)) = compare_suite_by(|_| true, &compare) else {
        return;
    };
    assert!(
        games >= 10 && states >= 1_000,
        "{games} games, {states} states compared"
    );
}

/// Markers drawn and erased on every turn (replayed across the inputs), a
/// rule that reads the input's movement and changes objects (a switch lit
/// from one side: the turns differ from there on), and a replayable rule
/// after it that reads what the switch became.
const SWITCHES: &str = "title switches\nOBJECTS\nBackground\nblack\nPlayer\nwhite\nWall\nblue\n\
    Switch\nred\nLit\nyellow\nGlow\norange\nMark\ngreen\nStone\ngrey\nLEGEND\n. = Background\n\
    P = Player\n# = Wall\ns = Switch\no = Stone\nSOUNDS\nCOLLISIONLAYERS\nBackground\nMark\nGlow\n\
    Player, Wall, Switch, Lit, Stone\nRULES\n\
    [ Stone | no Mark ] -> [ Stone | Mark ]\n\
    [ Mark ] -> [ ]\n\
    right [ > Player | Switch ] -> [ > Player | Lit ]\n\
    [ Lit | no Glow ] -> [ Lit | Glow ]\n\
    [ Glow | Player ] -> [ | Player ] sfx0\n\
    WINCONDITIONS\nLEVELS\n#######\n#.o.s.#\n#.P...#\n#..s.o#\n#s....#\n#######\n";

#[test]
fn turn_replays_stop_where_an_input_changed_objects() {
    assert_level_unchanged(SWITCHES, |g| g.set_turn_memo(false), 100);
    let stop = Arc::new(AtomicBool::new(false));
    let off = |g: &mut PuzzleScriptGame| g.set_turn_memo(false);
    let states = compare_explorations(SWITCHES, 1, Duration::from_secs(20), &stop, off);
    assert!(
        states.is_some_and(|n| n >= 100),
        "{states:?} states compared"
    );
}
