//! The shape of compiled expressions: how deep evaluating one recurses,
//! and long `or`s built as balanced trees, so that hostile files cannot
//! exhaust a thread's stack (issue 20, item 5).

use super::ir::Ex;

/// The deepest expression the checker compiles: evaluation recurses once per
/// level (about 1 KiB of stack each in a debug build, where 2,000 levels
/// overflow a thread's 2 MiB), so deeper rules are refused at load (issue
/// 20, item 5). Unrolled quantifiers add at most about 130 levels.
pub const MAX_EVAL_HEIGHT: usize = 1_000;

impl Ex {
    /// How deep evaluating the expression recurses, counted without
    /// recursion: the nodes on its longest path, where a memoised
    /// definition `Memo(m)` adds the depth of its body, `memo_heights[m]`.
    pub fn height(&self, memo_heights: &[usize]) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(self, 1)];
        while let Some((e, depth)) = stack.pop() {
            let mut here = depth;
            let below = depth + 1;
            match e {
                Ex::K(_) | Ex::Slot(_) | Ex::SlotEq(..) | Ex::SlotNe(..) | Ex::Var(_) => {}
                Ex::Memo(m) => here += memo_heights.get(*m as usize).copied().unwrap_or(0),
                Ex::Elem { index: a, .. }
                | Ex::Neg(a, _)
                | Ex::Abs(a, _)
                | Ex::Not(a)
                | Ex::Next { arg: a, .. } => stack.push((a, below)),
                Ex::Arith(_, a, b, _) | Ex::Cmp(_, a, b) | Ex::And(a, b) | Ex::Or(a, b) => {
                    stack.push((a, below));
                    stack.push((b, below));
                }
                Ex::If(a, b, c)
                | Ex::Quant {
                    lo: a,
                    hi: b,
                    body: c,
                    ..
                } => {
                    stack.push((a, below));
                    stack.push((b, below));
                    stack.push((c, below));
                }
            }
            deepest = deepest.max(here);
        }
        deepest
    }
}

/// `items` joined by `join` as a balanced tree that keeps their order, so
/// that a short-circuit `or` or `and` of many terms evaluates them left to
/// right exactly as a chain would, but only `log2(n)` levels deep.
pub fn balanced(mut items: Vec<Ex>, join: fn(Box<Ex>, Box<Ex>) -> Ex) -> Option<Ex> {
    while items.len() > 1 {
        let mut next = Vec::with_capacity(items.len().div_ceil(2));
        let mut pairs = items.into_iter();
        while let Some(a) = pairs.next() {
            next.push(match pairs.next() {
                Some(b) => join(Box::new(a), Box::new(b)),
                None => a,
            });
        }
        items = next;
    }
    items.pop()
}
