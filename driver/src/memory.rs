//! Memory the LTO step freed, given back to the system before the backends run.

/// Returns the pages of freed heap memory to the system. glibc keeps freed memory for
/// reuse; after the summaries' parses (on worker threads, in their own malloc arenas) and
/// the points-to solver, that is a hundred megabytes on a large program that the backends'
/// LLVM contexts, allocating in other arenas, would not reuse: the process's peak would be
/// their sum.
pub(crate) fn give_back_free_memory() {
    // SAFETY: malloc_trim only walks glibc's own arenas and releases free pages; it touches
    // no memory the program holds.
    unsafe {
        libc::malloc_trim(0);
    }
}
