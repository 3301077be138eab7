//! Reproducible instances of a specification, and the small random number
//! generator behind them (also used by the evolutionary solver).

use super::level::{HiddenToken, Instance, Spec, Token};
use super::rules::{TokenKind, ValueKind};

/// SplitMix64: a tiny, fast generator with a 64-bit state. Written here so
/// that generated instances never change with a dependency's version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitMix {
    state: u64,
}

impl SplitMix {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix { state: seed }
    }

    /// A generator for one item of a family, e.g. (seed, instance, run):
    /// each part is mixed in, so neighbouring items get unrelated streams.
    pub fn derive(parts: &[u64]) -> SplitMix {
        let mut state = 0x5EED_5A4D_B0C5_u64;
        for &p in parts {
            state = SplitMix::new(state ^ p).next_u64();
        }
        SplitMix::new(state)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The next 32 random bits.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A number in `0..n` (`n > 0`), by multiply-shift: the bias is below
    /// 2^-32 for the small ranges used here.
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        ((u64::from(self.next_u32()) * u64::from(n)) >> 32) as u32
    }
}

/// Draws instance `index` (0-based) of `spec` from `seed`: walls and tokens
/// on distinct squares chosen uniformly among all but the centre, strengths
/// uniform in the value range, arrows in a uniform direction, teleporters
/// paired in placement order, hidden tokens dealt round-robin to the greens.
pub fn generate(spec: &Spec, seed: u64, index: u64) -> Result<Instance, String> {
    spec.check()?;
    let mut rng = SplitMix::derive(&[seed, index]);
    let start = Instance::centre(spec.side);
    let cells = u16::from(spec.side) * u16::from(spec.side);
    let mut free: Vec<u8> = (0..cells)
        .map(|c| c as u8)
        .filter(|&c| c != start)
        .collect();
    let mut take = |rng: &mut SplitMix| -> u8 {
        let i = rng.below(free.len() as u32) as usize;
        free.swap_remove(i)
    };
    let walls: Vec<u8> = (0..spec.walls).map(|_| take(&mut rng)).collect();
    let mut tokens = Vec::new();
    let mut pair = 0u8;
    for kind in TokenKind::ALL {
        for n in 0..spec.count(kind) {
            let cell = take(&mut rng);
            let value = match kind.value_kind() {
                ValueKind::Pair => {
                    pair += u8::from(n % 2 == 0);
                    pair
                }
                _ => draw_value(&mut rng, kind, spec.values),
            };
            tokens.push(Token { cell, kind, value });
        }
    }
    let greens: Vec<u8> = tokens
        .iter()
        .filter(|t| t.kind == TokenKind::Green)
        .map(|t| t.cell)
        .collect();
    let mut hidden = Vec::new();
    for kind in TokenKind::ALL {
        for _ in 0..spec.hidden[usize::from(kind.code())] {
            let green = greens[hidden.len() % greens.len().max(1)];
            let cell = take(&mut rng);
            let value = draw_value(&mut rng, kind, spec.values);
            hidden.push(HiddenToken {
                token: Token { cell, kind, value },
                green,
            });
        }
    }
    let mut walls = walls;
    walls.sort_unstable();
    tokens.sort_unstable_by_key(|t| t.cell);
    let instance = Instance {
        title: instance_title(&spec.title, index),
        side: spec.side,
        moves: spec.start_moves(),
        rules: spec.rules,
        start,
        walls,
        tokens,
        hidden,
    };
    instance.check()?;
    Ok(instance)
}

fn draw_value(rng: &mut SplitMix, kind: TokenKind, (lo, hi): (u8, u8)) -> u8 {
    match kind.value_kind() {
        ValueKind::None | ValueKind::Pair => 0,
        ValueKind::Direction => rng.below(4) as u8,
        ValueKind::Strength => lo + rng.below(u32::from(hi - lo) + 1) as u8,
    }
}

/// The seed's experiment presets: `exp2` (Figure 2: 7x7, six blue, three
/// red) and `exp3` to `exp6` (Table I: 11x11 with 10 blue and 5 red, plus
/// gold, black or both).
pub fn preset(name: &str) -> Option<Spec> {
    let (side, gold, black, title) = match name {
        "exp2" => (7, 0, 0, "exp2: 7x7, 6 blue, 3 red"),
        "exp3" => (11, 0, 0, "exp3: 11x11, 10 blue, 5 red"),
        "exp4" => (11, 1, 0, "exp4: 11x11, 10 blue, 5 red, 1 gold"),
        "exp5" => (11, 0, 5, "exp5: 11x11, 10 blue, 5 red, 5 black"),
        "exp6" => (11, 1, 5, "exp6: 11x11, 10 blue, 5 red, 1 gold, 5 black"),
        _ => return None,
    };
    let (blue, red) = if side == 7 { (6, 3) } else { (10, 5) };
    Some(
        Spec::empty(title, side)
            .with(TokenKind::Blue, blue)
            .with(TokenKind::Red, red)
            .with(TokenKind::Gold, gold)
            .with(TokenKind::Black, black),
    )
}

/// The names [`preset`] knows.
pub const PRESETS: [&str; 5] = ["exp2", "exp3", "exp4", "exp5", "exp6"];

/// The title of a specification's instance `index` (0-based): `TITLE #N`, or `#N` for an
/// untitled specification, whose `" #N"` would reload trimmed, as another level.
fn instance_title(spec_title: &str, index: u64) -> String {
    match spec_title.trim() {
        "" => format!("#{}", index.saturating_add(1)),
        title => format!("{title} #{}", index.saturating_add(1)),
    }
}
