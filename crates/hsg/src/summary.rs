//! The JSON summary of an analysis: what `hsg report --json` shows under the key `hsg`
//! and what `hsg/summary.json` stores. Field meanings are defined in `docs/metrics.md`.

use crate::headroom::HeadroomMethod;
use crate::paths::{LengthHistogram, PathCount};
use crate::reversibility::ClassCounts;
use crate::tags::Tag;
use serde::{Deserialize, Serialize};

/// Version of the summary layout and of the `hsg/` files.
pub const FORMAT_VERSION: u32 = 1;

/// Every metric of one analysis.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HsgSummary {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// What was analysed (to detect a stale analysis).
    pub source: Source,
    /// Name of the target outcome the tags refer to.
    pub target: String,
    /// True when some states were never expanded: `unknown` tags and every metric that
    /// depends on them may change with more exploration.
    pub provisional: bool,
    /// Number of states.
    pub states: u64,
    /// States never expanded and not terminal.
    pub open_states: u64,
    /// Number of transitions (actions) in the SSG.
    pub transitions: u64,
    /// Number of hyperstates.
    pub hyperstates: u64,
    /// `1 - hyperstates / states`.
    pub compression: f64,
    /// Transitions between different hyperstates.
    pub critical_actions: u64,
    /// Distinct `(source, target)` hyperstate pairs joined by a critical action.
    pub hsg_edges: u64,
    /// Distinct `(source, target, action label)` triples.
    pub hsg_labelled_edges: u64,
    /// Hyperstates per tag.
    pub tags: TagCounts,
    /// Hyperstate number of the root (the hyperstate of state 0).
    pub root_hyperstate: u64,
    /// Tag of the root.
    pub root_tag: Tag,
    /// Immediately reversible transitions (self-loops included).
    pub immediately_reversible_actions: u64,
    /// Eventually but not immediately reversible transitions.
    pub eventually_reversible_actions: u64,
    /// Transitions from a state to itself.
    pub self_loops: u64,
    /// Reversibility classes per action label.
    pub reversibility_by_action: Vec<ActionClasses>,
    /// Distribution of hyperstate sizes in member states.
    pub hyperstate_sizes: SizeDistribution,
    /// Branching factors of the SSG and the HSG.
    pub branching: Branching,
    /// Shortest HSG depths from the root.
    pub depth: DepthSummary,
    /// Shortest winning paths from the root.
    pub shortest_win: ShortestWin,
    /// Winning HSG paths from the root.
    pub winning_paths: WinningPaths,
    /// Strategic headroom (section IV-A); `None` with a note when it was not computed.
    pub headroom: Option<HeadroomSummary>,
    /// Why headroom is missing, if it is.
    pub headroom_note: Option<String>,
    /// Failure spectrum (section IV-B).
    pub failure_spectrum: SpectrumSummary,
}

/// Identity of the analysed graph.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// Level hash of the run, if the graph came from a store.
    pub level_hash: String,
    /// States in the graph.
    pub states: u64,
    /// Expanded states.
    pub expanded: u64,
    /// Transitions.
    pub transitions: u64,
}

/// Hyperstates per tag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagCounts {
    /// Win leaves.
    pub win: u64,
    /// Fail leaves.
    pub fail: u64,
    /// Eventually winnable non-leaves.
    pub eventually_winnable: u64,
    /// Implicitly failed non-leaves.
    pub implicitly_failed: u64,
    /// Undecided because of unexplored states.
    pub unknown: u64,
}

impl TagCounts {
    /// Builds the counts from an array indexed by tag code.
    pub fn from_codes(counts: [u64; 5]) -> TagCounts {
        TagCounts {
            win: counts[Tag::Win as usize],
            fail: counts[Tag::Fail as usize],
            eventually_winnable: counts[Tag::EventuallyWinnable as usize],
            implicitly_failed: counts[Tag::ImplicitlyFailed as usize],
            unknown: counts[Tag::Unknown as usize],
        }
    }
}

/// Reversibility counts of one action label.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionClasses {
    /// The action label.
    pub action: String,
    /// Its transition counts per class.
    #[serde(flatten)]
    pub counts: ClassCounts,
}

/// A histogram bucket `[from, to]` (inclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bucket {
    /// Smallest value in the bucket.
    pub from: u64,
    /// Largest value in the bucket.
    pub to: u64,
    /// Number of items.
    pub count: u64,
}

/// Distribution of hyperstate sizes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SizeDistribution {
    /// Hyperstates of a single state.
    pub singletons: u64,
    /// Largest hyperstate.
    pub max: u64,
    /// Mean size.
    pub mean: f64,
    /// Power-of-two buckets: `[1,1]`, `[2,3]`, `[4,7]`, ...
    pub histogram: Vec<Bucket>,
}

/// Branching factors.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Branching {
    /// Mean out-degree of SSG states that have at least one transition.
    pub ssg_mean: f64,
    /// Largest SSG out-degree.
    pub ssg_max: u64,
    /// Mean number of distinct successor hyperstates of non-leaf hyperstates.
    pub hsg_mean: f64,
    /// Largest number of distinct successor hyperstates.
    pub hsg_max: u64,
}

/// Shortest HSG depths from the root, in critical actions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepthSummary {
    /// Hyperstates the root reaches (itself included).
    pub reachable_hyperstates: u64,
    /// Largest shortest depth.
    pub max: u32,
    /// `histogram[d]` hyperstates have shortest depth `d`.
    pub histogram: Vec<u64>,
}

/// Shortest winning path from the root.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShortestWin {
    /// In actions (SSG transitions), from state 0; `None` when no win is reachable.
    pub actions: Option<u64>,
    /// In critical actions (HSG edges), from the root.
    pub critical_actions: Option<u32>,
}

/// Winning HSG paths from the root.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WinningPaths {
    /// Number of distinct paths.
    pub count: PathCount,
    /// Longest winning path, in critical actions.
    pub longest: Option<u32>,
    /// Length distribution, when it fit the budget.
    pub lengths: Option<LengthHistogram>,
    /// Why the distribution is missing, if it is.
    pub lengths_note: Option<String>,
}

/// Headroom summary over the hyperstates the root reaches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeadroomSummary {
    /// Exact or sketched, with the error bound.
    pub method: HeadroomMethod,
    /// Headroom of the root, in hyperstates.
    pub root_hyperstates: f64,
    /// Headroom of the root, in states.
    pub root_states: f64,
    /// One-step headroom of the root (`None` if the root is a leaf).
    pub root_one_step: Option<f64>,
    /// Mean headroom in hyperstates over reachable hyperstates.
    pub mean_hyperstates: f64,
    /// Mean headroom in states over reachable hyperstates.
    pub mean_states: f64,
    /// Mean one-step headroom over reachable non-leaf hyperstates.
    pub mean_one_step: Option<f64>,
    /// Ten buckets of width 0.1 (the last includes 1.0) of headroom in hyperstates.
    pub histogram_hyperstates: Vec<u64>,
    /// The same for headroom in states.
    pub histogram_states: Vec<u64>,
    /// The same for one-step headroom (non-leaves only).
    pub histogram_one_step: Vec<u64>,
    /// Reachable hyperstates whose whole reach set is winnable (maximal headroom).
    pub full_headroom: u64,
    /// Reachable non-leaves with two or more labelled critical actions of which exactly
    /// one leads to a winnable hyperstate (minimal headroom).
    pub single_winning_choice: u64,
}

/// Failure-spectrum summary.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpectrumSummary {
    /// Loss distance of the root (`None`: no loss reachable).
    pub root_loss_distance: Option<u32>,
    /// Loss distances along the ideal path, root first.
    pub ideal_path_profile: Vec<Option<u32>>,
    /// Largest finite loss distance on the ideal path.
    pub breadth: Option<u32>,
    /// Smallest finite loss distance on the ideal path.
    pub narrowest: Option<u32>,
    /// Tag of the last hyperstate of the ideal path.
    pub ideal_path_end: Option<Tag>,
    /// `histogram[d]` reachable hyperstates have loss distance `d`.
    pub loss_distance_histogram: Vec<u64>,
    /// Reachable hyperstates from which no loss is reachable.
    pub no_loss_reachable: u64,
}
