//! Numbers as people read them, one format for every screen and report: counts with
//! thousands separators (`32,344,588`) and shares as percentages (`94.69%`). The
//! command line's human output and the workbench both call these, so that a figure
//! reads the same wherever it is shown (JSON and CSV keep plain numbers).

/// `n` (any unsigned count: `u8` to `u128`) with a comma between groups of three
/// digits: `32,344,588`.
pub fn grouped(n: impl Into<u128>) -> String {
    let digits = n.into().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// [`grouped`] for a signed number: `-1,024`.
pub fn grouped_signed(n: i64) -> String {
    let text = grouped(n.unsigned_abs());
    if n < 0 {
        format!("-{text}")
    } else {
        text
    }
}

/// A share in `[0, 1]` as a percentage with two decimals (`94.69%`), or more when two
/// would round a share that is not exactly 0 or 1 to `0.00%` or `100.00%`: a level
/// with one hyperstate fewer than states never reads as 100% compressed.
pub fn percent(x: f64) -> String {
    let p = x * 100.0;
    for decimals in 2..=6 {
        let text = format!("{p:.decimals$}");
        let rounded_to_end = (x < 1.0 && text.starts_with("100"))
            || (x > 0.0 && text.chars().all(|c| c == '0' || c == '.'));
        if !rounded_to_end {
            return format!("{text}%");
        }
    }
    if x < 0.5 {
        "<0.000001%".to_string()
    } else {
        ">99.999999%".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(grouped(0u64), "0");
        assert_eq!(grouped(999u64), "999");
        assert_eq!(grouped(1000u64), "1,000");
        assert_eq!(grouped(32_344_588u64), "32,344,588");
        assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
        assert_eq!(grouped(7u8), "7");
        assert_eq!(grouped(1_000_000u128), "1,000,000");
        assert_eq!(grouped_signed(-1024), "-1,024");
        assert_eq!(grouped_signed(-999), "-999");
    }

    #[test]
    fn percentages_never_round_to_their_ends() {
        assert_eq!(percent(0.946_9), "94.69%");
        assert_eq!(percent(1.0), "100.00%");
        assert_eq!(percent(0.0), "0.00%");
        assert_eq!(percent(0.999_99), "99.999%");
        assert_eq!(percent(0.000_01), "0.001%");
    }
}
