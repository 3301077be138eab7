//! Short byte strings as little-endian words, without a copy of a run-time
//! length (a call to `memcpy` for a handful of bytes, at every state).

/// The little-endian word of up to eight bytes, zero padded (the first eight
/// bytes of a longer string).
///
/// Built from two overlapping loads rather than a copy into a padded
/// buffer: a copy of a length known only at run time is a call to `memcpy`,
/// which took 6% of a narrow search's time, once for every successor.
#[inline]
pub fn le_word(bytes: &[u8]) -> u64 {
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

/// Appends `bytes` to `out`. At most eight bytes go as one word store cut to
/// length, which the loads that read them soon after can take straight from
/// the store (`memcpy` writes with masked stores, which they cannot).
#[inline]
pub fn append_short(out: &mut Vec<u8>, bytes: &[u8]) {
    if bytes.len() <= 8 {
        let at = out.len();
        out.extend_from_slice(&le_word(bytes).to_le_bytes());
        out.truncate(at + bytes.len());
    } else {
        out.extend_from_slice(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_its_bytes_zero_padded() {
        let bytes = [0x11u8, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99];
        for n in 0..=9 {
            let mut padded = [0u8; 8];
            let m = n.min(8);
            padded[..m].copy_from_slice(&bytes[..m]);
            assert_eq!(
                le_word(&bytes[..n]),
                u64::from_le_bytes(padded),
                "{n} bytes"
            );
        }
    }

    #[test]
    fn appending_short_or_long_strings_keeps_exactly_their_bytes() {
        let mut out = vec![9u8];
        for n in 0..=12 {
            let bytes: Vec<u8> = (1..=n as u8).collect();
            append_short(&mut out, &bytes);
        }
        let want: Vec<u8> = std::iter::once(9)
            .chain((0..=12u8).flat_map(|n| 1..=n))
            .collect();
        assert_eq!(out, want);
    }
}
