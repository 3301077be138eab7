//! The graph view's layout, done the way PuzzleGraph does it: every pair of nodes is
//! joined by a spring whose ideal length is their graph distance (critical actions
//! either way), and each spring moves its two ends by
//! `(current - ideal) / ideal^2 x 0.1`, sweep after sweep, until nothing moves.
//!
//! Dividing by the squared ideal length makes near neighbours matter more than the
//! many far nodes. The springs start from a pivot-MDS placement (a cheap projection of
//! the same distances), so the sweeps only refine it; the result is deterministic.
//! Time `O(n (n + e))` for the distances plus `O(n^2)` per sweep; memory `2 n^2` bytes.

use std::collections::VecDeque;

/// The PuzzleGraph constant: the largest step that converged without oscillating.
const STEP: f32 = 0.1;
/// The layout is still when 99% of the nodes move less than this fraction of its extent.
const STILL: f32 = 0.0005;
/// Sweeps at the full spring constant before cooling starts.
const COOL_AFTER: u32 = 25;
/// Factor applied to the spring constant per sweep once cooling started.
const COOLING: f32 = 0.93;
/// Most sweeps, so a layout always ends.
pub const MAX_SWEEPS: u32 = 200;
/// Pivots of the initial placement.
const PIVOTS: usize = 40;

/// Node positions in graph-distance units.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    /// `(x, y)` of each node.
    pub positions: Vec<(f32, f32)>,
    /// Sweeps done.
    pub sweeps: u32,
}

/// Lays out `n` nodes joined by `edges` (direction ignored).
pub fn spring_layout(n: usize, edges: &[(u32, u32)]) -> Layout {
    if n <= 1 {
        return Layout {
            positions: vec![(0.0, 0.0); n],
            sweeps: 0,
        };
    }
    let dist = Distances::new(n, edges);
    let mut pos = pivot_mds(&dist);
    fit_scale(&dist, &mut pos);
    jitter(&mut pos);
    let (mut xs, mut ys): (Vec<f32>, Vec<f32>) = pos.into_iter().unzip();
    let damping = damping(&dist);
    let mut sweeps = 0;
    while sweeps < MAX_SWEEPS {
        sweeps += 1;
        let mut moves = sweep(&dist, &damping, step_at(sweeps), &mut xs, &mut ys);
        if is_still(&mut moves, &xs, &ys) {
            break;
        }
    }
    Layout {
        positions: xs.into_iter().zip(ys).collect(),
        sweeps,
    }
}

/// All-pairs graph distances, `u16` each; pairs in different components get one more
/// than the largest finite distance, so components sit side by side.
pub struct Distances {
    n: usize,
    d: Vec<u16>,
}

impl Distances {
    /// Breadth-first search from every node over the undirected graph, the rows
    /// shared out between the machine's cores.
    pub fn new(n: usize, edges: &[(u32, u32)]) -> Distances {
        let adjacency = undirected(n, edges);
        let mut d = vec![u16::MAX; n * n];
        let threads = std::thread::available_parallelism()
            .map_or(1, |t| t.get())
            .min(8);
        let rows_per_thread = n.div_ceil(threads).max(1);
        let max = std::thread::scope(|scope| {
            let workers: Vec<_> = d
                .chunks_mut(rows_per_thread * n)
                .enumerate()
                .map(|(t, block)| {
                    let adjacency = &adjacency;
                    scope.spawn(move || bfs_rows(adjacency, n, t * rows_per_thread, block))
                })
                .collect();
            // A worker only panics on a bug; its rows then stay "unreachable".
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or(1))
                .max()
                .unwrap_or(1)
        });
        let far = max.saturating_add(1).min(u16::MAX - 1);
        for x in &mut d {
            if *x == u16::MAX {
                *x = far;
            }
        }
        Distances { n, d }
    }

    /// Distance between `i` and `j`.
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> u16 {
        self.d[i * self.n + j]
    }

    fn row(&self, i: usize) -> &[u16] {
        &self.d[i * self.n..(i + 1) * self.n]
    }
}

/// Fills `block`, the distance rows of sources `first..`, and returns the largest
/// finite distance seen.
fn bfs_rows(adjacency: &Adjacency, n: usize, first: usize, block: &mut [u16]) -> u16 {
    let mut queue = VecDeque::new();
    let mut max = 1;
    for (k, row) in block.chunks_mut(n).enumerate() {
        let s = first + k;
        row[s] = 0;
        queue.push_back(s);
        while let Some(u) = queue.pop_front() {
            let next = row[u].saturating_add(1);
            for &v in adjacency.neighbours(u) {
                if row[v as usize] == u16::MAX {
                    row[v as usize] = next;
                    max = max.max(next);
                    queue.push_back(v as usize);
                }
            }
        }
    }
    max
}

struct Adjacency {
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

impl Adjacency {
    fn neighbours(&self, u: usize) -> &[u32] {
        &self.targets[self.offsets[u]..self.offsets[u + 1]]
    }
}

fn undirected(n: usize, edges: &[(u32, u32)]) -> Adjacency {
    let valid = edges
        .iter()
        .filter(|&&(a, b)| (a as usize) < n && (b as usize) < n && a != b);
    let mut offsets = vec![0usize; n + 1];
    for &(a, b) in valid.clone() {
        offsets[a as usize + 1] += 1;
        offsets[b as usize + 1] += 1;
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut cursor = offsets.clone();
    let mut targets = vec![0u32; offsets[n]];
    for &(a, b) in valid {
        targets[cursor[a as usize]] = b;
        cursor[a as usize] += 1;
        targets[cursor[b as usize]] = a;
        cursor[b as usize] += 1;
    }
    Adjacency { offsets, targets }
}

/// One sweep over every pair with springs scaled by `step / 0.1`; returns the
/// movement of the nodes (each node's displacement over the sweep), in no order.
///
/// Node `i` is held still while its row of pairs is visited and its own moves are
/// summed and applied after the row: the partner nodes move at once, as in
/// Gauss-Seidel, but the row has no chain of dependent updates, so it vectorises.
fn sweep(dist: &Distances, damping: &[f32], step: f32, xs: &mut [f32], ys: &mut [f32]) -> Vec<f32> {
    let n = dist.n;
    let before: Vec<(f32, f32)> = xs.iter().copied().zip(ys.iter().copied()).collect();
    for i in 0..n {
        let row = &dist.row(i)[i + 1..];
        let (xi, yi) = (xs[i], ys[i]);
        let (xr, yr) = (&mut xs[i + 1..], &mut ys[i + 1..]);
        let (ax, ay) = spring_row(row, &damping[i + 1..], step, (xi, yi), (xr, yr));
        xs[i] += ax * damping[i];
        ys[i] += ay * damping[i];
    }
    before
        .iter()
        .zip(xs.iter().zip(ys.iter()))
        .map(|(&(x0, y0), (&x, &y))| ((x - x0).powi(2) + (y - y0).powi(2)).sqrt())
        .collect()
}

/// Lanes of the row loop: eight independent sums let the compiler use vector units.
const LANES: usize = 8;

/// Applies the springs between node `(xi, yi)` and the nodes of `xr`/`yr` (ideal
/// lengths `row`, dampings `damp`), moving those nodes and returning the sum of `i`'s
/// own (undamped) moves.
#[inline]
fn spring_row(
    row: &[u16],
    damp: &[f32],
    step: f32,
    (xi, yi): (f32, f32),
    (xr, yr): (&mut [f32], &mut [f32]),
) -> (f32, f32) {
    let (mut ax, mut ay) = ([0f32; LANES], [0f32; LANES]);
    let len = row.len().min(xr.len()).min(yr.len()).min(damp.len());
    let whole = len - len % LANES;
    let half_step = step * 0.5;
    let pair = |ideal: u16, dj: f32, xj: &mut f32, yj: &mut f32| {
        let (dx, dy) = (*xj - xi, *yj - yi);
        // The epsilon keeps coincident nodes from dividing by zero.
        let current = (dx * dx + dy * dy + 1e-12).sqrt();
        let d = f32::from(ideal);
        // (current - ideal) / ideal^2 x step, shared equally by the two ends.
        let adjust = (current - d) * step * 0.5 / (d * d * current);
        let (mx, my) = (dx * adjust, dy * adjust);
        *xj -= mx * dj;
        *yj -= my * dj;
        (mx, my)
    };
    for (((r, dc), xc), yc) in row[..whole]
        .chunks_exact(LANES)
        .zip(damp[..whole].chunks_exact(LANES))
        .zip(xr[..whole].chunks_exact_mut(LANES))
        .zip(yr[..whole].chunks_exact_mut(LANES))
    {
        // Fixed-size arrays let the compiler drop bounds checks and vectorise the lanes.
        let (Ok(r), Ok(dc), Ok(xc), Ok(yc)) = (
            <&[u16; LANES]>::try_from(r),
            <&[f32; LANES]>::try_from(dc),
            <&mut [f32; LANES]>::try_from(xc),
            <&mut [f32; LANES]>::try_from(yc),
        ) else {
            continue;
        };
        for l in 0..LANES {
            let (dx, dy) = (xc[l] - xi, yc[l] - yi);
            let current = (dx * dx + dy * dy + 1e-12).sqrt();
            let d = f32::from(r[l]);
            let adjust = (current - d) * half_step / (d * d * current);
            let (mx, my) = (dx * adjust, dy * adjust);
            xc[l] -= mx * dc[l];
            yc[l] -= my * dc[l];
            ax[l] += mx;
            ay[l] += my;
        }
    }
    for j in whole..len {
        let (mx, my) = pair(row[j], damp[j], &mut xr[j], &mut yr[j]);
        ax[0] += mx;
        ay[0] += my;
    }
    (ax.iter().sum(), ay.iter().sum())
}

/// Pivot MDS (Brandes and Pich): project the double-centred squared distances to a
/// few far-apart pivots onto their two main axes.
fn pivot_mds(dist: &Distances) -> Vec<(f32, f32)> {
    let n = dist.n;
    let pivots = choose_pivots(dist, PIVOTS.min(n));
    let k = pivots.len();
    // c[i][p] = d(i, pivot p)^2, double-centred.
    let mut c = vec![0f64; n * k];
    for i in 0..n {
        for (p, &q) in pivots.iter().enumerate() {
            let d = f64::from(dist.get(i, q));
            c[i * k + p] = d * d;
        }
    }
    double_centre(&mut c, n, k);
    // m = c^T c, k x k.
    let mut m = vec![0f64; k * k];
    for i in 0..n {
        let row = &c[i * k..(i + 1) * k];
        for a in 0..k {
            for b in 0..k {
                m[a * k + b] += row[a] * row[b];
            }
        }
    }
    let v1 = power_iteration(&m, k, None);
    let v2 = power_iteration(&m, k, Some(&v1));
    (0..n)
        .map(|i| {
            let row = &c[i * k..(i + 1) * k];
            let x: f64 = row.iter().zip(&v1).map(|(a, b)| a * b).sum();
            let y: f64 = row.iter().zip(&v2).map(|(a, b)| a * b).sum();
            (x as f32, y as f32)
        })
        .collect()
}

/// Max-min pivots: each next pivot is the node farthest from those chosen.
fn choose_pivots(dist: &Distances, k: usize) -> Vec<usize> {
    let n = dist.n;
    let mut pivots = vec![0usize];
    let mut nearest: Vec<u16> = (0..n).map(|i| dist.get(0, i)).collect();
    while pivots.len() < k {
        let (far, &d) = nearest
            .iter()
            .enumerate()
            .max_by_key(|&(i, &d)| (d, std::cmp::Reverse(i)))
            .unwrap_or((0, &0));
        if d == 0 {
            break;
        }
        pivots.push(far);
        for (i, x) in nearest.iter_mut().enumerate() {
            *x = (*x).min(dist.get(far, i));
        }
    }
    pivots
}

fn double_centre(c: &mut [f64], n: usize, k: usize) {
    let mut col = vec![0f64; k];
    let mut total = 0.0;
    let mut row_mean = vec![0f64; n];
    for i in 0..n {
        for p in 0..k {
            let v = c[i * k + p];
            col[p] += v;
            row_mean[i] += v;
            total += v;
        }
        row_mean[i] /= k as f64;
    }
    for v in &mut col {
        *v /= n as f64;
    }
    let mean = total / (n * k) as f64;
    for i in 0..n {
        for p in 0..k {
            let v = &mut c[i * k + p];
            *v = -0.5 * (*v - row_mean[i] - col[p] + mean);
        }
    }
}

/// The dominant eigenvector of the symmetric `m`, orthogonal to `other` if given.
fn power_iteration(m: &[f64], k: usize, other: Option<&[f64]>) -> Vec<f64> {
    // A fixed, uneven start so the result does not depend on chance.
    let mut v: Vec<f64> = (0..k).map(|i| 1.0 + (i as f64 * 0.618).fract()).collect();
    for _ in 0..200 {
        if let Some(o) = other {
            let dot: f64 = v.iter().zip(o).map(|(a, b)| a * b).sum();
            v.iter_mut().zip(o).for_each(|(a, b)| *a -= dot * b);
        }
        let mut w = vec![0f64; k];
        for a in 0..k {
            w[a] = (0..k).map(|b| m[a * k + b] * v[b]).sum();
        }
        let norm = w.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm < 1e-12 {
            break;
        }
        v = w.into_iter().map(|x| x / norm).collect();
    }
    v
}

/// Largest total pull of a node's springs in one sweep (see [`damping`]).
const MAX_PULL: f32 = 0.5;

/// A factor per node that scales its moves so that the springs' total pull on it,
/// `sum over j of 0.1 / (2 ideal_ij^2)`, stays at most [`MAX_PULL`].
///
/// PuzzleGraph's constant suits its small graphs; in a neighbourhood of hundreds of
/// nodes, a node with many near neighbours (a hub, or one of a hub's many leaves)
/// gets so many pulls per sweep that it overshoots further every time. Scaling a
/// node's moves leaves the positions the springs balance at unchanged; it only stops
/// the overshoot.
fn damping(dist: &Distances) -> Vec<f32> {
    (0..dist.n)
        .map(|i| {
            let pull: f32 = dist
                .row(i)
                .iter()
                .filter(|&&d| d > 0)
                .map(|&d| STEP * 0.5 / f32::from(d).powi(2))
                .sum();
            if pull > MAX_PULL {
                MAX_PULL / pull
            } else {
                1.0
            }
        })
        .collect()
}

/// The spring constant of sweep `k`: PuzzleGraph's 0.1, cooled geometrically after
/// [`COOL_AFTER`] sweeps. Nodes with many close neighbours receive many 0.1-sized
/// pulls per sweep and can overshoot back and forth for ever; cooling lets them settle
/// without changing where the rest of the layout converged to.
fn step_at(k: u32) -> f32 {
    STEP * COOLING.powi(k.saturating_sub(COOL_AFTER) as i32)
}

/// True when 99% of the nodes moved less than [`STILL`] of the drawing's extent:
/// nothing moves by a visible fraction of a braille dot any more.
fn is_still(moves: &mut [f32], xs: &[f32], ys: &[f32]) -> bool {
    if moves.is_empty() {
        return true;
    }
    let span = |v: &[f32]| {
        let (lo, hi) = v
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        hi - lo
    };
    let extent = span(xs).max(span(ys)).max(1.0);
    let k = (moves.len() * 99 / 100).min(moves.len() - 1);
    let (_, p99, _) = moves.select_nth_unstable_by(k, f32::total_cmp);
    *p99 < STILL * extent
}

/// Moves every node by a small amount fixed by its index: nodes with the same
/// distances to every pivot (leaves of one parent) start at the same point, and
/// springs cannot push apart nodes that coincide exactly.
fn jitter(pos: &mut [(f32, f32)]) {
    for (i, p) in pos.iter_mut().enumerate() {
        let angle = i as f32 * 2.399_963; // the golden angle spreads successive nodes
        let r = 0.05 * (1.0 + (i % 7) as f32 / 7.0);
        *p = (p.0 + r * angle.cos(), p.1 + r * angle.sin());
    }
}

/// Scales the placement by the factor that best matches the ideal lengths (weighted
/// least squares with the springs' weights 1/ideal^2).
fn fit_scale(dist: &Distances, pos: &mut [(f32, f32)]) {
    let (mut num, mut den) = (0f64, 0f64);
    let n = dist.n;
    for i in 0..n {
        for j in i + 1..n {
            let d = f64::from(dist.get(i, j));
            let (dx, dy) = (pos[j].0 - pos[i].0, pos[j].1 - pos[i].1);
            let cur = f64::from((dx * dx + dy * dy).sqrt());
            num += cur / d;
            den += cur * cur / (d * d);
        }
    }
    if den > 1e-12 {
        let s = (num / den) as f32;
        pos.iter_mut().for_each(|p| *p = (p.0 * s, p.1 * s));
    }
}

#[cfg(test)]
#[path = "spring_layout_tests.rs"]
mod tests;
