//! An independent check of a list of uniquely solvable boards: boards taken
//! from the list, and boards one move above the list below (the candidates the
//! list was chosen from, most of them rejected), are each solved by the direct
//! search of `search.rs`, which uses the rules alone (no table, no list), and
//! the answer compared with membership in the list.

use crate::above::Preimages;
use crate::children::tables as child_tables;
use crate::error::FlingError;
use crate::lists::table_boards;
use crate::lookup::{Tables, UniqueBoards};
use crate::search::Space;
use games::fling::Board;

/// What [`cross_check`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrossCheck {
    /// Listed boards solved directly.
    pub listed: u64,
    /// Candidates (boards with a move into the count below's uniquely solvable boards) solved.
    pub candidates: u64,
    /// Candidates the direct search found uniquely solvable.
    pub candidates_unique: u64,
    /// Boards on which the direct search and the list disagree (none when all is well).
    pub disagreements: Vec<u64>,
}

/// Solves `samples` boards of the list of `pieces` (evenly spaced) and `samples`
/// candidates (from evenly spaced boards of the count below) directly, and
/// compares with the list's membership.
pub fn cross_check(
    tables: &Tables,
    pieces: usize,
    samples: usize,
) -> Result<CrossCheck, FlingError> {
    let list = tables
        .list(pieces)
        .ok_or_else(|| FlingError::MissingTables {
            dir: tables.dir().to_path_buf(),
            pieces,
        })?;
    let mut check = CrossCheck::default();
    let solve = |board: Board, listed: bool, check: &mut CrossCheck| {
        let unique = Space::explore(board)
            .solve()
            .get(&board)
            .is_some_and(|&(_, unique)| unique);
        if unique != listed {
            check.disagreements.push(board.mask());
        }
        unique
    };
    for &mask in spaced(list.boards(), samples) {
        check.listed += 1;
        if let Some(board) = Board::from_mask(mask) {
            solve(board, true, &mut check);
        }
    }
    let below = below_boards(tables, pieces - 1)?;
    let preimages = Preimages::build();
    let mut parents = Vec::new();
    for (i, &under) in spaced(&below, samples).enumerate() {
        // One candidate per board below, its parents taken in turn.
        parents.clear();
        preimages.for_each_parent(under, child_tables(), |p| parents.push(p));
        let Some(board) = parents
            .get(i % parents.len().max(1))
            .and_then(|&p| Board::from_mask(p))
        else {
            continue;
        };
        check.candidates += 1;
        let listed = list.contains(board.mask());
        if solve(board, listed, &mut check) {
            check.candidates_unique += 1;
        }
    }
    Ok(check)
}

/// Up to `samples` evenly spaced items of `items`.
fn spaced(items: &[u64], samples: usize) -> impl Iterator<Item = &u64> {
    let step = (items.len() / samples.max(1)).max(1);
    items.iter().step_by(step).take(samples)
}

/// The uniquely solvable boards of `pieces`, from its table or its list.
fn below_boards(tables: &Tables, pieces: usize) -> Result<Vec<u64>, FlingError> {
    Ok(match tables.unique_boards(pieces)? {
        UniqueBoards::List(masks) => masks.to_vec(),
        UniqueBoards::Bits(words) | UniqueBoards::CanonicalBits(words) => {
            table_boards(words, pieces)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lists::build_lists;
    use crate::tables::build;
    use crate::unique_list::list_path;

    #[test]
    fn a_true_list_passes_and_a_list_missing_a_board_does_not() {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), 3, 2, &|_| {}).unwrap();
        build_lists(dir.path(), 3, 5, 2, &|_| {}).unwrap();
        let tables = Tables::open(dir.path()).unwrap();
        let check = cross_check(&tables, 5, 200).unwrap();
        assert_eq!((check.listed, check.candidates), (200, 200));
        assert!(check.candidates_unique > 0 && check.candidates_unique < 200);
        assert!(check.disagreements.is_empty(), "{check:?}");

        // The same list without its first board: the check must notice.
        let masks = tables.list(5).unwrap().boards()[1..].to_vec();
        drop(tables);
        let path = list_path(dir.path(), 5);
        let writer =
            store::BitTableWriter::create(&path, "fling-unique-list-5", 64 * masks.len() as u64)
                .unwrap();
        for (i, &m) in masks.iter().enumerate() {
            writer.store_word(i, m).unwrap();
        }
        writer.finish().unwrap();
        let tables = Tables::open(dir.path()).unwrap();
        let check = cross_check(&tables, 5, masks.len() + 1).unwrap();
        assert!(!check.disagreements.is_empty());
    }
}
