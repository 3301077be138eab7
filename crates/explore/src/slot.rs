//! Fixed-size slots for state records, so that every state of a run takes
//! the same number of bytes in the store, in the index and in scratch files.
//!
//! A fixed-width game's state is its own slot. A variable-width state is
//! stored as a two-byte little-endian length, the bytes, and zero padding up
//! to the game's maximum, so that equal states always have equal slots.

use crate::ExploreError;
use model::StateWidth;

/// The slot layout of one run.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    width: usize,
    variable: bool,
}

impl Slot {
    /// The layout for a game's declared width.
    pub fn for_width(width: StateWidth) -> Slot {
        match width {
            StateWidth::Fixed(n) => Slot {
                width: n,
                variable: false,
            },
            StateWidth::Variable { max } => Slot {
                width: max + 2,
                variable: true,
            },
        }
    }

    /// Bytes per slot.
    pub fn width(self) -> usize {
        self.width
    }

    /// True when slots carry a length prefix.
    pub fn is_variable(self) -> bool {
        self.variable
    }

    /// Appends the slot of `state` to `out`.
    #[inline]
    pub fn encode(self, state: &[u8], out: &mut Vec<u8>) -> Result<(), ExploreError> {
        if !self.variable {
            if state.len() != self.width {
                return Err(ExploreError::StateTooWide {
                    len: state.len(),
                    max: self.width,
                });
            }
            store::append_short(out, state);
            return Ok(());
        }
        let max = self.width - 2;
        if state.len() > max {
            return Err(ExploreError::StateTooWide {
                len: state.len(),
                max,
            });
        }
        out.extend_from_slice(&(state.len() as u16).to_le_bytes());
        out.extend_from_slice(state);
        out.resize(out.len() + max - state.len(), 0);
        Ok(())
    }

    /// The state inside a slot. A corrupt length is clamped to the slot, so a
    /// damaged record can never index out of bounds.
    #[inline]
    pub fn decode(self, slot: &[u8]) -> &[u8] {
        if !self.variable {
            return slot;
        }
        let len = u16::from_le_bytes([slot[0], slot[1]]) as usize;
        &slot[2..(2 + len).min(slot.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_slots_round_trip_and_pad() {
        let slot = Slot::for_width(StateWidth::Variable { max: 4 });
        let mut out = Vec::new();
        slot.encode(&[7, 8], &mut out).unwrap();
        assert_eq!(out, vec![2, 0, 7, 8, 0, 0]);
        assert_eq!(slot.decode(&out), &[7, 8]);
        assert!(slot.encode(&[1; 5], &mut out).is_err());
    }

    #[test]
    fn fixed_slots_refuse_other_lengths() {
        let slot = Slot::for_width(StateWidth::Fixed(3));
        let mut out = Vec::new();
        slot.encode(&[1, 2, 3], &mut out).unwrap();
        assert_eq!(slot.decode(&out), &[1, 2, 3]);
        assert!(slot.encode(&[1, 2], &mut out).is_err());
    }
}
