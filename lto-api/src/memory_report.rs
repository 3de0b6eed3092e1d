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
/// got, and what it holds when the phase ends.
pub fn peak_rss_note() -> String {
    match (peak_rss_bytes(), status_bytes("VmRSS:")) {
        (Some(peak), Some(now)) => format!("  [peak {} MB, now {} MB]", peak >> 20, now >> 20),
        _ => String::new(),
    }
}
