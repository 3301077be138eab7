//! The mouse: the wheel scrolls the list under the pointer (the browser's panes, the
//! bookmark list, the help's pages, play mode's moves) and a click picks a screen tab,
//! a browser pane, or a row of the hyperstate table or of a critical-action list.

use super::{App, Overlay, Pane, Screen};
use crate::keys::Action;
use crate::ui;
use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

impl App {
    /// Applies one mouse event.
    pub(super) fn on_mouse(&mut self, m: MouseEvent) {
        if self.bench.is_none() || matches!(self.overlay, Overlay::Prompt(..)) {
            return;
        }
        let at = Position::new(m.column, m.row);
        match m.kind {
            MouseEventKind::ScrollUp => self.scroll(at, false),
            MouseEventKind::ScrollDown => self.scroll(at, true),
            MouseEventKind::Down(MouseButton::Left) => self.click(at),
            _ => {}
        }
    }

    /// The screens' area: between the header and the footer lines, below the banner
    /// of a stale analysis (as `ui::draw` lays them out).
    fn body(&self) -> Rect {
        let banner = ui::banner_lines(self, self.size.0).len();
        let banner = u16::try_from(banner).unwrap_or(u16::MAX);
        let height = self.size.1.saturating_sub(2);
        let banner = banner.min(height);
        Rect::new(0, 1 + banner, self.size.0, height - banner)
    }

    fn scroll(&mut self, at: Position, down: bool) {
        let action = if down { Action::Down } else { Action::Up };
        match self.overlay {
            Overlay::Help(page) => {
                let page = if down {
                    page + 1
                } else {
                    page.saturating_sub(1)
                };
                self.overlay = Overlay::Help(page);
            }
            Overlay::Bookmarks(_) => self.apply(action),
            _ if self.play.is_some() => {
                if let Some(play) = self.play.as_mut() {
                    let last = play.here.member.moves.len().saturating_sub(1);
                    play.cursor = if down {
                        (play.cursor + 1).min(last)
                    } else {
                        play.cursor.saturating_sub(1)
                    };
                }
            }
            _ => {
                if self.screen == Screen::Browser {
                    if let Some(pane) = self.pane_at(at) {
                        self.pane = pane;
                    }
                }
                self.apply(action);
            }
        }
    }

    fn click(&mut self, at: Position) {
        if at.y == 0 {
            if let Some(i) = ui::tab_at(at.x) {
                self.overlay = Overlay::None;
                self.apply(Action::Screen(i));
            }
            return;
        }
        if self.overlay != Overlay::None || self.play.is_some() || self.screen != Screen::Browser {
            return;
        }
        let Some(pane) = self.pane_at(at) else { return };
        self.pane = pane;
        let t = ui::theme::Theme::new(self.view);
        let [table, _, _, out, inc] = ui::browser::areas(self.body(), self, &t);
        match pane {
            Pane::Table => {
                // Border and header line above the first row.
                let visible = table.height.saturating_sub(3);
                let Some(row) = at.y.checked_sub(table.y + 2).filter(|&r| r < visible) else {
                    return;
                };
                let cursor = self.table.cursor as usize;
                let first = ui::page_start(cursor, usize::from(visible)) as u64;
                let target = first + u64::from(row);
                if target < self.table.order.len() {
                    self.table.cursor = target;
                    if let Some(h) = self.table.order.at(target) {
                        self.select(h);
                    }
                }
            }
            Pane::Out => self.out_cursor = list_row(out, at, self.out_cursor, self.out_len()),
            Pane::In => self.in_cursor = list_row(inc, at, self.in_cursor, self.in_len()),
            Pane::Members => {}
        }
    }

    /// The browser pane under `at`, if any (the details pane is not one).
    fn pane_at(&self, at: Position) -> Option<Pane> {
        let t = ui::theme::Theme::new(self.view);
        let [table, member, _, out, inc] = ui::browser::areas(self.body(), self, &t);
        [
            (table, Pane::Table),
            (member, Pane::Members),
            (out, Pane::Out),
            (inc, Pane::In),
        ]
        .into_iter()
        .find(|(r, _)| r.contains(at))
        .map(|(_, p)| p)
    }

    fn out_len(&self) -> usize {
        self.focus.as_ref().map_or(0, |f| f.out.items.len())
    }

    fn in_len(&self) -> usize {
        self.focus.as_ref().map_or(0, |f| f.inc.items.len())
    }
}

/// The item of a bordered list in `area` that `at` points at, the list showing the
/// page of `cursor` among `len` items; `cursor` itself when `at` is on no item.
fn list_row(area: Rect, at: Position, cursor: usize, len: usize) -> usize {
    let rows = area.height.saturating_sub(2);
    match at.y.checked_sub(area.y + 1).filter(|&r| r < rows) {
        Some(row) => {
            let i = ui::page_start(cursor, usize::from(rows)) + usize::from(row);
            if i < len {
                i
            } else {
                cursor
            }
        }
        None => cursor,
    }
}

#[cfg(test)]
mod tests {
    use crate::app::{Event, Pane, Screen};
    use crate::test_support::{fixture_app, press, UNICODE};
    use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

    fn mouse(kind: MouseEventKind, column: u16, row: u16) -> Event {
        Event::Mouse(MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })
    }

    fn click(column: u16, row: u16) -> Event {
        mouse(MouseEventKind::Down(MouseButton::Left), column, row)
    }

    #[test]
    fn a_click_on_a_tab_opens_its_screen() {
        let mut app = fixture_app(UNICODE, (80, 24), None);
        // " 1 Overview  2 Browser  3 Paths  4 Graph": "Paths" starts at column 25.
        app.on_event(click(27, 0));
        assert_eq!(app.screen, Screen::Paths);
        app.on_event(click(14, 0));
        assert_eq!(app.screen, Screen::Browser);
        app.on_event(click(79, 0));
        assert_eq!(app.screen, Screen::Browser, "past the tabs nothing happens");
    }

    #[test]
    fn a_click_on_a_table_row_selects_it_and_the_wheel_scrolls_the_pane_under_it() {
        let mut app = fixture_app(UNICODE, (80, 24), None);
        press(&mut app, "2g");
        // The table's third row: body from line 1, border, header line, rows.
        app.on_event(click(5, 1 + 2 + 2));
        assert_eq!(app.table.cursor, 2);
        assert_eq!(Some(app.selected), app.table.order.at(2));
        app.on_event(mouse(MouseEventKind::ScrollDown, 5, 4));
        assert_eq!(app.table.cursor, 3);
        // The wheel over the out list focuses it and moves its cursor.
        let t = crate::ui::theme::Theme::new(app.view);
        let [_, _, _, out, _] = crate::ui::browser::areas(app.body(), &app, &t);
        app.on_event(mouse(MouseEventKind::ScrollDown, out.x + 2, out.y + 1));
        assert_eq!(app.pane, Pane::Out);
        assert_eq!(app.out_cursor, 1.min(app.out_len().saturating_sub(1)));
        app.on_event(click(out.x + 2, out.y + 1));
        assert_eq!(app.out_cursor, 0);
    }

    #[test]
    fn clicks_allow_for_the_banner_of_a_stale_analysis() {
        let mut app = fixture_app(UNICODE, (80, 24), None);
        press(&mut app, "2g");
        let note = crate::data::StaleNote {
            full: "the analysis is older than the run".into(),
            short: "stale analysis: a one-line banner".into(),
        };
        app.overview.as_mut().unwrap().stale_note = Some(note);
        // One banner line pushes the table's third row down a line.
        app.on_event(click(5, 1 + 1 + 2 + 2));
        assert_eq!(app.table.cursor, 2);
    }

    #[test]
    fn the_wheel_moves_play_mode_s_cursor() {
        let mut app = fixture_app(UNICODE, (80, 24), None);
        press(&mut app, "p");
        app.on_event(mouse(MouseEventKind::ScrollDown, 70, 12));
        assert_eq!(app.play.as_ref().unwrap().cursor, 1);
        app.on_event(mouse(MouseEventKind::ScrollUp, 70, 12));
        assert_eq!(app.play.as_ref().unwrap().cursor, 0);
    }
}
