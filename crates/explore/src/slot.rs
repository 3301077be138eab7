//! Fixed-size slots for state records, so that every state of a run takes
//! the same number of bytes in the store, in the index and in scratch files.
//!
//! A fixed-width game's state is its own slot. A variable-width state is
//! stored as a two-byte little-endian length, the bytes, and zero padding up
//! to the game's maximum, so that equal states always have equal slots.

use crate::ExploreError;
use model::StateWidth;

/// The little-endian word of up to eight bytes, zero padded.
///
/// Built from two overlapping loads rather than a copy into a padded
/// buffer: a copy of a length known only at run time is a call to `memcpy`,
/// which took 6% of a narrow search's time, once for every successor.
#[inline]
pub fn word(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let le2 = |at: usize| u64::from(u16::from_le_bytes([bytes[at], bytes[at + 1]]));
    let le4 = |at: usize| {
        let b = &bytes[at..at + 4];
        u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    match n {
        // The two loads overlap on the bytes they share, which hold the
        // same value in both, so or-ing them is exact.
        8.. => u64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8])),
        4..=7 => le4(0) | le4(n - 4) << (8 * (n - 4)),
        2..=3 => le2(0) | le2(n - 2) << (8 * (n - 2)),
        1 => u64::from(bytes[0]),
        0 => 0,
    }
}

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
            if self.width <= 8 {
                // One whole-word store, cut to length: a copy of a run-time
                // length is a call to `memcpy`, whose masked stores the
                // processor cannot forward to the loads of the record that
                // follow at once.
                let at = out.len();
                out.extend_from_slice(&word(state).to_le_bytes());
                out.truncate(at + self.width);
            } else {
                out.extend_from_slice(state);
            }
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
    fn a_word_is_its_bytes_zero_padded() {
        let bytes = [0x11u8, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88];
        for n in 0..=8 {
            let mut padded = [0u8; 8];
            padded[..n].copy_from_slice(&bytes[..n]);
            assert_eq!(word(&bytes[..n]), u64::from_le_bytes(padded), "{n} bytes");
        }
    }

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
