//! The start-up handshake: every process tells every other which run it
//! explores, as which process of how many, and how many commit points its
//! part holds; all check they agree and go back to the smallest count, the
//! last layer every process committed.

use crate::part::Part;
use crate::wire::{Put, Reader};
use crate::{ClusterError, Exchange};
use store::RunIdentity;

/// Runs the handshake and rewinds `part` to the agreed point; returns it.
pub fn agree<X: Exchange>(
    ex: &mut X,
    part: &mut Part,
    identity: &RunIdentity,
) -> Result<usize, ClusterError> {
    let peers = ex.peers();
    let me = ex.index();
    let json = serde_json::to_vec(identity).map_err(|e| ClusterError::Mismatch(e.to_string()))?;
    let mut hello = Vec::with_capacity(24 + json.len());
    hello.put_u64(part.points() as u64);
    hello.put_u64(peers as u64);
    hello.put_u64(me as u64);
    hello.extend_from_slice(&json);
    let inbox = ex.exchange(vec![hello; peers])?;
    let mut least = part.points();
    for (from, bytes) in inbox.iter().enumerate() {
        let mut r = Reader::new(bytes, from);
        let (points, their_peers, index) = (r.u64()?, r.u64()?, r.u64()?);
        if their_peers != peers as u64 || index != from as u64 {
            return Err(ClusterError::Mismatch(format!(
                "process {from} runs as process {index} of {their_peers}, this one as {me} of {peers}: \
                 every process must be given the same host list"
            )));
        }
        let theirs: RunIdentity = serde_json::from_slice(r.bytes(bytes.len() - 24)?)
            .map_err(|e| r.malformed(format!("unreadable run identity: {e}")))?;
        if let Some(what) = describe_other_run(from, me, &theirs, identity) {
            return Err(ClusterError::Mismatch(what));
        }
        least = least.min(points as usize);
    }
    part.rewind(least)?;
    Ok(least)
}

/// What differs when process `from` explores `theirs` and process `me`
/// explores `ours`; `None` when they explore the same run.
pub fn describe_other_run(
    from: usize,
    me: usize,
    theirs: &RunIdentity,
    ours: &RunIdentity,
) -> Option<String> {
    let diff = theirs.differences(ours);
    (!diff.is_empty()).then(|| {
        format!(
            "process {from} explores another run than process {me}: {}",
            diff.join("; ")
                .replace("in the store", &format!("on process {from}"))
                .replace(" now", &format!(" on process {me}"))
        )
    })
}
