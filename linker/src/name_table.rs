//! Symbol names to symbol ids, split into shards by hash so that all threads can intern a
//! batch of files at once, each thread owning some of the shards.
//!
//! Ids are still given in order of first appearance — the order a serial loop over the
//! batch would give — so the outcome (and everything ordered by id, such as `.dynsym`)
//! depends neither on the thread count nor on timing: during the parallel pass a new name
//! gets a provisional id naming its shard and its place there, and one serial scan of the
//! batch afterwards hands out the real ids in order.

use crate::symbols::SymbolId;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// How many names ahead the serial loop asks for a name's slot.
const PREFETCH_AHEAD: usize = 8;
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

/// A shard's table takes the slot from the low bits: the shard comes from bits above
/// them, so that names sharing a shard still spread over its table.
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

/// A shard's table of slots: open addressing with linear probing, so that a look-up reads
/// one cache line (eight slots) whose place follows from the hash alone, and a loop can ask
/// for it a few names ahead ([`SlotTable::prefetch`]): resolution interns hundreds of
/// thousands of names into tables of megabytes, and each look-up that waited for memory
/// was most of its cost.
#[derive(Default)]
struct SlotTable {
    /// A power of two of them (or none), at most three quarters used; `EMPTY` ids free.
    slots: Vec<Slot>,
    len: usize,
}

/// The id of a free slot (no id, real or provisional, has every bit set).
const EMPTY: SymbolId = SymbolId::MAX;

impl SlotTable {
    fn prefetch(&self, half: u32) {
        if !self.slots.is_empty() {
            let home = half as usize & (self.slots.len() - 1);
            crate::cache_hint::prefetch(self.slots.as_ptr().wrapping_add(home));
        }
    }

    /// The place of the slot with `half` whose id `eq` accepts.
    fn position(&self, half: u32, mut eq: impl FnMut(SymbolId) -> bool) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut at = half as usize & mask;
        loop {
            let slot = self.slots[at];
            if slot.id == EMPTY {
                return None;
            }
            if slot.half == half && eq(slot.id) {
                return Some(at);
            }
            at = (at + 1) & mask;
        }
    }

    fn find(&self, half: u32, eq: impl FnMut(SymbolId) -> bool) -> Option<SymbolId> {
        self.position(half, eq).map(|at| self.slots[at].id)
    }

    /// Adds a slot for a name not in the table.
    fn insert(&mut self, half: u32, id: SymbolId) {
        self.reserve(1);
        let mask = self.slots.len() - 1;
        let mut at = half as usize & mask;
        while self.slots[at].id != EMPTY {
            at = (at + 1) & mask;
        }
        self.slots[at] = Slot { id, half };
        self.len += 1;
    }

    /// Makes room for `additional` more slots (moving the slots by their halves: no name
    /// is read).
    fn reserve(&mut self, additional: usize) {
        let need = self.len + additional;
        if need * 4 <= self.slots.len() * 3 {
            return;
        }
        let size = (need * 4).div_ceil(3).next_power_of_two().max(16);
        let old = std::mem::replace(&mut self.slots, vec![Slot { id: EMPTY, half: 0 }; size]);
        self.len = 0;
        for slot in old.into_iter().filter(|s| s.id != EMPTY) {
            self.insert(slot.half, slot.id);
        }
    }
}

/// One shard.
#[derive(Default)]
struct Shard {
    table: SlotTable,
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
        self.table.find(half_of(hash), |id| {
            name_in(&self.fresh, id, name_of) == name
        })
    }

    /// The id of `name` in a batch: its real id if it is known, else a provisional one.
    fn intern_provisional<F: Fn(SymbolId) -> &'static [u8]>(
        &mut self,
        shard: usize,
        name: &'static [u8],
        hash: u64,
        name_of: &F,
    ) -> u32 {
        if let Some(id) = self.find(name, hash, name_of) {
            return id;
        }
        let local = self.fresh.len();
        assert!(local < LOCAL_MAX, "too many new symbols in one batch");
        let provisional = PROVISIONAL | ((local as u32) << SHARD_BITS) | shard as u32;
        self.table.insert(half_of(hash), provisional);
        self.fresh.push((name, hash));
        provisional | FIRST
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
        match table.find(half, |id| name_of(id) == name) {
            Some(id) => (id, false),
            None => {
                table.insert(half, next);
                (next, true)
            }
        }
    }

    /// Asks for the memory interning a name of `hash` will read first.
    fn prefetch(&self, hash: u64) {
        self.shards[shard_of(hash)].table.prefetch(half_of(hash));
    }

    /// Makes room for `additional` more names.
    pub fn reserve(&mut self, additional: usize) {
        let each = additional.div_ceil(SHARDS);
        for shard in &mut self.shards {
            shard.table.reserve(each);
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
                for (k, n) in f.iter().enumerate() {
                    if let Some(ahead) = f.get(k + PREFETCH_AHEAD) {
                        self.prefetch(ahead.hash());
                    }
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
                    let at = shard
                        .table
                        .position(half, |e| e & PROVISIONAL != 0 && local_of(e) == local);
                    if let Some(at) = at {
                        shard.table.slots[at].id = id;
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
    fn slots_probe_past_the_end_of_the_table_and_survive_growth() {
        let mut table = SlotTable::default();
        // Halves whose home is the last slot of 16: later ones wrap around to the start.
        for id in 0..5 {
            table.insert(15 + 16 * id, id);
        }
        for id in 0..5 {
            assert_eq!(table.find(15 + 16 * id, |_| true), Some(id));
            assert_eq!(table.find(15, |found| found == id), (id == 0).then_some(id));
        }
        assert_eq!(table.find(14, |_| true), None);
        // Growing moves every slot, by its half alone.
        for id in 5..1000u32 {
            table.insert(id.wrapping_mul(0x9e37_79b9), id);
        }
        assert!(table.slots.len().is_power_of_two() && table.len * 4 <= table.slots.len() * 3);
        for id in 0..5 {
            assert_eq!(table.find(15 + 16 * id, |found| found == id), Some(id));
        }
        for id in 5..1000u32 {
            assert_eq!(
                table.find(id.wrapping_mul(0x9e37_79b9), |found| found == id),
                Some(id)
            );
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
