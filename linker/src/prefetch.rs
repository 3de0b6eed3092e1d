//! Archive members (and command-line objects) parsed in the background as soon as symbol
//! resolution wants them. Resolution itself goes in input order on one thread, so that the
//! outcome never depends on timing; but it knows which member it will add next long before
//! it gets there, and parsing is most of the work. Each member is handed to the thread pool
//! when it is fetched, and resolution takes the results in fetch order, parsing a member
//! itself if no thread has started on it yet.
//!
//! The threads also parse ahead of resolution ([`Ahead`]): a member just parsed names the
//! symbols it needs, and the archive members that define them will most likely be loaded
//! next, so the thread starts on them at once. Only what gets parsed early depends on
//! timing: resolution still takes every input in its own order, and a member it never
//! loads is parsed for nothing (its errors, if any, are never reported).

use crate::error::Result;
use crate::name_table::HashedName as _;
use crate::object_file::ObjectFile;
use crate::symbols::{global_names, GlobalName};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// An input as the parse leaves it.
pub enum Parsed {
    /// With the names of its global symbols, hashed (off the resolving thread). Boxed:
    /// the other outcomes are small.
    Object(Result<Box<(ObjectFile, Vec<GlobalName>)>>),
    Bitcode,
    /// Carries a plugin's IR: offered to the plugins, in order, before it is parsed.
    ForPlugin,
    /// A shared library.
    Shared(Result<Box<crate::shared_file::SharedFile>>),
}

/// Which inputs the linker plugins are offered before rld parses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PluginOffers {
    /// No plugin is loaded.
    Nothing,
    /// Files with gcc's IR (`.gnu.lto_*` sections), the only ones a plugin claims.
    Ir,
    /// Every object: for `-r`, gcc's plugin returns its IR only if it claimed every input
    /// (else machine code), and GNU ld offers it every file.
    Everything,
}

impl PluginOffers {
    /// Whether the ELF object `data` goes to the plugins first.
    fn offers(self, data: &[u8]) -> bool {
        match self {
            PluginOffers::Nothing => false,
            PluginOffers::Ir => crate::object_file::has_gcc_lto_sections(data),
            PluginOffers::Everything => true,
        }
    }
}

/// What to parse.
struct Job {
    name: String,
    data: &'static [u8],
    /// What linker plugins are offered first.
    plugins: PluginOffers,
    /// Once parsed, start on the archive members its references will load ([`Ahead`]).
    follow: bool,
    /// A shared library: the soname it gets if it names none, and whether it is linked
    /// `--as-needed`.
    shared: Option<(String, bool)>,
}

impl Job {
    fn run(self) -> Parsed {
        if let Some((soname, as_needed)) = self.shared {
            let dso =
                crate::shared_file::SharedFile::parse(self.name, soname, self.data, as_needed);
            Parsed::Shared(dso.map(Box::new))
        } else if rld_lto_api::is_bitcode(self.data) {
            Parsed::Bitcode
        } else if self.plugins.offers(self.data) {
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

struct Slots {
    /// The threads that parse: one fewer than the link's (at least one), so that the
    /// resolving thread, whose work the others wait on, keeps a core of its own. None if
    /// they could not be started: the link's own threads parse then.
    pool: Option<rayon::ThreadPool>,
    slots: Mutex<Vec<Slot>>,
    done: Condvar,
    /// Inputs submitted whose parse has not finished.
    unfinished: AtomicUsize,
    /// The archives' members, for parsing ahead (set once the inputs are known).
    ahead: OnceLock<Ahead>,
}

/// The members of the archives of a link (all but whole archives, whose members are all
/// parsed anyway), for parsing ahead of resolution: which member first defines each name
/// the archives index (the member a reference to it would load), and each member's parse
/// once one started.
pub struct Ahead {
    /// (hash, name, archive, member), in the archives' order, first definition only; built
    /// on the pool (parsing ahead starts when it is there).
    index: OnceLock<hashbrown::HashTable<IndexEntry>>,
    /// By archive and member.
    members: Vec<Vec<AheadMember>>,
    plugins: PluginOffers,
}

/// (hash, name, archive, member).
type IndexEntry = (u64, &'static [u8], u32, u32);

/// An archive's index as the archive reads it: each name and the member defining it.
pub type ArchiveIndex = std::sync::Arc<[crate::input::archive::IndexSymbol]>;

struct AheadMember {
    name: String,
    data: &'static [u8],
    /// [`UNCLAIMED`], [`CLAIMED`] while a thread submits its parse, else ticket + 1.
    ticket: AtomicUsize,
}

const UNCLAIMED: usize = 0;
const CLAIMED: usize = usize::MAX;

/// One archive as [`Prefetch::plan_ahead`] takes it: its members (name, bytes) and its
/// index (name, member); neither for a whole archive, whose members are all fetched (and
/// parsing) from the start.
pub struct AheadArchive {
    pub members: Vec<(String, &'static [u8])>,
    pub index: Option<ArchiveIndex>,
}

impl Ahead {
    fn member(&self, archive: u32, member: u32) -> Option<&AheadMember> {
        self.members.get(archive as usize)?.get(member as usize)
    }

    /// The members a parsed object's strong undefined references would load, in the
    /// order it names them (empty until the index is built).
    fn wanted_by(&self, obj: &ObjectFile, names: &[GlobalName]) -> Vec<(u32, u32)> {
        let Some(index) = self.index.get() else {
            return Vec::new();
        };
        let mut wanted = Vec::new();
        for (k, g) in names.iter().enumerate() {
            if !obj.is_strong_undefined(obj.first_global + k) {
                continue;
            }
            // By the hash alone: the bytes of a name that is in the index (most are) would be
            // read from another member's memory to confirm it, and a parse ahead is only a
            // guess (a member no reference loads is parsed for nothing, and nothing more).
            let hash = g.hash();
            if let Some(&(_, _, a, m)) = index.find(hash, |e| e.0 == hash) {
                let started = self.members[a as usize][m as usize]
                    .ticket
                    .load(Ordering::Relaxed);
                if started == UNCLAIMED {
                    wanted.push((a, m));
                }
            }
        }
        wanted
    }
}

fn build_index(archives: Vec<Option<ArchiveIndex>>) -> hashbrown::HashTable<IndexEntry> {
    // Room for every name up front: growing the table rehashed it a dozen times.
    let names = archives.iter().flatten().map(|s| s.len()).sum();
    let mut index = hashbrown::HashTable::with_capacity(names);
    for (a, symbols) in archives.iter().enumerate() {
        for s in symbols.iter().flat_map(|s| s.iter()) {
            let (hash, name) = (s.hash, s.name);
            if let hashbrown::hash_table::Entry::Vacant(v) =
                index.entry(hash, |e: &IndexEntry| e.0 == hash && e.1 == name, |e| e.0)
            {
                v.insert((hash, name, a as u32, s.member));
            }
        }
    }
    index
}

/// The background parse; a ticket names one submitted input.
pub struct Prefetch {
    shared: Arc<Slots>,
}

impl Default for Prefetch {
    fn default() -> Self {
        let threads = rayon::current_num_threads().saturating_sub(1).max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("rld-parse-{i}"))
            .build()
            .ok();
        Prefetch {
            shared: Arc::new(Slots {
                pool,
                slots: Mutex::default(),
                done: Condvar::new(),
                unfinished: AtomicUsize::new(0),
                ahead: OnceLock::new(),
            }),
        }
    }
}

/// One submitted input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket(usize);

impl Prefetch {
    /// Starts parsing `data` (named `name`) on the thread pool; `follow`: and then the
    /// archive members its references will load (see [`Ahead`]).
    pub fn submit(
        &self,
        name: String,
        data: &'static [u8],
        plugins: PluginOffers,
        follow: bool,
    ) -> Ticket {
        Ticket(self.shared.submit(Job {
            name,
            data,
            plugins,
            follow,
            shared: None,
        }))
    }

    /// Starts parsing shared library `data` (named `name`; see [`SharedFile::parse`] for
    /// the rest) on the thread pool.
    ///
    /// [`SharedFile::parse`]: crate::shared_file::SharedFile::parse
    pub fn submit_shared(
        &self,
        name: String,
        soname: String,
        data: &'static [u8],
        as_needed: bool,
    ) -> Ticket {
        Ticket(self.shared.submit(Job {
            name,
            data,
            plugins: PluginOffers::Nothing,
            follow: false,
            shared: Some((soname, as_needed)),
        }))
    }

    /// Makes the archives of the link known (`archives`, numbered from 0 as resolution
    /// numbers them), for parsing ahead; their index is built on the pool.
    pub fn plan_ahead(&self, archives: Vec<AheadArchive>, plugins: PluginOffers) {
        let mut indexes = Vec::with_capacity(archives.len());
        let members = archives
            .into_iter()
            .map(|archive| {
                indexes.push(archive.index);
                let members = archive.members.into_iter();
                members
                    .map(|(name, data)| AheadMember {
                        name,
                        data,
                        ticket: AtomicUsize::new(UNCLAIMED),
                    })
                    .collect()
            })
            .collect();
        let ahead = Ahead {
            index: OnceLock::new(),
            members,
            plugins,
        };
        if self.shared.ahead.set(ahead).is_err() {
            return;
        }
        let shared = Arc::clone(&self.shared);
        self.shared.spawn(move || {
            let index = build_index(indexes);
            if let Some(ahead) = shared.ahead.get() {
                let _ = ahead.index.set(index);
            }
        });
    }

    /// The parse of member `member` (named `name`, its bytes `data`) of archive `archive`:
    /// the one a thread started ahead (or an earlier call), else one started now. Each
    /// member's ticket is taken once.
    pub fn member(
        &self,
        archive: u32,
        member: u32,
        name: &str,
        data: &'static [u8],
        plugins: PluginOffers,
    ) -> Ticket {
        let planned = self.shared.ahead.get();
        let Some((ahead, m)) = planned.and_then(|a| Some((a, a.member(archive, member)?))) else {
            return self.submit(name.to_string(), data, plugins, true);
        };
        loop {
            match m.ticket.load(Ordering::Acquire) {
                UNCLAIMED => {
                    if let Some(ticket) = self.shared.start_member(ahead, m) {
                        return Ticket(ticket);
                    }
                }
                // A thread is between claiming it and recording its ticket (it may have
                // been preempted there: let it run).
                CLAIMED => std::thread::yield_now(),
                t => return Ticket(t - 1),
            }
        }
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
                    let follow = job.follow;
                    let parsed = job.run();
                    self.shared.unfinished.fetch_sub(1, Ordering::Relaxed);
                    // Parsing ahead goes on from here too, or it would stop at the first
                    // member resolution outran.
                    let wanted = self.shared.wanted_after(&parsed, follow);
                    self.shared.start(&wanted);
                    return parsed;
                }
                Slot::Parsing => {
                    slots[ticket.0] = Slot::Parsing;
                    // Rather than wait, this thread parses an input submitted later that
                    // no thread has started (resolution will most likely want it soon).
                    const LOOK: usize = 64;
                    let idle = (ticket.0 + 1..slots.len())
                        .take(LOOK)
                        .find(|&t| matches!(slots[t], Slot::Queued(_)));
                    if let Some(t) = idle {
                        drop(slots);
                        self.shared.work(t);
                        slots = lock(&self.shared.slots);
                        continue;
                    }
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
    fn spawn(&self, work: impl FnOnce() + Send + 'static) {
        match &self.pool {
            Some(pool) => pool.spawn(work),
            None => rayon::spawn(work),
        }
    }

    /// Whether this thread is one of those that parse.
    fn on_pool(&self) -> bool {
        match &self.pool {
            Some(pool) => pool.current_thread_index().is_some(),
            None => rayon::current_thread_index().is_some(),
        }
    }

    fn submit(self: &Arc<Self>, job: Job) -> usize {
        let ticket = {
            let mut slots = lock(&self.slots);
            slots.push(Slot::Queued(job));
            slots.len() - 1
        };
        self.unfinished.fetch_add(1, Ordering::Relaxed);
        let shared = Arc::clone(self);
        self.spawn(move || shared.work(ticket));
        ticket
    }

    fn work(self: &Arc<Self>, ticket: usize) {
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
        let follow = job.follow;
        let parsed = job.run();
        let wanted = self.wanted_after(&parsed, follow);
        lock(&self.slots)[ticket] = Slot::Done(parsed);
        self.unfinished.fetch_sub(1, Ordering::Relaxed);
        self.done.notify_all();
        self.start(&wanted);
    }

    /// The members to parse ahead after `parsed` (when it is to be followed).
    fn wanted_after(&self, parsed: &Parsed, follow: bool) -> Vec<(u32, u32)> {
        match (parsed, self.ahead.get()) {
            (Parsed::Object(Ok(parsed)), Some(ahead)) if follow => {
                ahead.wanted_by(&parsed.0, &parsed.1)
            }
            _ => Vec::new(),
        }
    }

    /// Starts parsing the `wanted` members no one has started on.
    fn start(self: &Arc<Self>, wanted: &[(u32, u32)]) {
        let Some(ahead) = self.ahead.get() else {
            return;
        };
        // Resolution loads the first reference's member first. A pool thread takes its
        // own newest work first (so it is handed them last first); work from elsewhere
        // waits in a queue, first in, first out.
        let start = |&(a, m): &(u32, u32)| {
            self.start_member(ahead, &ahead.members[a as usize][m as usize]);
        };
        if self.on_pool() {
            wanted.iter().rev().for_each(start);
        } else {
            wanted.iter().for_each(start);
        }
    }

    /// Starts parsing member `m` unless someone has: its ticket, if this call started it.
    fn start_member(self: &Arc<Self>, ahead: &Ahead, m: &AheadMember) -> Option<usize> {
        m.ticket
            .compare_exchange(UNCLAIMED, CLAIMED, Ordering::AcqRel, Ordering::Acquire)
            .ok()?;
        let ticket = self.submit(Job {
            name: m.name.clone(),
            data: m.data,
            plugins: ahead.plugins,
            follow: true,
            shared: None,
        });
        m.ticket.store(ticket + 1, Ordering::Release);
        Some(ticket)
    }
}

fn lock(m: &Mutex<Vec<Slot>>) -> std::sync::MutexGuard<'_, Vec<Slot>> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An x86-64 relocatable object defining the `defined` functions and referring to the
    /// `strong` and `weak` names.
    fn object(defined: &[&str], strong: &[&str], weak: &[&str]) -> &'static [u8] {
        use object::write::{Object, Symbol, SymbolSection};
        use object::{
            Architecture, BinaryFormat, Endianness, SymbolFlags, SymbolKind, SymbolScope,
        };
        let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let text = obj.section_id(object::write::StandardSection::Text);
        let code = obj.append_section_data(text, &[0xc3; 16], 16);
        for (k, name) in defined.iter().enumerate() {
            obj.add_symbol(Symbol {
                name: name.as_bytes().to_vec(),
                value: code + k as u64,
                size: 1,
                kind: SymbolKind::Text,
                scope: SymbolScope::Dynamic,
                weak: false,
                section: SymbolSection::Section(text),
                flags: SymbolFlags::None,
            });
        }
        let refs = strong
            .iter()
            .map(|n| (n, false))
            .chain(weak.iter().map(|n| (n, true)));
        for (name, weak) in refs {
            obj.add_symbol(Symbol {
                name: name.as_bytes().to_vec(),
                value: 0,
                size: 0,
                kind: SymbolKind::Text,
                scope: SymbolScope::Dynamic,
                weak,
                section: SymbolSection::Undefined,
                flags: SymbolFlags::None,
            });
        }
        Box::leak(obj.write().expect("object written").into_boxed_slice())
    }

    /// Waits (at most 10 s) until `done` holds.
    fn eventually(what: &str, done: impl Fn() -> bool) {
        let start = std::time::Instant::now();
        while !done() {
            assert!(start.elapsed().as_secs() < 10, "never: {what}");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    fn ticket_of(prefetch: &Prefetch, member: usize) -> usize {
        let ahead = prefetch.shared.ahead.get().expect("planned");
        ahead.members[0][member].ticket.load(Ordering::Acquire)
    }

    #[test]
    fn a_parsed_object_starts_the_members_its_strong_references_load() {
        let members = vec![
            ("lib.a(a.o)".to_string(), object(&["unused"], &[], &[])),
            (
                "lib.a(b.o)".to_string(),
                object(&["wanted"], &["deeper"], &[]),
            ),
            (
                "lib.a(c.o)".to_string(),
                object(&["weakly_wanted"], &[], &[]),
            ),
            ("lib.a(d.o)".to_string(), object(&["deeper"], &[], &[])),
        ];
        let index = [
            (&b"unused"[..], 0),
            (&b"wanted"[..], 1),
            (&b"weakly_wanted"[..], 2),
            (&b"deeper"[..], 3),
            // A second definition: the first member that defines it is the one loaded.
            (&b"wanted"[..], 0),
        ]
        .map(|(name, member)| crate::input::archive::IndexSymbol::new(name, member));
        let prefetch = Prefetch::default();
        prefetch.plan_ahead(
            vec![AheadArchive {
                members: members.clone(),
                index: Some(index.into()),
            }],
            PluginOffers::Nothing,
        );
        let ahead = prefetch.shared.ahead.get().expect("planned");
        eventually("the index is built", || ahead.index.get().is_some());

        let main = object(&["main"], &["wanted", "nowhere"], &["weakly_wanted"]);
        let ticket = prefetch.submit("main.o".into(), main, PluginOffers::Nothing, true);
        assert!(matches!(prefetch.take(ticket), Parsed::Object(Ok(_))));
        // b.o for `wanted`, and d.o for b.o's own reference, without resolution asking.
        eventually("b.o starts", || ticket_of(&prefetch, 1) != UNCLAIMED);
        eventually("d.o starts", || ticket_of(&prefetch, 3) != UNCLAIMED);
        assert_eq!(
            ticket_of(&prefetch, 0),
            UNCLAIMED,
            "not the later definition"
        );
        assert_eq!(
            ticket_of(&prefetch, 2),
            UNCLAIMED,
            "a weak reference loads nothing"
        );

        // Resolution's fetch gets the parse started ahead: the same ticket, b.o's symbols.
        let started = ticket_of(&prefetch, 1);
        eventually("b.o's ticket is recorded", || {
            ticket_of(&prefetch, 1) != CLAIMED
        });
        let (name, data) = &members[1];
        let fetched = prefetch.member(0, 1, name, data, PluginOffers::Nothing);
        assert_eq!(fetched.0 + 1, ticket_of(&prefetch, 1));
        assert!(started == CLAIMED || started == fetched.0 + 1);
        let Parsed::Object(Ok(parsed)) = prefetch.take(fetched) else {
            panic!("b.o parsed");
        };
        assert_eq!(parsed.0.name, "lib.a(b.o)");
        // A member nothing started: started now, and asked again, the same parse.
        let (name, data) = &members[2];
        let first = prefetch.member(0, 2, name, data, PluginOffers::Nothing);
        assert_eq!(
            prefetch.member(0, 2, name, data, PluginOffers::Nothing),
            first
        );
    }
}
