//! The state encoding of a level: which objects can ever change (a static
//! analysis of the rules), and one small field per (cell, layer) that can
//! hold a changing object. Objects that never change stay in a template.
//!
//! The analysis assumes what a well-formed game guarantees: at most one
//! object per layer in a cell. A cell's layer that starts with an unchanging
//! object keeps it forever (movement into it is blocked, and a rule that
//! could replace it would have made it changing), so it needs no field.

use super::packed::{read_field, write_field};
use super::positions::{Entry, Positions};
use crate::bits;
use crate::compile::{Compiled, Grid, PatternCell};
use crate::engine::direct::Shift;

/// How states of one level are laid out.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Words of an object set.
    so: usize,
    /// Objects that may change.
    pub mutable: Vec<u64>,
    /// The grid with every changing object removed.
    pub template: Vec<u64>,
    /// The fields: (cell, layer), in cell order.
    fields: Vec<(u32, u16)>,
    /// Per layer: the changing objects (ids), a field value `v > 0` naming `ids[v - 1]`.
    layer_ids: Vec<Vec<usize>>,
    /// Per layer: bits of a field.
    layer_bits: Vec<u32>,
    /// Per object id: its field value (1-based index among its layer's changing objects).
    id_value: Vec<u64>,
    /// Per layer: the changing objects as a one-word mask (when objects fit one word).
    layer_word: Vec<u64>,
    /// Per layer: the changing objects as a mask of `so` words, at `layer * so`.
    layer_wide: Vec<u64>,
    /// The changing objects that have fields, as one word (when objects fit one word).
    mutable_word: u64,
    /// Per object id: its layer.
    id_layer: Vec<usize>,
    /// The layers that hold some changing object and are encoded by fields.
    changing_layers: Vec<usize>,
    /// The layers encoded by position lists instead of fields.
    positions: Positions,
    /// Bytes (after the outcome byte) that hold some field.
    field_bytes: usize,
    /// Bit offset of each field (after the outcome byte).
    field_offset: Vec<u32>,
    /// Per bit of the fields, the field it belongs to.
    bit_field: Vec<u32>,
    /// Bit offset of the field of (cell, layer), at `cell * layers + layer`
    /// (`u32::MAX` where there is none).
    field_at: Vec<u32>,
    /// Bytes of an encoded state (one outcome byte, then the fields).
    pub bytes: usize,
}

/// The objects that some rule, the input or a random choice may add, remove or move.
pub fn mutable_objects(g: &Compiled) -> Vec<u64> {
    let names = &g.names;
    let mut m = names.player_mask.clone();
    let layer_of = |id: usize| names.objects.get(&names.id_dict[id]).map_or(0, |&(_, l)| l);
    for set in [&g.rules, &g.late_rules] {
        for rule in set.groups.iter().flatten() {
            for cell in rule.rows.iter().flatten() {
                let PatternCell::Cell(p) = cell else { continue };
                let Some(rep) = &p.replacement else { continue };
                bits::or_into(&mut m, &rep.set);
                bits::or_into(&mut m, &rep.random_objects);
                for id in bits::ones(&rep.random_objects).collect::<Vec<_>>() {
                    bits::or_into(&mut m, &names.layer_masks[layer_of(id)]);
                }
                for layer in 0..names.layer_count {
                    let lm = &names.layer_masks[layer];
                    let cleared = bits::intersects(&rep.clear, lm);
                    // A layer that never moves has no field (`MoveSlots`).
                    let moved = names.move_slots.slot(layer).is_some_and(|slot| {
                        bits::mov_get(&rep.moves_set, slot) != 0
                            || bits::mov_get(&rep.random_dirs, slot) != 0
                    });
                    if !cleared && !moved {
                        continue;
                    }
                    // What the pattern guarantees is on this layer: a named object or
                    // a property; otherwise anything of the layer may be affected.
                    let mut on_layer: Vec<u64> =
                        p.present.iter().zip(lm).map(|(a, b)| a & b).collect();
                    for any in &p.any_present {
                        if bits::contains(lm, any) {
                            bits::or_into(&mut on_layer, any);
                        }
                    }
                    if bits::is_zero(&on_layer) {
                        on_layer = lm.clone();
                    }
                    if moved {
                        bits::or_into(&mut m, &on_layer);
                    }
                    if cleared {
                        for (w, x) in on_layer.iter().enumerate() {
                            let removed = x & rep.clear[w] & !rep.set[w];
                            m[w] |= removed;
                        }
                    }
                }
            }
        }
    }
    m
}

impl Layout {
    /// The layout of a level whose start is `grid`, with a field for every
    /// (cell, layer) that can hold a changing object.
    pub fn new(g: &Compiled, grid: &Grid) -> Layout {
        Layout::build(g, grid, None)
    }

    /// The layout of a level whose start is `grid` and whose objects after
    /// the start rules are `start`: layers whose changing objects are only
    /// ever moved take position lists when those are narrower (see
    /// [`Positions`]).
    pub fn with_positions(g: &Compiled, grid: &Grid, start: &[u64]) -> Layout {
        Layout::build(g, grid, Some(start))
    }

    fn build(g: &Compiled, grid: &Grid, start: Option<&[u64]>) -> Layout {
        let so = g.obj_words;
        let names = &g.names;
        let mutable = mutable_objects(g);
        let mutable_first = mutable.first().copied().unwrap_or(0);
        let mut template = grid.cells.clone();
        for cell in template.chunks_mut(so) {
            bits::clear_into(cell, &mutable);
        }
        let mut layer_ids = vec![Vec::new(); names.layer_count];
        for id in bits::ones(&mutable) {
            if let Some(&(_, layer)) = names.objects.get(&names.id_dict[id]) {
                layer_ids[layer].push(id);
            }
        }
        let layer_bits: Vec<u32> = layer_ids
            .iter()
            .map(|ids| usize::BITS - ids.len().leading_zeros())
            .collect();
        let mut id_value = vec![0u64; names.id_dict.len()];
        let mut layer_word = vec![0u64; names.layer_count];
        let mut layer_wide = vec![0u64; names.layer_count * so];
        for (layer, ids) in layer_ids.iter().enumerate() {
            for (k, &id) in ids.iter().enumerate() {
                id_value[id] = k as u64 + 1;
                if let Some(w) = layer_wide.get_mut(layer * so + id / 64) {
                    *w |= 1 << (id % 64);
                }
                if id < 64 {
                    layer_word[layer] |= 1 << id;
                }
            }
        }
        let holds = |cell: usize, layer: usize| {
            !layer_ids[layer].is_empty()
                && template
                    .get(cell * so..cell * so + so)
                    .is_some_and(|t| !bits::intersects(t, &names.layer_masks[layer]))
        };
        let cell_count = template.len() / so.max(1);
        let mut field_bits = vec![0u64; names.layer_count];
        for cell in 0..cell_count {
            for (layer, bits) in field_bits.iter_mut().enumerate() {
                if holds(cell, layer) {
                    *bits += u64::from(layer_bits[layer]);
                }
            }
        }
        let mut positions = match start {
            Some(start) => Positions::plan(g, &layer_ids, cell_count, holds, start, &field_bits),
            None => Positions::default(),
        };
        let by_positions = |layer: usize| positions.by_layer.get(layer) == Some(&true);
        let mut fields = Vec::new();
        for cell in 0..cell_count {
            for layer in 0..names.layer_count {
                if holds(cell, layer) && !by_positions(layer) {
                    fields.push((cell as u32, layer as u16));
                }
            }
        }
        let mut mutable_word = mutable_first;
        for (layer, &word) in layer_word.iter().enumerate() {
            if by_positions(layer) {
                mutable_word &= !word;
            }
        }
        let layers = names.layer_count;
        let mut field_at = vec![u32::MAX; template.len() / so.max(1) * layers];
        let mut offset = 0u32;
        let mut field_offset = Vec::with_capacity(fields.len());
        let mut bit_field = Vec::new();
        for (f, &(cell, layer)) in fields.iter().enumerate() {
            field_at[cell as usize * layers + layer as usize] = offset;
            field_offset.push(offset);
            offset += layer_bits[layer as usize];
            bit_field.resize(offset as usize, f as u32);
        }
        let total_bits: u64 = fields
            .iter()
            .map(|&(_, l)| u64::from(layer_bits[l as usize]))
            .sum();
        let changing_layers = (0..names.layer_count)
            .filter(|&l| !layer_ids[l].is_empty() && !by_positions(l))
            .collect();
        let field_bytes = total_bits.div_ceil(8) as usize;
        let end = positions.place(total_bits as u32);
        Layout {
            so,
            template,
            mutable,
            fields,
            layer_ids,
            layer_bits,
            id_value,
            layer_word,
            layer_wide,
            mutable_word,
            id_layer: names.id_layer.clone(),
            changing_layers,
            positions,
            field_bytes,
            field_offset,
            bit_field,
            field_at,
            bytes: 1 + end.div_ceil(8) as usize,
        }
    }

    /// Appends the encoding of `objects` (with the outcome byte) to `out`;
    /// returns false when a cell holds two changing objects of one layer.
    pub fn encode(&self, objects: &[u64], won: bool, out: &mut Vec<u8>) -> bool {
        if self.so == 1 {
            return self.encode_sparse(objects, won, out);
        }
        let start = out.len();
        out.reserve(self.bytes + 8);
        out.push(u8::from(won));
        let mut ok = true;
        let mut acc: u64 = 0;
        let mut filled = 0u32;
        for &(cell, layer) in &self.fields {
            let (cell, layer) = (cell as usize, layer as usize);
            let value = self.wide_value(objects, cell, layer, &mut ok);
            acc |= value << filled;
            filled += self.layer_bits[layer];
            if filled >= 32 {
                out.extend_from_slice(&(acc as u32).to_le_bytes());
                acc >>= 32;
                filled -= 32;
            }
        }
        while out.len() < start + self.bytes {
            out.push(acc as u8);
            acc >>= 8;
        }
        if let Some(fields) = out.get_mut(start + 1..) {
            ok &= self.positions.encode(objects, fields);
        }
        ok
    }

    /// The one-word case: start from zero fields and write only the cells
    /// that hold a changing object (few, in most levels).
    fn encode_sparse(&self, objects: &[u64], won: bool, out: &mut Vec<u8>) -> bool {
        let start = out.len() + 1;
        out.push(u8::from(won));
        out.resize(start - 1 + self.bytes, 0);
        let layers = self.layer_word.len();
        let mut ok = true;
        for (cell, &o) in objects.iter().enumerate() {
            let mut rest = o & self.mutable_word;
            while rest != 0 {
                let id = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let layer = self.id_layer[id];
                let Some(&offset) = self.field_at.get(cell * layers + layer) else {
                    continue;
                };
                if offset == u32::MAX {
                    ok = false;
                    continue;
                }
                let (byte, shift) = (start + (offset / 8) as usize, offset % 8);
                let value = (self.id_value[id] as u32) << shift;
                for (k, b) in value.to_le_bytes().iter().enumerate() {
                    if *b != 0 {
                        if let Some(slot) = out.get_mut(byte + k) {
                            ok &= *slot & b == 0;
                            *slot |= b;
                        }
                    }
                }
            }
        }
        if let Some(fields) = out.get_mut(start..) {
            ok &= self.positions.encode(objects, fields);
        }
        ok
    }

    /// Rewrites, in `fields` (an encoded state without its outcome byte,
    /// whose objects are `before`), the fields of `cells` from `objects`: the
    /// encoding of a board that differs from the encoded state only in those
    /// cells (repeats allowed). Returns false when one of them holds two
    /// changing objects of one layer, or a changing object where the layout
    /// has no field, or a conserved object's count changed.
    pub fn reencode_cells(
        &self,
        before: &[u64],
        objects: &[u64],
        cells: &[usize],
        fields: &mut [u8],
    ) -> bool {
        if self.changing_layers.is_empty() {
            // Position lists alone (every changing layer is conserved).
            return self
                .positions
                .reencode_cells(before, objects, cells, fields);
        }
        let mut ok = self.reencode_field_cells(before, objects, cells, fields);
        if !self.positions.is_empty() {
            ok &= self
                .positions
                .reencode_cells(before, objects, cells, fields);
        }
        ok
    }

    /// True when [`Layout::reencode_shifts`] applies: the position lists
    /// (if any) fit one word of a narrow state.
    pub fn shifts_apply(&self) -> bool {
        self.positions.is_empty() || self.positions.shifts_apply(self.bytes)
    }

    /// True when a state is one word of at most eight bytes whose fields
    /// are narrow position lists alone: [`Layout::shift_state`] then makes a
    /// successor in a register.
    pub fn word_state(&self) -> bool {
        self.changing_layers.is_empty()
            && !self.positions.is_empty()
            && self.positions.shifts_apply(self.bytes)
            && self.bytes <= 8
    }

    /// The successor of the state `word` (its bytes, little-endian: the
    /// outcome byte lowest) after a turn whose moves are `shifts`, with the
    /// outcome `won`; false beside it when the lists broke (see
    /// [`Layout::reencode_shifts`]). Only when [`Layout::word_state`].
    pub fn shift_state(&self, word: u64, won: bool, shifts: &[Shift]) -> (u64, bool) {
        let (fields, ok) = self.positions.shift_word(shifts, word >> 8);
        (fields << 8 | u64::from(won), ok)
    }

    /// Where the entry of `objects`, standing on cell `from` in the state
    /// `word`, lies when it is a list of one entry
    /// ([`Positions::lone_entry`]): [`Layout::step_state`] then moves it.
    /// Only when [`Layout::word_state`].
    pub fn lone_entry(&self, objects: u64, from: usize, word: u64) -> Option<Entry> {
        self.positions.lone_entry(objects, from, word >> 8)
    }

    /// [`Layout::shift_state`] for the one move of `entry`'s object to cell
    /// `to` (the same word and flag, the entry rewritten alone).
    #[inline]
    pub fn step_state(&self, entry: &Entry, word: u64, won: bool, to: usize) -> (u64, bool) {
        let (fields, ok) = self.positions.place_entry(entry, word >> 8, to);
        (fields << 8 | u64::from(won), ok)
    }

    /// [`Layout::reencode_cells`] for a turn whose rules cannot create or
    /// destroy a conserved object (a direct turn): the fields from the
    /// written `cells`, the position lists from the turn's moves `shifts`
    /// ([`Positions::shift_lists`]), which are fewer than the written cells
    /// and need no comparison with `before`. Only when
    /// [`Layout::shifts_apply`].
    pub fn reencode_shifts(
        &self,
        before: &[u64],
        objects: &[u64],
        cells: &[usize],
        shifts: &[Shift],
        fields: &mut [u8],
    ) -> bool {
        let mut ok = true;
        if !self.changing_layers.is_empty() {
            ok &= self.reencode_field_cells(before, objects, cells, fields);
        }
        if !self.positions.is_empty() && !shifts.is_empty() {
            ok &= self.positions.shift_lists(shifts, fields);
        }
        ok
    }

    /// The fields part of [`Layout::reencode_cells`].
    fn reencode_field_cells(
        &self,
        before: &[u64],
        objects: &[u64],
        cells: &[usize],
        fields: &mut [u8],
    ) -> bool {
        let layers = self.layer_word.len();
        let mut ok = true;
        let so = self.so;
        for &cell in cells {
            // A written cell that ends as it was (a decoration erased and
            // drawn again, a crate pushed back) keeps its fields: only the
            // cells and layers that differ from `before` are re-encoded.
            let diff = if so == 1 {
                let (now, was) = (objects.get(cell), before.get(cell));
                now.zip(was).map_or(u64::MAX, |(n, w)| n ^ w)
            } else {
                let range = cell * so..cell * so + so;
                match (objects.get(range.clone()), before.get(range)) {
                    (Some(n), Some(w)) if n == w => 0,
                    _ => u64::MAX,
                }
            };
            if diff == 0 {
                continue;
            }
            for &layer in &self.changing_layers {
                if so == 1 && diff & self.layer_word[layer] == 0
                    || so > 1 && !self.layer_differs(before, objects, cell, layer)
                {
                    continue;
                }
                let value = if self.so == 1 {
                    let hit = objects.get(cell).copied().unwrap_or(0) & self.layer_word[layer];
                    if hit == 0 {
                        0
                    } else {
                        ok &= hit & (hit - 1) == 0;
                        self.id_value[hit.trailing_zeros() as usize]
                    }
                } else {
                    self.wide_value(objects, cell, layer, &mut ok)
                };
                let offset = self.field_at.get(cell * layers + layer).copied();
                match offset {
                    Some(offset) if offset != u32::MAX => {
                        write_field(fields, offset, self.layer_bits[layer], value);
                    }
                    _ => ok &= value == 0,
                }
            }
        }
        ok
    }

    /// True when a cell's changing objects of `layer` differ between two
    /// grids (objects of several words).
    fn layer_differs(&self, before: &[u64], objects: &[u64], cell: usize, layer: usize) -> bool {
        let so = self.so;
        let range = cell * so..cell * so + so;
        let mask = self.layer_wide.get(layer * so..layer * so + so);
        match (objects.get(range.clone()), before.get(range), mask) {
            (Some(now), Some(was), Some(mask)) => now
                .iter()
                .zip(was)
                .zip(mask)
                .any(|((n, w), m)| (n ^ w) & m != 0),
            _ => true,
        }
    }

    /// The field value of a cell's layer when objects take several words.
    fn wide_value(&self, objects: &[u64], cell: usize, layer: usize, ok: &mut bool) -> u64 {
        let objs = &objects[cell * self.so..cell * self.so + self.so];
        let mut value = 0;
        for &id in &self.layer_ids[layer] {
            if objs[id / 64] >> (id % 64) & 1 == 1 {
                *ok &= value == 0;
                if value == 0 {
                    value = self.id_value[id];
                }
            }
        }
        value
    }

    /// Writes the objects of an encoded state into `objects`; returns the
    /// outcome byte's win flag.
    pub fn decode(&self, state: &[u8], objects: &mut Vec<u64>) -> bool {
        objects.clone_from(&self.template);
        self.decode_fields(state, objects, &mut Vec::new());
        state.first() == Some(&1)
    }

    /// Adds the objects of an encoded state's non-zero fields and position
    /// lists to `objects` (which holds the template at least in those cells)
    /// and lists their cells in `cells`, in increasing order without repeats.
    /// Zero fields cost nothing: the walk goes from set bit to set bit.
    pub fn decode_fields(&self, state: &[u8], objects: &mut [u64], cells: &mut Vec<usize>) {
        cells.clear();
        let fields = state.get(1..).unwrap_or(&[]);
        self.decode_field_bits(fields, objects, cells);
        if !self.positions.is_empty() {
            self.positions.decode(fields, objects, cells);
            sort_short(cells);
        }
    }

    /// [`Layout::decode_fields`] without the sort: `cells` lists the cells
    /// in no particular order, a cell that holds several changing objects
    /// possibly more than once (for a caller that needs no order and skips
    /// repeats itself).
    pub fn decode_fields_unsorted(
        &self,
        state: &[u8],
        objects: &mut [u64],
        cells: &mut Vec<usize>,
    ) {
        cells.clear();
        let fields = state.get(1..).unwrap_or(&[]);
        self.decode_field_bits(fields, objects, cells);
        if !self.positions.is_empty() {
            self.positions.decode(fields, objects, cells);
        }
    }

    /// The walk of [`Layout::decode_fields`] over the fields alone.
    fn decode_field_bits(&self, fields: &[u8], objects: &mut [u64], cells: &mut Vec<usize>) {
        let fields = fields.get(..self.field_bytes).unwrap_or(fields);
        let mut last = u32::MAX;
        for (k, chunk) in fields.chunks(8).enumerate() {
            let mut rest = match <[u8; 8]>::try_from(chunk) {
                Ok(word) => u64::from_le_bytes(word),
                // The last, partial word, byte by byte (no copy call).
                Err(_) => chunk
                    .iter()
                    .rev()
                    .fold(0u64, |acc, &b| acc << 8 | u64::from(b)),
            };
            while rest != 0 {
                let bit = k * 64 + rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let Some(&f) = self.bit_field.get(bit) else {
                    break;
                };
                if f == last {
                    continue;
                }
                last = f;
                let Some(&(cell, layer)) = self.fields.get(f as usize) else {
                    break;
                };
                let (cell, layer) = (cell as usize, layer as usize);
                let offset = self.field_offset[f as usize];
                let value = read_field(fields, offset, self.layer_bits[layer]) as usize;
                let id = value
                    .checked_sub(1)
                    .and_then(|v| self.layer_ids[layer].get(v));
                if let (Some(&id), Some(objs)) = (
                    id,
                    objects.get_mut(cell * self.so..cell * self.so + self.so),
                ) {
                    bits::set(objs, id);
                    if cells.last() != Some(&cell) {
                        cells.push(cell);
                    }
                }
            }
        }
    }
}

/// Sorts a list of cells and drops repeats (an insertion sort when short:
/// the lists of most states' changing cells hold a handful; a game whose
/// states change hundreds of cells would pay its square).
fn sort_short(cells: &mut Vec<usize>) {
    if cells.len() > 32 {
        cells.sort_unstable();
        cells.dedup();
        return;
    }
    for k in 1..cells.len() {
        let mut j = k;
        while j > 0 && cells[j - 1] > cells[j] {
            cells.swap(j - 1, j);
            j -= 1;
        }
    }
    cells.dedup();
}

#[cfg(test)]
mod tests {
    use super::sort_short;

    /// Short and long lists of cells come out sorted without repeats.
    #[test]
    fn cell_lists_are_sorted_without_repeats() {
        for n in [0usize, 1, 5, 32, 33, 500] {
            let mut cells: Vec<usize> = (0..n).map(|k| (k * 7919) % 97).collect();
            let mut expected = cells.clone();
            expected.sort_unstable();
            expected.dedup();
            sort_short(&mut cells);
            assert_eq!(cells, expected, "{n} cells");
        }
    }
}
