//! The checker: resolves the declarations of a parsed `.game` file, checks
//! types and static values, and compiles everything into [`Rules`]. Players,
//! value sets, constants and tracks are declared before use; definitions may
//! be used anywhere but not recursively.

use std::collections::HashMap;

use super::ast::{self, Decl, ExprKind, SetExpr};
use super::diag::{Diag, Pos};
use super::ir::{Dom, Ex, Val, NONE};
use super::rules::Rules;

/// Most track elements a game may have.
pub const MAX_SLOTS: usize = 4096;

/// The type of an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// An integer.
    Int,
    /// A boolean.
    Bool,
    /// A value of named set `.0` (0 is `player`), possibly `none` when `.1`.
    Enum(usize, bool),
    /// The literal `none`.
    NoneLit,
}

/// A global name.
#[derive(Clone, Debug)]
pub enum Sym {
    /// A constant: `const`, a player or a named value.
    Const(Val, Ty),
    /// A track, by index.
    Track(usize),
    /// A definition, by index.
    Def(usize),
    /// A named value set, by index.
    Type(usize),
}

/// A local name.
#[derive(Clone, Debug)]
pub enum Local {
    /// A variable slot with its type and bounds.
    Var(u32, Ty, Span),
    /// A definition's parameter: the argument's code, inlined.
    Param(Ex, Ty, Span),
}

/// A named value set.
#[derive(Clone, Debug)]
pub struct TypeInfo {
    /// Its name.
    pub name: String,
    /// Id of its first value.
    pub base: Val,
    /// How many values it has.
    pub len: Val,
}

impl TypeInfo {
    /// `(first id, count)`.
    pub fn range(&self) -> (Val, Val) {
        (self.base, self.len)
    }
}

/// A definition and the state of its compilation.
pub struct DefInfo<'a> {
    /// Its name.
    pub name: String,
    /// Parameter names.
    pub params: Vec<String>,
    /// The body as written.
    pub body: &'a ast::Expr,
    /// For a parameterless definition: its memo slot, type and bounds once compiled.
    pub memo: Option<(Ex, Ty, Span)>,
}

/// The checker's state while it compiles one file.
pub struct Checker<'a> {
    /// What is being built.
    pub rules: Rules,
    /// Global names.
    pub globals: HashMap<String, Sym>,
    /// Named value sets; 0 is `player`.
    pub types: Vec<TypeInfo>,
    /// Type of each track's elements.
    pub track_ty: Vec<Ty>,
    /// Each track's index set: first index, length, index type.
    pub track_index: Vec<(Val, u32, Ty)>,
    /// Bound local names, innermost last.
    pub locals: Vec<(String, Local)>,
    /// Locals below this position are out of scope (inside a definition).
    pub floor: usize,
    /// Definitions.
    pub defs: Vec<DefInfo<'a>>,
    /// Definitions being compiled, to refuse cycles.
    pub def_stack: Vec<usize>,
    /// True while start blocks compile (their failures show at load).
    pub in_start: bool,
    /// Initial value of every slot.
    pub defaults: Vec<Val>,
    /// Memoised applications of definitions to constant arguments.
    pub const_calls: HashMap<(usize, Vec<Val>), (Ex, Ty, Span)>,
    /// How deep evaluating each memo recurses (see [`Ex::height`]).
    pub memo_heights: Vec<usize>,
    /// How many expressions are being compiled inside each other.
    pub depth: usize,
    /// Iterations of the loops around the code being compiled.
    pub loop_product: i128,
    /// Loop steps the rules compiled so far may take (see `check_steps`).
    pub loop_steps: i128,
    /// Loop steps of each cached definition use, keyed like `const_calls`
    /// (no arguments for a memoised definition).
    pub def_steps: HashMap<(usize, Vec<Val>), i128>,
}

/// Bounds of an integer expression (wide, so that arithmetic on them cannot overflow).
pub type Span = (i128, i128);

/// A compiled expression with its type and bounds.
pub struct Typed {
    /// The code.
    pub ex: Ex,
    /// Its type.
    pub ty: Ty,
    /// Its bounds.
    pub span: Span,
}

/// True for code cheaper to evaluate than to look up in the memo.
fn is_cheap(ex: &Ex) -> bool {
    matches!(
        ex,
        Ex::Slot(_) | Ex::SlotEq(..) | Ex::SlotNe(..) | Ex::Var(_) | Ex::Memo(_)
    )
}

/// Checks and compiles a parsed file.
pub fn check(file: &ast::File) -> Result<Rules, Diag> {
    let mut c = Checker {
        rules: Rules::default(),
        globals: HashMap::new(),
        types: Vec::new(),
        track_ty: Vec::new(),
        track_index: Vec::new(),
        locals: Vec::new(),
        floor: 0,
        defs: Vec::new(),
        def_stack: Vec::new(),
        in_start: false,
        defaults: Vec::new(),
        const_calls: HashMap::new(),
        memo_heights: Vec::new(),
        depth: 0,
        loop_product: 1,
        loop_steps: 0,
        def_steps: HashMap::new(),
    };
    c.players(file)?;
    for decl in &file.decls {
        match decl {
            Decl::Game(pos, title) if c.rules.title.is_some() => {
                return Err(Diag::new(
                    *pos,
                    format!("a second `game` title ({title:?})"),
                ));
            }
            Decl::Game(_, title) => c.rules.title = Some(title.clone()),
            Decl::Type(name, values) => c.value_set(name, values)?,
            Decl::Define(name, params, body) => c.define(name, params, body)?,
            _ => {}
        }
    }
    for decl in &file.decls {
        match decl {
            Decl::Const(name, value) => {
                let (v, ty) = c.const_any(value)?;
                c.declare(name, Sym::Const(v, ty))?;
            }
            Decl::Track(track) => c.track(track)?,
            _ => {}
        }
    }
    if c.rules.tracks.is_empty() {
        return Err(Diag::new(
            Pos { line: 1, col: 1 },
            "the game declares no `track`".to_string(),
        ));
    }
    for decl in &file.decls {
        match decl {
            Decl::Decision(d) => c.decision(d)?,
            Decl::Outcome(pos, name, when) => c.outcome(*pos, name, when.as_ref())?,
            _ => {}
        }
    }
    c.starts(file)?;
    c.finish_outcomes(file)?;
    c.refuse_failing_constants()?;
    c.check_den_bound();
    Ok(c.rules)
}

impl<'a> Checker<'a> {
    fn players(&mut self, file: &ast::File) -> Result<(), Diag> {
        let mut decls = file.decls.iter().filter_map(|d| match d {
            Decl::Players(list) => Some(list),
            _ => None,
        });
        let Some(list) = decls.next() else {
            return Err(Diag::new(
                Pos { line: 1, col: 1 },
                "the game declares no `players` (a puzzle has one, e.g. `players solver`)"
                    .to_string(),
            ));
        };
        if let Some(second) = decls.next() {
            return Err(Diag::new(
                second[0].pos,
                "a second `players` declaration".to_string(),
            ));
        }
        if list.len() > 16 {
            return Err(Diag::new(
                list[16].pos,
                "at most 16 players are supported".to_string(),
            ));
        }
        self.types.push(TypeInfo {
            name: "player".to_string(),
            base: 0,
            len: list.len() as Val,
        });
        self.globals.insert("player".to_string(), Sym::Type(0));
        for (i, name) in list.iter().enumerate() {
            self.declare(name, Sym::Const(i as Val, Ty::Enum(0, false)))?;
            self.rules.players.push(name.text.clone());
            self.rules.values.push(name.text.clone());
        }
        Ok(())
    }

    /// Adds a global name, refusing duplicates.
    pub fn declare(&mut self, name: &ast::Name, sym: Sym) -> Result<(), Diag> {
        if self.globals.contains_key(&name.text)
            || ["next", "min", "max", "abs"].contains(&name.text.as_str())
        {
            return Err(Diag::new(
                name.pos,
                format!("`{}` is already declared", name.text),
            ));
        }
        self.globals.insert(name.text.clone(), sym);
        Ok(())
    }

    fn value_set(&mut self, name: &ast::Name, values: &[ast::Name]) -> Result<(), Diag> {
        let base = self.rules.values.len() as Val;
        let ty = self.types.len();
        self.declare(name, Sym::Type(ty))?;
        self.types.push(TypeInfo {
            name: name.text.clone(),
            base,
            len: values.len() as Val,
        });
        for (i, v) in values.iter().enumerate() {
            self.declare(v, Sym::Const(base + i as Val, Ty::Enum(ty, false)))?;
            self.rules.values.push(v.text.clone());
        }
        Ok(())
    }

    fn define(
        &mut self,
        name: &ast::Name,
        params: &[ast::Name],
        body: &'a ast::Expr,
    ) -> Result<(), Diag> {
        for (i, p) in params.iter().enumerate() {
            if params[..i].iter().any(|q| q.text == p.text) {
                return Err(Diag::new(
                    p.pos,
                    format!("parameter `{}` appears twice", p.text),
                ));
            }
        }
        self.declare(name, Sym::Def(self.defs.len()))?;
        self.defs.push(DefInfo {
            name: name.text.clone(),
            params: params.iter().map(|p| p.text.clone()).collect(),
            body,
            memo: None,
        });
        Ok(())
    }

    /// Looks up a global name.
    pub fn global(&self, pos: Pos, name: &str) -> Result<Sym, Diag> {
        self.globals
            .get(name)
            .cloned()
            .ok_or_else(|| Diag::new(pos, format!("unknown name `{name}`")))
    }

    /// Looks up a local name in scope.
    pub fn lookup_local(&self, name: &str) -> Option<Local> {
        self.locals[self.floor.min(self.locals.len())..]
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, l)| l.clone())
    }

    /// A fresh variable slot.
    pub fn new_var(&mut self) -> u32 {
        self.rules.vars += 1;
        (self.rules.vars - 1) as u32
    }

    /// Records a place that can fail at run time; `fails` says whether the
    /// bounds could not rule the failure out.
    pub fn site(&mut self, pos: Pos, message: String, fails: bool) -> u32 {
        if fails && !self.in_start {
            self.rules.may_fail = true;
        }
        self.rules.sites.push((pos, message));
        (self.rules.sites.len() - 1) as u32
    }

    /// Inlines definition `d` applied to `args` (or uses its memo).
    pub fn use_def(&mut self, pos: Pos, d: usize, args: &[Typed]) -> Result<Typed, Diag> {
        let (name, arity) = (self.defs[d].name.clone(), self.defs[d].params.len());
        if args.len() != arity {
            return Err(Diag::new(
                pos,
                format!("`{name}` takes {arity} argument(s), {} given", args.len()),
            ));
        }
        if let Some((ex, ty, span)) = self.defs[d].memo.clone() {
            self.add_steps(self.def_steps.get(&(d, Vec::new())).copied().unwrap_or(0));
            return Ok(Typed { ex, ty, span });
        }
        // A definition applied to constants depends on the state alone:
        // it is computed once per state however often it is used.
        let constant_args: Option<Vec<Val>> = args
            .iter()
            .map(|a| match a.ex {
                Ex::K(v) => Some(v),
                _ => None,
            })
            .collect();
        let key = constant_args.filter(|a| !a.is_empty()).map(|a| (d, a));
        if let Some((ex, ty, span)) = key.as_ref().and_then(|k| self.const_calls.get(k)).cloned() {
            let steps = key.as_ref().and_then(|k| self.def_steps.get(k));
            self.add_steps(steps.copied().unwrap_or(0));
            return Ok(Typed { ex, ty, span });
        }
        if self.def_stack.contains(&d) {
            let chain: Vec<&str> = self
                .def_stack
                .iter()
                .map(|i| self.defs[*i].name.as_str())
                .collect();
            return Err(Diag::new(
                pos,
                format!("definition `{name}` uses itself (through {} -> {name}); definitions cannot recurse", chain.join(" -> ")),
            ));
        }
        if self.def_stack.len() > 64 {
            return Err(Diag::new(
                pos,
                "definitions nest more than 64 deep".to_string(),
            ));
        }
        let (saved_floor, mark) = (self.floor, self.locals.len());
        for (p, a) in self.defs[d].params.clone().into_iter().zip(args) {
            self.locals
                .push((p, Local::Param(a.ex.clone(), a.ty, a.span)));
        }
        self.floor = mark;
        self.def_stack.push(d);
        let body = self.defs[d].body;
        let (result, steps) = self.counting_steps(|c| c.expr(body));
        self.add_steps(steps);
        self.def_stack.pop();
        self.floor = saved_floor;
        self.locals.truncate(mark);
        // Arguments inlined into the body add their depth to its own.
        let t = self.bounded(pos, result?)?;
        if (arity > 0 && key.is_none()) || matches!(t.ex, Ex::K(_)) || is_cheap(&t.ex) {
            return Ok(t);
        }
        self.memo_heights.push(t.ex.height(&self.memo_heights));
        self.rules.memos.push(t.ex);
        let memo = Ex::Memo((self.rules.memos.len() - 1) as u32);
        match key {
            Some(k) => {
                self.def_steps.insert(k.clone(), steps);
                self.const_calls.insert(k, (memo.clone(), t.ty, t.span));
            }
            None => {
                self.def_steps.insert((d, Vec::new()), steps);
                self.defs[d].memo = Some((memo.clone(), t.ty, t.span));
            }
        }
        Ok(Typed {
            ex: memo,
            ty: t.ty,
            span: t.span,
        })
    }

    /// Describes a type in messages.
    pub fn ty_name(&self, ty: Ty) -> String {
        match ty {
            Ty::Int => "an integer".to_string(),
            Ty::Bool => "a boolean".to_string(),
            Ty::NoneLit => "`none`".to_string(),
            Ty::Enum(t, opt) => {
                let name = self.types.get(t).map_or("?", |t| t.name.as_str());
                format!("a value of `{name}{}`", if opt { "?" } else { "" })
            }
        }
    }

    /// Shows a value of type `ty`.
    pub fn show(&self, v: Val, ty: Ty) -> String {
        match ty {
            Ty::Int => v.to_string(),
            Ty::Bool => (v != 0).to_string(),
            _ if v == NONE => "none".to_string(),
            _ => self
                .rules
                .values
                .get(v as usize)
                .cloned()
                .unwrap_or_else(|| v.to_string()),
        }
    }

    /// The named set a set expression names, if it is one.
    pub fn named_type(&self, set: &SetExpr) -> Option<usize> {
        let name = match set {
            SetExpr::Named(n) => &n.text,
            SetExpr::Count(ast::Expr {
                kind: ExprKind::Name(n),
                ..
            }) => n,
            _ => return None,
        };
        match self.globals.get(name) {
            Some(Sym::Type(t)) => Some(*t),
            _ => None,
        }
    }

    /// Bounds of the values of track `t`.
    pub fn dom_span(&self, t: usize) -> Span {
        match self.rules.tracks[t].dom {
            Dom::Int { lo, size } => (lo as i128, lo as i128 + size as i128 - 1),
            Dom::Bool => (0, 1),
            Dom::Enum { base, len, opt } => (
                if opt { -1 } else { base as i128 },
                (base + len - 1) as i128,
            ),
        }
    }

    /// Refuses operations on constants that always fail where they are
    /// evaluated (dead branches of constant conditions are already gone).
    fn refuse_failing_constants(&self) -> Result<(), Diag> {
        use super::spec::{failing_constant, failing_constant_in};
        let rules = &self.rules;
        let found = rules
            .decisions
            .iter()
            .find_map(|d| failing_constant(&d.when).or_else(|| failing_constant_in(&d.body)))
            .or_else(|| rules.memos.iter().find_map(failing_constant))
            .or_else(|| {
                rules
                    .outcome_rules
                    .iter()
                    .find_map(|(c, _)| c.as_ref().and_then(failing_constant))
            });
        match found {
            Some(site) => Err(self.constant_failure(site)),
            None => Ok(()),
        }
    }
}
