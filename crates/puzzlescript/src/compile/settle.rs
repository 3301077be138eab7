//! Which rules, and which groups of rules, settle in one pass: once a pass
//! of the group changed the board, a second pass would change nothing, so
//! the engine ends the group's fixpoint there (`Rule::settles`,
//! `RuleSet::settles`) instead of searching every rule again to find that
//! out. Games that redraw decoration every turn (`[ decoration ] -> [ ]`
//! expanded to a rule per layer, `[ walls | ] -> [ walls | coast ]`, a
//! frame drawn by a hundred rules of two rows) paid for that second search
//! on every turn.
//!
//! The analysis reads the rule's writes (`Rule::writes`, the only cells its
//! matches change) and what each write can change on a cell that satisfies
//! its pattern ([`WriteEffect`]); with one object a layer
//! (`super::one_per_layer`), a pattern that requires an object excludes the
//! rest of its layer, so `[ row_1 ] -> [ wall row_1 ]` changes the wall
//! layer alone.

use super::program::{CellPattern, PatternCell, Replacement, Rule};
use super::writes::excluded_by_layers;

/// Words of objects, then words of movements.
type Bits = [Vec<u64>; 2];

/// What a fixed replacement can change in a cell that satisfies its
/// pattern: the objects and movements it may set (those the pattern does
/// not require already) and those it may clear (neither set again nor
/// excluded already, by the pattern or, with one object a layer, by its
/// layers). On such a cell the replacement writes `(old & !clear) | set`
/// of these masks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteEffect {
    /// Objects and movements it may set.
    pub set: Bits,
    /// Objects and movements it may clear.
    pub clear: Bits,
}

impl WriteEffect {
    /// The effect of `rep` on the cells that satisfy `p`; `layers` are the
    /// objects of each layer when no cell of the game ever holds two objects
    /// of one layer, else `None` (as for `super::writes::rule_writes`).
    pub fn of(p: &CellPattern, rep: &Replacement, layers: Option<&[Vec<u64>]>) -> WriteEffect {
        let absent = match layers {
            Some(layers) => excluded_by_layers(p, layers),
            None => p.missing.to_vec(),
        };
        let moves_cleared = union(&rep.moves_clear, &rep.moves_layers);
        let (objects, movements) = (
            effect(&rep.set, &rep.clear, &p.present, &absent),
            effect(
                &rep.moves_set,
                &moves_cleared,
                &p.moves_present,
                &p.moves_missing,
            ),
        );
        WriteEffect {
            set: [objects.0, movements.0],
            clear: [objects.1, movements.1],
        }
    }

    /// Everything the effect may change.
    fn changed(&self) -> Bits {
        [
            union(&self.set[0], &self.clear[0]),
            union(&self.set[1], &self.clear[1]),
        ]
    }

    /// True when the effect sets nothing.
    fn clears_only(&self) -> bool {
        self.set.iter().flatten().all(|&w| w == 0)
    }
}

/// What `x -> (x & !clear) | set` may set and clear in a cell that holds
/// `present` and lacks `absent`: a bit set that it holds, or cleared (and
/// not set again) that it lacks, changes nothing.
fn effect(set: &[u64], clear: &[u64], present: &[u64], absent: &[u64]) -> (Vec<u64>, Vec<u64>) {
    let words = set.len().max(clear.len());
    let may_set = (0..words).map(|w| word(set, w) & !word(present, w));
    let may_clear = (0..words).map(|w| word(clear, w) & !word(set, w) & !word(absent, w));
    (may_set.collect(), may_clear.collect())
}

/// Word `w` of `words`, zero past its end.
fn word(words: &[u64], w: usize) -> u64 {
    words.get(w).copied().unwrap_or(0)
}

/// The words of `a` or `b`.
fn union(a: &[u64], b: &[u64]) -> Vec<u64> {
    (0..a.len().max(b.len()))
        .map(|w| word(a, w) | word(b, w))
        .collect()
}

/// True when `a` and `b` share a bit (objects with objects, movements with
/// movements).
fn meets(a: &Bits, b: &Bits) -> bool {
    a.iter()
        .zip(b)
        .any(|(x, y)| x.iter().zip(y).any(|(p, q)| p & q != 0))
}

/// `a` with the bits of `b` added.
fn add(a: &mut Bits, b: &Bits) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = union(x, y);
    }
}

/// What a rule reads and what its writes may change.
struct Footprint {
    /// Every object and movement some pattern tests (required, excluded,
    /// in a property, moving or not).
    tested: Bits,
    /// The objects and movements some pattern excludes.
    excluded: Bits,
    /// The effect of each write, in order.
    effects: Vec<WriteEffect>,
    /// Everything some write may change.
    changed: Bits,
}

impl Footprint {
    /// The footprint of `rule` (`layers` as in [`WriteEffect::of`]), or
    /// `None` when something it does is not a fixed write: a command, a
    /// rigid mark, a random rule or a random choice.
    fn of(rule: &Rule, layers: Option<&[Vec<u64>]>) -> Option<Footprint> {
        if rule.rigid || rule.random || !rule.commands.is_empty() {
            return None;
        }
        let mut print = Footprint {
            tested: Bits::default(),
            excluded: Bits::default(),
            effects: Vec::new(),
            changed: Bits::default(),
        };
        for p in rule.rows.iter().flatten().filter_map(|c| match c {
            PatternCell::Cell(p) => Some(p),
            PatternCell::Ellipsis => None,
        }) {
            let excluded = [p.missing.to_vec(), p.moves_missing.to_vec()];
            let mut tested = [p.present.to_vec(), p.moves_present.to_vec()];
            add(&mut tested, &excluded);
            for any in &p.any_present {
                tested[0] = union(&tested[0], any);
            }
            add(&mut print.tested, &tested);
            add(&mut print.excluded, &excluded);
        }
        for (r, writes) in rule.writes.rows.iter().enumerate() {
            for w in writes.iter() {
                let Some(PatternCell::Cell(p)) =
                    rule.rows.get(r).and_then(|row| row.get(w.cell as usize))
                else {
                    return None;
                };
                let rep = p.replacement.as_ref().filter(|rep| rep.fixed)?;
                let effect = WriteEffect::of(p, rep, layers);
                add(&mut print.changed, &effect.changed());
                print.effects.push(effect);
            }
        }
        Some(print)
    }

    /// True when every write clears only, and nothing it clears is
    /// excluded by `excluded`.
    fn clears_unexcluded(&self, excluded: &Bits) -> bool {
        self.effects.iter().all(WriteEffect::clears_only) && !meets(&self.changed, excluded)
    }
}

/// True when one pass of `rule` (every match found, applied in order)
/// leaves nothing that a second pass could change, nor that any one of its
/// matches could change if applied again (`layers` as in
/// [`WriteEffect::of`]). Nothing it does may be other than fixed writes
/// (no command, no rigid mark, not random), and one of these holds:
///
/// - **One cell**: one row of one cell. Its matches are distinct cells,
///   each written once, and a fixed replacement written twice gives what
///   it gave once.
/// - **Apart and alike**: every write has the same effect, which changes
///   nothing any pattern of the rule tests. The pass's matches stay its
///   matches whatever it writes (every re-check holds), and every cell a
///   match writes was given that one effect by the pass already.
/// - **Clears only**: no write sets anything, and no pattern excludes what
///   a write clears. Bits only go away, so a match after the pass matched
///   before it (its required bits were there, its excluded ones are never
///   written), was applied then, and clears what is clear already.
///
/// Cells a pass did not write match as they did, and those it wrote are
/// left as they are by its matches.
pub fn rule_settles(rule: &Rule, layers: Option<&[Vec<u64>]>) -> bool {
    let Some(print) = Footprint::of(rule, layers) else {
        return false;
    };
    if rule.single_cell().is_some() {
        return true;
    }
    let alike = match print.effects.split_first() {
        None => true,
        Some((first, rest)) => {
            rest.iter().all(|e| e == first) && !meets(&first.changed(), &print.tested)
        }
    };
    alike || print.clears_unexcluded(&print.excluded)
}

/// True when a pass of the group `rules` that changed the board leaves
/// nothing that a second pass could change (`layers` as in
/// [`WriteEffect::of`]), so that its fixpoint may stop there. A group of
/// one rule settles when the rule does ([`rule_settles`]). A larger one
/// when every rule does what a rule that settles may, and either
///
/// - its rules **clear only**, and no pattern of the group excludes what a
///   write of the group clears: the argument of one such rule holds for
///   them all, bits only going away; or
/// - each rule settles, and **the rules are apart**: no rule's writes
///   change what another tests or writes. Then the bits a rule reads and
///   writes change only under its own writes, in the pass of the group as
///   in a pass of the rule alone, which leaves nothing for its second.
///
/// Whichever pass of the reference's fixpoint comes next, it then applies
/// matches that each leave the board as it is, and the fixpoint ends on
/// the board the first pass left, with the same answer (something
/// changed).
pub fn group_settles(rules: &[Rule], layers: Option<&[Vec<u64>]>) -> bool {
    if let [rule] = rules {
        return rule_settles(rule, layers);
    }
    let Some(prints) = rules
        .iter()
        .map(|r| Footprint::of(r, layers))
        .collect::<Option<Vec<_>>>()
    else {
        return false;
    };
    let mut excluded = Bits::default();
    for print in &prints {
        add(&mut excluded, &print.excluded);
    }
    if prints.iter().all(|p| p.clears_unexcluded(&excluded)) {
        return true;
    }
    let apart = |i: usize, a: &Footprint| {
        prints.iter().enumerate().all(|(j, b)| {
            i == j || (!meets(&b.changed, &a.tested) && !meets(&b.changed, &a.changed))
        })
    };
    rules.iter().all(|r| rule_settles(r, layers))
        && prints.iter().enumerate().all(|(i, a)| apart(i, a))
}
