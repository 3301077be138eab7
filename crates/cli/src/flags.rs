//! Value parsers of the numeric flags. Every number a command takes is checked when the
//! command line is read, so a wrong one is a usage error (exit code 2) whose message says
//! what is allowed, never a panic or a silent clamp deep inside a command.

/// The most worker threads any command starts: far beyond the cores of any machine this
/// runs on, and few enough that their stacks fit in memory.
pub const MAX_THREADS: usize = 1024;

/// The most processes `explore --local-processes` starts on this machine: each runs its
/// own worker threads and connects to every other, and ports are bound for all of them
/// before the first starts, so a count in the thousands would only thrash.
pub const MAX_LOCAL_PROCESSES: usize = 64;

/// The longest checkpoint interval, in seconds (about 31 years: in effect, never).
pub const MAX_CHECKPOINT_SECS: f64 = 1e9;

/// The most instances or runs of a sandbox experiment.
pub const MAX_INSTANCES: usize = 1_000_000;

/// The largest sandbox population (the solver also bounds population times genes).
pub const MAX_POPULATION: usize = 10_000_000;

/// The longest sandbox chromosome.
pub const MAX_GENES: usize = 100_000;

/// The piece counts Fling!'s tables and selection handle.
pub const FLING_PIECES: std::ops::RangeInclusive<usize> = 2..=14;

/// A whole number from `least` to `most`, with a message naming the range.
fn whole<T>(text: &str, least: T, most: T) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
{
    let value: T = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number from {least} to {most}"))?;
    if value < least || value > most {
        return Err(format!("{value} is out of range: from {least} to {most}"));
    }
    Ok(value)
}

/// A worker thread count: 1 to [`MAX_THREADS`].
pub fn threads(text: &str) -> Result<usize, String> {
    whole(text, 1, MAX_THREADS)
}

/// Processes of a cluster on this machine: 1 to [`MAX_LOCAL_PROCESSES`].
pub fn local_processes(text: &str) -> Result<usize, String> {
    whole(text, 1, MAX_LOCAL_PROCESSES)
}

/// A count of at least one (levels are numbered from 1, limits of 0 would do nothing).
pub fn count(text: &str) -> Result<usize, String> {
    whole(text, 1, usize::MAX)
}

/// A count of at least one, as a `u64`.
pub fn count_u64(text: &str) -> Result<u64, String> {
    whole(text, 1, u64::MAX)
}

/// A count of at least one, as a `u32`.
pub fn count_u32(text: &str) -> Result<u32, String> {
    whole(text, 1, u32::MAX)
}

/// Instances or runs of a sandbox experiment: 1 to [`MAX_INSTANCES`].
pub fn instances(text: &str) -> Result<usize, String> {
    whole(text, 1, MAX_INSTANCES)
}

/// A sandbox population: 1 to [`MAX_POPULATION`] (the solver asks for at least its
/// tournament size and says so).
pub fn population(text: &str) -> Result<usize, String> {
    whole(text, 1, MAX_POPULATION)
}

/// Genes per sandbox chromosome: 1 to [`MAX_GENES`].
pub fn genes(text: &str) -> Result<usize, String> {
    whole(text, 1, MAX_GENES)
}

/// Tournament updates of a sandbox run: 0 to a billion (two games each).
pub fn updates(text: &str) -> Result<usize, String> {
    whole(text, 0, 1_000_000_000)
}

/// Pieces on a Fling! board: 2 to 14.
pub fn fling_pieces(text: &str) -> Result<usize, String> {
    whole(text, *FLING_PIECES.start(), *FLING_PIECES.end())
}

/// A number of seconds from 0 to [`MAX_CHECKPOINT_SECS`] (`inf`, `NaN` and negative
/// numbers are refused: a `Duration` cannot hold them).
pub fn seconds(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(0.0..=MAX_CHECKPOINT_SECS).contains(&value) {
        return Err(format!(
            "`{text}` is out of range: a number of seconds from 0 to {MAX_CHECKPOINT_SECS:e}"
        ));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoint_seconds_refuse_infinity_nan_and_negatives() {
        assert_eq!(seconds("2"), Ok(2.0));
        assert_eq!(seconds("0.05"), Ok(0.05));
        assert_eq!(seconds("1000000"), Ok(1e6));
        for bad in ["inf", "-inf", "NaN", "nan", "1e300", "-1", "", "two"] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn counts_refuse_zero_and_overflow() {
        assert_eq!(threads("1"), Ok(1));
        assert_eq!(threads("1024"), Ok(1024));
        for bad in ["0", "1025", "100000", "-1", "1.5", "x"] {
            assert!(threads(bad).is_err(), "{bad}");
        }
        assert!(count("0").is_err());
        assert!(count_u64("18446744073709551616").is_err());
        assert_eq!(count_u32("7"), Ok(7));
        assert!(fling_pieces("1").is_err());
        assert!(fling_pieces("15").is_err());
        assert_eq!(fling_pieces("14"), Ok(14));
        assert!(population("18446744073709551615").is_err());
        assert!(genes("1000000000").is_err());
        assert!(instances("0").is_err());
        assert_eq!(local_processes("64"), Ok(64));
        for bad in ["0", "65", "1000", "65536"] {
            assert!(local_processes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn messages_name_the_range() {
        let err = threads("100000").unwrap_err();
        assert!(err.contains("1 to 1024"), "{err}");
        let err = seconds("inf").unwrap_err();
        assert!(err.contains("seconds"), "{err}");
    }
}
