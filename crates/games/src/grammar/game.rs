//! The interpreter: a `.game` file's compiled [`Rules`] as a [`model::Game`].
//!
//! States are the tracks' values packed as fixed-width bit fields (each
//! element takes just enough bits for its set) plus one last bit that marks
//! the error state: when a rule fails to evaluate (an index or a value
//! outside its set, a division by zero), the move leads to the state it
//! started from with that bit set, terminal with outcome `rule error`.

use model::{ActionId, Game, Move, OutcomeId, PlayerId, Prob, StateWidth, Successors};

use super::exec::{self, Part};
use super::ir::{self, Cx, Fault, Val};
use super::pack::Layout;
use super::rules::Rules;

/// The name of the outcome of states where a rule failed to evaluate.
pub const RULE_ERROR: &str = "rule error";

/// A game described in the `.game` language, ready to explore.
#[derive(Debug)]
pub struct GrammarGame {
    pub(super) rules: Rules,
    pub(super) layout: Layout,
    /// Concrete decisions each player may take (instance ids).
    per_player: Vec<Vec<u32>>,
    /// Mixed-radix strides of the tuple action ids, one per player.
    strides: Vec<u32>,
    /// How many tuple action ids follow the single decisions.
    tuples: u32,
    has_chance: bool,
}

/// The legal decisions of every player at one state.
type Legal = Vec<Vec<u32>>;

impl GrammarGame {
    /// Builds the interpreter; fails when simultaneous decision tuples would
    /// need more action ids than a store can number.
    pub fn new(rules: Rules) -> Result<GrammarGame, String> {
        let layout = Layout::new(&rules.slots);
        let players = rules.players.len();
        let per_player: Vec<Vec<u32>> = (0..players)
            .map(|p| {
                (0..rules.instances.len() as u32)
                    .filter(|&i| {
                        let d = rules.instances[i as usize].decision as usize;
                        rules.decisions[d].players.contains(&(p as u8))
                    })
                    .collect()
            })
            .collect();
        let mut strides = Vec::new();
        let mut tuples: u64 = 1;
        for list in &per_player {
            strides.push(tuples as u32);
            tuples = tuples.saturating_mul(list.len() as u64 + 1);
        }
        let tuples = if players > 1 { tuples } else { 0 };
        let total = rules.instances.len() as u64 + tuples;
        if total > u64::from(ActionId::MAX) {
            return Err(format!(
                "the game needs {total} action ids for its decisions and decision tuples, \
                 at most {} are supported",
                ActionId::MAX
            ));
        }
        let has_chance = rules.decisions.iter().any(|d| d.random);
        Ok(GrammarGame {
            rules,
            layout,
            per_player,
            strides,
            tuples: tuples as u32,
            has_chance,
        })
    }

    fn error_outcome(&self) -> OutcomeId {
        self.rules.outcomes.len() as OutcomeId
    }

    /// A fresh evaluation context.
    pub(super) fn cx(&self) -> Cx<'_> {
        Cx::new(&self.rules.memos, self.rules.slots.len(), self.rules.vars)
    }

    /// Decodes `state` into `cx`; `None` for the error state or a foreign encoding.
    pub(super) fn load(&self, state: &[u8], cx: &mut Cx) -> Option<()> {
        cx.reset_memo();
        match self.layout.unpack(state, &self.rules.slots, &mut cx.slots) {
            Some(false) => Some(()),
            _ => None,
        }
    }

    fn bind(&self, instance: u32, player: usize, vars: &mut [Val]) -> Option<usize> {
        let inst = self.rules.instances.get(instance as usize)?;
        let d = &self.rules.decisions[inst.decision as usize];
        for (var, value) in d.params.iter().zip(&inst.args) {
            if let Some(x) = vars.get_mut(*var as usize) {
                *x = *value;
            }
        }
        if let Some(pv) = d.player_var {
            if let Some(x) = vars.get_mut(pv as usize) {
                *x = player as Val;
            }
        }
        Some(inst.decision as usize)
    }

    /// Each player's legal decisions at the state loaded in `cx`.
    pub(super) fn legal(&self, cx: &mut Cx) -> Result<Legal, Fault> {
        let mut legal = Vec::with_capacity(self.per_player.len());
        for (p, list) in self.per_player.iter().enumerate() {
            let mut mine = Vec::new();
            for &i in list {
                let Some(d) = self.bind(i, p, &mut cx.vars) else {
                    continue;
                };
                if self.rules.decisions[d].when.eval(cx)? != 0 {
                    mine.push(i);
                }
            }
            legal.push(mine);
        }
        Ok(legal)
    }

    /// The outcome of a terminal state loaded in `cx`.
    fn outcome(&self, cx: &mut Cx) -> OutcomeId {
        for (cond, id) in &self.rules.outcome_rules {
            match cond.as_ref().map(|c| c.eval(cx)) {
                None => return *id,
                Some(Ok(v)) if v != 0 => return *id,
                Some(Ok(_)) => {}
                Some(Err(_)) => return self.error_outcome(),
            }
        }
        self.error_outcome()
    }

    /// Pushes the consequences of one decision tuple: `choices` are
    /// `(player, instance)` pairs in player order.
    fn push_tuple(
        &self,
        cx: &mut Cx,
        start: &[Val],
        choices: &[(usize, u32)],
        mv: Move,
        out: &mut Successors,
    ) {
        let mut parts: Vec<(usize, u32)> = Vec::with_capacity(choices.len());
        for &(p, i) in choices {
            let joint = self.rules.instances.get(i as usize).is_some_and(|inst| {
                self.rules.decisions[inst.decision as usize]
                    .player_var
                    .is_none()
            });
            // A joint decision's consequence runs once however many chose it.
            if !(joint && parts.iter().any(|&(_, j)| j == i)) {
                parts.push((p, i));
            }
        }
        let random = parts.iter().any(|&(_, i)| {
            let d = self.rules.instances[i as usize].decision as usize;
            self.rules.decisions[d].random
        });
        if !random {
            cx.slots.clear();
            cx.slots.extend_from_slice(start);
            cx.memo_on = false;
            let result = parts.iter().try_for_each(|&(p, i)| {
                let d = self.bind(i, p, &mut cx.vars).unwrap_or(0);
                ir::run_plain(&self.rules.decisions[d].body, cx)
            });
            cx.memo_on = true;
            let (slots, error) = match result {
                Ok(()) => (&cx.slots[..], false),
                Err(_) => (start, true),
            };
            out.push_with(mv, |buf| {
                self.layout.pack(slots, &self.rules.slots, error, buf)
            });
            return;
        }
        let parts: Vec<Part> = parts
            .iter()
            .map(|&(p, i)| {
                let inst = &self.rules.instances[i as usize];
                let d = &self.rules.decisions[inst.decision as usize];
                let mut binds: Vec<(u32, Val)> = d
                    .params
                    .iter()
                    .copied()
                    .zip(inst.args.iter().copied())
                    .collect();
                if let Some(pv) = d.player_var {
                    binds.push((pv, p as Val));
                }
                Part {
                    body: &d.body,
                    binds,
                }
            })
            .collect();
        for o in exec::run_tuple(&self.rules.memos, self.rules.vars, start, &parts) {
            let prob = Prob::new(o.num as u32, o.den as u32).unwrap_or(Prob::ONE);
            let mv = Move { prob, ..mv };
            match &o.result {
                Ok(slots) => {
                    out.push_with(mv, |b| self.layout.pack(slots, &self.rules.slots, false, b))
                }
                Err(_) => {
                    out.push_with(mv, |b| self.layout.pack(start, &self.rules.slots, true, b))
                }
            }
        }
    }

    /// The action id of a tuple where player `p` chose the `digits[p]`-th
    /// entry of their list (0 = null).
    fn tuple_action(&self, digits: &[usize]) -> ActionId {
        let offset: u32 = digits
            .iter()
            .zip(&self.strides)
            .map(|(d, s)| *d as u32 * s)
            .sum();
        (self.rules.instances.len() as u32 + offset) as ActionId
    }
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
        self.rules
            .starts
            .iter()
            .map(|s| {
                let mut buf = Vec::new();
                self.layout.pack(s, &self.rules.slots, false, &mut buf);
                buf
            })
            .collect()
    }

    fn action_labels(&self) -> Vec<String> {
        let mut labels: Vec<String> = self
            .rules
            .instances
            .iter()
            .map(|i| i.label.clone())
            .collect();
        for a in 0..self.tuples {
            let tuple = self.decode_tuple(a);
            let parts: Vec<String> = tuple
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
        let mut cx = self.cx();
        if self.load(state, &mut cx).is_none() {
            return Some(self.error_outcome());
        }
        match self.legal(&mut cx) {
            Ok(legal) if legal.iter().all(|l| l.is_empty()) => Some(self.outcome(&mut cx)),
            Ok(_) => None,
            Err(_) => Some(self.error_outcome()),
        }
    }

    fn successors(&self, state: &[u8], out: &mut Successors) {
        let mut cx = self.cx();
        if self.load(state, &mut cx).is_none() {
            return;
        }
        let Ok(legal) = self.legal(&mut cx) else {
            return;
        };
        let start = cx.slots.clone();
        let active: Vec<usize> = (0..legal.len()).filter(|&p| !legal[p].is_empty()).collect();
        if let [p] = active[..] {
            for &i in &legal[p] {
                let mv = Move {
                    action: i as ActionId,
                    player: p as PlayerId,
                    prob: Prob::ONE,
                };
                self.push_tuple(&mut cx, &start, &[(p, i)], mv, out);
            }
            return;
        }
        let Some(&first) = active.first() else { return };
        // Odometer over the active players' legal decisions.
        let mut pick = vec![0usize; active.len()];
        loop {
            let mut digits = vec![0usize; legal.len()];
            let mut choices = Vec::with_capacity(active.len());
            for (k, &p) in active.iter().enumerate() {
                let i = legal[p][pick[k]];
                digits[p] = 1 + self.per_player[p].iter().position(|&x| x == i).unwrap_or(0);
                choices.push((p, i));
            }
            let mv = Move {
                action: self.tuple_action(&digits),
                player: first as PlayerId,
                prob: Prob::ONE,
            };
            self.push_tuple(&mut cx, &start, &choices, mv, out);
            let mut k = active.len();
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                pick[k] += 1;
                if pick[k] < legal[active[k]].len() {
                    break;
                }
                pick[k] = 0;
            }
        }
    }

    fn render(&self, state: &[u8]) -> String {
        self.render_state(state)
    }

    fn has_chance(&self) -> bool {
        self.has_chance
    }

    fn to_move(&self, state: &[u8]) -> Option<PlayerId> {
        let mut cx = self.cx();
        self.load(state, &mut cx)?;
        let legal = self.legal(&mut cx).ok()?;
        let mut active = (0..legal.len()).filter(|&p| !legal[p].is_empty());
        match (active.next(), active.next()) {
            (Some(p), None) => Some(p as PlayerId),
            _ => None,
        }
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
}

impl GrammarGame {
    /// Each player's decision (label or `None`) in tuple number `a`.
    fn decode_tuple(&self, a: u32) -> Vec<Option<String>> {
        self.per_player
            .iter()
            .enumerate()
            .map(|(p, list)| {
                let digit = (a / self.strides[p]) % (list.len() as u32 + 1);
                let i = digit.checked_sub(1)?;
                let inst = list.get(i as usize)?;
                Some(self.rules.instances[*inst as usize].label.clone())
            })
            .collect()
    }
}
