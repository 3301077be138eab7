//! Parses the tokens of a `.game` file into its declarations ([`ast::File`]).
//! Recursive descent; nesting is capped so that a hostile file cannot
//! exhaust the stack.

use super::ast::*;
use super::diag::{Diag, Pos};
use super::lexer::{lex, Tok};

/// Words that cannot name a track, value, constant or definition.
pub const RESERVED: &[&str] = &[
    "game",
    "players",
    "type",
    "const",
    "track",
    "define",
    "start",
    "decision",
    "by",
    "when",
    "outcome",
    "otherwise",
    "if",
    "then",
    "else",
    "for",
    "in",
    "random",
    "any",
    "all",
    "sum",
    "count",
    "not",
    "and",
    "or",
    "true",
    "false",
    "none",
    "bool",
];

/// Deepest nesting of expressions and blocks accepted.
const MAX_DEPTH: u32 = 100;

/// Parses a whole file.
pub fn parse(text: &str) -> Result<File, Diag> {
    let mut parser = Parser {
        toks: lex(text)?,
        at: 0,
        depth: 0,
    };
    let mut decls = Vec::new();
    while parser.peek() != &Tok::Eof {
        decls.push(parser.decl()?);
    }
    Ok(File { decls })
}

/// The parser's cursor over the tokens.
pub(super) struct Parser {
    pub(super) toks: Vec<(Pos, Tok)>,
    pub(super) at: usize,
    pub(super) depth: u32,
}

impl Parser {
    pub(super) fn peek(&self) -> &Tok {
        self.toks.get(self.at).map_or(&Tok::Eof, |(_, t)| t)
    }

    pub(super) fn peek_at(&self, ahead: usize) -> &Tok {
        self.toks.get(self.at + ahead).map_or(&Tok::Eof, |(_, t)| t)
    }

    pub(super) fn pos(&self) -> Pos {
        self.toks
            .get(self.at)
            .or_else(|| self.toks.last())
            .map_or(Pos::default(), |(p, _)| *p)
    }

    pub(super) fn bump(&mut self) -> Tok {
        let tok = self.peek().clone();
        if self.at < self.toks.len() {
            self.at += 1;
        }
        tok
    }

    /// True (and consumes it) when the next token is the symbol `sym`.
    pub(super) fn eat(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Tok::Sym(s) if *s == sym) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// True (and consumes it) when the next token is the keyword `word`.
    pub(super) fn eat_word(&mut self, word: &str) -> bool {
        if self.is_word(word) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn is_word(&self, word: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == word)
    }

    pub(super) fn expected<T>(&self, what: &str) -> Result<T, Diag> {
        Err(Diag::new(
            self.pos(),
            format!("expected {what}, found {}", self.peek().describe()),
        ))
    }

    pub(super) fn expect(&mut self, sym: &str) -> Result<(), Diag> {
        if self.eat(sym) {
            Ok(())
        } else {
            self.expected(&format!("`{sym}`"))
        }
    }

    pub(super) fn expect_word(&mut self, word: &str) -> Result<(), Diag> {
        if self.eat_word(word) {
            Ok(())
        } else {
            self.expected(&format!("`{word}`"))
        }
    }

    /// A name that is not a reserved word.
    pub(super) fn name(&mut self) -> Result<Name, Diag> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Ident(text) if !RESERVED.contains(&text.as_str()) => {
                self.at += 1;
                Ok(Name { pos, text })
            }
            _ => self.expected("a name"),
        }
    }

    fn string(&mut self) -> Result<String, Diag> {
        match self.bump() {
            Tok::Str(s) => Ok(s),
            _ => {
                self.at -= 1;
                self.expected("a double-quoted string")
            }
        }
    }

    pub(super) fn names(&mut self) -> Result<Vec<Name>, Diag> {
        let mut names = vec![self.name()?];
        while self.eat(",") {
            names.push(self.name()?);
        }
        Ok(names)
    }

    /// Enters one level of nesting, refusing files nested too deeply.
    pub(super) fn enter(&mut self) -> Result<(), Diag> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Diag::new(
                self.pos(),
                format!("nesting deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(())
    }

    fn decl(&mut self) -> Result<Decl, Diag> {
        let pos = self.pos();
        let word = match self.peek() {
            Tok::Ident(w) => w.clone(),
            _ => return self.expected("a declaration (`game`, `players`, `track`, ...)"),
        };
        self.at += 1;
        match word.as_str() {
            "game" => Ok(Decl::Game(pos, self.string()?)),
            "players" => Ok(Decl::Players(self.names()?)),
            "type" => {
                let name = self.name()?;
                self.expect("=")?;
                self.expect("{")?;
                let values = self.names()?;
                self.expect("}")?;
                Ok(Decl::Type(name, values))
            }
            "const" => {
                let name = self.name()?;
                self.expect("=")?;
                Ok(Decl::Const(name, self.expr()?))
            }
            "track" => self.track().map(Decl::Track),
            "define" => self.define(),
            "start" => Ok(Decl::Start(pos, self.block()?)),
            "decision" => self.decision().map(Decl::Decision),
            "outcome" => {
                let name = self.string()?;
                if self.eat_word("otherwise") {
                    return Ok(Decl::Outcome(pos, name, None));
                }
                self.expect_word("when")?;
                Ok(Decl::Outcome(pos, name, Some(self.expr()?)))
            }
            _ => {
                self.at -= 1;
                self.expected("a declaration (`game`, `players`, `track`, ...)")
            }
        }
    }

    fn track(&mut self) -> Result<Track, Diag> {
        let name = self.name()?;
        let index = if self.eat("[") {
            let first = self.expr()?;
            let set = if self.eat("..") {
                SetExpr::Range(first, self.expr()?)
            } else {
                SetExpr::Count(first)
            };
            self.expect("]")?;
            Some(set)
        } else {
            None
        };
        self.expect(":")?;
        let ty = self.type_expr()?;
        let init = if self.eat("=") {
            Some(self.init()?)
        } else {
            None
        };
        Ok(Track {
            name,
            index,
            ty,
            init,
        })
    }

    fn type_expr(&mut self) -> Result<TypeExpr, Diag> {
        let pos = self.pos();
        if self.eat_word("bool") {
            return Ok(TypeExpr::Bool(pos));
        }
        let first = self.expr()?;
        if self.eat("..") {
            return Ok(TypeExpr::Range(first, self.expr()?));
        }
        match first.kind {
            ExprKind::Name(text) => {
                let optional = self.eat("?");
                Ok(TypeExpr::Named(Name { pos, text }, optional))
            }
            _ => Err(Diag::new(
                pos,
                "expected a value set: `bool`, `lo..hi` or a type name".to_string(),
            )),
        }
    }

    fn init(&mut self) -> Result<Init, Diag> {
        let pos = self.pos();
        if !self.eat("[") {
            return Ok(Init::All(self.expr()?));
        }
        let mut values = vec![self.expr()?];
        while self.eat(",") {
            values.push(self.expr()?);
        }
        self.expect("]")?;
        Ok(Init::Each(pos, values))
    }

    fn define(&mut self) -> Result<Decl, Diag> {
        let name = self.name()?;
        let params = if self.eat("(") {
            let params = self.names()?;
            self.expect(")")?;
            params
        } else {
            Vec::new()
        };
        self.expect("=")?;
        Ok(Decl::Define(name, params, self.expr()?))
    }

    fn decision(&mut self) -> Result<Decision, Diag> {
        let name = self.name()?;
        let mut params = Vec::new();
        if self.eat("(") {
            params.push(self.binding()?);
            while self.eat(",") {
                params.push(self.binding()?);
            }
            self.expect(")")?;
        }
        let by = if self.eat_word("by") {
            self.by()?
        } else {
            By::Everyone
        };
        let when = if self.eat_word("when") {
            Some(self.expr()?)
        } else {
            None
        };
        let body = self.block()?;
        Ok(Decision {
            name,
            params,
            by,
            when,
            body,
        })
    }

    fn by(&mut self) -> Result<By, Diag> {
        let first = self.name()?;
        if self.eat_word("in") {
            self.expect("{")?;
            let players = self.names()?;
            self.expect("}")?;
            return Ok(By::Each(first, Some(players)));
        }
        if !self.eat(",") {
            // A lone name is a player or a variable; the checker decides.
            return Ok(By::Players(vec![first]));
        }
        let mut players = vec![first];
        players.extend(self.names()?);
        Ok(By::Players(players))
    }

    /// `var in set`.
    pub(super) fn binding(&mut self) -> Result<Binding, Diag> {
        let var = self.name()?;
        self.expect_word("in")?;
        Ok(Binding {
            var,
            set: self.set()?,
        })
    }

    fn set(&mut self) -> Result<SetExpr, Diag> {
        let pos = self.pos();
        if self.eat("{") {
            let values = self.expr_list("}")?;
            return Ok(SetExpr::List(pos, values));
        }
        let first = self.expr()?;
        if self.eat("..") {
            return Ok(SetExpr::Range(first, self.expr()?));
        }
        match first.kind {
            ExprKind::Name(text) => Ok(SetExpr::Named(Name { pos, text })),
            _ => Err(Diag::new(
                pos,
                "expected a set: `lo..hi`, a type name or `{a, b, ...}`".to_string(),
            )),
        }
    }

    /// Comma-separated expressions up to the closing symbol (consumed).
    pub(super) fn expr_list(&mut self, close: &str) -> Result<Vec<Expr>, Diag> {
        let mut values = Vec::new();
        if self.eat(close) {
            return Ok(values);
        }
        values.push(self.expr()?);
        while self.eat(",") {
            values.push(self.expr()?);
        }
        self.expect(close)?;
        Ok(values)
    }
}
