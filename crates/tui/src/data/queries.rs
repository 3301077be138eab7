//! Whole-graph questions answered on top of the [`Workbench`] core: table orders, path
//! searches, neighbourhoods and search. They may visit every hyperstate, so the
//! application runs them on worker threads; all are iterative.

use super::{Row, Tag, Workbench};
use hsg::IdVec;
use std::collections::{HashMap, VecDeque};

/// Columns the hyperstate table can be sorted by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SortKey {
    /// Hyperstate number.
    #[default]
    Id,
    /// Shortest HSG depth from the root.
    Depth,
    /// Member states.
    Size,
    /// Headroom in hyperstates.
    Headroom,
    /// Loss distance.
    LossDistance,
    /// Tag.
    Tag,
}

impl SortKey {
    /// Every key, in the order the `s` key cycles through them.
    pub const ALL: [SortKey; 6] = [
        SortKey::Id,
        SortKey::Depth,
        SortKey::Size,
        SortKey::Headroom,
        SortKey::LossDistance,
        SortKey::Tag,
    ];

    /// The key after this one.
    pub fn next(self) -> SortKey {
        let i = SortKey::ALL.iter().position(|&k| k == self).unwrap_or(0);
        SortKey::ALL[(i + 1) % SortKey::ALL.len()]
    }

    /// Column name.
    pub fn name(self) -> &'static str {
        match self {
            SortKey::Id => "id",
            SortKey::Depth => "depth",
            SortKey::Size => "size",
            SortKey::Headroom => "headroom",
            SortKey::LossDistance => "loss",
            SortKey::Tag => "tag",
        }
    }

    /// The value rows are sorted on; missing values sort last.
    fn value(self, r: &Row) -> u64 {
        let opt = |x: Option<u32>| x.map_or(u64::MAX, u64::from);
        match self {
            SortKey::Id => r.id,
            SortKey::Depth => opt(r.depth),
            SortKey::Size => r.size,
            // Headroom lies in [0, 1], where the bit patterns of f32 sort like the values.
            SortKey::Headroom => r
                .headroom
                .map_or(u64::MAX, |x| u64::from(x.max(0.0).to_bits())),
            SortKey::LossDistance => opt(r.loss_distance),
            SortKey::Tag => r.tag as u64,
        }
    }
}

/// The rows of the hyperstate table in display order: a permutation (or, for the
/// default order, the identity without any array).
#[derive(Clone, Debug, PartialEq)]
pub struct Order {
    /// Sort column.
    pub sort: SortKey,
    /// True for a descending sort.
    pub descending: bool,
    /// Only hyperstates with this tag, if set.
    pub filter: Option<Tag>,
    len: u64,
    ids: Option<IdVec>,
    /// `positions[h]` is `h`'s row, or `len` when `h` is filtered out.
    positions: Option<IdVec>,
}

impl Order {
    /// Hyperstates `0..count` in increasing number.
    pub fn identity(count: u64) -> Order {
        Order {
            sort: SortKey::Id,
            descending: false,
            filter: None,
            len: count,
            ids: None,
            positions: None,
        }
    }

    /// Number of rows.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when no row is shown.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The hyperstate on row `i`.
    pub fn at(&self, i: u64) -> Option<u64> {
        match &self.ids {
            None => (i < self.len).then_some(i),
            Some(ids) => ids.get(i),
        }
    }

    /// The row of hyperstate `h`, if it is shown.
    pub fn position(&self, h: u64) -> Option<u64> {
        match &self.positions {
            None => (h < self.len).then_some(h),
            Some(p) => p.get(h).filter(|&x| x < self.len),
        }
    }
}

/// Sorts and filters every hyperstate; ties keep increasing numbers.
pub fn order<W: Workbench + ?Sized>(
    w: &W,
    sort: SortKey,
    descending: bool,
    filter: Option<Tag>,
) -> Order {
    let count = w.hyperstate_count();
    if sort == SortKey::Id && !descending && filter.is_none() {
        return Order::identity(count);
    }
    let mut keyed: Vec<(u64, u64)> = (0..count)
        .filter_map(|h| w.row(h))
        .filter(|r| filter.is_none_or(|t| r.tag == t))
        .map(|r| (sort.value(&r), r.id))
        .collect();
    if descending {
        keyed.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    } else {
        keyed.sort_unstable();
    }
    let len = keyed.len() as u64;
    // Filtered-out hyperstates keep the position `len`, which `position` rejects.
    let mut positions = vec![len; count as usize];
    for (i, &(_, h)) in keyed.iter().enumerate() {
        if let Some(p) = positions.get_mut(h as usize) {
            *p = i as u64;
        }
    }
    let ids = narrow(keyed.iter().map(|&(_, h)| h).collect(), count);
    let positions = narrow(positions, len);
    Order {
        sort,
        descending,
        filter,
        len,
        ids: Some(ids),
        positions: Some(positions),
    }
}

/// The shortest path root..=h, found by walking back along predecessors one HSG depth
/// shallower; empty when the root does not reach `h`.
pub fn path_from_root<W: Workbench + ?Sized>(w: &W, h: u64) -> Vec<u64> {
    let depth_of = |x: u64| w.row(x).and_then(|r| r.depth);
    let Some(mut d) = depth_of(h) else {
        return Vec::new();
    };
    let mut path = vec![h];
    let mut current = h;
    while d > 0 {
        let mut best: Option<u64> = None;
        w.for_each_predecessor(current, &mut |p| {
            if depth_of(p) == Some(d - 1) && best.is_none_or(|b| p < b) {
                best = Some(p);
            }
        });
        let Some(p) = best else { break };
        path.push(p);
        current = p;
        d -= 1;
    }
    path.reverse();
    path
}

/// The path from `h` that descends `distance` by one at each step (a shortest path to
/// whatever the distance measures); empty when `h` has no finite distance.
pub fn path_down<W: Workbench + ?Sized>(
    w: &W,
    h: u64,
    distance: impl Fn(&Row) -> Option<u32>,
) -> Vec<u64> {
    let dist = |x: u64| w.row(x).as_ref().and_then(&distance);
    let Some(mut d) = dist(h) else {
        return Vec::new();
    };
    let mut path = vec![h];
    let mut current = h;
    while d > 0 {
        let mut best: Option<u64> = None;
        w.for_each_successor(current, &mut |s| {
            if dist(s) == Some(d - 1) && best.is_none_or(|b| s < b) {
                best = Some(s);
            }
        });
        let Some(s) = best else { break };
        path.push(s);
        current = s;
        d -= 1;
    }
    path
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchHit {
    /// The hyperstate found, and what matched.
    Found {
        /// The hyperstate.
        hyperstate: u64,
        /// What matched, for the status line.
        note: String,
    },
    /// Why nothing was found.
    NotFound(String),
}

/// Most states a text search renders before giving up, so it ends on huge runs.
pub const TEXT_SEARCH_LIMIT: u64 = 2_000_000;

/// Finds the next hyperstate after `from` matching `query`: a hyperstate number (`12`
/// or `h12`), a state (`s12` or `#12`), a tag name (`win`, `fail`, `eventually`,
/// `implicitly`, `unknown`), or else text in the game's picture of a member state.
pub fn search<W: Workbench + ?Sized>(w: &W, query: &str, from: u64) -> SearchHit {
    let q = query.trim();
    if q.is_empty() {
        return SearchHit::NotFound("empty search".into());
    }
    let count = w.hyperstate_count();
    let number = |s: &str| s.parse::<u64>().ok();
    if let Some(h) = number(q).or_else(|| q.strip_prefix('h').and_then(number)) {
        return if h < count {
            found(h, format!("hyperstate {h}"))
        } else {
            SearchHit::NotFound(format!("no hyperstate {h} (there are {count})"))
        };
    }
    if let Some(s) = q.strip_prefix(['s', '#']).and_then(number) {
        return match w.hyperstate_of_state(s) {
            Some(h) => found(h, format!("state {s} is in hyperstate {h}")),
            None => SearchHit::NotFound(format!("no state {s}")),
        };
    }
    if let Some(tag) = tag_named(q) {
        return next_with_tag(w, tag, from);
    }
    search_text(w, q, from)
}

fn found(hyperstate: u64, note: String) -> SearchHit {
    SearchHit::Found { hyperstate, note }
}

/// The tag whose name starts with `q` (at least three letters, or the full name).
pub fn tag_named(q: &str) -> Option<Tag> {
    let q = q.to_ascii_lowercase();
    Tag::ALL
        .into_iter()
        .find(|t| t.name() == q || (q.len() >= 3 && t.name().starts_with(&q)))
}

fn next_with_tag<W: Workbench + ?Sized>(w: &W, tag: Tag, from: u64) -> SearchHit {
    let count = w.hyperstate_count();
    (1..=count)
        .map(|k| (from + k) % count.max(1))
        .find(|&h| w.row(h).is_some_and(|r| r.tag == tag))
        .map_or_else(
            || SearchHit::NotFound(format!("no {} hyperstate", tag.name())),
            |h| found(h, format!("next {} hyperstate", tag.name())),
        )
}

fn search_text<W: Workbench + ?Sized>(w: &W, q: &str, from: u64) -> SearchHit {
    let states = w.state_count();
    let start = w.details(from).map_or(0, |d| d.first_state + 1);
    for k in 0..states.min(TEXT_SEARCH_LIMIT) {
        let s = (start + k) % states;
        let Some(h) = w.hyperstate_of_state(s) else {
            continue;
        };
        if h == from {
            continue;
        }
        if w.state_text(s).is_some_and(|t| t.contains(q)) {
            return found(h, format!("state {s} shows {q:?}"));
        }
    }
    let scope = if states > TEXT_SEARCH_LIMIT {
        format!("in the {TEXT_SEARCH_LIMIT} states searched")
    } else {
        "in any other hyperstate".to_string()
    };
    SearchHit::NotFound(format!("{q:?} not found {scope}"))
}

/// A piece of the HSG around a hyperstate, for the graph view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Neighbourhood {
    /// The hyperstate it was grown from.
    pub center: u64,
    /// The radius used (`u32::MAX` for the whole graph).
    pub radius: u32,
    /// Hyperstates, closest first (`nodes[0]` is the center).
    pub nodes: Vec<u64>,
    /// Tag of each node.
    pub tags: Vec<Tag>,
    /// Critical actions between nodes, as `(source index, target index)`, deduplicated.
    pub edges: Vec<(u32, u32)>,
    /// True when `max_nodes` cut the neighbourhood short.
    pub truncated: bool,
}

/// Breadth-first growth from `center` over critical actions in both directions.
pub fn neighbourhood<W: Workbench + ?Sized>(
    w: &W,
    center: u64,
    radius: u32,
    max_nodes: usize,
) -> Neighbourhood {
    let mut index: HashMap<u64, u32> = HashMap::from([(center, 0)]);
    let mut nodes = vec![center];
    let mut queue = VecDeque::from([(center, 0u32)]);
    let mut truncated = false;
    while let Some((h, d)) = queue.pop_front() {
        if d >= radius {
            continue;
        }
        let mut visit = |x: u64| {
            if index.contains_key(&x) {
                return;
            }
            if nodes.len() >= max_nodes {
                truncated = true;
                return;
            }
            index.insert(x, nodes.len() as u32);
            nodes.push(x);
            queue.push_back((x, d + 1));
        };
        w.for_each_successor(h, &mut visit);
        w.for_each_predecessor(h, &mut visit);
    }
    let mut edges = Vec::new();
    for (i, &h) in nodes.iter().enumerate() {
        w.for_each_successor(h, &mut |s| {
            if let Some(&j) = index.get(&s) {
                edges.push((i as u32, j));
            }
        });
    }
    edges.sort_unstable();
    edges.dedup();
    let tags = nodes
        .iter()
        .map(|&h| w.row(h).map_or(Tag::Unknown, |r| r.tag))
        .collect();
    Neighbourhood {
        center,
        radius,
        nodes,
        tags,
        edges,
        truncated,
    }
}

/// Stores `values` (all at most `max`) in 32-bit words when they fit.
fn narrow(values: Vec<u64>, max: u64) -> IdVec {
    if max <= u64::from(u32::MAX) {
        IdVec::U32(values.into_iter().map(|x| x as u32).collect())
    } else {
        IdVec::U64(values.into())
    }
}
