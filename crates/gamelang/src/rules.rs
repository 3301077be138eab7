//! The compiled rules of one `.game` file: what the checker produces and
//! the game interpreter runs.

use super::diag::Pos;
use super::ir::{Dom, Ex, St, Val};

/// One declared track (a single element or an array).
#[derive(Clone, Debug)]
pub struct TrackInfo {
    /// The track's name.
    pub name: String,
    /// Slot of its first element.
    pub first_slot: u32,
    /// Labels of its elements' indices (`None` for a single track).
    pub index_labels: Option<Vec<String>>,
    /// The set of values each element takes.
    pub dom: Dom,
}

/// A decision family as compiled.
#[derive(Clone, Debug)]
pub struct DecisionIr {
    /// Its name.
    pub name: String,
    /// Players who may take it.
    pub players: Vec<u8>,
    /// The variable naming the deciding player, when the rule names one;
    /// without it the decision is joint and its effect runs once per tuple.
    pub player_var: Option<u32>,
    /// The parameters' variables.
    pub params: Vec<u32>,
    /// The legality condition.
    pub when: Ex,
    /// The consequence.
    pub body: Vec<St>,
    /// Whether the consequence draws at random.
    pub random: bool,
}

/// One concrete decision: a family with its parameters' values.
#[derive(Clone, Debug)]
pub struct Instance {
    /// Index into [`Rules::decisions`].
    pub decision: u32,
    /// The parameters' values, in order.
    pub args: Vec<Val>,
    /// How the decision reads, e.g. `place(4)`.
    pub label: String,
}

/// Everything the interpreter needs, resolved and checked.
#[derive(Clone, Debug, Default)]
pub struct Rules {
    /// The `game` title, if the file gives one.
    pub title: Option<String>,
    /// Player names; player `i` has value id `i`.
    pub players: Vec<String>,
    /// Name of every named value, indexed by value id.
    pub values: Vec<String>,
    /// The tracks in file order.
    pub tracks: Vec<TrackInfo>,
    /// The value set of every slot (track element).
    pub slots: Vec<Dom>,
    /// Bodies of parameterless definitions, computed once per state.
    pub memos: Vec<Ex>,
    /// How many variables the rules bind.
    pub vars: usize,
    /// Decision families.
    pub decisions: Vec<DecisionIr>,
    /// Concrete decisions, in file order then parameter order.
    pub instances: Vec<Instance>,
    /// Initial states as slot values.
    pub starts: Vec<Vec<Val>>,
    /// Declared outcome names.
    pub outcomes: Vec<String>,
    /// Outcome rules in order: condition (`None` = otherwise) and outcome.
    pub outcome_rules: Vec<(Option<Ex>, u16)>,
    /// Places in the file where evaluation can fail, with what fails.
    pub sites: Vec<(Pos, String)>,
    /// True when some rule may fail to evaluate during play, so the game
    /// needs its `rule error` outcome.
    pub may_fail: bool,
    /// The most chance branches one decision tuple can have, when bounded.
    pub branch_bound: Option<u128>,
}
