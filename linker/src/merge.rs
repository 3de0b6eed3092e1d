//! SHF_MERGE deduplication: the pieces (strings, constants) of every live merge section
//! with the same output section, flags and entry size (and, for strings, alignment) form a
//! group of unique pieces, laid out in a final link in lld's order (by a hash of their
//! bytes into 32 shards, each in input order: see [`lld_shard`]), so that the merged bytes,
//! and the addresses of all that follows them, are lld's; in a relocatable output in input
//! order, as GNU ld leaves them. The result does not depend on threads.
//!
//! Every piece keeps its section's alignment, as lld's merge sections do: a piece may start
//! anywhere in its input section, but code relies on the section's alignment for all of
//! them (clang loads `.rodata.str1.16` strings with `movaps`). Strings of different
//! alignments are kept apart, so that 1-byte-aligned ones are not padded; constants of
//! different alignments share a group, whose pieces all take the largest (lld's rule).
//!
//! The work is parallel where it pays: each section is split and its pieces hashed on its
//! own; pieces are then deduplicated in shares by hash, each share (a set of lld's shards)
//! on its own thread, which deals the unique pieces it finds to their shards in input
//! order; and each shard lays out and copies its pieces in parallel.

use crate::object_file::{FileId, ObjectFile, Piece, SectionKind};
use crate::output_section::OutputId;
use hashbrown::HashTable;
use object::elf;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicU32, Ordering};

/// One deduplicated group: its unique pieces, in the order they first occur, each at a
/// multiple of `align` (the largest of its sections' alignments).
pub struct MergeGroup {
    pub output: OutputId,
    pub align: u64,
    pub data: Vec<u8>,
}

/// The groups, and which group each merge section's pieces are in (their offsets are
/// relative to the group until [`Merged::place`] moves them into the output section).
pub struct Merged {
    pub groups: Vec<MergeGroup>,
    sections: Vec<Member>,
}

/// A merge section taking part: object, section index, group.
#[derive(Clone, Copy)]
struct Member {
    file: FileId,
    sec: u32,
    group: u32,
}

/// What puts merge sections in one group: output section, flags, entry size, and the
/// alignment of strings (0 for constants, which share a group whatever their alignment).
type GroupKey = (OutputId, u64, u64, u64);

/// The alignment of a merge section, which each of its pieces keeps.
fn section_align(sec: &crate::object_file::InputSection) -> u64 {
    u64::from(sec.align.max(1))
}

/// The group key of merge section `sec` (see [`GroupKey`]).
fn group_key(sec: &crate::object_file::InputSection) -> GroupKey {
    let strings = sec.flags & u64::from(elf::SHF_STRINGS) != 0;
    let align = if strings { section_align(sec) } else { 0 };
    (sec.output, sec.flags, u64::from(sec.entsize.max(1)), align)
}

/// A piece of a section: its byte range and the hash of its bytes.
#[derive(Clone, Copy)]
struct Span {
    start: u64,
    end: u64,
    hash: u64,
    /// Something kept refers to it (every piece, but with `--gc-sections`).
    live: bool,
}

/// lld's number of shards of a merged section (`MergeNoTailSection`).
const SHARDS: usize = 32;

/// The shard lld puts a piece in: lld keeps 31 bits of the piece's xxh3 hash (the low 32,
/// shifted right by one) and takes the top five of them.
fn lld_shard(hash: u64) -> usize {
    (((hash as u32) >> 1) >> (31 - SHARDS.trailing_zeros())) as usize
}

/// Which of `threads` deduplicates a piece. hashbrown takes a bucket from a hash's low bits
/// and a tag from its top seven: the share comes from bits in between, or a thread's pieces
/// would share their tags.
fn share_of(hash: u64, threads: usize) -> usize {
    (hash >> 32) as usize % threads
}

/// A piece to deduplicate: its bytes, group and number, and its hash salted with the group.
#[derive(Clone, Copy)]
struct Candidate {
    bytes: &'static [u8],
    group: u32,
    piece: u32,
    hash: u64,
}

impl Merged {
    /// The group of merge section `sec` of `file`, if it takes part.
    pub fn group_of(&self, file: FileId, sec: u32) -> Option<u32> {
        // Members are listed in (file, section) order.
        let i = self
            .sections
            .binary_search_by_key(&(file, sec), |m| (m.file, m.sec))
            .ok()?;
        Some(self.sections[i].group)
    }

    /// Once the groups are placed at `group_offsets` inside their output sections, makes
    /// every piece's offset relative to its output section.
    pub fn place(&self, objects: &mut [ObjectFile], group_offsets: &[u64]) {
        for m in &self.sections {
            let base = group_offsets[m.group as usize];
            let sec = &mut objects[m.file as usize].sections[m.sec as usize];
            for p in sec.pieces.iter_mut() {
                if p.output_offset != u64::MAX {
                    p.output_offset += base;
                }
            }
        }
    }
}

/// Splits and deduplicates every live merge section (see the module's comment).
///
/// `lld_order`: the pieces go in lld's order (a final link); otherwise in input order, as
/// GNU ld leaves them in a relocatable output.
///
/// `marks`: with `--gc-sections`, which pieces what is kept refers to; the others are
/// dropped (lld's liveness of section pieces).
///
/// `tail_merge` (`-O2`, a final link): a string that ends another shares its bytes, laid
/// out as lld's `-O2` lays them out ([`tail_layout`]).
pub fn merge_sections(
    objects: &mut [ObjectFile],
    lld_order: bool,
    marks: Option<&crate::gc::PieceMarks>,
    tail_merge: bool,
) -> Merged {
    // The sections and their groups, in input order (each object lists its merge
    // sections: objects have thousands of sections, few of them mergeable).
    let found: Vec<Vec<(u32, GroupKey, u64)>> = objects
        .par_iter()
        .map(|obj| {
            obj.merges
                .iter()
                .map(|&i| (i, &obj.sections[i as usize]))
                .filter(|(_, sec)| {
                    sec.kind == SectionKind::Merge
                        && sec.live
                        && sec.output != crate::object_file::NO_OUTPUT
                })
                .map(|(i, sec)| (i, group_key(sec), section_align(sec)))
                .collect()
        })
        .collect();
    let mut groups: Vec<MergeGroup> = Vec::new();
    // Per group: whether its strings are tail-merged.
    let mut tails: Vec<bool> = Vec::new();
    let mut group_of: FxHashMap<GroupKey, u32> = FxHashMap::default();
    let mut sections = Vec::new();
    for (file, found) in found.into_iter().enumerate() {
        for (sec, key, align) in found {
            let group = *group_of.entry(key).or_insert_with(|| {
                groups.push(MergeGroup {
                    output: key.0,
                    align: 1,
                    data: Vec::new(),
                });
                tails.push(tail_merge && lld_order && key.1 & u64::from(elf::SHF_STRINGS) != 0);
                (groups.len() - 1) as u32
            });
            let g = &mut groups[group as usize];
            g.align = g.align.max(align);
            sections.push(Member {
                file: file as FileId,
                sec,
                group,
            });
        }
    }
    let data_of = |m: &Member| objects[m.file as usize].sections[m.sec as usize].data();

    // Each section split into pieces, each piece hashed.
    let spans: Vec<Vec<Span>> = sections
        .par_iter()
        .map(|m| {
            let sec = &objects[m.file as usize].sections[m.sec as usize];
            let mut spans = split(sec.data(), sec.flags, sec.entsize.max(1) as usize);
            if let Some(refs) = marks.and_then(|marks| marks.section(m.file, m.sec)) {
                for span in &mut spans {
                    span.live = refs.any(span.start, span.end);
                }
            }
            spans
        })
        .collect();
    // Piece `p` of section `s` is number `first[s] + p` overall.
    let mut first = Vec::with_capacity(spans.len() + 1);
    let mut total = 0u32;
    for s in &spans {
        first.push(total);
        total += s.len() as u32;
    }

    // Each thread takes the pieces whose hash falls in its share and finds, for each, the
    // first occurrence of the same bytes in the same group: every thread scans the pieces
    // in input order, so the first one it finds is it, whatever the thread count. A piece
    // carries its bytes and group into the table: comparing them reads nothing else. In a
    // final link a thread's share is a set of lld's shards ([`lld_shard`]), so that it
    // also deals the unique pieces it finds to their shards, in input order (below).
    let threads = rayon::current_num_threads().clamp(1, SHARDS);
    let owner = |span: &Span, hash: u64| {
        if lld_order {
            lld_shard(span.hash) % threads
        } else {
            share_of(hash, threads)
        }
    };
    // A dead piece keeps u32::MAX: it has no place.
    let rep: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(u32::MAX)).collect();
    // Per thread, in a final link: each group's shards' unique pieces it found, in input
    // order, as (section, piece), by group * SHARDS + shard.
    let mut dealt: Vec<Vec<Vec<(u32, u32)>>> = (0..threads)
        .into_par_iter()
        .map(|t| {
            let mut table: HashTable<Candidate> =
                HashTable::with_capacity(total as usize / threads);
            let mut dealt = vec![Vec::new(); if lld_order { groups.len() * SHARDS } else { 0 }];
            for (s, pieces) in spans.iter().enumerate() {
                let m = &sections[s];
                let data = data_of(m);
                let salt = u64::from(m.group).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                for (p, span) in pieces.iter().enumerate() {
                    let hash = span.hash ^ salt;
                    if !span.live || owner(span, hash) != t {
                        continue;
                    }
                    let c = Candidate {
                        bytes: &data[span.start as usize..span.end as usize],
                        group: m.group,
                        piece: first[s] + p as u32,
                        hash,
                    };
                    let found = table.find(hash, |f| f.group == c.group && f.bytes == c.bytes);
                    let first_seen = match found {
                        Some(f) => f.piece,
                        None => {
                            table.insert_unique(hash, c, |f| f.hash);
                            if lld_order {
                                let b = m.group as usize * SHARDS + lld_shard(span.hash);
                                dealt[b].push((s as u32, p as u32));
                            }
                            c.piece
                        }
                    };
                    rep[c.piece as usize].store(first_seen, Ordering::Relaxed);
                }
            }
            dealt
        })
        .collect();
    let rep: Vec<u32> = rep.into_iter().map(AtomicU32::into_inner).collect();

    // The unique pieces laid out as lld lays them out: each group's pieces are dealt to
    // 32 shards by their hash ([`lld_shard`]), the shards follow one another (a non-empty
    // one at a multiple of the group's alignment), and a shard holds its pieces in input
    // order, each at a multiple of the alignment. The merged bytes are then lld's, and so
    // are the addresses of whatever comes after them (code included).
    let aligns: Vec<usize> = groups.iter().map(|g| g.align as usize).collect();
    // Each group's shards' unique pieces, in input order: (section, piece).
    let buckets: Vec<Vec<(u32, u32)>> = if lld_order {
        (0..groups.len() * SHARDS)
            .map(|b| std::mem::take(&mut dealt[(b % SHARDS) % threads][b]))
            .collect()
    } else {
        // A relocatable output keeps one shard per group: its pieces, found by all the
        // threads, in input order.
        let mut buckets = vec![Vec::new(); groups.len() * SHARDS];
        for (s, pieces) in spans.iter().enumerate() {
            let group = sections[s].group as usize;
            for p in 0..pieces.len() {
                let piece = (first[s] + p as u32) as usize;
                if rep[piece] as usize == piece {
                    buckets[group * SHARDS].push((s as u32, p as u32));
                }
            }
        }
        buckets
    };
    // Tail-merged groups are laid out on their own (below): their unique pieces leave the
    // shards, which then hold nothing.
    let mut buckets = buckets;
    let tail_pieces: Vec<(usize, Vec<(u32, u32)>)> = (0..groups.len())
        .filter(|&g| tails[g])
        .map(|g| {
            let pieces = buckets[g * SHARDS..(g + 1) * SHARDS]
                .iter_mut()
                .flat_map(std::mem::take)
                .collect();
            (g, pieces)
        })
        .collect();
    let span_of = |(s, p): (u32, u32)| &spans[s as usize][p as usize];
    // Each shard's size, its pieces laid out from 0.
    let sizes: Vec<usize> = buckets
        .par_iter()
        .enumerate()
        .map(|(b, bucket)| {
            let align = aligns[b / SHARDS];
            bucket.iter().fold(0usize, |size, &at| {
                let span = span_of(at);
                size.next_multiple_of(align) + (span.end - span.start) as usize
            })
        })
        .collect();
    let mut shard_start = vec![0usize; buckets.len()];
    for (g, group) in groups.iter_mut().enumerate() {
        let mut size = 0usize;
        for b in g * SHARDS..(g + 1) * SHARDS {
            if sizes[b] > 0 {
                size = size.next_multiple_of(aligns[g]);
            }
            shard_start[b] = size;
            size += sizes[b];
        }
        group.data = vec![0; size];
    }
    // Each shard's bytes are a slice of its group's of their own: all filled at once.
    let mut shares: Vec<&mut [u8]> = Vec::with_capacity(buckets.len());
    for (g, group) in groups.iter_mut().enumerate() {
        let mut rest = &mut group.data[..];
        let mut consumed = 0;
        for b in g * SHARDS..(g + 1) * SHARDS {
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(shard_start[b] - consumed);
            let (share, tail) = tail.split_at_mut(sizes[b]);
            rest = tail;
            consumed = shard_start[b] + sizes[b];
            shares.push(share);
        }
    }
    let placed: Vec<Vec<u64>> = shares
        .into_par_iter()
        .zip(&buckets)
        .enumerate()
        .map(|(b, (share, bucket))| {
            let align = aligns[b / SHARDS];
            let mut size = 0usize;
            bucket
                .iter()
                .map(|&(s, p)| {
                    let span = span_of((s, p));
                    let (from, to) = (span.start as usize, span.end as usize);
                    let here = size.next_multiple_of(align);
                    let bytes = &data_of(&sections[s as usize])[from..to];
                    share[here..here + bytes.len()].copy_from_slice(bytes);
                    size = here + bytes.len();
                    (shard_start[b] + here) as u64
                })
                .collect()
        })
        .collect();
    let mut offset = vec![0u64; total as usize];
    for (bucket, placed) in buckets.iter().zip(&placed) {
        for (&(s, p), &at) in bucket.iter().zip(placed) {
            offset[(first[s as usize] + p) as usize] = at;
        }
    }
    let piece_bytes = |(s, p): (u32, u32)| {
        let span = span_of((s, p));
        &data_of(&sections[s as usize])[span.start as usize..span.end as usize]
    };
    let tails_laid: Vec<(usize, Vec<u8>, Vec<u64>)> = tail_pieces
        .par_iter()
        .map(|(g, pieces)| {
            let strings: Vec<&[u8]> = pieces.iter().map(|&at| piece_bytes(at)).collect();
            let (data, placed) = tail_layout(&strings, aligns[*g]);
            (*g, data, placed)
        })
        .collect();
    for ((g, data, placed), (_, pieces)) in tails_laid.into_iter().zip(&tail_pieces) {
        groups[g].data = data;
        for (&(s, p), at) in pieces.iter().zip(placed) {
            offset[(first[s as usize] + p) as usize] = at;
        }
    }

    // Every piece where its first occurrence went.
    let pieces: Vec<Vec<Piece>> = spans
        .par_iter()
        .enumerate()
        .map(|(s, spans)| {
            spans
                .iter()
                .enumerate()
                .map(|(p, span)| Piece {
                    input_offset: span.start,
                    output_offset: match rep[(first[s] + p as u32) as usize] {
                        u32::MAX => u64::MAX,
                        r => offset[r as usize],
                    },
                })
                .collect()
        })
        .collect();
    for (m, pieces) in sections.iter().zip(pieces) {
        objects[m.file as usize].sections[m.sec as usize].pieces = pieces.into();
    }
    Merged { groups, sections }
}

/// Lays out unique strings as lld's `-O2` does (LLVM's `StringTableBuilder`, optimized):
/// sorted by their bytes read backwards, greatest first (a string before those it ends
/// with), each either ending the string last written, where its start keeps `align`, or
/// written at the next multiple of `align`. Returns the bytes and each string's offset.
fn tail_layout(strings: &[&[u8]], align: usize) -> (Vec<u8>, Vec<u64>) {
    let mut order: Vec<usize> = (0..strings.len()).collect();
    order.sort_unstable_by(|&a, &b| strings[b].iter().rev().cmp(strings[a].iter().rev()));
    let mut data = Vec::new();
    let mut offsets = vec![0u64; strings.len()];
    let mut previous: &[u8] = &[];
    for i in order {
        let s = strings[i];
        if previous.ends_with(s) {
            let at = data.len() - s.len();
            if at.is_multiple_of(align) {
                offsets[i] = at as u64;
                continue;
            }
        }
        data.resize(data.len().next_multiple_of(align), 0);
        offsets[i] = data.len() as u64;
        data.extend_from_slice(s);
        previous = s;
    }
    (data, offsets)
}

/// The pieces of one section: NUL-terminated strings (of `entsize`-byte characters) or
/// `entsize`-byte constants.
fn split(data: &[u8], flags: u64, entsize: usize) -> Vec<Span> {
    let is_strings = flags & u64::from(elf::SHF_STRINGS) != 0;
    let mut spans = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let end = if is_strings {
            string_end(data, pos, entsize)
        } else {
            (pos + entsize).min(data.len())
        };
        // lld's hash of a string leaves out its terminator: the same hash gives lld's
        // shard (and is as good for finding equal pieces, whose bytes are compared).
        let terminated =
            is_strings && end - pos >= entsize && data[end - entsize..end].iter().all(|&b| b == 0);
        let hashed = &data[pos..if terminated { end - entsize } else { end }];
        spans.push(Span {
            start: pos as u64,
            end: end as u64,
            hash: xxhash_rust::xxh3::xxh3_64(hashed),
            live: true,
        });
        pos = end;
    }
    spans
}

/// A string piece ends after its terminating NUL character (of `width` bytes).
fn string_end(data: &[u8], start: usize, width: usize) -> usize {
    if width == 1 {
        return memchr::memchr(0, &data[start..]).map_or(data.len(), |i| start + i + 1);
    }
    let mut p = start;
    while p + width <= data.len() {
        if data[p..p + width].iter().all(|&b| b == 0) {
            return p + width;
        }
        p += width;
    }
    data.len()
}

#[cfg(test)]
mod tests {
    use super::tail_layout;

    #[test]
    fn tail_merging_shares_ends_only_where_alignment_allows() {
        let strings: [&[u8]; 4] = [b"world\0", b"hello world\0", b"o world\0", b"x\0"];
        let (data, offsets) = tail_layout(&strings, 1);
        assert_eq!(
            (&data[..], &offsets[..]),
            (&b"x\0hello world\0"[..], &[8, 2, 6, 0][..])
        );
        // At 4-byte alignment "hello world" starts at 4: "o world" ends it from 8, "world"
        // (from 10) does not start at a multiple of 4 and is written again.
        let (data, offsets) = tail_layout(&strings, 4);
        assert_eq!(
            (&data[..], &offsets[..]),
            (&b"x\0\0\0hello world\0world\0"[..], &[16, 4, 8, 0][..])
        );
    }
}
