//! The summaries that let rules skip the board, rows and columns that cannot
//! match: the union of the objects and movements of the whole board, of each
//! row and of each column, kept in one buffer so that a turn restores them
//! with a single copy.

/// The union of the objects and movements of the board, of each row and of
/// each column. They only grow during a turn, so they may say "present" for
/// something gone, never "absent" for something there.
///
/// The buffer holds units of `so + sm` words (objects, then movements):
/// unit 0 for the board, units `1..=h` for the rows, then one per column.
///
/// A summary may also be the board's unit alone ([`Summary::reset_map`]):
/// a turn whose rules are all compiled to plain words reads nothing else,
/// and keeping the rows and columns would cost a copy and three updates a
/// write. Whoever reads rows or columns first makes it whole
/// ([`Summary::is_full`], `Board::ensure_summary`).
#[derive(Debug, Default)]
pub struct Summary {
    words: Vec<u64>,
    so: usize,
    sm: usize,
    height: usize,
    /// True when the rows' and columns' units are kept too.
    full: bool,
}

impl Summary {
    /// Empties every summary of a `width` x `height` board.
    pub fn reset(&mut self, so: usize, sm: usize, width: usize, height: usize) {
        let n = (1 + width + height) * (so + sm);
        (self.so, self.sm, self.height) = (so, sm, height);
        self.full = true;
        self.fill_zeros(n);
    }

    /// Empties the board's summary and keeps no row or column.
    pub fn reset_map(&mut self, so: usize, sm: usize, height: usize) {
        (self.so, self.sm, self.height) = (so, sm, height);
        self.full = false;
        self.fill_zeros(so + sm);
    }

    /// True when the rows' and columns' summaries are kept (else only the
    /// board's, [`Summary::map`]).
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// `n` zero words.
    fn fill_zeros(&mut self, n: usize) {
        if self.words.len() == n {
            self.words.fill(0);
        } else {
            self.words.clear();
            self.words.resize(n, 0);
        }
    }

    fn unit(&self, k: usize) -> (&[u64], &[u64]) {
        let u = self.so + self.sm;
        let unit = self.words.get(k * u..k * u + u).unwrap_or(&[]);
        unit.split_at(self.so.min(unit.len()))
    }

    /// Objects and movements anywhere.
    pub fn map(&self) -> (&[u64], &[u64]) {
        self.unit(0)
    }

    /// The first word of [`Summary::map`]'s objects and of its movements
    /// (the whole of each on one-word boards), without slices.
    #[inline(always)]
    pub fn map_words(&self) -> (u64, u64) {
        let word = |k: usize| self.words.get(k).copied().unwrap_or(0);
        (word(0), word(self.so))
    }

    /// True when the summaries hold the board's unit alone and movements
    /// take one word: a movement is then ORed into one word.
    #[inline(always)]
    pub fn narrow_map(&self) -> bool {
        !self.full && self.sm == 1
    }

    /// ORs `movs` into the board's movement word (see [`Summary::narrow_map`]).
    #[inline(always)]
    pub fn add_map_movement(&mut self, movs: u64) {
        if let Some(w) = self.words.get_mut(self.so) {
            *w |= movs;
        }
    }

    /// Objects and movements of row `y` (a summary that [`Summary::is_full`]).
    pub fn row(&self, y: usize) -> (&[u64], &[u64]) {
        self.unit(1 + y)
    }

    /// Objects and movements of column `x` (a summary that [`Summary::is_full`]).
    pub fn col(&self, x: usize) -> (&[u64], &[u64]) {
        self.unit(1 + self.height + x)
    }

    /// Objects and movements of row `y`, or of column `x` past the rows
    /// (`line` counts rows, then columns).
    pub fn line(&self, line: usize) -> (&[u64], &[u64]) {
        self.unit(1 + line)
    }

    /// The units of every row, then of every column, one after the other
    /// (`so + sm` words each, see [`Summary`]).
    #[inline(always)]
    pub fn lines(&self) -> &[u64] {
        self.words.get(self.so + self.sm..).unwrap_or(&[])
    }

    /// Adds a cell's objects and movements to the board's, its row's and its column's.
    #[inline]
    pub fn add(&mut self, x: usize, y: usize, objs: &[u64], movs: &[u64]) {
        self.add_at(x, y, 0, objs);
        self.add_at(x, y, self.so, movs);
    }

    /// ORs `v` into the words at `offset` of the board's, row `y`'s and
    /// column `x`'s units.
    #[inline(always)]
    fn add_at(&mut self, x: usize, y: usize, offset: usize, v: &[u64]) {
        if !self.full {
            match (v, self.words.get_mut(offset)) {
                ([word], Some(w)) => *w |= word,
                _ => {
                    if let Some(ws) = self.words.get_mut(offset..offset + v.len()) {
                        crate::bits::or_into(ws, v);
                    }
                }
            }
            return;
        }
        let u = self.so + self.sm;
        let units = [0, 1 + y, 1 + self.height + x];
        if let [word] = v {
            // One word: the common case.
            for k in units {
                if let Some(w) = self.words.get_mut(k * u + offset) {
                    *w |= word;
                }
            }
            return;
        }
        // Wide sets (many layers of movements) are mostly zero words: only
        // the others are ORed in.
        for (w, &word) in v.iter().enumerate().filter(|(_, &word)| word != 0) {
            for k in units {
                if let Some(x) = self.words.get_mut(k * u + offset + w) {
                    *x |= word;
                }
            }
        }
    }

    /// [`Summary::add`] on a board of one word each: objects `o` and
    /// movements `m`, each unit two words, without slices.
    #[inline(always)]
    pub fn add_narrow_cell(&mut self, x: usize, y: usize, o: u64, m: u64) {
        let count = if self.full { 3 } else { 1 };
        for k in [0, 1 + y, 1 + self.height + x].into_iter().take(count) {
            if let Some([wo, wm]) = self.words.get_mut(2 * k..2 * k + 2) {
                *wo |= o;
                *wm |= m;
            }
        }
    }

    /// Adds a cell's objects (one word) to the board's, its row's and its
    /// column's: the one-word case of [`Summary::add`] without movements.
    #[inline]
    pub fn add_narrow(&mut self, x: usize, y: usize, objs: u64) {
        self.add_at(x, y, 0, &[objs]);
    }

    /// ORs `v` into object word `w` of the board's, row `y`'s and column
    /// `x`'s summaries (only the board's when not [`Summary::is_full`]).
    #[inline]
    pub fn add_object_word(&mut self, x: usize, y: usize, w: usize, v: u64) {
        self.add_word(x, y, w, v);
    }

    /// [`Summary::add_object_word`] of movement word `w`.
    #[inline]
    pub fn add_movement_word(&mut self, x: usize, y: usize, w: usize, v: u64) {
        self.add_word(x, y, self.so + w, v);
    }

    /// ORs `v` into the word at `offset` of the units cell (`x`, `y`) is in.
    #[inline(always)]
    fn add_word(&mut self, x: usize, y: usize, offset: usize, v: u64) {
        if v == 0 {
            return;
        }
        let u = self.so + self.sm;
        let units = [0, 1 + y, 1 + self.height + x];
        let count = if self.full { 3 } else { 1 };
        for &k in &units[..count] {
            if let Some(x) = self.words.get_mut(k * u + offset) {
                *x |= v;
            }
        }
    }

    /// [`Summary::add`] of objects alone.
    #[inline]
    pub fn add_objects(&mut self, x: usize, y: usize, objs: &[u64]) {
        self.add_at(x, y, 0, objs);
    }

    /// [`Summary::add`] of movements alone.
    #[inline]
    pub fn add_movements(&mut self, x: usize, y: usize, movs: &[u64]) {
        self.add_at(x, y, self.so, movs);
    }
}

impl Clone for Summary {
    fn clone(&self) -> Summary {
        let mut s = Summary::default();
        s.clone_from(self);
        s
    }

    /// Copies into the existing buffer (turns reuse it without allocating).
    fn clone_from(&mut self, o: &Summary) {
        self.words.clone_from(&o.words);
        (self.so, self.sm, self.height, self.full) = (o.so, o.sm, o.height, o.full);
    }
}
