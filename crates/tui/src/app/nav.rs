//! Moving the selection: jumps with history, the focus snapshot of the selected
//! hyperstate, and keeping each screen's data in step with the selection.

use super::jobs::draws_whole_graph;
use super::{App, Focus, Job, Screen, ACTION_LIMIT};
use crate::data::SearchHit;

impl App {
    /// Jumps to `h`, remembering the current selection for [`App::go_back`].
    pub fn go(&mut self, h: u64) {
        if h == self.selected {
            return;
        }
        self.back.push(self.selected);
        self.forward.clear();
        self.select(h);
        self.reanchor();
    }

    /// Goes back in history.
    pub fn go_back(&mut self) {
        match self.back.pop() {
            Some(h) => {
                self.forward.push(self.selected);
                self.select(h);
                self.reanchor();
            }
            None => self.status = "no earlier hyperstate in the history".into(),
        }
    }

    /// Goes forward in history.
    pub fn go_forward(&mut self) {
        match self.forward.pop() {
            Some(h) => {
                self.back.push(self.selected);
                self.select(h);
                self.reanchor();
            }
            None => self.status = "no later hyperstate in the history".into(),
        }
    }

    /// Makes `h` the selection without touching history: reads its focus data (cheap:
    /// one hyperstate's lists and one member) and moves the table cursor to it.
    pub(super) fn select(&mut self, h: u64) {
        let Some(bench) = self.bench.clone() else {
            return;
        };
        self.selected = h;
        self.out_cursor = 0;
        self.in_cursor = 0;
        self.member_index = 0;
        self.focus = Some(Focus {
            h,
            details: bench.details(h),
            out: bench.critical_out(h, ACTION_LIMIT),
            inc: bench.critical_in(h, ACTION_LIMIT),
            member: bench.member(h, 0),
        });
        self.sync_table_cursor();
        if !draws_whole_graph(bench.as_ref()) && self.screen == Screen::Graph {
            self.request_graph();
        }
    }

    /// Shows member `index` of the selection.
    pub(crate) fn show_member(&mut self, index: u64) {
        let (Some(bench), Some(focus)) = (self.bench.clone(), self.focus.as_mut()) else {
            return;
        };
        let size = focus.details.as_ref().map_or(0, |d| d.row.size);
        let index = index.min(size.saturating_sub(1));
        self.member_index = index;
        focus.member = bench.member(focus.h, index);
    }

    /// Puts the table cursor on the selection when the table shows it.
    pub(super) fn sync_table_cursor(&mut self) {
        if let Some(row) = self.table.order.position(self.selected) {
            self.table.cursor = row;
        }
    }

    /// A new table order arrived: when the selection is not among its rows (a tag
    /// filter left it out) the first row becomes the selection, so the table never
    /// shows blank rows nor the details of a hyperstate it does not list.
    pub(super) fn on_order(&mut self) {
        let len = self.table.order.len();
        if self.table.order.position(self.selected).is_some() || len == 0 {
            self.table.cursor = self.table.cursor.min(len.saturating_sub(1));
            self.sync_table_cursor();
            if len == 0 {
                self.status = "no hyperstate has this tag: t shows the next one".into();
            }
            return;
        }
        self.table.cursor = 0;
        if let Some(h) = self.table.order.at(0) {
            self.select(h);
        }
    }

    /// A jump moves the paths' anchor to the new selection.
    fn reanchor(&mut self) {
        self.paths.anchor = None;
        self.paths.ready = false;
        if self.screen == Screen::Paths {
            self.request_paths();
        }
    }

    /// Asks for whatever the current screen needs and does not have.
    pub(super) fn request_screen_data(&mut self) {
        match self.screen {
            Screen::Paths if self.paths.anchor.is_none() => self.request_paths(),
            Screen::Graph => self.request_graph(),
            _ => {}
        }
    }

    fn request_paths(&mut self) {
        self.gens.paths += 1;
        self.paths.anchor = Some(self.selected);
        self.paths.ready = false;
        self.queue(Job::Paths {
            gen: self.gens.paths,
            anchor: self.selected,
        });
    }

    /// Asks for the graph data of the selection unless it is on show or coming.
    pub(super) fn request_graph(&mut self) {
        let Some(bench) = &self.bench else {
            return;
        };
        let center = if draws_whole_graph(bench.as_ref()) {
            bench.root()
        } else {
            self.selected
        };
        let wanted = (center, self.graph.radius);
        if self.graph.wanted == Some(wanted) {
            return;
        }
        self.graph.wanted = Some(wanted);
        self.graph.pan = (0.0, 0.0);
        self.gens.graph += 1;
        self.queue(Job::Graph {
            gen: self.gens.graph,
            center,
            radius: self.graph.radius,
        });
    }

    pub(super) fn request_order(&mut self) {
        self.gens.order += 1;
        self.queue(Job::Order {
            gen: self.gens.order,
            sort: self.table.sort,
            descending: self.table.descending,
            filter: self.table.filter,
        });
    }

    pub(super) fn request_search(&mut self, query: String) {
        self.gens.search += 1;
        self.status = format!("searching for {query:?}");
        self.last_search = Some(query.clone());
        self.queue(Job::Search {
            gen: self.gens.search,
            query,
            from: self.selected,
        });
    }

    pub(super) fn on_paths(&mut self, anchor: u64, lists: [Vec<u64>; 3]) {
        let cursor = [
            lists[0].len().saturating_sub(1),
            0,
            lists[2].iter().position(|&h| h == anchor).unwrap_or(0),
        ];
        self.paths.lists = lists;
        self.paths.cursor = cursor;
        self.paths.ready = true;
    }

    pub(super) fn on_search(&mut self, hit: SearchHit) {
        match hit {
            SearchHit::Found { hyperstate, note } => {
                self.status = note;
                self.go(hyperstate);
            }
            SearchHit::NotFound(why) => self.status = why,
        }
    }
}
