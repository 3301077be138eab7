//! The owned parents of the layer being expanded, read back from the part's
//! `states` file as the rounds need them instead of being held in memory:
//! the previous layer appended them there and committed them, so a large
//! frontier costs one block of memory, not a slot and an id a state.

use crate::checked::CheckedReader;
use crate::error::corrupt;
use crate::part::Part;
use crate::ClusterError;

/// The owned states of one layer, in id order, one read ahead.
pub struct Frontier {
    reader: Option<CheckedReader>,
    width: usize,
    /// The ids of the layer: `start..end`.
    start: u64,
    end: u64,
    /// The next parent's id, once read, and its slot in `record`.
    next: Option<u64>,
    record: Vec<u8>,
    scratch: Vec<u8>,
}

impl Frontier {
    /// The owned states of the layer `start..end`, the deepest the part's
    /// last commit point holds.
    pub fn open(part: &Part, width: usize, start: u64, end: u64) -> Result<Frontier, ClusterError> {
        let mut f = Frontier {
            reader: part.layer_reader()?,
            width,
            start,
            end,
            next: None,
            record: Vec::with_capacity(width),
            scratch: Vec::with_capacity(8 + width),
        };
        f.advance()?;
        Ok(f)
    }

    /// The id of the next parent, `None` after the last.
    pub fn peek(&self) -> Option<u64> {
        self.next
    }

    /// The slot of the next parent.
    pub fn record(&self) -> &[u8] {
        &self.record
    }

    /// Reads the following parent, checking that ids increase inside the layer.
    pub fn advance(&mut self) -> Result<(), ClusterError> {
        let Some(reader) = self.reader.as_mut() else {
            self.next = None;
            return Ok(());
        };
        if reader.at_end() {
            self.next = None;
            return Ok(());
        }
        self.scratch.clear();
        reader.take(8 + self.width, &mut self.scratch)?;
        let mut word = [0u8; 8];
        word.copy_from_slice(&self.scratch[..8]);
        let id = u64::from_le_bytes(word);
        let low = self.next.map_or(self.start, |last| last + 1);
        if !(low..self.end).contains(&id) {
            return Err(corrupt(
                reader.path(),
                format!(
                    "state {id} read as a parent of the layer {}..{} after {:?}",
                    self.start, self.end, self.next
                ),
            ));
        }
        self.record.clear();
        self.record.extend_from_slice(&self.scratch[8..]);
        self.next = Some(id);
        Ok(())
    }
}
