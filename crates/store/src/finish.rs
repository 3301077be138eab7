//! What `finish` builds once exploration ends: the in-edge CSR (`in.idx`,
//! `in.log`) and the fingerprint index (`fp.idx`).
//!
//! Both are built within the writer's memory budget. The in-edge CSR is
//! built in passes over target-id ranges: each pass reads the out-edge log
//! sequentially twice (count, then scatter) and writes its part of `in.log`
//! in order, so memory is 12 bytes per state of the range plus 8 bytes per
//! in-edge of the range. The fingerprint index sorts (xxh3, id) pairs in
//! memory-sized chunks and merges them.

use crate::append::{AppendFile, Commit};
use crate::data_files::DataFiles;
use crate::error::{io, StoreError};
use crate::header::header;
use crate::{Edge, InEdge};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

const CHUNK_STATES: u64 = 1 << 18;

/// What `finish` reads: the run's files and counts, and its memory budget.
pub struct Finishing<'a> {
    pub dir: &'a Path,
    pub files: &'a DataFiles,
    pub states: u64,
    pub expanded: u64,
    pub transitions: u64,
    pub slot: usize,
    pub mem_budget: u64,
}

/// The commits of the files `finish` built.
pub struct Built {
    pub in_idx: Commit,
    pub in_log: Commit,
    pub fp_idx: Commit,
}

/// Builds `in.idx`, `in.log` and `fp.idx` and returns their commits.
pub fn build_indexes(w: &Finishing) -> Result<Built, StoreError> {
    let (in_idx, in_log) = build_in_edges(w)?;
    let fp_idx = build_fingerprints(w)?;
    Ok(Built {
        in_idx,
        in_log,
        fp_idx,
    })
}

/// Calls `f(source, edge)` for every stored transition, in source order.
fn scan_edges(w: &Finishing, mut f: impl FnMut(u64, Edge)) -> Result<(), StoreError> {
    let mut idx = Vec::new();
    let mut log = Vec::new();
    let mut source = 0u64;
    let mut begin = 0u64;
    while source < w.expanded {
        let n = (w.expanded - source).min(CHUNK_STATES);
        idx.clear();
        w.files
            .trans_idx
            .read_at(source * 8, (n * 8) as usize, &mut idx)?;
        let ends: Vec<u64> = idx.chunks_exact(8).map(word).collect();
        let end = ends.last().copied().unwrap_or(begin);
        log.clear();
        w.files
            .trans_log
            .read_at(begin * 8, ((end - begin) * 8) as usize, &mut log)?;
        let edges: Vec<u64> = log.chunks_exact(8).map(word).collect();
        let mut at = 0usize;
        for (k, &e) in ends.iter().enumerate() {
            let stop = (e - begin) as usize;
            for &packed in &edges[at..stop] {
                f(source + k as u64, Edge::unpack(packed));
            }
            at = stop;
        }
        begin = end;
        source += n;
    }
    Ok(())
}

fn word(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().unwrap_or_default())
}

fn build_in_edges(w: &Finishing) -> Result<(Commit, Commit), StoreError> {
    let n = w.states;
    let avg = w.transitions / n.max(1) + 1;
    let per_pass = (w.mem_budget / 2 / (12 + 8 * avg)).max(1024);
    let mut in_idx = AppendFile::create(&w.dir.join("in.idx"), header("inidx", 8))?;
    let mut in_log = AppendFile::create(&w.dir.join("in.log"), header("inlog", 8))?;
    let mut total = 0u64;
    let mut lo = 0u64;
    while lo < n {
        let hi = n.min(lo + per_pass);
        let mut counts = vec![0u32; (hi - lo) as usize];
        scan_edges(w, |_, e| {
            if (lo..hi).contains(&e.target) {
                counts[(e.target - lo) as usize] += 1;
            }
        })?;
        let mut cursor = Vec::with_capacity(counts.len());
        let mut sum = 0u64;
        for &c in &counts {
            cursor.push(sum);
            sum += u64::from(c);
            in_idx.append_u64(total + sum)?;
        }
        let mut buf = vec![0u64; sum as usize];
        scan_edges(w, |source, e| {
            if (lo..hi).contains(&e.target) {
                let c = &mut cursor[(e.target - lo) as usize];
                buf[*c as usize] = InEdge {
                    action: e.action,
                    source,
                }
                .pack();
                *c += 1;
            }
        })?;
        // In pieces, so that the pass never holds a second copy of `buf`.
        let mut bytes = Vec::with_capacity(8 << 10);
        for words in buf.chunks(1 << 10) {
            bytes.clear();
            bytes.extend(words.iter().flat_map(|x| x.to_le_bytes()));
            in_log.append(&bytes)?;
        }
        total += sum;
        lo = hi;
    }
    Ok((in_idx.commit()?, in_log.commit()?))
}

fn build_fingerprints(w: &Finishing) -> Result<Commit, StoreError> {
    let chunk = (w.mem_budget / 2 / 16).max(1 << 16);
    for stale in spilled_paths(w) {
        std::fs::remove_file(&stale).map_err(io(&stale))?;
    }
    let mut runs = Vec::new();
    let mut records = Vec::new();
    let mut id = 0u64;
    let mut spilled_any = false;
    while id < w.states {
        let n = (w.states - id).min(chunk);
        let mut pairs = Vec::with_capacity(n as usize);
        let mut k = 0;
        while k < n {
            let m = (n - k).min(CHUNK_STATES);
            w.files
                .read_states(w.slot, id + k, m as usize, &mut records)?;
            for (j, rec) in records.chunks_exact(w.slot).enumerate() {
                pairs.push((xxh3_64(rec), id + k + j as u64));
            }
            k += m;
        }
        pairs.sort_unstable();
        runs.push(pairs);
        id += n;
        if spilled_any || id < w.states {
            spill(w, &mut runs)?;
            spilled_any = true;
        }
    }
    let mut out = AppendFile::create(&w.dir.join("fp.idx"), header("fpidx", 16))?;
    let spilled = spilled_paths(w);
    if spilled.is_empty() {
        for (fp, id) in runs.into_iter().flatten() {
            out.append_u64(fp)?;
            out.append_u64(id)?;
        }
    } else {
        merge_spills(&spilled, &mut out)?;
        for path in &spilled {
            let _ = std::fs::remove_file(path);
        }
    }
    out.commit()
}

fn spilled_paths(w: &Finishing) -> Vec<std::path::PathBuf> {
    let mut paths: Vec<_> = (0..)
        .map(|i| w.dir.join(format!("finish.fp.{i}")))
        .take_while(|p| p.exists())
        .collect();
    paths.sort();
    paths
}

/// Writes every in-memory run to a `finish.fp.N` file.
fn spill(w: &Finishing, runs: &mut Vec<Vec<(u64, u64)>>) -> Result<(), StoreError> {
    for pairs in runs.drain(..) {
        let path = w.dir.join(format!("finish.fp.{}", spilled_paths(w).len()));
        let file = File::create(&path).map_err(io(&path))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        for (fp, id) in pairs {
            out.write_all(&fp.to_le_bytes()).map_err(io(&path))?;
            out.write_all(&id.to_le_bytes()).map_err(io(&path))?;
        }
        out.flush().map_err(io(&path))?;
    }
    Ok(())
}

fn next_pair(r: &mut BufReader<File>) -> Option<(u64, u64)> {
    let mut b = [0u8; 16];
    r.read_exact(&mut b).ok()?;
    Some((word(&b[..8]), word(&b[8..])))
}

fn merge_spills(paths: &[std::path::PathBuf], out: &mut AppendFile) -> Result<(), StoreError> {
    let mut readers = Vec::new();
    let mut heap = BinaryHeap::new();
    for (i, path) in paths.iter().enumerate() {
        let mut r = BufReader::with_capacity(1 << 20, File::open(path).map_err(io(path))?);
        if let Some(p) = next_pair(&mut r) {
            heap.push(Reverse((p, i)));
        }
        readers.push(r);
    }
    while let Some(Reverse(((fp, id), i))) = heap.pop() {
        out.append_u64(fp)?;
        out.append_u64(id)?;
        if let Some(p) = next_pair(&mut readers[i]) {
            heap.push(Reverse((p, i)));
        }
    }
    Ok(())
}
