//! What each [`Action`] of the key table does to the application state.

use super::{App, Overlay, Pane, PromptKind, Screen};
use crate::data::Tag;
use crate::keys::Action;
use crate::ui;

/// Zoom factor per key press.
const ZOOM_STEP: f32 = 1.25;
/// Pan per key press, in fractions of the view.
const PAN_STEP: f32 = 0.1;

impl App {
    /// Carries out `action` (the data is loaded).
    pub fn apply(&mut self, action: Action) {
        match &self.overlay {
            Overlay::Prompt(..) => return self.apply_prompt(action),
            Overlay::Bookmarks(_) => return self.apply_bookmarks(action),
            Overlay::Rules(_) => return self.apply_rules(action),
            _ if self.play.is_some() => return self.apply_play(action),
            _ => {}
        }
        match action {
            Action::Quit => self.quit = true,
            Action::Help => self.overlay = Overlay::Help(0),
            Action::Cancel => self.cancel(),
            Action::Goto => self.overlay = Overlay::Prompt(PromptKind::Goto, String::new()),
            Action::WholeBoard if self.overlay == Overlay::Board => self.overlay = Overlay::None,
            Action::WholeBoard => self.overlay = Overlay::Board,
            Action::NextScreen => self.show_screen((self.screen.index() + 1) % 4),
            Action::PrevScreen => self.show_screen((self.screen.index() + 3) % 4),
            Action::Screen(i) => self.show_screen(usize::from(i)),
            Action::Search => self.overlay = Overlay::Prompt(PromptKind::Search, String::new()),
            Action::SearchNext => match self.last_search.clone() {
                Some(q) => self.request_search(q),
                None => self.status = "no search yet: press / first".into(),
            },
            Action::Follow => self.follow(),
            Action::Back => self.go_back(),
            Action::Forward => self.go_forward(),
            Action::Root => self.go_root(),
            Action::NearestWin => self.go_nearest(true),
            Action::NearestFail => self.go_nearest(false),
            Action::Why => self.go_why(),
            Action::IdealStep => self.ideal_step(),
            Action::PrevAction => self.move_out_cursor(-1),
            Action::NextAction => self.move_out_cursor(1),
            Action::Bookmark => match self.bookmarks.refusal() {
                Some(why) => self.status = format!("not bookmarked: {why}"),
                None => self.overlay = Overlay::Prompt(PromptKind::Note, String::new()),
            },
            Action::BookmarkList => self.overlay = Overlay::Bookmarks(0),
            Action::Rules => self.open_rules(),
            Action::Play => self.open_play(),
            Action::Reload => self.reload(),
            _ => match self.screen {
                Screen::Browser => self.apply_browser(action),
                Screen::Paths => self.apply_paths(action),
                Screen::Graph => self.apply_graph(action),
                Screen::Overview => {
                    self.status = "nothing to move here: 2 browses the hyperstates".into()
                }
            },
        }
    }

    /// The terminal's size less the rows of the banner over the screens.
    fn body_size(&self) -> (u16, u16) {
        let banner = ui::banner_lines(self, self.size.0).len();
        let banner = u16::try_from(banner).unwrap_or(u16::MAX);
        (self.size.0, self.size.1.saturating_sub(banner))
    }

    /// Esc: closes what is open, else steps back (the browser's focus to the table,
    /// then back in history), as lazygit's Esc does.
    fn cancel(&mut self) {
        if self.overlay != Overlay::None {
            self.overlay = Overlay::None;
        } else if self.screen == Screen::Browser && self.pane != Pane::Table {
            self.pane = Pane::Table;
        } else {
            self.go_back();
        }
    }

    fn show_screen(&mut self, i: usize) {
        self.screen = Screen::ALL[i % Screen::ALL.len()];
        // A message about the screen left behind would be read as one about this one.
        self.status.clear();
        if self.overlay == Overlay::Board {
            self.overlay = Overlay::None;
        }
        self.request_screen_data();
    }

    fn follow(&mut self) {
        let Some(focus) = &self.focus else { return };
        let target = if self.pane == Pane::In && self.screen == Screen::Browser {
            focus.inc.items.get(self.in_cursor).map(|a| a.other)
        } else {
            focus.out.items.get(self.out_cursor).map(|a| a.other)
        };
        match target {
            Some(h) => self.go(h),
            None => self.status = "no critical action to follow here".into(),
        }
    }

    fn go_root(&mut self) {
        if let Some(root) = self.bench.as_ref().map(|b| b.root()) {
            self.go(root);
        }
    }

    fn go_nearest(&mut self, win: bool) {
        let Some(bench) = self.bench.clone() else {
            return;
        };
        let path = if win {
            bench.path_to_win(self.selected)
        } else {
            bench.path_to_loss(self.selected)
        };
        // Loss distance counts implicitly failed hyperstates as losses ("functionally
        // the same as fail hyperstates"), so `f` stops at whichever is nearer.
        let what = if win { "win" } else { "loss" };
        match path.last() {
            Some(&h) if h == self.selected => {
                self.status = format!("this hyperstate is already a {what}")
            }
            Some(&h) => {
                let away = (path.len() - 1) as u64;
                let away = ui::browser::plural(away, "critical action", "critical actions");
                let tag = bench.row(h).map_or("", |r| ui::theme::tag_long(r.tag));
                self.status = format!("nearest {what}: {tag}, {away} away");
                self.go(h);
            }
            None => self.status = format!("no {what} is reachable from here"),
        }
    }

    /// For a lost hyperstate: the first critical action on the shortest HSG path from
    /// the root into a lost hyperstate (after it no win is reachable); selects the
    /// hyperstate it was played in, so its critical actions are listed.
    fn go_why(&mut self) {
        let Some(bench) = self.bench.clone() else {
            return;
        };
        let tag_of = |h: u64| bench.row(h).map(|r| r.tag);
        let lost = |h: u64| tag_of(h).is_some_and(|t| t.is_lost());
        if !lost(self.selected) {
            self.status =
                "why: this hyperstate can still win (or is unknown); `y` explains lost ones".into();
            return;
        }
        let path = bench.path_from_root(self.selected);
        match path.iter().position(|&h| lost(h)) {
            None => self.status = "why: the root does not reach this hyperstate".into(),
            Some(0) => self.status = "why: the root itself cannot win".into(),
            Some(k) => {
                let (from, to) = (path[k - 1], path[k]);
                self.status = format!(
                    "why: lost by critical action {k} of {} from the root, hyperstate {from} -> {to}; selected {from} (`hsg why` draws the boards)",
                    path.len() - 1
                );
                self.go(from);
            }
        }
    }

    fn ideal_step(&mut self) {
        let Some(bench) = self.bench.clone() else {
            return;
        };
        let ideal = bench.ideal_path();
        match ideal.iter().position(|&h| h == self.selected) {
            Some(k) if k + 1 < ideal.len() => {
                self.status = format!("ideal path step {} of {}", k + 1, ideal.len() - 1);
                self.go(ideal[k + 1]);
            }
            Some(_) => self.status = "end of the ideal path".into(),
            None => match ideal.first() {
                Some(&start) => {
                    self.status = "not on the ideal path: went to its start".into();
                    self.go(start);
                }
                None => self.status = "there is no ideal path".into(),
            },
        }
    }

    fn move_out_cursor(&mut self, delta: i64) {
        let n = self.focus.as_ref().map_or(0, |f| f.out.items.len());
        self.out_cursor = step(self.out_cursor, delta, n);
    }

    fn apply_prompt(&mut self, action: Action) {
        let Overlay::Prompt(kind, text) = std::mem::replace(&mut self.overlay, Overlay::None)
        else {
            return;
        };
        if action != Action::Confirm {
            return;
        }
        match kind {
            PromptKind::Search => self.request_search(text),
            PromptKind::Note => self.add_bookmark(text),
            PromptKind::Goto => self.goto(&text),
        }
    }

    fn add_bookmark(&mut self, note: String) {
        let Some(state) = self
            .focus
            .as_ref()
            .and_then(|f| f.details.as_ref())
            .map(|d| d.first_state)
        else {
            return;
        };
        let h = self.selected;
        self.status = match self.bookmarks.add(state, note) {
            Ok(()) => format!("bookmarked hyperstate {h} (state {state})"),
            Err(e) => format!("bookmark not saved: {e}"),
        };
    }

    fn apply_rules(&mut self, action: Action) {
        let Overlay::Rules(top) = self.overlay else {
            return;
        };
        let lines = ui::overlays::rules_line_count(self);
        let page = usize::from(self.body_size().1.saturating_sub(6)).max(1);
        let last = lines.saturating_sub(page);
        let to = match action {
            Action::Up => top.saturating_sub(1),
            Action::Down => (top + 1).min(last),
            Action::PageUp => top.saturating_sub(page),
            Action::PageDown => (top + page).min(last),
            Action::Top => 0,
            Action::Bottom => last,
            Action::Cancel | Action::Rules => {
                self.overlay = Overlay::None;
                return;
            }
            Action::Quit => {
                self.quit = true;
                return;
            }
            Action::Help => {
                self.overlay = Overlay::Help(0);
                return;
            }
            _ => return,
        };
        self.overlay = Overlay::Rules(to);
    }

    fn apply_bookmarks(&mut self, action: Action) {
        let Overlay::Bookmarks(cursor) = self.overlay else {
            return;
        };
        let n = self.bookmarks.items().len();
        match action {
            Action::Up => self.overlay = Overlay::Bookmarks(step(cursor, -1, n)),
            Action::Down => self.overlay = Overlay::Bookmarks(step(cursor, 1, n)),
            Action::Cancel => self.cancel(),
            Action::Goto => self.overlay = Overlay::Prompt(PromptKind::Goto, String::new()),
            Action::Delete => {
                if let Err(e) = self.bookmarks.remove(cursor) {
                    self.status = format!("bookmark list not saved: {e}");
                }
                let n = self.bookmarks.items().len();
                self.overlay = Overlay::Bookmarks(cursor.min(n.saturating_sub(1)));
            }
            Action::Follow => {
                let state = self.bookmarks.items().get(cursor).map(|b| b.state);
                let h = state.and_then(|s| self.bench.as_ref()?.hyperstate_of_state(s));
                self.overlay = Overlay::None;
                match h {
                    Some(h) => self.go(h),
                    None => self.status = "the bookmarked state is not in this analysis".into(),
                }
            }
            _ => {}
        }
    }

    fn apply_browser(&mut self, action: Action) {
        let page = i64::from(
            ui::browser::table_rows(self.body_size(), ui::browser::board_rows(self)).max(1),
        );
        match (action, self.pane) {
            (Action::Left, p) => self.pane = p.step(false),
            (Action::Right, p) => self.pane = p.step(true),
            (Action::Sort, _) => {
                self.table.sort = self.table.sort.next();
                self.table.descending = false;
                self.request_order();
            }
            (Action::ReverseSort, _) => {
                self.table.descending = !self.table.descending;
                self.request_order();
            }
            (Action::Filter, _) => {
                self.table.filter = next_filter(self.table.filter);
                self.request_order();
            }
            (a, Pane::Table) => self.move_table(a, page),
            (a, Pane::Out) => {
                let n = self.focus.as_ref().map_or(0, |f| f.out.items.len());
                self.out_cursor = move_in_list(self.out_cursor, a, n, page);
            }
            (a, Pane::In) => {
                let n = self.focus.as_ref().map_or(0, |f| f.inc.items.len());
                self.in_cursor = move_in_list(self.in_cursor, a, n, page);
            }
            (a, Pane::Members) => {
                let size = self
                    .focus
                    .as_ref()
                    .and_then(|f| f.details.as_ref())
                    .map_or(0, |d| d.row.size);
                let n = usize::try_from(size).unwrap_or(usize::MAX);
                let index = usize::try_from(self.member_index).unwrap_or(0);
                self.show_member(move_in_list(index, a, n, 10) as u64);
            }
        }
    }

    fn move_table(&mut self, action: Action, page: i64) {
        let len = self.table.order.len();
        if len == 0 {
            return;
        }
        let cursor = self.table.cursor as i64;
        let target = match action {
            Action::Up => cursor - 1,
            Action::Down => cursor + 1,
            Action::PageUp => cursor - page,
            Action::PageDown => cursor + page,
            Action::Top => 0,
            Action::Bottom => len as i64 - 1,
            _ => return,
        };
        let row = target.clamp(0, len as i64 - 1) as u64;
        self.table.cursor = row;
        if let Some(h) = self.table.order.at(row) {
            self.select(h);
        }
    }

    fn apply_paths(&mut self, action: Action) {
        let p = &mut self.paths;
        let which = p.which;
        let n = p.lists[which].len();
        match action {
            Action::Left => p.which = (which + 2) % 3,
            Action::Right => p.which = (which + 1) % 3,
            a => {
                p.cursor[which] = move_in_list(p.cursor[which], a, n, 10);
                if let Some(&h) = p.lists[which].get(p.cursor[which]) {
                    // Stepping along a path moves the selection but keeps the anchor.
                    self.select(h);
                }
            }
        }
    }

    fn apply_graph(&mut self, action: Action) {
        let g = &mut self.graph;
        let pan = PAN_STEP / g.zoom;
        match action {
            Action::Up => g.pan.1 -= pan,
            Action::Down => g.pan.1 += pan,
            Action::Left => g.pan.0 -= pan,
            Action::Right => g.pan.0 += pan,
            Action::ZoomIn => g.zoom = (g.zoom * ZOOM_STEP).min(64.0),
            Action::ZoomOut => g.zoom = (g.zoom / ZOOM_STEP).max(0.25),
            Action::ResetView => {
                g.zoom = 1.0;
                g.pan = (0.0, 0.0);
            }
            Action::RadiusUp | Action::RadiusDown
                if self
                    .bench
                    .as_ref()
                    .is_some_and(|b| super::jobs::draws_whole_graph(b.as_ref())) =>
            {
                self.status = format!(
                    "whole graph drawn: the radius counts past {} hyperstates",
                    super::jobs::WHOLE_GRAPH_MAX
                );
            }
            Action::RadiusUp | Action::RadiusDown => {
                let up = action == Action::RadiusUp;
                g.radius = if up { g.radius + 1 } else { g.radius - 1 }.clamp(1, 30);
                self.status = format!("neighbourhood radius {}", self.graph.radius);
                self.request_graph();
            }
            _ => {}
        }
    }
}

/// `i` moved by `delta` within `0..n`.
fn step(i: usize, delta: i64, n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    (i as i64 + delta).clamp(0, n as i64 - 1) as usize
}

/// A list cursor moved by a movement action.
fn move_in_list(i: usize, action: Action, n: usize, page: i64) -> usize {
    match action {
        Action::Up => step(i, -1, n),
        Action::Down => step(i, 1, n),
        Action::PageUp => step(i, -page, n),
        Action::PageDown => step(i, page, n),
        Action::Top => 0,
        Action::Bottom => n.saturating_sub(1),
        _ => i,
    }
}

/// The filter after `f`: none, then every tag in turn.
fn next_filter(f: Option<Tag>) -> Option<Tag> {
    match f {
        None => Some(Tag::ALL[0]),
        Some(t) => Tag::ALL
            .iter()
            .position(|&x| x == t)
            .and_then(|i| Tag::ALL.get(i + 1).copied()),
    }
}
