//! [`SavedView`]: a saved analysis read one item at a time, whether it was loaded into
//! memory ([`SavedAnalysis`], also what a fresh analysis gives) or is read in place
//! from its mapped files ([`crate::MappedAnalysis`], which the workbench opens in
//! milliseconds whatever the size of the run). Every accessor answers `None` or an
//! empty range past the end rather than panicking, so that a view whose files are not
//! verified yet can still be read safely.

use crate::persist::{HyperstateInfo, SavedAnalysis};
use crate::summary::HsgSummary;
use std::ops::Range;

/// A labelled HSG edge as saved: its target hyperstate, its action and how many
/// state transitions it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SavedEdge {
    /// The target hyperstate.
    pub target: u64,
    /// The action.
    pub action: u16,
    /// State transitions it stands for.
    pub multiplicity: u64,
}

/// The questions the workbench asks a saved analysis.
pub trait SavedView: Send + Sync {
    /// The summary.
    fn summary(&self) -> &HsgSummary;
    /// Number of hyperstates.
    fn hyperstate_count(&self) -> u64;
    /// Number of analysed states.
    fn state_count(&self) -> u64;
    /// The hyperstate of state `s`.
    fn component(&self, s: u64) -> Option<u64>;
    /// Positions of `h`'s members in the member list.
    fn member_range(&self, h: u64) -> Range<u64>;
    /// The member at position `i` of the member list.
    fn member(&self, i: u64) -> Option<u64>;
    /// Positions of `h`'s labelled edges, sorted by target.
    fn edge_range(&self, h: u64) -> Range<u64>;
    /// Number of labelled edges.
    fn edge_count(&self) -> u64;
    /// The labelled edge at position `i`.
    fn edge(&self, i: u64) -> Option<SavedEdge>;
    /// The saved values of hyperstate `h`.
    fn hyperstate(&self, h: u64) -> Option<HyperstateInfo>;
    /// Hyperstates of the ideal path, root first.
    fn ideal_path(&self) -> &[u64];
}

/// `offsets[h]..offsets[h + 1]` of a list of `len` items, empty when either offset is
/// missing, they are reversed, or the end lies past the list: an unverified view's
/// damaged offsets must not send a reader through 2^60 positions that all answer `None`.
pub(crate) fn range_of(start: Option<u64>, end: Option<u64>, len: u64) -> Range<u64> {
    match (start, end) {
        (Some(a), Some(b)) if a <= b && b <= len => a..b,
        _ => 0..0,
    }
}

impl SavedView for SavedAnalysis {
    fn summary(&self) -> &HsgSummary {
        &self.summary
    }

    fn hyperstate_count(&self) -> u64 {
        self.hyperstates.len() as u64
    }

    fn state_count(&self) -> u64 {
        self.component.len() as u64
    }

    fn component(&self, s: u64) -> Option<u64> {
        self.component.get(s)
    }

    fn member_range(&self, h: u64) -> Range<u64> {
        let o = &self.member_offsets;
        let at = |i: u64| usize::try_from(i).ok().and_then(|i| o.get(i).copied());
        range_of(
            at(h),
            h.checked_add(1).and_then(at),
            self.members.len() as u64,
        )
    }

    fn member(&self, i: u64) -> Option<u64> {
        self.members.get(i)
    }

    fn edge_range(&self, h: u64) -> Range<u64> {
        let o = &self.edges.offsets;
        let at = |i: u64| usize::try_from(i).ok().and_then(|i| o.get(i).copied());
        range_of(at(h), h.checked_add(1).and_then(at), self.edges.len())
    }

    fn edge_count(&self) -> u64 {
        self.edges.len()
    }

    fn edge(&self, i: u64) -> Option<SavedEdge> {
        let e = &self.edges;
        let at = usize::try_from(i).ok()?;
        Some(SavedEdge {
            target: e.targets.get(i)?,
            action: *e.actions.get(at)?,
            multiplicity: *e.multiplicity.get(at)?,
        })
    }

    fn hyperstate(&self, h: u64) -> Option<HyperstateInfo> {
        self.hyperstates.get(usize::try_from(h).ok()?).copied()
    }

    fn ideal_path(&self) -> &[u64] {
        &self.ideal_path
    }
}
