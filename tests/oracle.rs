//! A deliberately simple Sokoban breadth-first search, written from the rules
//! and independent of the `games` crate, to check the explorer's counts.

use std::collections::{HashMap, VecDeque};

/// Counts a state space the slow, obvious way.
#[derive(Debug, PartialEq, Eq)]
pub struct Counts {
    pub states: u64,
    pub transitions: u64,
    pub wins: u64,
    pub max_depth: u64,
}

/// Explores the single-level XSB text `text` (plain characters, no run-length).
pub fn sokoban(text: &str) -> Counts {
    let rows: Vec<Vec<char>> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with(';') && l.contains('#'))
        .map(|l| l.chars().collect())
        .collect();
    let at = |r: i64, c: i64| -> char {
        if r < 0 || c < 0 {
            return '#';
        }
        rows.get(r as usize)
            .and_then(|row| row.get(c as usize))
            .copied()
            .unwrap_or('#')
    };
    let mut player = (0, 0);
    let mut boxes = Vec::new();
    let mut goals = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        for (c, &ch) in row.iter().enumerate() {
            let p = (r as i64, c as i64);
            if "@+".contains(ch) {
                player = p;
            }
            if "$*".contains(ch) {
                boxes.push(p);
            }
            if ".*+".contains(ch) {
                goals.push(p);
            }
        }
    }
    boxes.sort();
    let start = (player, boxes);
    let mut seen = HashMap::from([(start.clone(), 0u64)]);
    let mut queue = VecDeque::from([start]);
    let mut counts = Counts {
        states: 1,
        transitions: 0,
        wins: 0,
        max_depth: 0,
    };
    while let Some(state) = queue.pop_front() {
        let depth = seen[&state];
        counts.max_depth = counts.max_depth.max(depth);
        let ((pr, pc), boxes) = &state;
        if boxes.iter().all(|b| goals.contains(b)) {
            counts.wins += 1;
            continue;
        }
        for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
            let next = (pr + dr, pc + dc);
            if at(next.0, next.1) == '#' {
                continue;
            }
            let mut nb = boxes.clone();
            if let Some(i) = nb.iter().position(|&b| b == next) {
                let behind = (next.0 + dr, next.1 + dc);
                if at(behind.0, behind.1) == '#' || nb.contains(&behind) {
                    continue;
                }
                nb[i] = behind;
                nb.sort();
            }
            counts.transitions += 1;
            let succ = (next, nb);
            if !seen.contains_key(&succ) {
                seen.insert(succ.clone(), depth + 1);
                counts.states += 1;
                queue.push_back(succ);
            }
        }
    }
    counts
}
