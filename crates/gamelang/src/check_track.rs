//! Checking the tracks of a `.game` file: their value sets, index sets and
//! initial values, which must be constants inside the sets.

use super::ast::{self, Init, SetExpr, TypeExpr};
use super::check::{Checker, Sym, Ty, MAX_SLOTS};
use super::diag::{Diag, Pos};
use super::ir::{Dom, Val};
use super::rules::TrackInfo;

impl Checker<'_> {
    /// Declares a track and its elements' slots and initial values.
    pub fn track(&mut self, track: &ast::Track) -> Result<(), Diag> {
        let (dom, ty) = self.track_type(&track.ty)?;
        let (lo, len, index_ty, labels) = match &track.index {
            None => (0, 1, Ty::Int, None),
            Some(set) => {
                let (lo, len, ty) = self.index_set(track.name.pos, set)?;
                let labels = (0..len).map(|i| self.show(lo + Val::from(i), ty)).collect();
                (lo, len, ty, Some(labels))
            }
        };
        if self.rules.slots.len() + len as usize > MAX_SLOTS {
            return Err(Diag::new(
                track.name.pos,
                format!("the game has more than {MAX_SLOTS} track elements"),
            ));
        }
        let t = self.rules.tracks.len();
        self.declare(&track.name, Sym::Track(t))?;
        self.rules.tracks.push(TrackInfo {
            name: track.name.text.clone(),
            first_slot: self.rules.slots.len() as u32,
            index_labels: labels,
            dom,
        });
        self.track_ty.push(ty);
        self.track_index.push((lo, len, index_ty));
        let values = self.initial_values(track, dom, ty, len)?;
        let new_len = self.rules.slots.len() + len as usize;
        self.rules.slots.resize(new_len, dom);
        self.defaults.extend(values);
        Ok(())
    }

    fn track_type(&mut self, ty: &TypeExpr) -> Result<(Dom, Ty), Diag> {
        match ty {
            TypeExpr::Bool(_) => Ok((Dom::Bool, Ty::Bool)),
            TypeExpr::Range(lo, hi) => {
                let (a, b) = (self.const_int(lo)?, self.const_int(hi)?);
                if b < a || i128::from(b) - i128::from(a) >= 1 << 32 {
                    return Err(Diag::new(
                        lo.pos,
                        format!("the range {a}..{b} is empty or too large"),
                    ));
                }
                Ok((
                    Dom::Int {
                        lo: a,
                        size: (b - a + 1) as u64,
                    },
                    Ty::Int,
                ))
            }
            TypeExpr::Named(name, opt) => match self.global(name.pos, &name.text)? {
                Sym::Type(t) => {
                    let (base, len) = self.types[t].range();
                    Ok((
                        Dom::Enum {
                            base,
                            len,
                            opt: *opt,
                        },
                        Ty::Enum(t, *opt),
                    ))
                }
                _ => Err(Diag::new(
                    name.pos,
                    format!("`{}` is not a set of values", name.text),
                )),
            },
        }
    }

    /// An array's index set: first index, length and index type.
    fn index_set(&mut self, pos: Pos, set: &SetExpr) -> Result<(Val, u32, Ty), Diag> {
        if let Some(t) = self.named_type(set) {
            let (base, len) = self.types[t].range();
            return Ok((base, len as u32, Ty::Enum(t, false)));
        }
        let (lo, hi) = match set {
            SetExpr::Range(lo, hi) => (self.const_int(lo)?, self.const_int(hi)?),
            SetExpr::Count(n) => (0, self.const_int(n)?.saturating_sub(1)),
            _ => {
                return Err(Diag::new(
                    pos,
                    "an array is indexed by `lo..hi`, a count or a named set".to_string(),
                ))
            }
        };
        if hi < lo || i128::from(hi) - i128::from(lo) >= MAX_SLOTS as i128 {
            return Err(Diag::new(
                pos,
                format!("the index set {lo}..{hi} is empty or too large"),
            ));
        }
        Ok((lo, (hi - lo + 1) as u32, Ty::Int))
    }

    fn initial_values(
        &mut self,
        track: &ast::Track,
        dom: Dom,
        ty: Ty,
        len: u32,
    ) -> Result<Vec<Val>, Diag> {
        let exprs: Vec<&ast::Expr> = match &track.init {
            None => return Ok(vec![dom.value(0); len as usize]),
            Some(Init::All(e)) => vec![e; len as usize],
            Some(Init::Each(pos, list)) if list.len() != len as usize => {
                return Err(Diag::new(
                    *pos,
                    format!(
                        "`{}` has {len} element(s) but {} initial value(s)",
                        track.name.text,
                        list.len()
                    ),
                ))
            }
            Some(Init::Each(_, list)) => list.iter().collect(),
        };
        let mut values = Vec::new();
        for e in exprs {
            let (v, vty) = self.const_any(e)?;
            self.assignable(e.pos, vty, ty)?;
            self.in_dom(e.pos, v, dom, &track.name.text)?;
            values.push(v);
        }
        Ok(values)
    }

    /// Refuses a value of type `value` for a track of type `track`.
    pub fn assignable(&self, pos: Pos, value: Ty, track: Ty) -> Result<(), Diag> {
        let ok = match (value, track) {
            (Ty::Enum(a, o), Ty::Enum(b, p)) => a == b && (!o || p),
            (Ty::NoneLit, Ty::Enum(_, true)) => true,
            _ => value == track,
        };
        if ok {
            return Ok(());
        }
        Err(Diag::new(
            pos,
            format!(
                "expected {}, found {}",
                self.ty_name(track),
                self.ty_name(value)
            ),
        ))
    }

    /// Refuses a constant outside a track's set.
    pub fn in_dom(&self, pos: Pos, v: Val, dom: Dom, track: &str) -> Result<(), Diag> {
        if dom.index(v).is_some() {
            return Ok(());
        }
        let set = match dom {
            Dom::Int { lo, size } => format!("{lo}..{}", lo + size as Val - 1),
            _ => "its set".to_string(),
        };
        Err(Diag::new(
            pos,
            format!("the value {v} is outside the values of `{track}` ({set})"),
        ))
    }
}
