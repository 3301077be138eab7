//! An in-memory workbench for tests, demos and small levels: a level is explored
//! breadth-first into an `hsg::MemGraph`, analysed with `hsg::analyze_graph`, and its
//! states drawn by the game itself. No store is involved.

use super::analysis::{AnalysisBench, RunFacts, StateSource};
use super::RunState;
use crate::bookmarks::RunKey;
use crate::error::TuiError;
use hsg::{AnalyzeOptions, Labels, MemGraph, SavedAnalysis, StateGraph};
use model::{Game, Successors};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// A small level with wins, dead ends and reversible moves: the default fixture.
pub const TWO_BOXES: &str = "\
; two boxes around a pillar
#######
#     #
# $$  #
#@ #. #
#   . #
#######
";

/// The states of a level explored in memory.
pub struct MemStates {
    game: Box<dyn Game>,
    graph: MemGraph,
    records: Vec<Vec<u8>>,
    depths: Vec<u32>,
    dir: Option<PathBuf>,
    key: RunKey,
    /// The level's canonical text (for the rules overlay of a PuzzleScript level).
    level_text: String,
    /// Its action labels.
    labels: Vec<String>,
    /// The states expanded.
    expanded: u64,
}

impl StateSource for MemStates {
    fn render(&self, s: u64) -> Option<String> {
        let record = self.records.get(usize::try_from(s).ok()?)?;
        Some(self.game.render(record))
    }

    fn render_colors(&self, s: u64) -> Option<Vec<Vec<Option<model::Rgb>>>> {
        let record = self.records.get(usize::try_from(s).ok()?)?;
        self.game.render_colors(record)
    }

    fn moves(&self, s: u64) -> Vec<(u16, u64)> {
        self.graph
            .edge_range(s)
            .map(|i| self.graph.edge(i))
            .collect()
    }

    fn bfs_depth(&self, s: u64) -> u32 {
        self.depths.get(s as usize).copied().unwrap_or(0)
    }

    fn bfs_histogram(&self) -> Vec<u64> {
        let mut histogram = Vec::new();
        for &d in &self.depths {
            let d = d as usize;
            if histogram.len() <= d {
                histogram.resize(d + 1, 0);
            }
            histogram[d] += 1;
        }
        histogram
    }

    fn outcome(&self, s: u64) -> Option<u16> {
        self.graph.outcome(s)
    }

    fn run_dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn rule_report(
        &self,
        lost: &(dyn Fn(u64) -> bool + Sync),
    ) -> Option<Result<super::rules::RuleReport, String>> {
        let state = |s: u64| {
            (s < self.expanded && self.graph.outcome(s).is_none())
                .then(|| self.records.get(s as usize).map(Vec::as_slice))
                .flatten()
        };
        let path = |s: u64| self.actions_to(s);
        super::rules::survey(&super::rules::Source {
            kind: self.game.kind(),
            level_text: &self.level_text,
            options: &BTreeMap::new(),
            stored: games::puzzlescript::coverage::Stored {
                count: self.expanded,
                state: &state,
                lost,
            },
            labels: &self.labels,
            path: &path,
            complete: self.expanded == self.records.len() as u64,
        })
    }

    fn run_key(&self) -> Option<RunKey> {
        Some(self.key.clone())
    }
}

impl MemStates {
    /// The actions of a shortest path from the root to `s` (breadth first over the
    /// moves: the fixture is small).
    fn actions_to(&self, s: u64) -> Vec<u16> {
        let mut parent: HashMap<u64, (u64, u16)> = HashMap::new();
        let mut queue = std::collections::VecDeque::from([0u64]);
        while let Some(at) = queue.pop_front() {
            if at == s {
                break;
            }
            for (action, next) in self.moves(at) {
                if next != 0 && !parent.contains_key(&next) {
                    parent.insert(next, (at, action));
                    queue.push_back(next);
                }
            }
        }
        let mut actions = Vec::new();
        let mut at = s;
        while let Some(&(from, action)) = parent.get(&at) {
            actions.push(action);
            at = from;
        }
        actions.reverse();
        actions
    }
}

/// The in-memory workbench type.
pub type Fixture = AnalysisBench<MemStates>;

/// Explores the first level of `level_text` (Sokoban XSB) in memory, at most
/// `max_states` states, and analyses it. `dir`, if given, is where bookmarks and the
/// layout cache are kept, as a run directory would hold them.
pub fn fixture(level_text: &str, max_states: u64, dir: Option<&Path>) -> Result<Fixture, TuiError> {
    fixture_of("fixture.xsb", level_text, max_states, dir)
}

/// [`fixture`] of a level in any format `games::load` reads, chosen by the file name
/// `name` (and, for `.txt`, the content).
pub fn fixture_of(
    name: &str,
    level_text: &str,
    max_states: u64,
    dir: Option<&Path>,
) -> Result<Fixture, TuiError> {
    let level = games::load(name, level_text, &games::LevelSelector::First)
        .map_err(|e| TuiError::Fixture(e.to_string()))?;
    let game = level.game;
    let explored = explore(game.as_ref(), max_states);
    let graph = MemGraph::partial(
        explored.records.len() as u64,
        explored.expanded,
        &explored.edges,
        &explored.terminals,
    )
    .map_err(|e| TuiError::Fixture(e.to_string()))?;
    let labels = Labels {
        actions: game.action_labels(),
        outcomes: game.outcome_names(),
    };
    let source = hsg::summary::Source {
        level_hash: String::new(),
        states: graph.state_count(),
        expanded: graph.expanded_count(),
        transitions: graph.edge_count(),
    };
    let analysis = hsg::analyze_graph(&graph, &labels, &AnalyzeOptions::default(), source)
        .map_err(|e| TuiError::Fixture(e.to_string()))?;
    let saved = SavedAnalysis::from_analysis(&analysis);
    let facts = RunFacts {
        game: game.kind().to_string(),
        level_title: level.title,
        options: vec![("max_states".into(), max_states.to_string())],
        run_state: if explored.expanded < explored.records.len() as u64 {
            RunState::Partial
        } else {
            RunState::InMemory
        },
        stale_note: None,
        action_labels: labels.actions,
        outcome_names: labels.outcomes,
    };
    // Ids depend on the level and the state limit, as a stored run's on its identity.
    let key = RunKey {
        game: game.kind().to_string(),
        level_hash: format!("{:016x}", xxhash_rust::xxh3::xxh3_64(level_text.as_bytes())),
        options: BTreeMap::from([("max_states".to_string(), max_states.to_string())]),
    };
    let states = MemStates {
        key,
        level_text: level.text,
        labels: game.action_labels(),
        expanded: explored.expanded,
        game,
        graph,
        records: explored.records,
        depths: explored.depths,
        dir: dir.map(Path::to_path_buf),
    };
    Ok(AnalysisBench::new(saved, facts, states))
}

/// The default fixture: [`TWO_BOXES`], fully explored.
pub fn two_boxes(dir: Option<&Path>) -> Result<Fixture, TuiError> {
    fixture(TWO_BOXES, 100_000, dir)
}

/// A level explored in memory, numbered as the streaming explorer numbers states.
pub(crate) struct Explored {
    pub(crate) records: Vec<Vec<u8>>,
    pub(crate) depths: Vec<u32>,
    pub(crate) edges: Vec<(u64, u16, u64)>,
    pub(crate) terminals: Vec<(u64, u16)>,
    pub(crate) expanded: u64,
}

/// Breadth-first search in id order, as the streaming explorer numbers states: stops
/// expanding once `max_states` states are known.
pub(crate) fn explore(game: &dyn Game, max_states: u64) -> Explored {
    let mut ids: HashMap<Vec<u8>, u64> = HashMap::new();
    let mut x = Explored {
        records: Vec::new(),
        depths: Vec::new(),
        edges: Vec::new(),
        terminals: Vec::new(),
        expanded: 0,
    };
    for s in game.initial_states() {
        intern(&mut ids, &mut x, s, 0);
    }
    let mut out = Successors::new();
    while (x.expanded as usize) < x.records.len() && (x.records.len() as u64) < max_states {
        let id = x.expanded;
        let record = x.records[id as usize].clone();
        let depth = x.depths[id as usize];
        x.expanded += 1;
        if let Some(o) = game.terminal(&record) {
            x.terminals.push((id, o));
            continue;
        }
        out.clear();
        game.successors(&record, &mut out);
        for (m, state) in out.iter() {
            let target = intern(&mut ids, &mut x, state.to_vec(), depth + 1);
            x.edges.push((id, m.action, target));
        }
    }
    // States never expanded may still be terminal: record their outcomes too.
    for id in x.expanded..x.records.len() as u64 {
        if let Some(o) = game.terminal(&x.records[id as usize]) {
            x.terminals.push((id, o));
        }
    }
    x
}

fn intern(ids: &mut HashMap<Vec<u8>, u64>, x: &mut Explored, record: Vec<u8>, depth: u32) -> u64 {
    if let Some(&id) = ids.get(&record) {
        return id;
    }
    let id = x.records.len() as u64;
    ids.insert(record.clone(), id);
    x.records.push(record);
    x.depths.push(depth);
    id
}
