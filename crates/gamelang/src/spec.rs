//! Constant folding and specialisation: a decision's rules are compiled
//! once per (player, concrete decision) with the parameters and the
//! deciding player replaced by their values and folded, so that
//! `board[i] == none` for `place(4)` becomes a read of one slot.

use super::ast::Quant;
use super::ir::{Arith, Cmp, Cx, Ex, St, Target, Val};

/// Folds the outermost node of `ex` when its operands allow.
pub fn fold(ex: Ex) -> Ex {
    let k = |e: &Ex| match e {
        Ex::K(v) => Some(*v),
        _ => None,
    };
    match ex {
        // Only a constant left operand decides: a right one may still fail.
        Ex::And(a, b) => match k(&a) {
            Some(0) => Ex::K(0),
            Some(_) => *b,
            None => Ex::And(a, b),
        },
        Ex::Or(a, b) => match k(&a) {
            Some(0) => *b,
            Some(_) => Ex::K(1),
            None => Ex::Or(a, b),
        },
        Ex::If(c, a, b) => match k(&c) {
            Some(0) => *b,
            Some(_) => *a,
            None => Ex::If(c, a, b),
        },
        Ex::Elem {
            base,
            lo,
            len,
            index,
            site,
        } => match k(&index) {
            Some(v) if in_index(v, lo, len) => Ex::Slot(base + (v - lo) as u32),
            _ => Ex::Elem {
                base,
                lo,
                len,
                index,
                site,
            },
        },
        Ex::Cmp(op @ (Cmp::Eq | Cmp::Ne), a, b) => match (&*a, &*b) {
            (Ex::Slot(s), Ex::K(v)) | (Ex::K(v), Ex::Slot(s)) if op == Cmp::Eq => {
                Ex::SlotEq(*s, *v)
            }
            (Ex::Slot(s), Ex::K(v)) | (Ex::K(v), Ex::Slot(s)) => Ex::SlotNe(*s, *v),
            _ => fold_operands(Ex::Cmp(op, a, b)),
        },
        other => fold_operands(other),
    }
}

fn fold_operands(ex: Ex) -> Ex {
    let is_k = |e: &Ex| matches!(e, Ex::K(_));
    let constant = match &ex {
        Ex::Neg(a, _) | Ex::Abs(a, _) | Ex::Not(a) | Ex::Next { arg: a, .. } => is_k(a),
        Ex::Arith(_, a, b, _) | Ex::Cmp(_, a, b) => is_k(a) && is_k(b),
        _ => false,
    };
    if !constant {
        return ex;
    }
    let mut cx = Cx::new(&[], 0, 0);
    match ex.eval(&mut cx) {
        Ok(v) => Ex::K(v),
        Err(_) => ex,
    }
}

/// `ex` with the variables of `binds` replaced by their values, folded.
pub fn specialise(ex: &Ex, binds: &[(u32, Val)]) -> Ex {
    let s = |e: &Ex| Box::new(specialise(e, binds));
    let rebuilt = match ex {
        Ex::Var(v) => match binds.iter().find(|(var, _)| var == v) {
            Some((_, value)) => Ex::K(*value),
            None => Ex::Var(*v),
        },
        Ex::K(_) | Ex::Slot(_) | Ex::Memo(_) | Ex::SlotEq(..) | Ex::SlotNe(..) => ex.clone(),
        Ex::Elem {
            base,
            lo,
            len,
            index,
            site,
        } => Ex::Elem {
            base: *base,
            lo: *lo,
            len: *len,
            index: s(index),
            site: *site,
        },
        Ex::Neg(a, site) => Ex::Neg(s(a), *site),
        Ex::Abs(a, site) => Ex::Abs(s(a), *site),
        Ex::Not(a) => Ex::Not(s(a)),
        Ex::Arith(op, a, b, site) => Ex::Arith(*op, s(a), s(b), *site),
        Ex::Cmp(op, a, b) => Ex::Cmp(*op, s(a), s(b)),
        Ex::And(a, b) => Ex::And(s(a), s(b)),
        Ex::Or(a, b) => Ex::Or(s(a), s(b)),
        Ex::If(c, a, b) => Ex::If(s(c), s(a), s(b)),
        Ex::Quant {
            q,
            var,
            lo,
            hi,
            body,
            site,
        } if unrollable(lo, hi, binds).is_some() => {
            let (a, b) = unrollable(lo, hi, binds).unwrap_or((1, 0));
            let quant = (*q, *var, *site);
            match unroll(quant, a, b, body, binds) {
                Some(ex) => ex,
                None => Ex::Quant {
                    q: *q,
                    var: *var,
                    lo: Box::new(Ex::K(a)),
                    hi: Box::new(Ex::K(b)),
                    body: s(body),
                    site: *site,
                },
            }
        }
        Ex::Quant {
            q,
            var,
            lo,
            hi,
            body,
            site,
        } => Ex::Quant {
            q: *q,
            var: *var,
            lo: s(lo),
            hi: s(hi),
            body: s(body),
            site: *site,
        },
        Ex::Next { base, len, arg } => Ex::Next {
            base: *base,
            len: *len,
            arg: s(arg),
        },
    };
    fold(rebuilt)
}

/// Most values a quantifier may range over to be unrolled.
const UNROLL_VALUES: Val = 64;
/// Largest unrolled expression kept (in nodes); beyond, the loop stays.
const UNROLL_NODES: usize = 4096;

/// The constant bounds of a quantifier small enough to unroll.
fn unrollable(lo: &Ex, hi: &Ex, binds: &[(u32, Val)]) -> Option<(Val, Val)> {
    match (specialise(lo, binds), specialise(hi, binds)) {
        (Ex::K(a), Ex::K(b)) if b.saturating_sub(a) < UNROLL_VALUES => Some((a, b)),
        _ => None,
    }
}

/// A quantifier over the constants `a..=b` written out as a chain of its
/// bodies, each specialised to its value: conditions that do not depend on
/// the state (`i + j + k == 15`) fold away. The chain keeps the loop's
/// order and short-circuits, so it fails exactly when the loop would.
fn unroll(quant: (Quant, u32, u32), a: Val, b: Val, body: &Ex, binds: &[(u32, Val)]) -> Option<Ex> {
    let (q, var, site) = quant;
    let mut with = binds.to_vec();
    with.push((var, 0));
    let mut acc: Option<Ex> = None;
    let mut nodes = 0;
    for v in a..=b {
        if let Some(last) = with.last_mut() {
            *last = (var, v);
        }
        let mut term = specialise(body, &with);
        if q == Quant::Count {
            term = fold(Ex::If(
                Box::new(term),
                Box::new(Ex::K(1)),
                Box::new(Ex::K(0)),
            ));
        }
        nodes += size(&term);
        if nodes > UNROLL_NODES {
            return None;
        }
        match (q, &term) {
            (Quant::Any, Ex::K(0)) | (Quant::All, Ex::K(1)) => continue,
            (Quant::Any, Ex::K(_)) if acc.is_none() => return Some(Ex::K(1)),
            (Quant::All, Ex::K(0)) if acc.is_none() => return Some(Ex::K(0)),
            _ => {}
        }
        // A constant true (any) or false (all) ends the loop here.
        let last = matches!((q, &term), (Quant::Any, Ex::K(v)) if *v != 0)
            || matches!((q, &term), (Quant::All, Ex::K(0)));
        acc = Some(match acc {
            None => term,
            Some(prev) => fold(match q {
                Quant::Any => Ex::Or(Box::new(prev), Box::new(term)),
                Quant::All => Ex::And(Box::new(prev), Box::new(term)),
                Quant::Sum | Quant::Count => {
                    Ex::Arith(Arith::Add, Box::new(prev), Box::new(term), site)
                }
            }),
        });
        if last {
            break;
        }
    }
    Some(acc.unwrap_or(match q {
        Quant::All => Ex::K(1),
        _ => Ex::K(0),
    }))
}

/// How many nodes an expression has.
fn size(ex: &Ex) -> usize {
    match ex {
        Ex::K(_) | Ex::Slot(_) | Ex::SlotEq(..) | Ex::SlotNe(..) | Ex::Var(_) | Ex::Memo(_) => 1,
        Ex::Neg(a, _) | Ex::Abs(a, _) | Ex::Not(a) | Ex::Next { arg: a, .. } => 1 + size(a),
        Ex::Elem { index, .. } => 1 + size(index),
        Ex::Arith(_, a, b, _) | Ex::Cmp(_, a, b) | Ex::And(a, b) | Ex::Or(a, b) => {
            1 + size(a) + size(b)
        }
        Ex::If(c, a, b) => 1 + size(c) + size(a) + size(b),
        Ex::Quant { lo, hi, body, .. } => 1 + size(lo) + size(hi) + size(body),
    }
}

/// Statements with the variables of `binds` replaced by their values.
pub fn specialise_block(stmts: &[St], binds: &[(u32, Val)]) -> Vec<St> {
    stmts.iter().map(|st| specialise_stmt(st, binds)).collect()
}

fn specialise_stmt(st: &St, binds: &[(u32, Val)]) -> St {
    match st {
        St::Set(target, value, dom, site) => {
            let target = match target {
                Target::Slot(s) => Target::Slot(*s),
                Target::Elem {
                    base,
                    lo,
                    len,
                    index,
                    site,
                } => match specialise(index, binds) {
                    Ex::K(v) if in_index(v, *lo, *len) => Target::Slot(base + (v - lo) as u32),
                    index => Target::Elem {
                        base: *base,
                        lo: *lo,
                        len: *len,
                        index,
                        site: *site,
                    },
                },
            };
            St::Set(target, specialise(value, binds), *dom, *site)
        }
        St::If(c, a, b) => match specialise(c, binds) {
            Ex::K(0) => St::If(Ex::K(1), specialise_block(b, binds), Vec::new()),
            Ex::K(_) => St::If(Ex::K(1), specialise_block(a, binds), Vec::new()),
            c => St::If(c, specialise_block(a, binds), specialise_block(b, binds)),
        },
        St::For(var, lo, hi, body) => St::For(
            *var,
            specialise(lo, binds),
            specialise(hi, binds),
            specialise_block(body, binds),
        ),
        St::Random(branches) => St::Random(
            branches
                .iter()
                .map(|(n, d, body)| (*n, *d, specialise_block(body, binds)))
                .collect(),
        ),
        St::RandomIn(var, values, body) => {
            St::RandomIn(*var, values.clone(), specialise_block(body, binds))
        }
    }
}

/// The failure site of an operation on constants left unfolded because it
/// fails (a division by zero, an overflow), if `ex` contains one that is
/// not discarded by a constant condition.
pub fn failing_constant(ex: &Ex) -> Option<u32> {
    let k = |e: &Ex| matches!(e, Ex::K(_));
    match ex {
        Ex::Neg(a, site) | Ex::Abs(a, site) if k(a) => Some(*site),
        Ex::Arith(_, a, b, site) if k(a) && k(b) => Some(*site),
        Ex::K(_) | Ex::Slot(_) | Ex::SlotEq(..) | Ex::SlotNe(..) | Ex::Var(_) | Ex::Memo(_) => None,
        Ex::Neg(a, _) | Ex::Abs(a, _) | Ex::Not(a) | Ex::Next { arg: a, .. } => failing_constant(a),
        Ex::Elem { index, .. } => failing_constant(index),
        Ex::Arith(_, a, b, _) | Ex::Cmp(_, a, b) | Ex::And(a, b) | Ex::Or(a, b) => {
            failing_constant(a).or_else(|| failing_constant(b))
        }
        Ex::If(c, a, b) => failing_constant(c)
            .or_else(|| failing_constant(a))
            .or_else(|| failing_constant(b)),
        Ex::Quant { lo, hi, body, .. } => failing_constant(lo)
            .or_else(|| failing_constant(hi))
            .or_else(|| failing_constant(body)),
    }
}

/// [`failing_constant`] over statements.
pub fn failing_constant_in(stmts: &[St]) -> Option<u32> {
    stmts.iter().find_map(|st| match st {
        St::Set(target, value, _, _) => {
            let index = match target {
                Target::Elem { index, .. } => failing_constant(index),
                Target::Slot(_) => None,
            };
            index.or_else(|| failing_constant(value))
        }
        St::If(c, a, b) => failing_constant(c)
            .or_else(|| failing_constant_in(a))
            .or_else(|| failing_constant_in(b)),
        St::For(_, lo, hi, body) => failing_constant(lo)
            .or_else(|| failing_constant(hi))
            .or_else(|| failing_constant_in(body)),
        St::Random(branches) => branches.iter().find_map(|(_, _, b)| failing_constant_in(b)),
        St::RandomIn(_, _, body) => failing_constant_in(body),
    })
}

/// True when `v` is one of the `len` indices from `lo` (without overflow,
/// whatever the magnitudes).
fn in_index(v: Val, lo: Val, len: u32) -> bool {
    v.checked_sub(lo)
        .is_some_and(|offset| (0..Val::from(len)).contains(&offset))
}
