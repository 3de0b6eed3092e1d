//! Asking the processor for memory a loop will read a few steps later: interning reads a
//! hash-table slot per name, at random across megabytes, and each read that misses the
//! cache waits for memory unless it was asked for ahead. (Asking ahead for symbol and
//! section records, whose loops already overlap their misses, measured no gain.)

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
