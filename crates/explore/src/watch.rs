//! Watching an exploration layer by layer: the hook through which the live
//! hyperstate analysis sees each complete BFS layer and holds states back from
//! expansion (an HSG depth limit).
//!
//! The explorer knows nothing of hyperstates. After every layer it hands a
//! [`Watcher`] the rows and terminal records stored since the last call, and asks
//! which states of the coming layer to hold back. Held states are recorded with
//! [`store::CUT_OUTCOME`] instead of being expanded, so that the analysis treats
//! their future as unknown. Because the decisions for a layer depend only on the
//! graph stored before it, and a resumed run replays that graph to the watcher,
//! the decisions (and hence the ids) are the same whatever the interruptions.

use crate::ExploreError;
use store::{RunWriter, StateId};

/// Observes the graph as complete layers are stored.
pub trait Watcher {
    /// Takes the rows `(source, target)` and terminal records `(state, outcome)`
    /// stored since the last call; `states` is the number of states stored and
    /// every state below `expanded` has been expanded (or recorded terminal or cut).
    fn feed(
        &mut self,
        rows: &[(StateId, StateId)],
        terminals: &[(StateId, u16)],
        states: u64,
        expanded: u64,
    ) -> Result<(), String>;

    /// States `0..count` are the initial states (called once, before any plan).
    fn set_roots(&mut self, count: u64);

    /// Called when the graph fed so far is every row of the layers before
    /// `first..end`, the layer about to be expanded: returns which of its states
    /// to hold back (`held[i]` for state `first + i`; an empty vector holds none).
    fn plan_layer(&mut self, first: StateId, end: StateId) -> Result<Vec<bool>, String>;

    /// A JSON summary of what the watcher knows, published with the progress.
    fn live(&mut self) -> Option<serde_json::Value>;

    /// The summary of everything fed, however recently, for the exploration's last
    /// progress (which the manifest keeps): figures of an earlier graph beside the
    /// final state count would be stale. By default the same as [`Watcher::live`].
    fn settled_live(&mut self) -> Option<serde_json::Value> {
        self.live()
    }
}

/// Which states of the layer being expanded are held back.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hold<'a> {
    from: StateId,
    flags: &'a [bool],
}

impl Hold<'_> {
    /// True when state `id` is held back.
    #[inline]
    pub fn is_held(&self, id: StateId) -> bool {
        !self.flags.is_empty()
            && id
                .checked_sub(self.from)
                .and_then(|i| self.flags.get(i as usize))
                .copied()
                .unwrap_or(false)
    }
}

/// The explorer's side of watching: what was fed, and the current layer's plan.
pub struct Watching<'w> {
    watcher: &'w mut dyn Watcher,
    fed_parents: u64,
    fed_terminals: u64,
    /// First state of the planned layer and which of its states are held back.
    pub held_from: StateId,
    /// Held-back flags of the planned layer.
    pub held: Vec<bool>,
    /// Terminal records fed that mark a held-back state.
    pub cut_count: u64,
    rows: Vec<(StateId, StateId)>,
    terminals: Vec<(StateId, u16)>,
    /// The watcher's latest summary.
    pub live: Option<serde_json::Value>,
}

impl<'w> Watching<'w> {
    /// Starts watching with nothing fed.
    pub fn new(watcher: &'w mut dyn Watcher) -> Watching<'w> {
        Watching {
            watcher,
            fed_parents: 0,
            fed_terminals: 0,
            held_from: 0,
            held: Vec::new(),
            cut_count: 0,
            rows: Vec::new(),
            terminals: Vec::new(),
            live: None,
        }
    }

    /// The planned layer's held-back states, for the expanding threads.
    pub fn hold(&self) -> Hold<'_> {
        Hold {
            from: self.held_from,
            flags: &self.held,
        }
    }

    /// Feeds the rows of the parents `fed..upto` and every new terminal record.
    pub fn feed_upto(&mut self, writer: &RunWriter, upto: u64) -> Result<(), ExploreError> {
        const BATCH: u64 = 1 << 18;
        while self.fed_parents < upto {
            let n = (upto - self.fed_parents).min(BATCH);
            self.rows.clear();
            writer.read_rows(self.fed_parents, n, &mut self.rows)?;
            self.fed_parents += n;
            self.watcher
                .feed(&self.rows, &[], writer.state_count(), self.fed_parents)
                .map_err(ExploreError::Watcher)?;
        }
        self.terminals.clear();
        writer.read_terminals(self.fed_terminals, &mut self.terminals)?;
        self.fed_terminals += self.terminals.len() as u64;
        self.cut_count += self
            .terminals
            .iter()
            .filter(|t| t.1 == store::CUT_OUTCOME)
            .count() as u64;
        self.watcher
            .feed(&[], &self.terminals, writer.state_count(), self.fed_parents)
            .map_err(ExploreError::Watcher)
    }

    /// At the exploration's end: feeds the rows of the parents expanded since the last
    /// feed (`..upto`) and every terminal record, and takes the watcher's settled
    /// summary of all of it for the last progress.
    pub fn settle(&mut self, writer: &RunWriter, upto: u64) -> Result<(), ExploreError> {
        self.feed_upto(writer, upto)?;
        self.live = self.watcher.settled_live();
        Ok(())
    }

    /// Plans the layer `first..end` from the graph fed so far.
    pub fn plan(&mut self, first: StateId, end: StateId) -> Result<(), ExploreError> {
        self.held = self
            .watcher
            .plan_layer(first, end)
            .map_err(ExploreError::Watcher)?;
        self.held_from = first;
        self.live = self.watcher.live();
        Ok(())
    }

    /// After resuming (or seeding) with `layers` and `next_parent`: replays the
    /// complete layers before the current one, plans it, then feeds the part of
    /// it already expanded.
    pub fn start(
        &mut self,
        writer: &RunWriter,
        layers: &[u64],
        next_parent: u64,
    ) -> Result<(), ExploreError> {
        let n = layers.len();
        let (first, end) = (layers[n.saturating_sub(2)], layers[n - 1]);
        self.watcher.set_roots(layers.get(1).copied().unwrap_or(0));
        self.feed_upto(writer, first)?;
        self.plan(first, end)?;
        self.feed_upto(writer, next_parent)
    }
}
