//! The movement fields of a game's cells: one five-bit field for each
//! collision layer that can ever hold a movement, none for the others.
//!
//! A cell's movements are five bits a layer in the reference. Most layers of
//! a game with many (markers, decoration, walls, a level's counters) never
//! move: no input moves them (they hold no player) and no rule's right side
//! gives them a direction. Their field is zero on every board, so it need
//! not be stored: the fields of the layers that can move are packed into as
//! few words as they fill (twelve a word, [`bits::LAYERS_PER_WORD`]), and a
//! game of 22 layers of which one moves keeps one word of movements a cell
//! instead of two, which puts it on the engine's one-word paths.
//!
//! What a rule says of a layer that never moves keeps its meaning:
//! - a test that the layer is stationary always holds, and is left out;
//! - a test that it moves never holds: it reads the *dead slot*, a field
//!   that no write ever sets (one for all such layers);
//! - a write that clears its movement (an object removed, `stationary`)
//!   changes nothing, and is left out.
//!
//! The compiler builds each movement mask by layer first (`masks.rs`), and
//! turns it into slots with [`MoveSlots::tested`] or [`MoveSlots::written`];
//! the engine finds a layer's field with [`MoveSlots::slot`] and a field's
//! layer with [`MoveSlots::layer`].

use super::rule_text::Draft;
use super::Names;
use crate::bits;

/// The slot of each layer's movement field (see the module's documentation).
/// Names start with [`MoveSlots::identity`]; a table of no layers
/// ([`Default`]) gives no layer a field.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveSlots {
    /// The slot of each layer, `None` for a layer that never moves.
    of_layer: Vec<Option<usize>>,
    /// The layer of each slot but the dead one, increasing.
    layers: Vec<usize>,
    /// The slot that tests of a movement on a layer that never moves read,
    /// when some layer never moves: no write sets it.
    dead: Option<usize>,
}

impl MoveSlots {
    /// Every one of `layers` layers in its own slot, in order.
    pub fn identity(layers: usize) -> MoveSlots {
        MoveSlots {
            of_layer: (0..layers).map(Some).collect(),
            layers: (0..layers).collect(),
            dead: None,
        }
    }

    /// The slots of a game whose rules, expanded, are `drafts`: a slot for
    /// each layer of the player's objects and each layer a right side gives
    /// a direction (`>`, `moving`, `randomdir`, `action`...), in layer
    /// order, then the dead slot when some layer has none.
    pub fn of(drafts: &[Draft], names: &Names) -> MoveSlots {
        let mut movable = vec![false; names.layer_count];
        let mut mark = |mask: &[u64]| {
            for id in bits::ones(mask) {
                if let Some(m) = names.id_layer.get(id).and_then(|&l| movable.get_mut(l)) {
                    *m = true;
                }
            }
        };
        mark(&names.player_mask);
        let right_cells = drafts.iter().flat_map(|d| d.rhs.iter().flatten());
        for (dir, name) in right_cells.flatten() {
            if gives_movement(dir) {
                // Every object the name may stand for: a property's
                // objects may lie in several layers.
                if let Some(mask) = names.object_masks.get(name) {
                    mark(mask);
                }
            }
        }
        MoveSlots::of_movable(&movable)
    }

    /// The slots of the layers marked in `movable`.
    fn of_movable(movable: &[bool]) -> MoveSlots {
        let mut of_layer = Vec::with_capacity(movable.len());
        let mut layers = Vec::new();
        for (layer, &m) in movable.iter().enumerate() {
            of_layer.push(m.then_some(layers.len()));
            if m {
                layers.push(layer);
            }
        }
        let dead = (layers.len() < movable.len()).then_some(layers.len());
        MoveSlots {
            of_layer,
            layers,
            dead,
        }
    }

    /// The number of slots, the dead one included.
    pub fn count(&self) -> usize {
        self.layers.len() + usize::from(self.dead.is_some())
    }

    /// The words of a cell's movements.
    pub fn words(&self) -> usize {
        bits::mov_words(self.count())
    }

    /// The slot of `layer`'s field; `None` when the layer never moves.
    #[inline]
    pub fn slot(&self, layer: usize) -> Option<usize> {
        self.of_layer.get(layer).copied().flatten()
    }

    /// The layer whose field is in `slot`; `None` for the dead slot.
    #[inline]
    pub fn layer(&self, slot: usize) -> Option<usize> {
        self.layers.get(slot).copied()
    }

    /// The slots of the layers that can move, the dead one left out.
    pub fn movable(&self) -> std::ops::Range<usize> {
        0..self.layers.len()
    }

    /// A mask of bits that must be set (a left side's movements), given
    /// layer by layer (`bits::mov_pos` of each layer), in slots: a layer
    /// that never moves reads the dead slot, which is never set.
    pub fn tested(&self, by_layer: &[u64]) -> Vec<u64> {
        self.to_slots(by_layer, self.dead)
    }

    /// A mask of bits that must be clear, or that a write sets or clears,
    /// given layer by layer, in slots: the fields of layers that never move
    /// are always clear, and are left out.
    pub fn written(&self, by_layer: &[u64]) -> Vec<u64> {
        self.to_slots(by_layer, None)
    }

    /// `by_layer` in slots, the fields of layers that never move put in
    /// `elsewhere` (`None`: left out).
    fn to_slots(&self, by_layer: &[u64], elsewhere: Option<usize>) -> Vec<u64> {
        let mut out = vec![0; self.words()];
        for (layer, &slot) in self.of_layer.iter().enumerate() {
            let field = bits::mov_get(by_layer, layer);
            if let Some(slot) = slot.or(elsewhere).filter(|_| field != 0) {
                bits::mov_or(&mut out, slot, field);
            }
        }
        out
    }
}

/// True when a right side's word before an object gives its layer a
/// movement: a direction, `moving`, `action` or `randomdir` (not nothing,
/// `no`, `random`, `stationary` or an ellipsis).
fn gives_movement(dir: &str) -> bool {
    !matches!(dir, "" | "no" | "random" | "stationary" | "...")
}

/// The layers (a bit each) whose field is not zero in any of `masks`, given
/// layer by layer: what the analyses that reason by layer (`inert`) read
/// of a pattern's or a replacement's movements, whatever the slots.
pub fn layers_of(masks: &[&[u64]], layer_count: usize) -> Box<[u64]> {
    let mut out = vec![0; bits::words_for(layer_count)];
    for layer in 0..layer_count {
        if masks.iter().any(|m| bits::mov_get(m, layer) != 0) {
            bits::set(&mut out, layer);
        }
    }
    out.into_boxed_slice()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table of 14 layers of which 0, 5 and 13 move.
    fn three_of_fourteen() -> MoveSlots {
        let movable: Vec<bool> = (0..14).map(|l| [0, 5, 13].contains(&l)).collect();
        MoveSlots::of_movable(&movable)
    }

    #[test]
    fn layers_that_move_get_slots_in_order_and_one_dead_slot() {
        let s = three_of_fourteen();
        assert_eq!(
            (s.slot(0), s.slot(5), s.slot(13)),
            (Some(0), Some(1), Some(2))
        );
        assert_eq!((s.slot(1), s.slot(12)), (None, None));
        assert_eq!(
            (s.layer(1), s.layer(2), s.layer(3)),
            (Some(5), Some(13), None)
        );
        assert_eq!((s.count(), s.words()), (4, 1));
        // Fourteen layers took two words.
        assert_eq!(bits::mov_words(14), 2);
        let all = MoveSlots::of_movable(&[true; 14]);
        assert_eq!((all.count(), all.words(), all.dead), (14, 2, None));
    }

    #[test]
    fn masks_move_to_slots_and_tests_of_still_layers_to_the_dead_slot() {
        let s = three_of_fourteen();
        let mut by_layer = vec![0; bits::mov_words(14)];
        bits::mov_or(&mut by_layer, 13, 8);
        bits::mov_or(&mut by_layer, 7, 2);
        let tested = s.tested(&by_layer);
        assert_eq!(bits::mov_get(&tested, 2), 8);
        assert_eq!(
            bits::mov_get(&tested, 3),
            2,
            "layer 7 never moves: dead slot"
        );
        let written = s.written(&by_layer);
        assert_eq!(bits::mov_get(&written, 2), 8);
        assert_eq!(
            bits::mov_get(&written, 3),
            0,
            "a still layer's write is left out"
        );
        assert_eq!(&layers_of(&[&by_layer], 14)[..], &[1 << 7 | 1 << 13]);
    }

    #[test]
    fn the_identity_gives_every_layer_its_own_slot() {
        let s = MoveSlots::identity(3);
        assert_eq!((s.slot(2), s.layer(2), s.slot(3)), (Some(2), Some(2), None));
        assert_eq!((s.count(), s.dead), (3, None));
    }
}
