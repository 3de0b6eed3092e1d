//! Symbol names to symbol ids, split into shards by hash so that all threads can intern a
//! batch of files at once, each thread owning some of the shards.
//!
//! Ids are still given in order of first appearance — the order a serial loop over the
//! batch would give — so the outcome (and everything ordered by id, such as `.dynsym`)
//! depends neither on the thread count nor on timing: during the parallel pass a new name
//! gets a provisional id naming its shard and its place there, and one serial scan of the
//! batch afterwards hands out the real ids in order.

use crate::symbols::SymbolId;
use hashbrown::HashTable;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// A fixed number, not the thread count: each thread takes a share of them.
const SHARD_BITS: u32 = 5;
const SHARDS: usize = 1 << SHARD_BITS;
/// Below this many names a batch is interned on the calling thread: handing work to the
/// pool costs more than it saves.
const PARALLEL_MIN: usize = 8192;

/// Provisional ids (during a batch only): bit 31 set, bit 30 on a name's first occurrence,
/// then the name's place among its shard's new names, then the shard.
const PROVISIONAL: u32 = 1 << 31;
const FIRST: u32 = 1 << 30;
const LOCAL_MAX: usize = 1 << (30 - SHARD_BITS);

pub fn name_hash(name: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(name)
}

/// hashbrown takes the bucket from the low bits and a tag from the top seven: the shard
/// comes from bits in between, so that names sharing a shard still spread over its table.
fn shard_of(hash: u64) -> usize {
    (hash >> 32) as usize & (SHARDS - 1)
}

/// A name to intern, with its [`name_hash`].
pub trait HashedName: Sync {
    fn name(&self) -> &'static [u8];
    fn hash(&self) -> u64;
}

/// A slot of a shard's table: an id, and the low half of its name's hash. The name itself
/// is read from its symbol only to confirm a match (a table of names would hold 16 more
/// bytes per slot for the whole link); the hash half lets the table grow without reading a
/// single name, and turns away almost every other name before its bytes are read (both
/// were a fifth of resolution's time on a link of many small objects).
#[derive(Clone, Copy)]
struct Slot {
    id: SymbolId,
    half: u32,
}

/// The half of `hash` a slot keeps.
fn half_of(hash: u64) -> u32 {
    hash as u32
}

/// The hash the table places a slot by: made from the half it keeps (hashbrown takes the
/// bucket from the low bits and a tag from the top seven, so the half is in both).
fn spread(half: u32) -> u64 {
    u64::from(half) << 32 | u64::from(half)
}

/// One shard.
#[derive(Default)]
struct Shard {
    table: HashTable<Slot>,
    /// The names new in the batch being interned, in order of first appearance.
    fresh: Vec<(&'static [u8], u64)>,
}

/// The place of a provisional id among its shard's new names.
fn local_of(id: u32) -> usize {
    ((id & !(PROVISIONAL | FIRST)) >> SHARD_BITS) as usize
}

/// The name behind an id of a shard whose new names are `fresh`: a symbol's, or a new
/// one's during a batch.
fn name_in<F: Fn(SymbolId) -> &'static [u8]>(
    fresh: &[(&'static [u8], u64)],
    id: SymbolId,
    name_of: &F,
) -> &'static [u8] {
    if id & PROVISIONAL != 0 {
        fresh[local_of(id)].0
    } else {
        name_of(id)
    }
}

impl Shard {
    fn find<F: Fn(SymbolId) -> &'static [u8]>(
        &self,
        name: &[u8],
        hash: u64,
        name_of: &F,
    ) -> Option<SymbolId> {
        let half = half_of(hash);
        self.table
            .find(spread(half), |e| {
                e.half == half && name_in(&self.fresh, e.id, name_of) == name
            })
            .map(|e| e.id)
    }

    /// The id of `name` in a batch: its real id if it is known, else a provisional one.
    fn intern_provisional<F: Fn(SymbolId) -> &'static [u8]>(
        &mut self,
        shard: usize,
        name: &'static [u8],
        hash: u64,
        name_of: &F,
    ) -> u32 {
        let local = self.fresh.len();
        let provisional = PROVISIONAL | ((local as u32) << SHARD_BITS) | shard as u32;
        let fresh = &self.fresh;
        let half = half_of(hash);
        let entry = self.table.entry(
            spread(half),
            |e| e.half == half && name_in(fresh, e.id, name_of) == name,
            |e| spread(e.half),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(e) => e.get().id,
            hashbrown::hash_table::Entry::Vacant(e) => {
                assert!(local < LOCAL_MAX, "too many new symbols in one batch");
                e.insert(Slot {
                    id: provisional,
                    half,
                });
                self.fresh.push((name, hash));
                provisional | FIRST
            }
        }
    }
}

pub struct NameTable {
    shards: Vec<Shard>,
}

impl Default for NameTable {
    fn default() -> Self {
        NameTable {
            shards: (0..SHARDS).map(|_| Shard::default()).collect(),
        }
    }
}

impl NameTable {
    /// The id of `name`; `name_of` gives the name of an id.
    pub fn lookup<F: Fn(SymbolId) -> &'static [u8]>(
        &self,
        name: &[u8],
        name_of: &F,
    ) -> Option<SymbolId> {
        let hash = name_hash(name);
        self.shards[shard_of(hash)].find(name, hash, name_of)
    }

    /// The id of `name`, or `next` (then taken) if it is new; says whether it was new.
    pub fn intern<F: Fn(SymbolId) -> &'static [u8]>(
        &mut self,
        name: &'static [u8],
        hash: u64,
        next: SymbolId,
        name_of: &F,
    ) -> (SymbolId, bool) {
        let table = &mut self.shards[shard_of(hash)].table;
        let half = half_of(hash);
        let entry = table.entry(
            spread(half),
            |e| e.half == half && name_of(e.id) == name,
            |e| spread(e.half),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(e) => (e.get().id, false),
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(Slot { id: next, half });
                (next, true)
            }
        }
    }

    /// Makes room for `additional` more names.
    pub fn reserve(&mut self, additional: usize) {
        let each = additional.div_ceil(SHARDS);
        for shard in &mut self.shards {
            shard.table.reserve(each, |e| spread(e.half));
        }
    }

    /// Interns the names of `files`, in order: the ids of each file's names, with new names
    /// numbered from `next` in order of first appearance and appended to `new_names`.
    /// `name_of` gives the names of the ids known before. A large batch is interned on
    /// the thread pool only if `pool_free` (else the calling thread would wait for
    /// whatever the pool has queued).
    pub fn intern_batch<N: HashedName, F: Fn(SymbolId) -> &'static [u8] + Sync>(
        &mut self,
        files: &[&[N]],
        next: SymbolId,
        new_names: &mut Vec<&'static [u8]>,
        name_of: &F,
        pool_free: bool,
    ) -> Vec<Vec<SymbolId>> {
        let total: usize = files.iter().map(|f| f.len()).sum();
        let threads = rayon::current_num_threads().min(SHARDS);
        if total < PARALLEL_MIN || threads < 2 || !pool_free {
            // Names new in this batch are read from `new_names`.
            let (known, base) = (next, new_names.len());
            let mut next = next;
            let mut ids = Vec::with_capacity(files.len());
            for f in files {
                let mut file_ids = Vec::with_capacity(f.len());
                for n in f.iter() {
                    let name_at = |id: SymbolId| {
                        if id >= known {
                            new_names[base + (id - known) as usize]
                        } else {
                            name_of(id)
                        }
                    };
                    let (id, new) = self.intern(n.name(), n.hash(), next, &name_at);
                    if new {
                        next += 1;
                        new_names.push(n.name());
                    }
                    file_ids.push(id);
                }
                ids.push(file_ids);
            }
            return ids;
        }

        // Each thread scans the whole batch in order and interns the names of its shards.
        let raw: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(0)).collect();
        let per_thread = SHARDS.div_ceil(threads);
        self.shards
            .par_chunks_mut(per_thread)
            .enumerate()
            .for_each(|(t, shards)| {
                let first = t * per_thread;
                let mut k = 0;
                for file in files {
                    for n in file.iter() {
                        let shard = shard_of(n.hash());
                        if let Some(own) = shards.get_mut(shard.wrapping_sub(first)) {
                            let id = own.intern_provisional(shard, n.name(), n.hash(), name_of);
                            raw[k].store(id, Relaxed);
                        }
                        k += 1;
                    }
                }
            });

        // Real ids for new names, in order of first appearance.
        let mut translate: Vec<Vec<SymbolId>> =
            self.shards.iter().map(|s| vec![0; s.fresh.len()]).collect();
        let mut next = next;
        let mut raw = raw.into_iter().map(AtomicU32::into_inner);
        let ids = files
            .iter()
            .map(|file| {
                file.iter()
                    .zip(raw.by_ref())
                    .map(|(n, id)| {
                        if id & PROVISIONAL == 0 {
                            return id;
                        }
                        let shard = id as usize & (SHARDS - 1);
                        let local = local_of(id);
                        if id & FIRST != 0 {
                            translate[shard][local] = next;
                            new_names.push(n.name());
                            next += 1;
                        }
                        translate[shard][local]
                    })
                    .collect()
            })
            .collect();

        // The tables take the real ids.
        self.shards
            .par_iter_mut()
            .zip(translate.par_iter())
            .for_each(|(shard, real)| {
                for (local, &id) in real.iter().enumerate() {
                    let half = half_of(shard.fresh[local].1);
                    let at = shard.table.find_mut(spread(half), |e| {
                        e.id & PROVISIONAL != 0 && local_of(e.id) == local
                    });
                    if let Some(e) = at {
                        e.id = id;
                    }
                }
                shard.fresh.clear();
            });
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct N(&'static [u8]);

    impl HashedName for N {
        fn name(&self) -> &'static [u8] {
            self.0
        }
        fn hash(&self) -> u64 {
            name_hash(self.0)
        }
    }

    fn leak(s: String) -> &'static [u8] {
        Box::leak(s.into_bytes().into_boxed_slice())
    }

    /// Files whose names repeat across and within files, some known before the batch.
    fn batch() -> Vec<Vec<N>> {
        (0..40)
            .map(|f| {
                (0..700)
                    .map(|i| N(leak(format!("sym_{}", (f * 37 + i * 11) % 9000))))
                    .collect()
            })
            .collect()
    }

    /// What a serial loop gives: the reference the parallel pass must match.
    fn serial(
        known: &[&'static [u8]],
        files: &[Vec<N>],
    ) -> (Vec<Vec<SymbolId>>, Vec<&'static [u8]>) {
        let mut ids = std::collections::HashMap::new();
        let mut names = Vec::new();
        for &k in known {
            ids.insert(k, ids.len() as SymbolId);
        }
        let per_file = files
            .iter()
            .map(|f| {
                f.iter()
                    .map(|n| {
                        let next = ids.len() as SymbolId;
                        *ids.entry(n.0).or_insert_with(|| {
                            names.push(n.0);
                            next
                        })
                    })
                    .collect()
            })
            .collect();
        (per_file, names)
    }

    #[test]
    fn names_whose_hashes_agree_are_still_told_apart() {
        let mut table = NameTable::default();
        let names: Vec<&'static [u8]> = vec![b"alpha", b"beta", b"gamma"];
        let name_of = |id: SymbolId| names[id as usize];
        // One hash for all three, as if they collided: only the bytes tell them apart.
        let hash = name_hash(b"alpha");
        for (next, &n) in names.iter().enumerate() {
            let next = next as SymbolId;
            assert_eq!(table.intern(n, hash, next, &name_of), (next, true));
        }
        table.reserve(10_000);
        for (id, &n) in names.iter().enumerate() {
            assert_eq!(table.intern(n, hash, 99, &name_of), (id as SymbolId, false));
        }
    }

    #[test]
    fn a_parallel_batch_numbers_names_as_a_serial_loop_does() {
        let known: Vec<&'static [u8]> = (0..500).map(|i| leak(format!("sym_{}", i * 7))).collect();
        let files = batch();
        let slices: Vec<&[N]> = files.iter().map(Vec::as_slice).collect();
        let (want_ids, want_names) = serial(&known, &files);
        for threads in [1, 2, 3, 8] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut table = NameTable::default();
            let mut all: Vec<&'static [u8]> = Vec::new();
            for &k in &known {
                let next = all.len() as SymbolId;
                let name_of = |id: SymbolId| all[id as usize];
                assert_eq!(table.intern(k, name_hash(k), next, &name_of), (next, true));
                all.push(k);
            }
            let mut names = Vec::new();
            let ids = {
                let name_of = |id: SymbolId| all[id as usize];
                pool.install(|| {
                    table.intern_batch(&slices, known.len() as SymbolId, &mut names, &name_of, true)
                })
            };
            all.extend(&names);
            let name_of = |id: SymbolId| all[id as usize];
            assert_eq!(ids, want_ids, "{threads} threads");
            assert_eq!(names, want_names, "{threads} threads");
            // The table holds the real ids afterwards.
            for (file, ids) in files.iter().zip(&ids) {
                for (n, &id) in file.iter().zip(ids) {
                    assert_eq!(table.lookup(n.0, &name_of), Some(id));
                }
            }
        }
    }
}
