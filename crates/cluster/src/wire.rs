//! The byte encoding of the records processes send each other: little-endian
//! integers and fixed-size state slots, read back with every length checked.

use crate::ClusterError;

/// Appends little-endian integers and bytes to a message.
pub trait Put {
    /// Appends a u64.
    fn put_u64(&mut self, v: u64);
    /// Appends a u32.
    fn put_u32(&mut self, v: u32);
}

impl Put for Vec<u8> {
    #[inline]
    fn put_u64(&mut self, v: u64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    #[inline]
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
}

/// Reads a message from process `from`, refusing to read past its end.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    from: usize,
}

impl<'a> Reader<'a> {
    /// A reader over the message `bytes` that process `from` sent.
    pub fn new(bytes: &'a [u8], from: usize) -> Reader<'a> {
        Reader { bytes, at: 0, from }
    }

    /// True when every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.at >= self.bytes.len()
    }

    /// The next `n` bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], ClusterError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(ClusterError::Malformed {
                from: self.from,
                what: format!(
                    "{n} bytes wanted at offset {} of a {}-byte message",
                    self.at,
                    self.bytes.len()
                ),
            });
        };
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    /// The next u64.
    #[inline]
    pub fn u64(&mut self) -> Result<u64, ClusterError> {
        let b = self.bytes(8)?;
        Ok(u64::from_le_bytes([
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
        ]))
    }

    /// The next u32.
    #[inline]
    pub fn u32(&mut self) -> Result<u32, ClusterError> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// An error about this message.
    pub fn malformed(&self, what: impl Into<String>) -> ClusterError {
        ClusterError::Malformed {
            from: self.from,
            what: what.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_what_was_put_and_refuses_to_overrun() {
        let mut msg = Vec::new();
        msg.put_u64(u64::MAX - 3);
        msg.put_u32(7);
        msg.extend_from_slice(b"abc");
        let mut r = Reader::new(&msg, 2);
        assert_eq!(r.u64().unwrap(), u64::MAX - 3);
        assert_eq!(r.u32().unwrap(), 7);
        assert_eq!(r.bytes(3).unwrap(), b"abc");
        assert!(r.is_empty());
        let err = r.u32().unwrap_err().to_string();
        assert!(err.contains("process 2"), "{err}");
    }
}
