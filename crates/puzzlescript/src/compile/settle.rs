//! Which rules, and which groups of rules, settle in one pass: once a pass
//! of the group changed the board, a second pass would change nothing, so
//! the engine ends the group's fixpoint there (`Rule::settles`,
//! `RuleSet::settles`) instead of searching every rule again to find that
//! out. Games that redraw decoration or light every turn (`[ decoration ]
//! -> [ ]` expanded to a rule per layer, `[ walls | ] -> [ walls | coast ]`,
//! a frame drawn by a hundred rules of two rows, light spread a step from
//! its sources) paid for that second search on every turn. A group
//! qualifies when the writes of each rule and of the rules after it can
//! only turn its tests off and keep what it wrote (`settles`).
//!
//! The analysis reads the rule's writes (`Rule::writes`, the only cells its
//! matches change) and what each write can change on a cell that satisfies
//! its pattern (`WriteEffect`); with one object a layer
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
struct WriteEffect {
    /// Objects and movements it may set.
    set: Bits,
    /// Objects and movements it may clear.
    clear: Bits,
}

impl WriteEffect {
    /// The effect of `rep` on the cells that satisfy `p`; `layers` are the
    /// objects of each layer when no cell of the game ever holds two objects
    /// of one layer, else `None` (as for `super::writes::rule_writes`).
    fn of(p: &CellPattern, rep: &Replacement, layers: Option<&[Vec<u64>]>) -> WriteEffect {
        // The layers that exclude more than the pattern says are read only
        // for a replacement that may clear something it does not exclude.
        let cleared = (0..rep.clear.len())
            .any(|w| word(&rep.clear, w) & !word(&rep.set, w) & !word(&p.missing, w) != 0);
        let absent = match layers {
            Some(layers) if cleared => excluded_by_layers(p, layers),
            _ => p.missing.to_vec(),
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

/// True when `a` and `b` share a bit.
fn meets(a: &[u64], b: &[u64]) -> bool {
    a.iter().zip(b).any(|(x, y)| x & y != 0)
}

/// What a rule's patterns test, gathered over all of them: objects
/// required (alone or in a property) and excluded, movements required and
/// excluded.
#[derive(Default)]
struct Tests {
    required: Bits,
    excluded: Bits,
}

impl Tests {
    /// Adds the tests of `p`.
    fn add(&mut self, p: &CellPattern) {
        let mut required = union(&self.required[0], &p.present);
        for any in &p.any_present {
            required = union(&required, any);
        }
        self.required = [required, union(&self.required[1], &p.moves_present)];
        self.excluded = [
            union(&self.excluded[0], &p.missing),
            union(&self.excluded[1], &p.moves_missing),
        ];
    }
}

/// True when `e`, written on a cell, can only turn the tests of `t` from
/// true to false, never the other way: it sets nothing they require
/// (alone or in a property) and clears nothing they exclude, moving or
/// not.
fn turns_off_only(e: &WriteEffect, t: &Tests) -> bool {
    (0..2).all(|k| !meets(&e.set[k], &t.required[k]) && !meets(&e.clear[k], &t.excluded[k]))
}

/// True when `later`, written on a cell that satisfies `pattern`, leaves
/// a cell that `earlier` left as it is (holding what `earlier` sets,
/// lacking what it clears) as `earlier` would leave it: it clears nothing
/// `earlier` sets and sets nothing `earlier` clears; or no such cell
/// satisfies `pattern`, which excludes something `earlier` sets or
/// requires something it clears.
fn keeps(later: &WriteEffect, pattern: &CellPattern, earlier: &WriteEffect) -> bool {
    apart(later, earlier)
        || meets(&earlier.set[0], &pattern.missing)
        || meets(&earlier.clear[0], &pattern.present)
        || meets(&earlier.set[1], &pattern.moves_missing)
        || meets(&earlier.clear[1], &pattern.moves_present)
}

/// True when `later` clears nothing `earlier` sets and sets nothing it
/// clears.
fn apart(later: &WriteEffect, earlier: &WriteEffect) -> bool {
    (0..2).all(|k| {
        !meets(&later.clear[k], &earlier.set[k]) && !meets(&later.set[k], &earlier.clear[k])
    })
}

/// What a rule tests and writes.
struct Footprint<'a> {
    /// What its patterns test.
    tests: Tests,
    /// The effect of each write (`Rule::writes`), with the pattern of the
    /// cell it writes.
    writes: Vec<(WriteEffect, &'a CellPattern)>,
    /// Everything its writes may set, and may clear.
    written: WriteEffect,
    /// True for a rule of one row of one cell (`Rule::single_cell`).
    single_cell: bool,
}

impl<'a> Footprint<'a> {
    /// The footprint of `rule` (`layers` as in `WriteEffect::of`), or
    /// `None` when something it does is not a fixed write: a command, a
    /// rigid mark, a random rule or a random choice.
    fn of(rule: &'a Rule, layers: Option<&[Vec<u64>]>) -> Option<Footprint<'a>> {
        if rule.rigid || rule.random || !rule.commands.is_empty() {
            return None;
        }
        let cell = |r: usize, c: usize| match rule.rows.get(r).and_then(|row| row.get(c)) {
            Some(PatternCell::Cell(p)) => Some(p),
            _ => None,
        };
        let mut print = Footprint {
            tests: Tests::default(),
            writes: Vec::new(),
            written: WriteEffect {
                set: Bits::default(),
                clear: Bits::default(),
            },
            single_cell: rule.single_cell().is_some(),
        };
        for c in rule.rows.iter().flatten() {
            if let PatternCell::Cell(p) = c {
                print.tests.add(p);
            }
        }
        for (r, writes) in rule.writes.rows.iter().enumerate() {
            for w in writes.iter() {
                let p = cell(r, w.cell as usize)?;
                let rep = p.replacement.as_ref().filter(|rep| rep.fixed)?;
                let effect = WriteEffect::of(p, rep, layers);
                for k in 0..2 {
                    print.written.set[k] = union(&print.written.set[k], &effect.set[k]);
                    print.written.clear[k] = union(&print.written.clear[k], &effect.clear[k]);
                }
                print.writes.push((effect, p));
            }
        }
        Some(print)
    }

    /// True when the writes of `later`, a rule that runs after this one in
    /// a pass (or this rule itself), can only turn this rule's tests off
    /// (`turns_off_only`) and keep what this rule wrote (`keeps`; a
    /// write apart from everything this rule writes keeps each of its
    /// writes, which is tried first).
    fn followed_by(&self, later: &Footprint) -> bool {
        later.writes.iter().all(|(e, p)| {
            turns_off_only(e, &self.tests)
                && (apart(e, &self.written) || self.writes.iter().all(|(f, _)| keeps(e, p, f)))
        })
    }
}

/// Per rule of `rules`, whether it settles alone (as a group of its own),
/// and whether the group settles, each rule's footprint computed once for
/// both (`layers` as in `WriteEffect::of`).
///
/// Each rule is checked against the rules after it all at once first,
/// through the union of what they may set and clear (`later`, gathered
/// from the group's end): their writes turn its tests off only when the
/// union does (each test is a bit shared or not), and they keep what it
/// wrote when the union is apart from it. Only a rule that the union does
/// not clear is compared with each later write, and only in groups of at
/// most `MAX_GROUP` rules: a distant sunset's group of 400 rules
/// (`[ moving player ] [ stationary apparatus ]`) is cleared by the
/// unions, in a fraction of the pairs' time.
///
/// A group settles when a pass of it leaves nothing that a second pass
/// could change, so that its fixpoint may stop after a pass that changed
/// the board. Nothing a rule does may be other than fixed writes (no
/// command, no rigid mark, not random), and
/// the writes of each rule, and of every rule after it in the group, must
/// only turn its tests off (`turns_off_only`) and keep what it wrote
/// (`keeps`); a rule of one cell need not ask that of its own writes
/// (its matches are distinct cells, each written once, by itself).
///
/// The argument, for a rule R and a match m of R after the pass: since R
/// searched in that pass, only R and the rules after it wrote, and each
/// write could only turn R's tests off; m's tests all hold now, so they
/// held all along: R found m and applied it (its re-check held). Each cell
/// m writes was then left holding what the write sets and lacking what it
/// clears, and every write since kept it so: m changes nothing now. So the
/// second pass, rule by rule, finds the board as the first left it and
/// changes nothing; whatever pass of the reference's fixpoint comes next
/// ends there too, with the same answer (something changed). Floods
/// (`[ a | no a ] -> [ a | a ]`) do not qualify: their writes set what they
/// require. Redraws do: `[ wall | ] -> [ wall | coast ]`, a frame drawn by
/// rules of two rows, `[ decoration ] -> [ ]` expanded to a rule per layer,
/// and light spread a step from its sources (`[ lamp ] -> [ lamp full ]`
/// then `[ full | no light ] -> [ full | dim ]`, in that order).
pub fn settles(rules: &[Rule], layers: Option<&[Vec<u64>]>) -> (Vec<bool>, bool) {
    let prints: Vec<Option<Footprint>> = rules.iter().map(|r| Footprint::of(r, layers)).collect();
    let alone: Vec<bool> = prints
        .iter()
        .map(|p| {
            p.as_ref()
                .is_some_and(|p| p.single_cell || p.followed_by(p))
        })
        .collect();
    if !alone.iter().all(|&a| a) {
        return (alone, false);
    }
    let prints: Vec<Footprint> = prints.into_iter().flatten().collect();
    let mut later = WriteEffect {
        set: Bits::default(),
        clear: Bits::default(),
    };
    // A group needs each rule to settle alone, then every later rule to
    // follow each earlier one; the rules are visited from the last, so
    // that `later` holds the writes of the rules after the one visited.
    for (i, earlier) in prints.iter().enumerate().rev() {
        let followed = turns_off_only(&later, &earlier.tests)
            && (apart(&later, &earlier.written)
                || (rules.len() <= MAX_GROUP
                    && prints[i + 1..]
                        .iter()
                        .all(|after| earlier.followed_by(after))));
        if !followed {
            return (alone, false);
        }
        for k in 0..2 {
            later.set[k] = union(&later.set[k], &earlier.written.set[k]);
            later.clear[k] = union(&later.clear[k], &earlier.written.clear[k]);
        }
    }
    (alone, true)
}

/// The largest group whose rules are compared pair by pair when the union
/// of the later rules' writes does not settle the question.
const MAX_GROUP: usize = 256;
