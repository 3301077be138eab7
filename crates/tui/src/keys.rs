//! The key table: the single source of truth for what every key does. The handlers
//! look actions up here and the `?` overlay is generated from the same rows, so the
//! help can never disagree with the behaviour.

use crate::play::Input;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Where a binding applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// Everywhere (unless a screen binds the same key).
    Global,
    /// The hyperstate browser.
    Browser,
    /// The paths screen.
    Paths,
    /// The graph view.
    Graph,
    /// The bookmark list.
    Bookmarks,
    /// A text prompt (search, bookmark note).
    Prompt,
    /// Play mode.
    Play,
    /// The rules overlay (rule coverage and hangs).
    Rules,
}

impl Context {
    /// Heading of the context in the help overlay.
    pub fn title(self) -> &'static str {
        match self {
            Context::Global => "Everywhere",
            Context::Browser => "Browser",
            Context::Paths => "Paths",
            Context::Graph => "Graph",
            Context::Bookmarks => "Bookmark list",
            Context::Prompt => "Prompts",
            Context::Play => "Play mode",
            Context::Rules => "Rules (PuzzleScript)",
        }
    }

    /// Every context, in help order.
    pub const ALL: [Context; 8] = [
        Context::Global,
        Context::Browser,
        Context::Paths,
        Context::Graph,
        Context::Play,
        Context::Rules,
        Context::Bookmarks,
        Context::Prompt,
    ];
}

/// What a key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Leave the workbench.
    Quit,
    /// Show or hide the help overlay.
    Help,
    /// Next screen.
    NextScreen,
    /// Previous screen.
    PrevScreen,
    /// A screen by number (0-based).
    Screen(u8),
    /// Move up / step back / pan up.
    Up,
    /// Move down / step forward / pan down.
    Down,
    /// Previous pane / path / pan left.
    Left,
    /// Next pane / path / pan right.
    Right,
    /// A page up.
    PageUp,
    /// A page down.
    PageDown,
    /// First row.
    Top,
    /// Last row.
    Bottom,
    /// Start a search.
    Search,
    /// Repeat the last search from the selection.
    SearchNext,
    /// Follow the selected critical action (or open the selected bookmark).
    Follow,
    /// Back in history.
    Back,
    /// Forward in history.
    Forward,
    /// Go to the root.
    Root,
    /// Go to the nearest win.
    NearestWin,
    /// Go to the nearest fail.
    NearestFail,
    /// Go to where a lost hyperstate was lost (`hsg why` at the hyperstate level).
    Why,
    /// One step along the ideal path.
    IdealStep,
    /// Previous outgoing critical action.
    PrevAction,
    /// Next outgoing critical action.
    NextAction,
    /// Bookmark the selection with a note.
    Bookmark,
    /// Show the bookmark list.
    BookmarkList,
    /// Cycle the sort column.
    Sort,
    /// Reverse the sort.
    ReverseSort,
    /// Reload the run: its latest checkpoint and analysis.
    Reload,
    /// Cycle the tag filter.
    Filter,
    /// Zoom in.
    ZoomIn,
    /// Zoom out.
    ZoomOut,
    /// Centre the selection at zoom 1.
    ResetView,
    /// Larger neighbourhood.
    RadiusUp,
    /// Smaller neighbourhood.
    RadiusDown,
    /// Delete the selected bookmark.
    Delete,
    /// Show the member's board over the whole screen, or back.
    WholeBoard,
    /// Close the overlay or prompt.
    Cancel,
    /// Confirm a prompt.
    Confirm,
    /// Jump to a hyperstate or state by id.
    Goto,
    /// Open play mode on the state on show.
    Play,
    /// Play a direction or the action key (in a game without them, move the list's
    /// cursor).
    PlayInput(Input),
    /// Play move number n (1-based) of the list.
    PlayNumber(u8),
    /// Play the move under the list's cursor.
    PlaySelected,
    /// Take the last move back.
    Undo,
    /// Back to where play started.
    Restart,
    /// Leave play mode.
    LeavePlay,
    /// Show or hide rule coverage and hangs (PuzzleScript).
    Rules,
}

/// A key with its modifiers (Shift is ignored for characters: `G` is its own char).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// The key.
    pub code: KeyCode,
    /// Control or Alt, if held.
    pub mods: KeyModifiers,
}

const fn k(code: KeyCode) -> Key {
    Key {
        code,
        mods: KeyModifiers::NONE,
    }
}

const fn c(ch: char) -> Key {
    k(KeyCode::Char(ch))
}

const fn ctrl(ch: char) -> Key {
    Key {
        code: KeyCode::Char(ch),
        mods: KeyModifiers::CONTROL,
    }
}

const fn alt(code: KeyCode) -> Key {
    Key {
        code,
        mods: KeyModifiers::ALT,
    }
}

/// One row of the key table.
#[derive(Clone, Copy, Debug)]
pub struct Binding {
    /// Where it applies.
    pub context: Context,
    /// The keys, the first one shown first.
    pub keys: &'static [Key],
    /// What they do.
    pub action: Action,
    /// The help text.
    pub help: &'static str,
}

const fn b(context: Context, keys: &'static [Key], action: Action, help: &'static str) -> Binding {
    Binding {
        context,
        keys,
        action,
        help,
    }
}

use Action as A;
use Context::{
    Bookmarks as Bm, Browser as Br, Global as G, Graph as Gr, Paths as Pa, Play as Pl,
    Prompt as Pr, Rules as Ru,
};
use KeyCode as K;

const PLAY_UP: Action = A::PlayInput(Input::Up);
const PLAY_DOWN: Action = A::PlayInput(Input::Down);
const PLAY_LEFT: Action = A::PlayInput(Input::Left);
const PLAY_RIGHT: Action = A::PlayInput(Input::Right);
const PLAY_ACTION: Action = A::PlayInput(Input::Action);
/// The help of the number keys' rows, which the help overlay writes as one (`1-9`).
const NUMBERED: &str = "play move n of the list";

/// Every binding. Context rows are looked up before global rows.
pub const KEYS: &[Binding] = &[
    b(G, &[c('q'), ctrl('c')], A::Quit, "quit"),
    b(G, &[c('?')], A::Help, "this help"),
    b(G, &[k(K::Tab)], A::NextScreen, "next screen"),
    b(G, &[k(K::BackTab)], A::PrevScreen, "previous screen"),
    b(G, &[c('1')], A::Screen(0), "overview"),
    b(G, &[c('2')], A::Screen(1), "hyperstate browser"),
    b(G, &[c('3')], A::Screen(2), "paths"),
    b(G, &[c('4')], A::Screen(3), "graph"),
    b(G, &[k(K::Up), c('k')], A::Up, "move up"),
    b(G, &[k(K::Down), c('j')], A::Down, "move down"),
    b(G, &[k(K::Left), c('h')], A::Left, "move left"),
    b(G, &[k(K::Right), c('l')], A::Right, "move right"),
    b(G, &[k(K::PageUp), ctrl('u')], A::PageUp, "page up"),
    b(G, &[k(K::PageDown), ctrl('d')], A::PageDown, "page down"),
    b(G, &[c('g'), k(K::Home)], A::Top, "first"),
    b(G, &[c('G'), k(K::End)], A::Bottom, "last"),
    b(G, &[c('/')], A::Search, "search: 12 s34 win text"),
    b(G, &[c('n')], A::SearchNext, "next match"),
    b(G, &[k(K::Enter)], A::Follow, "follow the selected action"),
    b(G, &[k(K::Backspace), c('[')], A::Back, "back"),
    b(G, &[c(']'), alt(K::Right)], A::Forward, "forward"),
    b(
        G,
        &[c(','), c('<')],
        A::PrevAction,
        "previous critical action",
    ),
    b(G, &[c('.'), c('>')], A::NextAction, "next critical action"),
    b(G, &[c('r')], A::Root, "root"),
    b(G, &[c('w')], A::NearestWin, "nearest win"),
    b(G, &[c('f')], A::NearestFail, "nearest fail or i-fail"),
    b(G, &[c('i')], A::IdealStep, "next ideal-path step"),
    b(G, &[c('y')], A::Why, "why: where it was lost"),
    b(G, &[c('b')], A::Bookmark, "bookmark with a note"),
    b(G, &[c('\'')], A::BookmarkList, "bookmark list"),
    b(G, &[c('R')], A::Reload, "reload the run from disk"),
    b(G, &[k(K::Esc)], A::Cancel, "close, else back"),
    b(G, &[c(':')], A::Goto, "go to: h12, 12 or s34"),
    b(G, &[c('p')], A::Play, "play from the state shown"),
    b(G, &[c('c')], A::Rules, "rule coverage and hangs"),
    b(Br, &[k(K::Up), c('k')], A::Up, "up in the focused pane"),
    b(
        Br,
        &[k(K::Down), c('j')],
        A::Down,
        "down in the focused pane",
    ),
    b(Br, &[k(K::Left), c('h')], A::Left, "previous pane"),
    b(Br, &[k(K::Right), c('l')], A::Right, "next pane"),
    b(Br, &[c('s')], A::Sort, "sort by the next column"),
    b(Br, &[c('S')], A::ReverseSort, "reverse the sort"),
    b(Br, &[c('t')], A::Filter, "filter by the next tag"),
    b(Br, &[c('z')], A::WholeBoard, "member board full screen"),
    b(Pa, &[k(K::Up), c('k')], A::Up, "step back along the path"),
    b(Pa, &[k(K::Down), c('j')], A::Down, "step on along the path"),
    b(Pa, &[k(K::Left), c('h')], A::Left, "previous path"),
    b(Pa, &[k(K::Right), c('l')], A::Right, "next path"),
    b(Gr, &[k(K::Up), c('k')], A::Up, "pan up"),
    b(Gr, &[k(K::Down), c('j')], A::Down, "pan down"),
    b(Gr, &[k(K::Left), c('h')], A::Left, "pan left"),
    b(Gr, &[k(K::Right), c('l')], A::Right, "pan right"),
    b(Gr, &[c('+'), c('=')], A::ZoomIn, "zoom in"),
    b(Gr, &[c('-')], A::ZoomOut, "zoom out"),
    b(Gr, &[c('0')], A::ResetView, "centre the selection"),
    b(Gr, &[c('}')], A::RadiusUp, "larger neighbourhood"),
    b(Gr, &[c('{')], A::RadiusDown, "smaller neighbourhood"),
    b(
        Pl,
        &[k(K::Up), c('k'), c('w')],
        PLAY_UP,
        "play up (or list cursor)",
    ),
    b(
        Pl,
        &[k(K::Down), c('j'), c('s')],
        PLAY_DOWN,
        "play down (or list cursor)",
    ),
    b(Pl, &[k(K::Left), c('h'), c('a')], PLAY_LEFT, "play left"),
    b(Pl, &[k(K::Right), c('l'), c('d')], PLAY_RIGHT, "play right"),
    b(Pl, &[c(' '), c('x')], PLAY_ACTION, "the action key"),
    b(Pl, &[c('1')], A::PlayNumber(1), NUMBERED),
    b(Pl, &[c('2')], A::PlayNumber(2), NUMBERED),
    b(Pl, &[c('3')], A::PlayNumber(3), NUMBERED),
    b(Pl, &[c('4')], A::PlayNumber(4), NUMBERED),
    b(Pl, &[c('5')], A::PlayNumber(5), NUMBERED),
    b(Pl, &[c('6')], A::PlayNumber(6), NUMBERED),
    b(Pl, &[c('7')], A::PlayNumber(7), NUMBERED),
    b(Pl, &[c('8')], A::PlayNumber(8), NUMBERED),
    b(Pl, &[c('9')], A::PlayNumber(9), NUMBERED),
    b(
        Pl,
        &[k(K::Enter)],
        A::PlaySelected,
        "play the selected move",
    ),
    b(Pl, &[c('z')], A::Undo, "undo the last move"),
    b(Pl, &[c('r')], A::Restart, "restart"),
    b(
        Pl,
        &[k(K::Esc), c('p')],
        A::LeavePlay,
        "back to the workbench",
    ),
    b(Ru, &[k(K::Up), c('k')], A::Up, "scroll up"),
    b(Ru, &[k(K::Down), c('j')], A::Down, "scroll down"),
    b(Ru, &[k(K::Esc), c('c')], A::Cancel, "close the rules"),
    b(Bm, &[k(K::Up), c('k')], A::Up, "previous bookmark"),
    b(Bm, &[k(K::Down), c('j')], A::Down, "next bookmark"),
    b(Bm, &[k(K::Enter)], A::Follow, "go to the bookmark"),
    b(
        Bm,
        &[c('d'), k(K::Delete)],
        A::Delete,
        "delete the bookmark",
    ),
    b(
        Bm,
        &[k(K::Esc), c('\''), c('q')],
        A::Cancel,
        "close the list",
    ),
    b(Pr, &[k(K::Enter)], A::Confirm, "confirm"),
    b(Pr, &[k(K::Esc)], A::Cancel, "cancel"),
];

/// The keys the footer names in each context, as lazygit's footer does: the actions
/// (their first keys are shown, looked up in [`KEYS`]) and a word for them, most
/// useful first (what does not fit the line is left out whole).
pub const FOOTER: &[(Context, &[Action], &str)] = &[
    (G, &[A::Screen(1)], "browse"),
    (G, &[A::Search], "search"),
    (G, &[A::Goto], "go to"),
    (G, &[A::Play], "play"),
    (G, &[A::NextScreen], "screens"),
    (Br, &[A::Up, A::Down], "move"),
    (Br, &[A::Left, A::Right], "pane"),
    (Br, &[A::Follow], "follow"),
    (Br, &[A::Play], "play"),
    (Br, &[A::Sort], "sort"),
    (Br, &[A::Filter], "filter"),
    (Br, &[A::WholeBoard], "board"),
    (Br, &[A::Cancel], "back"),
    (Pa, &[A::Up, A::Down], "step"),
    (Pa, &[A::Left, A::Right], "path"),
    (Pa, &[A::Play], "play"),
    (Pa, &[A::Cancel], "back"),
    (Gr, &[A::Up, A::Down, A::Left, A::Right], "pan"),
    (Gr, &[A::ZoomIn, A::ZoomOut], "zoom"),
    (Gr, &[A::RadiusDown, A::RadiusUp], "radius"),
    (Gr, &[A::ResetView], "centre"),
    (Gr, &[A::Play], "play"),
    (Pl, &[PLAY_UP, PLAY_DOWN, PLAY_LEFT, PLAY_RIGHT], "move"),
    (Pl, &[PLAY_ACTION], "action"),
    (Pl, &[A::PlayNumber(1), A::PlayNumber(9)], "pick"),
    (Pl, &[A::Undo], "undo"),
    (Pl, &[A::Restart], "restart"),
    (Pl, &[A::LeavePlay], "back"),
    (Ru, &[A::Up, A::Down], "scroll"),
    (Ru, &[A::PageDown], "page"),
    (Ru, &[A::Cancel], "close"),
    (Bm, &[A::Follow], "go"),
    (Bm, &[A::Delete], "delete"),
    (Bm, &[A::Cancel], "close"),
    (Pr, &[A::Confirm], "confirm"),
    (Pr, &[A::Cancel], "cancel"),
];

/// The first key of `action` in `context` (or, failing that, everywhere).
pub fn first_key(action: Action, context: Context) -> Option<&'static Key> {
    let find = |ctx: Context| {
        KEYS.iter()
            .find(|b| b.context == ctx && b.action == action)
            .and_then(|b| b.keys.first())
    };
    find(context).or_else(|| find(Context::Global))
}

/// The footer's hints for `context`: the keys as written and the word for them.
pub fn footer_hints(context: Context, ascii: bool) -> Vec<(String, &'static str)> {
    FOOTER
        .iter()
        .filter(|(ctx, _, _)| *ctx == context)
        .map(|(_, actions, word)| {
            let names: Vec<String> = actions
                .iter()
                .filter_map(|&a| first_key(a, context))
                .map(|k| key_name(k, ascii))
                .collect();
            let digits = names.iter().all(|n| n.chars().all(|c| c.is_ascii_digit()));
            let sep = if digits {
                "-"
            } else if ascii {
                "/"
            } else {
                ""
            };
            (names.join(sep), *word)
        })
        .collect()
}

fn matches(key: &Key, ev: &KeyEvent) -> bool {
    let mut mods = ev.modifiers;
    if matches!(ev.code, KeyCode::Char(_) | KeyCode::BackTab) {
        // Terminals report Shift with upper-case letters and symbols; the char says it.
        mods.remove(KeyModifiers::SHIFT);
    }
    key.code == ev.code && key.mods == mods
}

/// The action of `ev` in `context`: the context's own rows first, then the global ones
/// (except in the bookmark list and prompts, which take only their own keys).
pub fn action_for(ev: &KeyEvent, context: Context) -> Option<Action> {
    let find = |ctx: Context| {
        KEYS.iter()
            .filter(|b| b.context == ctx)
            .find(|b| b.keys.iter().any(|key| matches(key, ev)))
            .map(|b| b.action)
    };
    find(context).or_else(|| match context {
        Context::Bookmarks | Context::Prompt => None,
        _ => find(Context::Global),
    })
}

/// How a key is written in the help.
pub fn key_name(key: &Key, ascii: bool) -> String {
    let base = match key.code {
        KeyCode::Char(' ') => "Space".to_string(),
        KeyCode::Char(ch) => ch.to_string(),
        KeyCode::Up => if ascii { "Up" } else { "↑" }.to_string(),
        KeyCode::Down => if ascii { "Down" } else { "↓" }.to_string(),
        KeyCode::Left => if ascii { "Left" } else { "←" }.to_string(),
        KeyCode::Right => if ascii { "Right" } else { "→" }.to_string(),
        KeyCode::PageUp => "PgUp".to_string(),
        KeyCode::PageDown => "PgDn".to_string(),
        KeyCode::BackTab => "S-Tab".to_string(),
        KeyCode::Backspace => "Bksp".to_string(),
        KeyCode::Delete => "Del".to_string(),
        other => format!("{other:?}"),
    };
    if key.mods.contains(KeyModifiers::CONTROL) {
        format!("C-{base}")
    } else if key.mods.contains(KeyModifiers::ALT) {
        format!("M-{base}")
    } else {
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn screen_rows_shadow_global_rows_and_shift_is_ignored_for_chars() {
        let j = ev(KeyCode::Char('j'), KeyModifiers::NONE);
        assert_eq!(action_for(&j, Context::Graph), Some(Action::Down));
        let big_g = ev(KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(action_for(&big_g, Context::Browser), Some(Action::Bottom));
        let q = ev(KeyCode::Char('q'), KeyModifiers::NONE);
        assert_eq!(action_for(&q, Context::Bookmarks), Some(Action::Cancel));
        assert_eq!(action_for(&q, Context::Prompt), None);
        let ctrl_c = ev(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action_for(&ctrl_c, Context::Paths), Some(Action::Quit));
    }

    #[test]
    fn help_rows_fit_a_help_column() {
        for b in KEYS {
            let keys: Vec<String> = b.keys.iter().map(|k| key_name(k, true)).collect();
            assert!(keys.join(" ").len() <= 9, "{:?}", b.keys);
            assert!(b.help.chars().count() <= 26, "{:?} is too long", b.help);
        }
    }

    #[test]
    fn every_footer_hint_names_a_bound_key() {
        for (ctx, actions, word) in FOOTER {
            for &a in *actions {
                assert!(
                    first_key(a, *ctx).is_some(),
                    "{word}: {a:?} unbound in {ctx:?}"
                );
            }
        }
        let play = footer_hints(Context::Play, false);
        assert_eq!(play[0], ("↑↓←→".to_string(), "move"));
        assert_eq!(play[2], ("1-9".to_string(), "pick"));
        let ascii = footer_hints(Context::Browser, true);
        assert_eq!(ascii[0], ("Up/Down".to_string(), "move"));
    }

    #[test]
    fn no_key_is_bound_twice_in_one_context() {
        for ctx in Context::ALL {
            let keys: Vec<&Key> = KEYS
                .iter()
                .filter(|b| b.context == ctx)
                .flat_map(|b| b.keys.iter())
                .collect();
            for (i, a) in keys.iter().enumerate() {
                assert!(!keys[i + 1..].contains(a), "{a:?} bound twice in {ctx:?}");
            }
        }
    }
}
