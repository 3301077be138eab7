//! Throughput of the writer's hot path: `append_state` and `append_edges`
//! (the explorer's ~3 M states and ~10 M edges per second must be a small
//! part of its time), then `finish` and a verified `Run::open`.
//! Run with `cargo bench -p store`; prints records per second.

use std::collections::BTreeMap;
use std::time::Instant;
use store::{Edge, OpenMode, Progress, Run, RunIdentity, RunStatus, RunWriter};

const STATES: u64 = 5_000_000;
const EDGES_PER_STATE: u64 = 3;

fn main() -> Result<(), store::StoreError> {
    let dir = tempfile::tempdir().map_err(|e| store::StoreError::Misuse(e.to_string()))?;
    let identity = RunIdentity::new(
        "bench".into(),
        "bench".into(),
        "level".into(),
        BTreeMap::new(),
        8,
        false,
        vec!["a".into(), "b".into(), "c".into()],
        vec!["win".into()],
        1,
        false,
    );
    let (mut w, _) = RunWriter::open(dir.path(), identity, OpenMode::CreateNew)?;
    let start = Instant::now();
    let mut row = [Edge {
        action: 0,
        target: 0,
    }; EDGES_PER_STATE as usize];
    for id in 0..STATES {
        w.append_state(&id.to_le_bytes())?;
        for (k, edge) in row.iter_mut().enumerate() {
            *edge = Edge {
                action: k as u16,
                target: (id * 7 + k as u64) % (id + 1),
            };
        }
        w.append_edges(id, &row, None)?;
    }
    w.set_layers(&[0]);
    w.checkpoint(serde_json::Value::Null, Progress::default())?;
    let secs = start.elapsed().as_secs_f64();
    let records = STATES * (1 + EDGES_PER_STATE);
    println!(
        "append: {STATES} states + {} edges in {secs:.2} s = {:.1} M records/s",
        STATES * EDGES_PER_STATE,
        records as f64 / secs / 1e6
    );
    let start = Instant::now();
    w.finish(RunStatus::Complete, Progress::default())?;
    println!(
        "finish (in-CSR + fp.idx): {:.2} s",
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    let run = Run::open(dir.path())?;
    println!(
        "verified open of {} states: {:.2} s",
        run.state_count(),
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    let degree_sum: u64 = (0..run.state_count())
        .map(|s| run.out_edges(s).len() as u64)
        .sum();
    println!(
        "out_edges over all states: {degree_sum} edges in {:.3} s",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
