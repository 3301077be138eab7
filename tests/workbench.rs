//! The terminal workbench end to end: the real `hsg tui` and `hsg open` inside tmux,
//! driven with send-keys and read back with capture-pane.

use crate::util::{explore, level, path_arg};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long any one screen may take to appear before the test gives up.
const PATIENCE: Duration = Duration::from_secs(20);

/// Makes socket and exit file names unique within one scratch folder.
static SESSIONS: AtomicUsize = AtomicUsize::new(0);

/// A tmux server on a private socket running one command in an 80x24 window; the
/// server is killed when this is dropped, so a failing test leaves nothing behind.
/// The socket lives in the test's scratch folder, which is removed with it.
pub(crate) struct Tmux {
    socket: PathBuf,
    exit_file: PathBuf,
}

impl Tmux {
    /// Starts `command` (a shell command line) in a new server. Its exit status goes
    /// to a file, and the pane stays open after it ends so the restored screen can be read.
    pub(crate) fn start(command: &str, scratch: &Path) -> Tmux {
        if Command::new("tmux").arg("-V").output().is_err() {
            panic!(
                "tmux is not installed: the workbench tests drive the real binary inside \
                 tmux (install it, e.g. `apt-get install tmux`; .ci/run does)"
            );
        }
        let n = SESSIONS.fetch_add(1, Ordering::Relaxed);
        let tmux = Tmux {
            socket: scratch.join(format!("tmux-{n}")),
            exit_file: scratch.join(format!("exit-{n}")),
        };
        // The shell stays alive afterwards (in `cat`) so that tmux still tracks the
        // cursor and the screen modes of the pane.
        let line = format!(
            "{command}; echo EXIT=$? > '{}'; echo hsg-has-exited; exec cat",
            tmux.exit_file.display()
        );
        let out = tmux.run(&["new-session", "-d", "-x", "80", "-y", "24", &line]);
        assert!(out.status.success(), "tmux: {}", text(&out.stderr));
        tmux
    }

    /// Runs a tmux command against this server.
    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-S", path_arg(&self.socket), "-f", "/dev/null"])
            .args(args)
            .env_remove("TMUX")
            .output()
            .expect("tmux runs")
    }

    /// The visible screen as text (`escapes` keeps the colour and style sequences).
    pub(crate) fn screen(&self, escapes: bool) -> String {
        let mut args = vec!["capture-pane", "-p"];
        if escapes {
            args.push("-e");
        }
        text(&self.run(&args).stdout)
    }

    /// Sends tmux key names (`q`, `Escape`, `Enter`).
    pub(crate) fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend_from_slice(keys);
        assert!(self.run(&args).status.success(), "send-keys {keys:?}");
    }

    /// Types `literal` as it is.
    fn type_text(&self, literal: &str) {
        assert!(self.run(&["send-keys", "-l", literal]).status.success());
    }

    /// A tmux format variable of the pane, such as `alternate_on`.
    fn pane_flag(&self, name: &str) -> String {
        let format = format!("#{{{name}}}");
        text(&self.run(&["display-message", "-p", &format]).stdout)
            .trim()
            .to_string()
    }

    /// Polls the screen until `ready` holds, and returns it; fails after [`PATIENCE`]
    /// showing the last screen.
    pub(crate) fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        self.wait_until(false, what, ready)
    }

    /// The same as [`Tmux::wait_for`], on the screen with its escape sequences when
    /// `escapes` is true.
    fn wait_until(&self, escapes: bool, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen(escapes);
            if ready(&screen) {
                return screen;
            }
            if start.elapsed() > PATIENCE {
                let status = std::fs::read_to_string(&self.exit_file).unwrap_or_default();
                panic!("timed out waiting for {what}; {status}screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits for the screen to contain every one of `words`.
    pub(crate) fn wait_for_all(&self, words: &[&str]) -> String {
        self.wait_for(&format!("{words:?}"), |s| {
            words.iter().all(|w| s.contains(w))
        })
    }

    /// Quits with `q`, then checks that the command exited with 0 and that the terminal
    /// was restored: the normal screen shows the shell's output, not the workbench.
    pub(crate) fn quit_cleanly(&self) {
        self.keys(&["q"]);
        let screen = self.wait_for("the command to end", |s| s.contains("hsg-has-exited"));
        let status = std::fs::read_to_string(&self.exit_file).expect("exit status written");
        assert_eq!(status.trim(), "EXIT=0", "screen:\n{screen}");
        assert_eq!(
            self.pane_flag("alternate_on"),
            "0",
            "still on the alternate screen"
        );
        assert_eq!(self.pane_flag("cursor_flag"), "1", "cursor left hidden");
        assert_eq!(self.pane_flag("mouse_any_flag"), "0", "mouse left captured");
        assert!(
            !screen.contains("Overview"),
            "workbench left on screen:\n{screen}"
        );
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A shell word for `path`.
pub(crate) fn quoted(path: &Path) -> String {
    format!("'{}'", path_arg(path))
}

/// The `hsg` binary under test, quoted for the shell.
pub(crate) fn hsg_cmd() -> String {
    quoted(Path::new(env!("CARGO_BIN_EXE_hsg")))
}

/// A temporary folder with twoboxes explored and analysed in `run`.
fn analysed_twoboxes() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/twoboxes.xsb"), &store, &["--analyze"]);
    (dir, store)
}

/// True when an escape-coded screen sets any foreground or background colour (the
/// resets to the default colours, 39 and 49, do not count).
fn has_colour(screen: &str) -> bool {
    screen.split("\x1b[").skip(1).any(|seq| {
        let Some(params) = seq.split_once('m').map(|(p, _)| p) else {
            return false;
        };
        params.split(';').any(|p| {
            matches!(
                p.parse::<u32>(),
                Ok(30..=38 | 40..=48 | 90..=97 | 100..=107)
            )
        })
    })
}

#[test]
fn the_workbench_shows_its_screens_and_exits_cleanly() {
    let (dir, store) = analysed_twoboxes();
    let command = format!("env -u NO_COLOR {} tui {}", hsg_cmd(), quoted(&store));
    let tmux = Tmux::start(&command, dir.path());
    tmux.wait_for_all(&["Overview", "hyperstates 59", "shortest win: 15 actions"]);
    tmux.wait_until(true, "colour without NO_COLOR", has_colour);
    assert_eq!(
        tmux.pane_flag("mouse_any_flag"),
        "1",
        "clicks and the wheel are asked for"
    );
    tmux.keys(&["2"]);
    tmux.wait_for_all(&["Hyperstates 59", "Details", "Out 4"]);
    tmux.keys(&["4"]);
    tmux.wait_for_all(&["Graph: whole HSG, 59 nodes"]);
    tmux.keys(&["?"]);
    tmux.wait_for_all(&["Keys", "quit", "hyperstate browser"]);
    tmux.keys(&["Escape"]);
    tmux.wait_for("the help to close", |s| {
        !s.contains("Keys") && s.contains("Graph: whole HSG")
    });
    tmux.quit_cleanly();
}

#[test]
fn ascii_and_no_colour_draw_plain_text() {
    let (dir, store) = analysed_twoboxes();
    let command = format!("{} tui --ascii {}", hsg_cmd(), quoted(&store));
    let tmux = Tmux::start(&command, dir.path());
    let screens = [
        ("1", "hyperstates 59"),
        ("2", "Details"),
        ("3", "shortest win (2)"),
        ("4", "Graph: whole HSG"),
        ("?", "Keys"),
    ];
    for (key, marker) in screens {
        tmux.keys(&[key]);
        let screen = tmux.wait_for_all(&[marker]);
        let fancy: Vec<char> = screen.chars().filter(|c| !c.is_ascii()).collect();
        assert!(
            fancy.is_empty(),
            "{fancy:?} under --ascii on screen {key}:\n{screen}"
        );
    }
    tmux.keys(&["Escape"]);
    tmux.wait_for("the help to close", |s| !s.contains("Keys"));
    tmux.quit_cleanly();

    let command = format!("env NO_COLOR=1 {} tui {}", hsg_cmd(), quoted(&store));
    let tmux = Tmux::start(&command, dir.path());
    for (key, marker) in [("1", "hyperstates 59"), ("2", "Details"), ("4", "Graph:")] {
        tmux.keys(&[key]);
        tmux.wait_for_all(&[marker]);
        let screen = tmux.screen(true);
        assert!(!has_colour(&screen), "colour under NO_COLOR:\n{screen:?}");
    }
    tmux.quit_cleanly();
}

#[test]
fn open_explores_analyses_and_opens_the_workbench() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("tiny-run");
    let level = level("sokoban/tiny.xsb");
    let command = format!(
        "{} open {} --store {}",
        hsg_cmd(),
        quoted(&level),
        quoted(&store)
    );
    let tmux = Tmux::start(&command, dir.path());
    tmux.wait_for_all(&["Overview", "hyperstates 10", "exploration complete"]);
    tmux.quit_cleanly();
    assert!(
        store.join("hsg/summary.json").is_file(),
        "analysis not saved"
    );
}

#[test]
fn bookmarks_survive_closing_and_reopening() {
    let (dir, store) = analysed_twoboxes();
    let command = format!("{} tui {}", hsg_cmd(), quoted(&store));
    let note = "two boxes, still winnable";
    {
        let tmux = Tmux::start(&command, dir.path());
        tmux.wait_for_all(&["Overview", "hyperstates 59"]);
        tmux.keys(&["b"]);
        tmux.wait_for_all(&["Bookmark note"]);
        tmux.type_text(note);
        tmux.keys(&["Enter"]);
        tmux.wait_for_all(&["bookmarked hyperstate"]);
        tmux.quit_cleanly();
    }
    let tmux = Tmux::start(&command, dir.path());
    tmux.wait_for_all(&["Overview", "hyperstates 59"]);
    tmux.keys(&["'"]);
    tmux.wait_for_all(&["Bookmarks 1", note]);
    tmux.keys(&["Escape"]);
    tmux.wait_for("the list to close", |s| !s.contains("Bookmarks 1"));
    tmux.quit_cleanly();
}

/// A PuzzleScript level in the workbench: the member pane draws the level's grid with
/// its legend characters and names the actions as the game does.
#[test]
fn the_member_pane_draws_a_puzzlescript_grid() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    let game = level("puzzlescript/crates-move-when-you-move.txt");
    explore(&game, &store, &["--level", "1", "--analyze"]);
    let command = format!("{} tui {}", hsg_cmd(), quoted(&store));
    let tmux = Tmux::start(&command, dir.path());
    tmux.wait_for_all(&["Overview", "puzzlescript"]);
    tmux.keys(&["2"]);
    // The root's member, the level as it starts (glyphs are case-folded as PuzzleScript reads them).
    let screen = tmux.wait_for_all(&["Member 1/1", "######", "#..*.#", "#.p..#"]);
    for action in ["up →", "left →", "down →", "right →"] {
        assert!(screen.contains(action), "no {action:?}:\n{screen}");
    }
    tmux.quit_cleanly();
}

/// Flips the bits of `mask` in byte `at` of `path`.
fn flip(path: &Path, at: usize, mask: u8) {
    let mut bytes = std::fs::read(path).expect("readable");
    bytes[at] ^= mask;
    std::fs::write(path, bytes).expect("write");
}

#[test]
fn a_flipped_bit_in_the_store_is_named_on_screen_and_nothing_of_the_run_shown() {
    // Regression: with one bit flipped in edges.bits the workbench showed `down -> s1`
    // for `up -> s1`, while every other command refused the store.
    let (dir, store) = analysed_twoboxes();
    flip(&store.join("edges.bits"), 64, 1);
    let command = format!("{} tui {}", hsg_cmd(), quoted(&store));
    let tmux = Tmux::start(&command, dir.path());
    let screen = tmux.wait_for_all(&["The run is damaged", "DAMAGED"]);
    // The message wraps inside the pane: its borders and line ends taken out.
    let text: String = screen
        .replace(['│', '|'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains("edges.bits: checksum mismatch in block 0 (data bytes 0..")
            && text.contains("file offset 64)"),
        "{screen}"
    );
    tmux.keys(&["2"]);
    let screen = tmux.wait_for_all(&["The run is damaged"]);
    assert!(
        !screen.contains("Details") && !screen.contains(" s1 "),
        "{screen}"
    );
    tmux.quit_cleanly();
    let out = crate::util::run(&["verify", store.to_str().expect("utf-8")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("edges.bits: checksum mismatch in block 0"),
        "{err}"
    );
}

#[test]
fn the_workbench_says_it_verifies_then_that_it_verified() {
    let (dir, store) = analysed_twoboxes();
    let command = format!("{} tui {}", hsg_cmd(), quoted(&store));
    let tmux = Tmux::start(&command, dir.path());
    tmux.wait_for_all(&["Overview", "hyperstates 59", "✓ verified"]);
    tmux.quit_cleanly();
}

#[test]
fn verify_checks_the_bookmarks_database_and_names_its_damage() {
    let (dir, store) = analysed_twoboxes();
    let command = format!("{} tui {}", hsg_cmd(), quoted(&store));
    let tmux = Tmux::start(&command, dir.path());
    tmux.wait_for_all(&["Overview", "hyperstates 59"]);
    tmux.keys(&["b"]);
    tmux.wait_for_all(&["Bookmark note"]);
    tmux.type_text("keep me");
    tmux.keys(&["Enter"]);
    tmux.wait_for_all(&["bookmarked hyperstate"]);
    tmux.quit_cleanly();
    let path = store.to_str().expect("utf-8");
    let out = crate::util::ok(&["verify", path]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("hsg-user.sled: ok (1 bookmarks, its checksum verified)"),
        "{text}"
    );
    // The log is preallocated: its first bytes hold the records.
    let db = store.join("hsg-user.sled/db");
    let mut bytes = std::fs::read(&db).expect("readable");
    let used = bytes.len().min(4096);
    bytes[..used].iter_mut().for_each(|b| *b ^= 0x55);
    std::fs::write(&db, &bytes).expect("write");
    let out = crate::util::run(&["verify", path]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("hsg-user.sled") && err.contains("damaged"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&db).expect("readable"),
        bytes,
        "verify wrote nothing"
    );
    // The workbench moves it aside and says so.
    let tmux = Tmux::start(&command, dir.path());
    tmux.wait_for_all(&["Overview", "about the bookmarks"]);
    tmux.keys(&["'"]);
    tmux.wait_for_all(&["is damaged", "moved to"]);
    tmux.keys(&["Escape"]);
    // As in play mode's test: `q` straight after Escape would be read as Alt-q.
    tmux.wait_for("the list to close", |s| !s.contains("moved to"));
    tmux.quit_cleanly();
    assert_eq!(
        std::fs::read(store.join("hsg-user.sled.damaged-1/db")).expect("moved aside"),
        bytes
    );
}
