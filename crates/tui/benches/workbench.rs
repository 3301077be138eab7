//! Latency benchmark of the workbench on a store: time to the first frame, to the
//! overview and to the whole data, then a scripted session over every screen with each
//! key timed from handling to frame drawn (targets: first frame within 300 ms; keys
//! within 30 ms median and 100 ms worst). It runs the real loader and worker threads and
//! draws on a ratatui `TestBackend`. Each key's background work (sorting, paths, search,
//! graph layout) is awaited before the next key and reported apart as "results". The
//! verification of the store's checksums runs behind the keys, as it does for a user; its
//! end is awaited after the script ("verified").
//!
//! Like the workbench itself, it writes graph layouts to the layout cache in `DIR/hsg/`,
//! so sessions after the first find them there; delete `DIR/hsg/tui-layout-*` to time
//! the layouts again.
//!
//! `cargo bench -p tui --bench workbench -- DIR [--repeats N] [--size WxH] [--dump]`

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;
use tui::bench_support::{parse_keys, Harness, KeyTiming, Startup};
use tui::ViewOptions;

/// The session replayed: (kind of key, keys). It starts on the overview.
const SCRIPT: &[(&str, &str)] = &[
    ("help ?", "?"),
    ("help page", "jk"),
    ("help close", "<Esc>"),
    ("screen", "2"),
    ("table j/k", "jjjjjkk"),
    ("table PgDn/PgUp", "<PgDn><PgDn><PgDn><PgUp>"),
    ("table G/g", "Gg"),
    ("sort s", "s"),
    ("table j/k", "jj"),
    ("table G/g", "G"),
    ("sort s", "s"),
    ("table PgDn/PgUp", "<PgDn>"),
    ("sort s", "s"),
    ("table j/k", "j"),
    ("sort s", "s"),
    ("table G/g", "Gg"),
    ("sort s", "s"),
    ("table j/k", "jj"),
    ("sort S", "S"),
    ("table PgDn/PgUp", "<PgDn>"),
    ("sort s", "s"),
    ("filter t", "t"),
    ("table j/k", "j"),
    ("filter t", "t"),
    ("table G/g", "G"),
    ("filter t", "t"),
    ("table j/k", "j"),
    ("filter t", "tt"),
    ("filter t", "t"),
    ("table j/k", "jk"),
    ("pane h/l", "l"),
    ("actions j/k", "j"),
    ("follow Enter", "<Enter>"),
    ("back/forward", "<Bksp>]<Bksp>"),
    ("pane h/l", "l"),
    ("follow Enter", "<Enter>"),
    ("back/forward", "<Bksp>"),
    ("pane h/l", "l"),
    ("members j/k", "jjk"),
    ("members PgDn/G", "<PgDn>G"),
    ("pane h/l", "l"),
    ("jump r/w/f", "rwfr"),
    ("ideal i", "iii"),
    ("actions ,/.", ".."),
    ("screen", "3"),
    ("paths j/k", "kkj"),
    ("paths h/l", "lhl"),
    ("screen", "4"),
    ("graph pan", "hjkl"),
    ("graph zoom", "++-0"),
    ("graph radius", "}{"),
    ("follow Enter", "<Enter>"),
    ("back/forward", "<Bksp>"),
    ("search /", "/"),
    ("prompt typing", "win"),
    ("search Enter", "<Enter>"),
    ("search n", "nn"),
    ("search /", "/"),
    ("prompt typing", "s1000000"),
    ("search Enter", "<Enter>"),
    ("search /", "/"),
    ("prompt typing", "$$$"),
    ("search Enter", "<Enter>"),
    ("help ?", "?"),
    ("help page", "j"),
    ("help close", "<Esc>"),
    ("bookmarks", "'<Esc>"),
    ("screen", "<Tab><BackTab>1"),
];

/// Longest wait for the data or for a key's background work.
const LIMIT: Duration = Duration::from_secs(120);

/// Longest wait for the background verification after the script: it reads every
/// byte of the store (room5's 30 GB take minutes from disk), so a session that
/// outlasts it still reports its start-up and keys, with the verification
/// "not within" this wait.
const VERIFY_LIMIT: Duration = Duration::from_secs(1800);

struct Options {
    dir: PathBuf,
    repeats: usize,
    size: (u16, u16),
    dump: bool,
}

fn usage() -> &'static str {
    "usage: cargo bench -p tui --bench workbench -- DIR [--repeats N] [--size WxH] [--dump]"
}

/// The options, `Ok(None)` when no store is named (plain `cargo bench`).
fn parse_args() -> Result<Option<Options>, String> {
    let mut dir = None;
    let (mut repeats, mut size, mut dump) = (5, (80, 24), false);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            // Cargo passes `--bench` to every benchmark binary.
            "--bench" => {}
            "--dump" => dump = true,
            "--repeats" => {
                let n = args.next().and_then(|n| n.parse().ok());
                repeats = n.filter(|&n| n > 0).ok_or("--repeats needs a count")?;
            }
            "--size" => {
                let s = args.next().unwrap_or_default();
                let (w, h) = s.split_once('x').ok_or("--size needs WxH")?;
                size = (
                    w.parse().map_err(|_| "bad width")?,
                    h.parse().map_err(|_| "bad height")?,
                );
            }
            other if other.starts_with('-') => return Err(format!("unknown option {other}")),
            other => dir = Some(PathBuf::from(other)),
        }
    }
    Ok(dir.map(|dir| Options {
        dir,
        repeats,
        size,
        dump,
    }))
}

/// One replay of the script: the start-up times and every key's timing with its kind.
struct Session {
    startup: Startup,
    /// From the start to the end of the background verification (awaited after the
    /// script, so the keys were timed while it ran).
    verified: Option<Duration>,
    keys: Vec<(&'static str, KeyTiming)>,
    /// Resident memory at the end of the script, while the workbench is still open.
    memory: Option<String>,
}

fn session(o: &Options, dump: bool) -> Result<Session, String> {
    let view = ViewOptions::default();
    let start = std::time::Instant::now();
    let (mut h, startup) = Harness::start(tui::store_loader(o.dir.clone()), view, o.size, LIMIT)
        .map_err(|e| e.to_string())?;
    if let Some(why) = &h.app.fatal {
        return Err(why.clone());
    }
    if startup.loaded.is_none() {
        return Err(format!("the data did not load within {LIMIT:?}"));
    }
    let mut keys = Vec::new();
    for &(kind, notation) in SCRIPT {
        for key in parse_keys(notation)? {
            let t = h.press(key, LIMIT).map_err(|e| e.to_string())?;
            keys.push((kind, t));
        }
        if dump {
            println!("after {kind} {notation}:\n{}", h.screen());
        }
    }
    let memory = memory();
    let verified = h
        .await_verification(VERIFY_LIMIT)
        .map_err(|e| e.to_string())?
        .map(|_| start.elapsed());
    if verified.is_none() {
        eprintln!("the verification did not end within {VERIFY_LIMIT:?}");
    }
    if let Some(d) = h.app.damage() {
        return Err(format!("the verification found damage: {}", d.what));
    }
    Ok(Session {
        startup,
        verified,
        keys,
        memory,
    })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    match xs.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => xs[n / 2],
        n => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}

fn max(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::NAN, f64::max)
}

/// Per-session figures of a set of keys: median and worst of key-to-frame, median
/// draw, and median and worst key-to-results of the keys that started work.
fn figures(keys: &[&KeyTiming]) -> [f64; 5] {
    let total: Vec<f64> = keys.iter().map(|t| ms(t.total())).collect();
    let draw: Vec<f64> = keys.iter().map(|t| ms(t.draw)).collect();
    let settled: Vec<f64> = keys
        .iter()
        .filter(|t| t.queued_jobs)
        .map(|t| ms(t.settled))
        .collect();
    [
        median(total.clone()),
        max(&total),
        median(draw),
        median(settled.clone()),
        max(&settled),
    ]
}

/// Prints one row: the median over sessions of each per-session figure.
fn row(name: &str, n: usize, per_session: &[[f64; 5]]) {
    let col = |i: usize| median(per_session.iter().map(|f| f[i]).collect());
    let results = if col(3).is_nan() {
        String::new()
    } else {
        format!("{:9.1} {:9.1}", col(3), col(4))
    };
    println!(
        "{name:18} {n:4} {:8.2} {:8.2} {:8.2}  {results}",
        col(0),
        col(1),
        col(2)
    );
}

fn report(sessions: &[Session]) {
    let firsts: Vec<f64> = sessions.iter().map(|s| ms(s.startup.first_frame)).collect();
    let times = |f: fn(&Startup) -> Option<Duration>| -> Vec<f64> {
        sessions
            .iter()
            .filter_map(|s| f(&s.startup).map(ms))
            .collect()
    };
    let overviews = times(|s| s.overview);
    let loaded = times(|s| s.loaded);
    let verified: Vec<f64> = sessions.iter().filter_map(|s| s.verified.map(ms)).collect();
    for (what, xs) in [
        ("first frame", &firsts),
        ("overview with data", &overviews),
        ("all data loaded", &loaded),
        ("verified (behind)", &verified),
    ] {
        println!(
            "{what:18}: median {:8.1} ms, worst {:8.1} ms   (sessions: {xs:.1?})",
            median(xs.clone()),
            max(xs)
        );
    }
    println!();
    println!(
        "{:18} {:>4} {:>8} {:>8} {:>8}  {:>9} {:>9}",
        "key kind", "keys", "median", "worst", "draw", "results", "worst"
    );
    let mut kinds: BTreeMap<&str, Vec<[f64; 5]>> = BTreeMap::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for s in sessions {
        let mut by_kind: BTreeMap<&str, Vec<&KeyTiming>> = BTreeMap::new();
        for (kind, t) in &s.keys {
            by_kind.entry(kind).or_default().push(t);
        }
        for (kind, ts) in by_kind {
            counts.insert(kind, ts.len());
            kinds.entry(kind).or_default().push(figures(&ts));
        }
    }
    for (kind, per_session) in &kinds {
        row(kind, counts[kind], per_session);
    }
    let overall: Vec<[f64; 5]> = sessions
        .iter()
        .map(|s| figures(&s.keys.iter().map(|(_, t)| t).collect::<Vec<_>>()))
        .collect();
    let n = sessions.first().map_or(0, |s| s.keys.len());
    row("ALL KEYS", n, &overall);
    let all: Vec<f64> = sessions
        .iter()
        .flat_map(|s| s.keys.iter().map(|(_, t)| ms(t.total())))
        .collect();
    let frames: Vec<f64> = sessions
        .iter()
        .flat_map(|s| s.keys.iter().map(|(_, t)| ms(t.worst_result_frame)))
        .collect();
    println!(
        "worst key over all {} sessions: {:.2} ms; worst frame drawn while work ran or when it came back: {:.2} ms",
        sessions.len(),
        max(&all),
        max(&frames)
    );
    print_slowest(sessions, 5);
}

/// The `n` slowest keys over every session, to tell a pattern from a hiccup.
fn print_slowest(sessions: &[Session], n: usize) {
    let mut all: Vec<(f64, usize, usize, &str)> = sessions
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            let keys = s.keys.iter().enumerate();
            keys.map(move |(k, (kind, t))| (ms(t.total()), i + 1, k + 1, *kind))
        })
        .collect();
    all.sort_by(|a, b| b.0.total_cmp(&a.0));
    let slowest: Vec<String> = all
        .iter()
        .take(n)
        .map(|(t, s, k, kind)| format!("{t:.1} ms ({kind}, session {s} key {k})"))
        .collect();
    println!("slowest keys: {}", slowest.join(", "));
}

fn main() {
    let o = match parse_args() {
        Ok(Some(o)) => o,
        Ok(None) => return println!("{}", usage()),
        Err(why) => {
            eprintln!("{why}\n{}", usage());
            std::process::exit(2);
        }
    };
    println!(
        "workbench latency on {} at {}x{}, {} sessions (times in ms; each figure is the median over sessions of that session's median or worst)",
        o.dir.display(),
        o.size.0,
        o.size.1,
        o.repeats
    );
    let mut sessions = Vec::new();
    for i in 0..o.repeats {
        match session(&o, o.dump && i == 0) {
            Ok(s) => sessions.push(s),
            Err(why) => {
                eprintln!("session {} failed: {why}", i + 1);
                std::process::exit(1);
            }
        }
    }
    report(&sessions);
    if let Some(m) = sessions.last().and_then(|s| s.memory.as_ref()) {
        println!("memory at the end of the last session: {m}");
    }
}

/// Peak and current resident memory of this process (Linux), split into anonymous
/// memory and pages of mapped files (the store's maps, which the kernel can drop).
fn memory() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(f64::NAN, |kb| kb / 1024.0)
    };
    Some(format!(
        "peak RSS {:.0} MiB; now {:.0} MiB anonymous, {:.0} MiB of mapped files",
        field("VmHWM:"),
        field("RssAnon:"),
        field("RssFile:")
    ))
}
