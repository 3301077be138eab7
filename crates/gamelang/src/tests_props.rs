//! Property tests: printing and reparsing random expressions keeps both the
//! text (a fixpoint) and the value (against a direct evaluator as oracle),
//! and bit-packing round-trips any values of any sets.

use proptest::prelude::*;

use super::ast::{BinOp, Expr, ExprKind};
use super::diag::Pos;
use super::ir::Dom;
use super::pack::Layout;
use super::{compile, parser, printer, Compiled};

fn e(kind: ExprKind) -> Expr {
    Expr {
        pos: Pos::default(),
        kind,
    }
}

/// Random integer expressions over small literals.
fn int_expr() -> impl Strategy<Value = Expr> {
    let leaf = (0i64..6).prop_map(|n| e(ExprKind::Int(n)));
    leaf.prop_recursive(5, 40, 3, |inner| {
        let ops = prop_oneof![
            Just(BinOp::Add),
            Just(BinOp::Sub),
            Just(BinOp::Mul),
            Just(BinOp::Div),
            Just(BinOp::Mod)
        ];
        let cmp = prop_oneof![Just(BinOp::Lt), Just(BinOp::Eq), Just(BinOp::Ge)];
        prop_oneof![
            inner.clone().prop_map(|a| e(ExprKind::Neg(Box::new(a)))),
            (ops, inner.clone(), inner.clone()).prop_map(|(op, a, b)| e(ExprKind::Binary(
                op,
                Box::new(a),
                Box::new(b)
            ))),
            (cmp, inner.clone(), inner.clone(), inner.clone(), inner).prop_map(
                |(op, a, b, x, y)| {
                    let c = e(ExprKind::Binary(op, Box::new(a), Box::new(b)));
                    let c = e(ExprKind::Not(Box::new(c)));
                    e(ExprKind::If(Box::new(c), Box::new(x), Box::new(y)))
                }
            ),
        ]
    })
}

/// The oracle: the value of an expression, `None` when it fails.
fn value(x: &Expr) -> Option<i64> {
    Some(match &x.kind {
        ExprKind::Int(n) => *n,
        ExprKind::Bool(b) => i64::from(*b),
        ExprKind::Neg(a) => value(a)?.checked_neg()?,
        ExprKind::Not(a) => i64::from(value(a)? == 0),
        ExprKind::If(c, a, b) => {
            if value(c)? != 0 {
                value(a)?
            } else {
                value(b)?
            }
        }
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (value(a)?, value(b)?);
            match op {
                BinOp::Add => a.checked_add(b)?,
                BinOp::Sub => a.checked_sub(b)?,
                BinOp::Mul => a.checked_mul(b)?,
                BinOp::Div => a.checked_div_euclid(b)?,
                BinOp::Mod => a.checked_rem_euclid(b)?,
                BinOp::Lt => i64::from(a < b),
                BinOp::Eq => i64::from(a == b),
                BinOp::Ge => i64::from(a >= b),
                _ => return None,
            }
        }
        _ => return None,
    })
}

proptest! {
    #[test]
    fn printed_expressions_reparse_to_the_same_text_and_value(x in int_expr()) {
        let text = printer::expr(&x, 0);
        let src = format!("players p\ntrack t: bool\ndefine k = {text}\n");
        let file = parser::parse(&src).expect("printed text parses");
        let reprinted = printer::print(&file);
        prop_assert!(reprinted.contains(&format!("define k = {text}\n")), "{reprinted}");
        match value(&x) {
            Some(v) => {
                let game = format!("{src}outcome \"yes\" when k == {v}\noutcome \"no\" otherwise\n");
                let g = compile("p.game", &game).expect("compiles").game;
                use model::Game;
                let start = &g.initial_states()[0];
                prop_assert_eq!(g.terminal(start), Some(0), "{} should be {}", text, v);
            }
            None => {
                let game = format!("{src}outcome \"yes\" when k == 0\n");
                prop_assert!(compile("p.game", &game).is_err(), "{} should fail", text);
            }
        }
    }

    #[test]
    fn packing_round_trips(sizes in proptest::collection::vec((1u64..300, -5i64..5), 1..20), error: bool, seed: u64) {
        let doms: Vec<Dom> = sizes.iter().map(|&(size, lo)| Dom::Int { lo, size }).collect();
        let values: Vec<i64> = doms
            .iter()
            .enumerate()
            .map(|(i, d)| match d {
                Dom::Int { lo, size } => lo + (seed.wrapping_mul(i as u64 + 7) % size) as i64,
                _ => 0,
            })
            .collect();
        let layout = Layout::new(&doms);
        let mut buf = Vec::new();
        layout.pack(&values, &doms, error, &mut buf);
        prop_assert_eq!(buf.len(), layout.bytes);
        let mut back = Vec::new();
        prop_assert_eq!(layout.unpack(&buf, &doms, &mut back), Some(error));
        prop_assert_eq!(back, values);
    }
}

/// Pieces of `.game` text, shuffled into mostly-wrong files.
const PIECES: &[&str] = &[
    "players X, O\n",
    "track t: 0..3 = 0\n",
    "track b[0..2]: player? = none\n",
    "define f(x) = ",
    "decision d(i in 0..2) by p when ",
    "outcome \"o\" when ",
    "outcome \"d\" otherwise\n",
    "random { 1/2: t := 1  1/2: t := 2 }",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "t",
    "b[i]",
    "i",
    "p",
    "X",
    "none",
    ":=",
    "==",
    "+",
    "-",
    "/",
    "%",
    "and",
    "not",
    "any j in 0..2:",
    "sum j in 0..t:",
    "if",
    "then",
    "else",
    "1",
    "0",
    "2",
    "next(p)",
    "f(t)",
    ",",
    ":",
    "\n",
    "\"",
    "start",
    "for k in 0..t",
    "b[t] := X",
    "t := t / 0",
    "type H = {a, c}\n",
    "track h: H = a\n",
];

proptest! {
    #[test]
    fn arbitrary_text_never_panics(picks in proptest::collection::vec(0..PIECES.len(), 0..40)) {
        let src: String = picks.iter().map(|&i| PIECES[i]).collect::<Vec<_>>().join(" ");
        if let Ok(Compiled { game: g, canonical: text, .. }) = compile("fuzz.game", &src) {
            use model::{Game, Successors};
            // A file that loads must reload from its canonical text and expand.
            prop_assert!(compile("again.game", &text).is_ok(), "{}", text);
            let mut out = Successors::new();
            for s in g.initial_states() {
                let _ = g.terminal(&s);
                g.successors(&s, &mut out);
                let _ = g.render(&s);
            }
        }
    }
}
