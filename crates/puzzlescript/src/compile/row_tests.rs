//! A row's patterns as flat lists of the words they test (`Rule::row_tests`):
//! per stretch between ellipses, each object word, movement word and
//! property a cell tests, with the cell's place in the stretch. A start is
//! tried by walking these lists, so that cells that test nothing (the empty
//! cells of a wide row, `[ a | | | | b ]`) and words no cell tests (most
//! words of a board of several words) cost nothing, and no pattern is
//! interpreted cell by cell.

use super::program::{CellPattern, PatternCell, WordBits};
use crate::bits;

/// One word test of a cell: bits that must all be set and bits that must
/// all be clear in word `word` of the cell `step` places into its stretch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellWord {
    /// The cell's place in its stretch (ellipses left out).
    pub step: u32,
    /// The word's index among the cell's object or movement words.
    pub word: u32,
    /// Bits that must all be set.
    pub present: u64,
    /// Bits that must all be clear.
    pub missing: u64,
}

/// The tests of one stretch of a row (its cells between two ellipses, or
/// the whole row without any).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stretch {
    /// The object words tested, in the cells' order: the first cell's
    /// objects first, which fail most starts.
    pub objects: Box<[CellWord]>,
    /// The movement words tested, in the cells' order.
    pub movements: Box<[CellWord]>,
    /// The properties: a cell's place and the property's non-zero words,
    /// one of whose bits must be present.
    pub any: Box<[(u32, WordBits)]>,
    /// The stretch's cells (those that test nothing included): where the
    /// next stretch starts, past a gap.
    pub cells: u32,
}

/// A row's tests, one [`Stretch`] per stretch (one more than its ellipses).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowTests {
    /// The stretches in the row's order.
    pub stretches: Box<[Stretch]>,
    /// The first cell before any ellipsis that needs an object, a property
    /// or a movement present, its place in the row: a scan tests it first,
    /// since most cells of a board fail it, where a cell that only excludes
    /// things (or an empty one) lets most pass. `None` when there is none.
    pub probe: Option<u32>,
}

impl RowTests {
    /// The tests of `row`, from its cells' `tests` and `any_words`.
    pub fn of(row: &[PatternCell]) -> RowTests {
        let mut stretches = Vec::new();
        for cells in row.split(|c| matches!(c, PatternCell::Ellipsis)) {
            let mut s = (Vec::new(), Vec::new(), Vec::new());
            for (step, cell) in cells.iter().enumerate() {
                if let PatternCell::Cell(p) = cell {
                    add_cell(&mut s, step as u32, p);
                }
            }
            stretches.push(Stretch {
                objects: s.0.into_boxed_slice(),
                movements: s.1.into_boxed_slice(),
                any: s.2.into_boxed_slice(),
                cells: cells.len() as u32,
            });
        }
        let needs = |p: &CellPattern| {
            !bits::is_zero(&p.present)
                || !p.any_present.is_empty()
                || !bits::is_zero(&p.moves_present)
        };
        let probe = row
            .iter()
            .take_while(|c| matches!(c, PatternCell::Cell(_)))
            .position(|c| matches!(c, PatternCell::Cell(p) if needs(p)));
        RowTests {
            stretches: stretches.into_boxed_slice(),
            probe: probe.map(|c| c as u32),
        }
    }
}

/// The lists of a stretch being built: object words, movement words and
/// properties.
type Lists = (Vec<CellWord>, Vec<CellWord>, Vec<(u32, WordBits)>);

/// Adds the tests of pattern `p`, the cell `step` places into its stretch.
fn add_cell(lists: &mut Lists, step: u32, p: &CellPattern) {
    for t in p.tests.iter() {
        let test = CellWord {
            step,
            word: t.word,
            present: t.present,
            missing: t.missing,
        };
        if t.moves {
            lists.1.push(test);
        } else {
            lists.0.push(test);
        }
    }
    for any in p.any_words.iter() {
        lists.2.push((step, any.clone()));
    }
}

/// A necessary test of an anchor cell's pattern (the row's cell that needs
/// a movement, `Rule::anchors`), for the anchored searches of the general
/// path (boards of several words, rows not in plain words): its first
/// object word test, its first movement word test and its first property
/// when that lies in one word, each a load and a mask or two (a test of all
/// zeros passes). `engine::matching::cell_matches` on such boards walks the
/// pattern's lists of tests, and dozens of moving crates times dozens of
/// rules made that walk a third of a sliding game's time; the full test
/// still decides, when the row is tried from the start. Kept per row
/// (`Rule::anchor_tests`), so that a search does not build it again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AnchorTest {
    /// Object word, bits present, bits missing.
    objects: (usize, u64, u64),
    /// Movement word, bits present, bits missing.
    movements: (usize, u64, u64),
    /// Object word and the property's objects in it (zero: none).
    any: (usize, u64),
}

impl AnchorTest {
    /// The test of pattern `p`.
    pub fn of(p: &CellPattern) -> AnchorTest {
        let word = |moves: bool| {
            p.tests
                .iter()
                .find(|t| t.moves == moves)
                .map_or((0, 0, 0), |t| (t.word as usize, t.present, t.missing))
        };
        let any = match p.any_words.first().map(|words| &words[..]) {
            Some(&[(w, m)]) => (w as usize, m),
            _ => (0, 0),
        };
        AnchorTest {
            objects: word(false),
            movements: word(true),
            any,
        }
    }

    /// The test of the anchor cell of `row` (`anchor`), or one that admits
    /// every cell when the row has none.
    pub fn of_row(row: &[PatternCell], anchor: Option<usize>) -> AnchorTest {
        match anchor.and_then(|a| row.get(a)) {
            Some(PatternCell::Cell(p)) => AnchorTest::of(p),
            _ => AnchorTest::default(),
        }
    }

    /// False when cell `i` of a board with these objects and movements (`so`
    /// object and `sm` movement words a cell) cannot match the pattern.
    #[inline(always)]
    pub fn admits(
        &self,
        objects: &[u64],
        movements: &[u64],
        (so, sm): (usize, usize),
        i: usize,
    ) -> bool {
        let (ow, op, om) = self.objects;
        let (mw, mp, mm) = self.movements;
        let (aw, am) = self.any;
        let o = objects.get(i * so + ow).copied().unwrap_or(0);
        let m = movements.get(i * sm + mw).copied().unwrap_or(0);
        o & op == op
            && o & om == 0
            && m & mp == mp
            && m & mm == 0
            && (am == 0 || objects.get(i * so + aw).is_some_and(|&a| a & am != 0))
    }
}

impl Stretch {
    /// True when the stretch matches with its first cell at index `base` and
    /// each next `d` further, on cells of `so` object and `sm` movement
    /// words. A word past the board reads as empty, as a single cell's test
    /// (`engine::matching::cell_matches`) reads it.
    #[inline(always)]
    pub fn matches(
        &self,
        objects: &[u64],
        movements: &[u64],
        (so, sm): (usize, usize),
        base: usize,
        d: isize,
    ) -> bool {
        let cell = |step: u32| (base as isize + d * step as isize) as usize;
        let word = |words: &[u64], per: usize, t: &CellWord| {
            words
                .get(cell(t.step).wrapping_mul(per).wrapping_add(t.word as usize))
                .copied()
                .unwrap_or(0)
        };
        let pass = |v: u64, t: &CellWord| v & t.present == t.present && v & t.missing == 0;
        self.objects.iter().all(|t| pass(word(objects, so, t), t))
            && self
                .movements
                .iter()
                .all(|t| pass(word(movements, sm, t), t))
            && self.any.iter().all(|(step, words)| {
                let at = cell(*step).wrapping_mul(so);
                words.iter().any(|&(w, m)| {
                    (w as usize) < so
                        && objects
                            .get(at.wrapping_add(w as usize))
                            .is_some_and(|o| o & m != 0)
                })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::RowTests;
    use crate::compile::PatternCell;
    use crate::engine::matching::cell_matches;
    use crate::engine::Board;
    use crate::test_rng::xorshift;

    /// A game of `extra` filler objects besides a few named ones: with 70,
    /// its objects take two words; each filler in a layer of its own
    /// (`layered`) makes movements take several.
    fn game(extra: usize, layered: bool) -> String {
        let fillers: String = (0..extra).map(|k| format!("Filler{k}\ngrey\n")).collect();
        let names: Vec<String> = (0..extra).map(|k| format!("Filler{k}")).collect();
        let layers = names.join(if layered { "\n" } else { ", " });
        let last = names.last().map_or("Wall", |n| n.as_str());
        format!(
            "OBJECTS\nBackground\nblack\nPlayer\nwhite\nCrate\nred\nWall\nblue\n{fillers}\
             LEGEND\n. = Background\nP = Player\nFar = Crate or {last}\nSOUNDS\n\
             COLLISIONLAYERS\nBackground\n{layers}\nPlayer, Wall, Crate\nRULES\n\
             right [ Player | | | | Crate ] -> [ Player | | | | Wall ]\n\
             [ > Player | no Wall | ... | Far ] -> [ > Player | | ... | ]\n\
             [ | Far | ... | stationary Crate | ... | no {last} ] -> [ | | ... | Crate | ... | ]\n\
             WINCONDITIONS\nLEVELS\n.P.\n"
        )
    }

    /// A stretch matches exactly where each of its cells does by the
    /// pattern's own test, on random boards of one word, of two object
    /// words and of several movement words; and cells that test nothing
    /// give no test (`[ Player | | | | Crate ]` tests two words).
    #[test]
    fn stretches_match_where_their_cells_do() {
        for (extra, layered) in [(0, false), (70, false), (14, true)] {
            let g = crate::compile("t", &game(extra, layered)).expect("compiles");
            let (so, sm) = (g.obj_words, g.mov_words);
            let (w, h) = (7, 4);
            let mut board = Board::empty(&g, w, h);
            let mut next = xorshift(0x6a09_e667_f3bc_c908);
            let rules: Vec<_> = g.rules.groups.iter().flatten().collect();
            let wide = rules
                .iter()
                .find(|r| r.rows[0].len() == 5)
                .expect("the wide row");
            let tests = &wide.row_tests[0].stretches[0];
            assert_eq!(tests.objects.len() + tests.movements.len(), 2);
            let (mut tried, mut matched) = (0, 0);
            for _ in 0..200 {
                for word in board.objects.iter_mut() {
                    *word = next() & next();
                }
                for word in board.movements.iter_mut() {
                    *word = next() & next() & next();
                }
                for rule in &rules {
                    // The index step of a cell along the rule's direction.
                    let d = match rule.direction {
                        1 => -1,
                        2 => 1,
                        4 => -(h as isize),
                        _ => h as isize,
                    };
                    for (row, row_tests) in rule.rows.iter().zip(&rule.row_tests) {
                        let stretches = row.split(|c| matches!(c, PatternCell::Ellipsis));
                        for (cells, s) in stretches.zip(row_tests.stretches.iter()) {
                            for base in 0..w * h {
                                let each = cells.iter().enumerate().all(|(k, c)| match c {
                                    PatternCell::Cell(p) => {
                                        let i = base as isize + d * k as isize;
                                        cell_matches(p, &board, so, sm, i as usize)
                                    }
                                    PatternCell::Ellipsis => true,
                                });
                                let flat =
                                    s.matches(&board.objects, &board.movements, (so, sm), base, d);
                                assert_eq!(flat, each, "line {}", rule.line);
                                tried += 1;
                                matched += usize::from(each);
                            }
                        }
                    }
                }
            }
            assert!(
                tried > 10_000 && matched > 200,
                "{tried} tried, {matched} matched"
            );
        }
    }

    /// Ellipses split a row into stretches, each with its own places.
    #[test]
    fn ellipses_split_the_tests() {
        let g = crate::compile("t", &game(0, false)).expect("compiles");
        let rule = g.rules.groups.iter().flatten().find(|r| r.ellipses[0] == 2);
        let tests: &RowTests = &rule.expect("a row with two ellipses").row_tests[0];
        assert_eq!(tests.stretches.len(), 3);
        // `[ | Far ]`: the property on the second cell; `[ stationary
        // Crate ]` and `[ no Filler ]` on their first.
        assert_eq!(tests.stretches[0].any.len(), 1);
        assert_eq!(tests.stretches[0].any[0].0, 1);
        assert!(tests.stretches[1].objects.iter().all(|t| t.step == 0));
        assert!(!tests.stretches[1].movements.is_empty());
        assert!(tests.stretches[2].objects.iter().all(|t| t.step == 0));
    }
}
