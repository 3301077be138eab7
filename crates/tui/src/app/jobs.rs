//! Slow work as plain values: a [`Job`] says what to compute, [`execute`] computes it
//! against a workbench (on a worker thread in the event loop, inline in tests), and the
//! [`Done`] result goes back to the application as an event.

use crate::data::{Neighbourhood, Order, SearchHit, SortKey, Tag, WinSearch, Workbench};
use crate::spring_layout::{spring_layout, Layout};
use crate::spring_layout_cache;

/// Graphs with at most this many hyperstates are drawn whole.
pub const WHOLE_GRAPH_MAX: u64 = 400;
/// Most nodes of a neighbourhood drawn in the graph view.
pub const NEIGHBOURHOOD_MAX: usize = 400;

/// Work for a worker thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Job {
    /// Sort and filter the table.
    Order {
        /// Generation.
        gen: u64,
        /// Sort column.
        sort: SortKey,
        /// Descending.
        descending: bool,
        /// Tag filter.
        filter: Option<Tag>,
    },
    /// The three paths of the paths screen.
    Paths {
        /// Generation.
        gen: u64,
        /// The hyperstate they start or end at.
        anchor: u64,
    },
    /// A search.
    Search {
        /// Generation.
        gen: u64,
        /// The query.
        query: String,
        /// Search after this hyperstate.
        from: u64,
    },
    /// The nodes and layout of the graph view.
    Graph {
        /// Generation.
        gen: u64,
        /// Hyperstate to grow the neighbourhood from.
        center: u64,
        /// Radius in critical actions.
        radius: u32,
    },
    /// Play mode's nearest win from a state.
    PlayWin {
        /// Generation.
        gen: u64,
        /// The state played.
        state: u64,
    },
    /// Rule coverage and hangs.
    Rules {
        /// Generation.
        gen: u64,
    },
}

/// The nodes of the graph view and where they are drawn.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GraphData {
    /// The nodes and edges.
    pub hood: Neighbourhood,
    /// Their positions.
    pub layout: Layout,
    /// True when the layout came from the cache.
    pub cached: bool,
}

/// A finished job.
#[derive(Clone, Debug, PartialEq)]
pub enum Done {
    /// The table order.
    Order {
        /// Generation.
        gen: u64,
        /// The order.
        order: Order,
    },
    /// The paths.
    Paths {
        /// Generation.
        gen: u64,
        /// Their anchor.
        anchor: u64,
        /// Root to anchor, anchor to win, ideal path.
        lists: [Vec<u64>; 3],
    },
    /// A search result.
    Search {
        /// Generation.
        gen: u64,
        /// What was found.
        hit: SearchHit,
    },
    /// The graph view's data.
    Graph {
        /// Generation.
        gen: u64,
        /// Nodes and layout.
        data: GraphData,
    },
    /// Play mode's nearest win.
    PlayWin {
        /// Generation.
        gen: u64,
        /// The state it was searched from.
        state: u64,
        /// What the search found.
        found: WinSearch,
    },
    /// Rule coverage and hangs (`None`: not a PuzzleScript run).
    Rules {
        /// Generation.
        gen: u64,
        /// The report, or why there is none.
        report: Option<Result<crate::data::rules::RuleReport, String>>,
    },
}

/// Runs `job` against `bench`.
pub fn execute(bench: &dyn Workbench, job: Job) -> Done {
    match job {
        Job::Order {
            gen,
            sort,
            descending,
            filter,
        } => Done::Order {
            gen,
            order: bench.order(sort, descending, filter),
        },
        Job::Paths { gen, anchor } => Done::Paths {
            gen,
            anchor,
            lists: [
                bench.path_from_root(anchor),
                bench.path_to_win(anchor),
                bench.ideal_path(),
            ],
        },
        Job::Search { gen, query, from } => Done::Search {
            gen,
            hit: bench.search(&query, from),
        },
        Job::Graph {
            gen,
            center,
            radius,
        } => Done::Graph {
            gen,
            data: graph_data(bench, center, radius),
        },
        Job::PlayWin { gen, state } => Done::PlayWin {
            gen,
            state,
            found: bench.actions_to_win(state, crate::play::WIN_SEARCH_BUDGET),
        },
        Job::Rules { gen } => Done::Rules {
            gen,
            report: bench.rule_report(),
        },
    }
}

/// True when the whole HSG is drawn rather than a neighbourhood.
pub fn draws_whole_graph(bench: &dyn Workbench) -> bool {
    bench.hyperstate_count() <= WHOLE_GRAPH_MAX
}

/// The nodes of the graph view around `center` (the whole graph, grown from the root,
/// when it is small) with their layout, from the cache when possible.
pub fn graph_data(bench: &dyn Workbench, center: u64, radius: u32) -> GraphData {
    let hood = if draws_whole_graph(bench) {
        bench.neighbourhood(bench.root(), u32::MAX, WHOLE_GRAPH_MAX as usize)
    } else {
        bench.neighbourhood(center, radius, NEIGHBOURHOOD_MAX)
    };
    laid_out(bench, hood)
}

/// `hood` with its layout: from the run's cache when it holds this neighbourhood, else
/// computed (and cached for the next time).
pub fn laid_out(bench: &dyn Workbench, hood: Neighbourhood) -> GraphData {
    if let Some(layout) = bench
        .run_dir()
        .and_then(|d| spring_layout_cache::load(d, &hood))
    {
        return GraphData {
            hood,
            layout,
            cached: true,
        };
    }
    let layout = spring_layout(hood.nodes.len(), &hood.edges);
    if let Some(dir) = bench.run_dir() {
        spring_layout_cache::store(dir, &hood, &layout);
    }
    GraphData {
        hood,
        layout,
        cached: false,
    }
}
