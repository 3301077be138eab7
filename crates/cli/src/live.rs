//! The live hyperstate analysis of an exploration: wires `hsg::Incremental` into the
//! explorer's layer-by-layer [`explore::Watcher`] hook, for `--live-hsg` and the HSG
//! depth limit `--hsg-depth`.

use explore::Watcher;
use hsg::incremental::NO_DEPTH;
use hsg::{Incremental, LiveFigures, LiveHsg};
use store::{StateId, CUT_OUTCOME};

/// Watches an exploration: hyperstates, HSG depth and dead states so far, and the
/// states of each new layer whose hyperstate lies deeper than the limit.
pub struct LiveAnalysis {
    inc: Incremental,
    target: Vec<u16>,
    depth_limit: Option<u32>,
    held_back: u64,
    /// The targets of the row being fed, reused from row to row.
    targets: Vec<StateId>,
    /// The last published figures and when they were computed: counting dead
    /// states is a pass over the whole contracted graph, done at most once a second.
    published: Option<(std::time::Instant, serde_json::Value)>,
}

impl LiveAnalysis {
    /// A watcher tagging against the outcomes `target` (none: no winning states),
    /// holding back states whose HSG depth exceeds `depth_limit`.
    pub fn new(target: Vec<u16>, depth_limit: Option<u32>) -> LiveAnalysis {
        LiveAnalysis {
            inc: Incremental::new(),
            target,
            depth_limit,
            held_back: 0,
            targets: Vec::new(),
            published: None,
        }
    }

    /// The latest figures, after the exploration's last layer.
    pub fn finish(&mut self) -> LiveHsg {
        self.inc.settle();
        self.inc.compute_depths();
        self.inc.live()
    }
}

impl Watcher for LiveAnalysis {
    fn feed(
        &mut self,
        rows: &[(StateId, StateId)],
        terminals: &[(StateId, u16)],
        states: u64,
        expanded: u64,
    ) -> Result<(), String> {
        self.inc.grow_to(states).map_err(|e| e.to_string())?;
        let mut start = 0;
        while start < rows.len() {
            let source = rows[start].0;
            let end = rows[start..]
                .iter()
                .position(|r| r.0 != source)
                .map_or(rows.len(), |k| start + k);
            self.targets.clear();
            self.targets.extend(rows[start..end].iter().map(|r| r.1));
            self.inc.add_row(source, &self.targets);
            start = end;
        }
        for &(state, outcome) in terminals {
            if outcome == CUT_OUTCOME {
                self.inc.add_cut(state);
            } else if self.target.contains(&outcome) {
                self.inc.add_target(state);
            }
        }
        self.inc.set_expanded(expanded);
        Ok(())
    }

    fn set_roots(&mut self, count: u64) {
        if self.inc.grow_to(count).is_ok() {
            self.inc.set_roots(count);
        }
    }

    fn plan_layer(&mut self, first: StateId, end: StateId) -> Result<Vec<bool>, String> {
        self.inc.grow_to(end).map_err(|e| e.to_string())?;
        let Some(limit) = self.depth_limit else {
            // Without a depth limit nothing waits on the components: settle once the
            // new edges outnumber the contracted graph, linear time overall.
            if self.inc.pending_edges() >= self.inc.settled_size().max(1 << 16) {
                self.inc.settle();
                self.published = None;
            }
            return Ok(Vec::new());
        };
        self.inc.settle();
        self.inc.compute_depths();
        let held: Vec<bool> = (first..end)
            .map(|s| {
                let d = self.inc.depth_of(s);
                d != NO_DEPTH && d > limit
            })
            .collect();
        self.held_back += held.iter().filter(|&&h| h).count() as u64;
        Ok(held)
    }

    fn live(&mut self) -> Option<serde_json::Value> {
        if let Some((at, value)) = &self.published {
            if at.elapsed() < std::time::Duration::from_secs(1) || self.inc.pending_edges() > 0 {
                return Some(value.clone());
            }
        }
        if self.depth_limit.is_none() {
            self.inc.compute_depths();
        }
        self.publish()
    }

    /// Regression (issue 37): the last `--live-hsg` progress line paired the final state
    /// count with figures published up to a second earlier, or before the last layer's
    /// edges were settled. The last figures are those of the whole graph.
    fn settled_live(&mut self) -> Option<serde_json::Value> {
        self.inc.settle();
        self.inc.compute_depths();
        self.publish()
    }
}

impl LiveAnalysis {
    /// Computes the figures of the graph as settled now and keeps them as published.
    fn publish(&mut self) -> Option<serde_json::Value> {
        let figures = LiveFigures {
            hsg: self.inc.live(),
            depth_limit: self.depth_limit,
            held_back: self.held_back,
        };
        // Encoding a struct of integers cannot fail; were it to, nothing is published
        // and the readers show no figures rather than wrong ones.
        let value = figures.to_json().ok()?;
        self.published = Some((std::time::Instant::now(), value.clone()));
        Some(value)
    }
}
