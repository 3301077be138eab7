//! Grouping of states by projection: the smallest state id of every class, found by
//! sorting `(hash, id)` pairs and confirming equal hashes byte by byte, and dense class
//! numbers in order of smallest member.

use crate::graph::StateId;
use crate::ids::IdVec;

/// For every state, the smallest id with the same projection.
pub(super) fn representatives<P>(n: u64, project: &mut P, hash: fn(&[u8]) -> u64) -> Vec<u64>
where
    P: FnMut(StateId, &mut Vec<u8>),
{
    let mut buffer = Vec::new();
    let mut keys: Vec<(u64, u64)> = (0..n)
        .map(|id| {
            buffer.clear();
            project(id, &mut buffer);
            (hash(&buffer), id)
        })
        .collect();
    keys.sort_unstable();
    let mut representative = vec![0u64; keys.len()];
    // Distinct projections met in the current run of equal hashes, with their first id.
    let mut distinct: Vec<(Vec<u8>, u64)> = Vec::new();
    let mut start = 0;
    while start < keys.len() {
        let h = keys[start].0;
        let end = start + keys[start..].iter().take_while(|k| k.0 == h).count();
        if end - start == 1 {
            let id = keys[start].1;
            representative[id as usize] = id;
        } else {
            distinct.clear();
            for &(_, id) in &keys[start..end] {
                buffer.clear();
                project(id, &mut buffer);
                let rep = match distinct.iter().find(|(bytes, _)| *bytes == buffer) {
                    Some(&(_, first)) => first,
                    None => {
                        distinct.push((buffer.clone(), id));
                        id
                    }
                };
                representative[id as usize] = rep;
            }
        }
        start = end;
    }
    representative
}

/// Turns representatives into dense class numbers in order of their smallest member.
pub(super) fn dense_classes(mut class: Vec<u64>) -> (Vec<u64>, u64) {
    let mut next = 0u64;
    for id in 0..class.len() {
        let rep = class[id] as usize;
        if rep == id {
            class[id] = next;
            next += 1;
        } else {
            // `rep < id`, so its entry already holds its class number.
            class[id] = class[rep];
        }
    }
    (class, next)
}

/// The class numbers in the narrowest word that holds them.
pub(super) fn compact(class: Vec<u64>) -> IdVec {
    if class.iter().all(|&c| c <= u64::from(u32::MAX)) {
        IdVec::U32(class.iter().map(|&c| c as u32).collect())
    } else {
        IdVec::U64(class.into())
    }
}
