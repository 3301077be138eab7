//! `store::allocator` in a process of its own (the resident memory it checks
//! is the whole process's, which other tests would disturb).

/// The process's resident memory, in bytes (Linux's `VmRSS`).
fn resident() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .expect("VmRSS");
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .expect("value")
        .parse()
        .expect("number");
    kib << 10
}

/// A buffer of `bytes` bytes, every page written.
fn touched(bytes: usize) -> Vec<u8> {
    let mut buffer = vec![0u8; bytes];
    for at in (0..bytes).step_by(4096) {
        buffer[at] = 1;
    }
    std::hint::black_box(buffer)
}

/// Freed large blocks leave the process at once, even after a larger one was
/// freed (which made glibc serve blocks under its size from a heap that kept
/// their pages: the disk phase's peak RSS went past `--mem`).
#[test]
fn freed_large_blocks_leave_the_process() {
    store::allocator::return_large_blocks();
    drop(touched(30 << 20));
    let before = resident();
    let mut most = 0;
    for _ in 0..4 {
        // Two live buffers, freed in the order that strands the first in a heap.
        let first = touched(12 << 20);
        let second = touched(64 << 10);
        drop(first);
        most = most.max(resident().saturating_sub(before));
        drop(second);
    }
    let after = resident().saturating_sub(before);
    assert!(
        after < 4 << 20,
        "{} KiB still resident, {} KiB at most",
        after >> 10,
        most >> 10
    );
}
