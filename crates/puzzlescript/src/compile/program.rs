//! The compiled form of a game's rules, made for the engine's speed: every
//! cell of a pattern is a handful of masks over object and movement words.

use super::rule_text::Command;
use crate::bits;

/// What a cell of a rule's left side requires.
#[derive(Clone, Debug)]
pub struct CellPattern {
    /// Objects that must all be present.
    pub present: Box<[u64]>,
    /// Objects that must all be absent.
    pub missing: Box<[u64]>,
    /// Sets of objects of which at least one must be present (properties).
    pub any_present: Vec<Box<[u64]>>,
    /// Movement bits that must all be present.
    pub moves_present: Box<[u64]>,
    /// Movement bits that must all be absent.
    pub moves_missing: Box<[u64]>,
    /// The layers (a bit each) whose movement the cell tests, present or
    /// absent, whether or not they can move: what the analyses by layer
    /// read (`inert`), the masks above keeping only the layers that move
    /// (`MoveSlots`).
    pub moves_tested_layers: Box<[u64]>,
    /// What the right side does to the cell, if anything.
    pub replacement: Option<Replacement>,
    /// `present`, `missing`, `moves_present` and `moves_missing` as plain
    /// words when each takes one (the common case), so that matching a cell
    /// reads no slices; also when the objects take one word and no movement
    /// is tested, whatever the movements take (the last two words zero).
    pub narrow: Option<[u64; 4]>,
    /// The words of `present`, `missing`, `moves_present` and
    /// `moves_missing` that test something, objects first: on boards of
    /// several words a cell is tested on these alone (most patterns name
    /// one or two objects, whatever the number of words).
    pub tests: Box<[WordTest]>,
    /// Each of `any_present`'s sets as its non-zero words, (word, bits): on
    /// boards of several words a property is tested on these alone.
    pub any_words: Box<[WordBits]>,
}

/// A set of objects as its non-zero words: (word index, bits).
pub type WordBits = Box<[(u32, u64)]>;

/// One word of a cell pattern's test: bits that must be set and bits that
/// must be clear in one word of a cell's objects or movements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WordTest {
    /// The word's index in the cell's objects, or in its movements when
    /// `moves` is set.
    pub word: u32,
    /// True for a movement word.
    pub moves: bool,
    /// Bits that must all be set.
    pub present: u64,
    /// Bits that must all be clear.
    pub missing: u64,
}

impl WordTest {
    /// The tests of the words where `present` or `missing` is not zero.
    pub fn of<'a>(
        present: &'a [u64],
        missing: &'a [u64],
        moves: bool,
    ) -> impl Iterator<Item = WordTest> + 'a {
        present
            .iter()
            .zip(missing)
            .enumerate()
            .filter(|(_, (p, m))| **p | **m != 0)
            .map(move |(w, (&present, &missing))| WordTest {
                word: w as u32,
                moves,
                present,
                missing,
            })
    }
}

/// What the right side of a rule does to a matched cell.
#[derive(Clone, Debug)]
pub struct Replacement {
    /// Objects removed.
    pub clear: Box<[u64]>,
    /// Objects added.
    pub set: Box<[u64]>,
    /// Movement bits removed.
    pub moves_clear: Box<[u64]>,
    /// Movement bits added.
    pub moves_set: Box<[u64]>,
    /// Layers whose movement is rewritten (all five bits each).
    pub moves_layers: Box<[u64]>,
    /// Objects one of which is created at random (`random`), if not empty.
    pub random_objects: Box<[u64]>,
    /// Layers given a random direction (`randomdir`).
    pub random_dirs: Box<[u64]>,
    /// True when nothing is chosen at random ([`Replacement::index_words`]).
    pub fixed: bool,
    /// The object words that `clear` or `set` change, increasing: a fixed
    /// replacement on a board of several words writes these alone.
    pub object_words: Box<[u32]>,
    /// The movement words that `moves_clear`, `moves_layers` or
    /// `moves_set` change, increasing (many layers make many words, most
    /// of which a replacement leaves alone).
    pub move_words: Box<[u32]>,
    /// The layers (a bit each) whose movement `moves_set`, `moves_layers`
    /// or `random_dirs` touch, whether or not they can move (the masks
    /// keep the layers that move alone, `MoveSlots`): for the analyses
    /// by layer (`inert`).
    pub moved_layers: Box<[u64]>,
    /// The layers whose movement any of the four movement masks touches,
    /// `moves_clear` included, whether or not they can move.
    pub move_written_layers: Box<[u64]>,
}

impl Replacement {
    /// A replacement of these masks, its words indexed.
    pub fn new(masks: [Vec<u64>; 7]) -> Replacement {
        let [clear, set, moves_clear, moves_set, moves_layers, random_objects, random_dirs] = masks;
        let mut r = Replacement {
            clear: clear.into_boxed_slice(),
            set: set.into_boxed_slice(),
            moves_clear: moves_clear.into_boxed_slice(),
            moves_set: moves_set.into_boxed_slice(),
            moves_layers: moves_layers.into_boxed_slice(),
            random_objects: random_objects.into_boxed_slice(),
            random_dirs: random_dirs.into_boxed_slice(),
            fixed: true,
            object_words: Box::default(),
            move_words: Box::default(),
            moved_layers: Box::default(),
            move_written_layers: Box::default(),
        };
        r.index_words();
        r
    }

    /// Recomputes [`Replacement::fixed`], [`Replacement::object_words`] and
    /// [`Replacement::move_words`] from the masks (after they changed).
    pub fn index_words(&mut self) {
        let nonzero = |words: &mut dyn Iterator<Item = u64>| -> Box<[u32]> {
            words
                .enumerate()
                .filter(|&(_, w)| w != 0)
                .map(|(k, _)| k as u32)
                .collect()
        };
        self.fixed =
            crate::bits::is_zero(&self.random_objects) && crate::bits::is_zero(&self.random_dirs);
        self.object_words = nonzero(&mut self.clear.iter().zip(&self.set[..]).map(|(c, s)| c | s));
        let moves = self.moves_clear.iter().zip(&self.moves_layers[..]);
        self.move_words = nonzero(&mut moves.zip(&self.moves_set[..]).map(|((c, l), s)| c | l | s));
    }
}

/// A cell of a pattern row: a cell to match or an ellipsis.
// The cells of a row lie inline, one after the other, because matching reads
// them on every turn: boxing the large variant would add an indirection there.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum PatternCell {
    /// A cell.
    Cell(CellPattern),
    /// `...`: any number of cells.
    Ellipsis,
}

/// One compiled rule.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The scan direction as a movement bit: up 1, down 2, left 4, right 8.
    pub direction: u8,
    /// The rows of the left side.
    pub rows: Vec<Vec<PatternCell>>,
    /// Ellipses in each row (0 to 2).
    pub ellipses: Vec<u8>,
    /// False for a rule with commands only.
    pub has_replacements: bool,
    /// Source line.
    pub line: usize,
    /// The rule as written: its index in [`super::Compiled::rule_sources`]
    /// (every rule expanded from one line shares it).
    pub source: usize,
    /// The group number (line of the group's first rule).
    pub group: usize,
    /// `rigid`.
    pub rigid: bool,
    /// Commands in order.
    pub commands: Vec<Command>,
    /// `random` (meaningful on a group's first rule).
    pub random: bool,
    /// Objects each row needs somewhere.
    pub row_masks: Vec<Box<[u64]>>,
    /// Movements each row needs somewhere.
    pub row_move_masks: Vec<Box<[u64]>>,
    /// Per row, the properties its cells need, each once: a line (or a
    /// board) that holds no object of one of them holds no match of the row.
    pub row_any: Vec<Box<[WordBits]>>,
    /// The properties of every row, each once (see `row_any`).
    pub rule_any: Box<[WordBits]>,
    /// Objects the whole rule needs somewhere.
    pub rule_mask: Box<[u64]>,
    /// Movements the whole rule needs somewhere.
    pub rule_move_mask: Box<[u64]>,
    /// Per row, the position of a cell before any ellipsis that needs a
    /// movement: only cells holding a movement can match it, so the row's
    /// candidates are found from the board's moving cells, not by a scan.
    pub anchors: Vec<Option<usize>>,
    /// Per row, the quick test of its anchor cell (`anchors`; one that
    /// admits every cell for a row without).
    pub anchor_tests: Vec<super::row_tests::AnchorTest>,
    /// The row of a rule of one row, without ellipsis, anchored on a
    /// movement and not compiled to plain words: the loop of a large group
    /// looks for one match of it from the moving cells before trying the
    /// rule (`engine::matching::anchored_row_matches`), and a rule whose row
    /// matches nowhere is not tried.
    pub anchored_row: Option<usize>,
    /// The anchor test of `anchored_row` numbered among the game's: rules
    /// whose anchors test the same share it, and with it the moving cells
    /// found to pass it while the board stays the same
    /// (`engine::matching::AnchorMemo`).
    pub anchor_class: u32,
    /// Per row, its cells (ellipses left out) as [`NarrowCell`]s when every
    /// cell is narrow with at most one property: such a row, or each stretch
    /// of it between ellipses, is matched by a loop over plain words, not by
    /// interpreting patterns.
    pub narrow_rows: Vec<Option<Box<[NarrowCell]>>>,
    /// Per row, the words its cells test as flat lists, stretch by stretch
    /// ([`super::row_tests::RowTests`]): what a start of the row is tried by.
    pub row_tests: Vec<super::row_tests::RowTests>,
    /// True when some cell tests movements (present or absent): such a
    /// rule's matches depend on more than the objects.
    pub reads_movements: bool,
    /// The rule's place among all rules, main then late, in the order they
    /// run: the index of the engine's per-rule records.
    pub index: usize,
    /// The rule as plain words, when it has that form ([`NarrowRule`]).
    pub narrow: Option<NarrowRule>,
    /// True when applying some of the rule's matches cannot undo another
    /// ([`Rule::keeps_matches`]): its matches then need no re-check before
    /// they are applied.
    pub keeps_own_matches: bool,
    /// True when a pass of the rule leaves nothing for a second pass to
    /// change (`super::settle::settles`): a group of this rule alone
    /// needs no second pass.
    pub settles: bool,
    /// True for a rule of commands alone that matches every cell
    /// ([`Rule::matches_every_cell`], `[ ] -> again`): it fires on any board
    /// with a cell, without a search.
    pub fires_everywhere: bool,
    /// Per row, the cells whose replacement can change what they matched
    /// ([`super::writes::rule_writes`]): the only cells a match writes.
    pub writes: super::write_list::RuleWrites,
    /// [`Rule::records_unchanged_matches`] of the game's player (set with
    /// the writes, `super::one_per_layer::index_writes`).
    pub records_unchanged: bool,
}

impl Rule {
    /// The pattern of a rule of one row of one cell: its matches are
    /// distinct cells, and each writes its own cell alone.
    #[inline]
    pub fn single_cell(&self) -> Option<&CellPattern> {
        match &self.rows[..] {
            [row] => match &row[..] {
                [PatternCell::Cell(p)] => Some(p),
                _ => None,
            },
            _ => None,
        }
    }

    /// True when the rule is one row of one cell that tests nothing (`[ ]`):
    /// every cell of every board matches it.
    pub fn matches_every_cell(&self) -> bool {
        self.single_cell().is_some_and(|p| {
            bits::is_zero(&p.present)
                && bits::is_zero(&p.missing)
                && p.any_present.is_empty()
                && bits::is_zero(&p.moves_present)
                && bits::is_zero(&p.moves_missing)
        })
    }

    /// True when no replacement of this rule, written on a cell, can make
    /// that cell stop satisfying one of the rule's patterns, whatever the
    /// cell held: each object it removes is required by no pattern (nor a
    /// member of a property one requires), each it adds is excluded by
    /// none, and likewise for movements; and nothing is chosen at random.
    /// Then every cell of every match found stays as the search found it
    /// as far as the patterns can tell, and the reference's re-check of a
    /// match before applying it always succeeds. Also true of a rule of one
    /// row of one cell, whatever it writes (`[ Wall ] -> [ ]`): its matches
    /// are distinct cells, and each writes its own cell alone.
    pub fn keeps_matches(&self) -> bool {
        if self.single_cell().is_some() {
            return true;
        }
        let cells: Vec<&CellPattern> = self
            .rows
            .iter()
            .flatten()
            .filter_map(|c| match c {
                PatternCell::Cell(p) => Some(p),
                PatternCell::Ellipsis => None,
            })
            .collect();
        let meets = |a: &[u64], b: &[u64]| a.iter().zip(b).any(|(x, y)| x & y != 0);
        cells
            .iter()
            .filter_map(|c| c.replacement.as_ref())
            .all(|r| {
                // What the rewrite `(old & !clear) | set` can take away and add.
                let removed: Vec<u64> = r
                    .clear
                    .iter()
                    .zip(&r.set[..])
                    .map(|(c, s)| c & !s)
                    .collect();
                let moves = r.moves_clear.iter().zip(&r.moves_layers[..]);
                let moves_removed: Vec<u64> = moves
                    .zip(&r.moves_set[..])
                    .map(|((c, l), s)| (c | l) & !s)
                    .collect();
                r.fixed
                    && cells.iter().all(|p| {
                        !meets(&removed, &p.present)
                            && !meets(&r.set, &p.missing)
                            && !p.any_present.iter().any(|any| meets(&removed, any))
                            && !meets(&moves_removed, &p.moves_present)
                            && !meets(&r.moves_set, &p.moves_missing)
                    })
            })
    }

    /// True when a search of this rule may be recorded although it found
    /// matches (`engine::NoMatch`): one row, whose matches each lie on one
    /// line and write only there; no command, so that a match that changes
    /// nothing does nothing; and no random choice, so that applying it again
    /// draws nothing. Movements may be read: the records hold within a turn
    /// only, on a board that logs every write, movements included (the
    /// engine keeps records of rules that read movements on such boards
    /// alone, see `engine::apply::try_apply`).
    pub fn records_matches(&self) -> bool {
        let fixed = |c: &PatternCell| match c {
            PatternCell::Cell(p) => p.replacement.as_ref().is_none_or(|r| r.fixed),
            PatternCell::Ellipsis => true,
        };
        self.rows.len() == 1 && self.commands.is_empty() && self.rows.iter().flatten().all(fixed)
    }
}

impl Rule {
    /// True when the rule, on the same objects, writes the same cells
    /// whatever the movements (`engine::turn_memo`): it tests no movement,
    /// writes none (nor clears any), chooses nothing at random and is not
    /// rigid.
    pub fn replayable(&self) -> bool {
        let still = |c: &PatternCell| match c {
            PatternCell::Cell(p) => p.replacement.as_ref().is_none_or(|r| {
                [
                    &r.moves_clear,
                    &r.moves_set,
                    &r.moves_layers,
                    &r.random_dirs,
                    &r.random_objects,
                ]
                .iter()
                .all(|m| crate::bits::is_zero(m))
            }),
            PatternCell::Ellipsis => true,
        };
        !self.reads_movements
            && !self.random
            && !self.rigid
            && self.rows.iter().flatten().all(still)
    }

    /// True when a search of this rule whose matches all changed nothing on
    /// the explorer's prepared board may be recorded across its inputs as
    /// a row without a match (`engine::NoMatch`): [`Rule::records_matches`],
    /// not rigid, and each match writes at most one cell (its row lists one
    /// write), with a replacement that writes no movement of the layers in
    /// `player_moves` (the movement bits of the player's layers, the only
    /// movements an input sets). Then a match that covers no cell written
    /// since found the prepared board's cells and writes there what it wrote
    /// then, which changed nothing, whatever the input moved (the movements
    /// it reads or writes are the same in every input's turn away from the
    /// written cells); and no other match writes its cell (a match is its
    /// start), so the matches near the writes are every match that can
    /// change the board, whatever the search near them leaves out.
    pub fn records_unchanged_matches(&self, player_moves: &[u64]) -> bool {
        let [writes] = &self.writes.rows[..] else {
            return false;
        };
        let moves_apart = |w: &super::write_list::CellWrite| match self.rows[0].get(w.cell as usize)
        {
            Some(PatternCell::Cell(p)) => p.replacement.as_ref().is_none_or(|r| {
                let written = [&r.moves_clear, &r.moves_layers, &r.moves_set];
                written
                    .iter()
                    .all(|m| !crate::bits::intersects(m, player_moves))
            }),
            _ => false,
        };
        self.records_matches() && !self.rigid && writes.len() <= 1 && writes.iter().all(moves_apart)
    }
}

/// A rule compiled for one-word boards (at most 64 objects, 12 layers): one
/// row without ellipsis whose cells are [`NarrowCell`]s, a cell that needs a
/// movement (its matches start where the moving cells put it), no `rigid`,
/// and replacements without random choices. The engine matches and applies
/// it by straight loops over words (`engine::narrow_rule`), with the same
/// matches, writes and order as the general path.
#[derive(Clone, Debug)]
pub struct NarrowRule {
    /// The objects the rule needs somewhere (`Rule::rule_mask`).
    pub objects: u64,
    /// The movements the rule needs somewhere (`Rule::rule_move_mask`).
    pub movements: u64,
    /// The position of the first cell that needs a movement.
    pub anchor: usize,
    /// The row's cells.
    pub cells: Box<[NarrowCell]>,
    /// Per cell, what its replacement writes, if it has one: objects
    /// cleared, objects set, movements cleared (with every bit of the layers
    /// whose movement is rewritten), movements set.
    pub writes: Box<[Option<[u64; 4]>]>,
}

impl NarrowRule {
    /// The narrow form of a rule, if it has one (see [`NarrowRule`]).
    pub fn of(rule: &Rule) -> Option<NarrowRule> {
        let ([row], [0], [Some(cells)], [Some(anchor)]) = (
            &rule.rows[..],
            &rule.ellipses[..],
            &rule.narrow_rows[..],
            &rule.anchors[..],
        ) else {
            return None;
        };
        let (&[objects], &[movements]) = (&rule.rule_mask[..], &rule.rule_move_mask[..]) else {
            return None;
        };
        if rule.rigid {
            return None;
        }
        let writes = row
            .iter()
            .map(|c| match c {
                PatternCell::Cell(p) => match &p.replacement {
                    None => Some(None),
                    Some(rep) => NarrowRule::write(rep).map(Some),
                },
                PatternCell::Ellipsis => None,
            })
            .collect::<Option<Box<[_]>>>()?;
        Some(NarrowRule {
            objects,
            movements,
            anchor: *anchor,
            cells: cells.clone(),
            writes,
        })
    }

    /// A replacement as four words, if it takes one word each and makes no
    /// random choice.
    fn write(rep: &Replacement) -> Option<[u64; 4]> {
        let random = rep.random_objects.iter().chain(&rep.random_dirs[..]);
        if random.into_iter().any(|&w| w != 0) {
            return None;
        }
        match (
            &rep.clear[..],
            &rep.set[..],
            &rep.moves_clear[..],
            &rep.moves_layers[..],
            &rep.moves_set[..],
        ) {
            ([clear], [set], [mclear], [layers], [mset]) => {
                Some([*clear, *set, mclear | layers, *mset])
            }
            _ => None,
        }
    }
}

/// A narrow cell pattern as plain words: objects present, objects missing,
/// movements present, movements missing, and a property's objects of which
/// one must be present (`any`, zero for none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NarrowCell {
    /// `CellPattern::narrow`.
    pub masks: [u64; 4],
    /// The one property's objects, or zero.
    pub any: u64,
}

impl NarrowCell {
    /// True when a cell of objects `o` and movements `m` satisfies it.
    #[inline(always)]
    pub fn test(&self, o: u64, m: u64) -> bool {
        let [op, om, mp, mm] = self.masks;
        o & op == op
            && o & om == 0
            && m & mp == mp
            && m & mm == 0
            && (self.any == 0 || o & self.any != 0)
    }

    /// The row's cells in this form, ellipses left out, if every cell has
    /// one (see `Rule::narrow_rows`).
    pub fn row(row: &[PatternCell]) -> Option<Box<[NarrowCell]>> {
        row.iter()
            .filter_map(|c| match c {
                PatternCell::Cell(p) => Some(Self::cell(p)),
                PatternCell::Ellipsis => None,
            })
            .collect()
    }

    /// One cell in this form, if it has one.
    fn cell(p: &CellPattern) -> Option<NarrowCell> {
        let any = match &p.any_present[..] {
            [] => 0,
            [one] => match &one[..] {
                [word] if *word != 0 => *word,
                _ => return None,
            },
            _ => return None,
        };
        p.narrow.map(|masks| NarrowCell { masks, any })
    }
}

/// Rules grouped as they run: a group runs to a fixpoint (or picks one
/// application at random), then the next group runs.
#[derive(Clone, Debug, Default)]
pub struct RuleSet {
    /// The groups in order.
    pub groups: Vec<Vec<Rule>>,
    /// For the last group of a `startloop ... endloop`, the first group of the loop.
    pub loop_point: Vec<Option<usize>>,
    /// Per group, true when a pass that changed the board leaves nothing
    /// for a second pass to change ([`super::settle::settles`], set
    /// with the writes): its fixpoint stops after that pass. Empty (none
    /// settles) until the writes are computed.
    pub settles: Vec<bool>,
    /// Per group, true when each of its rules is [`Rule::replayable`]: on
    /// the same objects, the group writes the same cells whatever the
    /// movements (`engine::turn_memo`). Empty (none) until the writes are
    /// computed.
    pub replayable: Vec<bool>,
    /// Per group, the number of groups from it that the engine applies in
    /// one pass over the cells ([`super::cell_runs::runs`], set with the
    /// writes; zero where none starts). Empty (no run) until then.
    pub cell_runs: Vec<u32>,
}

/// A rule line of the game as written, before expansion: what rule coverage
/// reports (`crate::coverage`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceRule {
    /// One-based line number.
    pub line: usize,
    /// The line's text, trimmed (comments removed).
    pub text: String,
    /// True for a `late` rule.
    pub late: bool,
    /// True when the inert objects were left out and this rule writes only
    /// them: it lost its replacements, so it can no longer change the grid
    /// (`hsg explore --keep-inert` keeps it whole).
    pub decorative: bool,
}

#[cfg(test)]
mod tests {
    use super::Replacement;

    /// A replacement lists exactly the words its masks write, and says
    /// whether it chooses at random; both follow the masks when they change.
    #[test]
    fn a_replacement_indexes_the_words_it_writes() {
        let mut r = Replacement::new([
            vec![0, 4, 0],
            vec![1, 0, 0],
            vec![0, 0, 0, 0],
            vec![0, 0, 0, 8],
            vec![0, 2, 0, 0],
            vec![0, 0, 0],
            vec![0, 0, 0, 0],
        ]);
        assert!(r.fixed);
        assert_eq!(&r.object_words[..], &[0, 1]);
        assert_eq!(&r.move_words[..], &[1, 3]);
        r.clear[1] = 0;
        r.random_objects[2] = 1;
        r.index_words();
        assert!(!r.fixed);
        assert_eq!(&r.object_words[..], &[0]);
    }
}
