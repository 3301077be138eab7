//! The levels of a batch: files (every level), folders (every file, sorted by name)
//! and `file:N-M` ranges, each level with a key that names its result file.

use crate::tui_cmd::slug;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One level to measure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelSpec {
    /// Unique in the batch: the file's stem and the level's number (`hard-000-12`).
    pub key: String,
    /// The level file.
    pub file: PathBuf,
    /// 1-based number of the level in the file.
    pub number: usize,
    /// The level's title in the file.
    pub title: String,
    /// Why the file could not be read as levels (a file of a folder): the batch records
    /// it as a failed level and goes on.
    pub problem: Option<String>,
}

/// Why the level list could not be made.
#[derive(Debug)]
pub enum SpecError {
    /// The arguments are wrong (exit code 2).
    Usage(String),
    /// A file could not be read or parsed.
    Other(anyhow::Error),
}

/// The levels that `args` name, in order, without repeats (a level named twice, by
/// two arguments or two spellings of its path, is measured once).
pub fn expand(args: &[String]) -> Result<Vec<LevelSpec>, SpecError> {
    let mut specs = Vec::new();
    let mut seen = BTreeSet::new();
    for arg in args {
        let (path, range) = split_range(arg)?;
        let in_folder = path.is_dir();
        let files = if path.is_dir() {
            folder_files(&path)?
        } else if path.is_file() {
            vec![path]
        } else {
            return Err(SpecError::Usage(format!(
                "{}: no such file or folder",
                path.display()
            )));
        };
        for file in files {
            let levels = match file_levels(&file, range) {
                Err(SpecError::Other(err)) if in_folder => vec![unreadable(&file, &err)],
                other => other?,
            };
            for spec in levels {
                if seen.insert((real_path(&spec.file), spec.number)) {
                    specs.push(spec);
                }
            }
        }
    }
    assign_keys(&mut specs);
    Ok(specs)
}

/// Gives every level a key unique in the batch: the file's stem and the level's number
/// (`hard-000-12`), with as many of the file's folders in front as it takes to tell
/// apart files of one stem in different folders (`a-lvl-1`, `b-lvl-1`), and a counter
/// as the last resort (names that differ only in characters a key cannot hold).
///
/// Regression: keys were the stem alone, so `a/lvl.xsb` and `b/lvl.xsb` shared one
/// result file and the batch silently measured and listed only one of them.
fn assign_keys(specs: &mut [LevelSpec]) {
    let real: Vec<PathBuf> = specs.iter().map(|s| real_path(&s.file)).collect();
    let mut files: Vec<PathBuf> = Vec::new();
    for file in &real {
        if !files.contains(file) {
            files.push(file.clone());
        }
    }
    let names: Vec<String> = files.iter().map(|f| file_name(f, &files)).collect();
    let mut used = BTreeSet::new();
    for (spec, file) in specs.iter_mut().zip(&real) {
        let name = &names[files.iter().position(|f| f == file).unwrap_or(0)];
        let base = match spec.problem {
            Some(_) => name.clone(),
            None => format!("{name}-{}", spec.number),
        };
        let mut key = base.clone();
        let mut n = 2;
        while !used.insert(key.clone()) {
            key = format!("{base}~{n}");
            n += 1;
        }
        spec.key = key;
    }
}

/// The name of `file` in keys: its stem, preceded by the fewest of its folders that
/// tell it apart from every other file of the batch with the same stem.
fn file_name(file: &Path, files: &[PathBuf]) -> String {
    let stem = stem_of(file);
    let rivals: Vec<&PathBuf> = files
        .iter()
        .filter(|f| f.as_path() != file && stem_of(f) == stem)
        .collect();
    if rivals.is_empty() {
        return stem;
    }
    let folders = |f: &Path| -> Vec<String> {
        f.parent()
            .map(|p| {
                p.components()
                    .rev()
                    .filter_map(|c| c.as_os_str().to_str().map(slug))
                    .filter(|c| !c.is_empty() && c != "-")
                    .collect()
            })
            .unwrap_or_default()
    };
    let own = folders(file);
    for depth in 1..=own.len() {
        let prefix = |list: &[String]| list.iter().take(depth).rev().cloned().collect::<Vec<_>>();
        let mine = prefix(&own);
        if rivals.iter().all(|r| prefix(&folders(r)) != mine) {
            return format!("{}-{stem}", mine.join("-"));
        }
    }
    stem
}

/// A file of a folder that holds no readable level, as one failed entry.
fn unreadable(file: &Path, err: &anyhow::Error) -> LevelSpec {
    LevelSpec {
        key: String::new(),
        file: file.to_path_buf(),
        number: 1,
        title: String::new(),
        problem: Some(crate::message(err)),
    }
}

/// The file's canonical path (the path as given when it cannot be resolved), so that
/// two spellings of one file are one file.
fn real_path(file: &Path) -> PathBuf {
    std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf())
}

fn stem_of(file: &Path) -> String {
    slug(file.file_stem().and_then(|s| s.to_str()).unwrap_or("level"))
}

/// Splits `file.txt:3-9` into the path and the inclusive 1-based range. A whole
/// argument that names an existing path is a path, even with a colon in it.
fn split_range(arg: &str) -> Result<(PathBuf, Option<(usize, usize)>), SpecError> {
    let whole = PathBuf::from(arg);
    if whole.exists() {
        return Ok((whole, None));
    }
    let Some((path, range)) = arg.rsplit_once(':') else {
        return Ok((whole, None));
    };
    let bad = || {
        SpecError::Usage(format!(
            "`{arg}`: the level range must be N or N-M with 1 <= N <= M (e.g. file.txt:1-20)"
        ))
    };
    let (from, to) = match range.split_once('-') {
        Some((a, b)) => (a.trim().parse().ok(), b.trim().parse().ok()),
        None => (range.trim().parse().ok(), range.trim().parse().ok()),
    };
    match (from, to) {
        (Some(a), Some(b)) if a >= 1 && a <= b => Ok((PathBuf::from(path), Some((a, b)))),
        _ => Err(bad()),
    }
}

fn folder_files(dir: &Path) -> Result<Vec<PathBuf>, SpecError> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        SpecError::Other(anyhow::anyhow!("cannot read folder {}: {e}", dir.display()))
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| {
            !p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.') || n.ends_with(".md"))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// The levels of one file within `range`; a range past the file's end is a usage error.
fn file_levels(file: &Path, range: Option<(usize, usize)>) -> Result<Vec<LevelSpec>, SpecError> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        SpecError::Other(anyhow::anyhow!(
            "cannot read level file {}: {e}",
            file.display()
        ))
    })?;
    let list = games::list_levels(&file.display().to_string(), &text)
        .map_err(|e| SpecError::Other(e.into()))?;
    let (from, to) = range.unwrap_or((1, list.len()));
    if to > list.len() {
        return Err(SpecError::Usage(format!(
            "{}: asks for levels {from}-{to} but the file has {} levels",
            file.display(),
            list.len()
        )));
    }
    Ok(list
        .into_iter()
        .filter(|(n, _)| (from..=to).contains(n))
        .map(|(number, title)| LevelSpec {
            key: String::new(),
            file: file.to_path_buf(),
            number,
            title,
            problem: None,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(arg: &str) -> String {
        match split_range(arg) {
            Err(SpecError::Usage(m)) => m,
            other => panic!("{arg}: expected a usage error, got {other:?}"),
        }
    }

    #[test]
    fn ranges_parse_and_bad_ones_are_usage_errors() {
        assert_eq!(
            split_range("no/such.txt:3-9").ok().map(|r| r.1),
            Some(Some((3, 9)))
        );
        assert_eq!(
            split_range("no/such.txt:4").ok().map(|r| r.1),
            Some(Some((4, 4)))
        );
        assert_eq!(split_range("plain.txt").ok().map(|r| r.1), Some(None));
        for bad in ["f.txt:0-3", "f.txt:5-2", "f.txt:a-b", "f.txt:"] {
            assert!(usage(bad).contains("level range"), "{bad}");
        }
    }

    #[test]
    fn a_multi_level_file_gives_one_key_per_level() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../levels/sokoban/boxoban-hard-000-first20.txt");
        let arg = format!("{}:2-4", file.display());
        let specs = expand(&[arg.clone(), arg]).unwrap();
        let keys: Vec<&str> = specs.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "boxoban-hard-000-first20-2",
                "boxoban-hard-000-first20-3",
                "boxoban-hard-000-first20-4"
            ]
        );
        let past = format!("{}:19-25", file.display());
        assert!(matches!(expand(&[past]), Err(SpecError::Usage(_))));
    }

    #[test]
    fn files_of_one_stem_in_different_folders_get_different_keys() {
        let dir = tempfile::tempdir().unwrap();
        let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../levels/sokoban/tiny.xsb");
        for folder in ["a", "b", "c/d"] {
            std::fs::create_dir_all(dir.path().join(folder)).unwrap();
            std::fs::copy(&tiny, dir.path().join(folder).join("lvl.xsb")).unwrap();
        }
        std::fs::copy(&tiny, dir.path().join("a").join("other.xsb")).unwrap();
        let arg = |p: &str| dir.path().join(p).display().to_string();
        // The same file twice (two spellings) is one level.
        let twice = format!("{}/../a/lvl.xsb", arg("b"));
        let specs = expand(&[arg("a"), arg("b/lvl.xsb"), arg("c/d/lvl.xsb"), twice]).unwrap();
        let keys: Vec<&str> = specs.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(keys, ["a-lvl-1", "other-1", "b-lvl-1", "d-lvl-1"]);
    }
}
