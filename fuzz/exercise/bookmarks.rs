//! What the bookmarks-database fuzz target and its smoke test do with one input: damage
//! one file of a small valid workbench database (`hsg-user.sled`, sled's own files) and
//! open it with the public `tui::bookmarks::Bookmarks::open`, which must return an error
//! or bookmarks that list, add and remove, never panic (nor hang). How damage is then
//! handled (named, moved aside) is the workbench's business; this only asks that it never
//! crashes on it.
//!
//! Input: byte 0 picks the file (`% files`), the rest replaces its bytes whole.

use std::path::{Path, PathBuf};
use tui::bookmarks::{Bookmarks, RunKey};

/// A run directory holding a small valid database, and the bytes of its files.
pub struct Base {
    _dir: tempfile::TempDir,
    /// The run directory the database sits in.
    pub run_dir: PathBuf,
    /// The database's files (relative to the run directory) and their original bytes.
    pub files: Vec<(PathBuf, Vec<u8>)>,
}

/// The run identity the base's bookmarks belong to.
pub fn key() -> RunKey {
    RunKey {
        game: "sokoban".to_string(),
        level_hash: "0123456789abcdef".to_string(),
        options: Default::default(),
    }
}

impl Base {
    /// Writes a database with a few bookmarks (one removed again) and reads its files.
    pub fn new() -> Base {
        let dir = tempfile::tempdir().expect("temp dir");
        let run_dir = dir.path().join("run");
        std::fs::create_dir(&run_dir).expect("run dir");
        {
            let mut bookmarks =
                Bookmarks::open(Some((&run_dir, &key()))).expect("a fresh database");
            for (state, note) in [(0, "root"), (7, "the trap"), (42, "é, a note")] {
                bookmarks.add(state, note.to_string()).expect("added");
            }
            bookmarks.remove(1).expect("removed");
        }
        let db = run_dir.join(store::layout::USER_DB);
        let mut files = Vec::new();
        collect(&run_dir, &db, &mut files);
        files.sort();
        assert!(!files.is_empty(), "the database has files");
        Base {
            _dir: dir,
            run_dir,
            files,
        }
    }

    /// One seed per file: its pick byte, then its original bytes.
    pub fn seeds(&self) -> Vec<Vec<u8>> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, (_, bytes))| [&[i as u8][..], bytes].concat())
            .collect()
    }

    /// Puts the base database back, writes `data`'s file, and opens and uses it.
    pub fn apply(&self, data: &[u8]) {
        let Some((&pick, payload)) = data.split_first() else {
            return;
        };
        let db = self.run_dir.join(store::layout::USER_DB);
        let _ = std::fs::remove_dir_all(&db);
        // Anything a damage handler moved aside goes too, so each input starts alike.
        for entry in std::fs::read_dir(&self.run_dir).expect("run dir").flatten() {
            let _ = std::fs::remove_dir_all(entry.path());
            let _ = std::fs::remove_file(entry.path());
        }
        for (name, bytes) in &self.files {
            let path = self.run_dir.join(name);
            std::fs::create_dir_all(path.parent().expect("inside the run dir")).expect("dir");
            std::fs::write(&path, bytes).expect("restored");
        }
        let (name, _) = &self.files[usize::from(pick) % self.files.len()];
        std::fs::write(self.run_dir.join(name), payload).expect("damaged");
        if let Ok(mut bookmarks) = Bookmarks::open(Some((&self.run_dir, &key()))) {
            let listed = bookmarks.items().len();
            let _ = bookmarks.add(9, "after the damage".to_string());
            if listed > 0 {
                let _ = bookmarks.remove(0);
            }
        }
    }
}

/// Every file under `at`, relative to `root`.
fn collect(root: &Path, at: &Path, files: &mut Vec<(PathBuf, Vec<u8>)>) {
    for entry in std::fs::read_dir(at).expect("readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, files);
        } else {
            let bytes = std::fs::read(&path).expect("readable");
            let name = path.strip_prefix(root).expect("inside").to_path_buf();
            files.push((name, bytes));
        }
    }
}
