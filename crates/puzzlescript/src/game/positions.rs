//! Position lists: the encoding of a layer whose changing objects are only
//! ever moved, never created or destroyed (a player, pushed crates).
//!
//! Such an object appears in every reachable state as often as in the
//! level's start, so instead of one field per cell of its layer a state
//! holds the sorted indices of the cells it stands on: `count` indices of
//! `ceil(log2(cells))` bits. A block-pushing level with five movable things
//! on sixty cells then takes four bytes instead of sixteen, which lets the
//! explorer keep the whole state as its own hash key. A layer is encoded so
//! only when every changing object on it is conserved and the lists are
//! narrower than the fields.
//!
//! The analysis assumes what a well-formed game guarantees (at most one
//! object per layer in a cell); a state that breaks the counts anyway is
//! reported by the encoder (the caller counts it as overfull).

use super::packed::{self, write_field, Window};
use crate::bits;
use crate::compile::{CellPattern, Compiled, PatternCell, Replacement};
use crate::engine::direct::Shift;

/// The largest count re-encoded in place from the written cells; larger
/// lists are rebuilt by a scan of their layer's cells.
const IN_PLACE: usize = 32;

/// One conserved object's list of positions.
#[derive(Clone, Debug)]
struct List {
    id: usize,
    layer: usize,
    count: usize,
    /// Bit offset of the first index (in the fields, after the outcome byte).
    offset: u32,
    /// Bits of an index.
    bits: u32,
}

/// Where a list of one entry lies in a narrow state's fields
/// ([`Positions::lone_entry`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Bit offset of the entry in the fields.
    offset: u32,
    /// Bits of the entry.
    bits: u32,
    /// The layer of the listed object.
    layer: usize,
}

/// The position lists of a level (empty when no layer is encoded so).
#[derive(Clone, Debug, Default)]
pub struct Positions {
    so: usize,
    layers: usize,
    lists: Vec<List>,
    /// Per layer: true when the layer is encoded by position lists.
    pub by_layer: Vec<bool>,
    /// Per layer: the cells that can hold its changing objects, increasing.
    cells: Vec<Vec<u32>>,
    /// The index of (cell, layer) among its layer's cells, at
    /// `cell * layers + layer` (`u32::MAX` where the cell has none).
    index_at: Vec<u32>,
    /// Bits of every list together.
    pub bits: u32,
    /// Per object id: its list (`usize::MAX` for none).
    list_of: Vec<usize>,
    /// The objects with lists as one word (when objects fit one word).
    word_mask: u64,
    /// True when a state's fields fit one word and objects take one word:
    /// lists are then updated with shifts on that word ([`packed`]).
    narrow: bool,
    /// True when every listed layer has at most 64 cells (its cell sets take a `u64`).
    small: bool,
    /// The entries of every list together.
    entries: usize,
}

/// The objects that no replacement creates or destroys (movement only moves
/// them): every rule cell that writes one either finds it there and keeps
/// it, or cannot hold it.
pub fn conserved_objects(g: &Compiled) -> Vec<u64> {
    let names = &g.names;
    let mut kept = vec![!0u64; g.obj_words.max(1)];
    for set in [&g.rules, &g.late_rules] {
        for rule in set.groups.iter().flatten() {
            for cell in rule.rows.iter().flatten() {
                let PatternCell::Cell(p) = cell else { continue };
                let Some(rep) = &p.replacement else { continue };
                for lm in &names.layer_masks {
                    if bits::intersects(&rep.random_objects, lm) {
                        bits::clear_into(&mut kept, lm);
                        continue;
                    }
                    for id in bits::ones(lm) {
                        if creates_or_destroys(p, rep, lm, id) {
                            bits::clear_into(&mut kept, &one(g.obj_words.max(1), id));
                        }
                    }
                }
            }
        }
    }
    kept
}

/// The set of one object.
fn one(words: usize, id: usize) -> Vec<u64> {
    let mut v = vec![0; words];
    bits::set(&mut v, id);
    v
}

/// True when replacing a cell matched by `p` may add or remove object `id`
/// (of the layer whose objects are `lm`).
fn creates_or_destroys(p: &CellPattern, rep: &Replacement, lm: &[u64], id: usize) -> bool {
    let there = bits::get(&p.present, id);
    let set = bits::get(&rep.set, id);
    let cleared = bits::get(&rep.clear, id);
    (set && !there) || (cleared && !set && may_hold(p, lm, id))
}

/// False when a cell matched by `p` cannot hold object `id`: the pattern
/// forbids it, or requires another object (or one of a property's objects
/// other than it) on its layer.
fn may_hold(p: &CellPattern, lm: &[u64], id: usize) -> bool {
    if bits::get(&p.missing, id) {
        return false;
    }
    let mut other: Vec<u64> = p.present.iter().zip(lm).map(|(a, b)| a & b).collect();
    if let Some(w) = other.get_mut(id / 64) {
        *w &= !(1 << (id % 64));
    }
    if !bits::is_zero(&other) {
        return false;
    }
    !p.any_present
        .iter()
        .any(|any| bits::contains(lm, any) && !bits::get(any, id))
}

impl Positions {
    /// Plans position lists for the layers where they are narrower than
    /// `field_bits` (per layer, the bits its fields take), given each
    /// layer's changing objects, the cells that can hold them (`holds(cell,
    /// layer)`), and `start`, the level's objects after its start rules.
    /// Lists begin at bit `first_offset`.
    pub fn plan(
        g: &Compiled,
        layer_ids: &[Vec<usize>],
        cell_count: usize,
        holds: impl Fn(usize, usize) -> bool,
        start: &[u64],
        field_bits: &[u64],
    ) -> Positions {
        let so = g.obj_words.max(1);
        let layers = layer_ids.len();
        let conserved = conserved_objects(g);
        let mut p = Positions {
            so,
            layers,
            by_layer: vec![false; layers],
            cells: vec![Vec::new(); layers],
            index_at: vec![u32::MAX; cell_count * layers],
            ..Positions::default()
        };
        for (layer, ids) in layer_ids.iter().enumerate() {
            if ids.is_empty() || !ids.iter().all(|&id| bits::get(&conserved, id)) {
                continue;
            }
            let cells: Vec<u32> = (0..cell_count)
                .filter(|&c| holds(c, layer))
                .map(|c| c as u32)
                .collect();
            let index_bits = usize::BITS - cells.len().saturating_sub(1).leading_zeros();
            let counts: Vec<usize> = ids
                .iter()
                .map(|&id| {
                    (0..cell_count)
                        .filter(|&c| {
                            start
                                .get(c * so..c * so + so)
                                .is_some_and(|o| bits::get(o, id))
                        })
                        .count()
                })
                .collect();
            let list_bits: u64 = counts
                .iter()
                .map(|&k| k as u64 * u64::from(index_bits))
                .sum();
            if list_bits >= field_bits.get(layer).copied().unwrap_or(0) {
                continue;
            }
            for (&id, &count) in ids.iter().zip(&counts) {
                p.lists.push(List {
                    id,
                    layer,
                    count,
                    offset: 0,
                    bits: index_bits,
                });
            }
            for (k, &c) in cells.iter().enumerate() {
                p.index_at[c as usize * layers + layer] = k as u32;
            }
            p.cells[layer] = cells;
            p.by_layer[layer] = true;
        }
        p
    }

    /// True when no layer is encoded by position lists.
    pub fn is_empty(&self) -> bool {
        self.lists.is_empty()
    }

    /// Places the lists from bit `first` on; returns the bit after them.
    pub fn place(&mut self, first: u32) -> u32 {
        let mut offset = first;
        for list in &mut self.lists {
            list.offset = offset;
            offset += list.count as u32 * list.bits;
        }
        self.bits = offset - first;
        let ids = self.lists.iter().map(|l| l.id + 1).max().unwrap_or(0);
        self.list_of = vec![usize::MAX; ids];
        for (k, list) in self.lists.iter().enumerate() {
            self.list_of[list.id] = k;
            if list.id < 64 {
                self.word_mask |= 1 << list.id;
            }
        }
        self.small = self.lists.iter().all(|l| self.cells[l.layer].len() <= 64);
        self.entries = self.lists.iter().map(|l| l.count).sum();
        self.narrow = self.so == 1
            && offset <= 64
            && self.lists.iter().all(|l| self.cells[l.layer].len() <= 128)
            && self.lists.iter().all(|l| l.id < 64);
        offset
    }

    /// True when `objects` holds object `id` at `cell`.
    #[inline]
    fn has(&self, objects: &[u64], cell: usize, id: usize) -> bool {
        objects
            .get(cell * self.so + id / 64)
            .is_some_and(|w| w >> (id % 64) & 1 == 1)
    }

    /// Writes every list of `objects` into `fields` (the state without its
    /// outcome byte); false when an object's count differs from the level's.
    pub fn encode(&self, objects: &[u64], fields: &mut [u8]) -> bool {
        let mut ok = true;
        for list in &self.lists {
            ok &= self.rebuild(list, objects, fields);
        }
        ok
    }

    /// Writes one list by a scan of its layer's cells.
    fn rebuild(&self, list: &List, objects: &[u64], fields: &mut [u8]) -> bool {
        let mut found = 0usize;
        for (k, &cell) in self.cells[list.layer].iter().enumerate() {
            if self.has(objects, cell as usize, list.id) {
                if found < list.count {
                    let at = list.offset + found as u32 * list.bits;
                    write_field(fields, at, list.bits, k as u64);
                }
                found += 1;
            }
        }
        found == list.count
    }

    /// Rewrites the lists of the objects in `cells` (repeats allowed) from
    /// `objects`, where the encoded state's objects are `before` and differ
    /// from `objects` only in those cells; false when an object's count
    /// differs from the level's or it stands where its layer has no position.
    pub fn reencode_cells(
        &self,
        before: &[u64],
        objects: &[u64],
        cells: &[usize],
        fields: &mut [u8],
    ) -> bool {
        if self.narrow && fields.len() <= 8 {
            return match self.small {
                true => self.reencode_narrow::<u64>(before, objects, cells, fields),
                false => self.reencode_narrow::<u128>(before, objects, cells, fields),
            };
        }
        let mut ok = true;
        // On boards of one word, the objects that differ at some written
        // cell, found in one pass: a turn that rewrites many cells to what
        // they held (a frame cleared and drawn again) compares each once,
        // not once a list.
        let word = |v: &[u64], c: usize| v.get(c).copied().unwrap_or(0);
        let differ = (self.so == 1).then(|| {
            cells
                .iter()
                .fold(0u64, |acc, &c| acc | (word(before, c) ^ word(objects, c)))
        });
        for list in &self.lists {
            // Most turns move a few objects: a list none of whose cells
            // changed stays as it is.
            let id = list.id;
            let same = match differ {
                Some(bits) => bits >> (id % 64) & 1 == 0,
                None => cells
                    .iter()
                    .all(|&c| self.has(before, c, id) == self.has(objects, c, id)),
            };
            if same {
                continue;
            }
            ok &= if list.count <= IN_PLACE && self.cells[list.layer].len() <= 1 << 16 {
                self.update(list, before, objects, cells, fields)
            } else {
                self.rebuild(list, objects, fields)
            };
        }
        ok
    }

    /// True when [`Positions::shift_lists`] can update the lists of a state
    /// of `bytes` bytes (its outcome byte included): the lists of a narrow
    /// layout in a state of at most eight bytes of fields.
    pub fn shifts_apply(&self, bytes: usize) -> bool {
        self.narrow && bytes <= 9
    }

    /// Moves the entries of the lists in `fields` (a narrow state's fields,
    /// [`Positions::shifts_apply`]) as the moves `shifts` moved their
    /// objects, in order: each listed object that moved has its old cell's
    /// index replaced by its new cell's, slid to its sorted place. A turn
    /// whose rules cannot create or destroy a listed object (they are
    /// conserved) changes the lists by its moves alone, so this is
    /// [`Positions::reencode_cells`] without comparing the written cells.
    /// False when a moved object was not listed at its old cell or its new
    /// cell has no position.
    pub fn shift_lists(&self, shifts: &[Shift], fields: &mut [u8]) -> bool {
        let (word, ok) = self.shift_word(shifts, packed::load(fields));
        packed::store(word, fields);
        ok
    }

    /// [`Positions::shift_lists`] on the fields read as one word.
    pub fn shift_word(&self, shifts: &[Shift], mut word: u64) -> (u64, bool) {
        let mut ok = true;
        for s in shifts {
            let mut rest = s.objects & self.word_mask;
            while rest != 0 {
                let id = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let Some(list) = self.list_of.get(id).and_then(|&k| self.lists.get(k)) else {
                    continue;
                };
                let at = |cell: u32| cell as usize * self.layers + list.layer;
                let from = self.index_at.get(at(s.from)).copied().unwrap_or(u32::MAX);
                let to = self.index_at.get(at(s.to)).copied().unwrap_or(u32::MAX);
                ok &= from != u32::MAX
                    && to != u32::MAX
                    && slide(&mut word, list, from.into(), to.into());
            }
        }
        (word, ok)
    }

    /// The entry of the objects `objects` at cell `from` in the fields
    /// `word` of a narrow state, when they are one object whose list holds
    /// one entry, and that entry is `from`'s index: a step of that object
    /// then rewrites the entry alone ([`Positions::place_entry`]). `None`
    /// otherwise ([`Positions::shift_word`] handles every case).
    pub fn lone_entry(&self, objects: u64, from: usize, word: u64) -> Option<Entry> {
        let listed = objects & self.word_mask;
        if !self.narrow || listed == 0 || listed != objects || listed & (listed - 1) != 0 {
            return None;
        }
        let list = self.list_of.get(listed.trailing_zeros() as usize)?;
        let list = self.lists.get(*list)?;
        let index = *self.index_at.get(from * self.layers + list.layer)?;
        let entry = Entry {
            offset: list.offset,
            bits: list.bits,
            layer: list.layer,
        };
        let here = packed::get(word, list.offset, list.bits);
        (list.count == 1 && list.bits > 0 && index != u32::MAX && here == u64::from(index))
            .then_some(entry)
    }

    /// The fields `word` with the entry `entry` moved to cell `to`, as
    /// [`Positions::shift_word`] moves a list of one entry; false beside
    /// them (unchanged) when `to` has no position in the entry's layer.
    #[inline]
    pub fn place_entry(&self, entry: &Entry, word: u64, to: usize) -> (u64, bool) {
        match self.index_at.get(to * self.layers + entry.layer) {
            Some(&index) if index != u32::MAX => {
                let mut word = word;
                packed::put(&mut word, entry.offset, entry.bits, index.into());
                (word, true)
            }
            _ => (word, false),
        }
    }

    /// [`Positions::reencode_cells`] on one word: the lists some written
    /// cell changed are read into cell sets (a bit per cell of the layer),
    /// the written cells set or cleared there, and the sets written back as
    /// sorted lists.
    fn reencode_narrow<S: packed::CellSet>(
        &self,
        before: &[u64],
        objects: &[u64],
        cells: &[usize],
        fields: &mut [u8],
    ) -> bool {
        let mut changed = 0u64;
        for &cell in cells {
            if let (Some(&was), Some(&now)) = (before.get(cell), objects.get(cell)) {
                changed |= (was ^ now) & self.word_mask;
            }
        }
        if changed == 0 {
            return true;
        }
        let mut word = packed::load(fields);
        let mut ok = true;
        while changed != 0 {
            let id = changed.trailing_zeros() as usize;
            changed &= changed - 1;
            let Some(list) = self.list_of.get(id).and_then(|&k| self.lists.get(k)) else {
                continue;
            };
            let mut set = S::ZERO;
            for k in 0..list.count as u32 {
                set = set | S::bit(packed::get(word, list.offset + k * list.bits, list.bits));
            }
            for &cell in cells {
                let has = objects.get(cell).is_some_and(|&o| o >> id & 1 == 1);
                match self.index_at.get(cell * self.layers + list.layer) {
                    Some(&index) if index != u32::MAX => {
                        let bit = S::bit(u64::from(index));
                        set = if has { set | bit } else { set & !bit };
                    }
                    _ => ok &= !has,
                }
            }
            let mut k = 0u32;
            while set != S::ZERO && (k as usize) < list.count {
                let index = u64::from(set.lowest());
                set = set.drop_lowest();
                packed::put(&mut word, list.offset + k * list.bits, list.bits, index);
                k += 1;
            }
            // As many cells as the count, no more and no fewer (counted by
            // the loop: a population count is a dozen instructions on the
            // baseline x86-64 target).
            ok &= k as usize == list.count && set == S::ZERO;
        }
        packed::store(word, fields);
        ok
    }

    /// Sets the objects of every list of a narrow state's `fields` in
    /// `objects` and appends their cells to `cells`.
    fn decode_narrow(&self, fields: &[u8], objects: &mut [u64], cells: &mut Vec<usize>) {
        let word = packed::load(fields);
        cells.reserve(self.entries);
        for list in &self.lists {
            let Some(layer_cells) = self.cells.get(list.layer) else {
                continue;
            };
            let (mask, bit) = (packed::low_bits(list.bits), 1u64 << (list.id % 64));
            // The entries from the lowest up, each shifted off in turn: the
            // whole list lies within the word (a narrow layout).
            let mut rest = word.wrapping_shr(list.offset);
            for _ in 0..list.count {
                let index = (rest & mask) as usize;
                rest = rest.wrapping_shr(list.bits);
                let Some(&cell) = layer_cells.get(index) else {
                    continue;
                };
                if let Some(o) = objects.get_mut(cell as usize) {
                    *o |= bit;
                    cells.push(cell as usize);
                }
            }
        }
    }

    /// Updates one short list in place: drops the written cells that lost
    /// the object, adds those that gained it, keeps the indices sorted.
    fn update(
        &self,
        list: &List,
        before: &[u64],
        objects: &[u64],
        cells: &[usize],
        fields: &mut [u8],
    ) -> bool {
        let mut at = [0u16; 2 * IN_PLACE];
        let mut n = list.count;
        let mut bits = Window::load(fields);
        for (k, slot) in at.iter_mut().take(n).enumerate() {
            *slot = bits.get(fields, list.offset + k as u32 * list.bits, list.bits) as u16;
        }
        for &cell in cells {
            let has = self.has(objects, cell, list.id);
            if has == self.has(before, cell, list.id) {
                continue;
            }
            let index = self
                .index_at
                .get(cell * self.layers + list.layer)
                .copied()
                .unwrap_or(u32::MAX);
            if index == u32::MAX {
                return false;
            }
            let index = index as u16;
            let Some(k) = position(&at[..n], index, has) else {
                continue;
            };
            if has {
                if n == at.len() {
                    return false;
                }
                for j in (k..n).rev() {
                    at[j + 1] = at[j];
                }
                at[k] = index;
                n += 1;
            } else {
                for j in k..n - 1 {
                    at[j] = at[j + 1];
                }
                n -= 1;
            }
        }
        for (k, &index) in at.iter().take(n.min(list.count)).enumerate() {
            let offset = list.offset + k as u32 * list.bits;
            bits.set(fields, offset, list.bits, u64::from(index));
        }
        bits.store(fields);
        n == list.count
    }

    /// Sets the objects of every list of `fields` in `objects` and appends
    /// their cells to `cells` (unsorted; the caller sorts).
    pub fn decode(&self, fields: &[u8], objects: &mut [u64], cells: &mut Vec<usize>) {
        if self.narrow && fields.len() <= 8 {
            return self.decode_narrow(fields, objects, cells);
        }
        for list in &self.lists {
            let layer_cells = &self.cells[list.layer];
            let bits = Window::load(fields);
            for k in 0..list.count as u32 {
                let index = bits.get(fields, list.offset + k * list.bits, list.bits);
                let Some(&cell) = layer_cells.get(index as usize) else {
                    continue;
                };
                let cell = cell as usize;
                if let Some(objs) = objects.get_mut(cell * self.so..cell * self.so + self.so) {
                    bits::set(objs, list.id);
                    cells.push(cell);
                }
            }
        }
    }
}

/// Replaces index `from` by `to` in the sorted `list` packed in `word`,
/// sliding the entries between the two over by one so that the list stays
/// sorted; false when `from` is not in the list. The list lies within the
/// word (a narrow layout), so plain shifts reach every entry.
fn slide(word: &mut u64, list: &List, from: u64, to: u64) -> bool {
    let (bits, first) = (list.bits, list.offset);
    if bits == 0 {
        // One cell in the layer: every entry is index zero.
        return from == to;
    }
    let mask = packed::low_bits(bits);
    let end = first + list.count as u32 * bits;
    let get = |word: u64, at: u32| word.wrapping_shr(at) & mask;
    let mut at = first;
    while at < end && get(*word, at) != from {
        at += bits;
    }
    if at >= end {
        return false;
    }
    // Towards higher indices, then towards lower ones: one of the two loops
    // runs, each stops at the first entry already on the right side of `to`.
    while at + bits < end && get(*word, at + bits) < to {
        packed::put(word, at, bits, get(*word, at + bits));
        at += bits;
    }
    while at > first && get(*word, at - bits) > to {
        packed::put(word, at, bits, get(*word, at - bits));
        at -= bits;
    }
    packed::put(word, at, bits, to);
    true
}

/// Where `index` goes in the sorted `list` to be inserted (`insert`) or
/// removed; `None` when it is already there, or not there to remove (a cell
/// written twice).
#[inline]
fn position(list: &[u16], index: u16, insert: bool) -> Option<usize> {
    let k = list.iter().position(|&v| v >= index).unwrap_or(list.len());
    let there = list.get(k) == Some(&index);
    (there != insert).then_some(k)
}

#[cfg(test)]
mod slide_tests {
    use super::{packed, slide, List};

    /// Sliding one entry of a packed sorted list gives the list with the
    /// entry replaced and sorted again, wherever the new index falls.
    #[test]
    fn a_slid_entry_keeps_the_list_sorted() {
        let list = List {
            id: 0,
            layer: 0,
            count: 4,
            offset: 3,
            bits: 6,
        };
        let entries = [5u64, 17, 30, 41];
        let pack = |values: &[u64]| {
            let mut word = 0b101; // bits below the list stay as they are
            for (k, &v) in values.iter().enumerate() {
                packed::put(&mut word, list.offset + k as u32 * list.bits, list.bits, v);
            }
            word
        };
        for from in entries {
            for to in [0u64, 6, 18, 29, 35, 63] {
                let mut word = pack(&entries);
                assert!(slide(&mut word, &list, from, to));
                let mut expected: Vec<u64> = entries
                    .iter()
                    .map(|&v| if v == from { to } else { v })
                    .collect();
                expected.sort_unstable();
                assert_eq!(word, pack(&expected), "{from} -> {to}");
            }
        }
        let mut word = pack(&entries);
        assert!(!slide(&mut word, &list, 6, 7), "an index not in the list");
    }
}
