//! Game trees by Algorithm 2 of Riggins & McPherson: state nodes with their
//! decision edges, chance nodes with probabilities, terminal nodes with
//! outcomes, built breadth first into a compact arena (children in CSR form).
//!
//! The arena is its own work queue: nodes are numbered in breadth-first order,
//! so the children of node `i` are the contiguous range appended when `i` was
//! expanded, and no recursion or explicit stack is needed.

use crate::labels::{Labels, NO_OUTCOME};
use crate::{EquivError, Ratio};
use model::{Game, Move, Successors};
use std::collections::VecDeque;

/// What a node of the tree is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A state where some player decides; its edges are decision edges.
    State,
    /// The umpire's random draw after a decision; its edges carry probabilities.
    Chance,
    /// A terminal state (or a stuck one, [`NO_OUTCOME`]) with its outcome.
    Terminal,
    /// A state left unexpanded by a depth limit (partial trees).
    Cut,
}

/// How many ancestors a new state is compared with to detect a cycle.
const CYCLE_LOOKBACK: usize = 64;

/// Limits on a tree's construction.
#[derive(Clone, Copy, Debug)]
pub struct TreeOptions {
    /// Refuse trees with more nodes than this.
    pub max_nodes: usize,
    /// Leave states at this depth unexpanded (as [`NodeKind::Cut`] leaves).
    pub max_depth: Option<u32>,
}

impl Default for TreeOptions {
    fn default() -> TreeOptions {
        TreeOptions {
            max_nodes: 20_000_000,
            max_depth: None,
        }
    }
}

/// A game tree (one per initial state: the roots are nodes `0..root_count`).
pub struct GameTree {
    pub(crate) kinds: Vec<NodeKind>,
    pub(crate) child_start: Vec<u32>,
    pub(crate) parent: Vec<u32>,
    pub(crate) action: Vec<u16>,
    pub(crate) player: Vec<u8>,
    pub(crate) prob: Vec<(u32, u32)>,
    pub(crate) outcome: Vec<u16>,
    pub(crate) depth: Vec<u32>,
    state_end: Vec<u64>,
    bytes: Vec<u8>,
    pub(crate) root_count: u32,
    pub(crate) labels: Labels,
}

impl GameTree {
    /// Builds the game trees of every initial state of `game`.
    pub fn build(game: &dyn Game, title: &str, opts: TreeOptions) -> Result<GameTree, EquivError> {
        Builder::new(game, title, opts)?.run()
    }

    /// Number of nodes (state, chance and terminal).
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// True for a tree without nodes (a game without initial states).
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// The kind of node `id`.
    pub fn kind(&self, id: u32) -> NodeKind {
        self.kinds[id as usize]
    }

    /// The children of node `id`, in the order the game produced them.
    pub fn children(&self, id: u32) -> std::ops::Range<u32> {
        let i = id as usize;
        self.child_start[i]..self.child_start[i + 1]
    }

    /// The parent of node `id` (`None` for a root).
    pub fn parent(&self, id: u32) -> Option<u32> {
        (id >= self.root_count).then(|| self.parent[id as usize])
    }

    /// The game state of a state, terminal or cut node (empty for chance nodes).
    pub fn state(&self, id: u32) -> &[u8] {
        let i = id as usize;
        let start = if i == 0 { 0 } else { self.state_end[i - 1] } as usize;
        &self.bytes[start..self.state_end[i] as usize]
    }

    /// The outcome of a terminal node.
    pub fn outcome(&self, id: u32) -> Option<u16> {
        (self.kinds[id as usize] == NodeKind::Terminal).then(|| self.outcome[id as usize])
    }

    /// Depth of node `id` (roots at zero; chance nodes count as a level).
    pub fn depth(&self, id: u32) -> u32 {
        self.depth[id as usize]
    }

    /// The roots, one per initial state.
    pub fn roots(&self) -> std::ops::Range<u32> {
        0..self.root_count
    }

    /// The probability on the edge into `id` (one for decision edges).
    pub fn incoming_prob(&self, id: u32) -> Ratio {
        let (num, den) = self.prob[id as usize];
        Ratio::new(u64::from(num), u64::from(den))
    }

    /// The label of the edge into `id`: the action, with its probability on a chance edge.
    pub fn edge_label(&self, id: u32) -> String {
        let action = self.labels.action(self.action[id as usize]);
        let parent_is_chance = self
            .parent(id)
            .is_some_and(|p| self.kind(p) == NodeKind::Chance);
        if parent_is_chance {
            format!("{action} [{}]", self.incoming_prob(id))
        } else {
            action
        }
    }

    /// The labels of the edges from the root to `id`.
    pub fn path_to(&self, id: u32) -> Vec<String> {
        let mut path = Vec::new();
        let mut at = id;
        while let Some(p) = self.parent(at) {
            path.push(self.edge_label(at));
            at = p;
        }
        path.reverse();
        path
    }

    /// Counts of nodes by depth: (state, chance, terminal, cut) per level.
    pub fn level_counts(&self) -> Vec<[u64; 4]> {
        let mut levels: Vec<[u64; 4]> = Vec::new();
        for (i, kind) in self.kinds.iter().enumerate() {
            let d = self.depth[i] as usize;
            if levels.len() <= d {
                levels.resize(d + 1, [0; 4]);
            }
            levels[d][*kind as usize] += 1;
        }
        levels
    }

    /// Number of terminal leaves (complete plays of the game).
    pub fn terminal_count(&self) -> u64 {
        self.kinds
            .iter()
            .filter(|k| **k == NodeKind::Terminal)
            .count() as u64
    }

    /// The names of players, actions, decisions and outcomes.
    pub fn labels(&self) -> &Labels {
        &self.labels
    }
}

/// One pending chance node: the outcomes of its decision, waiting for the
/// chance node's turn in breadth-first order.
type Pending = Vec<(Move, Vec<u8>)>;

struct Builder<'g> {
    game: &'g dyn Game,
    title: String,
    opts: TreeOptions,
    tree: GameTree,
    pending: VecDeque<Pending>,
    successors: Successors,
}

impl<'g> Builder<'g> {
    fn new(game: &'g dyn Game, title: &str, opts: TreeOptions) -> Result<Builder<'g>, EquivError> {
        let labels = Labels::of(game, title)?;
        let tree = GameTree {
            kinds: Vec::new(),
            child_start: Vec::new(),
            parent: Vec::new(),
            action: Vec::new(),
            player: Vec::new(),
            prob: Vec::new(),
            outcome: Vec::new(),
            depth: Vec::new(),
            state_end: Vec::new(),
            bytes: Vec::new(),
            root_count: 0,
            labels,
        };
        Ok(Builder {
            game,
            title: title.to_string(),
            opts,
            tree,
            pending: VecDeque::new(),
            successors: Successors::new(),
        })
    }

    fn run(mut self) -> Result<GameTree, EquivError> {
        for state in self.game.initial_states() {
            self.push(NodeKind::State, 0, Move::solo(0), &state, 0)?;
        }
        self.tree.root_count = self.tree.kinds.len() as u32;
        let mut next = 0;
        while next < self.tree.kinds.len() {
            self.tree.child_start.push(self.tree.kinds.len() as u32);
            match self.tree.kinds[next] {
                NodeKind::State => self.expand_state(next as u32)?,
                NodeKind::Chance => self.expand_chance(next as u32)?,
                NodeKind::Terminal | NodeKind::Cut => {}
            }
            next += 1;
        }
        self.tree.child_start.push(self.tree.kinds.len() as u32);
        Ok(self.tree)
    }

    fn push(
        &mut self,
        kind: NodeKind,
        parent: u32,
        mv: Move,
        state: &[u8],
        depth: u32,
    ) -> Result<u32, EquivError> {
        let t = &mut self.tree;
        if t.kinds.len() >= self.opts.max_nodes || t.kinds.len() >= u32::MAX as usize - 1 {
            return Err(EquivError::TreeTooLarge {
                game: self.title.clone(),
                limit: self.opts.max_nodes,
            });
        }
        t.kinds.push(kind);
        t.parent.push(parent);
        t.action.push(mv.action);
        t.player.push(mv.player);
        t.prob.push((mv.prob.num, mv.prob.den));
        t.outcome.push(NO_OUTCOME);
        t.depth.push(depth);
        t.bytes.extend_from_slice(state);
        t.state_end.push(t.bytes.len() as u64);
        Ok(t.kinds.len() as u32 - 1)
    }

    /// Classifies a fresh state node: terminal, cut by the depth limit, or to expand.
    fn expand_state(&mut self, id: u32) -> Result<(), EquivError> {
        let state = self.tree.state(id).to_vec();
        let i = id as usize;
        if let Some(outcome) = self.game.terminal(&state) {
            self.tree.kinds[i] = NodeKind::Terminal;
            self.tree.outcome[i] = outcome;
            return Ok(());
        }
        if self.opts.max_depth.is_some_and(|d| self.tree.depth[i] >= d) {
            self.tree.kinds[i] = NodeKind::Cut;
            return Ok(());
        }
        if self.opts.max_depth.is_none() {
            // A depth limit keeps a partial tree finite even when plays loop.
            self.refuse_cycle(id)?;
        }
        self.successors.clear();
        self.game.successors(&state, &mut self.successors);
        if self.successors.is_empty() {
            // A non-terminal state without legal decisions ends play without an outcome.
            self.tree.kinds[i] = NodeKind::Terminal;
            return Ok(());
        }
        let depth = self.tree.depth[i] + 1;
        for group in self.groups(&state)? {
            if let [(mv, child)] = group.as_slice() {
                if mv.prob.is_one() {
                    self.push(NodeKind::State, id, *mv, child, depth)?;
                    continue;
                }
            }
            let decision = group.first().map(|(mv, _)| Move {
                prob: model::Prob::ONE,
                ..*mv
            });
            if let Some(decision) = decision {
                self.push(NodeKind::Chance, id, decision, &[], depth)?;
                self.pending.push_back(group);
            }
        }
        Ok(())
    }

    /// Fails when node `id` repeats the state of one of its nearest ancestors
    /// (a cycle makes the tree infinite; longer cycles meet the node budget).
    fn refuse_cycle(&self, id: u32) -> Result<(), EquivError> {
        let t = &self.tree;
        let mut at = id;
        for _ in 0..CYCLE_LOOKBACK {
            let Some(p) = t.parent(at) else {
                return Ok(());
            };
            if t.kind(p) != NodeKind::Chance && t.state(p) == t.state(id) {
                return Err(EquivError::Cycle {
                    game: self.title.clone(),
                    path: t.path_to(id),
                });
            }
            at = p;
        }
        Ok(())
    }

    fn expand_chance(&mut self, id: u32) -> Result<(), EquivError> {
        let depth = self.tree.depth[id as usize] + 1;
        let group = self.pending.pop_front().unwrap_or_default();
        for (mv, child) in group {
            self.push(NodeKind::State, id, mv, &child, depth)?;
        }
        Ok(())
    }

    /// The successors grouped by decision (action and player), in order of
    /// first appearance, each group's probabilities checked to sum to one.
    fn groups(&self, state: &[u8]) -> Result<Vec<Pending>, EquivError> {
        let mut groups: Vec<Pending> = Vec::new();
        for (mv, child) in self.successors.iter() {
            let same = |g: &&mut Pending| {
                g.first()
                    .is_some_and(|(m, _)| m.action == mv.action && m.player == mv.player)
            };
            match groups.iter_mut().find(same) {
                Some(group) => group.push((mv, child.to_vec())),
                None => groups.push(vec![(mv, child.to_vec())]),
            }
        }
        for group in &groups {
            let mut sum = Ratio { num: 0, den: 1 };
            for (mv, _) in group {
                sum =
                    sum.checked_add(Ratio::new(u64::from(mv.prob.num), u64::from(mv.prob.den)))?;
            }
            if !sum.is_one() {
                let action = group.first().map_or(0, |(m, _)| m.action);
                return Err(EquivError::BadProbabilities {
                    game: self.title.clone(),
                    action: self.tree.labels.action(action),
                    sum: sum.to_string(),
                    state: self.game.render(state),
                });
            }
        }
        Ok(groups)
    }
}
