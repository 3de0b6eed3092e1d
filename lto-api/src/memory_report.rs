//! The process's memory as `--time` reports it.

/// The process's peak resident memory so far (`VmHWM`), where the system says it.
pub fn peak_rss_bytes() -> Option<u64> {
    status_bytes("VmHWM:")
}

/// A size field of `/proc/self/status`, in bytes.
pub fn status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `  [peak N MB, now M MB]` for a `--time` line: which phase made the process as big as it
/// got, and what it holds when the phase ends; then `, children K MB`, the peak of the
/// largest child process ended so far (LTO's), where there was one.
pub fn peak_rss_note() -> String {
    let (Some(peak), Some(now)) = (peak_rss_bytes(), status_bytes("VmRSS:")) else {
        return String::new();
    };
    let children = match largest_child_kb() {
        0 => String::new(),
        kb => format!(", children {} MB", kb >> 10),
    };
    format!("  [peak {} MB, now {} MB{children}]", peak >> 20, now >> 20)
}

/// The peak resident memory of the largest child process waited for so far, in KiB.
fn largest_child_kb() -> u64 {
    u64::try_from(resource_usage(libc::RUSAGE_CHILDREN).ru_maxrss).unwrap_or(0)
}

/// `getrusage(who)`: `RUSAGE_SELF`, or `RUSAGE_CHILDREN` (the child processes waited for).
pub fn resource_usage(who: libc::c_int) -> libc::rusage {
    // SAFETY: getrusage fills the zeroed structure it is given; with RUSAGE_SELF or
    // RUSAGE_CHILDREN it cannot fail.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut usage);
        usage
    }
}
