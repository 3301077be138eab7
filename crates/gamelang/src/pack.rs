//! Bit-packing of states: each track element is stored as its index in its
//! value set, in just enough bits, least significant bits first; the last
//! bit marks the error state.

use super::ir::{Dom, Val};

/// Where each element lives in a packed state.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Bits of each slot.
    pub widths: Vec<u32>,
    /// Bytes of a packed state.
    pub bytes: usize,
}

fn bits_for(size: u64) -> u32 {
    64 - size.saturating_sub(1).leading_zeros()
}

impl Layout {
    /// The layout of states with these slot sets.
    pub fn new(slots: &[Dom]) -> Layout {
        let widths: Vec<u32> = slots.iter().map(|d| bits_for(d.size())).collect();
        let bits = widths.iter().map(|w| *w as usize).sum::<usize>() + 1;
        Layout {
            widths,
            bytes: bits.div_ceil(8),
        }
    }

    /// Appends the packing of `values` (one per slot) to `out`.
    pub fn pack(&self, values: &[Val], doms: &[Dom], error: bool, out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + self.bytes, 0);
        let buf = &mut out[start..];
        let (mut acc, mut filled, mut at) = (0u64, 0u32, 0usize);
        let mut put = |value: u64, width: u32, acc: &mut u64, filled: &mut u32| {
            *acc |= value << *filled;
            *filled += width;
            while *filled >= 8 {
                if let Some(b) = buf.get_mut(at) {
                    *b = *acc as u8;
                }
                at += 1;
                *acc >>= 8;
                *filled -= 8;
            }
        };
        for ((v, d), w) in values.iter().zip(doms).zip(&self.widths) {
            put(d.index(*v).unwrap_or(0), *w, &mut acc, &mut filled);
        }
        put(u64::from(error), 1, &mut acc, &mut filled);
        put(0, 7, &mut acc, &mut filled);
    }

    /// Decodes `state` into `values`; returns the error bit, or `None`
    /// when the bytes are not a state of this layout.
    pub fn unpack(&self, state: &[u8], doms: &[Dom], values: &mut Vec<Val>) -> Option<bool> {
        if state.len() != self.bytes {
            return None;
        }
        values.clear();
        let (mut acc, mut filled, mut at) = (0u64, 0u32, 0usize);
        let mut take = |width: u32, acc: &mut u64, filled: &mut u32| -> u64 {
            while *filled < width {
                *acc |= u64::from(state.get(at).copied().unwrap_or(0)) << *filled;
                at += 1;
                *filled += 8;
            }
            let v = *acc & ((1u64 << width) - 1);
            *acc >>= width;
            *filled -= width;
            v
        };
        for (d, w) in doms.iter().zip(&self.widths) {
            let i = take(*w, &mut acc, &mut filled);
            if i >= d.size() {
                return None;
            }
            values.push(d.value(i));
        }
        Some(take(1, &mut acc, &mut filled) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_width() {
        let doms = [
            Dom::Int { lo: -3, size: 7 },
            Dom::Bool,
            Dom::Enum {
                base: 0,
                len: 2,
                opt: true,
            },
            Dom::Int { lo: 0, size: 1 },
            Dom::Int {
                lo: 5,
                size: 1 << 20,
            },
        ];
        let layout = Layout::new(&doms);
        assert_eq!(layout.widths, vec![3, 1, 2, 0, 20]);
        assert_eq!(layout.bytes, 4);
        let values = vec![2, 1, -1, 0, 5 + 99_999];
        let mut buf = Vec::new();
        layout.pack(&values, &doms, true, &mut buf);
        let mut back = Vec::new();
        assert_eq!(layout.unpack(&buf, &doms, &mut back), Some(true));
        assert_eq!(back, values);
        assert_eq!(layout.unpack(&buf[1..], &doms, &mut back), None);
    }
}
