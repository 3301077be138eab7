//! Type checking and compilation of expressions: resolves names, inlines
//! definitions (refusing cycles), folds constants, and tracks an interval
//! for every integer so that index, value and overflow checks that can
//! never fail do not count as possible rule errors.

use super::ast::{self, BinOp, ExprKind, Quant};
use super::check::{Checker, Local, Span, Sym, Ty, Typed};
use super::diag::{Diag, Pos};
use super::ir::{Arith, Cmp, Ex, Val, NONE};
use super::shape::MAX_EVAL_HEIGHT;

/// Bounds that say nothing.
pub const ANY: Span = (-(1 << 100), 1 << 100);
/// Largest magnitude an evaluated integer may reach without overflow.
const SAFE: i128 = 1 << 62;

fn typed(ex: Ex, ty: Ty, span: Span) -> Typed {
    Typed { ex, ty, span }
}

fn clamp(span: Span) -> Span {
    (span.0.max(ANY.0), span.1.min(ANY.1))
}

fn boolean(ex: Ex) -> Typed {
    typed(ex, Ty::Bool, (0, 1))
}

impl Checker<'_> {
    /// Compiles `e` and requires type `want`.
    pub fn expr_of(&mut self, e: &ast::Expr, want: Ty) -> Result<Typed, Diag> {
        let t = self.expr(e)?;
        if t.ty != want {
            return Err(Diag::new(
                e.pos,
                format!(
                    "expected {}, found {}",
                    self.ty_name(want),
                    self.ty_name(t.ty)
                ),
            ));
        }
        Ok(t)
    }

    /// Compiles `e` to a constant integer.
    pub fn const_int(&mut self, e: &ast::Expr) -> Result<Val, Diag> {
        match self.expr_of(e, Ty::Int)?.ex {
            Ex::K(v) => Ok(v),
            ex => Err(self.not_constant(e.pos, &ex, "expected a constant integer")),
        }
    }

    /// Compiles `e` to a constant of any type.
    pub fn const_any(&mut self, e: &ast::Expr) -> Result<(Val, Ty), Diag> {
        let t = self.expr(e)?;
        match t.ex {
            Ex::K(v) => Ok((v, t.ty)),
            ex => Err(self.not_constant(e.pos, &ex, "expected a constant value")),
        }
    }

    /// The error for code that should have folded to a constant: the
    /// failing constant operation if there is one, else `message` at `pos`.
    fn not_constant(&self, pos: Pos, ex: &Ex, message: &str) -> Diag {
        match super::spec::failing_constant(ex) {
            Some(site) => self.constant_failure(site),
            None => Diag::new(pos, message.to_string()),
        }
    }

    /// The error for a constant operation that always fails, at its site.
    pub fn constant_failure(&self, site: u32) -> Diag {
        let pos = self
            .rules
            .sites
            .get(site as usize)
            .map_or(Pos::default(), |s| s.0);
        Diag::new(
            pos,
            "this constant arithmetic fails (division by zero or overflow)".to_string(),
        )
    }

    /// Compiles an expression, refusing one nested deeper than
    /// [`MAX_EVAL_HEIGHT`] once definitions are inlined.
    pub fn expr(&mut self, e: &ast::Expr) -> Result<Typed, Diag> {
        if self.depth >= MAX_EVAL_HEIGHT {
            return Err(too_deep(e.pos));
        }
        self.depth += 1;
        let result = self.expr_here(e);
        self.depth -= 1;
        // The whole rule is measured once, memoised definitions included.
        if self.depth == 0 {
            return self.bounded(e.pos, result?);
        }
        result
    }

    /// `t`, or an error at `pos` when evaluating it would recurse deeper
    /// than [`MAX_EVAL_HEIGHT`] (inlined arguments and memoised definitions
    /// included).
    pub fn bounded(&self, pos: Pos, t: Typed) -> Result<Typed, Diag> {
        if t.ex.height(&self.memo_heights) > MAX_EVAL_HEIGHT {
            return Err(too_deep(pos));
        }
        Ok(t)
    }

    fn expr_here(&mut self, e: &ast::Expr) -> Result<Typed, Diag> {
        let pos = e.pos;
        Ok(match &e.kind {
            ExprKind::Int(n) => typed(Ex::K(*n), Ty::Int, (*n as i128, *n as i128)),
            ExprKind::Bool(b) => boolean(Ex::K(Val::from(*b))),
            ExprKind::None => typed(Ex::K(NONE), Ty::NoneLit, (-1, -1)),
            ExprKind::Name(name) => self.name(pos, name)?,
            ExprKind::Index(name, index) => self.index(name, index)?,
            ExprKind::Call(name, args) => self.call(name, args)?,
            ExprKind::Neg(inner) => {
                let t = self.expr_of(inner, Ty::Int)?;
                let span = (-t.span.1, -t.span.0);
                let site = self.overflow_site(pos, span);
                fold(typed(Ex::Neg(Box::new(t.ex), site), Ty::Int, span))
            }
            ExprKind::Not(inner) => {
                let t = self.expr_of(inner, Ty::Bool)?;
                fold(boolean(Ex::Not(Box::new(t.ex))))
            }
            ExprKind::Binary(op, a, b) => self.binary(pos, *op, a, b)?,
            ExprKind::If(c, a, b) => self.if_expr(c, a, b)?,
            ExprKind::Quant(q, bindings, body) => self.quant(pos, *q, bindings, body)?,
            ExprKind::In(value, list) => self.in_list(pos, value, list)?,
        })
    }

    fn name(&mut self, pos: Pos, name: &str) -> Result<Typed, Diag> {
        if let Some(local) = self.lookup_local(name) {
            return Ok(match local {
                Local::Var(var, ty, span) => typed(Ex::Var(var), ty, span),
                Local::Param(ex, ty, span) => typed(ex, ty, span),
            });
        }
        match self.global(pos, name)? {
            Sym::Const(v, ty) => Ok(typed(Ex::K(v), ty, (v as i128, v as i128))),
            Sym::Track(t) => {
                let track = &self.rules.tracks[t];
                if track.index_labels.is_some() {
                    return Err(Diag::new(
                        pos,
                        format!("`{name}` is an array of tracks: write `{name}[index]`"),
                    ));
                }
                let ty = self.track_ty[t];
                Ok(typed(Ex::Slot(track.first_slot), ty, self.dom_span(t)))
            }
            Sym::Def(d) => self.use_def(pos, d, &[]),
            Sym::Type(_) => Err(Diag::new(
                pos,
                format!("`{name}` is a set of values, not a value"),
            )),
        }
    }

    fn index(&mut self, name: &ast::Name, index: &ast::Expr) -> Result<Typed, Diag> {
        let t = match self.global(name.pos, &name.text)? {
            Sym::Track(t) if self.rules.tracks[t].index_labels.is_some() => t,
            _ => {
                return Err(Diag::new(
                    name.pos,
                    format!("`{}` is not an array of tracks", name.text),
                ))
            }
        };
        let (lo, len, index_ty) = self.track_index[t];
        let i = self.expr_of(index, index_ty)?;
        let ty = self.track_ty[t];
        let span = self.dom_span(t);
        let base = self.rules.tracks[t].first_slot;
        if let Ex::K(v) = i.ex {
            let offset = i128::from(v) - i128::from(lo);
            if offset < 0 || offset >= i128::from(len) {
                return Err(Diag::new(
                    index.pos,
                    format!(
                        "index {} is outside the indices of `{}`",
                        self.show(v, index_ty),
                        name.text
                    ),
                ));
            }
            return Ok(typed(Ex::Slot(base + offset as u32), ty, span));
        }
        let fails = i.span.0 < lo as i128 || i.span.1 >= lo as i128 + len as i128;
        let site = self.site(
            index.pos,
            format!("index outside the indices of `{}`", name.text),
            fails,
        );
        let ex = Ex::Elem {
            base,
            lo,
            len,
            index: Box::new(i.ex),
            site,
        };
        Ok(typed(ex, ty, span))
    }

    fn call(&mut self, name: &ast::Name, args: &[ast::Expr]) -> Result<Typed, Diag> {
        let pos = name.pos;
        if self.lookup_local(&name.text).is_none() {
            if let Some(Sym::Def(d)) = self.globals.get(&name.text).cloned() {
                let mut compiled = Vec::new();
                for a in args {
                    compiled.push(self.expr(a)?);
                }
                return self.use_def(pos, d, &compiled);
            }
        }
        let arity = |n: usize| -> Result<(), Diag> {
            if args.len() == n {
                Ok(())
            } else {
                Err(Diag::new(
                    pos,
                    format!(
                        "`{}` takes {n} argument(s), {} given",
                        name.text,
                        args.len()
                    ),
                ))
            }
        };
        match name.text.as_str() {
            "next" => {
                arity(1)?;
                let t = self.expr(&args[0])?;
                let Ty::Enum(ty, _) = t.ty else {
                    return Err(Diag::new(
                        args[0].pos,
                        "`next` takes a player or a named value".to_string(),
                    ));
                };
                let (base, len) = self.types[ty].range();
                Ok(fold(typed(
                    Ex::Next {
                        base,
                        len,
                        arg: Box::new(t.ex),
                    },
                    t.ty,
                    t.span,
                )))
            }
            "min" | "max" => {
                arity(2)?;
                let op = if name.text == "min" {
                    Arith::Min
                } else {
                    Arith::Max
                };
                self.arith(pos, op, &args[0], &args[1])
            }
            "abs" => {
                arity(1)?;
                let t = self.expr_of(&args[0], Ty::Int)?;
                let m = t.span.0.abs().max(t.span.1.abs());
                let site = self.overflow_site(pos, (0, m));
                Ok(fold(typed(Ex::Abs(Box::new(t.ex), site), Ty::Int, (0, m))))
            }
            _ => Err(Diag::new(
                pos,
                format!(
                    "unknown definition `{}` (built-ins: next, min, max, abs)",
                    name.text
                ),
            )),
        }
    }

    fn binary(&mut self, pos: Pos, op: BinOp, a: &ast::Expr, b: &ast::Expr) -> Result<Typed, Diag> {
        let arith = |op| Ok::<_, Diag>(Some(op));
        let aop = match op {
            BinOp::Add => arith(Arith::Add)?,
            BinOp::Sub => arith(Arith::Sub)?,
            BinOp::Mul => arith(Arith::Mul)?,
            BinOp::Div => arith(Arith::Div)?,
            BinOp::Mod => arith(Arith::Mod)?,
            _ => None,
        };
        if let Some(aop) = aop {
            return self.arith(pos, aop, a, b);
        }
        match op {
            BinOp::And | BinOp::Or => {
                let x = self.expr_of(a, Ty::Bool)?;
                let y = self.expr_of(b, Ty::Bool)?;
                let ex = if op == BinOp::And {
                    Ex::And(Box::new(x.ex), Box::new(y.ex))
                } else {
                    Ex::Or(Box::new(x.ex), Box::new(y.ex))
                };
                Ok(fold(boolean(ex)))
            }
            BinOp::Eq | BinOp::Ne => {
                let (x, y) = (self.expr(a)?, self.expr(b)?);
                self.comparable(pos, x.ty, y.ty)?;
                let cmp = if op == BinOp::Eq { Cmp::Eq } else { Cmp::Ne };
                Ok(fold(boolean(Ex::Cmp(cmp, Box::new(x.ex), Box::new(y.ex)))))
            }
            _ => {
                let x = self.expr_of(a, Ty::Int)?;
                let y = self.expr_of(b, Ty::Int)?;
                let cmp = match op {
                    BinOp::Lt => Cmp::Lt,
                    BinOp::Le => Cmp::Le,
                    BinOp::Gt => Cmp::Gt,
                    _ => Cmp::Ge,
                };
                Ok(fold(boolean(Ex::Cmp(cmp, Box::new(x.ex), Box::new(y.ex)))))
            }
        }
    }

    /// Checks that values of types `a` and `b` can be compared for equality.
    pub fn comparable(&self, pos: Pos, a: Ty, b: Ty) -> Result<(), Diag> {
        let ok = match (a, b) {
            (Ty::Enum(x, _), Ty::Enum(y, _)) => x == y,
            (Ty::Enum(_, true), Ty::NoneLit) | (Ty::NoneLit, Ty::Enum(_, true)) => true,
            _ => a == b,
        };
        if ok {
            return Ok(());
        }
        Err(Diag::new(
            pos,
            format!(
                "cannot compare {} with {}",
                self.ty_name(a),
                self.ty_name(b)
            ),
        ))
    }

    fn arith(&mut self, pos: Pos, op: Arith, a: &ast::Expr, b: &ast::Expr) -> Result<Typed, Diag> {
        let x = self.expr_of(a, Ty::Int)?;
        let y = self.expr_of(b, Ty::Int)?;
        let (span, fails) = arith_span(op, x.span, y.span);
        let site = if fails {
            self.site(pos, "division by zero".to_string(), true)
        } else {
            self.overflow_site(pos, span)
        };
        let ex = Ex::Arith(op, Box::new(x.ex), Box::new(y.ex), site);
        let t = fold(typed(ex, Ty::Int, clamp(span)));
        Ok(t)
    }

    fn if_expr(&mut self, c: &ast::Expr, a: &ast::Expr, b: &ast::Expr) -> Result<Typed, Diag> {
        let c = self.expr_of(c, Ty::Bool)?;
        let (x, y) = (self.expr(a)?, self.expr(b)?);
        let ty = self.unify(a.pos, x.ty, y.ty)?;
        let span = (x.span.0.min(y.span.0), x.span.1.max(y.span.1));
        Ok(fold(typed(
            Ex::If(Box::new(c.ex), Box::new(x.ex), Box::new(y.ex)),
            ty,
            span,
        )))
    }

    /// The type of a value that is either of type `a` or of type `b`.
    pub fn unify(&self, pos: Pos, a: Ty, b: Ty) -> Result<Ty, Diag> {
        match (a, b) {
            (Ty::Enum(x, o), Ty::Enum(y, p)) if x == y => Ok(Ty::Enum(x, o || p)),
            (Ty::Enum(x, _), Ty::NoneLit) | (Ty::NoneLit, Ty::Enum(x, _)) => Ok(Ty::Enum(x, true)),
            _ if a == b => Ok(a),
            _ => Err(Diag::new(
                pos,
                format!(
                    "the branches have different types: {} and {}",
                    self.ty_name(a),
                    self.ty_name(b)
                ),
            )),
        }
    }

    fn quant(
        &mut self,
        pos: Pos,
        q: Quant,
        bindings: &[ast::Binding],
        body: &ast::Expr,
    ) -> Result<Typed, Diag> {
        let mark = self.locals.len();
        let mut vars = Vec::new();
        for b in bindings {
            let (lo, hi, ty, span) = self.range_binding(b)?;
            let var = self.new_var();
            self.locals
                .push((b.var.text.clone(), Local::Var(var, ty, span)));
            vars.push((var, lo, hi, span));
        }
        let want = if q == Quant::Sum { Ty::Int } else { Ty::Bool };
        let outer = self.loop_product;
        for (_, _, _, span) in &vars {
            self.enter_loop(super::check_steps::iterations(*span));
        }
        let body = self.expr_of(body, want);
        self.leave_loop(outer);
        self.locals.truncate(mark);
        let mut t = body?;
        // Nest inner bindings first; around an inner `count`, the outer
        // bindings sum the inner counts.
        let innermost = vars.len().saturating_sub(1);
        for (k, (var, lo, hi, span)) in vars.into_iter().enumerate().rev() {
            let this_q = if q == Quant::Count && k != innermost {
                Quant::Sum
            } else {
                q
            };
            let n = (span.1 - span.0 + 1).max(0);
            let out_span = match this_q {
                Quant::Any | Quant::All => (0, 1),
                Quant::Count => (0, n),
                Quant::Sum => (
                    t.span.0.saturating_mul(n).min(0),
                    t.span.1.saturating_mul(n).max(0),
                ),
            };
            let site = self.overflow_site(pos, out_span);
            let ty = if matches!(this_q, Quant::Any | Quant::All) {
                Ty::Bool
            } else {
                Ty::Int
            };
            let ex = Ex::Quant {
                q: this_q,
                var,
                lo: Box::new(lo),
                hi: Box::new(hi),
                body: Box::new(t.ex),
                site,
            };
            t = typed(ex, ty, clamp(out_span));
        }
        Ok(t)
    }

    /// A binding over a range or a named set: its bounds, type and span.
    pub fn range_binding(&mut self, b: &ast::Binding) -> Result<(Ex, Ex, Ty, Span), Diag> {
        match &b.set {
            ast::SetExpr::Range(lo, hi) => {
                let lo = self.expr_of(lo, Ty::Int)?;
                let hi = self.expr_of(hi, Ty::Int)?;
                let span = (lo.span.0, hi.span.1);
                Ok((lo.ex, hi.ex, Ty::Int, span))
            }
            _ => match self.named_type(&b.set) {
                Some(ty) => {
                    let (base, len) = self.types[ty].range();
                    let last = base + len - 1;
                    let span = (base as i128, last as i128);
                    Ok((Ex::K(base), Ex::K(last), Ty::Enum(ty, false), span))
                }
                None => Err(Diag::new(
                    b.var.pos,
                    "a quantifier or loop ranges over `lo..hi` or a named set".to_string(),
                )),
            },
        }
    }

    fn in_list(&mut self, pos: Pos, value: &ast::Expr, list: &[ast::Expr]) -> Result<Typed, Diag> {
        let v = self.expr(value)?;
        let mut tests = Vec::with_capacity(list.len());
        for item in list {
            let x = self.expr(item)?;
            self.comparable(item.pos, v.ty, x.ty)?;
            tests.push(Ex::Cmp(Cmp::Eq, Box::new(v.ex.clone()), Box::new(x.ex)));
        }
        // A balanced `or` keeps a set of thousands of elements shallow.
        let result = super::shape::balanced(tests, Ex::Or).unwrap_or(Ex::K(0));
        self.bounded(pos, boolean(result)).map(fold)
    }

    /// A failure site for a result of bounds `span`, failing when it may overflow.
    pub fn overflow_site(&mut self, pos: Pos, span: Span) -> u32 {
        let fails = span.0 < -SAFE || span.1 > SAFE;
        self.site(pos, "integer overflow".to_string(), fails)
    }
}

/// The error for an expression too deep to evaluate safely.
fn too_deep(pos: Pos) -> Diag {
    Diag::new(
        pos,
        format!(
            "this expression is more than {MAX_EVAL_HEIGHT} levels deep once definitions \
             are inlined; split it into definitions used at fewer levels"
        ),
    )
}

/// Bounds of `op` applied to values within `a` and `b`, and whether it may
/// divide by zero.
fn arith_span(op: Arith, a: Span, b: Span) -> (Span, bool) {
    let corners = |f: &dyn Fn(i128, i128) -> i128| {
        let v = [f(a.0, b.0), f(a.0, b.1), f(a.1, b.0), f(a.1, b.1)];
        (
            v.iter().copied().min().unwrap_or(0),
            v.iter().copied().max().unwrap_or(0),
        )
    };
    let zero = b.0 <= 0 && b.1 >= 0;
    match op {
        Arith::Add => (corners(&|x, y| x.saturating_add(y)), false),
        Arith::Sub => (corners(&|x, y| x.saturating_sub(y)), false),
        Arith::Mul => (corners(&|x, y| x.saturating_mul(y)), false),
        Arith::Min => (corners(&|x, y| x.min(y)), false),
        Arith::Max => (corners(&|x, y| x.max(y)), false),
        Arith::Div if zero => (ANY, true),
        Arith::Div => {
            let (lo, hi) = corners(&|x, y| x.div_euclid(y));
            ((lo - 1, hi + 1), false)
        }
        Arith::Mod if zero => (ANY, true),
        Arith::Mod => ((0, b.0.abs().max(b.1.abs()) - 1), false),
    }
}

/// Replaces an operation on constants by its value.
fn fold(t: Typed) -> Typed {
    match super::spec::fold(t.ex) {
        Ex::K(v) => typed(Ex::K(v), t.ty, (v as i128, v as i128)),
        ex => Typed { ex, ..t },
    }
}
