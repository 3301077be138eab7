//! Rules known to find no match on the board an expansion starts from,
//! carried across its inputs and their turns.
//!
//! The explorer tries every input on one prepared board, and a turn rewrites
//! only a few cells of it; yet each input's turn searched every rule again.
//! A rule that tests no movement matches on objects alone. If one of its rows
//! had no match on the prepared board, then on any later board of the same
//! expansion a match of that row must cover a cell whose objects changed
//! since, and every such cell is in [`super::Board::touched`]. So the row is
//! searched again only on the lines (board rows for horizontal rules,
//! columns for vertical ones) through the written cells, and the rule is
//! skipped when none holds a match. The reference searches every rule on
//! every turn; the answers are the same, and so are the graphs.
//!
//! The records hold only while the board differs from the prepared one at
//! the written cells alone: the explorer's worker turns them on and starts a
//! new set at each prepared board ([`NoMatch::new_board`]); the replaying
//! session, which restores boards wholesale, never turns them on.

/// Records within a turn follow the same argument against a nearer board.
/// A group runs its rules to a fixpoint, and each pass searched every rule
/// again, though most passes write a few cells. A row that found no match
/// is recorded with the length of the board's log of writes
/// ([`super::Board::log`], every cell written in this turn, in order); a
/// later search of the rule in the same turn looks only at the lines
/// through the cells logged since, and skips the rule when none were.
/// A log starts empty, under a new number, at each turn and whenever the
/// board is restored wholesale (a rigid rollback), so a record never
/// outlives the board it was made on.
///
/// The narrow rules ([`super::narrow_rule`]) keep the same records within a
/// turn, on boards that log, and search near the writes by placing each of
/// their cells on each written cell.
///
/// A rule of one row without commands or random choices is recorded in the
/// same way when it did match (`Rule::records_matches`), whether it reads
/// movements or not (within a turn every write is logged, movements
/// included). Each of its matches lies on one line and writes only there,
/// so a match on a line that no logged write crossed since the search was
/// applied then and changed nothing (a change is logged), and finds the
/// same cells now: it would change nothing again. The search near the writes then finds every
/// match that can change the board, in the reference's order, and the rule
/// is applied at those alone (with no command, a match that changes nothing
/// does nothing). A row with a record of no match has no match away from
/// the writes either, so a rule of one row takes the matches near the
/// writes as all of its matches whichever record it has.
///
/// A record across the inputs may also be made on a board already written
/// at a few cells in this turn (a first rule that marks the player's cell
/// on every turn would else leave no rule recorded): the record keeps how
/// many cells of that turn's `touched` list were written then, and the
/// list is kept ([`NoMatch::written_before`]). A later board differs from
/// the record's at those cells and its own written ones alone, so the
/// search near both finds every match, as above. The cells kept come from
/// one turn: records in later turns of other inputs need none or the same.
///
/// The most cells written before a record across the inputs: past a few,
/// the searches near them cost about as much as a search of the board, and
/// a rule that matches near them is searched twice.
pub const MAX_WRITTEN: usize = 4;

/// Per rule, the row that found no match on the prepared board, and the
/// row that found none in this turn.
#[derive(Clone, Debug, Default)]
pub struct NoMatch {
    /// False until the owner keeps `touched` as the list of every cell
    /// written since the prepared board.
    enabled: bool,
    /// The prepared board's number: a record holds for its board only.
    epoch: u32,
    /// Per rule index: the epoch of the record, the row plus one, and how
    /// many cells of `written` the board had written when it was made.
    records: Vec<(u32, u32, u32)>,
    /// The cells written, in order, in the turn whose records count some
    /// (see [`NoMatch::written_before`]).
    written: Vec<usize>,
    /// The log number of the turn `written` comes from, if any.
    written_log: Option<u64>,
    /// One bit per line through a written cell (scratch for the search).
    pub lines: Vec<u64>,
    /// Per rule index: the board log's number and length when the record
    /// was made, and the row plus one (zero: none).
    turn: Vec<(u64, u32, u32)>,
}

impl NoMatch {
    /// Turns the records on. The caller promises that from each
    /// [`NoMatch::new_board`] on, every cell whose objects differ from that
    /// board is in the board's `touched` list.
    pub fn enable(&mut self) {
        self.enabled = true;
    }

    /// Forgets every record: the board is a new prepared one.
    #[inline]
    pub fn new_board(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // After 2^32 boards, the oldest records would look current.
            self.records.fill((0, 0, 0));
            self.epoch = 1;
        }
        self.written.clear();
        self.written_log = None;
    }

    /// The row of rule `index` that found no match on the prepared board,
    /// if one is recorded, and how many cells were written when it was made
    /// (the first of [`NoMatch::written_before`]).
    #[inline]
    pub fn row(&self, index: usize) -> Option<(usize, usize)> {
        match self.records.get(index) {
            Some(&(epoch, row, written)) if self.enabled && epoch == self.epoch && epoch != 0 => {
                Some((row as usize - 1, written as usize))
            }
            _ => None,
        }
    }

    /// The first `count` cells written in the turn whose records were made
    /// on a written board: a board searched near its own written cells must
    /// also be searched near these for such a record.
    #[inline]
    pub fn written_before(&self, count: usize) -> &[usize] {
        self.written.get(..count).unwrap_or(&self.written)
    }

    /// True when the records are on.
    #[inline]
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// The row of rule `index` that found no match in this turn and the
    /// length the log had then, if recorded for log number `epoch`, now
    /// `len` long.
    #[inline]
    pub fn turn_row(&self, index: usize, epoch: u64, len: usize) -> Option<(usize, usize)> {
        match self.turn.get(index) {
            Some(&(e, at, row)) if self.enabled && e == epoch && row > 0 && at as usize <= len => {
                Some((row as usize - 1, at as usize))
            }
            _ => None,
        }
    }

    /// Records that row `row` of rule `index` has no match on the board
    /// whose log (number `epoch`) is `len` long.
    pub fn record_turn(&mut self, index: usize, row: usize, epoch: u64, len: usize) {
        if !self.enabled {
            return;
        }
        if self.turn.len() <= index {
            self.turn.resize(index + 1, (0, 0, 0));
        }
        let len = u32::try_from(len).unwrap_or(u32::MAX);
        self.turn[index] = (epoch, len, row as u32 + 1);
    }

    /// True when a search on the board as it is now may be recorded: the
    /// records are on, and nothing was written since the prepared board or
    /// the cells written (`touched`, in turn `log`) are those of the turn
    /// whose cells are kept, or none are kept yet.
    #[inline]
    pub fn may_record(&self, touched: &[usize], log: u64) -> bool {
        let kept = touched.is_empty()
            || (touched.len() <= MAX_WRITTEN && self.written_log.is_none_or(|l| l == log));
        self.enabled && self.epoch != 0 && kept
    }

    /// Records that row `row` of rule `index` has no match on the prepared
    /// board as written at the cells `touched` (in order, in turn `log`),
    /// which [`NoMatch::may_record`] allowed.
    pub fn record(&mut self, index: usize, row: usize, touched: &[usize], log: u64) {
        if !touched.is_empty() {
            self.written_log = Some(log);
            // The list only grows within a turn: the cells kept are its start.
            if let Some(new) = touched.get(self.written.len()..) {
                self.written.extend_from_slice(new);
            }
        }
        if self.records.len() <= index {
            self.records.resize(index + 1, (0, 0, 0));
        }
        self.records[index] = (self.epoch, row as u32 + 1, touched.len() as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::NoMatch;

    /// A record holds for its board only, and only once turned on.
    #[test]
    fn records_hold_for_their_board_only() {
        let mut n = NoMatch::default();
        n.new_board();
        assert!(!n.may_record(&[], 1));
        n.enable();
        assert!(n.may_record(&[], 1));
        n.record(5, 2, &[], 1);
        assert_eq!(n.row(5), Some((2, 0)));
        assert_eq!(n.row(4), None);
        assert_eq!(n.row(9), None);
        n.new_board();
        assert_eq!(n.row(5), None);
        n.epoch = u32::MAX;
        n.record(5, 0, &[], 1);
        assert_eq!(n.row(5), Some((0, 0)));
        n.new_board();
        assert_eq!((n.epoch, n.row(5)), (1, None));
    }

    /// A record made on a written board keeps the cells written before it,
    /// from one turn only, until the next prepared board.
    #[test]
    fn records_on_a_written_board_keep_its_written_cells() {
        let mut n = NoMatch::default();
        n.enable();
        n.new_board();
        assert!(n.may_record(&[3], 7), "no cells kept yet");
        n.record(1, 0, &[3], 7);
        assert!(n.may_record(&[3, 9, 4], 7), "the same turn");
        n.record(2, 1, &[3, 9, 4], 7);
        assert_eq!(n.row(1), Some((0, 1)));
        assert_eq!(n.row(2), Some((1, 3)));
        assert_eq!(n.written_before(1), &[3]);
        assert_eq!(n.written_before(3), &[3, 9, 4]);
        assert!(!n.may_record(&[5], 8), "another turn's cells");
        assert!(n.may_record(&[], 8), "an unwritten board");
        n.new_board();
        assert_eq!(n.row(2), None);
        assert!(n.written_before(3).is_empty());
        assert!(n.may_record(&[5], 8));
    }

    /// A record made in a turn holds for its log only, up to its length.
    #[test]
    fn turn_records_hold_for_their_log_only() {
        let mut n = NoMatch::default();
        n.record_turn(2, 1, 7, 10);
        assert_eq!(n.turn_row(2, 7, 10), None, "off until enabled");
        n.enable();
        n.record_turn(2, 1, 7, 10);
        assert_eq!(n.turn_row(2, 7, 10), Some((1, 10)));
        assert_eq!(n.turn_row(2, 7, 12), Some((1, 10)));
        assert_eq!(n.turn_row(2, 7, 9), None, "a log shorter than the record");
        assert_eq!(n.turn_row(2, 8, 12), None, "another log");
        assert_eq!(n.turn_row(1, 7, 12), None);
        assert_eq!(n.turn_row(3, 7, 12), None);
    }
}
