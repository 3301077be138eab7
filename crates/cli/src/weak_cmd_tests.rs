//! Tests of the weak-equivalence commands' preparation on real explorations into
//! temporary stores, and the token-flip argument of section IV-C: every token doubles
//! the non-terminal states of the SSG and leaves the HSG as it is.

use super::*;
use explore::{ExploreOptions, ProgressSink};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use store::{OpenMode, Progress, RunIdentity, RunWriter};

struct Quiet;

impl ProgressSink for Quiet {
    fn progress(&mut self, _: &Progress) {}
    fn note(&mut self, _: &str) {}
}

fn level_text(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../levels/sokoban")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// Explores `name` with `tokens` flip tokens into `dir`, recording the tokens in the
/// identity's options as the explore command must.
fn explore_into(dir: &Path, name: &str, tokens: usize) {
    let level = games::load(name, &level_text(name), &games::LevelSelector::First).unwrap();
    let level = games::flip::wrap(level, tokens).unwrap();
    let game = level.game.as_ref();
    let slot = explore::Slot::for_width(game.state_width());
    let mut options = BTreeMap::new();
    if tokens > 0 {
        options.insert(games::flip::OPTION.to_string(), tokens.to_string());
    }
    let identity = RunIdentity::new(
        game.kind().to_string(),
        level.title.clone(),
        level.text.clone(),
        options,
        slot.width() as u32,
        slot.is_variable(),
        game.action_labels(),
        game.outcome_names(),
        game.players(),
        game.has_chance(),
    );
    let (writer, checkpoint) = RunWriter::open(dir, identity, OpenMode::CreateNew).unwrap();
    let opts = ExploreOptions {
        mem_budget: 64 << 20,
        threads: 1,
        max_states: None,
        max_depth: None,
        checkpoint_every: Duration::from_secs(60),
        progress_every: Duration::from_secs(60),
        stop: Arc::new(AtomicBool::new(false)),
        scratch_dir: dir.join("scratch"),
        index_limit: None,
        round_limit: None,
        parents_per_part: explore::PARENTS_PER_PART,
    };
    explore::explore(game, writer, checkpoint, &opts, &mut Quiet).unwrap();
}

fn prepared(name: &str, tokens: usize) -> (tempfile::TempDir, Prepared) {
    let dir = tempfile::tempdir().unwrap();
    explore_into(dir.path(), name, tokens);
    let p = prepare(dir.path(), &WeakFlags::default()).unwrap();
    (dir, p)
}

#[test]
fn flipping_tokens_doubles_the_ssg_and_keeps_the_hsg() {
    for name in ["tiny.xsb", "twoboxes.xsb"] {
        let (_d, plain) = prepared(name, 0);
        let base = &plain.exact.summary;
        let terminals = plain.run.terminals().count() as u64;
        for tokens in 1..=2u32 {
            let (_d, flipped) = prepared(name, tokens as usize);
            let s = &flipped.exact.summary;
            let copies = 1u64 << tokens;
            assert_eq!(
                s.states,
                copies * (base.states - terminals) + terminals,
                "{name}, {tokens} tokens"
            );
            assert_eq!(s.hyperstates, base.hyperstates, "{name}, {tokens} tokens");
            assert_eq!(s.hsg_edges, base.hsg_edges);
            assert_eq!(s.hsg_labelled_edges, base.hsg_labelled_edges);
            assert_eq!(s.tags, base.tags);
            assert_eq!(s.root_tag, base.root_tag);
            // Each critical action is played from every side of the tokens.
            assert_eq!(s.critical_actions, copies * base.critical_actions);
            assert_eq!(
                s.shortest_win.critical_actions,
                base.shortest_win.critical_actions
            );
        }
    }
}

#[test]
fn ignoring_the_tokens_gives_back_the_plain_ssg() {
    let (_d, plain) = prepared("twoboxes.xsb", 0);
    let (_d, flipped) = prepared("twoboxes.xsb", 2);
    assert_eq!(flipped.game.features(), vec!["player", "boxes", "tokens"]);
    let ignored = feature_indices(flipped.game.as_ref(), &["tokens".to_string()]).unwrap();
    let weak = weak_analysis(&flipped, &ignored).unwrap();
    let c = &weak.comparison;
    assert_eq!(c.quotient_states, plain.run.state_count());
    assert_eq!(c.hyperstates, c.exact_hyperstates);
    assert_eq!((c.tag_changed_states, c.impact, c.score), (0, 0.0, 0.0));
    assert_eq!(
        weak.analysis.summary.hyperstates,
        plain.exact.summary.hyperstates
    );
}

#[test]
fn ignoring_the_player_merges_states_with_the_same_boxes() {
    let (_d, p) = prepared("tiny.xsb", 0);
    // A state is the player's cell followed by the box cells: one class per box set.
    let box_sets: std::collections::BTreeSet<&[u8]> = (0..p.run.state_count())
        .map(|id| &p.run.state(id)[1..])
        .collect();
    let weak = weak_analysis(&p, &[0]).unwrap();
    let c = &weak.comparison;
    assert_eq!(c.quotient_states, box_sets.len() as u64);
    assert!(c.quotient_states < c.states);
    assert!(c.hyperstates <= c.quotient_states && c.hyperstates <= c.exact_hyperstates);
}

#[test]
fn unknown_features_are_named_with_the_known_ones() {
    let (_d, p) = prepared("tiny.xsb", 0);
    let err = feature_indices(p.game.as_ref(), &["timer".to_string()]).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("\"timer\"") && text.contains("player, boxes"),
        "{text}"
    );
}
