//! A small deterministic generator for the crate's randomised unit tests
//! (random cells and boards), so that each test module need not carry its own.

/// A xorshift generator from `seed` (which must not be zero).
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
