//! `--time`: how long each phase of the link took (wall and CPU time: their ratio is how
//! parallel the phase ran), and the memory it had reached; `--time-trace`: the phases as a
//! Chrome trace (`chrome://tracing`, Perfetto), as lld writes its own.

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

/// Prints how long each phase took, for `--time`, and records it for `--time-trace`.
pub struct Timer {
    enabled: bool,
    last: Instant,
    last_cpu: Duration,
    last_faults: i64,
    start: Instant,
    trace: Option<Trace>,
}

/// `--time-trace`: where the trace goes, and the phases so far.
pub struct Trace {
    pub path: PathBuf,
    /// Phases shorter than this (lld's `--time-trace-granularity`, in microseconds) are
    /// left out.
    pub granularity_us: u64,
    /// When the link started, in microseconds since the Unix epoch.
    began: u128,
    /// (name, start, duration), in microseconds from the start.
    phases: Vec<(String, u128, u128)>,
}

impl Trace {
    pub fn new(path: PathBuf, granularity_us: u64) -> Trace {
        let began = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros());
        Trace {
            path,
            granularity_us,
            began,
            phases: Vec::new(),
        }
    }

    /// The trace as Chrome's JSON: a complete event per phase and one for the whole link.
    fn json(&self, total_us: u128) -> String {
        let pid = std::process::id();
        let event = |name: &str, ts: u128, dur: u128| {
            let name: String = name
                .chars()
                .flat_map(|c| match c {
                    '"' | '\\' => vec!['\\', c],
                    c if c.is_control() => vec![' '],
                    c => vec![c],
                })
                .collect();
            format!(r#"{{"pid":{pid},"tid":{pid},"ph":"X","ts":{ts},"dur":{dur},"name":"{name}"}}"#)
        };
        let mut events: Vec<String> = self
            .phases
            .iter()
            .filter(|(_, _, dur)| *dur >= u128::from(self.granularity_us))
            .map(|(name, ts, dur)| event(name, *ts, *dur))
            .collect();
        events.push(event("Total link", 0, total_us));
        events.push(
            format!(r#"{{"pid":{pid},"tid":{pid},"ph":"M","ts":0,"name":"process_name","args":{{"name":"rld"}}}}"#),
        );
        format!(
            "{{\"traceEvents\":[\n{}\n],\"beginningOfTime\":{}}}\n",
            events.join(",\n"),
            self.began
        )
    }
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
            trace: None,
        }
    }

    /// Records the phases for `--time-trace` too.
    pub fn with_trace(mut self, trace: Option<Trace>) -> Timer {
        self.trace = trace;
        self
    }

    pub fn phase(&mut self, name: &str) {
        if !self.enabled && self.trace.is_none() {
            return;
        }
        let now = Instant::now();
        if let Some(trace) = &mut self.trace {
            let from = self.last.saturating_duration_since(self.start).as_micros();
            let dur = now.saturating_duration_since(self.last).as_micros();
            trace.phases.push((name.trim().to_string(), from, dur));
        }
        if self.enabled {
            let (cpu, faults) = (cpu_time(), page_faults());
            eprintln!(
                "rld: {:>8.2} ms  {name}  (cpu {:.2} ms, {} page faults){}",
                (now - self.last).as_secs_f64() * 1e3,
                cpu.saturating_sub(self.last_cpu).as_secs_f64() * 1e3,
                faults - self.last_faults,
                rld_lto_api::peak_rss_note()
            );
            self.last_cpu = cpu;
            self.last_faults = faults;
        }
        self.last = now;
    }

    /// Prints the whole link's time (`--time`) and writes the trace (`--time-trace`).
    pub fn total(&self) -> crate::error::Result<()> {
        if let Some(trace) = &self.trace {
            let json = trace.json(self.start.elapsed().as_micros());
            std::fs::write(&trace.path, json)
                .map_err(|e| crate::error::LinkError::io(&trace.path, e))?;
        }
        if self.enabled {
            eprintln!(
                "rld: {:>8.2} ms  total  (cpu {:.2} ms, {} page faults){}",
                self.start.elapsed().as_secs_f64() * 1e3,
                cpu_time().as_secs_f64() * 1e3,
                page_faults(),
                rld_lto_api::peak_rss_note()
            );
        }
        Ok(())
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
