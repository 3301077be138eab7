//! The graph view's layouts, cached as small files of the workbench inside the
//! analysis folder (`DIR/hsg/tui-layout-<key>.json`). A new analysis replaces that
//! folder whole, so a cached layout can never outlive the hyperstates it describes.

use crate::data::Neighbourhood;
use crate::spring_layout::Layout;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

/// Most layout files kept; older ones are removed when a new one is written.
const KEEP: usize = 64;
const PREFIX: &str = "tui-layout-";

#[derive(Serialize, Deserialize)]
struct CachedLayout {
    version: u32,
    nodes: Vec<u64>,
    edges: Vec<(u32, u32)>,
    sweeps: u32,
    positions: Vec<(f32, f32)>,
}

/// The cache file for the nodes and edges of `n` in the run at `run_dir`, if the
/// run has an analysis folder.
fn file_for(run_dir: &Path, n: &Neighbourhood) -> Option<PathBuf> {
    let folder = run_dir.join(hsg::persist::FOLDER);
    if !folder.is_dir() {
        return None;
    }
    let mut bytes = Vec::with_capacity(n.nodes.len() * 8 + n.edges.len() * 8);
    for &h in &n.nodes {
        bytes.extend_from_slice(&h.to_le_bytes());
    }
    for &(a, b) in &n.edges {
        bytes.extend_from_slice(&a.to_le_bytes());
        bytes.extend_from_slice(&b.to_le_bytes());
    }
    Some(folder.join(format!("{PREFIX}{:016x}.json", xxh3_64(&bytes))))
}

/// The cached layout of exactly these nodes and edges, if there is one.
pub fn load(run_dir: &Path, n: &Neighbourhood) -> Option<Layout> {
    let path = file_for(run_dir, n)?;
    let bytes = std::fs::read(path).ok()?;
    let c: CachedLayout = serde_json::from_slice(&bytes).ok()?;
    // A hash collision or a damaged file is treated as a miss.
    (c.version == 1
        && c.nodes == n.nodes
        && c.edges == n.edges
        && c.positions.len() == n.nodes.len()
        && c.positions
            .iter()
            .all(|p| p.0.is_finite() && p.1.is_finite()))
    .then_some(Layout {
        positions: c.positions,
        sweeps: c.sweeps,
    })
}

/// Saves a layout; failures (a read-only store) only cost a recomputation later.
pub fn store(run_dir: &Path, n: &Neighbourhood, layout: &Layout) {
    let Some(path) = file_for(run_dir, n) else {
        return;
    };
    let c = CachedLayout {
        version: 1,
        nodes: n.nodes.clone(),
        edges: n.edges.clone(),
        sweeps: layout.sweeps,
        positions: layout.positions.clone(),
    };
    let Ok(json) = serde_json::to_vec(&c) else {
        return;
    };
    let tmp = path.with_extension("tmp");
    if std::fs::write(&tmp, json).is_ok() && std::fs::rename(&tmp, &path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    if let Some(folder) = path.parent() {
        prune(folder);
    }
}

/// Keeps the [`KEEP`] most recent layout files.
fn prune(folder: &Path) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(PREFIX))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    if files.len() <= KEEP {
        return;
    }
    files.sort();
    for (_, path) in &files[..files.len() - KEEP] {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_layout_is_found_only_for_the_same_graph() {
        let dir = tempfile::tempdir().unwrap();
        let n = Neighbourhood {
            nodes: vec![4, 2, 9],
            edges: vec![(0, 1), (1, 2)],
            ..Neighbourhood::default()
        };
        let l = crate::spring_layout::spring_layout(3, &n.edges);
        // No analysis folder: nothing is cached.
        store(dir.path(), &n, &l);
        assert_eq!(load(dir.path(), &n), None);
        std::fs::create_dir(dir.path().join("hsg")).unwrap();
        store(dir.path(), &n, &l);
        assert_eq!(load(dir.path(), &n), Some(l));
        let other = Neighbourhood {
            edges: vec![(0, 1)],
            ..n
        };
        assert_eq!(load(dir.path(), &other), None);
    }
}
