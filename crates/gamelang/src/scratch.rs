//! Per-thread scratch buffers for the interpreter, so that evaluating a
//! state allocates nothing in the common case, and a one-state cache of the
//! legal decisions: the explorer asks `terminal` and then `successors` of
//! the same state, and both need them.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::ir::{Cx, Ex, Val, MAX_STEPS};

/// Buffers reused across calls on one thread.
#[derive(Default)]
pub struct Scratch {
    slots: Vec<Val>,
    vars: Vec<Val>,
    memo_val: Vec<Val>,
    memo_ok: Vec<bool>,
    /// The state's slots before a consequence runs.
    pub start: Vec<Val>,
    /// Per player, positions (in the player's decision list) of legal decisions.
    pub legal: Vec<Vec<u32>>,
    /// Which game and state `legal` belongs to, when `legal_valid`.
    pub legal_for: (u64, Vec<u8>),
    /// Whether `legal` holds the legal decisions of `legal_for`.
    pub legal_valid: bool,
}

thread_local! {
    static POOL: RefCell<Vec<Scratch>> = const { RefCell::new(Vec::new()) };
}

static NEXT_GAME: AtomicU64 = AtomicU64::new(1);

/// A process-unique id for a game, the key of the legal-decision cache.
pub fn game_id() -> u64 {
    NEXT_GAME.fetch_add(1, Ordering::Relaxed)
}

/// Runs `f` with an evaluation context of the given sizes and the thread's
/// scratch buffers.
pub fn with_cx<'a, R>(
    memos: &'a [Ex],
    sizes: (usize, usize),
    stop: Option<&'a AtomicBool>,
    f: impl FnOnce(&mut Cx<'a>, &mut Scratch) -> R,
) -> R {
    let mut s = POOL.with(|p| p.borrow_mut().pop()).unwrap_or_default();
    let mut cx = Cx {
        slots: std::mem::take(&mut s.slots),
        vars: std::mem::take(&mut s.vars),
        memos,
        memo_val: std::mem::take(&mut s.memo_val),
        memo_ok: std::mem::take(&mut s.memo_ok),
        memo_on: true,
        steps: MAX_STEPS,
        stop,
    };
    cx.slots.resize(sizes.0, 0);
    cx.vars.resize(sizes.1, 0);
    cx.memo_val.resize(memos.len(), 0);
    cx.memo_ok.resize(memos.len(), false);
    let result = f(&mut cx, &mut s);
    s.slots = cx.slots;
    s.vars = cx.vars;
    s.memo_val = cx.memo_val;
    s.memo_ok = cx.memo_ok;
    POOL.with(|p| p.borrow_mut().push(s));
    result
}
