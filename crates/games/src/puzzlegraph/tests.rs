//! Tests of the PuzzleGraph loader and game: the eight sample puzzles, the
//! canonical text, random puzzles, and broken files.

use super::{load, looks_like, PuzzleGraph};
use crate::test_support::{census, Census, XorShift};
use crate::{GamesError, LevelSelector};
use model::{Game, Successors};

/// The eight samples shipped with PuzzleGraph (copied unchanged into levels/),
/// with their state and goal-state counts under PuzzleGraph 1.1's rules.
///
/// Four are counted by hand:
/// - Door And Toggle: the gate follows toggle D; the player stands on A, B or D with
///   the toggle off or on (6), plus the goal C with it on: 7.
/// - State Space Tester: six positions; from B the wall A-B cannot be climbed back
///   without a ball, so B, D and E are stuck: 6 states, 1 goal.
/// - Ball Track: the gate B-C follows plate D, on exactly while the ball lies on D.
///   The ball can lie on E, A (brought along A-E), D (pushed along the ball track) or
///   B (brought from D); with each the player can stand on A, B, D or E (16), and
///   with the ball on D the player can also reach the goal C: 17 states, 1 goal.
/// - Hanoi 3: toggles f, e, d; gates B-E = !f, B-G = f, G-D = !e, G-C = e, C-H = d.
///   All 8 toggle states are reachable. The player can stand on A, F, B always, on
///   E when !f, on G when f, on D when f and !e, on C when f and e, on H when f, e
///   and d: 4 x 4 (f off) + 5 x 2 (f on, e off) + 5 + 6 (f and e on) = 37, 1 goal.
const SAMPLES: [(&str, &str, usize, usize); 8] = [
    (
        "Ball Track.txt",
        include_str!("../../../../levels/puzzlegraph/Ball Track.txt"),
        17,
        1,
    ),
    (
        "Bridge Go Round.txt",
        include_str!("../../../../levels/puzzlegraph/Bridge Go Round.txt"),
        134,
        2,
    ),
    (
        "Detour.txt",
        include_str!("../../../../levels/puzzlegraph/Detour.txt"),
        31,
        2,
    ),
    (
        "Door And Toggle.txt",
        include_str!("../../../../levels/puzzlegraph/Door And Toggle.txt"),
        7,
        1,
    ),
    (
        "Hanoi 3.txt",
        include_str!("../../../../levels/puzzlegraph/Hanoi 3.txt"),
        37,
        1,
    ),
    (
        "Hanoi 4.txt",
        include_str!("../../../../levels/puzzlegraph/Hanoi 4.txt"),
        77,
        1,
    ),
    (
        "Hazard Only Safe With Ball.txt",
        include_str!("../../../../levels/puzzlegraph/Hazard Only Safe With Ball.txt"),
        18,
        2,
    ),
    (
        "State Space Tester.txt",
        include_str!("../../../../levels/puzzlegraph/State Space Tester.txt"),
        6,
        1,
    ),
];

fn load_first(name: &str, text: &str) -> Result<crate::Level, GamesError> {
    load(name, text, &LevelSelector::First)
}

#[test]
fn samples_have_the_expected_state_spaces() {
    for (name, text, states, goals) in SAMPLES {
        let level = load_first(name, text).expect("sample loads");
        let c = census(level.game.as_ref(), 1_000_000).expect("small");
        assert_eq!((c.states, c.terminals), (states, goals), "{name}");
        assert_eq!(level.game.kind(), "puzzlegraph");
        assert_eq!(level.title, name.trim_end_matches(".txt"));
    }
}

#[test]
fn samples_are_detected_and_dispatched_as_puzzlegraph() {
    for (name, text, ..) in SAMPLES {
        assert!(looks_like(text), "{name}");
        let level = crate::load(name, text, &LevelSelector::First).expect("dispatch");
        assert_eq!(level.game.kind(), "puzzlegraph");
        assert_eq!(crate::list_levels(name, text).expect("list").len(), 1);
    }
    assert!(!looks_like("Title\n#####\n#@$.#\n#####\n"));
}

#[test]
fn canonical_text_is_the_sample_itself_and_reloads_to_the_same_game() {
    for (name, text, states, goals) in SAMPLES {
        let level = load_first(name, text).expect("sample loads");
        assert_eq!(level.text.trim_end(), text.trim_end(), "{name}");
        let again = crate::load("level.puzzlegraph", &level.text, &LevelSelector::First)
            .expect("canonical text reloads");
        assert_eq!(again.text, level.text);
        assert_eq!(again.game.initial_states(), level.game.initial_states());
        assert_eq!(again.game.action_labels(), level.game.action_labels());
        let c = census(again.game.as_ref(), 1_000_000).expect("small");
        assert_eq!((c.states, c.terminals), (states, goals), "{name}");
    }
}

#[test]
fn bom_and_crlf_are_accepted() {
    let (name, text, states, _) = SAMPLES[3];
    let crlf = format!("\u{feff}{}", text.replace('\n', "\r\n"));
    assert!(looks_like(&crlf));
    let level = load_first(name, &crlf).expect("BOM and CRLF load");
    assert_eq!(level.title, "Door And Toggle");
    assert_eq!(
        census(level.game.as_ref(), 1000).expect("small").states,
        states
    );
}

#[test]
fn labels_are_meaningful_and_unique() {
    let level = load_first(SAMPLES[3].0, SAMPLES[3].1).expect("loads");
    let labels = level.game.action_labels();
    for wanted in ["press D", "walk A->B", "walk B->A", "shoot B->D"] {
        assert!(labels.iter().any(|l| l == wanted), "{wanted} in {labels:?}");
    }
    let mut sorted = labels.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), labels.len());
}

#[test]
fn render_draws_nodes_edges_items_and_values() {
    let level = load_first(SAMPLES[0].0, SAMPLES[0].1).expect("loads");
    let start = &level.game.initial_states()[0];
    let picture = level.game.render(start);
    for part in [
        "[B @]",
        "[E o]",
        "[C goal]",
        "[D plate:off]",
        "Gate B-C: closed",
        "BallTrack E-D",
        "G",
        "T",
    ] {
        assert!(picture.contains(part), "{part:?} missing in\n{picture}");
    }
}

#[test]
fn features_name_each_element_and_the_items_and_project_forgets_them() {
    let level = load_first(SAMPLES[0].0, SAMPLES[0].1).expect("loads");
    let game = level.game.as_ref();
    assert_eq!(game.features(), ["Plate D", "Gate B-C", "players", "balls"]);
    let start = game.initial_states().remove(0);
    let mut out = Successors::new();
    game.successors(&start, &mut out);
    let project = |s: &[u8], ignored: &[usize]| {
        let mut v = Vec::new();
        game.project(s, ignored, &mut v);
        v
    };
    // Moving the player changes only the `players` feature (index 2).
    let walked = out
        .iter()
        .find(|(m, _)| game.action_labels()[m.action as usize].starts_with("walk"));
    let (_, walked) = walked.expect("a walk from the start");
    assert_ne!(project(&start, &[]), project(walked, &[]));
    assert_eq!(project(&start, &[2]), project(walked, &[2]));
    assert_eq!(project(&start, &[]), start);
}

/// A random puzzle text: up to 7 nodes, random edges and elements, 1-2 players
/// and 0-2 balls, receivers wired to random triggers.
pub(super) fn random_puzzle(rng: &mut XorShift) -> String {
    let nodes = 2 + rng.below(6);
    let name = |i: usize| char::from(b'A' + i as u8);
    let node_kinds = ["", "Goal", "Button", "Plate", "Toggle", "Bridge"];
    let edge_kinds = [
        "",
        "Step",
        "Wall",
        "OneWay",
        "NoBall",
        "Vision",
        "Gate",
        "BlockableHazard",
        "BallTrack",
    ];
    let kinds: Vec<&str> = (0..nodes).map(|_| node_kinds[rng.below(6)]).collect();
    let mut edges = Vec::new();
    for a in 0..nodes {
        for b in a + 1..nodes {
            if rng.below(3) == 0 || b == a + 1 {
                let (x, y) = if rng.below(2) == 0 { (a, b) } else { (b, a) };
                edges.push((x, y, edge_kinds[rng.below(9)]));
            }
        }
    }
    let mut receivers: Vec<String> = edges
        .iter()
        .filter(|e| matches!(e.2, "Gate" | "BlockableHazard"))
        .map(|e| format!("{}-{}", name(e.0), name(e.1)))
        .collect();
    receivers.extend(
        (0..nodes)
            .filter(|&i| kinds[i] == "Bridge")
            .map(|i| name(i).to_string()),
    );
    let mut text = String::from("random\n");
    for (i, kind) in kinds.iter().enumerate() {
        let mut notify: Vec<String> = Vec::new();
        if matches!(*kind, "Button" | "Plate" | "Toggle") {
            notify = receivers
                .iter()
                .filter(|_| rng.below(2) == 0)
                .cloned()
                .collect();
        }
        let list = if notify.is_empty() {
            String::new()
        } else {
            format!(" notify:{}", notify.join(","))
        };
        text.push_str(&format!(
            "PuzzleNode {} {{ pos:{i},{}{list} }}\n",
            name(i),
            i % 2
        ));
    }
    for (a, b, _) in &edges {
        text.push_str(&format!("PuzzleEdge {}-{} {{  }}\n", name(*a), name(*b)));
    }
    let value = |rng: &mut XorShift| if rng.below(2) == 0 { "on" } else { "off" };
    for (i, k) in kinds.iter().enumerate().filter(|(_, k)| !k.is_empty()) {
        let v = if *k == "Goal" {
            String::new()
        } else {
            value(rng).to_string()
        };
        text.push_str(&format!("Puzzle{k} {} {{ {v} }}\n", name(i)));
    }
    for (a, b, k) in edges.iter().filter(|e| !e.2.is_empty()) {
        let v = if matches!(*k, "Gate" | "BlockableHazard") {
            value(rng)
        } else {
            ""
        };
        text.push_str(&format!("Puzzle{k} {}-{} {{ {v} }}\n", name(*a), name(*b)));
    }
    for _ in 0..1 + rng.below(2) {
        text.push_str(&format!("PuzzlePlayer {} {{  }}\n", name(rng.below(nodes))));
    }
    for _ in 0..rng.below(3) {
        text.push_str(&format!("PuzzleBall {} {{  }}\n", name(rng.below(nodes))));
    }
    text
}

/// Every reachable state decodes and re-encodes to itself, with sorted items.
fn check_encoding(game: &PuzzleGraph) -> Census {
    let mut seen = std::collections::HashSet::new();
    let mut stack = game.initial_states();
    let mut out = Successors::new();
    while let Some(s) = stack.pop() {
        if !seen.insert(s.clone()) {
            continue;
        }
        let state = game.decode(&s).expect("reachable states decode");
        assert_eq!(game.encode(&state), s);
        assert!(state.players.windows(2).all(|w| w[0] <= w[1]));
        assert!(state.balls.windows(2).all(|w| w[0] <= w[1]));
        if game.terminal(&s).is_none() {
            out.clear();
            game.successors(&s, &mut out);
            stack.extend(out.iter().map(|(_, t)| t.to_vec()));
        }
    }
    census(game, usize::MAX).expect("finite")
}

#[test]
fn random_puzzles_round_trip_and_do_not_depend_on_item_order() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    for _ in 0..200 {
        let text = random_puzzle(&mut rng);
        let level =
            load_first("random.puzzlegraph", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let game = super::parse("r", &level.text)
            .ok()
            .and_then(PuzzleGraph::new)
            .expect("reloads");
        let counted = check_encoding(&game);
        assert_eq!(
            census(level.game.as_ref(), usize::MAX),
            Some(counted),
            "{text}"
        );
        // Items listed in the reverse order give the same state space.
        let mut lines: Vec<&str> = text.lines().collect();
        let items = lines
            .iter()
            .position(|l| l.starts_with("PuzzlePlayer"))
            .unwrap_or(lines.len());
        lines[items..].reverse();
        let reversed = lines.join("\n");
        let other = load_first("r.puzzlegraph", &reversed).expect("reversed loads");
        assert_eq!(
            census(other.game.as_ref(), usize::MAX),
            Some(counted),
            "{reversed}"
        );
    }
}

/// The error of loading `lines` after a name line.
fn error_of(lines: &str) -> GamesError {
    match load_first("bad.txt", &format!("bad\n{lines}")) {
        Ok(_) => panic!("{lines:?} should not load"),
        Err(e) => e,
    }
}

fn position(e: &GamesError) -> (usize, usize) {
    match e {
        GamesError::Syntax { line, column, .. } => (*line, *column),
        other => panic!("not a syntax error: {other}"),
    }
}

#[test]
fn errors_name_the_line_and_column() {
    let nodes = "PuzzleNode A { pos:0,0 }\nPuzzleNode B { pos:1,0 }\n";
    let unknown = error_of(&format!(
        "{nodes}PuzzleEdge A-B {{  }}\nPuzzleTrampoline A {{  }}\n"
    ));
    assert_eq!(position(&unknown), (5, 1));
    assert!(
        unknown
            .to_string()
            .contains("unknown element `PuzzleTrampoline`"),
        "{unknown}"
    );
    let missing = error_of(&format!("{nodes}PuzzleEdge A-C {{  }}\n"));
    assert_eq!(position(&missing), (4, 14));
    assert!(missing.to_string().contains("no node `C`"));
    let notify = error_of(
        "PuzzleNode A { pos:0,0 notify:A-B }\nPuzzleNode B { pos:1,0 }\nPuzzleToggle A { off }\n",
    );
    assert_eq!(position(&notify), (2, 31));
    assert!(
        notify.to_string().contains("no node or edge of that name"),
        "{notify}"
    );
    let not_receiver = error_of(&format!(
        "{nodes}PuzzleNode C {{ pos:2,0 notify:A }}\nPuzzleToggle C {{ on }}\n"
    ));
    assert!(
        not_receiver.to_string().contains("holds no receiver"),
        "{not_receiver}"
    );
    let malformed = error_of(&format!("{nodes}PuzzleEdge A-B\n"));
    assert_eq!(position(&malformed).0, 4);
    let value = error_of(&format!(
        "{nodes}PuzzleEdge A-B {{  }}\nPuzzleGate A-B {{ maybe }}\n"
    ));
    assert_eq!(position(&value), (5, 18));
    let twice = error_of(&format!(
        "{nodes}PuzzleGoal A {{  }}\nPuzzleGoal A {{  }}\n"
    ));
    assert!(twice.to_string().contains("line 4"), "{twice}");
    let no_pos = error_of("PuzzleNode A { notify:B }\n");
    assert!(no_pos.to_string().contains("no position"), "{no_pos}");
    let wrong_container = error_of(&format!("{nodes}PuzzleGate A {{ on }}\n"));
    assert!(
        wrong_container.to_string().contains("no edge `A`"),
        "{wrong_container}"
    );
    assert!(malformed.to_string().contains("bad.txt:4:"), "{malformed}");
}

#[test]
fn an_empty_file_is_refused() {
    assert!(matches!(
        load_first("e.puzzlegraph", ""),
        Err(GamesError::Syntax { line: 1, .. })
    ));
}

#[test]
fn large_puzzles_use_two_bytes_per_node() {
    // A corridor of 300 nodes, the player at one end and the goal at the other: 300
    // states, the goal at depth 299; node indices need two bytes.
    let mut text = String::from("corridor\n");
    for i in 0..300 {
        text.push_str(&format!("PuzzleNode N{i} {{ pos:{i},0 }}\n"));
    }
    for i in 1..300 {
        text.push_str(&format!("PuzzleEdge N{}-N{i} {{  }}\n", i - 1));
    }
    text.push_str("PuzzleGoal N299 {  }\nPuzzlePlayer N0 {  }\n");
    let level = load_first("corridor.puzzlegraph", &text).expect("loads");
    assert_eq!(level.game.state_width(), model::StateWidth::Fixed(2));
    let c = census(level.game.as_ref(), 10_000).expect("small");
    assert_eq!((c.states, c.terminals), (300, 1));
    let mut v = Vec::new();
    level
        .game
        .project(&level.game.initial_states()[0], &[0], &mut v);
    assert_eq!(v, [0xff, 0xff]);
}
