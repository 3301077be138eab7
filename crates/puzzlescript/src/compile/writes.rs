//! The cells of a rule's rows that its replacements can change
//! (`Rule::writes`). Applying a match visits these alone, in the row's
//! order, so that a rule whose rows are mostly cells kept as they are (a
//! wide row that places one object, `[ a | | | b ] -> [ a | | | c ]`) does
//! not walk every pattern of every match; and on boards of one word each a
//! cell is written from four plain words.

use super::program::{CellPattern, PatternCell, Replacement, Rule};
use crate::bits;

pub use super::write_list::{CellWrite, PlainWrite, RuleWrites};

impl PlainWrite {
    /// The plain form of `rep`, if it has one.
    fn of(rep: &Replacement) -> Option<PlainWrite> {
        let one = |words: &[u32]| match words {
            [] => Some(0),
            [w] => Some(*w),
            _ => None,
        };
        let (Some(o), Some(w), true) = (one(&rep.object_words), one(&rep.move_words), rep.fixed)
        else {
            return None;
        };
        let (o, k) = (o as usize, w as usize);
        Some(PlainWrite {
            object_word: o as u32,
            clear: word(&rep.clear, o),
            set: word(&rep.set, o),
            word: w,
            moves_clear: word(&rep.moves_clear, k) | word(&rep.moves_layers, k),
            moves_set: word(&rep.moves_set, k),
        })
    }
}

/// The writes of `rule` ([`RuleWrites`], [`row_writes`]); `layers` are the
/// objects of each layer when no cell of the game ever holds two objects of
/// one layer (`super::one_per_layer`), else `None`.
pub fn rule_writes(rule: &Rule, layers: Option<&[Vec<u64>]>) -> RuleWrites {
    let rows = row_writes(rule, layers);
    let plain = !rule.rigid && rows.iter().flatten().all(|w| w.plain.is_some());
    RuleWrites { rows, plain }
}

/// Per row of `rule`, the cells whose replacement can change a cell that
/// matched their pattern, in the row's order. A replacement is left out
/// only when no cell its pattern accepts can change under it (see
/// [`keeps_any_match`], with `layers` as in [`rule_writes`]); every
/// replacement of a rigid rule is kept, since writing it also marks the
/// cell's movements as rigid.
pub fn row_writes(rule: &Rule, layers: Option<&[Vec<u64>]>) -> Vec<Box<[CellWrite]>> {
    rule.rows
        .iter()
        .map(|row| {
            let mut out = Vec::new();
            let (mut step, mut gaps) = (0u32, 0u8);
            for (c, cell) in row.iter().enumerate() {
                let PatternCell::Cell(p) = cell else {
                    gaps += 1;
                    continue;
                };
                if let Some(rep) = &p.replacement {
                    if rule.rigid || !keeps_any_match(p, rep, layers) {
                        out.push(CellWrite {
                            cell: c as u32,
                            step,
                            gaps,
                            plain: PlainWrite::of(rep),
                        });
                    }
                }
                step += 1;
            }
            out.into_boxed_slice()
        })
        .collect()
}

/// True when the rewrite `(old & !clear) | set` (and its movements') leaves
/// every cell that satisfies `p` as it was: everything it sets, `p`
/// requires already, and everything it clears without setting again, `p`
/// excludes already. Nothing may be chosen at random. With `layers` (no
/// cell ever holds two objects of one layer), `p` also excludes the other
/// objects of the layer of each object it requires, and of the layer of
/// each property it requires whose objects all share one.
pub fn keeps_any_match(p: &CellPattern, rep: &Replacement, layers: Option<&[Vec<u64>]>) -> bool {
    let moves_cleared: Vec<u64> = (0..rep.moves_clear.len().max(rep.moves_layers.len()))
        .map(|w| word(&rep.moves_clear, w) | word(&rep.moves_layers, w))
        .collect();
    // The layers are read only when the pattern's exclusions do not cover
    // what the replacement clears (most replacements fail before).
    let cleared_absent = || match layers {
        _ if cleared_within(&rep.clear, &rep.set, &p.missing) => true,
        Some(layers) => cleared_within(&rep.clear, &rep.set, &excluded_by_layers(p, layers)),
        None => false,
    };
    rep.fixed
        && within(&rep.set, &p.present)
        && within(&rep.moves_set, &p.moves_present)
        && cleared_within(&moves_cleared, &rep.moves_set, &p.moves_missing)
        && cleared_absent()
}

/// The objects absent from every cell that satisfies `p` on a board that
/// never holds two objects of one layer (`layers`, the objects of each):
/// those `p` excludes, and in each layer where `p` requires an object, or a
/// property all of whose objects lie in that layer, every other object.
pub(super) fn excluded_by_layers(p: &CellPattern, layers: &[Vec<u64>]) -> Vec<u64> {
    let mut absent = p.missing.to_vec();
    for layer in layers {
        // What a satisfying cell holds of this layer, when the pattern says.
        let only = if bits::intersects(layer, &p.present) {
            Some(&p.present[..])
        } else {
            p.any_present
                .iter()
                .find(|any| !bits::is_zero(any) && bits::contains(layer, any))
                .map(|any| &any[..])
        };
        let Some(only) = only else { continue };
        for (w, slot) in absent.iter_mut().enumerate() {
            *slot |= word(layer, w) & !word(only, w);
        }
    }
    absent
}

/// Word `w` of `words`, zero past its end.
fn word(words: &[u64], w: usize) -> u64 {
    words.get(w).copied().unwrap_or(0)
}

/// True when every bit of `a` is in `b`.
fn within(a: &[u64], b: &[u64]) -> bool {
    a.iter().enumerate().all(|(w, &x)| x & !word(b, w) == 0)
}

/// True when every bit of `clear` is set again (`set`) or already absent
/// (`absent`).
fn cleared_within(clear: &[u64], set: &[u64], absent: &[u64]) -> bool {
    clear
        .iter()
        .enumerate()
        .all(|(w, &x)| x & !word(set, w) & !word(absent, w) == 0)
}

#[cfg(test)]
mod tests {
    use super::{keeps_any_match, row_writes};
    use crate::compile::{CellPattern, PatternCell, Replacement};
    use crate::test_rng::xorshift;

    const GAME: &str = "OBJECTS\nBackground\nblack\nPlayer\nwhite\nCrate\nred\nWall\nblue\n\
        Mark\ngreen\nLEGEND\n. = Background\nP = Player\n* = Crate\n# = Wall\n\
        Thing = Crate or Wall\nSOUNDS\nCOLLISIONLAYERS\nBackground\nMark\nPlayer, Wall, Crate\n\
        RULES\n[ Mark | | Crate ] -> [ Mark | | Wall ]\n\
        [ > Player | Crate ] -> [ > Player | > Crate ]\n\
        [ Mark ] -> [ ]\n[ no Mark ] -> [ Mark ]\n[ Crate Mark ] -> [ Crate Mark ]\n\
        [ stationary Crate ] -> [ Crate ]\n[ Thing | Mark ] -> [ Thing | Mark ]\n\
        [ Mark | ... | Mark | ... | Crate ] -> [ Mark | ... | Mark | ... | ]\n\
        rigid [ > Player | Crate ] -> [ > Player | Crate ]\n\
        WINCONDITIONS\nLEVELS\n.P*.\n";

    /// A cell's objects and movements drawn at random, then made to
    /// satisfy `p` (one word each).
    fn satisfying(p: &CellPattern, next: &mut impl FnMut() -> u64) -> (u64, u64) {
        let mut o = (next() | p.present[0]) & !p.missing[0];
        for any in &p.any_present {
            if o & any[0] == 0 {
                o |= any[0] & any[0].wrapping_neg();
            }
        }
        let m = (next() | p.moves_present[0]) & !p.moves_missing[0];
        (o, m)
    }

    fn rewrite(rep: &Replacement, (o, m): (u64, u64)) -> (u64, u64) {
        let mclear = rep.moves_clear[0] | rep.moves_layers[0];
        (
            (o & !rep.clear[0]) | rep.set[0],
            (m & !mclear) | rep.moves_set[0],
        )
    }

    /// A replacement left out of a row's writes changes no cell its pattern
    /// accepts; every other one is listed with its place in the row.
    #[test]
    fn left_out_replacements_change_no_match() {
        let g = crate::compile("case", GAME).expect("the game compiles");
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let (mut kept, mut left) = (0, 0);
        for rule in g.rules.groups.iter().flatten() {
            let writes = row_writes(rule, None);
            for (row, listed) in rule.rows.iter().zip(&writes) {
                for (c, cell) in row.iter().enumerate() {
                    let PatternCell::Cell(p) = cell else { continue };
                    let Some(rep) = &p.replacement else { continue };
                    if listed.iter().any(|w| w.cell as usize == c) {
                        kept += 1;
                        continue;
                    }
                    left += 1;
                    assert!(keeps_any_match(p, rep, None) && !rule.rigid);
                    for _ in 0..200 {
                        let cell = satisfying(p, &mut next);
                        assert_eq!(rewrite(rep, cell), cell, "line {}", rule.line);
                    }
                }
            }
        }
        assert!(kept >= 8 && left >= 8, "{kept} kept, {left} left out");
    }

    /// Steps and gaps place each listed cell: `[ Mark | | Crate ]` writes
    /// its third cell alone (a `Mark` kept is left out: it is alone in its
    /// layer), and the row with two ellipses its last.
    #[test]
    fn writes_know_their_place() {
        let g = crate::compile("case", GAME).expect("the game compiles");
        let rules: Vec<_> = g.rules.groups.iter().flatten().collect();
        let line = rules[0].line;
        for rule in rules.iter().filter(|r| r.line == line) {
            // Rows scanned the other way are stored reversed.
            let w = &row_writes(rule, None)[0];
            assert_eq!(w.len(), 1);
            assert_eq!((w[0].step, w[0].gaps), (w[0].cell, 0));
            let Some(PatternCell::Cell(p)) = rule.rows[0].get(w[0].cell as usize) else {
                panic!("a write names a cell");
            };
            let crate_ = g.names.objects["crate"].0;
            assert!(crate::bits::get(&p.present, crate_));
        }
        let gapped = rules
            .iter()
            .find(|r| r.ellipses[0] == 2)
            .expect("a rule with two ellipses");
        let w = &row_writes(gapped, None)[0];
        assert_eq!(w.len(), 1);
        assert_eq!((w[0].step, w[0].gaps), (w[0].cell - 2, 2));
        // Rigid rules keep every replacement.
        let rigid = rules.iter().find(|r| r.rigid).expect("a rigid rule");
        assert_eq!(row_writes(rigid, None)[0].len(), 2);
    }

    /// On a board of several object and movement words, a plain write
    /// changes a cell as the whole replacement does.
    #[test]
    fn plain_writes_are_their_replacements_on_wide_boards() {
        let fillers: String = (0..70).map(|k| format!("Filler{k}\ngrey\n")).collect();
        let layers: String = (0..70).map(|k| format!("Filler{k}\n")).collect();
        // Twenty fillers pushed by the player: their layers move, and the
        // movements of 21 layers take two words (`MoveSlots`).
        let pushes: String = (0..20)
            .map(|k| format!("[ > Player | Filler{k} ] -> [ > Player | > Filler{k} ]\n"))
            .collect();
        let game = format!(
            "OBJECTS\nBackground\nblack\nPlayer\nwhite\nCrate\nred\n{fillers}\
             LEGEND\n. = Background\nP = Player\n* = Crate\nSOUNDS\nCOLLISIONLAYERS\n\
             Background\nPlayer, Crate\n{layers}RULES\n\
             [ Player | Filler69 ] -> [ Player | Filler68 ]\n\
             [ > Player | Filler3 ] -> [ > Player | > Filler3 ]\n\
             [ Filler69 ] -> [ ]\n{pushes}WINCONDITIONS\nLEVELS\n.P*.\n"
        );
        let g = crate::compile("case", &game).expect("the game compiles");
        assert!(g.obj_words > 1 && g.mov_words > 1);
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let mut plain = 0;
        for rule in g.rules.groups.iter().flatten() {
            for (row, writes) in rule.rows.iter().zip(&super::rule_writes(rule, None).rows) {
                for w in writes.iter() {
                    let (Some(pw), Some(PatternCell::Cell(p))) =
                        (w.plain, row.get(w.cell as usize))
                    else {
                        continue;
                    };
                    let Some(rep) = &p.replacement else { continue };
                    plain += 1;
                    for _ in 0..50 {
                        let o: Vec<u64> = (0..g.obj_words).map(|_| next()).collect();
                        let m: Vec<u64> = (0..g.mov_words).map(|_| next()).collect();
                        let whole = |words: &[u64], clear: &[u64], set: &[u64]| -> Vec<u64> {
                            (0..words.len())
                                .map(|k| (words[k] & !clear[k]) | set[k])
                                .collect()
                        };
                        let mclear: Vec<u64> = rep
                            .moves_clear
                            .iter()
                            .zip(&rep.moves_layers[..])
                            .map(|(a, b)| a | b)
                            .collect();
                        let (want_o, want_m) = (
                            whole(&o, &rep.clear, &rep.set),
                            whole(&m, &mclear, &rep.moves_set),
                        );
                        let (mut got_o, mut got_m) = (o.clone(), m.clone());
                        let (ow, mw) = (pw.object_word as usize, pw.word as usize);
                        got_o[ow] = (o[ow] & !pw.clear) | pw.set;
                        got_m[mw] = (m[mw] & !pw.moves_clear) | pw.moves_set;
                        assert_eq!((got_o, got_m), (want_o, want_m), "line {}", rule.line);
                    }
                }
            }
        }
        assert!(plain >= 4, "{plain} plain writes");
    }
}
