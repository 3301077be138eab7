//! Parsing and printing of byte sizes such as `512M` or `2G`, and the
//! default memory budget.

/// The largest size a flag takes: 1024 TiB, beyond the memory of any machine, so a size
/// past it is a typing error (2^64 bytes or more made the explorer's sizing loop forever).
pub const MAX_SIZE: u64 = 1 << 50;

/// Parses `1234`, `64K`, `512M`, `2G`, `1T` (binary multiples, `iB`/`B` suffix allowed),
/// from one byte to [`MAX_SIZE`].
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (digits, shift) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 30),
        Some('T' | 't') => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let value: f64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a size (examples: 800M, 2G, 1.5G)"))?;
    if !(value.is_finite() && value > 0.0) {
        return Err(format!("`{text}` is not a positive size"));
    }
    let bytes = value * (1u64 << shift) as f64;
    if bytes > MAX_SIZE as f64 {
        return Err(format!("`{text}` is too large: at most 1024T"));
    }
    if bytes < 1.0 {
        return Err(format!("`{text}` is less than one byte"));
    }
    Ok(bytes as u64)
}

/// Half of the machine's memory, or 4 GiB when it cannot be read.
pub fn default_budget() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map(|kib| kib * 1024);
    total.map(|t| t / 2).unwrap_or(4 << 30)
}

/// `1.5 GiB`-style text for people.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_suffixes() {
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("-1G").is_err());
        assert_eq!(human(3 << 29), "1.5 GiB");
    }

    #[test]
    fn absurd_sizes_are_refused() {
        // Regression: `--mem 16777216T` (2^64 bytes) made the explorer's sizing loop forever.
        assert_eq!(parse_size("1024T"), Ok(MAX_SIZE));
        for bad in ["16777216T", "1025T", "1e300", "inf", "NaN", "0", "0.1"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert!(parse_size("0.5K").is_ok());
    }
}
