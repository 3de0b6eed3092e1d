//! `--pack-dyn-relocs=android` (lld's): `.rela.dyn` in Android's packed format ("APS2"),
//! which bionic's loader reads through DT_ANDROID_RELA/DT_ANDROID_RELASZ. After the magic
//! come SLEB128 numbers: the relocation count, the starting offset, then groups. A group
//! gives its size and flags, then what all its relocations share (the offset stride, the
//! `r_info`, the addend), then per relocation what they do not. Offsets and addends are
//! deltas from the previous relocation's, so runs of pointers a word apart, all of one
//! type, cost a few bytes in all.
//!
//! The relocations are the ones `.rela.dyn` would hold, in the same order; only their
//! encoding changes. The encoding depends on addresses, and the addresses on its size, so
//! the layout is redone until they agree, as for `.relr.dyn`.

use crate::context::{Link, Segments};
use crate::dynamic::DynamicTables;
use crate::error::Result;
use crate::image::{Contents, Image, SectionStarts};
use crate::layout;
use crate::output_section::{Placement, Synthetic};
use crate::tables::Tables;

pub const SHT_ANDROID_RELA: u32 = 0x6000_0002;
pub const DT_ANDROID_RELA: u32 = 0x6000_0011;
pub const DT_ANDROID_RELASZ: u32 = 0x6000_0012;

const GROUPED_BY_INFO: u64 = 1;
const GROUPED_BY_OFFSET_DELTA: u64 = 2;
const GROUPED_BY_ADDEND: u64 = 4;
const GROUP_HAS_ADDEND: u64 = 8;

/// A run of strided relocations shorter than this is not worth a group of its own.
const MIN_STRIDE_RUN: usize = 3;

/// One dynamic relocation: `r_offset`, `r_info`, `r_addend`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rela {
    pub offset: u64,
    pub info: u64,
    pub addend: i64,
}

fn sleb(out: &mut Vec<u8>, value: i64) {
    let mut v = value;
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        let done = (v == 0 && byte & 0x40 == 0) || (v == -1 && byte & 0x40 != 0);
        out.push(if done { byte } else { byte | 0x80 });
        if done {
            return;
        }
    }
}

/// The APS2 encoding of `relocs`, in their order.
pub fn encode(relocs: &[Rela]) -> Vec<u8> {
    let mut out = b"APS2".to_vec();
    sleb(&mut out, relocs.len() as i64);
    sleb(&mut out, 0);
    let (mut offset, mut addend) = (0u64, 0i64);
    let mut i = 0;
    while i < relocs.len() {
        // The run of one r_info from i, and the strided run from i within it.
        let info = relocs[i].info;
        let same_info = relocs[i..].iter().take_while(|r| r.info == info).count();
        let run = &relocs[i..i + same_info];
        let stride = run[0].offset.wrapping_sub(offset);
        let strided = 1 + run
            .windows(2)
            .take_while(|w| w[1].offset.wrapping_sub(w[0].offset) == stride)
            .count();
        let group = if strided >= MIN_STRIDE_RUN {
            &run[..strided]
        } else {
            // Up to where the next strided run worth a group starts.
            let end = (1..run.len())
                .find(|&s| {
                    run[s..]
                        .windows(2)
                        .take(MIN_STRIDE_RUN - 1)
                        .filter(|w| {
                            w[1].offset.wrapping_sub(w[0].offset)
                                == run[s].offset.wrapping_sub(run[s - 1].offset)
                        })
                        .count()
                        == MIN_STRIDE_RUN - 1
                })
                .unwrap_or(run.len());
            &run[..end]
        };
        let by_stride = strided >= MIN_STRIDE_RUN;
        let one_addend = group.iter().all(|r| r.addend == group[0].addend);
        let mut flags = GROUPED_BY_INFO;
        if by_stride {
            flags |= GROUPED_BY_OFFSET_DELTA;
        }
        if !(one_addend && group[0].addend == 0) {
            flags |= GROUP_HAS_ADDEND;
            if one_addend {
                flags |= GROUPED_BY_ADDEND;
            }
        }
        sleb(&mut out, group.len() as i64);
        sleb(&mut out, flags as i64);
        if by_stride {
            sleb(&mut out, stride as i64);
        }
        sleb(&mut out, info as i64);
        if flags & GROUP_HAS_ADDEND == 0 {
            addend = 0;
        } else if one_addend {
            sleb(&mut out, group[0].addend.wrapping_sub(addend));
            addend = group[0].addend;
        }
        for r in group {
            if !by_stride {
                sleb(&mut out, r.offset.wrapping_sub(offset) as i64);
            }
            offset = r.offset;
            if flags & GROUP_HAS_ADDEND != 0 && !one_addend {
                sleb(&mut out, r.addend.wrapping_sub(addend));
                addend = r.addend;
            }
        }
        i += group.len();
    }
    out
}

/// Sizes `.rela.dyn` to the encoding of its relocations, and returns the encoding (for
/// the writer and DT_ANDROID_RELASZ), as [`layout::settle_encoded_size`] does it (the
/// writer pads the encoding with zeros, which the loader never reads: it stops at the
/// count).
pub fn settle(
    link: &mut Link,
    tables: &Tables,
    placement: &Placement,
    segments: &mut Segments,
    dynamic: &DynamicTables,
) -> Result<Vec<u8>> {
    let bytes =
        layout::settle_encoded_size(link, segments, Synthetic::RelaDyn, |link, segments| {
            let bytes = encode(&relocations(link, tables, placement, segments, dynamic)?);
            let size = bytes.len() as u64;
            Ok((bytes, size))
        })?;
    Ok(bytes.unwrap_or_default())
}

/// The relocations `.rela.dyn` holds under the current layout, as its writer makes them.
fn relocations(
    link: &Link,
    tables: &Tables,
    placement: &Placement,
    segments: &Segments,
    dynamic: &DynamicTables,
) -> Result<Vec<Rela>> {
    let sym_addr = layout::compute_all_symbol_addresses(link, tables, placement, segments)?;
    let contents = Contents::default();
    let starts = SectionStarts::new(link, segments);
    let image = Image::new(
        link, tables, placement, segments, &sym_addr, &contents, &starts,
    );
    let mut buf = vec![0u8; 24 * tables.rela_dyn_count()];
    crate::synthetic::write_rela_dyn(&image, dynamic, &mut buf);
    Ok(buf
        .chunks_exact(24)
        .map(|e| Rela {
            offset: u64::from_le_bytes(e[0..8].try_into().unwrap_or_default()),
            info: u64::from_le_bytes(e[8..16].try_into().unwrap_or_default()),
            addend: i64::from_le_bytes(e[16..24].try_into().unwrap_or_default()),
        })
        .collect())
}

/// `.rela.dyn`'s contents: the encoding, then zeros to the section's size.
pub fn write(link: &Image, buf: &mut [u8]) {
    let bytes = &link.contents.android_rela;
    let n = bytes.len().min(buf.len());
    buf[..n].copy_from_slice(&bytes[..n]);
    buf[n..].fill(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a loader reads back (LLVM's and bionic's decoding).
    fn decode(bytes: &[u8]) -> Vec<Rela> {
        assert_eq!(&bytes[..4], b"APS2");
        let mut at = 4;
        let mut read = || {
            let (mut v, mut shift) = (0i64, 0);
            loop {
                let b = bytes[at];
                at += 1;
                v |= i64::from(b & 0x7f) << shift;
                shift += 7;
                if b & 0x80 == 0 {
                    if shift < 64 && b & 0x40 != 0 {
                        v |= -1i64 << shift;
                    }
                    return v;
                }
            }
        };
        let count = read() as usize;
        let mut offset = read() as u64;
        let (mut addend, mut out) = (0i64, Vec::new());
        while out.len() < count {
            let size = read() as usize;
            let flags = read() as u64;
            let stride = (flags & GROUPED_BY_OFFSET_DELTA != 0).then(|| read() as u64);
            let info = (flags & GROUPED_BY_INFO != 0).then(|| read() as u64);
            let has_addend = flags & GROUP_HAS_ADDEND != 0;
            let by_addend = flags & GROUPED_BY_ADDEND != 0;
            if has_addend && by_addend {
                addend = addend.wrapping_add(read());
            }
            if !has_addend {
                addend = 0;
            }
            for _ in 0..size {
                offset = offset.wrapping_add(stride.unwrap_or_else(|| read() as u64));
                let info = info.unwrap_or_else(|| read() as u64);
                if has_addend && !by_addend {
                    addend = addend.wrapping_add(read());
                }
                out.push(Rela {
                    offset,
                    info,
                    addend,
                });
            }
        }
        out
    }

    fn rela(offset: u64, info: u64, addend: i64) -> Rela {
        Rela {
            offset,
            info,
            addend,
        }
    }

    #[test]
    fn encodings_decode_to_the_relocations() {
        let relative = 8;
        let cases: Vec<Vec<Rela>> = vec![
            vec![],
            vec![rela(0x2000, relative, 0x1000)],
            // A table of pointers: one strided group, addends apart.
            (0..20)
                .map(|i| rela(0x3000 + 8 * i, relative, 0x1000 + 16 * i as i64))
                .collect(),
            // Mixed strides, types and symbol references, negative deltas.
            vec![
                rela(0x3000, relative, 0x10),
                rela(0x3010, relative, 0x10),
                rela(0x3008, relative, -4),
                rela(0x3100, relative, 0x10),
                rela(0x3108, relative, 0x10),
                rela(0x3110, relative, 0x10),
                rela(0x3118, relative, 0x20),
                rela(0x2000, (1 << 32) | 6, 0),
                rela(0x2008, (2 << 32) | 6, 0),
                rela(0x4000, (3 << 32) | 1, 8),
                rela(0x4008, (3 << 32) | 1, 8),
                rela(0x4010, (3 << 32) | 1, 8),
                rela(u64::MAX - 7, 37, i64::MIN),
            ],
        ];
        for relocs in cases {
            let bytes = encode(&relocs);
            assert_eq!(decode(&bytes), relocs);
        }
    }

    #[test]
    fn strided_pointer_tables_pack_small() {
        let relocs: Vec<Rela> = (0..1000)
            .map(|i| rela(0x10000 + 8 * i, 8, 0x5000))
            .collect();
        // Magic, count, start; the first relocation on its own (its offset is far from
        // the start), then one group: size, flags, stride, info, addend. 24,000 bytes as
        // RELA entries.
        assert!(encode(&relocs).len() < 32, "{}", encode(&relocs).len());
    }
}
