//! The syntax tree of a `.game` file, as written: names are still strings;
//! the checker resolves them. Every node keeps its position for errors.

use super::diag::Pos;

/// A name as written, with its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    /// Where the name is written.
    pub pos: Pos,
    /// The name.
    pub text: String,
}

/// A whole file: its declarations in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    /// Every declaration, in file order.
    pub decls: Vec<Decl>,
}

/// One top-level declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decl {
    /// `game "title"`.
    Game(Pos, String),
    /// `players X, O`.
    Players(Vec<Name>),
    /// `type Hand = {rock, paper, scissors}`.
    Type(Name, Vec<Name>),
    /// `const N = 3`.
    Const(Name, Expr),
    /// `track board[0..8]: player? = none`.
    Track(Track),
    /// `define wins(p) = ...`.
    Define(Name, Vec<Name>, Expr),
    /// `start { ... }`: one initial condition.
    Start(Pos, Vec<Stmt>),
    /// `decision place(i in 0..8) by p when ... { ... }`.
    Decision(Decision),
    /// `outcome "x wins" when ...` or `outcome "draw" otherwise` (no condition).
    Outcome(Pos, String, Option<Expr>),
}

/// A substate track, or an array of tracks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Track {
    /// The track's name.
    pub name: Name,
    /// The index set of an array track; `None` for a single track.
    pub index: Option<SetExpr>,
    /// The set of values each element takes.
    pub ty: TypeExpr,
    /// The initial value (all elements) or one value per element.
    pub init: Option<Init>,
}

/// A track's initial value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    /// One value for every element.
    All(Expr),
    /// `[a, b, c]`: one value per element.
    Each(Pos, Vec<Expr>),
}

/// The finite set of values a track takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeExpr {
    /// `bool`.
    Bool(Pos),
    /// `lo..hi`, inclusive.
    Range(Expr, Expr),
    /// A named value set (`player` or a `type`), with `?` adding `none`.
    Named(Name, bool),
}

/// A set to range over: `lo..hi`, a named value set, or `{a, b}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetExpr {
    /// `lo..hi`, inclusive.
    Range(Expr, Expr),
    /// `[N]` as an array index set: `0..N-1`.
    Count(Expr),
    /// A named value set such as `player` or `Hand`.
    Named(Name),
    /// An explicit list of values.
    List(Pos, Vec<Expr>),
}

/// A variable bound over a set: `i in 0..8`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The variable.
    pub var: Name,
    /// What it ranges over.
    pub set: SetExpr,
}

/// Who may take a decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum By {
    /// No `by`: every player, jointly (the effect runs once per tuple).
    Everyone,
    /// `by X, O`: these players, jointly.
    Players(Vec<Name>),
    /// `by p` or `by p in {X, O}`: each player separately, named `p` in the rule.
    Each(Name, Option<Vec<Name>>),
}

/// A decision family: one decision per combination of parameter values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The decision's name.
    pub name: Name,
    /// Parameters, each over a constant set.
    pub params: Vec<Binding>,
    /// Who may take it.
    pub by: By,
    /// The legality condition; `None` means always legal.
    pub when: Option<Expr>,
    /// The consequence: statements run on the state.
    pub body: Vec<Stmt>,
}

/// A statement of a consequence or a start block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    /// Where the statement starts.
    pub pos: Pos,
    /// What it does.
    pub kind: StmtKind,
}

/// The kinds of statements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// `track := value` or `track[index] := value`.
    Assign(Name, Option<Expr>, Expr),
    /// `if c { ... } else { ... }` (`else if` nests).
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// `for i in a..b { ... }`.
    For(Binding, Vec<Stmt>),
    /// `random { 1/2: ... 1/2: ... }`: weighted branches.
    Random(Vec<Branch>),
    /// `random d in 1..6 { ... }`: one branch per value, uniformly.
    RandomIn(Binding, Vec<Stmt>),
}

/// One weighted branch of a `random` statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Branch {
    /// Where the weight is written.
    pub pos: Pos,
    /// Numerator of the weight.
    pub num: i64,
    /// Denominator of the weight.
    pub den: i64,
    /// What happens on this branch.
    pub body: Vec<Stmt>,
}

/// An expression with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    /// Where the expression starts (for operators: where the operator is).
    pub pos: Pos,
    /// Its form.
    pub kind: ExprKind,
}

impl Expr {
    /// Where the expression's text begins (an operator's `pos` is the
    /// operator itself; this is its leftmost operand's start).
    pub fn start(&self) -> Pos {
        let mut e = self;
        while let ExprKind::Binary(_, left, _) | ExprKind::In(left, _) = &e.kind {
            e = left;
        }
        e.pos
    }
}

/// Binary operators, loosest binding last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Mul,
    Div,
    Mod,
    Add,
    Sub,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "and",
            BinOp::Or => "or",
        }
    }

    /// Binding strength: higher binds tighter.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Mul | BinOp::Div | BinOp::Mod => 5,
            BinOp::Add | BinOp::Sub => 4,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
            BinOp::And => 2,
            BinOp::Or => 1,
        }
    }
}

/// Quantifiers and aggregates over bounded sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quant {
    /// True when the body holds for some value.
    Any,
    /// True when the body holds for every value.
    All,
    /// The sum of the (integer) body.
    Sum,
    /// How many values make the body true.
    Count,
}

impl Quant {
    /// The keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            Quant::Any => "any",
            Quant::All => "all",
            Quant::Sum => "sum",
            Quant::Count => "count",
        }
    }
}

/// The forms of expressions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    /// An integer literal.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// `none`, the extra value of an optional set.
    None,
    /// A track, constant, variable, named value, player or definition.
    Name(String),
    /// `track[index]`.
    Index(Name, Box<Expr>),
    /// `f(args)`: a definition or a built-in (`next`, `min`, `max`, `abs`).
    Call(Name, Vec<Expr>),
    /// `-e`.
    Neg(Box<Expr>),
    /// `not e`.
    Not(Box<Expr>),
    /// `a op b`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `if c then a else b`.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `any i in a..b, j in S: body`.
    Quant(Quant, Vec<Binding>, Box<Expr>),
    /// `e in {a, b, c}`.
    In(Box<Expr>, Vec<Expr>),
}

impl Expr {
    /// The number of nodes on the longest path from this expression to a
    /// leaf, counted without recursion (a chain of `n` operators is `n + 1`
    /// deep however flat it reads).
    pub fn height(&self) -> usize {
        let mut deepest = 0;
        let mut stack: Vec<(&Expr, usize)> = vec![(self, 1)];
        while let Some((e, depth)) = stack.pop() {
            deepest = deepest.max(depth);
            let below = depth + 1;
            let mut push = |child| stack.push((child, below));
            match &e.kind {
                ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::None | ExprKind::Name(_) => {}
                ExprKind::Index(_, a) | ExprKind::Neg(a) | ExprKind::Not(a) => push(a),
                ExprKind::Binary(_, a, b) => {
                    push(a);
                    push(b);
                }
                ExprKind::If(c, a, b) => {
                    push(c);
                    push(a);
                    push(b);
                }
                ExprKind::Call(_, args) => args.iter().for_each(&mut push),
                ExprKind::In(a, values) => {
                    push(a);
                    values.iter().for_each(&mut push);
                }
                ExprKind::Quant(_, bindings, body) => {
                    push(body);
                    for b in bindings {
                        match &b.set {
                            SetExpr::Range(lo, hi) => {
                                push(lo);
                                push(hi);
                            }
                            SetExpr::Count(n) => push(n),
                            SetExpr::List(_, items) => items.iter().for_each(&mut push),
                            SetExpr::Named(_) => {}
                        }
                    }
                }
            }
        }
        deepest
    }
}
