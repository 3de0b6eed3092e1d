//! `--time` inside the LTO step: how long each of its phases took, with one fact about
//! each (how many definitions live, sites resolved, partitions made), as notes to the host.

use crate::host::Host;
use std::time::{Duration, Instant};

/// The time since the last phase ended, reported when a phase ends.
pub(crate) struct PhaseClock<'h> {
    host: &'h dyn Host,
    enabled: bool,
    last: Instant,
}

impl<'h> PhaseClock<'h> {
    pub(crate) fn new(host: &'h dyn Host, enabled: bool) -> Self {
        PhaseClock {
            host,
            enabled,
            last: Instant::now(),
        }
    }

    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// Ends the phase `name`; `detail` is computed only with `--time`.
    pub(crate) fn phase(&mut self, name: &str, detail: impl FnOnce() -> String) {
        if self.enabled {
            let now = Instant::now();
            let peak = peak_rss_note();
            self.note(
                now - self.last,
                &format!("LTO: {name} ({}){peak}", detail()),
            );
            self.last = now;
        }
    }

    /// A line about part of a phase that took `took` (indented by `what`'s own spaces).
    pub(crate) fn note(&self, took: Duration, what: &str) {
        self.host
            .note(&format!("{:>8.2} ms    {what}", took.as_secs_f64() * 1e3));
    }
}

/// The process's peak resident memory so far (`VmHWM`), where the system says it.
pub fn peak_rss_bytes() -> Option<u64> {
    status_bytes("VmHWM:")
}

/// A size field of `/proc/self/status`, in bytes.
fn status_bytes(field: &str) -> Option<u64> {
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
