//! `--time` inside the LTO step: how long each of its phases took, with one fact about
//! each (how many definitions live, sites resolved, partitions made), as notes to the host.

use rld_lto_api::{peak_rss_note, Host};
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
