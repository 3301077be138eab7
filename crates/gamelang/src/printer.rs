//! Prints a parsed file back as canonical text: one declaration per line,
//! blocks indented by two spaces, comments dropped, parentheses only where
//! precedence needs them. Parsing the result gives the same syntax tree, so
//! the text is a level's identity and reloads to the same game.

use super::ast::*;
use std::fmt::Write;

/// The canonical text of `file`.
pub fn print(file: &File) -> String {
    let mut out = String::new();
    for decl in &file.decls {
        decl_text(decl, &mut out);
    }
    out
}

fn names(list: &[Name]) -> String {
    list.iter()
        .map(|n| n.text.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn decl_text(decl: &Decl, out: &mut String) {
    // Writing to a String cannot fail.
    let _ = match decl {
        Decl::Game(_, title) => writeln!(out, "game \"{title}\""),
        Decl::Players(list) => writeln!(out, "players {}", names(list)),
        Decl::Type(name, values) => writeln!(out, "type {} = {{{}}}", name.text, names(values)),
        Decl::Const(name, value) => writeln!(out, "const {} = {}", name.text, expr(value, 0)),
        Decl::Track(track) => writeln!(out, "{}", track_text(track)),
        Decl::Define(name, params, body) if params.is_empty() => {
            writeln!(out, "define {} = {}", name.text, expr(body, 0))
        }
        Decl::Define(name, params, body) => {
            writeln!(
                out,
                "define {}({}) = {}",
                name.text,
                names(params),
                expr(body, 0)
            )
        }
        Decl::Start(_, body) => {
            out.push_str("start");
            block(body, 0, out);
            writeln!(out)
        }
        Decl::Decision(d) => {
            decision_head(d, out);
            block(&d.body, 0, out);
            writeln!(out)
        }
        Decl::Outcome(_, name, None) => writeln!(out, "outcome \"{name}\" otherwise"),
        Decl::Outcome(_, name, Some(when)) => {
            writeln!(out, "outcome \"{name}\" when {}", expr(when, 0))
        }
    };
}

fn track_text(track: &Track) -> String {
    let mut s = format!("track {}", track.name.text);
    if let Some(index) = &track.index {
        match index {
            SetExpr::Count(n) => s += &format!("[{}]", expr(n, 1)),
            other => s += &format!("[{}]", set(other)),
        }
    }
    s += ": ";
    s += &match &track.ty {
        TypeExpr::Bool(_) => "bool".to_string(),
        TypeExpr::Range(lo, hi) => format!("{}..{}", expr(lo, 1), expr(hi, 1)),
        TypeExpr::Named(name, optional) => {
            format!("{}{}", name.text, if *optional { "?" } else { "" })
        }
    };
    match &track.init {
        None => {}
        Some(Init::All(value)) => s += &format!(" = {}", expr(value, 0)),
        Some(Init::Each(_, values)) => s += &format!(" = [{}]", list(values)),
    }
    s
}

fn decision_head(d: &Decision, out: &mut String) {
    out.push_str("decision ");
    out.push_str(&d.name.text);
    if !d.params.is_empty() {
        let params: Vec<String> = d.params.iter().map(binding).collect();
        out.push_str(&format!("({})", params.join(", ")));
    }
    match &d.by {
        By::Everyone => {}
        By::Players(list) => out.push_str(&format!(" by {}", names(list))),
        By::Each(var, None) => out.push_str(&format!(" by {}", var.text)),
        By::Each(var, Some(list)) => {
            out.push_str(&format!(" by {} in {{{}}}", var.text, names(list)))
        }
    }
    if let Some(when) = &d.when {
        out.push_str(&format!(" when {}", expr(when, 0)));
    }
}

fn binding(b: &Binding) -> String {
    format!("{} in {}", b.var.text, set(&b.set))
}

fn set(s: &SetExpr) -> String {
    match s {
        SetExpr::Range(lo, hi) => format!("{}..{}", expr(lo, 1), expr(hi, 1)),
        SetExpr::Count(n) => format!("0..{} - 1", expr(n, 9)),
        SetExpr::Named(name) => name.text.clone(),
        SetExpr::List(_, values) => format!("{{{}}}", list(values)),
    }
}

fn list(values: &[Expr]) -> String {
    values
        .iter()
        .map(|v| expr(v, 0))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Prints ` {`, the statements indented one level deeper than `indent`, and `}`.
fn block(stmts: &[Stmt], indent: usize, out: &mut String) {
    out.push_str(" {\n");
    for s in stmts {
        stmt(s, indent + 1, out);
    }
    out.push_str(&"  ".repeat(indent));
    out.push('}');
}

fn stmt(s: &Stmt, indent: usize, out: &mut String) {
    out.push_str(&"  ".repeat(indent));
    match &s.kind {
        StmtKind::Assign(target, None, value) => {
            out.push_str(&format!("{} := {}", target.text, expr(value, 0)))
        }
        StmtKind::Assign(target, Some(index), value) => out.push_str(&format!(
            "{}[{}] := {}",
            target.text,
            expr(index, 0),
            expr(value, 0)
        )),
        StmtKind::If(cond, then, otherwise) => {
            out.push_str(&format!("if {}", expr(cond, 1)));
            block(then, indent, out);
            if !otherwise.is_empty() {
                out.push_str(" else");
                block(otherwise, indent, out);
            }
        }
        StmtKind::For(b, body) => {
            out.push_str(&format!("for {}", binding(b)));
            block(body, indent, out);
        }
        StmtKind::RandomIn(b, body) => {
            out.push_str(&format!("random {}", binding(b)));
            block(body, indent, out);
        }
        StmtKind::Random(branches) => {
            out.push_str("random {\n");
            for br in branches {
                out.push_str(&"  ".repeat(indent + 1));
                if br.den == 1 {
                    out.push_str(&format!("{}:", br.num));
                } else {
                    out.push_str(&format!("{}/{}:", br.num, br.den));
                }
                block(&br.body, indent + 1, out);
                out.push('\n');
            }
            out.push_str(&"  ".repeat(indent));
            out.push('}');
        }
    }
    out.push('\n');
}

/// Precedence of an expression's outermost form, doubled so that `not`
/// fits between `and` and the comparisons; quantifiers and `if` are 0.
fn rank(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary(op, _, _) => op.precedence() * 2,
        ExprKind::Not(_) => 5,
        ExprKind::In(_, _) => 6,
        ExprKind::Neg(_) => 12,
        ExprKind::Quant(..) | ExprKind::If(..) => 0,
        _ => 14,
    }
}

/// `e` printed where an expression of rank at least `min` is expected.
pub fn expr(e: &Expr, min: u8) -> String {
    let text = match &e.kind {
        ExprKind::Int(n) => n.to_string(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::None => "none".to_string(),
        ExprKind::Name(n) => n.clone(),
        ExprKind::Index(name, index) => format!("{}[{}]", name.text, expr(index, 0)),
        ExprKind::Call(name, args) => format!("{}({})", name.text, list(args)),
        // A negated negation prints as `- -x`, not `-(-x)`: parentheses would make the
        // canonical text nest deeper than the text it came from, past the parser's limit.
        ExprKind::Neg(inner) if matches!(inner.kind, ExprKind::Neg(_)) => {
            format!("- {}", expr(inner, 12))
        }
        ExprKind::Neg(inner) => format!("-{}", expr(inner, 13)),
        ExprKind::Not(inner) => format!("not {}", expr(inner, 5)),
        ExprKind::Binary(op, l, r) => {
            let p = op.precedence() * 2;
            format!("{} {} {}", expr(l, p), op.symbol(), expr(r, p + 1))
        }
        ExprKind::In(value, values) => format!("{} in {{{}}}", expr(value, 6), list(values)),
        ExprKind::If(c, a, b) => {
            format!("if {} then {} else {}", expr(c, 0), expr(a, 0), expr(b, 0))
        }
        ExprKind::Quant(q, bindings, body) => {
            let bs: Vec<String> = bindings.iter().map(binding).collect();
            format!("{} {}: {}", q.keyword(), bs.join(", "), expr(body, 0))
        }
    };
    if rank(e) < min {
        format!("({text})")
    } else {
        text
    }
}
