//! Runs consequences that draw at random: every `random` forks the run, so
//! one decision tuple yields a list of (probability, resulting state)
//! branches. The run is an explicit stack machine (no recursion), and
//! players' consequences in a tuple compose in player order.

use model::ratio::reduce;

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use super::ir::{self, Cx, Ex, Fault, St, Val, MAX_STEPS};

/// The failure site reported when a probability's denominator outgrows 32 bits.
pub const PROB_SITE: u32 = u32::MAX;

/// The failure site reported when a tuple branches more than [`MAX_BRANCHES`] ways.
pub const BRANCH_SITE: u32 = u32::MAX - 1;

/// Most branches one decision tuple may have; beyond, the whole tuple is a
/// rule error (so that `random` in long loops cannot exhaust memory).
pub const MAX_BRANCHES: usize = 1 << 16;

/// Most values (slots, variables and frames) all the branches of one tuple
/// may hold at once: 64 MiB, so that a game with thousands of tracks
/// reaches its rule error before [`MAX_BRANCHES`] exhausts memory.
pub const MAX_BRANCH_WORDS: usize = 1 << 23;

/// Most frames a branch holds: two per level of blocks, which nest at most
/// 100 deep.
const MAX_FRAMES: usize = 256;

/// How many branches a tuple may surely reach in a game with `slots` track
/// elements and `vars` variables without failing at [`MAX_BRANCHES`] or
/// [`MAX_BRANCH_WORDS`] (the checker's bound for its `rule error` outcome).
pub fn safe_branches(slots: usize, vars: usize) -> usize {
    MAX_BRANCHES.min(MAX_BRANCH_WORDS / (slots + vars + 8 + MAX_FRAMES))
}

/// One consequence of a decision tuple.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Probability numerator.
    pub num: u128,
    /// Probability denominator.
    pub den: u128,
    /// The resulting slots, or the rule that failed on this branch.
    pub result: Result<Vec<Val>, Fault>,
}

/// One player's part of a tuple: a consequence and its variables' values.
pub struct Part<'a> {
    /// The consequence.
    pub body: &'a [St],
    /// `(variable, value)` bindings: parameters and the deciding player.
    pub binds: Vec<(u32, Val)>,
}

#[derive(Clone, Copy)]
enum Frame<'a> {
    Seq(&'a [St], usize),
    Loop {
        var: u32,
        next: Val,
        hi: Val,
        body: &'a [St],
    },
}

struct Work<'a> {
    /// Set when the branch's probability outgrew 32 bits; it then ends at once.
    too_fine: bool,
    num: u128,
    den: u128,
    slots: Vec<Val>,
    vars: Vec<Val>,
    frames: Vec<Frame<'a>>,
    /// Loop steps this branch may still take.
    steps: u64,
}

/// Runs `parts` in order on `start`, returning every branch with equal
/// resulting states merged, in the order they first appear; `stop` ends the
/// run early (see [`ir::STOP_SITE`]).
pub fn run_tuple(
    memos: &[Ex],
    vars: usize,
    start: &[Val],
    parts: &[Part],
    stop: Option<&AtomicBool>,
) -> Vec<Outcome> {
    let mut dist = vec![Outcome {
        num: 1,
        den: 1,
        result: Ok(start.to_vec()),
    }];
    for part in parts {
        let mut next = Vec::new();
        for o in dist {
            match o.result {
                Ok(slots) => {
                    let mut v = vec![0; vars];
                    for &(var, value) in &part.binds {
                        if let Some(x) = v.get_mut(var as usize) {
                            *x = value;
                        }
                    }
                    let prob = (o.num, o.den);
                    if !run_body(memos, part.body, (slots, v), prob, stop, &mut next) {
                        return vec![Outcome {
                            num: 1,
                            den: 1,
                            result: Err(Fault { site: BRANCH_SITE }),
                        }];
                    }
                }
                Err(_) => next.push(o),
            }
        }
        dist = next;
    }
    merge(dist)
}

fn merge(dist: Vec<Outcome>) -> Vec<Outcome> {
    let mut merged: Vec<Outcome> = Vec::with_capacity(dist.len());
    // Each branch is looked up once: tens of thousands of branches would
    // otherwise be compared pairwise.
    let mut first: HashMap<Result<Vec<Val>, Fault>, usize> = HashMap::new();
    for o in dist {
        match first.get(&o.result).and_then(|&i| merged.get_mut(i)) {
            Some(m) => {
                let num = (m.num.checked_mul(o.den))
                    .and_then(|a| o.num.checked_mul(m.den).and_then(|b| a.checked_add(b)));
                match (num, m.den.checked_mul(o.den)) {
                    (Some(n), Some(d)) => (m.num, m.den) = reduce(n, d),
                    _ => m.result = Err(Fault { site: PROB_SITE }),
                }
            }
            None => {
                first.insert(o.result.clone(), merged.len());
                merged.push(o);
            }
        }
    }
    for m in &mut merged {
        if m.den > u128::from(u32::MAX) {
            m.result = Err(Fault { site: PROB_SITE });
        }
    }
    merged
}

/// What one step of the machine did.
enum Step {
    Go,
    Done,
    Forked,
    Failed(Fault),
}

/// Runs one consequence from one state (its slots and variables), appending
/// its branches to `out`; false when the branches outnumber
/// [`MAX_BRANCHES`] or hold more than [`MAX_BRANCH_WORDS`] values. Each
/// branch may take [`MAX_STEPS`] loop steps from the start of the
/// consequence (a fork inherits what its parent has left).
fn run_body(
    memos: &[Ex],
    body: &[St],
    (slots, vars): (Vec<Val>, Vec<Val>),
    prob: (u128, u128),
    stop: Option<&AtomicBool>,
    out: &mut Vec<Outcome>,
) -> bool {
    let words = slots.len() + vars.len() + 8;
    let mut work = vec![Work {
        too_fine: false,
        num: prob.0,
        den: prob.1,
        slots,
        vars,
        frames: vec![Frame::Seq(body, 0)],
        steps: MAX_STEPS,
    }];
    while let Some(mut w) = work.pop() {
        let branches = out.len() + work.len();
        if branches > MAX_BRANCHES || branches * (words + w.frames.len()) > MAX_BRANCH_WORDS {
            return false;
        }
        if w.too_fine {
            let fault = Err(Fault { site: PROB_SITE });
            out.push(Outcome {
                num: w.num,
                den: w.den,
                result: fault,
            });
            continue;
        }
        let mut cx = Cx {
            slots: std::mem::take(&mut w.slots),
            vars: std::mem::take(&mut w.vars),
            memos,
            memo_val: Vec::new(),
            memo_ok: Vec::new(),
            memo_on: false,
            steps: w.steps,
            stop,
        };
        let end = loop {
            match step(&mut w, &mut cx, &mut work) {
                Step::Go => {}
                other => break other,
            }
        };
        let (num, den) = (w.num, w.den);
        match end {
            Step::Done => out.push(Outcome {
                num,
                den,
                result: Ok(cx.slots),
            }),
            Step::Failed(f) => out.push(Outcome {
                num,
                den,
                result: Err(f),
            }),
            _ => {}
        }
    }
    true
}

fn step<'a>(w: &mut Work<'a>, cx: &mut Cx, work: &mut Vec<Work<'a>>) -> Step {
    let Some(frame) = w.frames.pop() else {
        return Step::Done;
    };
    let (stmts, pc) = match frame {
        Frame::Loop {
            var,
            next,
            hi,
            body,
        } => {
            if next <= hi {
                if let Err(f) = cx.step() {
                    return Step::Failed(f);
                }
                // At the largest integer the loop simply ends after this pass.
                if let Some(after) = next.checked_add(1) {
                    w.frames.push(Frame::Loop {
                        var,
                        next: after,
                        hi,
                        body,
                    });
                }
                set_var(cx, var, next);
                w.frames.push(Frame::Seq(body, 0));
            }
            return Step::Go;
        }
        Frame::Seq(stmts, pc) => (stmts, pc),
    };
    let Some(st) = stmts.get(pc) else {
        return Step::Go;
    };
    w.frames.push(Frame::Seq(stmts, pc + 1));
    let outcome = match st {
        St::Set(target, value, dom, site) => ir::assign(target, value, *dom, *site, cx),
        St::If(c, a, b) => c
            .eval(cx)
            .map(|v| w.frames.push(Frame::Seq(if v != 0 { a } else { b }, 0))),
        St::For(var, lo, hi, body) => lo.eval(cx).and_then(|lo| {
            let hi = hi.eval(cx)?;
            w.frames.push(Frame::Loop {
                var: *var,
                next: lo,
                hi,
                body,
            });
            Ok(())
        }),
        St::Random(branches) => {
            for (n, d, body) in branches.iter().rev() {
                fork(w, cx, work, (u128::from(*n), u128::from(*d)), None, body);
            }
            return Step::Forked;
        }
        St::RandomIn(var, values, body) => {
            let n = values.len() as u128;
            for v in values.iter().rev() {
                fork(w, cx, work, (1, n), Some((*var, *v)), body);
            }
            return Step::Forked;
        }
    };
    match outcome {
        Ok(()) => Step::Go,
        Err(f) => Step::Failed(f),
    }
}

fn set_var(cx: &mut Cx, var: u32, value: Val) {
    if let Some(x) = cx.vars.get_mut(var as usize) {
        *x = value;
    }
}

/// Queues a branch: the current run continued by `body` first.
fn fork<'a>(
    w: &Work<'a>,
    cx: &Cx,
    work: &mut Vec<Work<'a>>,
    p: (u128, u128),
    bind: Option<(u32, Val)>,
    body: &'a [St],
) {
    let (num, den) = reduce(w.num * p.0, w.den * p.1);
    let too_fine = den > u128::from(u32::MAX);
    let mut frames = w.frames.clone();
    frames.push(Frame::Seq(body, 0));
    let mut vars = cx.vars.clone();
    if let Some((var, value)) = bind {
        if let Some(x) = vars.get_mut(var as usize) {
            *x = value;
        }
    }
    work.push(Work {
        too_fine,
        num,
        den,
        slots: cx.slots.clone(),
        vars,
        frames,
        steps: cx.steps,
    });
}
