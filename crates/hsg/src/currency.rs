//! Whether a saved analysis describes a run as it is now: the one answer that the
//! commands (`hsg/src/run.rs` and the CLI around it) and the workbench all use, and
//! the words in which a stale analysis is announced.

use crate::summary::Source;

/// How an analysis relates to the run it is shown with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Currency {
    /// It was computed from the run exactly as it is: same level, same counts.
    Current,
    /// It was computed from an earlier checkpoint of this run: the same level, and no
    /// count above the run's (state ids only ever grow, so the states it analysed are
    /// the run's first ones), but the run holds more now. Its figures describe that
    /// snapshot.
    Earlier {
        /// What the analysis covers.
        analysed: Source,
        /// What the run holds now.
        now: Source,
    },
    /// It is not an analysis of this run as stored: another level, or more states,
    /// expanded states or transitions than the run holds (the run was explored again
    /// since). Nothing of it may be shown with this run.
    Foreign {
        /// Why, in a sentence.
        why: String,
    },
}

/// How an analysis of `analysed` relates to a run holding `now`.
pub fn currency(analysed: &Source, now: &Source) -> Currency {
    if analysed == now {
        return Currency::Current;
    }
    let hash = &analysed.level_hash;
    // Summaries of early versions recorded no level hash; their counts still tell.
    if !hash.is_empty() && *hash != now.level_hash {
        return Currency::Foreign {
            why: format!(
                "it analysed level {hash}, the run holds level {}",
                now.level_hash
            ),
        };
    }
    let counts = [
        ("states", analysed.states, now.states),
        ("expanded states", analysed.expanded, now.expanded),
        ("transitions", analysed.transitions, now.transitions),
    ];
    if let Some((what, a, n)) = counts.into_iter().find(|&(_, a, n)| a > n) {
        return Currency::Foreign {
            why: format!(
                "it analysed {} {what} and the run holds only {} (the run was explored again since)",
                grouped(a),
                grouped(n)
            ),
        };
    }
    Currency::Earlier {
        analysed: analysed.clone(),
        now: now.clone(),
    }
}

impl Currency {
    /// True for [`Currency::Current`].
    pub fn is_current(&self) -> bool {
        *self == Currency::Current
    }

    /// What a reader must be told before any figure of the analysis, in full
    /// sentences (`None` when it is current). `advice` ends it: the command that
    /// brings the analysis up to date, as the caller can name it.
    pub fn warning(&self, advice: &str) -> Option<String> {
        match self {
            Currency::Current => None,
            Currency::Earlier { analysed, now } => Some(format!(
                "This analysis is of an earlier checkpoint of the run: {} states, {} of them \
                 expanded, and {} transitions; the run now holds {} states, {} expanded, and \
                 {} transitions. Its figures describe that snapshot, not the run. {advice}",
                grouped(analysed.states),
                grouped(analysed.expanded),
                grouped(analysed.transitions),
                grouped(now.states),
                grouped(now.expanded),
                grouped(now.transitions),
            )),
            Currency::Foreign { why } => Some(format!(
                "The saved analysis is not of this run: {why}. {advice}"
            )),
        }
    }
}

/// `n` with a comma between groups of three digits (`32,344,588`), as people read it.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(hash: &str, states: u64, expanded: u64, transitions: u64) -> Source {
        Source {
            level_hash: hash.into(),
            states,
            expanded,
            transitions,
        }
    }

    #[test]
    fn the_same_counts_are_current_fewer_are_earlier_more_are_foreign() {
        let now = source("aa", 100, 90, 300);
        assert!(currency(&now, &now).is_current());
        let snapshot = source("aa", 40, 30, 100);
        assert_eq!(
            currency(&snapshot, &now),
            Currency::Earlier {
                analysed: snapshot.clone(),
                now: now.clone()
            }
        );
        let text = currency(&snapshot, &now).warning("Run it again.").unwrap();
        assert!(text.contains("40 states") && text.contains("now holds 100 states"));
        assert!(text.ends_with("Run it again."), "{text}");
        for other in [
            source("bb", 100, 90, 300),
            source("aa", 101, 90, 300),
            source("aa", 100, 91, 300),
            source("aa", 100, 90, 301),
        ] {
            assert!(
                matches!(currency(&other, &now), Currency::Foreign { .. }),
                "{other:?}"
            );
        }
        let old = source("", 40, 30, 100);
        assert!(matches!(currency(&old, &now), Currency::Earlier { .. }));
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(32_344_588), "32,344,588");
        assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
    }
}
