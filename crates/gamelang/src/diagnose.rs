//! Explains a rule error: which rule of the file failed, found by
//! re-evaluating the rules at the state where the failing move started
//! (the error state keeps that state's tracks).

use model::Game;

use super::exec::{self, Part, BRANCH_SITE, PROB_SITE};
use super::game::GrammarGame;
use super::ir::{self, Cx, Fault, Val};

impl GrammarGame {
    /// Why `state` has the outcome `rule error`, in a sentence naming the
    /// place in the file; `None` when it does not.
    pub(super) fn rule_error_reason(&self, state: &[u8]) -> Option<String> {
        let mut slots = Vec::new();
        let error = self.layout.unpack(state, &self.rules.slots, &mut slots)?;
        if !error {
            let names = self.outcome_names();
            let o = self.terminal(state)?;
            if names.get(o as usize).map(String::as_str) != Some(super::RULE_ERROR) {
                return None;
            }
        }
        let mut cx = Cx::new(&self.rules.memos, slots.len(), self.rules.vars);
        cx.slots.clone_from(&slots);
        let fault = self.first_fault(&mut cx, &slots, error);
        Some(match fault {
            Some(f) => format!("rule error: {}", self.describe(f)),
            None if error => format!(
                "rule error: a decision tuple's consequences failed, or the state's moves \
                 had more than {} bytes of successors in all",
                super::game::MAX_SUCCESSOR_BYTES
            ),
            None => "rule error: no outcome rule matches this terminal state".to_string(),
        })
    }

    /// The first failure among the legality conditions, the outcome rules
    /// (for a terminal state) or, after a failed move, the consequences.
    fn first_fault(&self, cx: &mut Cx, slots: &[Val], moved: bool) -> Option<Fault> {
        cx.memo_on = false;
        for spec in self.specs().iter().flatten() {
            cx.budget();
            if let Err(f) = spec.when.eval(cx) {
                return Some(f);
            }
        }
        if !moved {
            return self.rules.outcome_rules.iter().find_map(|(c, _)| {
                cx.budget();
                c.as_ref()?.eval(cx).err()
            });
        }
        for spec in self.specs().iter().flatten() {
            cx.budget();
            if spec.when.eval(cx).ok() != Some(1) {
                continue;
            }
            let parts = [Part {
                body: &spec.body,
                binds: Vec::new(),
            }];
            let (memos, vars) = (&self.rules.memos, self.rules.vars);
            let outcomes = exec::run_tuple(memos, vars, slots, &parts, None);
            if let Some(f) = outcomes.iter().find_map(|o| o.result.as_ref().err()) {
                return Some(*f);
            }
            cx.slots.clear();
            cx.slots.extend_from_slice(slots);
            cx.budget();
            if let Err(f) = ir::run_plain(&spec.body, cx) {
                return Some(f);
            }
        }
        None
    }

    /// A failure in words, with its place in the file.
    fn describe(&self, f: Fault) -> String {
        match f.site {
            PROB_SITE => "a probability became finer than 32 bits".to_string(),
            BRANCH_SITE => format!(
                "a decision tuple branched more than {} ways (or its branches held more \
                 than {} values)",
                exec::MAX_BRANCHES,
                exec::MAX_BRANCH_WORDS
            ),
            ir::STEPS_SITE => format!(
                "a rule took more than {} loop steps in one evaluation",
                ir::MAX_STEPS
            ),
            ir::STOP_SITE => "the evaluation was interrupted".to_string(),
            site => match self.rules.sites.get(site as usize) {
                Some((pos, what)) => format!("{what} (line {}, column {})", pos.line, pos.col),
                None => "a rule failed to evaluate".to_string(),
            },
        }
    }
}
