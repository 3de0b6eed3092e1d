//! `--time`: how long each phase of the link took, and the memory it had reached.

use std::time::Instant;

/// Prints how long each phase took, for `--time`.
pub struct Timer {
    enabled: bool,
    last: Instant,
    start: Instant,
}

impl Timer {
    pub fn new(enabled: bool) -> Timer {
        let now = Instant::now();
        Timer {
            enabled,
            last: now,
            start: now,
        }
    }

    pub fn phase(&mut self, name: &str) {
        if self.enabled {
            let now = Instant::now();
            eprintln!(
                "rld: {:>8.2} ms  {name}{}",
                (now - self.last).as_secs_f64() * 1e3,
                rld_lto_api::peak_rss_note()
            );
            self.last = now;
        }
    }

    pub fn total(&self) {
        if self.enabled {
            eprintln!(
                "rld: {:>8.2} ms  total{}",
                self.start.elapsed().as_secs_f64() * 1e3,
                rld_lto_api::peak_rss_note()
            );
        }
    }
}
