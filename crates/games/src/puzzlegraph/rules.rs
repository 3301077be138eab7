//! The moves of a PuzzleGraph puzzle: pressing and shooting toggles, walking,
//! bringing and pushing balls, then updating the triggers, as PuzzleGraph 1.1 does.
//!
//! Every action has a fixed label per level (`press D`, `walk A->B`,
//! `bring ball A->B`, `push ball A->B`, `shoot A->D`); only labels that some state
//! could use are listed. When two edges join the same pair of nodes, their labels
//! also name the edge (`walk A->B via B-A`).

use super::puzzle::{EdgeKind, NodeKind, Puzzle};
use super::state::{Layout, State};

/// One way of leaving a node along an edge, with the action ids it may carry.
#[derive(Clone, Debug)]
struct Exit {
    edge: usize,
    forward: bool,
    to: usize,
    walk: Option<u16>,
    bring: Option<u16>,
    push: Option<u16>,
    shoot: Option<u16>,
}

/// A puzzle with its action labels and exits, ready to generate moves.
#[derive(Clone, Debug)]
pub struct Rules {
    /// The design.
    pub puzzle: Puzzle,
    /// The state layout.
    pub layout: Layout,
    /// Every action label, indexed by action id.
    pub labels: Vec<String>,
    /// Action id of pressing the toggle on each node, if it holds one.
    press: Vec<Option<u16>>,
    /// Exits of each node, in edge order.
    exits: Vec<Vec<Exit>>,
}

/// Adds `label` and returns its id, or `None` when `allowed` is false.
fn label(labels: &mut Vec<String>, allowed: bool, text: String) -> Option<u16> {
    allowed.then(|| {
        labels.push(text);
        (labels.len() - 1) as u16
    })
}

impl Rules {
    /// Builds the label set and exits of `puzzle`; `None` when it would need more
    /// than 65,536 action labels.
    pub fn new(puzzle: Puzzle) -> Option<Rules> {
        let mut labels = Vec::new();
        let has_players = !puzzle.players.is_empty();
        let has_balls = !puzzle.balls.is_empty();
        let press = puzzle
            .nodes
            .iter()
            .map(|n| {
                let allowed = has_players && n.kind == NodeKind::Toggle;
                label(&mut labels, allowed, format!("press {}", n.name))
            })
            .collect();
        let mut exits = vec![Vec::new(); puzzle.nodes.len()];
        for (e, edge) in puzzle.edges.iter().enumerate() {
            let shared = puzzle
                .edges
                .iter()
                .filter(|o| (o.a, o.b) == (edge.a, edge.b) || (o.a, o.b) == (edge.b, edge.a))
                .count()
                > 1;
            let via = if shared {
                format!(" via {}", puzzle.edge_name(e))
            } else {
                String::new()
            };
            for (forward, from, to) in [(true, edge.a, edge.b), (false, edge.b, edge.a)] {
                let (f, t) = (puzzle.node_name(from), puzzle.node_name(to));
                let dest = puzzle.nodes.get(to).map_or(NodeKind::Default, |n| n.kind);
                let k = edge.kind;
                let ball_ok = has_players && has_balls && dest.can_take_ball();
                let exit = Exit {
                    edge: e,
                    forward,
                    to,
                    walk: label(
                        &mut labels,
                        has_players && k.may_walk(forward),
                        format!("walk {f}->{t}{via}"),
                    ),
                    bring: label(
                        &mut labels,
                        ball_ok && k.may_take_ball(forward),
                        format!("bring ball {f}->{t}{via}"),
                    ),
                    push: label(
                        &mut labels,
                        ball_ok && k.can_push_ball(forward),
                        format!("push ball {f}->{t}{via}"),
                    ),
                    shoot: label(
                        &mut labels,
                        has_players && dest == NodeKind::Toggle && k.may_see(),
                        format!("shoot {f}->{t}{via}"),
                    ),
                };
                if let Some(list) = exits.get_mut(from) {
                    list.push(exit);
                }
            }
        }
        if labels.len() > usize::from(u16::MAX) + 1 {
            return None;
        }
        Some(Rules {
            layout: Layout::of(&puzzle),
            puzzle,
            labels,
            press,
            exits,
        })
    }

    /// The value of the element on edge `e` (false when it has none).
    fn edge_value(&self, state: &State, e: usize) -> (EdgeKind, bool) {
        let edge = self.puzzle.edges.get(e);
        let kind = edge.map_or(EdgeKind::Default, |x| x.kind);
        let value = edge.and_then(|x| x.bit).is_some_and(|b| state.get(b));
        (kind, value)
    }

    /// The kind and value of the element on node `n`.
    fn node_value(&self, state: &State, n: usize) -> (NodeKind, bool) {
        let node = self.puzzle.nodes.get(n);
        let kind = node.map_or(NodeKind::Default, |x| x.kind);
        let value = node.and_then(|x| x.bit).is_some_and(|b| state.get(b));
        (kind, value)
    }

    /// True when every player stands on a Goal and there is at least one player.
    pub fn is_goal(&self, state: &State) -> bool {
        !state.players.is_empty()
            && state.players.iter().all(|&p| {
                self.puzzle
                    .nodes
                    .get(usize::from(p))
                    .is_some_and(|n| n.kind == NodeKind::Goal)
            })
    }

    /// Calls `emit(action, child)` for every move from `state`, children with their
    /// triggers updated.
    pub fn for_each_move(&self, state: &State, mut emit: impl FnMut(u16, &State)) {
        let mut previous = None;
        for &p in &state.players {
            if previous == Some(p) {
                continue;
            }
            previous = Some(p);
            let from = usize::from(p);
            if let Some(&Some(action)) = self.press.get(from) {
                let mut child = state.clone();
                self.flip_toggle(&mut child, from);
                self.finish(&mut child);
                emit(action, &child);
            }
            for exit in self.exits.get(from).map_or(&[][..], |v| v.as_slice()) {
                self.exit_moves(state, from, exit, &mut emit);
            }
        }
    }

    /// The moves of a player at `from` along one exit.
    fn exit_moves(
        &self,
        state: &State,
        from: usize,
        exit: &Exit,
        emit: &mut impl FnMut(u16, &State),
    ) {
        let (edge, edge_on) = self.edge_value(state, exit.edge);
        let (dest, dest_on) = self.node_value(state, exit.to);
        let ball_here = state.has_ball(from);
        let mut apply = |action: Option<u16>, allowed: bool, change: &dyn Fn(&mut State)| {
            if let (Some(action), true) = (action, allowed) {
                let mut child = state.clone();
                change(&mut child);
                self.finish(&mut child);
                emit(action, &child);
            }
        };
        let walk = edge.can_walk(exit.forward, edge_on, ball_here) && dest.can_walk(dest_on);
        apply(exit.walk, walk, &|s| {
            move_item(&mut s.players, from, exit.to)
        });
        let take = ball_here && edge.can_take_ball(exit.forward, edge_on) && dest.can_take_ball();
        apply(exit.bring, take, &|s| {
            move_item(&mut s.players, from, exit.to);
            move_item(&mut s.balls, from, exit.to);
        });
        let push = ball_here && edge.can_push_ball(exit.forward) && dest.can_take_ball();
        apply(exit.push, push, &|s| move_item(&mut s.balls, from, exit.to));
        let shoot = dest == NodeKind::Toggle && edge.can_see(edge_on);
        apply(exit.shoot, shoot, &|s| self.flip_toggle(s, exit.to));
    }

    /// Flips the toggle on node `n` and every receiver it drives.
    fn flip_toggle(&self, state: &mut State, n: usize) {
        if let Some(node) = self.puzzle.nodes.get(n) {
            if let Some(bit) = node.bit {
                state.flip(bit);
            }
            for &r in &node.receivers {
                state.flip(r);
            }
        }
    }

    /// Updates the triggers in node order (a Button latches on under a player or
    /// ball, a Plate follows "a ball is on it"; a trigger that changes sets its
    /// receivers to its value) and restores the items' sorted order.
    fn finish(&self, state: &mut State) {
        state.normalize();
        for (n, node) in self.puzzle.nodes.iter().enumerate() {
            let Some(bit) = node.bit else {
                continue;
            };
            let target = match node.kind {
                NodeKind::Button if state.has_player(n) || state.has_ball(n) => true,
                NodeKind::Plate => state.has_ball(n),
                _ => continue,
            };
            if state.get(bit) != target {
                state.set(bit, target);
                for &r in &node.receivers {
                    state.set(r, target);
                }
            }
        }
    }
}

/// Moves one item from node `from` to node `to`.
fn move_item(items: &mut [u16], from: usize, to: usize) {
    if let Some(slot) = items.iter_mut().find(|n| usize::from(**n) == from) {
        *slot = to as u16;
    }
    items.sort_unstable();
}
