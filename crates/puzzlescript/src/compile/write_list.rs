//! The compiled form of the cells a rule's matches write (`Rule::writes`),
//! kept apart from `writes.rs`, which computes it from the rule, so that the
//! program's types can hold it without the two modules depending on each other.

/// A cell of a row whose replacement may change a cell its pattern matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellWrite {
    /// The cell's index in the row, ellipses counted (its pattern).
    pub cell: u32,
    /// Its place among the row's cells, ellipses left out: its distance
    /// from the match's start when every gap is empty.
    pub step: u32,
    /// The ellipses before it (0 to 2), whose gaps the match adds to `step`.
    pub gaps: u8,
    /// The replacement as plain words, when it has that form.
    pub plain: Option<PlainWrite>,
}

/// A replacement that writes at most one object word and at most one
/// movement word, choosing nothing at random: it is written without
/// interpreting the replacement's slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlainWrite {
    /// The object word written (zero, writing nothing, when none is).
    pub object_word: u32,
    /// Its objects cleared.
    pub clear: u64,
    /// Its objects set.
    pub set: u64,
    /// The movement word written (zero, writing nothing, when none is).
    pub word: u32,
    /// Its bits cleared, with every bit of the layers rewritten.
    pub moves_clear: u64,
    /// Its bits set.
    pub moves_set: u64,
}

/// The cells a rule's matches write, row by row.
#[derive(Clone, Debug, Default)]
pub struct RuleWrites {
    /// Per row, its [`CellWrite`]s in the row's order.
    pub rows: Vec<Box<[CellWrite]>>,
    /// True when the rule is not rigid and every write has a
    /// [`PlainWrite`]: its matches are written from plain words alone.
    pub plain: bool,
}
