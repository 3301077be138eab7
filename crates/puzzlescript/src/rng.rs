//! The reference's seeded random generator, reproduced exactly: RC4 keyed by
//! the seed string's bytes, seven output bytes folded into a double in
//! `[0, 1]`, and `floor(uniform * n)` for a choice among `n`.
//!
//! The reference seeds a fresh generator each time a level is loaded, from
//! the seed given to the test case (or from the clock when none is given).

/// An RC4 stream seeded from a string, as the reference's `RNG`.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u8; 256],
    i: u8,
    j: u8,
}

impl Rng {
    /// A generator keyed by `seed`. The reference keys with the seed's UTF-16
    /// code units, each written big-endian in as few bytes as it needs.
    pub fn new(seed: &str) -> Rng {
        let mut s = [0u8; 256];
        for (i, x) in s.iter_mut().enumerate() {
            *x = i as u8;
        }
        let mut key = Vec::new();
        for unit in seed.encode_utf16() {
            if unit > 0xff {
                key.push((unit >> 8) as u8);
            }
            key.push((unit & 0xff) as u8);
        }
        if !key.is_empty() {
            let mut j: u8 = 0;
            for i in 0..256 {
                j = j.wrapping_add(s[i]).wrapping_add(key[i % key.len()]);
                s.swap(i, usize::from(j));
            }
        }
        Rng { s, i: 0, j: 0 }
    }

    fn next_byte(&mut self) -> u8 {
        self.i = self.i.wrapping_add(1);
        self.j = self.j.wrapping_add(self.s[usize::from(self.i)]);
        self.s.swap(usize::from(self.i), usize::from(self.j));
        let k = self.s[usize::from(self.i)].wrapping_add(self.s[usize::from(self.j)]);
        self.s[usize::from(k)]
    }

    /// A double in `[0, 1]` built from seven bytes, rounded as the
    /// reference's doubles round.
    pub fn uniform(&mut self) -> f64 {
        let mut out = 0.0f64;
        for _ in 0..7 {
            out *= 256.0;
            out += f64::from(self.next_byte());
        }
        out / (2f64.powi(56) - 1.0)
    }

    /// `floor(uniform() * n)`, the reference's way to pick among `n`.
    pub fn choose(&mut self, n: usize) -> usize {
        let pick = (self.uniform() * n as f64).floor() as usize;
        pick.min(n.saturating_sub(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rc4_matches_the_published_test_vector() {
        // RC4 with key "Key" starts with the keystream bytes eb 9f 77 81.
        let mut r = Rng::new("Key");
        let bytes: Vec<u8> = (0..4).map(|_| r.next_byte()).collect();
        assert_eq!(bytes, vec![0xeb, 0x9f, 0x77, 0x81]);
    }

    #[test]
    fn choices_stay_in_range() {
        let mut r = Rng::new("seed");
        for n in 1..20 {
            assert!(r.choose(n) < n);
        }
    }
}
