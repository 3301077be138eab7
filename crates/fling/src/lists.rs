//! The lists of uniquely solvable boards above the full tables: building them
//! piece count by piece count (each from the table or the list below, with
//! [`crate::above::lift`]), recording them in the manifest, reading them back.
//!
//! A list is a file of the store's bit-table format whose words are the boards'
//! masks in ascending order (`unique-k.list`, kind `fling-unique-list-k`), so it
//! has the tables' header, finished flag and checksum. It is written whole and
//! recorded in the manifest after it is finished: a build killed at any point
//! computes the unrecorded piece counts again, with the same result.

use crate::above::{lift, Below};
use crate::error::FlingError;
use crate::lookup::Level;
use crate::manifest::{self, ListStats};
use crate::rank::{boards, unrank};
use crate::step::copy_table;
use crate::tables::{Progress, COPY_BUDGET};
use crate::unique_list::{list_kind, list_path, UniqueList};
use std::path::Path;
use std::time::Instant;
use store::{BitTable, BitTableWriter, Words};

/// The largest piece count `hsg fling tables` tabulates in full unless asked
/// otherwise: 9 pieces take minutes; 10 and 11 take hours in full, and minutes
/// as lists of their uniquely solvable boards.
pub const DEFAULT_FULL_TABLES: usize = 9;

/// Refuses lists of `max_pieces` above full tables of `table_pieces` when
/// they would reach more than two counts above (see `above.rs`): called
/// before any table is built, so a wrong flag costs no build.
pub fn check_reach(table_pieces: usize, max_pieces: usize) -> Result<(), FlingError> {
    if max_pieces <= table_pieces + 2 {
        return Ok(());
    }
    Err(FlingError::Pieces {
        pieces: max_pieces,
        why: format!(
            "lists reach at most 2 piece counts above the full tables ({table_pieces} pieces); \
             build full tables of at least {} pieces (--full-tables)",
            max_pieces - 2
        ),
    })
}

/// What a build of lists did with one piece count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltList {
    /// The count's figures.
    pub stats: ListStats,
    /// True when the count was already listed and kept.
    pub kept: bool,
}

/// Lists the uniquely solvable boards of `table_pieces + 1 ..= max_pieces`
/// pieces in `dir`, whose full tables of `table_pieces` (and below) must be
/// finished; listed counts whose files open are kept. At most two counts
/// above the tables (see `above.rs`).
pub fn build_lists(
    dir: &Path,
    table_pieces: usize,
    max_pieces: usize,
    threads: usize,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Vec<BuiltList>, FlingError> {
    check_reach(table_pieces, max_pieces)?;
    let _lock = store::lock_dir(dir)?;
    // Lists read every board's bits in the table below: a table of the
    // canonical layout would pass for one whose other boards are unsolvable.
    let layout = manifest::read(dir)?
        .iter()
        .find(|s| s.pieces == table_pieces)
        .map(|s| s.layout);
    if layout == Some(crate::layout::Layout::Canonical) {
        return Err(FlingError::Pieces {
            pieces: table_pieces,
            why: "lists need full tables below them, and these hold canonical boards only \
                  (build them again with --full-tables)"
                .into(),
        });
    }
    let table = Level::open(dir, table_pieces, true)?;
    let recorded = manifest::read_lists(dir)?;
    let mut built = Vec::new();
    let mut below: Option<Vec<u64>> = None;
    for pieces in table_pieces + 1..=max_pieces {
        let known = recorded.iter().find(|l| l.pieces == pieces);
        if let Some(stats) = known.filter(|_| UniqueList::open(dir, pieces, false).is_ok()) {
            built.push(BuiltList {
                stats: stats.clone(),
                kept: true,
            });
            below = None;
            continue;
        }
        let under = match below.take() {
            Some(list) => list,
            None if pieces == table_pieces + 1 => table_boards(table.unique.words(), table_pieces),
            None => UniqueList::open(dir, pieces - 1, true)?.boards().to_vec(),
        };
        let stats = list_level(
            dir,
            pieces,
            &under,
            (&table, table_pieces),
            threads,
            progress,
        )?;
        built.push(BuiltList { stats, kept: false });
        below = Some(UniqueList::open(dir, pieces, false)?.boards().to_vec());
    }
    Ok(built)
}

/// Computes, writes and records the list of `pieces` from the boards `under`.
fn list_level(
    dir: &Path,
    pieces: usize,
    under: &[u64],
    (table, table_pieces): (&Level, usize),
    threads: usize,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<ListStats, FlingError> {
    let started = Instant::now();
    // Candidates read the table at random: a copy in huge pages misses the
    // TLB far less often than the file's 4 KiB pages (as the table build's).
    let copy = copy_words(&table.solvable)?;
    let oracle = Below {
        solvable: copy
            .as_ref()
            .map_or(table.solvable.words(), Words::as_slice),
        table_pieces,
    };
    let total = under.len() as u64;
    let report = |done: u64| {
        progress(Progress {
            pieces,
            done,
            total,
        })
    };
    let lifted = lift(under, pieces, &oracle, threads, &report)?;
    let path = list_path(dir, pieces);
    let writer =
        BitTableWriter::create(&path, &list_kind(pieces), 64 * lifted.boards.len() as u64)?;
    for (i, &mask) in lifted.boards.iter().enumerate() {
        writer.store_word(i, mask)?;
    }
    writer.finish()?;
    let stats = ListStats {
        pieces,
        boards: boards(pieces),
        unique: lifted.boards.len() as u64,
        table_pieces,
        candidates: lifted.candidates,
        millis: started.elapsed().as_millis() as u64,
    };
    manifest::record_list(dir, &stats)?;
    Ok(stats)
}

/// The table's words copied into memory with huge pages when they fit the
/// build's copy budget, else `None` (they are then read through the mapping).
fn copy_words(table: &BitTable) -> Result<Option<Words>, FlingError> {
    if 8 * table.words().len() as u64 > COPY_BUDGET {
        return Ok(None);
    }
    copy_table(table).map(Some)
}

/// The boards whose bit is set in the words of a table of `pieces`, in rank order.
pub(crate) fn table_boards(words: &[u64], pieces: usize) -> Vec<u64> {
    let mut masks = Vec::new();
    for (w, &word) in words.iter().enumerate() {
        let mut rest = word;
        while rest != 0 {
            let rank = w as u64 * 64 + u64::from(rest.trailing_zeros());
            rest &= rest - 1;
            masks.extend(unrank(rank, pieces));
        }
    }
    masks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::build;

    fn no_progress(_: Progress) {}

    #[test]
    fn a_build_killed_before_recording_a_list_ends_with_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), 3, 2, &no_progress).unwrap();
        let first = build_lists(dir.path(), 3, 5, 2, &no_progress).unwrap();
        assert!(first.iter().all(|b| !b.kept));
        let bytes = std::fs::read(list_path(dir.path(), 5)).unwrap();

        // As if killed while writing the list of 5: its file half written, its
        // record not yet in the manifest.
        let manifest_path = dir.path().join(crate::MANIFEST);
        let text = std::fs::read_to_string(&manifest_path).unwrap();
        let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
        json["lists"]
            .as_array_mut()
            .unwrap()
            .retain(|l| l["pieces"] != 5);
        std::fs::write(&manifest_path, json.to_string()).unwrap();
        std::fs::write(list_path(dir.path(), 5), &bytes[..bytes.len() / 2]).unwrap();
        assert!(UniqueList::open(dir.path(), 5, false).is_err());

        let again = build_lists(dir.path(), 3, 5, 1, &no_progress).unwrap();
        let kept: Vec<bool> = again.iter().map(|b| b.kept).collect();
        assert_eq!(kept, [true, false]);
        assert_eq!(again[1].stats.unique, first[1].stats.unique);
        assert!(std::fs::read(list_path(dir.path(), 5)).unwrap() == bytes);
    }

    #[test]
    fn a_list_whose_boards_are_out_of_order_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = list_path(dir.path(), 3);
        let writer = BitTableWriter::create(&path, &list_kind(3), 128).unwrap();
        writer.store_word(0, 0b111 << 8).unwrap();
        writer.store_word(1, 0b111).unwrap();
        writer.finish().unwrap();
        let err = UniqueList::open(dir.path(), 3, true)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("not a sorted list") && err.contains("unique-3.list"),
            "{err}"
        );
    }
}
