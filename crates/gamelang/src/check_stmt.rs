//! Checking and compiling the rules that act: consequence statements,
//! decisions with their legality and instances, outcome rules and start
//! blocks (run once at load time).

use super::ast::{self, By, Decl, SetExpr, StmtKind};
use super::check::{Checker, Local, Sym, Ty};
use super::diag::{Diag, Pos};
use super::ir::{self, Cx, Dom, Ex, St, Target, Val};
use super::rules::{DecisionIr, Instance};
use model::ratio::reduce;

/// Most concrete decisions a game may have (action ids are 16-bit).
const MAX_INSTANCES: usize = 30_000;

impl Checker<'_> {
    /// Compiles a block of statements.
    pub fn block(&mut self, stmts: &[ast::Stmt]) -> Result<Vec<St>, Diag> {
        stmts.iter().map(|s| self.stmt(s)).collect()
    }

    fn stmt(&mut self, s: &ast::Stmt) -> Result<St, Diag> {
        match &s.kind {
            StmtKind::Assign(name, index, value) => self.assign(name, index.as_ref(), value),
            StmtKind::If(c, a, b) => {
                let c = self.expr_of(c, Ty::Bool)?;
                Ok(St::If(c.ex, self.block(a)?, self.block(b)?))
            }
            StmtKind::For(binding, body) => {
                let (lo, hi, ty, span) = self.range_binding(binding)?;
                let var = self.new_var();
                self.locals
                    .push((binding.var.text.clone(), Local::Var(var, ty, span)));
                let outer = self.enter_loop(super::check_steps::iterations(span));
                let body = self.block(body);
                self.leave_loop(outer);
                self.locals.pop();
                Ok(St::For(var, lo, hi, body?))
            }
            StmtKind::Random(branches) => self.random(s.pos, branches),
            StmtKind::RandomIn(binding, body) => {
                self.no_random_here(s.pos)?;
                let (values, ty) = self.constant_set(binding.var.pos, &binding.set)?;
                let var = self.new_var();
                let span = span_of(&values);
                self.locals
                    .push((binding.var.text.clone(), Local::Var(var, ty, span)));
                let body = self.block(body);
                self.locals.pop();
                Ok(St::RandomIn(var, values, body?))
            }
        }
    }

    fn no_random_here(&self, pos: Pos) -> Result<(), Diag> {
        if self.in_start {
            return Err(Diag::new(
                pos,
                "`random` cannot appear in a start block (initial states carry no probabilities: \
                 draw the start with a decision instead)"
                    .to_string(),
            ));
        }
        Ok(())
    }

    fn random(&mut self, pos: Pos, branches: &[ast::Branch]) -> Result<St, Diag> {
        self.no_random_here(pos)?;
        let (mut num, mut den) = (0u128, 1u128);
        let mut compiled = Vec::new();
        for b in branches {
            if b.num <= 0 || b.den <= 0 || b.num > b.den {
                return Err(Diag::new(
                    b.pos,
                    "a probability must be more than 0 and at most 1".to_string(),
                ));
            }
            let (n, d) = (b.num as u128, b.den as u128);
            let sum = (num.checked_mul(d))
                .zip(n.checked_mul(den))
                .and_then(|(a, b)| a.checked_add(b))
                .zip(den.checked_mul(d));
            let Some((sum_num, sum_den)) = sum else {
                return Err(Diag::new(
                    b.pos,
                    "these probabilities are too fine to add up exactly".to_string(),
                ));
            };
            (num, den) = reduce(sum_num, sum_den);
            compiled.push((b.num as u64, b.den as u64, self.block(&b.body)?));
        }
        if num != den {
            return Err(Diag::new(
                pos,
                format!("the probabilities of this `random` sum to {num}/{den}, not 1"),
            ));
        }
        Ok(St::Random(compiled))
    }

    fn assign(
        &mut self,
        name: &ast::Name,
        index: Option<&ast::Expr>,
        value: &ast::Expr,
    ) -> Result<St, Diag> {
        let t = match self.global(name.pos, &name.text)? {
            Sym::Track(t) => t,
            _ => {
                return Err(Diag::new(
                    name.pos,
                    format!(
                        "`{}` is not a track: only tracks can be assigned",
                        name.text
                    ),
                ))
            }
        };
        let is_array = self.rules.tracks[t].index_labels.is_some();
        let target = match (index, is_array) {
            (None, false) => Target::Slot(self.rules.tracks[t].first_slot),
            (Some(i), true) => {
                let e = ast::Expr {
                    pos: name.pos,
                    kind: ast::ExprKind::Index(name.clone(), Box::new(i.clone())),
                };
                match self.expr(&e)?.ex {
                    Ex::Slot(s) => Target::Slot(s),
                    Ex::Elem {
                        base,
                        lo,
                        len,
                        index,
                        site,
                    } => Target::Elem {
                        base,
                        lo,
                        len,
                        index: *index,
                        site,
                    },
                    _ => Target::Slot(0),
                }
            }
            (None, true) => {
                return Err(Diag::new(
                    name.pos,
                    format!(
                        "`{}` is an array of tracks: assign `{}[index]`",
                        name.text, name.text
                    ),
                ))
            }
            (Some(i), false) => {
                return Err(Diag::new(
                    i.pos,
                    format!("`{}` is a single track, not an array", name.text),
                ))
            }
        };
        let v = self.expr(value)?;
        let (dom, ty) = (self.rules.tracks[t].dom, self.track_ty[t]);
        self.assignable(value.start(), v.ty, ty)?;
        if let Ex::K(k) = v.ex {
            self.in_dom(value.start(), k, dom, &name.text)?;
        }
        let fails = match dom {
            Dom::Int { lo, size } => v.span.0 < lo as i128 || v.span.1 >= lo as i128 + size as i128,
            _ => false,
        };
        let site = self.site(
            value.start(),
            format!("value outside the values of `{}`", name.text),
            fails,
        );
        Ok(St::Set(target, v.ex, dom, site))
    }

    /// The values of a constant set (decision parameters, `random x in`).
    fn constant_set(&mut self, pos: Pos, set: &SetExpr) -> Result<(Vec<Val>, Ty), Diag> {
        if let Some(t) = self.named_type(set) {
            let (base, len) = self.types[t].range();
            return Ok(((base..base + len).collect(), Ty::Enum(t, false)));
        }
        match set {
            SetExpr::Range(lo, hi) => {
                let (a, b) = (self.const_int(lo)?, self.const_int(hi)?);
                if b < a || i128::from(b) - i128::from(a) >= MAX_INSTANCES as i128 {
                    return Err(Diag::new(
                        pos,
                        format!("the range {a}..{b} is empty or too large"),
                    ));
                }
                Ok(((a..=b).collect(), Ty::Int))
            }
            SetExpr::List(lpos, items) => {
                let mut values = Vec::new();
                let mut ty = None;
                for item in items {
                    let (v, t) = self.const_any(item)?;
                    if let Some(first) = ty {
                        self.comparable(item.pos, first, t)?;
                    }
                    ty = Some(t);
                    if !values.contains(&v) {
                        values.push(v);
                    }
                }
                let ty = ty.ok_or_else(|| Diag::new(*lpos, "the set is empty".to_string()))?;
                Ok((values, ty))
            }
            _ => Err(Diag::new(
                pos,
                "expected a constant set: `lo..hi`, a named set or `{a, b}`".to_string(),
            )),
        }
    }

    /// Compiles a decision family and its instances.
    pub fn decision(&mut self, d: &ast::Decision) -> Result<(), Diag> {
        if self.rules.decisions.iter().any(|x| x.name == d.name.text) {
            return Err(Diag::new(
                d.name.pos,
                format!("decision `{}` is already declared", d.name.text),
            ));
        }
        let mark = self.locals.len();
        let mut params = Vec::new();
        let mut domains = Vec::new();
        for b in &d.params {
            let (values, ty) = self.constant_set(b.var.pos, &b.set)?;
            let var = self.new_var();
            self.locals
                .push((b.var.text.clone(), Local::Var(var, ty, span_of(&values))));
            params.push(var);
            domains.push((values, ty));
        }
        let (players, player_var) = self.by(&d.by)?;
        let compiled = self.decision_rules(d);
        self.locals.truncate(mark);
        let (when, body) = compiled?;
        let index = self.rules.decisions.len() as u32;
        self.instances(index, &d.name, &domains)?;
        self.rules.decisions.push(DecisionIr {
            name: d.name.text.clone(),
            players,
            player_var,
            params,
            when,
            random: ir::has_random(&body),
            body,
        });
        Ok(())
    }

    fn decision_rules(&mut self, d: &ast::Decision) -> Result<(Ex, Vec<St>), Diag> {
        let when = match &d.when {
            Some(w) => self.expr_of(w, Ty::Bool)?.ex,
            None => Ex::K(1),
        };
        Ok((when, self.block(&d.body)?))
    }

    /// Who takes a decision, and the variable naming them (pushed as a local).
    fn by(&mut self, by: &By) -> Result<(Vec<u8>, Option<u32>), Diag> {
        let all: Vec<u8> = (0..self.rules.players.len() as u8).collect();
        let (var_name, players) = match by {
            By::Everyone => return Ok((all, None)),
            By::Players(list) if list.len() == 1 && !self.rules.players.contains(&list[0].text) => {
                (&list[0], all)
            }
            By::Players(list) => return Ok((self.player_list(list)?, None)),
            By::Each(var, None) => (var, all),
            By::Each(var, Some(list)) => (var, self.player_list(list)?),
        };
        if self.globals.contains_key(&var_name.text) {
            return Err(Diag::new(
                var_name.pos,
                format!("`{}` is not a player", var_name.text),
            ));
        }
        let var = self.new_var();
        let span = (0, self.rules.players.len() as i128 - 1);
        self.locals.push((
            var_name.text.clone(),
            Local::Var(var, Ty::Enum(0, false), span),
        ));
        Ok((players, Some(var)))
    }

    fn player_list(&self, list: &[ast::Name]) -> Result<Vec<u8>, Diag> {
        let mut players = Vec::new();
        for name in list {
            let p = self.rules.players.iter().position(|p| *p == name.text);
            let p =
                p.ok_or_else(|| Diag::new(name.pos, format!("`{}` is not a player", name.text)))?;
            if !players.contains(&(p as u8)) {
                players.push(p as u8);
            }
        }
        Ok(players)
    }

    fn instances(
        &mut self,
        decision: u32,
        name: &ast::Name,
        domains: &[(Vec<Val>, Ty)],
    ) -> Result<(), Diag> {
        // The product's size is checked before it is built: two parameters of
        // 30,000 values each would otherwise fill memory before any check.
        let count = domains.iter().try_fold(1usize, |n, (values, _)| {
            n.checked_mul(values.len())
                .filter(|&n| n + self.rules.instances.len() <= MAX_INSTANCES)
        });
        if count.is_none() {
            return Err(Diag::new(
                name.pos,
                format!("the game has more than {MAX_INSTANCES} concrete decisions"),
            ));
        }
        let mut combos: Vec<Vec<Val>> = vec![Vec::new()];
        for (values, _) in domains {
            combos = combos
                .into_iter()
                .flat_map(|c| values.iter().map(move |v| [c.clone(), vec![*v]].concat()))
                .collect();
        }
        for args in combos {
            let label = if args.is_empty() {
                name.text.clone()
            } else {
                let shown: Vec<String> = args
                    .iter()
                    .zip(domains)
                    .map(|(v, (_, ty))| self.show(*v, *ty))
                    .collect();
                format!("{}({})", name.text, shown.join(", "))
            };
            self.rules.instances.push(Instance {
                decision,
                args,
                label,
            });
        }
        Ok(())
    }

    /// Compiles one outcome rule.
    pub fn outcome(&mut self, pos: Pos, name: &str, when: Option<&ast::Expr>) -> Result<(), Diag> {
        if self
            .rules
            .outcome_rules
            .last()
            .is_some_and(|(c, _)| c.is_none())
        {
            return Err(Diag::new(
                pos,
                "no outcome rule can follow `otherwise`".to_string(),
            ));
        }
        let id = match self.rules.outcomes.iter().position(|o| o == name) {
            Some(i) => i,
            None => {
                self.rules.outcomes.push(name.to_string());
                self.rules.outcomes.len() - 1
            }
        };
        let cond = match when {
            Some(w) => Some(self.expr_of(w, Ty::Bool)?.ex),
            None => None,
        };
        self.rules.outcome_rules.push((cond, id as u16));
        Ok(())
    }

    /// Requires outcomes; without `otherwise` a terminal state may match no rule.
    pub fn finish_outcomes(&mut self, file: &ast::File) -> Result<(), Diag> {
        if self.rules.outcomes.is_empty() {
            let pos = file
                .decls
                .last()
                .map_or(Pos { line: 1, col: 1 }, |_| Pos { line: 1, col: 1 });
            return Err(Diag::new(pos, "the game declares no `outcome`".to_string()));
        }
        if !self.rules.outcome_rules.iter().any(|(c, _)| c.is_none()) {
            self.rules.may_fail = true;
        }
        Ok(())
    }

    /// Runs the start blocks on the tracks' initial values.
    pub fn starts(&mut self, file: &ast::File) -> Result<(), Diag> {
        self.in_start = true;
        let mut starts = Vec::new();
        for decl in &file.decls {
            let Decl::Start(pos, body) = decl else {
                continue;
            };
            let stmts = self.block(body)?;
            let memos = self.rules.memos.clone();
            let mut cx = Cx::new(&memos, self.defaults.len(), self.rules.vars);
            cx.slots.clone_from(&self.defaults);
            cx.memo_on = false;
            if let Err(fault) = ir::run_plain(&stmts, &mut cx) {
                let (at, what) = self
                    .rules
                    .sites
                    .get(fault.site as usize)
                    .cloned()
                    .unwrap_or((*pos, String::new()));
                return Err(Diag::new(at, format!("this start block fails: {what}")));
            }
            if !starts.contains(&cx.slots) {
                starts.push(cx.slots);
            }
        }
        if starts.is_empty() {
            starts.push(self.defaults.clone());
        }
        self.rules.starts = starts;
        self.in_start = false;
        Ok(())
    }

    /// Marks the game as fallible when products of probabilities could
    /// outgrow a 32-bit denominator or a tuple could branch more ways than
    /// [`super::exec::safe_branches`] (the denominators bound both).
    pub fn check_den_bound(&mut self) {
        // A decision with a `random` inside a loop has no bound (`None`).
        let bounds: Option<Vec<u128>> = self
            .rules
            .decisions
            .iter()
            .map(|d| den_bound(&d.body))
            .collect();
        let worst = bounds.map(|b| b.into_iter().max().unwrap_or(1));
        let players = self.rules.players.len() as u32;
        let branches = super::exec::safe_branches(self.rules.slots.len(), self.rules.vars);
        let limit = u128::from(u32::MAX).min(branches as u128);
        self.rules.branch_bound = worst.and_then(|w| w.checked_pow(players));
        let fits = self.rules.branch_bound.is_some_and(|b| b <= limit);
        if !fits {
            self.rules.may_fail = true;
        }
    }
}

/// A bound on the product of denominators a run of `stmts` can reach;
/// `None` when a `random` sits inside a loop.
fn den_bound(stmts: &[St]) -> Option<u128> {
    let mut bound: u128 = 1;
    for st in stmts {
        let b = match st {
            St::Set(..) => 1,
            St::If(_, a, b) => den_bound(a)?.max(den_bound(b)?),
            St::For(_, _, _, body) if ir::has_random(body) => return None,
            St::For(..) => 1,
            St::Random(branches) => {
                let inner = branches
                    .iter()
                    .map(|(_, _, b)| den_bound(b))
                    .collect::<Option<Vec<_>>>()?;
                let dens = branches
                    .iter()
                    .map(|(_, d, _)| u128::from(*d))
                    .product::<u128>();
                dens.checked_mul(inner.into_iter().max().unwrap_or(1))?
            }
            St::RandomIn(_, values, body) => {
                (values.len() as u128).checked_mul(den_bound(body)?)?
            }
        };
        bound = bound.checked_mul(b)?;
    }
    Some(bound)
}

fn span_of(values: &[Val]) -> (i128, i128) {
    let lo = values.iter().copied().min().unwrap_or(0);
    let hi = values.iter().copied().max().unwrap_or(0);
    (lo as i128, hi as i128)
}
