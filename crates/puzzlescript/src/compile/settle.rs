//! Which rule groups settle in one pass: groups whose second pass, after a
//! first that changed the board, would change nothing, so that the engine
//! stops them after one (`engine::rules`). The reference runs that second
//! pass and finds nothing to do; skipping it leaves the same board. Most
//! such groups redraw something every turn (`late up [ Wall | no Wall ] ->
//! [ Wall Edge | ]`, or one rule a direction): the second pass searched the
//! whole board again for nothing.
//!
//! A group settles in either of two cases. In both it has no command, rigid
//! mark or random choice, and its replacements are fixed masks.
//!
//! First case: (2) no write of a rule can change a bit that a pattern of
//! the group tests (present, absent, in a property, or a movement), except
//! that a rule of one cell that settles alone (`Rule::settles`) may change
//! the bits only it tests; and (3) no write forces to one a bit, outside
//! those tested, that another forces to zero. By (2) the tested bits never
//! change while the group runs, so each rule's second search finds the
//! matches of its first, in the same order (a rule of one cell finds a
//! subset of its own, which it wrote already). By (3) every untested bit
//! that some write forces holds after the first pass the value every write
//! gives it. So each write of the second pass writes what its cell holds.
//!
//! Second case: (2') no write can make a cell satisfy a pattern of the
//! group that it did not (it adds nothing a pattern requires or names in a
//! property, removes nothing a pattern excludes), and (3') no write forces
//! to one any bit that another forces to zero. By (2') matches are only
//! ever undone, so each match of the second pass was a match all through
//! the first, which applied it; by (3') no write since undid what it wrote
//! (`[ Spark | no Wire ] -> [ | ]`, a rule that removes what it matched).
//!
//! Whether a write can change a bit reads the pattern of the cell it
//! writes: a bit the pattern requires is present, and one it excludes (or,
//! when no cell holds two objects of a layer, another object of the layer
//! of one it requires) is absent, when the write comes, since a match is
//! applied only while it holds (the engine re-checks it unless no write of
//! its rule can undo it, `Rule::keeps_matches`).
//!
//! Cost: O(r · c) mask tests for a group of r rules of c cells in all;
//! groups of more than [`MAX_RULES`] rules keep the plain fixpoint.

use super::writes::excluded_by_layers;
use super::{CellPattern, PatternCell, Replacement, Rule};
use crate::bits;

/// The largest group analysed (groups expanded from many properties run
/// their plain fixpoint).
pub const MAX_RULES: usize = 256;

/// Object and movement bits, word by word.
#[derive(Clone, Default)]
struct Bits {
    objects: Vec<u64>,
    moves: Vec<u64>,
}

impl Bits {
    fn or(&mut self, objects: &[u64], moves: &[u64]) {
        grow_or(&mut self.objects, objects);
        grow_or(&mut self.moves, moves);
    }

    fn meets(&self, other: &Bits) -> bool {
        bits::intersects(&self.objects, &other.objects)
            || bits::intersects(&self.moves, &other.moves)
    }
}

/// True when a pass of `rules` (a group, in order) that changed the board
/// leaves nothing for a second pass to change (see the module's text).
/// `layers` are the objects of each layer when no cell of the game ever
/// holds two objects of one layer (`super::one_per_layer`).
pub fn group_settles(rules: &[Rule], layers: Option<&[Vec<u64>]>) -> bool {
    if rules.is_empty() || rules.len() > MAX_RULES || rules[0].random {
        return false;
    }
    let plain = |r: &Rule| {
        !r.rigid && !r.random && r.commands.is_empty() && replacements(r).all(|(_, w)| w.fixed)
    };
    if !rules.iter().all(plain) {
        return false;
    }
    let tested: Vec<Bits> = rules.iter().map(tested_by).collect();
    let mut all = Bits::default();
    for t in &tested {
        all.or(&t.objects, &t.moves);
    }
    (tested_stay(rules, &tested, &all, layers) && forced_agree(rules, Some(&all)))
        || (only_undoes_matches(rules, layers) && forced_agree(rules, None))
}

/// True when no write of the group can change a bit that one of its
/// patterns tests, except the bits that a rule of one cell that settles
/// alone (`Rule::settles`) tests and no other rule does (the module's (2)).
fn tested_stay(rules: &[Rule], tested: &[Bits], all: &Bits, layers: Option<&[Vec<u64>]>) -> bool {
    rules.iter().enumerate().all(|(k, rule)| {
        let guarded = if rule.settles {
            let mut others = Bits::default();
            for (_, t) in tested.iter().enumerate().filter(|(j, _)| *j != k) {
                others.or(&t.objects, &t.moves);
            }
            others
        } else {
            all.clone()
        };
        replacements(rule).all(|(p, r)| !may_change(p, r, layers).meets(&guarded))
    })
}

/// True when no write of the group can make a cell satisfy one of its
/// patterns that it did not: it adds no object or movement that a pattern
/// requires (or names in a property), and removes none that a pattern
/// excludes (the module's (2'), beside (3'): every forced bit agrees).
fn only_undoes_matches(rules: &[Rule], layers: Option<&[Vec<u64>]>) -> bool {
    let (mut wanted, mut unwanted) = (Bits::default(), Bits::default());
    for p in rules.iter().flat_map(patterns) {
        wanted.or(&p.present, &p.moves_present);
        for set in &p.any_present {
            wanted.or(set, &[]);
        }
        unwanted.or(&p.missing, &p.moves_missing);
    }
    rules.iter().flat_map(replacements).all(|(p, r)| {
        let (added, removed) = changes(p, r, layers);
        !added.meets(&wanted) && !removed.meets(&unwanted)
    })
}

/// The bits that writing `r` on a cell that satisfies `p` may change.
fn may_change(p: &CellPattern, r: &Replacement, layers: Option<&[Vec<u64>]>) -> Bits {
    let (mut bits, removed) = changes(p, r, layers);
    bits.or(&removed.objects, &removed.moves);
    bits
}

/// The bits that writing `r` on a cell that satisfies `p` may add, and
/// those it may remove: what it sets that `p` does not require, and what
/// it clears (without setting) that `p` does not exclude. `layers` as in
/// [`group_settles`].
fn changes(p: &CellPattern, r: &Replacement, layers: Option<&[Vec<u64>]>) -> (Bits, Bits) {
    let absent = match layers {
        Some(layers) => excluded_by_layers(p, layers),
        None => p.missing.to_vec(),
    };
    let mclear: Vec<u64> = (0..r.moves_clear.len().max(r.moves_layers.len()))
        .map(|w| word(&r.moves_clear, w) | word(&r.moves_layers, w))
        .collect();
    let added = Bits {
        objects: and_not(&r.set, &p.present),
        moves: and_not(&r.moves_set, &p.moves_present),
    };
    let removed = Bits {
        objects: and_not(&and_not(&r.clear, &r.set), &absent),
        moves: and_not(&and_not(&mclear, &r.moves_set), &p.moves_missing),
    };
    (added, removed)
}

/// True when no write of the group forces to one a bit that another forces
/// to zero; with `tested`, among the bits outside it only.
fn forced_agree(rules: &[Rule], tested: Option<&Bits>) -> bool {
    let (mut ones, mut zeros) = (Bits::default(), Bits::default());
    for (_, r) in rules.iter().flat_map(replacements) {
        let mclear: Vec<u64> = (0..r.moves_clear.len().max(r.moves_layers.len()))
            .map(|w| word(&r.moves_clear, w) | word(&r.moves_layers, w))
            .collect();
        ones.or(&r.set, &r.moves_set);
        zeros.or(&and_not(&r.clear, &r.set), &and_not(&mclear, &r.moves_set));
    }
    let Some(tested) = tested else {
        return !ones.meets(&zeros);
    };
    let untested = |b: &Bits| Bits {
        objects: and_not(&b.objects, &tested.objects),
        moves: and_not(&b.moves, &tested.moves),
    };
    !untested(&ones).meets(&untested(&zeros))
}

/// Every bit a rule's patterns test.
fn tested_by(rule: &Rule) -> Bits {
    let mut t = Bits::default();
    for p in patterns(rule) {
        t.or(&p.present, &p.moves_present);
        t.or(&p.missing, &p.moves_missing);
        for set in &p.any_present {
            t.or(set, &[]);
        }
    }
    t
}

/// `a & !b`, word by word, as long as `a`.
fn and_not(a: &[u64], b: &[u64]) -> Vec<u64> {
    a.iter()
        .enumerate()
        .map(|(w, &x)| x & !word(b, w))
        .collect()
}

/// `acc |= v`, `acc` grown to `v`'s length.
fn grow_or(acc: &mut Vec<u64>, v: &[u64]) {
    if acc.len() < v.len() {
        acc.resize(v.len(), 0);
    }
    bits::or_into(acc, v);
}

/// Word `w` of `words`, zero past its end.
fn word(words: &[u64], w: usize) -> u64 {
    words.get(w).copied().unwrap_or(0)
}

/// Every cell pattern of a rule's rows (ellipses left out).
fn patterns(rule: &Rule) -> impl Iterator<Item = &CellPattern> {
    rule.rows.iter().flatten().filter_map(|c| match c {
        PatternCell::Cell(p) => Some(p),
        PatternCell::Ellipsis => None,
    })
}

/// Every replacement of a rule's cells, with the pattern it rewrites.
fn replacements(rule: &Rule) -> impl Iterator<Item = (&CellPattern, &Replacement)> {
    patterns(rule).filter_map(|p| p.replacement.as_ref().map(|r| (p, r)))
}
