//! How the process's allocator gives memory back to the system: the one
//! tuning the explorer's disk phase needs to keep its peak RSS within `--mem`.

/// Allocations of at least this many bytes get a mapping of their own.
pub const LARGE_ALLOCATION: usize = 128 << 10;

/// Makes every allocation of at least [`LARGE_ALLOCATION`] bytes a mapping of
/// its own, returned to the system the moment it is freed, for the rest of
/// the process. glibc starts there but raises the threshold to the size of
/// each large block freed (up to 32 MiB), after which blocks below it come
/// from its heaps, which keep their freed pages resident: the disk phase
/// frees and reallocates buffers of megabytes every round, and room4 under
/// `--mem 128M` reached 129 MiB of RSS while it used about 102. Setting the
/// threshold also stops glibc from moving it. Does nothing on other C
/// libraries.
pub fn return_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let bytes = libc::c_int::try_from(LARGE_ALLOCATION).unwrap_or(libc::c_int::MAX);
        // SAFETY: `mallopt` only sets one of the allocator's tuning
        // parameters, under the allocator's own lock; it reads and writes no
        // memory of ours and has no precondition but a valid parameter,
        // which `M_MMAP_THRESHOLD` with a value under 32 MiB is.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, bytes);
        }
    }
}
