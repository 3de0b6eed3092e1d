//! Archive members (and command-line objects) parsed in the background as soon as symbol
//! resolution wants them. Resolution itself goes in input order on one thread, so that the
//! outcome never depends on timing; but it knows which member it will add next long before
//! it gets there, and parsing is most of the work. Each member is handed to the thread pool
//! when it is fetched, and resolution takes the results in fetch order, parsing a member
//! itself if no thread has started on it yet.

use crate::error::Result;
use crate::object_file::ObjectFile;
use crate::symbols::{global_names, GlobalName};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// An input as the parse leaves it.
pub enum Parsed {
    /// With the names of its global symbols, hashed (off the resolving thread). Boxed:
    /// the other outcomes are small.
    Object(Result<Box<(ObjectFile, Vec<GlobalName>)>>),
    Bitcode,
    /// Carries a plugin's IR: offered to the plugins, in order, before it is parsed.
    ForPlugin,
}

/// What to parse.
struct Job {
    name: String,
    data: &'static [u8],
    /// Linker plugins are loaded: files with their IR are theirs to claim first.
    plugins: bool,
}

impl Job {
    fn run(self) -> Parsed {
        if rld_lto_api::is_bitcode(self.data) {
            Parsed::Bitcode
        } else if self.plugins && crate::object_file::has_gcc_lto_sections(self.data) {
            Parsed::ForPlugin
        } else {
            Parsed::Object(ObjectFile::parse(self.name, self.data).map(|obj| {
                let names = global_names(&obj);
                Box::new((obj, names))
            }))
        }
    }
}

enum Slot {
    Queued(Job),
    Parsing,
    Done(Parsed),
    Taken,
}

#[derive(Default)]
struct Slots {
    slots: Mutex<Vec<Slot>>,
    done: Condvar,
    /// Inputs submitted whose parse has not finished.
    unfinished: AtomicUsize,
}

/// The background parse; a ticket names one submitted input.
#[derive(Default)]
pub struct Prefetch {
    shared: Arc<Slots>,
}

/// One submitted input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket(usize);

impl Prefetch {
    /// Starts parsing `data` (named `name`) on the thread pool.
    pub fn submit(&self, name: String, data: &'static [u8], plugins: bool) -> Ticket {
        let job = Job {
            name,
            data,
            plugins,
        };
        let ticket = {
            let mut slots = lock(&self.shared.slots);
            slots.push(Slot::Queued(job));
            slots.len() - 1
        };
        self.shared.unfinished.fetch_add(1, Ordering::Relaxed);
        let shared = Arc::clone(&self.shared);
        rayon::spawn(move || shared.work(ticket));
        Ticket(ticket)
    }

    /// Whether the thread pool may still be parsing (or have queued) a submitted input:
    /// work handed to the pool now would wait behind it.
    pub fn busy(&self) -> bool {
        self.shared.unfinished.load(Ordering::Relaxed) > 0
    }

    /// Whether `ticket`'s input is parsed (`take` would not wait).
    pub fn is_ready(&self, ticket: Ticket) -> bool {
        matches!(lock(&self.shared.slots)[ticket.0], Slot::Done(_))
    }

    /// The parsed input, waiting for it if a thread is parsing it, parsing it here if none
    /// has started. Each ticket is taken once.
    pub fn take(&self, ticket: Ticket) -> Parsed {
        let mut slots = lock(&self.shared.slots);
        loop {
            match std::mem::replace(&mut slots[ticket.0], Slot::Taken) {
                Slot::Done(parsed) => return parsed,
                Slot::Queued(job) => {
                    drop(slots);
                    let parsed = job.run();
                    self.shared.unfinished.fetch_sub(1, Ordering::Relaxed);
                    return parsed;
                }
                Slot::Parsing => {
                    slots[ticket.0] = Slot::Parsing;
                    slots = self
                        .shared
                        .done
                        .wait(slots)
                        .unwrap_or_else(|e| e.into_inner());
                }
                Slot::Taken => unreachable!("a prefetch ticket is taken once"),
            }
        }
    }
}

impl Slots {
    fn work(&self, ticket: usize) {
        let job = {
            let mut slots = lock(&self.slots);
            match std::mem::replace(&mut slots[ticket], Slot::Parsing) {
                Slot::Queued(job) => job,
                // Resolution got there first.
                other => {
                    slots[ticket] = other;
                    return;
                }
            }
        };
        let parsed = job.run();
        lock(&self.slots)[ticket] = Slot::Done(parsed);
        self.unfinished.fetch_sub(1, Ordering::Relaxed);
        self.done.notify_all();
    }
}

fn lock(m: &Mutex<Vec<Slot>>) -> std::sync::MutexGuard<'_, Vec<Slot>> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
