//! Writes a game tree as a store run, so that `hsg analyze`, `report` and `tui`
//! read it like an exploration: every state or terminal node of the tree is a
//! store state (its record is the game state, so the workbench can draw it),
//! and a chance node is folded into its parent as edges sharing the decision's
//! action label, each with its probability, as the explorer stores chance.

use crate::labels::NO_OUTCOME;
use crate::tree::{GameTree, NodeKind};
use crate::EquivError;
use model::{Game, StateWidth};
use std::collections::BTreeMap;
use std::path::Path;
use store::{Edge, OpenMode, Progress, RunIdentity, RunStatus, RunWriter, CUT_OUTCOME};

/// What was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WrittenTree {
    /// Store states (tree nodes other than chance nodes).
    pub states: u64,
    /// Store transitions.
    pub transitions: u64,
    /// Deepest level, in decisions from a root.
    pub depth: u32,
}

/// The level a tree was built from, as a store's identity names it.
pub struct LevelInfo<'a> {
    /// The level's title.
    pub title: &'a str,
    /// The level's canonical text (reloaded by the workbench as `level.<kind>`).
    pub text: &'a str,
}

/// Writes `tree` (built from `game`) into a new store at `dir`; `force`
/// replaces a run already there.
pub fn write_store(
    tree: &GameTree,
    game: &dyn Game,
    level: &LevelInfo,
    dir: &Path,
    force: bool,
) -> Result<WrittenTree, EquivError> {
    let width = game.state_width();
    let (slot, variable) = match width {
        StateWidth::Fixed(n) => (n, false),
        StateWidth::Variable { max } => (max + 2, true),
    };
    let has_chance = game.has_chance() || tree.kinds.contains(&NodeKind::Chance);
    let options = BTreeMap::from([("game_tree".to_string(), "true".to_string())]);
    let identity = RunIdentity::new(
        game.kind().to_string(),
        level.title.to_string(),
        level.text.to_string(),
        options,
        slot as u32,
        variable,
        game.action_labels(),
        game.outcome_names(),
        game.players(),
        has_chance,
    );
    let mode = if force {
        OpenMode::ForceNew
    } else {
        OpenMode::CreateNew
    };
    let (mut writer, _) = RunWriter::open(dir, identity, mode)?;
    let order = Order::of(tree);
    let mut record = Vec::with_capacity(slot);
    for &node in &order.nodes {
        encode(tree.state(node), slot, variable, &mut record)?;
        writer.append_state(&record)?;
    }
    writer.set_layers(&order.layers);
    let mut edges = Vec::new();
    let mut probs = Vec::new();
    for (id, &node) in order.nodes.iter().enumerate() {
        let id = id as u64;
        edges.clear();
        probs.clear();
        match tree.kind(node) {
            NodeKind::Terminal if tree.outcome[node as usize] != NO_OUTCOME => {
                writer.mark_terminal(id, tree.outcome[node as usize])?;
            }
            NodeKind::Cut => writer.mark_terminal(id, CUT_OUTCOME)?,
            _ => order.edges_of(tree, node, &mut edges, &mut probs),
        }
        writer.append_edges(id, &edges, has_chance.then_some(&probs[..]))?;
    }
    let written = WrittenTree {
        states: writer.state_count(),
        transitions: writer.transition_count(),
        depth: order.layers.len().saturating_sub(1) as u32,
    };
    let progress = Progress {
        states: written.states,
        expanded: written.states,
        transitions: written.transitions,
        depth: written.depth,
        phase: "complete".to_string(),
        pid: std::process::id(),
        ..Progress::default()
    };
    writer.finish(RunStatus::Complete, progress)?;
    Ok(written)
}

/// Appends nothing but the slot of `state` to a cleared `out`.
fn encode(state: &[u8], slot: usize, variable: bool, out: &mut Vec<u8>) -> Result<(), EquivError> {
    out.clear();
    let fits = if variable {
        state.len() + 2 <= slot
    } else {
        state.len() == slot
    };
    if !fits {
        return Err(EquivError::BadRecord {
            len: state.len(),
            slot,
        });
    }
    if variable {
        out.extend_from_slice(&(state.len() as u16).to_le_bytes());
    }
    out.extend_from_slice(state);
    out.resize(slot, 0);
    Ok(())
}

/// Store ids of the tree's non-chance nodes, ordered by depth in decisions
/// (chance nodes do not count), as the store's layer table requires.
struct Order {
    nodes: Vec<u32>,
    store_id: Vec<u64>,
    layers: Vec<u64>,
}

impl Order {
    fn of(tree: &GameTree) -> Order {
        let n = tree.len();
        let mut depth = vec![0u32; n];
        for node in 0..n as u32 {
            if let Some(p) = tree.parent(node) {
                let step = u32::from(
                    tree.kind(p) != NodeKind::Chance || tree.kind(node) == NodeKind::Chance,
                );
                depth[node as usize] = depth[p as usize] + step;
            }
        }
        let mut nodes: Vec<u32> = (0..n as u32)
            .filter(|&x| tree.kind(x) != NodeKind::Chance)
            .collect();
        nodes.sort_by_key(|&x| depth[x as usize]);
        let mut store_id = vec![u64::MAX; n];
        let mut layers = Vec::new();
        for (id, &node) in nodes.iter().enumerate() {
            let d = depth[node as usize] as usize;
            while layers.len() <= d {
                layers.push(id as u64);
            }
            store_id[node as usize] = id as u64;
        }
        if layers.is_empty() {
            layers.push(0);
        }
        Order {
            nodes,
            store_id,
            layers,
        }
    }

    /// The store edges of a state node: chance children folded in.
    fn edges_of(
        &self,
        tree: &GameTree,
        node: u32,
        edges: &mut Vec<Edge>,
        probs: &mut Vec<(u32, u32)>,
    ) {
        for c in tree.children(node) {
            let targets = if tree.kind(c) == NodeKind::Chance {
                tree.children(c)
            } else {
                c..c + 1
            };
            for t in targets {
                edges.push(Edge {
                    action: tree.action[t as usize],
                    target: self.store_id[t as usize],
                });
                probs.push(tree.prob[t as usize]);
            }
        }
    }
}
