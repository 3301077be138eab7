//! The statement and expression half of the parser: blocks of consequences
//! and expressions by precedence climbing (`or` < `and` < `not` <
//! comparisons and `in` < `+ -` < `* / %` < unary minus).

use super::ast::*;
use super::diag::Diag;
use super::lexer::Tok;
use super::parser::Parser;

/// The deepest expression tree the parser builds: about 2,000 nested
/// operators fit in the 2 MiB stack of a thread of a debug build in every
/// pass that walks the tree (issue 20, item 5).
pub const MAX_HEIGHT: usize = 1_000;

impl Parser {
    /// `{ stmt* }`.
    pub(super) fn block(&mut self) -> Result<Vec<Stmt>, Diag> {
        self.expect("{")?;
        self.enter()?;
        let mut stmts = Vec::new();
        loop {
            while self.eat(";") {}
            if self.eat("}") {
                break;
            }
            stmts.push(self.stmt()?);
        }
        self.depth -= 1;
        Ok(stmts)
    }

    fn stmt(&mut self) -> Result<Stmt, Diag> {
        let pos = self.pos();
        let kind = if self.eat_word("if") {
            self.if_stmt()?
        } else if self.eat_word("for") {
            let binding = self.binding()?;
            StmtKind::For(binding, self.block()?)
        } else if self.eat_word("random") {
            self.random()?
        } else if matches!(self.peek(), Tok::Ident(_)) {
            self.assign()?
        } else {
            return self.expected("a statement (`track := value`, `if`, `for` or `random`)");
        };
        Ok(Stmt { pos, kind })
    }

    fn if_stmt(&mut self) -> Result<StmtKind, Diag> {
        let cond = self.expr()?;
        let then = self.block()?;
        let otherwise = if !self.eat_word("else") {
            Vec::new()
        } else if self.is_word("if") {
            vec![self.stmt()?]
        } else {
            self.block()?
        };
        Ok(StmtKind::If(cond, then, otherwise))
    }

    fn random(&mut self) -> Result<StmtKind, Diag> {
        if !self.eat("{") {
            let binding = self.binding()?;
            return Ok(StmtKind::RandomIn(binding, self.block()?));
        }
        let mut branches = Vec::new();
        while !self.eat("}") {
            let pos = self.pos();
            let num = self.int()?;
            let den = if self.eat("/") { self.int()? } else { 1 };
            self.expect(":")?;
            let body = if matches!(self.peek(), Tok::Sym("{")) {
                self.block()?
            } else {
                vec![self.stmt()?]
            };
            branches.push(Branch {
                pos,
                num,
                den,
                body,
            });
        }
        Ok(StmtKind::Random(branches))
    }

    fn int(&mut self) -> Result<i64, Diag> {
        match self.peek() {
            Tok::Int(n) => {
                let n = *n;
                self.at += 1;
                Ok(n)
            }
            _ => self.expected("an integer (a probability is written `n` or `n/d`)"),
        }
    }

    fn assign(&mut self) -> Result<StmtKind, Diag> {
        let target = self.name()?;
        let index = if self.eat("[") {
            let index = self.expr()?;
            self.expect("]")?;
            Some(index)
        } else {
            None
        };
        if !self.eat(":=") {
            return self.expected("`:=` (assignments are written `track := value`)");
        }
        Ok(StmtKind::Assign(target, index, self.expr()?))
    }

    /// A full expression.
    pub(super) fn expr(&mut self) -> Result<Expr, Diag> {
        self.enter()?;
        let result = self.level(1);
        self.depth -= 1;
        result
    }

    /// Operators of precedence `prec` and tighter, left-associative; `not`
    /// sits just above the comparisons, so `not a == b` is `not (a == b)`.
    fn level(&mut self, prec: u8) -> Result<Expr, Diag> {
        if prec > 5 {
            return self.unary();
        }
        let pos = self.pos();
        if prec == 3 && self.eat_word("not") {
            self.enter()?;
            let operand = self.level(3)?;
            self.depth -= 1;
            return Ok(Expr {
                pos,
                kind: ExprKind::Not(Box::new(operand)),
            });
        }
        let mut left = self.level(prec + 1)?;
        // The height of `left`, measured once an operator follows it: a long
        // flat chain is as deep as its operators are many, and every later
        // pass (checker, printer, dropping the tree) recurses over it.
        let mut height = None;
        loop {
            let pos = self.pos();
            if prec == 3 && self.is_word("in") && matches!(self.peek_at(1), Tok::Sym("{")) {
                self.at += 2;
                let values = self.expr_list("}")?;
                left = Expr {
                    pos,
                    kind: ExprKind::In(Box::new(left), values),
                };
                height = None;
                continue;
            }
            let op = match self.peek_op() {
                Some(op) if op.precedence() == prec => op,
                _ => return Ok(left),
            };
            let below = *height.get_or_insert_with(|| left.height());
            self.at += 1;
            let right = self.level(prec + 1)?;
            let h = below.max(right.height()) + 1;
            if h > MAX_HEIGHT {
                return Err(Diag::new(
                    pos,
                    format!(
                        "this expression is more than {MAX_HEIGHT} operators deep (each \
                         operator of a chain such as `a + b + c` counts); split it"
                    ),
                ));
            }
            height = Some(h);
            left = Expr {
                pos,
                kind: ExprKind::Binary(op, Box::new(left), Box::new(right)),
            };
        }
    }

    fn peek_op(&self) -> Option<BinOp> {
        Some(match self.peek() {
            Tok::Sym("*") => BinOp::Mul,
            Tok::Sym("/") => BinOp::Div,
            Tok::Sym("%") => BinOp::Mod,
            Tok::Sym("+") => BinOp::Add,
            Tok::Sym("-") => BinOp::Sub,
            Tok::Sym("==") => BinOp::Eq,
            Tok::Sym("!=") => BinOp::Ne,
            Tok::Sym("<") => BinOp::Lt,
            Tok::Sym("<=") => BinOp::Le,
            Tok::Sym(">") => BinOp::Gt,
            Tok::Sym(">=") => BinOp::Ge,
            Tok::Ident(w) if w == "and" => BinOp::And,
            Tok::Ident(w) if w == "or" => BinOp::Or,
            _ => return None,
        })
    }

    /// Unary minus, then a primary with its index or arguments.
    fn unary(&mut self) -> Result<Expr, Diag> {
        let pos = self.pos();
        if !self.eat("-") {
            return self.primary();
        }
        // A negation counts two levels, as it did when the canonical text printed a chain
        // as `-(-x)`: files accepted then are accepted now, and no more.
        self.enter()?;
        self.enter()?;
        let operand = self.unary()?;
        self.depth -= 2;
        Ok(Expr {
            pos,
            kind: ExprKind::Neg(Box::new(operand)),
        })
    }

    fn primary(&mut self) -> Result<Expr, Diag> {
        let pos = self.pos();
        let kind = match self.bump() {
            Tok::Int(n) => ExprKind::Int(n),
            Tok::Sym("(") => {
                let inner = self.expr()?;
                self.expect(")")?;
                return Ok(inner);
            }
            Tok::Ident(w) => return self.word(pos, w),
            _ => {
                self.at -= 1;
                return self.expected("an expression");
            }
        };
        Ok(Expr { pos, kind })
    }

    /// A primary that starts with a word: literal, quantifier, `if`, name.
    fn word(&mut self, pos: super::diag::Pos, word: String) -> Result<Expr, Diag> {
        let kind = match word.as_str() {
            "true" => ExprKind::Bool(true),
            "false" => ExprKind::Bool(false),
            "none" => ExprKind::None,
            "if" => {
                let cond = self.expr()?;
                self.expect_word("then")?;
                let then = self.expr()?;
                self.expect_word("else")?;
                let otherwise = self.expr()?;
                ExprKind::If(Box::new(cond), Box::new(then), Box::new(otherwise))
            }
            "any" | "all" | "sum" | "count" => {
                let quant = match word.as_str() {
                    "any" => Quant::Any,
                    "all" => Quant::All,
                    "sum" => Quant::Sum,
                    _ => Quant::Count,
                };
                let mut bindings = vec![self.binding()?];
                while self.eat(",") {
                    bindings.push(self.binding()?);
                }
                self.expect(":")?;
                ExprKind::Quant(quant, bindings, Box::new(self.expr()?))
            }
            w if super::parser::RESERVED.contains(&w) => {
                self.at -= 1;
                return self.expected("an expression");
            }
            _ => return self.name_tail(pos, word),
        };
        Ok(Expr { pos, kind })
    }

    /// A name, possibly indexed (`board[i]`) or called (`wins(X)`).
    fn name_tail(&mut self, pos: super::diag::Pos, text: String) -> Result<Expr, Diag> {
        let name = Name { pos, text };
        let kind = if self.eat("[") {
            let index = self.expr()?;
            self.expect("]")?;
            ExprKind::Index(name, Box::new(index))
        } else if self.eat("(") {
            ExprKind::Call(name, self.expr_list(")")?)
        } else {
            ExprKind::Name(name.text)
        };
        Ok(Expr { pos, kind })
    }
}
