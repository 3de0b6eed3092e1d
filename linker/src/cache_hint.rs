//! Asking the processor for memory a loop will read a few steps later: resolution reads
//! symbols and hash-table slots at random across tens of megabytes, and each read that
//! misses the cache waits for memory unless it was asked for ahead.

/// Starts loading the cache line holding `p` (any address: a prefetch never faults).
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 is part of SSE, which every x86-64 processor has; it reads
    // nothing into the program and never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
