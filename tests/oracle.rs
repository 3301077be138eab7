//! A deliberately simple Sokoban breadth-first search and hyperstate analysis, written
//! from the rules and the paper and independent of our crates, to check the explorer's
//! counts and the analysis' numbers.

use std::collections::{HashMap, HashSet, VecDeque};

/// Counts a state space the slow, obvious way.
#[derive(Debug, PartialEq, Eq)]
pub struct Counts {
    pub states: u64,
    pub transitions: u64,
    pub wins: u64,
    pub max_depth: u64,
}

/// The state graph the oracle explored, in its own breadth-first numbering (the start
/// is state 0).
#[derive(Debug)]
pub struct Graph {
    /// Every transition as (source, direction 0..4, target).
    pub edges: Vec<(u32, u8, u32)>,
    /// True for states whose boxes all stand on goals.
    pub win: Vec<bool>,
    /// True for states whose successors were generated.
    pub expanded: Vec<bool>,
    /// Breadth-first depth of every state.
    pub depth: Vec<u64>,
}

impl Graph {
    /// Number of states.
    pub fn state_count(&self) -> usize {
        self.win.len()
    }
}

/// Explores the single-level XSB text `text` (plain characters, no run-length).
pub fn sokoban(text: &str) -> Counts {
    let g = sokoban_graph(text, None);
    Counts {
        states: g.state_count() as u64,
        transitions: g.edges.len() as u64,
        wins: g.win.iter().filter(|&&w| w).count() as u64,
        max_depth: g.depth.iter().copied().max().unwrap_or(0),
    }
}

type Cell = (i64, i64);
type State = (Cell, Vec<Cell>);

/// Explores `text` and keeps the graph. Win states are terminal (never expanded); with
/// `max_depth`, states at that depth are stored but not expanded, as `--max-depth` does.
pub fn sokoban_graph(text: &str, max_depth: Option<u64>) -> Graph {
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
    let start: State = (player, boxes);
    let mut ids = HashMap::from([(start.clone(), 0u32)]);
    let mut states = vec![start];
    let mut g = Graph {
        edges: Vec::new(),
        win: Vec::new(),
        expanded: Vec::new(),
        depth: vec![0],
    };
    let mut next_id = 0usize;
    while let Some(state) = states.get(next_id).cloned() {
        let id = next_id as u32;
        next_id += 1;
        let depth = g.depth[id as usize];
        let ((pr, pc), boxes) = &state;
        let win = boxes.iter().all(|b| goals.contains(b));
        let expand = !win && max_depth.is_none_or(|m| depth < m);
        g.win.push(win);
        g.expanded.push(expand);
        if !expand {
            continue;
        }
        for (dir, (dr, dc)) in [(-1, 0), (1, 0), (0, -1), (0, 1)].into_iter().enumerate() {
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
            let succ = (next, nb);
            let target = *ids.entry(succ.clone()).or_insert_with(|| {
                states.push(succ);
                g.depth.push(depth + 1);
                (states.len() - 1) as u32
            });
            g.edges.push((id, dir as u8, target));
        }
    }
    g
}

/// The numbers of Cook and Raad's hyperstate analysis, computed the obvious way.
#[derive(Debug, Default)]
pub struct HsgCounts {
    pub hyperstates: u64,
    pub critical_actions: u64,
    pub hsg_edges: u64,
    pub win: u64,
    pub fail: u64,
    pub eventually_winnable: u64,
    pub implicitly_failed: u64,
    pub unknown: u64,
    pub root_tag: &'static str,
    pub immediately_reversible: u64,
    pub eventually_reversible: u64,
    pub open_states: u64,
    pub shortest_win_actions: Option<u64>,
    pub shortest_win_critical: Option<u64>,
}

/// Strongly connected components by Kosaraju's algorithm with explicit stacks. The
/// components come out in topological order: every edge between two components goes
/// from a smaller number to a larger one.
pub fn components(n: usize, edges: &[(u32, u8, u32)]) -> (Vec<usize>, usize) {
    let mut out = vec![Vec::new(); n];
    let mut inn = vec![Vec::new(); n];
    for &(s, _, t) in edges {
        out[s as usize].push(t as usize);
        inn[t as usize].push(s as usize);
    }
    // First pass: states in order of finishing a depth-first search.
    let mut visited = vec![false; n];
    let mut finished = Vec::with_capacity(n);
    for s in 0..n {
        if visited[s] {
            continue;
        }
        visited[s] = true;
        let mut stack = vec![(s, 0usize)];
        while let Some((v, i)) = stack.last_mut() {
            if let Some(&w) = out[*v].get(*i) {
                *i += 1;
                if !visited[w] {
                    visited[w] = true;
                    stack.push((w, 0));
                }
            } else {
                finished.push(*v);
                stack.pop();
            }
        }
    }
    // Second pass: on the reversed graph, latest finisher first.
    let mut comp = vec![usize::MAX; n];
    let mut count = 0;
    for &s in finished.iter().rev() {
        if comp[s] != usize::MAX {
            continue;
        }
        comp[s] = count;
        let mut stack = vec![s];
        while let Some(v) = stack.pop() {
            for &u in &inn[v] {
                if comp[u] == usize::MAX {
                    comp[u] = count;
                    stack.push(u);
                }
            }
        }
        count += 1;
    }
    (comp, count)
}

/// The hyperstate numbers of `g`: components, critical actions, tags (leaves are win
/// or fail, an unexpanded non-win state is unknown; non-leaves are eventually winnable
/// when they reach a win, unknown when they reach an unknown, else implicitly failed),
/// reversibility and shortest wins.
pub fn hsg(g: &Graph) -> HsgCounts {
    let n = g.state_count();
    let (comp, count) = components(n, &g.edges);
    let mut succ: Vec<HashSet<usize>> = vec![HashSet::new(); count];
    let mut r = HsgCounts {
        hyperstates: count as u64,
        ..HsgCounts::default()
    };
    let pairs: HashSet<(u32, u32)> = g.edges.iter().map(|&(s, _, t)| (s, t)).collect();
    for &(s, _, t) in &g.edges {
        let (cs, ct) = (comp[s as usize], comp[t as usize]);
        if cs != ct {
            assert!(
                cs < ct,
                "the oracle's components are not in topological order"
            );
            r.critical_actions += 1;
            succ[cs].insert(ct);
        } else if pairs.contains(&(t, s)) {
            r.immediately_reversible += 1;
        } else {
            r.eventually_reversible += 1;
        }
    }
    r.hsg_edges = succ.iter().map(|s| s.len() as u64).sum();
    let mut has_win = vec![false; count];
    let mut open = vec![false; count];
    for s in 0..n {
        has_win[comp[s]] |= g.win[s];
        open[comp[s]] |= !g.win[s] && !g.expanded[s];
    }
    r.open_states = (0..n).filter(|&s| !g.win[s] && !g.expanded[s]).count() as u64;
    let mut tags = vec![""; count];
    for c in (0..count).rev() {
        let any = |name: &[&str]| succ[c].iter().any(|&d| name.contains(&tags[d]));
        tags[c] = match (succ[c].is_empty(), has_win[c]) {
            (true, true) => "win",
            (true, false) if open[c] => "unknown",
            (true, false) => "fail",
            (false, true) => "eventually_winnable",
            _ if any(&["win", "eventually_winnable"]) => "eventually_winnable",
            _ if any(&["unknown"]) => "unknown",
            _ => "implicitly_failed",
        };
        match tags[c] {
            "win" => r.win += 1,
            "fail" => r.fail += 1,
            "eventually_winnable" => r.eventually_winnable += 1,
            "unknown" => r.unknown += 1,
            _ => r.implicitly_failed += 1,
        }
    }
    r.root_tag = tags[comp[0]];
    // Breadth-first depths are shortest distances, so the shallowest win is the
    // shortest win in actions.
    r.shortest_win_actions = (0..n).filter(|&s| g.win[s]).map(|s| g.depth[s]).min();
    r.shortest_win_critical = hsg_distance_to_win(comp[0], &succ, &has_win);
    r
}

/// Fewest critical actions from hyperstate `root` to one that holds a win.
fn hsg_distance_to_win(root: usize, succ: &[HashSet<usize>], has_win: &[bool]) -> Option<u64> {
    let mut dist = HashMap::from([(root, 0u64)]);
    let mut queue = VecDeque::from([root]);
    while let Some(c) = queue.pop_front() {
        if has_win[c] {
            return Some(dist[&c]);
        }
        for &d in &succ[c] {
            if !dist.contains_key(&d) {
                dist.insert(d, dist[&c] + 1);
                queue.push_back(d);
            }
        }
    }
    None
}
