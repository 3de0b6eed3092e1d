//! SHF_MERGE deduplication: the pieces (strings, constants) of every live merge section
//! with the same output section, flags and entry size (and, for strings, alignment) form a
//! group of unique pieces, each placed where it first occurs in input order, so the result
//! does not depend on threads.
//!
//! Every piece keeps its section's alignment, as lld's merge sections do: a piece may start
//! anywhere in its input section, but code relies on the section's alignment for all of
//! them (clang loads `.rodata.str1.16` strings with `movaps`). Strings of different
//! alignments are kept apart, so that 1-byte-aligned ones are not padded; constants of
//! different alignments share a group, whose pieces all take the largest (lld's rule).
//!
//! The work is parallel where it pays: each section is split and its pieces hashed on its
//! own; pieces are then deduplicated in shards by hash, each shard on its own thread; each
//! section lays out its unique pieces on its own, one short pass in input order gives each
//! section its start, and the pieces' bytes and places follow in parallel again.

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
    /// Once the groups are placed at `group_offsets` inside their output sections, makes
    /// every piece's offset relative to its output section.
    pub fn place(&self, objects: &mut [ObjectFile], group_offsets: &[u64]) {
        for m in &self.sections {
            let base = group_offsets[m.group as usize];
            let sec = &mut objects[m.file as usize].sections[m.sec as usize];
            for p in sec.pieces.iter_mut() {
                p.output_offset += base;
            }
        }
    }
}

/// Splits and deduplicates every live merge section (see the module's comment).
pub fn merge_sections(objects: &mut [ObjectFile]) -> Merged {
    // The sections and their groups, in input order (the search in parallel: objects
    // have thousands of sections, few of them mergeable).
    let found: Vec<Vec<(u32, GroupKey, u64)>> = objects
        .par_iter()
        .map(|obj| {
            obj.sections
                .iter()
                .enumerate()
                .filter(|(_, sec)| {
                    sec.kind == SectionKind::Merge
                        && sec.live
                        && sec.output != crate::object_file::NO_OUTPUT
                })
                .map(|(i, sec)| (i as u32, group_key(sec), section_align(sec)))
                .collect()
        })
        .collect();
    let mut groups: Vec<MergeGroup> = Vec::new();
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
    let data_of = |m: &Member| objects[m.file as usize].sections[m.sec as usize].data;

    // Each section split into pieces, each piece hashed.
    let spans: Vec<Vec<Span>> = sections
        .par_iter()
        .map(|m| {
            let sec = &objects[m.file as usize].sections[m.sec as usize];
            split(sec.data, sec.flags, sec.entsize.max(1) as usize)
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
    // carries its bytes and group into the table: comparing them reads nothing else.
    let threads = rayon::current_num_threads().max(1);
    let rep: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(0)).collect();
    (0..threads).into_par_iter().for_each(|t| {
        let mut table: HashTable<Candidate> = HashTable::with_capacity(total as usize / threads);
        for (s, pieces) in spans.iter().enumerate() {
            let m = &sections[s];
            let data = data_of(m);
            let salt = u64::from(m.group).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            for (p, span) in pieces.iter().enumerate() {
                let hash = span.hash ^ salt;
                if share_of(hash, threads) != t {
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
                        c.piece
                    }
                };
                rep[c.piece as usize].store(first_seen, Ordering::Relaxed);
            }
        }
    });
    let rep: Vec<u32> = rep.into_iter().map(AtomicU32::into_inner).collect();

    // The unique pieces laid out in input order, each at a multiple of its group's
    // alignment (so of its section's). A section's unique pieces, laid out from 0, occupy
    // the same bytes wherever it starts (all its pieces share one alignment, which its
    // start has): so each section is laid out on its own, in parallel, one pass in order
    // gives each its start, and the pieces' offsets and bytes follow in parallel again.
    // Walks section `s`'s unique pieces with their offsets from the section's start, and
    // returns the size they take (0: none of its pieces is the first of its bytes).
    let aligns: Vec<usize> = groups.iter().map(|g| g.align as usize).collect();
    let walk = |s: usize, visit: &mut dyn FnMut(usize, usize, &Span)| -> usize {
        let align = aligns[sections[s].group as usize];
        let mut size = 0usize;
        for (p, span) in spans[s].iter().enumerate() {
            let piece = (first[s] + p as u32) as usize;
            if rep[piece] as usize == piece {
                let here = size.next_multiple_of(align);
                visit(p, here, span);
                size = here + (span.end - span.start) as usize;
            }
        }
        size
    };
    let local: Vec<usize> = (0..sections.len())
        .into_par_iter()
        .map(|s| walk(s, &mut |_, _, _| {}))
        .collect();
    let mut sizes = vec![0usize; groups.len()];
    let starts: Vec<usize> = sections
        .iter()
        .zip(&local)
        .map(|(m, &size)| {
            let group_size = &mut sizes[m.group as usize];
            if size == 0 {
                return *group_size;
            }
            let align = aligns[m.group as usize];
            let start = group_size.next_multiple_of(align);
            *group_size = start + size;
            start
        })
        .collect();
    for (group, &size) in groups.iter_mut().zip(&sizes) {
        group.data = vec![0; size];
    }
    // Each section's share of its group's bytes, in order: disjoint slices to fill at once.
    let mut rest: Vec<&mut [u8]> = groups.iter_mut().map(|g| &mut g.data[..]).collect();
    let mut consumed = vec![0usize; rest.len()];
    let mut shares: Vec<&mut [u8]> = Vec::with_capacity(sections.len());
    for ((m, &size), &start) in sections.iter().zip(&local).zip(&starts) {
        let g = m.group as usize;
        let tail = std::mem::take(&mut rest[g]);
        let (_, tail) = tail.split_at_mut(start - consumed[g]);
        let (share, tail) = tail.split_at_mut(size);
        rest[g] = tail;
        consumed[g] = start + size;
        shares.push(share);
    }
    let mut offset = vec![0u64; total as usize];
    let mut offsets: Vec<&mut [u64]> = Vec::with_capacity(sections.len());
    let mut left = &mut offset[..];
    for pieces in &spans {
        let (mine, more) = std::mem::take(&mut left).split_at_mut(pieces.len());
        offsets.push(mine);
        left = more;
    }
    shares
        .into_par_iter()
        .zip(offsets)
        .enumerate()
        .for_each(|(s, (share, offsets))| {
            let (data, start) = (data_of(&sections[s]), starts[s] as u64);
            walk(s, &mut |p, here, span| {
                offsets[p] = start + here as u64;
                let (from, to) = (span.start as usize, span.end as usize);
                share[here..here + (to - from)].copy_from_slice(&data[from..to]);
            });
        });

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
                    output_offset: offset[rep[(first[s] + p as u32) as usize] as usize],
                })
                .collect()
        })
        .collect();
    for (m, pieces) in sections.iter().zip(pieces) {
        objects[m.file as usize].sections[m.sec as usize].pieces = pieces.into();
    }
    Merged { groups, sections }
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
        spans.push(Span {
            start: pos as u64,
            end: end as u64,
            hash: xxhash_rust::xxh3::xxh3_64(&data[pos..end]),
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
