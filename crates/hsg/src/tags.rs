//! Tags of hyperstates (paper section II-C.1): win and fail leaves, eventually winnable
//! and implicitly failed non-leaves, and `unknown` where a partial exploration leaves
//! the answer open.
//!
//! Rules, applied in increasing hyperstate number (successors first, see
//! [`crate::condense`]), with "target state" meaning a state whose outcome is the
//! target outcome (`win` by default):
//! - a leaf (no outgoing critical action) is `Win` if it contains a target state,
//!   `Unknown` if it is a state that was never expanded, and `Fail` otherwise;
//! - a non-leaf is `EventuallyWinnable` if it contains a target state or has a `Win` or
//!   `EventuallyWinnable` successor; otherwise `Unknown` if some successor is `Unknown`;
//!   otherwise `ImplicitlyFailed`.
//!
//! More exploration can only add paths, so `Win` and `EventuallyWinnable` are final;
//! `Fail` and `ImplicitlyFailed` are only given when nothing unexplored is reachable, so
//! they are final too. Time `O(H + HSG edges + terminals)`, one byte per hyperstate.

use crate::condense::Condensation;
use crate::graph::{OutcomeId, StateGraph};
use serde::{Deserialize, Serialize};

/// The tag of a hyperstate.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum Tag {
    /// A leaf containing a target state.
    Win = 0,
    /// A fully explored leaf without a target state (a loss or a soft lock).
    Fail = 1,
    /// A non-leaf that can reach a target state.
    EventuallyWinnable = 2,
    /// A fully explored non-leaf that cannot reach a target state.
    ImplicitlyFailed = 3,
    /// Cannot reach a target state in what was explored, but reaches unexplored states.
    #[default]
    Unknown = 4,
}

impl Tag {
    /// Every tag, in code order.
    pub const ALL: [Tag; 5] = [
        Tag::Win,
        Tag::Fail,
        Tag::EventuallyWinnable,
        Tag::ImplicitlyFailed,
        Tag::Unknown,
    ];

    /// True for `Win` and `EventuallyWinnable`.
    pub fn is_winnable(self) -> bool {
        matches!(self, Tag::Win | Tag::EventuallyWinnable)
    }

    /// True for `Fail` and `ImplicitlyFailed`: the game can only end in a loss.
    pub fn is_lost(self) -> bool {
        matches!(self, Tag::Fail | Tag::ImplicitlyFailed)
    }

    /// The snake-case name used in JSON and exports.
    pub fn name(self) -> &'static str {
        match self {
            Tag::Win => "win",
            Tag::Fail => "fail",
            Tag::EventuallyWinnable => "eventually_winnable",
            Tag::ImplicitlyFailed => "implicitly_failed",
            Tag::Unknown => "unknown",
        }
    }

    /// The tag with code `code`, if any.
    pub fn from_code(code: u8) -> Option<Tag> {
        Tag::ALL.get(usize::from(code)).copied()
    }
}

/// Flag: the hyperstate contains a state with the target outcome.
pub const CONTAINS_TARGET: u8 = 1;
/// Flag: the hyperstate is a state that was never expanded.
pub const OPEN: u8 = 2;

/// Tags and flags of every hyperstate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tagging {
    /// Tag of each hyperstate.
    pub tags: Vec<Tag>,
    /// [`CONTAINS_TARGET`] and [`OPEN`] bits of each hyperstate.
    pub flags: Vec<u8>,
}

impl Tagging {
    /// Tag of hyperstate `h`.
    #[inline]
    pub fn tag(&self, h: u64) -> Tag {
        self.tags[h as usize]
    }

    /// True when `h` contains a target state.
    #[inline]
    pub fn contains_target(&self, h: u64) -> bool {
        self.flags[h as usize] & CONTAINS_TARGET != 0
    }

    /// Number of hyperstates with each tag, indexed by tag code.
    pub fn counts(&self) -> [u64; 5] {
        let mut counts = [0; 5];
        for &t in &self.tags {
            counts[t as usize] += 1;
        }
        counts
    }
}

/// Tags every hyperstate of `c` against the outcome `target`.
pub fn tag_hyperstates<G: StateGraph + ?Sized>(
    g: &G,
    c: &Condensation,
    target: OutcomeId,
) -> Tagging {
    let flags = hyperstate_flags(g, c, target);
    let mut tags = Vec::with_capacity(flags.len());
    for h in 0..c.hyperstate_count() {
        let tag = tag_of(c, &tags, flags[h as usize], h);
        tags.push(tag);
    }
    Tagging { tags, flags }
}

fn hyperstate_flags<G: StateGraph + ?Sized>(g: &G, c: &Condensation, target: OutcomeId) -> Vec<u8> {
    let mut flags = vec![0u8; c.hyperstate_count() as usize];
    g.for_each_terminal(&mut |state, outcome| {
        if outcome == target {
            flags[c.hyperstate_of(state) as usize] |= CONTAINS_TARGET;
        }
    });
    g.for_each_cut(&mut |state| flags[c.hyperstate_of(state) as usize] |= OPEN);
    for state in g.expanded_count()..g.state_count() {
        if g.outcome(state).is_none() {
            flags[c.hyperstate_of(state) as usize] |= OPEN;
        }
    }
    flags
}

/// The tag of `h`, given the tags of every lower-numbered hyperstate (its successors).
fn tag_of(c: &Condensation, earlier: &[Tag], flags: u8, h: u64) -> Tag {
    let leaf = c.edges.is_leaf(h);
    if flags & CONTAINS_TARGET != 0 {
        return if leaf {
            Tag::Win
        } else {
            Tag::EventuallyWinnable
        };
    }
    if leaf {
        return if flags & OPEN != 0 {
            Tag::Unknown
        } else {
            Tag::Fail
        };
    }
    let (mut winnable, mut unknown) = (false, false);
    c.edges.for_each_successor(h, |s| {
        let t = earlier[s as usize];
        winnable |= t.is_winnable();
        unknown |= t == Tag::Unknown;
    });
    match (winnable, unknown) {
        (true, _) => Tag::EventuallyWinnable,
        (false, true) => Tag::Unknown,
        (false, false) => Tag::ImplicitlyFailed,
    }
}

#[cfg(test)]
#[path = "tags_tests.rs"]
mod tests;
