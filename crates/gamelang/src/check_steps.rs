//! The checker's bound on loop steps: a sound over-estimate of how many
//! loop iterations the rules can take, so that a game whose rules might
//! exceed [`MAX_STEPS`] in one evaluation gets its `rule error` outcome
//! (issue 20, item 7). Every `for`, quantifier and aggregate counts its
//! iterations times those of the loops around it, and a definition counts
//! its loops again at every use, scaled the same way.

use super::check::{Checker, Span};
use super::ir::MAX_STEPS;

/// Iterations of a loop over a variable with bounds `span`.
pub fn iterations(span: Span) -> i128 {
    span.1.saturating_sub(span.0).saturating_add(1).max(0)
}

impl Checker<'_> {
    /// Enters a loop of `n` iterations; returns what [`Checker::leave_loop`]
    /// restores.
    pub fn enter_loop(&mut self, n: i128) -> i128 {
        let outer = self.loop_product;
        self.add_steps(n.max(1));
        self.loop_product = outer.saturating_mul(n.max(1));
        outer
    }

    /// Leaves the loop [`Checker::enter_loop`] entered.
    pub fn leave_loop(&mut self, outer: i128) {
        self.loop_product = outer;
    }

    /// Counts `steps` loop steps taken once per iteration of the enclosing
    /// loops, and gives the game its `rule error` outcome once the rules
    /// may take more than [`MAX_STEPS`].
    pub fn add_steps(&mut self, steps: i128) {
        let scaled = steps.saturating_mul(self.loop_product.max(1));
        self.loop_steps = self.loop_steps.saturating_add(scaled);
        if self.loop_steps > i128::from(MAX_STEPS) {
            self.rules.may_fail = true;
        }
    }

    /// Runs `compile` as if outside every loop and returns its result with
    /// the loop steps it counted, which the caller adds (scaled) at each use.
    pub fn counting_steps<T>(&mut self, compile: impl FnOnce(&mut Self) -> T) -> (T, i128) {
        let (product, steps) = (self.loop_product, self.loop_steps);
        self.loop_product = 1;
        self.loop_steps = 0;
        let result = compile(self);
        let counted = self.loop_steps;
        self.loop_product = product;
        self.loop_steps = steps;
        (result, counted)
    }
}
