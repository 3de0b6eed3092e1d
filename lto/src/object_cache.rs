//! The partition cache (`--lto-cache-dir`): a partition whose inputs and decisions did not
//! change since an earlier link reuses that link's object instead of being optimized and
//! compiled again.
//!
//! The key is a hash of everything the partition's object depends on: rld's and LLVM's
//! versions and the summary format, the code generation settings, and, for each module the partition loads,
//! the bitcode's own hash and every decision about its globals (placement, linkage action,
//! shared name), its planned call sites and its alias annotations. A file holds the object,
//! what the backend reported about it (for the remarks), and a trailer with a hash of both:
//! a file that does not check out is ignored and replaced, never used.

use crate::alias_scopes::ShapeMismatch;
use crate::backend::{CallOutcome, Job};
use rld_summaries::partition::Placement;
use rld_summaries::GlobalId;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::{xxh3_128, Xxh3};

/// Ends every cache file, after the payload's hash.
const MAGIC: &[u8; 8] = b"RLDPART4";

/// The key of partition `p`; `module_hashes[m]` is the hash of module `m`'s bitcode,
/// `profiles` those of the profiles LLVM reads.
pub fn key(job: &Job, p: u32, module_hashes: &[u128], profiles: &[u128]) -> u128 {
    let mut h = Xxh3::new();
    let mut put = |bytes: &[u8]| {
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    put(env!("CARGO_PKG_VERSION").as_bytes());
    // An entry of another layout is never looked up.
    put(MAGIC);
    put(env!("RLD_LLVM_VERSION").as_bytes());
    put(&rld_summaries::FORMAT_VERSION.to_le_bytes());
    let cfg = job.cfg;
    put(format!(
        "O{} CGO{:?} pic={} cpu={:?}",
        cfg.opt_level, cfg.cg_opt_level, cfg.pic, cfg.cpu
    )
    .as_bytes());
    // LLVM's own options change what it makes.
    put(format!("{:?}", cfg.llvm_args).as_bytes());
    put(format!("{:?}", cfg.profile).as_bytes());
    put(format!("{:?}", cfg.pipeline).as_bytes());
    for hash in profiles {
        put(&hash.to_le_bytes());
    }
    put(format!("{:?}", job.declared_attributes).as_bytes());
    let plan = job.partitions;
    for &m in plan.modules(p) {
        put(&m.to_le_bytes());
        put(&module_hashes[m as usize].to_le_bytes());
        put(&[u8::from(plan.is_home(p, m))]);
        let actions = job.actions.get(m as usize).map_or(&[][..], Vec::as_slice);
        let mut decisions = Vec::with_capacity(actions.len() * 3);
        for (i, action) in actions.iter().enumerate() {
            let id = GlobalId {
                module: m,
                index: i as u32,
            };
            let placement = plan.placement(p, id);
            decisions.push(*action as u8);
            decisions.push(placement as u8);
            // Whether a definition here is shared depends on the other partitions; for one
            // defined elsewhere it only matters if code here names it, and then it is
            // shared (or not) whatever the other partitions hold: leave it out, so that a
            // change there does not invalidate this partition.
            if placement != Placement::Elsewhere {
                decisions.push(u8::from(plan.is_shared(id)));
            }
        }
        put(&decisions);
        if let Some(renames) = job.plans.renames.get(m as usize) {
            put(format!("{renames:?}").as_bytes());
        }
        let mut sites: Vec<_> = job
            .plans
            .sites
            .iter()
            .filter(|((sm, _), _)| *sm == m)
            .collect();
        sites.sort_by_key(|(k, _)| **k);
        put(format!("{sites:?}").as_bytes());
        if let Some(scopes) = job.aliases.modules.get(m as usize) {
            put(format!("{scopes:?}").as_bytes());
        }
        if let Some(attributes) = job.aliases.attributes.get(m as usize) {
            put(format!("{attributes:?}").as_bytes());
        }
    }
    h.digest128()
}

/// The cache file of `key` in `dir`.
fn path(dir: &Path, key: u128) -> PathBuf {
    dir.join(format!("{key:032x}.rldpart"))
}

/// The cached object and outcome of `key`, if a sound entry exists.
pub fn load(dir: &Path, key: u128) -> Option<(Vec<u8>, CallOutcome)> {
    let file = path(dir, key);
    let mut bytes = std::fs::read(&file).ok()?;
    let payload_len = bytes.len().checked_sub(24)?;
    let (payload, trailer) = bytes.split_at(payload_len);
    if &trailer[16..] != MAGIC || trailer[..16] != xxh3_128(payload).to_le_bytes() {
        return None;
    }
    bytes.truncate(payload_len);
    let entry = decode_in_place(bytes, 0)?;
    // Used: pruning keeps it.
    crate::cache_prune::touch(&file);
    Some(entry)
}

/// Stores an entry (written aside, then renamed: a concurrent link never reads half of it).
/// Failing to write the cache does not fail the link.
pub fn store(dir: &Path, key: u128, object: &[u8], outcome: &CallOutcome) {
    let mut payload = encode(object, outcome);
    let hash = xxh3_128(&payload);
    payload.extend_from_slice(&hash.to_le_bytes());
    payload.extend_from_slice(MAGIC);
    let _ = crate::store(dir, &path(dir, key), &payload);
}

/// A compiled partition's object and outcome as bytes: a cache entry's payload, and what a
/// compiling child process sends back.
pub(crate) fn encode(object: &[u8], outcome: &CallOutcome) -> Vec<u8> {
    let mut payload = Vec::with_capacity(object.len() + 256);
    encode_into(&mut payload, object, outcome);
    payload
}

/// [`encode`], appended to `out` (an object can be hundreds of megabytes: written once).
pub(crate) fn encode_into(out: &mut Vec<u8>, object: &[u8], outcome: &CallOutcome) {
    put_bytes(out, object);
    write_outcome(out, outcome);
}

/// What [`encode`] wrote from byte `at` of `buffer` on (a cache entry's payload, a
/// compiling child's frame), the object kept in `buffer`: moved to its start rather than
/// copied out, since an object can be a gigabyte. `None` on anything short or malformed.
pub(crate) fn decode_in_place(mut buffer: Vec<u8>, at: usize) -> Option<(Vec<u8>, CallOutcome)> {
    let mut r = Reader(buffer.get(at..)?);
    let len = r.bytes()?.len();
    let outcome = read_outcome(&mut r)?;
    if !r.0.is_empty() {
        return None;
    }
    let start = at + 8;
    buffer.truncate(start + len);
    buffer.drain(..start);
    Some((buffer, outcome))
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u64).to_le_bytes());
    out.extend_from_slice(b);
}

fn put_sites(out: &mut Vec<u8>, sites: &[(u32, u32)]) {
    put_u32(out, sites.len() as u32);
    for &(m, s) in sites {
        put_u32(out, m);
        put_u32(out, s);
    }
}

fn write_outcome(out: &mut Vec<u8>, o: &CallOutcome) {
    put_sites(out, &o.annotated);
    put_sites(out, &o.promoted);
    put_u32(out, o.call_attributes.len() as u32);
    for &((m, s), ref a) in &o.call_attributes {
        put_u32(out, m);
        put_u32(out, s);
        put_bytes(out, a.as_bytes());
    }
    put_u32(out, o.alias.functions as u32);
    put_u32(out, o.alias.instructions as u32);
    put_u32(out, o.alias.attributes.len() as u32);
    for (f, a) in &o.alias.attributes {
        put_bytes(out, f.as_bytes());
        put_bytes(out, a.as_bytes());
    }
    out.extend_from_slice(&o.bodies.to_le_bytes());
    out.extend_from_slice(&o.bodies_read.to_le_bytes());
    for skipped in [&o.alias_skipped, &o.sites_skipped] {
        put_u32(out, skipped.len() as u32);
        for (module, mismatch) in skipped {
            put_bytes(out, module.as_bytes());
            put_bytes(out, mismatch.function.as_bytes());
            put_bytes(out, mismatch.detail.as_bytes());
        }
    }
}

/// Reads what `store` wrote; `None` on anything short or malformed.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = u64::from_le_bytes(self.take(8)?.try_into().ok()?);
        self.take(usize::try_from(n).ok()?)
    }

    fn string(&mut self) -> Option<String> {
        String::from_utf8(self.bytes()?.to_vec()).ok()
    }

    fn skipped(&mut self) -> Option<Vec<(String, ShapeMismatch)>> {
        let n = self.u32()?;
        let mut out = Vec::new();
        for _ in 0..n {
            let module = self.string()?;
            let function = self.string()?;
            let detail = self.string()?;
            out.push((module, ShapeMismatch { function, detail }));
        }
        Some(out)
    }

    fn sites(&mut self) -> Option<Vec<(u32, u32)>> {
        let n = self.u32()?;
        let mut out = Vec::new();
        for _ in 0..n {
            out.push((self.u32()?, self.u32()?));
        }
        Some(out)
    }
}

fn read_outcome(r: &mut Reader) -> Option<CallOutcome> {
    let mut o = CallOutcome {
        annotated: r.sites()?,
        promoted: r.sites()?,
        ..Default::default()
    };
    for _ in 0..r.u32()? {
        let site = (r.u32()?, r.u32()?);
        o.call_attributes.push((site, r.string()?));
    }
    o.alias.functions = r.u32()? as usize;
    o.alias.instructions = r.u32()? as usize;
    for _ in 0..r.u32()? {
        o.alias.attributes.push((r.string()?, r.string()?));
    }
    o.bodies = r.u64()?;
    o.bodies_read = r.u64()?;
    o.alias_skipped = r.skipped()?;
    o.sites_skipped = r.skipped()?;
    Some(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome() -> CallOutcome {
        let mut o = CallOutcome {
            annotated: vec![(0, 1), (2, 3)],
            promoted: vec![(2, 3)],
            call_attributes: vec![((0, 1), "memory(read) 1:captures(none)".into())],
            ..Default::default()
        };
        o.alias.functions = 4;
        o.alias.instructions = 9;
        (o.bodies, o.bodies_read) = (12, 5);
        o.alias
            .attributes
            .push(("f".into(), "readonly nofree".into()));
        o.alias_skipped.push((
            "a.o".into(),
            ShapeMismatch {
                function: "g".into(),
                detail: "3 instructions".into(),
            },
        ));
        o.sites_skipped.push((
            "b.o".into(),
            ShapeMismatch {
                function: "main".into(),
                detail: "7 instructions".into(),
            },
        ));
        o
    }

    #[test]
    fn a_child_s_frame_gives_its_object_in_place() {
        let mut frame = b"nanosecs".to_vec();
        encode_into(&mut frame, b"\x7fELF object", &outcome());
        let copy = decode_in_place(frame[8..].to_vec(), 0).expect("decodes from its start");
        let (object, o) = decode_in_place(frame.clone(), 8).expect("decodes in place");
        assert_eq!(object, b"\x7fELF object");
        assert_eq!(object, copy.0);
        assert_eq!(o.call_attributes, copy.1.call_attributes);
        assert_eq!((o.bodies, o.bodies_read), (12, 5));
        // Short, or with bytes after the outcome: refused.
        assert!(decode_in_place(frame[..frame.len() - 1].to_vec(), 8).is_none());
        let mut longer = frame.clone();
        longer.push(0);
        assert!(decode_in_place(longer, 8).is_none());
        assert!(decode_in_place(frame[..4].to_vec(), 8).is_none());
    }

    #[test]
    fn an_entry_reads_back_and_a_damaged_one_does_not() {
        let dir = std::env::temp_dir().join(format!("rld-part-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        store(&dir, 7, b"\x7fELF object", &outcome());
        let (object, o) = load(&dir, 7).expect("entry");
        assert_eq!(object, b"\x7fELF object");
        assert_eq!(
            (
                o.annotated,
                o.promoted,
                o.alias.functions,
                o.alias.instructions
            ),
            (vec![(0, 1), (2, 3)], vec![(2, 3)], 4, 9)
        );
        assert_eq!(o.alias.attributes, outcome().alias.attributes);
        assert_eq!(o.call_attributes, outcome().call_attributes);
        assert_eq!(o.alias_skipped[0].1, outcome().alias_skipped[0].1);
        assert_eq!(o.sites_skipped, outcome().sites_skipped);
        assert_eq!((o.bodies, o.bodies_read), (12, 5));
        assert!(load(&dir, 8).is_none());
        // Every single flipped byte and every truncation is refused.
        let file = path(&dir, 7);
        let good = std::fs::read(&file).unwrap();
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x20;
            std::fs::write(&file, &bad).unwrap();
            assert!(load(&dir, 7).is_none(), "flipped byte {i} accepted");
        }
        for n in 0..good.len() {
            std::fs::write(&file, &good[..n]).unwrap();
            assert!(load(&dir, 7).is_none(), "{n} bytes accepted");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
