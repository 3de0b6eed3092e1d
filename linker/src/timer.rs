//! `--time`: how long each phase of the link took (wall and CPU time: their ratio is how
//! parallel the phase ran), and the memory it had reached.

use std::time::{Duration, Instant};

/// Prints how long each phase took, for `--time`.
pub struct Timer {
    enabled: bool,
    last: Instant,
    last_cpu: Duration,
    last_faults: i64,
    start: Instant,
}

impl Timer {
    pub fn new(enabled: bool) -> Timer {
        let now = Instant::now();
        Timer {
            enabled,
            last: now,
            last_cpu: cpu_time(),
            last_faults: page_faults(),
            start: now,
        }
    }

    pub fn phase(&mut self, name: &str) {
        if self.enabled {
            let (now, cpu, faults) = (Instant::now(), cpu_time(), page_faults());
            eprintln!(
                "rld: {:>8.2} ms  {name}  (cpu {:.2} ms, {} page faults){}",
                (now - self.last).as_secs_f64() * 1e3,
                cpu.saturating_sub(self.last_cpu).as_secs_f64() * 1e3,
                faults - self.last_faults,
                rld_lto_api::peak_rss_note()
            );
            self.last = now;
            self.last_cpu = cpu;
            self.last_faults = faults;
        }
    }

    pub fn total(&self) {
        if self.enabled {
            eprintln!(
                "rld: {:>8.2} ms  total  (cpu {:.2} ms, {} page faults){}",
                self.start.elapsed().as_secs_f64() * 1e3,
                cpu_time().as_secs_f64() * 1e3,
                page_faults(),
                rld_lto_api::peak_rss_note()
            );
        }
    }
}

/// User and system time so far of all the process's threads and of the child processes
/// it has waited for (LTO reads new bitcode and compiles its partitions in children).
fn cpu_time() -> Duration {
    let usage = |who| {
        let usage = rld_lto_api::resource_usage(who);
        let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        time(usage.ru_utime) + time(usage.ru_stime)
    };
    usage(libc::RUSAGE_SELF) + usage(libc::RUSAGE_CHILDREN)
}

/// Page faults so far (minor and major) of all the process's threads: the kernel's share of
/// a phase that touches much new memory (each first touch of a page costs one).
fn page_faults() -> i64 {
    let usage = rld_lto_api::resource_usage(libc::RUSAGE_SELF);
    (usage.ru_minflt + usage.ru_majflt) as i64
}
