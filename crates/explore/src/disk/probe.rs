//! Finding sorted candidates in one sorted visited run without reading all of
//! it. Each run keeps a small summary in memory: a sparse index (the first
//! record of every block of about 4 KiB of entries) and a blocked Bloom filter
//! of its records. A candidate the filter rules out costs no read; the others
//! read only the blocks that can hold them, with `pread` (the page cache is
//! not the process's memory, as a map's pages would be). Reads of neighbouring
//! blocks grow into large sequential reads, so that candidates dense in a run
//! read it about as fast as the plain sequential pass they replace.
//!
//! The filter is laid out in the run's order: a record's line lies in the
//! stretch of lines of its block (the one the sparse index gives), placed
//! there by its hash. A round's candidates come sorted, so they check each
//! filter from its start to its end, a few lines apart, where the
//! processor's prefetcher follows them. (Placed by the hash alone, every
//! check was a cache miss of its own, which the batch's prefetches only
//! partly hid: the bit test was a third of the lookups' time on room4 under
//! `--mem 128M`, the largest filters being megabytes.)

use super::io_err;
use crate::ExploreError;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Bytes of entries per block of the sparse index.
const BLOCK_BYTES: usize = 4096;
/// Most blocks one read takes (1 MiB of 4 KiB blocks), shared between the
/// probes of a run that look up ranges side by side (see [`RunProbe::open`]).
pub const MAX_SPAN: u64 = 256;
/// A block this close past the last one read is read as its continuation.
const NEAR_BLOCKS: u64 = 4;
/// Bits of a record's hash that place it within its block's stretch of
/// the filter; the block takes the bits above them (see [`Filter::at`]).
const IN_BLOCK_BITS: u32 = 24;
/// Blocks past this many share the last one's stretch of the filter (still
/// right, only less selective): a run of 2^40 blocks holds more than 2^41
/// states.
const MOST_BLOCKS: u64 = 1 << 40;
/// Most filter bits an entry gets: past this the false positives are already
/// rarer than the reads they would cause are costly.
pub const MAX_FILTER_BITS: u64 = 10;
/// A large filter's lines are a multiple of this, so that it can be folded
/// six times.
const FOLDABLE: u64 = 64;

/// The word a record of at most eight bytes is compared by in every run's
/// sparse index (0 for wider records, which are compared as bytes),
/// computed once for all runs.
pub fn record_word(record: &[u8]) -> u64 {
    Word::for_width(record.len()).map_or(0, |w| w.of_record(record))
}

/// The hash a candidate's record is filtered by, computed once for all runs.
pub fn record_hash(record: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(record)
}

/// A blocked Bloom filter: one 512-bit line a key, a few bits set in it,
/// the line chosen by the key's block in the run and its hash, so that keys
/// in increasing order fall on lines in increasing order. With no lines it
/// holds nothing back (every record may be present).
#[derive(Default)]
struct Filter {
    lines: Vec<[u64; 8]>,
    probes: u32,
    /// Lines a unit of position spans, in 64-bit fixed point: the lines the
    /// filter was made with over the positions (`blocks << IN_BLOCK_BITS`).
    scale: u64,
    /// Times the filter was folded in half since.
    folds: u32,
}

impl Filter {
    /// A filter for `entries` keys in `blocks` blocks with about `bits` bits
    /// a key.
    fn new(entries: u64, bits: u64, blocks: u64) -> Filter {
        if bits == 0 || entries == 0 {
            return Filter::default();
        }
        // An even count, so that the filter can be folded in half (see
        // [`Filter::fold`]); a large one a multiple of 64 lines, for six
        // folds, at a cost under 2% of its size.
        let lines = (entries * bits).div_ceil(512).max(1);
        let lines = match lines >= FOLDABLE * FOLDABLE {
            true => lines.next_multiple_of(FOLDABLE),
            false => lines.next_multiple_of(2),
        } as usize;
        // k = bits * ln 2 is the best count for a plain Bloom filter; a
        // blocked one does slightly better with one fewer.
        let probes = ((bits * 69 / 100).saturating_sub(1)).clamp(1, 7) as u32;
        let positions = u128::from(blocks.clamp(1, MOST_BLOCKS)) << IN_BLOCK_BITS;
        let scale = ((lines as u128) << 64) / positions;
        Filter {
            lines: vec![[0; 8]; lines],
            probes,
            scale: u64::try_from(scale).unwrap_or(u64::MAX),
            folds: 0,
        }
    }

    /// The line of a key of block `block` whose hash is `hash`, and the bits
    /// a probe sets in it (nine bits each, from a second mixing of the hash:
    /// at most seven probes). The key's position, its block then the top
    /// bits of its hash, scaled to the lines the filter was made with: a
    /// fold halves the count and every line (`line >> folds`), so a folded
    /// filter finds its keys where it put them. The scale is rounded down,
    /// so the line of a block of the run is always one of them; past the
    /// run's blocks the last line is taken.
    fn at(&self, block: u64, hash: u64) -> (usize, u64) {
        let position =
            (block.min(MOST_BLOCKS - 1) << IN_BLOCK_BITS) | (hash >> (64 - IN_BLOCK_BITS));
        let line = (u128::from(position) * u128::from(self.scale)) >> (64 + self.folds);
        let line = (line as usize).min(self.lines.len().saturating_sub(1));
        (
            line,
            hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (hash >> 29),
        )
    }

    fn insert(&mut self, block: u64, hash: u64) {
        if self.lines.is_empty() {
            return;
        }
        let (line, mut bits) = self.at(block, hash);
        for _ in 0..self.probes {
            let bit = (bits & 511) as usize;
            self.lines[line][bit / 64] |= 1 << (bit % 64);
            bits >>= 9;
        }
    }

    fn may_contain(&self, block: u64, hash: u64) -> bool {
        if self.lines.is_empty() {
            return true;
        }
        let (line, mut bits) = self.at(block, hash);
        let words = &self.lines[line];
        for _ in 0..self.probes {
            let bit = (bits & 511) as usize;
            if words[bit / 64] & (1 << (bit % 64)) == 0 {
                return false;
            }
            bits >>= 9;
        }
        true
    }

    fn bytes(&self) -> u64 {
        self.lines.len() as u64 * 64
    }

    /// Halves the filter, keeping every key it holds: a key's line is its
    /// line in the filter as made shifted right by the folds (see
    /// [`Filter::at`]), so with half as many lines (an even count) it is the
    /// old line halved, and line `j` becomes the union of lines `2j` and
    /// `2j + 1`. The bits a key sets within its line do not depend on the
    /// count. Its false positives grow (at 10 bits a key, from about 1% to
    /// about 10%); the runs' filters give room to a new run's this way,
    /// without reading any run again. False when the count is odd.
    fn fold(&mut self) -> bool {
        if !self.lines.len().is_multiple_of(2) {
            return false;
        }
        let half = self.lines.len() / 2;
        for j in 0..half {
            let (a, b) = (self.lines[2 * j], self.lines[2 * j + 1]);
            self.lines[j] = std::array::from_fn(|w| a[w] | b[w]);
        }
        self.lines.truncate(half);
        self.lines.shrink_to_fit();
        self.folds += 1;
        true
    }
}

/// What memory keeps of one sorted run of `(record, id)` entries.
pub struct Summary {
    width: usize,
    entries: u64,
    block_entries: u64,
    /// The first record of every block.
    fences: Vec<u8>,
    /// The same as words, for records of at most eight bytes (see [`Word`]).
    fence_words: Vec<u64>,
    word: Option<Word>,
    filter: Filter,
}

/// Records of at most eight bytes compared as one big-endian word: a
/// comparison of byte strings is a call to `memcmp` (with the probes'
/// binary searches, a quarter of the disk phase's time on room4).
#[derive(Clone, Copy)]
struct Word {
    shift: u32,
}

impl Word {
    fn for_width(width: usize) -> Option<Word> {
        (1..=8).contains(&width).then(|| Word {
            shift: 8 * (8 - width as u32),
        })
    }

    /// The word of a record of the run's width: its first eight bytes (or
    /// fewer) read big-endian as if padded with zeros, shifted down. Built
    /// byte by byte: a copy of a variable length into a word was a call,
    /// and its load after the copy's stores stalled (the largest cost of
    /// the lookups' filter checks on room4 under `--mem 128M`).
    #[inline]
    fn of_record(self, record: &[u8]) -> u64 {
        let n = record.len().min(8);
        let value = record[..n]
            .iter()
            .fold(0u64, |w, &b| (w << 8) | u64::from(b));
        value.checked_shl(8 * (8 - n as u32)).unwrap_or(0) >> self.shift
    }

    /// The word of the record an entry (record then 8-byte id) starts with:
    /// an entry is at least eight bytes long, so one fixed-size load.
    #[inline]
    fn of_entry(self, entry: &[u8]) -> u64 {
        let bytes: [u8; 8] = entry[..8].try_into().unwrap_or([0; 8]);
        u64::from_be_bytes(bytes) >> self.shift
    }
}

impl Summary {
    /// An empty summary of a run of `entries` entries of `width`-byte records,
    /// to be given every record in order ([`Summary::push`]), with about
    /// `filter_bits` filter bits a record.
    pub fn new(width: usize, entries: u64, filter_bits: u64) -> Summary {
        let block_entries = (BLOCK_BYTES / (width + 8)).max(1) as u64;
        let blocks = entries.div_ceil(block_entries) as usize;
        let word = Word::for_width(width);
        Summary {
            width,
            entries: 0,
            block_entries,
            fences: Vec::with_capacity(if word.is_some() { 0 } else { blocks * width }),
            fence_words: Vec::with_capacity(if word.is_some() { blocks } else { 0 }),
            word,
            filter: Filter::new(entries, filter_bits.min(MAX_FILTER_BITS), blocks as u64),
        }
    }

    /// Notes the run's next record (records come in increasing order).
    pub fn push(&mut self, record: &[u8]) {
        if self.entries.is_multiple_of(self.block_entries) {
            match self.word {
                Some(word) => self.fence_words.push(word.of_record(record)),
                None => self.fences.extend_from_slice(record),
            }
        }
        // Records come in order, so their lines do too: the filter is
        // written from its start to its end.
        let block = self.entries / self.block_entries;
        self.filter.insert(block, record_hash(record));
        self.entries += 1;
    }

    /// Completes the summary once every record was pushed; a probe needs it.
    pub fn finish(self) -> Summary {
        self
    }

    /// Memory its filter holds.
    pub fn filter_bytes(&self) -> u64 {
        self.filter.bytes()
    }

    /// Halves its filter (see `Filter::fold`); false when it cannot be.
    pub fn fold_filter(&mut self) -> bool {
        self.filter.fold()
    }

    fn blocks(&self) -> u64 {
        match self.word {
            Some(_) => self.fence_words.len() as u64,
            None => (self.fences.len() / self.width.max(1)) as u64,
        }
    }

    fn fence(&self, block: u64) -> &[u8] {
        let at = block as usize * self.width;
        &self.fences[at..at + self.width]
    }

    /// The last block, from `from` on, whose first record is at most
    /// `record` (whose word is `word` for narrow records); `None` when
    /// `record` lies before block `from`. Galloping from `from`: a round's
    /// candidates are dense in the runs (room4 under `--mem 128M`: a dozen a
    /// block of the oldest run), so the next one is a few blocks on, and a
    /// binary search over every block left cost a dozen steps more.
    fn block_of(&self, record: &[u8], word: u64, from: u64) -> Option<u64> {
        let at_most = |block: usize| match self.word {
            Some(_) => self.fence_words[block] <= word,
            None => self.fence(block as u64) <= record,
        };
        let after = gallop(from as usize, self.blocks() as usize, at_most) as u64;
        after.checked_sub(1).filter(|&b| b >= from)
    }
}

/// The first index of `lo..hi` at which `before` is false, `before` being
/// true on a prefix of the range (as `partition_point`), found by galloping
/// from `lo`: O(log d) steps for an answer `d` past `lo`.
fn gallop(mut lo: usize, hi: usize, before: impl Fn(usize) -> bool) -> usize {
    // Every index before `lo` is known to be before; `probe` is tried next.
    let mut probe = lo;
    let mut step = 1;
    while probe < hi && before(probe) {
        lo = probe + 1;
        probe = lo + step;
        step *= 2;
    }
    let mut end = probe.min(hi);
    while lo < end {
        let mid = lo + (end - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            end = mid;
        }
    }
    lo
}

/// Looks increasing records up in one run, reading only the blocks that can
/// hold them.
pub struct RunProbe<'a> {
    path: &'a Path,
    file: File,
    summary: &'a Summary,
    /// The entries of blocks `lo..hi`.
    window: Vec<u8>,
    lo: u64,
    hi: u64,
    span: u64,
    /// Most blocks one read takes.
    max_span: u64,
    /// No record asked from now on lies before this block.
    from: u64,
    /// The same for the records checked against the filter, which a batch
    /// checks before it asks any (see [`RunProbe::may_hold`]).
    filter_from: u64,
    /// The block of the last record asked and the first of its entries not
    /// before that record.
    last: Option<(u64, usize)>,
    /// Bytes read so far (a measure for tests and traces).
    pub bytes_read: u64,
}

impl<'a> RunProbe<'a> {
    /// Opens the run at `path` summarised by `summary`, reading at most
    /// `max_span` blocks at a time (at least one): the probes of one run that
    /// look up ranges side by side share [`MAX_SPAN`], so that their windows
    /// together stay within what the budget counts.
    pub fn open(
        path: &'a Path,
        summary: &'a Summary,
        max_span: u64,
    ) -> Result<RunProbe<'a>, ExploreError> {
        let file = File::open(path).map_err(io_err(path))?;
        Ok(RunProbe {
            path,
            file,
            summary,
            window: Vec::new(),
            lo: 0,
            hi: 0,
            span: 1,
            max_span: max_span.max(1),
            from: 0,
            filter_from: 0,
            last: None,
            bytes_read: 0,
        })
    }

    /// The id stored for `record`, whose [`record_hash`] is `hash`. Records
    /// must be asked in increasing order.
    #[cfg(test)]
    pub fn find(&mut self, record: &[u8], hash: u64) -> Result<Option<u64>, ExploreError> {
        let word = record_word(record);
        if !self.may_hold(record, word, hash) {
            return Ok(None);
        }
        self.find_unfiltered(record, word)
    }

    /// False when the run cannot hold `record`, whose [`record_hash`] is
    /// `hash` and [`record_word`] `word` (both computed once for all runs):
    /// it lies before the run's first record, or the filter rules it out.
    /// Records must be checked in increasing order (apart from the order
    /// they are asked in): the block that would hold one is found by
    /// galloping on from the last one's.
    #[inline]
    pub fn may_hold(&mut self, record: &[u8], word: u64, hash: u64) -> bool {
        let summary = self.summary;
        match summary.block_of(record, word, self.filter_from) {
            Some(block) => {
                self.filter_from = block;
                summary.filter.may_contain(block, hash)
            }
            None => false,
        }
    }

    /// The lookup without the filter (the round checks the filters of a
    /// batch first, see [`super::lookup`]): reads the block that can hold
    /// `record`, whose [`record_word`] is `word`. Records must be asked in
    /// increasing order.
    pub fn find_unfiltered(
        &mut self,
        record: &[u8],
        word: u64,
    ) -> Result<Option<u64>, ExploreError> {
        let summary = self.summary;
        let Some(block) = summary.block_of(record, word, self.from) else {
            return Ok(None);
        };
        self.from = block;
        if block < self.lo || block >= self.hi {
            self.load(block)?;
        }
        let size = summary.width + 8;
        let first = (block - self.lo) * summary.block_entries;
        let count = summary
            .block_entries
            .min(summary.entries - block * summary.block_entries);
        let at = first as usize * size;
        let entries = &self.window[at..at + count as usize * size];
        let entry = |i: usize| &entries[i * size..(i + 1) * size];
        let order = |e: &[u8]| match summary.word {
            Some(w) => w.of_entry(e).cmp(&word),
            None => e[..summary.width].cmp(record),
        };
        // Within the block of the last record asked, the search starts
        // where that one stopped: no entry before it is at least as large.
        let start = match self.last {
            Some((b, i)) if b == block => i,
            _ => 0,
        };
        let i = gallop(start, count as usize, |i| order(entry(i)).is_lt());
        self.last = Some((block, i));
        if i < count as usize && order(entry(i)).is_eq() {
            let id = entry(i)[summary.width..].try_into().unwrap_or([0; 8]);
            return Ok(Some(u64::from_le_bytes(id)));
        }
        Ok(None)
    }

    /// Reads a window holding `block`: the continuation of the last window,
    /// twice as long, when the block is near its end (dense candidates read
    /// the run sequentially), else the block alone.
    fn load(&mut self, block: u64) -> Result<(), ExploreError> {
        let summary = self.summary;
        let near = self.hi > self.lo && block >= self.hi && block < self.hi + NEAR_BLOCKS;
        if near {
            self.lo = self.hi;
            self.span = (self.span * 2).min(self.max_span);
        } else {
            self.lo = block;
            self.span = 1;
        }
        self.hi = (self.lo + self.span).max(block + 1).min(summary.blocks());
        let size = (summary.width + 8) as u64;
        let first = self.lo * summary.block_entries;
        let end = (self.hi * summary.block_entries).min(summary.entries);
        self.window.resize(((end - first) * size) as usize, 0);
        self.file
            .read_exact_at(&mut self.window, first * size)
            .map_err(io_err(self.path))?;
        self.bytes_read += (end - first) * size;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
