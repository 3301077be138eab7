//! The interpreter: a `.game` file's compiled [`Rules`] as a [`model::Game`].
//!
//! States are the tracks' values packed as fixed-width bit fields (each
//! element takes just enough bits for its set) plus one last bit that marks
//! the error state: when a rule fails to evaluate (an index or a value
//! outside its set, a division by zero), the move leads to the state it
//! started from with that bit set, terminal with outcome `rule error`.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use model::{ActionId, Game, Move, OutcomeId, PlayerId, Prob, StateWidth, Successors};

use super::exec::{self, Part};
use super::ir::{self, Cx, Ex, Fault, St, Val};
use super::pack::Layout;
use super::rules::Rules;
use super::scratch::{self, Scratch};
use super::spec;
use super::turns;

/// The name of the outcome of states where a rule failed to evaluate.
pub const RULE_ERROR: &str = "rule error";

/// Most (player, decision) pairs a game may have.
const MAX_SPECS: usize = 1 << 16;

/// Most bytes the successors of one state may take (their encodings plus
/// 16 bytes each for the move): 64 MiB. A state whose moves have more
/// outcomes in all leads to the error state by its first move instead
/// (issue 20, item 7).
pub const MAX_SUCCESSOR_BYTES: usize = 1 << 26;

/// One decision as one player takes it: the rules specialised to its
/// parameters and player.
#[derive(Debug)]
pub(super) struct Spec {
    instance: u32,
    pub(super) when: Ex,
    pub(super) body: Vec<St>,
    random: bool,
    /// A joint decision's consequence runs once per tuple.
    joint: bool,
}

/// A game described in the `.game` language, ready to explore.
#[derive(Debug)]
pub struct GrammarGame {
    pub(super) rules: Rules,
    pub(super) layout: Layout,
    /// Per player, the decisions they may take.
    specs: Vec<Vec<Spec>>,
    /// Mixed-radix strides of the tuple action ids, one per player.
    strides: Vec<u32>,
    /// How many tuple action ids follow the single decisions.
    tuples: u32,
    has_chance: bool,
    /// Key of the per-thread legal-decision cache.
    id: u64,
    /// Raised to end evaluations in progress (see [`Game::interrupt_on`]).
    stop: OnceLock<Arc<AtomicBool>>,
}

impl GrammarGame {
    /// Builds the interpreter; fails when the decisions or simultaneous
    /// decision tuples need more action ids than a store can number.
    pub fn new(mut rules: Rules) -> Result<GrammarGame, String> {
        // Definitions and outcome rules get the same folding and unrolling
        // as the decisions' rules.
        for m in &mut rules.memos {
            *m = spec::specialise(m, &[]);
        }
        for (cond, _) in &mut rules.outcome_rules {
            if let Some(c) = cond {
                *c = spec::specialise(c, &[]);
            }
        }
        let layout = Layout::new(&rules.slots);
        let specs = specialise_all(&rules)?;
        let mut strides = Vec::new();
        let mut tuples: u64 = 1;
        for list in &specs {
            strides.push(tuples.min(u64::from(u32::MAX)) as u32);
            tuples = tuples.saturating_mul(list.len() as u64 + 1);
        }
        let whens: Vec<Vec<&Ex>> = specs
            .iter()
            .map(|l| l.iter().map(|s| &s.when).collect())
            .collect();
        let tuples = if specs.len() > 1 && !turns::exclusive(&whens) {
            tuples
        } else {
            0
        };
        let total = rules.instances.len() as u64 + tuples;
        if total > u64::from(ActionId::MAX) {
            return Err(format!(
                "the game needs {total} action ids for its decisions and decision tuples, \
                 at most {} are supported",
                ActionId::MAX
            ));
        }
        let has_chance = rules.decisions.iter().any(|d| d.random);
        let moves = (rules.instances.len() as u128 + u128::from(tuples))
            .saturating_mul(rules.branch_bound.unwrap_or(u128::MAX));
        if moves.saturating_mul(layout.bytes as u128 + 16) > MAX_SUCCESSOR_BYTES as u128 {
            rules.may_fail = true;
        }
        Ok(GrammarGame {
            rules,
            layout,
            specs,
            strides,
            tuples: tuples as u32,
            has_chance,
            id: scratch::game_id(),
            stop: OnceLock::new(),
        })
    }

    /// The flag that ends evaluations in progress, once one is given.
    pub(super) fn stop_flag(&self) -> Option<&AtomicBool> {
        self.stop.get().map(|flag| &**flag)
    }

    /// Every player's specialised decisions.
    pub(super) fn specs(&self) -> &[Vec<Spec>] {
        &self.specs
    }

    /// The outcome `rule error`. A game whose rules cannot fail has none:
    /// only an evaluation cut short by the stop flag fails there, and its
    /// result is discarded, so the first outcome keeps the id in range.
    fn error_outcome(&self) -> OutcomeId {
        if self.rules.may_fail {
            self.rules.outcomes.len() as OutcomeId
        } else {
            0
        }
    }

    /// Runs `f` on a context holding `state`; `None` for the error state or
    /// bytes that are no state of this game.
    fn with_state<R>(&self, state: &[u8], f: impl FnOnce(&mut Cx, &mut Scratch) -> R) -> Option<R> {
        let sizes = (self.rules.slots.len(), self.rules.vars);
        scratch::with_cx(&self.rules.memos, sizes, self.stop_flag(), |cx, s| {
            cx.reset_memo();
            match self.layout.unpack(state, &self.rules.slots, &mut cx.slots) {
                Some(false) => Some(f(cx, s)),
                _ => None,
            }
        })
    }

    /// Fills `s.legal` with each player's legal decisions at `state`
    /// (loaded in `cx`), reusing the last answer for the same state.
    fn legal(&self, state: &[u8], cx: &mut Cx, s: &mut Scratch) -> Result<(), Fault> {
        if s.legal_valid && s.legal_for.0 == self.id && s.legal_for.1 == state {
            return Ok(());
        }
        s.legal_valid = false;
        s.legal.resize_with(self.specs.len(), Vec::new);
        for (list, mine) in self.specs.iter().zip(s.legal.iter_mut()) {
            mine.clear();
            for (k, spec) in list.iter().enumerate() {
                cx.budget();
                if spec.when.eval(cx)? != 0 {
                    mine.push(k as u32);
                }
            }
        }
        s.legal_for.0 = self.id;
        s.legal_for.1.clear();
        s.legal_for.1.extend_from_slice(state);
        s.legal_valid = true;
        Ok(())
    }

    /// The outcome of a terminal state loaded in `cx`.
    fn outcome(&self, cx: &mut Cx) -> OutcomeId {
        for (cond, id) in &self.rules.outcome_rules {
            cx.budget();
            match cond.as_ref().map(|c| c.eval(cx)) {
                None => return *id,
                Some(Ok(v)) if v != 0 => return *id,
                Some(Ok(_)) => {}
                Some(Err(_)) => return self.error_outcome(),
            }
        }
        self.error_outcome()
    }

    /// Pushes the consequences of one decision tuple, given as the players'
    /// specialised decisions in player order.
    fn push_tuple(
        &self,
        cx: &mut Cx,
        start: &[Val],
        choices: &[&Spec],
        mv: Move,
        out: &mut Successors,
    ) {
        let mut parts: Vec<&Spec> = Vec::with_capacity(choices.len());
        for &c in choices {
            if !(c.joint && parts.iter().any(|p| p.instance == c.instance)) {
                parts.push(c);
            }
        }
        if parts.iter().any(|p| p.random) {
            let parts: Vec<Part> = parts
                .iter()
                .map(|p| Part {
                    body: &p.body,
                    binds: Vec::new(),
                })
                .collect();
            self.push_random(start, &parts, mv, out);
            return;
        }
        cx.slots.clear();
        cx.slots.extend_from_slice(start);
        cx.memo_on = false;
        cx.budget();
        let result = parts.iter().try_for_each(|p| ir::run_plain(&p.body, cx));
        cx.memo_on = true;
        let (slots, error) = match result {
            Ok(()) => (&cx.slots[..], false),
            Err(_) => (start, true),
        };
        out.push_with(mv, |buf| {
            self.layout.pack(slots, &self.rules.slots, error, buf)
        });
    }

    fn push_random(&self, start: &[Val], parts: &[Part], mv: Move, out: &mut Successors) {
        let (memos, vars, stop) = (&self.rules.memos, self.rules.vars, self.stop_flag());
        for o in exec::run_tuple(memos, vars, start, parts, stop) {
            let prob = to_prob(o.num, o.den);
            let mv = Move { prob, ..mv };
            let (slots, error) = match &o.result {
                Ok(slots) => (&slots[..], false),
                Err(_) => (start, true),
            };
            out.push_with(mv, |b| self.layout.pack(slots, &self.rules.slots, error, b));
        }
    }

    /// Expands the state loaded in `cx` whose legal decisions are in `s`;
    /// when its successors outgrow [`MAX_SUCCESSOR_BYTES`], its first move
    /// leads to the error state instead.
    fn expand(&self, cx: &mut Cx, s: &mut Scratch, out: &mut Successors) {
        let base = out.len();
        let Some(first) = self.expand_within(cx, s, out, base) else {
            return;
        };
        out.truncate(base);
        out.push_with(first, |buf| {
            self.layout.pack(&s.start, &self.rules.slots, true, buf)
        });
    }

    /// True when the successors pushed to `out` since `base` take more than
    /// [`MAX_SUCCESSOR_BYTES`].
    fn too_many(&self, out: &Successors, base: usize) -> bool {
        (out.len() - base).saturating_mul(self.layout.bytes + 16) > MAX_SUCCESSOR_BYTES
    }

    /// Pushes every move of the state; `Some(first move)` when they grow
    /// too many (see [`GrammarGame::expand`]).
    fn expand_within(
        &self,
        cx: &mut Cx,
        s: &mut Scratch,
        out: &mut Successors,
        base: usize,
    ) -> Option<Move> {
        s.start.clear();
        s.start.extend_from_slice(&cx.slots);
        let (start, legal) = (&s.start, &s.legal);
        let active: Vec<usize> = (0..legal.len()).filter(|&p| !legal[p].is_empty()).collect();
        let mut first_move = None;
        if let [p] = active[..] {
            for &k in &legal[p] {
                let spec = &self.specs[p][k as usize];
                let mv = Move {
                    action: spec.instance as ActionId,
                    player: p as PlayerId,
                    prob: Prob::ONE,
                };
                let first_move = *first_move.get_or_insert(mv);
                self.push_tuple(cx, start, &[spec], mv, out);
                if self.too_many(out, base) {
                    return Some(first_move);
                }
            }
            return None;
        }
        let &first = active.first()?;
        // Odometer over the active players' legal decisions.
        let mut pick = vec![0usize; active.len()];
        loop {
            let mut offset = 0u32;
            let mut choices = Vec::with_capacity(active.len());
            for (j, &p) in active.iter().enumerate() {
                let k = legal[p][pick[j]];
                offset += (k + 1) * self.strides[p];
                choices.push(&self.specs[p][k as usize]);
            }
            let action = (self.rules.instances.len() as u32 + offset) as ActionId;
            let mv = Move {
                action,
                player: first as PlayerId,
                prob: Prob::ONE,
            };
            let first_move = *first_move.get_or_insert(mv);
            self.push_tuple(cx, start, &choices, mv, out);
            if self.too_many(out, base) {
                return Some(first_move);
            }
            let mut j = active.len();
            loop {
                if j == 0 {
                    return None;
                }
                j -= 1;
                pick[j] += 1;
                if pick[j] < legal[active[j]].len() {
                    break;
                }
                pick[j] = 0;
            }
        }
    }

    /// Each player's decision (label or `None`) in tuple number `a`.
    fn decode_tuple(&self, a: u32) -> Vec<Option<String>> {
        self.specs
            .iter()
            .enumerate()
            .map(|(p, list)| {
                let digit = (a / self.strides[p]) % (list.len() as u32 + 1);
                let spec = list.get(digit.checked_sub(1)? as usize)?;
                Some(self.rules.instances[spec.instance as usize].label.clone())
            })
            .collect()
    }
}

/// `num/den` as a [`Prob`]. `run_tuple` turns branches whose denominator
/// outgrows 32 bits into rule errors; their probability is then rounded to
/// 31 bits, the only place where a probability is not exact.
fn to_prob(num: u128, den: u128) -> Prob {
    let (num, den) = if den > u128::from(u32::MAX) {
        let shift = 128 - den.leading_zeros() - 31;
        (num >> shift, den >> shift)
    } else {
        (num, den)
    };
    Prob::new(num as u32, den as u32).unwrap_or(Prob::ONE)
}

/// Every player's decisions, specialised to their parameters and player.
fn specialise_all(rules: &Rules) -> Result<Vec<Vec<Spec>>, String> {
    let mut specs: Vec<Vec<Spec>> = Vec::new();
    let mut total = 0;
    for p in 0..rules.players.len() {
        let mut mine = Vec::new();
        for (i, inst) in rules.instances.iter().enumerate() {
            let d = &rules.decisions[inst.decision as usize];
            if !d.players.contains(&(p as u8)) {
                continue;
            }
            total += 1;
            if total > MAX_SPECS {
                return Err(format!(
                    "the game has more than {MAX_SPECS} (player, decision) pairs"
                ));
            }
            let mut binds: Vec<(u32, Val)> = d
                .params
                .iter()
                .copied()
                .zip(inst.args.iter().copied())
                .collect();
            if let Some(pv) = d.player_var {
                binds.push((pv, p as Val));
            }
            mine.push(Spec {
                instance: i as u32,
                when: spec::specialise(&d.when, &binds),
                body: spec::specialise_block(&d.body, &binds),
                random: d.random,
                joint: d.player_var.is_none(),
            });
        }
        specs.push(mine);
    }
    Ok(specs)
}

impl Game for GrammarGame {
    fn kind(&self) -> &'static str {
        "grammar"
    }

    fn players(&self) -> u8 {
        self.rules.players.len() as u8
    }

    fn state_width(&self) -> StateWidth {
        StateWidth::Fixed(self.layout.bytes)
    }

    fn initial_states(&self) -> Vec<Vec<u8>> {
        let pack = |s: &Vec<Val>| {
            let mut buf = Vec::new();
            self.layout.pack(s, &self.rules.slots, false, &mut buf);
            buf
        };
        self.rules.starts.iter().map(pack).collect()
    }

    fn action_labels(&self) -> Vec<String> {
        let mut labels: Vec<String> = self
            .rules
            .instances
            .iter()
            .map(|i| i.label.clone())
            .collect();
        for a in 0..self.tuples {
            let parts: Vec<String> = self
                .decode_tuple(a)
                .iter()
                .enumerate()
                .map(|(p, d)| format!("{}:{}", self.rules.players[p], d.as_deref().unwrap_or("-")))
                .collect();
            labels.push(format!("({})", parts.join(", ")));
        }
        labels
    }

    fn outcome_names(&self) -> Vec<String> {
        let mut names = self.rules.outcomes.clone();
        if self.rules.may_fail {
            names.push(RULE_ERROR.to_string());
        }
        names
    }

    fn terminal(&self, state: &[u8]) -> Option<OutcomeId> {
        let found = self.with_state(state, |cx, s| match self.legal(state, cx, s) {
            Ok(()) if s.legal.iter().all(|l| l.is_empty()) => Some(self.outcome(cx)),
            Ok(()) => None,
            Err(_) => Some(self.error_outcome()),
        });
        found.unwrap_or(Some(self.error_outcome()))
    }

    fn successors(&self, state: &[u8], out: &mut Successors) {
        self.with_state(state, |cx, s| {
            if self.legal(state, cx, s).is_ok() {
                self.expand(cx, s, out);
            }
        });
    }

    fn render(&self, state: &[u8]) -> String {
        self.render_state(state)
    }

    fn has_chance(&self) -> bool {
        self.has_chance
    }

    fn to_move(&self, state: &[u8]) -> Option<PlayerId> {
        self.with_state(state, |cx, s| {
            self.legal(state, cx, s).ok()?;
            let mut active = (0..s.legal.len()).filter(|&p| !s.legal[p].is_empty());
            match (active.next(), active.next()) {
                (Some(p), None) => Some(p as PlayerId),
                _ => None,
            }
        })
        .flatten()
    }

    fn decision_tuple(&self, action: ActionId) -> Option<Vec<Option<String>>> {
        let a = u32::from(action).checked_sub(self.rules.instances.len() as u32)?;
        (a < self.tuples).then(|| self.decode_tuple(a))
    }

    fn features(&self) -> Vec<String> {
        self.feature_names()
    }

    fn project(&self, state: &[u8], ignored: &[usize], out: &mut Vec<u8>) {
        self.project_state(state, ignored, out)
    }

    /// Keeps the first flag given: loops check it every thousand steps, so
    /// that an evaluation stops within microseconds of it being raised.
    fn interrupt_on(&self, stop: Arc<AtomicBool>) {
        let _ = self.stop.set(stop);
    }
}
