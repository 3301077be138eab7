//! The compiled form of a `.game` file's rules: expression and statement
//! trees over integer slots, and their evaluation. Names are resolved,
//! definitions inlined (or memoised per state when they take no
//! parameters) and every check that can fail at run time carries a site
//! number that names the place in the file.

use std::sync::atomic::{AtomicBool, Ordering};

use super::ast::Quant;

/// Every runtime value is an integer: booleans are 0 and 1, named values
/// and players are global ids (players first), `none` is [`NONE`].
pub type Val = i64;

/// The value `none` of an optional value set.
pub const NONE: Val = -1;

/// A rule that failed to evaluate; `site` indexes the game's table of
/// places that can fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fault {
    /// Which check failed.
    pub site: u32,
}

/// Arithmetic operators (all checked for overflow).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Min,
    Max,
}

/// Comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A compiled expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Ex {
    /// A constant.
    K(Val),
    /// A scalar track (or an array element at a constant index).
    Slot(u32),
    /// An array element at a computed index, checked against `0..len`.
    Elem {
        /// Slot of the element at index `lo`.
        base: u32,
        /// The array's first index.
        lo: Val,
        /// How many elements the array has.
        len: u32,
        /// The index.
        index: Box<Ex>,
        /// Failure site of an index out of range.
        site: u32,
    },
    /// `slot == value`, the commonest test, as one node.
    SlotEq(u32, Val),
    /// `slot != value`.
    SlotNe(u32, Val),
    /// A bound variable (parameter, quantifier, loop, player).
    Var(u32),
    /// A definition without parameters, computed once per state.
    Memo(u32),
    /// Arithmetic negation.
    Neg(Box<Ex>, u32),
    /// Absolute value.
    Abs(Box<Ex>, u32),
    /// Boolean negation.
    Not(Box<Ex>),
    /// Checked arithmetic.
    Arith(Arith, Box<Ex>, Box<Ex>, u32),
    /// A comparison.
    Cmp(Cmp, Box<Ex>, Box<Ex>),
    /// Short-circuit and.
    And(Box<Ex>, Box<Ex>),
    /// Short-circuit or.
    Or(Box<Ex>, Box<Ex>),
    /// `if c then a else b`.
    If(Box<Ex>, Box<Ex>, Box<Ex>),
    /// A quantifier or aggregate over `lo..=hi`, binding `var`.
    Quant {
        /// Which one.
        q: Quant,
        /// The bound variable.
        var: u32,
        /// First value.
        lo: Box<Ex>,
        /// Last value.
        hi: Box<Ex>,
        /// The body.
        body: Box<Ex>,
        /// Failure site of an overflowing sum.
        site: u32,
    },
    /// The next value of a named set, cyclically; `none` stays `none`.
    Next {
        /// Id of the set's first value.
        base: Val,
        /// How many values the set has.
        len: Val,
        /// The value.
        arg: Box<Ex>,
    },
}

/// What a compiled rule evaluates against: the state's slots, the bound
/// variables and the per-state cache of parameterless definitions.
pub struct Cx<'a> {
    /// One value per track element.
    pub slots: Vec<Val>,
    /// One value per variable.
    pub vars: Vec<Val>,
    /// Bodies of the memoised definitions.
    pub memos: &'a [Ex],
    /// Cached values of the memoised definitions, valid when `memo_ok`.
    pub memo_val: Vec<Val>,
    /// Which cached values are valid for the current slots.
    pub memo_ok: Vec<bool>,
    /// False while a consequence runs (the state changes under it).
    pub memo_on: bool,
    /// Loop steps the rule being evaluated may still take.
    pub steps: u64,
    /// Raised to ask evaluations in progress to end at once (see
    /// [`model::Game::interrupt_on`]).
    pub stop: Option<&'a AtomicBool>,
}

/// Most loop steps (iterations of `for`, quantifiers and aggregates) one
/// evaluation of a rule may take: a condition, an outcome rule, or a
/// decision tuple's consequences with all their chance branches. Beyond, the
/// rule fails at [`STEPS_SITE`] (issue 20, item 7).
pub const MAX_STEPS: u64 = 10_000_000;

/// How many loop steps pass between two looks at the stop flag.
const STOP_EVERY: u64 = 1 << 10;

/// The failure site of a rule that took more than [`MAX_STEPS`] loop steps.
pub const STEPS_SITE: u32 = u32::MAX - 2;

/// The failure site of an evaluation ended by the stop flag; its result is
/// meaningless and whoever raised the flag discards it.
pub const STOP_SITE: u32 = u32::MAX - 3;

impl<'a> Cx<'a> {
    /// A context for `slots` values and `vars` variables.
    pub fn new(memos: &'a [Ex], slots: usize, vars: usize) -> Cx<'a> {
        Cx {
            slots: vec![0; slots],
            vars: vec![0; vars],
            memos,
            memo_val: vec![0; memos.len()],
            memo_ok: vec![false; memos.len()],
            memo_on: true,
            steps: MAX_STEPS,
            stop: None,
        }
    }

    /// Gives the next rule its own budget of [`MAX_STEPS`] loop steps.
    pub fn budget(&mut self) {
        self.steps = MAX_STEPS;
    }

    /// Counts one loop step; fails when the rule's budget is spent or a
    /// stop was asked for.
    #[inline]
    pub fn step(&mut self) -> Result<(), Fault> {
        self.steps = self
            .steps
            .checked_sub(1)
            .ok_or(Fault { site: STEPS_SITE })?;
        if self.steps.is_multiple_of(STOP_EVERY)
            && self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
        {
            return Err(Fault { site: STOP_SITE });
        }
        Ok(())
    }

    /// Forgets the cached definitions (the slots changed).
    pub fn reset_memo(&mut self) {
        self.memo_ok.iter_mut().for_each(|ok| *ok = false);
    }
}

fn overflow<T>(value: Option<T>, site: u32) -> Result<T, Fault> {
    value.ok_or(Fault { site })
}

impl Ex {
    /// The value of the expression; recursion is bounded by the nesting the
    /// parser and the inliner accept.
    pub fn eval(&self, cx: &mut Cx) -> Result<Val, Fault> {
        Ok(match self {
            Ex::K(v) => *v,
            Ex::Slot(s) => cx.slots.get(*s as usize).copied().unwrap_or(0),
            Ex::Elem {
                base,
                lo,
                len,
                index,
                site,
            } => {
                let offset = index.eval(cx)?.checked_sub(*lo).unwrap_or(-1);
                if offset < 0 || offset >= Val::from(*len) {
                    return Err(Fault { site: *site });
                }
                let slot = *base as usize + offset as usize;
                cx.slots.get(slot).copied().unwrap_or(0)
            }
            Ex::SlotEq(s, k) => Val::from(cx.slots.get(*s as usize) == Some(k)),
            Ex::SlotNe(s, k) => Val::from(cx.slots.get(*s as usize) != Some(k)),
            Ex::Var(v) => cx.vars.get(*v as usize).copied().unwrap_or(0),
            Ex::Memo(m) => return memo(*m as usize, cx),
            Ex::Neg(e, site) => overflow(e.eval(cx)?.checked_neg(), *site)?,
            Ex::Abs(e, site) => overflow(e.eval(cx)?.checked_abs(), *site)?,
            Ex::Not(e) => Val::from(e.eval(cx)? == 0),
            Ex::Arith(op, a, b, site) => arith(*op, a.eval(cx)?, b.eval(cx)?, *site)?,
            Ex::Cmp(op, a, b) => {
                let (a, b) = (a.eval(cx)?, b.eval(cx)?);
                Val::from(match op {
                    Cmp::Eq => a == b,
                    Cmp::Ne => a != b,
                    Cmp::Lt => a < b,
                    Cmp::Le => a <= b,
                    Cmp::Gt => a > b,
                    Cmp::Ge => a >= b,
                })
            }
            Ex::And(a, b) => Val::from(a.eval(cx)? != 0 && b.eval(cx)? != 0),
            Ex::Or(a, b) => Val::from(a.eval(cx)? != 0 || b.eval(cx)? != 0),
            Ex::If(c, a, b) => {
                if c.eval(cx)? != 0 {
                    a.eval(cx)?
                } else {
                    b.eval(cx)?
                }
            }
            Ex::Quant {
                q,
                var,
                lo,
                hi,
                body,
                site,
            } => quant(*q, *var, lo, hi, body, *site, cx)?,
            Ex::Next { base, len, arg } => {
                let v = arg.eval(cx)?;
                if v == NONE || *len <= 0 {
                    v
                } else {
                    (v - base + 1).rem_euclid(*len) + base
                }
            }
        })
    }
}

fn memo(m: usize, cx: &mut Cx) -> Result<Val, Fault> {
    if cx.memo_on && cx.memo_ok.get(m) == Some(&true) {
        return Ok(cx.memo_val[m]);
    }
    let memos = cx.memos;
    let Some(body) = memos.get(m) else {
        return Ok(0);
    };
    let value = body.eval(cx)?;
    if cx.memo_on {
        cx.memo_val[m] = value;
        cx.memo_ok[m] = true;
    }
    Ok(value)
}

/// Checked arithmetic; division and remainder are Euclidean (the remainder
/// is never negative) and fail on a zero divisor.
pub fn arith(op: Arith, a: Val, b: Val, site: u32) -> Result<Val, Fault> {
    overflow(
        match op {
            Arith::Add => a.checked_add(b),
            Arith::Sub => a.checked_sub(b),
            Arith::Mul => a.checked_mul(b),
            Arith::Div => a.checked_div_euclid(b),
            Arith::Mod => a.checked_rem_euclid(b),
            Arith::Min => Some(a.min(b)),
            Arith::Max => Some(a.max(b)),
        },
        site,
    )
}

fn quant(
    q: Quant,
    var: u32,
    lo: &Ex,
    hi: &Ex,
    body: &Ex,
    site: u32,
    cx: &mut Cx,
) -> Result<Val, Fault> {
    let (lo, hi) = (lo.eval(cx)?, hi.eval(cx)?);
    let mut total: Val = 0;
    for i in lo..=hi {
        cx.step()?;
        if let Some(slot) = cx.vars.get_mut(var as usize) {
            *slot = i;
        }
        let v = body.eval(cx)?;
        match q {
            Quant::Any if v != 0 => return Ok(1),
            Quant::All if v == 0 => return Ok(0),
            Quant::Sum => total = overflow(total.checked_add(v), site)?,
            Quant::Count => total += Val::from(v != 0),
            _ => {}
        }
    }
    Ok(match q {
        Quant::Any => 0,
        Quant::All => 1,
        _ => total,
    })
}

/// The set of values a track element takes, and its packing as an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dom {
    /// `lo..=lo+size-1`.
    Int {
        /// Smallest value.
        lo: Val,
        /// How many values.
        size: u64,
    },
    /// `false`, `true`.
    Bool,
    /// `len` named values with ids `base..base+len`, plus `none` first when optional.
    Enum {
        /// Id of the first value.
        base: Val,
        /// How many named values.
        len: Val,
        /// Whether `none` is a value too.
        opt: bool,
    },
}

impl Dom {
    /// How many values the set has.
    pub fn size(self) -> u64 {
        match self {
            Dom::Int { size, .. } => size,
            Dom::Bool => 2,
            Dom::Enum { len, opt, .. } => len as u64 + u64::from(opt),
        }
    }

    /// The packed index of `v`, or `None` when `v` is not in the set.
    pub fn index(self, v: Val) -> Option<u64> {
        let i = match self {
            Dom::Int { lo, .. } => v.checked_sub(lo)?,
            Dom::Bool => v,
            Dom::Enum { opt: true, .. } if v == NONE => 0,
            Dom::Enum { base, opt, .. } => v.wrapping_sub(base).wrapping_add(Val::from(opt)),
        };
        (i >= 0 && (i as u64) < self.size()).then_some(i as u64)
    }

    /// The value packed as index `i` (assumed in range).
    pub fn value(self, i: u64) -> Val {
        match self {
            Dom::Int { lo, .. } => lo + i as Val,
            Dom::Bool => i as Val,
            Dom::Enum { opt: true, .. } if i == 0 => NONE,
            Dom::Enum { base, opt, .. } => base + i as Val - Val::from(opt),
        }
    }
}

/// Where an assignment writes.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// A scalar track or an element at a constant index.
    Slot(u32),
    /// An array element at a computed index.
    Elem {
        /// Slot of the element at index `lo`.
        base: u32,
        /// The array's first index.
        lo: Val,
        /// How many elements.
        len: u32,
        /// The index.
        index: Ex,
        /// Failure site of an index out of range.
        site: u32,
    },
}

/// A compiled statement.
#[derive(Clone, Debug, PartialEq)]
pub enum St {
    /// `target := value`, checked against the track's set at `site`.
    Set(Target, Ex, Dom, u32),
    /// `if`.
    If(Ex, Vec<St>, Vec<St>),
    /// `for var in lo..hi`.
    For(u32, Ex, Ex, Vec<St>),
    /// Weighted branches `(num, den, body)`, weights summing to one.
    Random(Vec<(u64, u64, Vec<St>)>),
    /// One branch per value of `values`, each with probability `1/len`.
    RandomIn(u32, Vec<Val>, Vec<St>),
}

impl Target {
    /// The slot written, after checking a computed index.
    pub fn slot(&self, cx: &mut Cx) -> Result<usize, Fault> {
        match self {
            Target::Slot(s) => Ok(*s as usize),
            Target::Elem {
                base,
                lo,
                len,
                index,
                site,
            } => {
                let offset = index.eval(cx)?.checked_sub(*lo).unwrap_or(-1);
                if offset < 0 || offset >= Val::from(*len) {
                    return Err(Fault { site: *site });
                }
                Ok(*base as usize + offset as usize)
            }
        }
    }
}

/// Runs an assignment: evaluates, checks the value's membership, writes.
pub fn assign(target: &Target, value: &Ex, dom: Dom, site: u32, cx: &mut Cx) -> Result<(), Fault> {
    let v = value.eval(cx)?;
    let slot = target.slot(cx)?;
    if dom.index(v).is_none() {
        return Err(Fault { site });
    }
    if let Some(s) = cx.slots.get_mut(slot) {
        *s = v;
    }
    Ok(())
}

/// Runs statements without `random` (checked by the compiler) in order.
pub fn run_plain(stmts: &[St], cx: &mut Cx) -> Result<(), Fault> {
    for st in stmts {
        match st {
            St::Set(target, value, dom, site) => assign(target, value, *dom, *site, cx)?,
            St::If(c, a, b) => run_plain(if c.eval(cx)? != 0 { a } else { b }, cx)?,
            St::For(var, lo, hi, body) => {
                let (lo, hi) = (lo.eval(cx)?, hi.eval(cx)?);
                for i in lo..=hi {
                    cx.step()?;
                    if let Some(slot) = cx.vars.get_mut(*var as usize) {
                        *slot = i;
                    }
                    run_plain(body, cx)?;
                }
            }
            // The compiler routes blocks with `random` to the branching runner.
            St::Random(_) | St::RandomIn(..) => {}
        }
    }
    Ok(())
}

/// True when `stmts` contain a `random` statement at any depth.
pub fn has_random(stmts: &[St]) -> bool {
    stmts.iter().any(|st| match st {
        St::Random(_) | St::RandomIn(..) => true,
        St::If(_, a, b) => has_random(a) || has_random(b),
        St::For(_, _, _, body) => has_random(body),
        St::Set(..) => false,
    })
}
