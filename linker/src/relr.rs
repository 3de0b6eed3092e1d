//! Packed relative relocations (`-z pack-relative-relocs`, `--pack-dyn-relocs=relr`): the
//! loader adds its load address to every word listed in `.relr.dyn` (DT_RELR), written in
//! the generic ABI's RELR encoding: an address, then bitmaps for the 63 words after it. A
//! table of pointers costs a bit per entry instead of a 24-byte `.rela.dyn` record.

use crate::context::{Link, Place, Segments};
use crate::error::Result;
use crate::image::Image;
use crate::layout;
use crate::object_file::FileId;
use crate::output_section::{Placement, Synthetic};
use crate::tables::Tables;
use object::elf::{R_X86_64_RELATIVE, SHF_WRITE};

/// The generic ABI's dynamic tags for the table (the `object` crate does not name them).
pub const DT_RELRSZ: u32 = 35;
pub const DT_RELR: u32 = 36;
pub const DT_RELRENT: u32 = 37;
/// Android's names for them, from before the generic ABI had DT_RELR (bionic reads both).
pub const DT_ANDROID_RELR: u32 = 0x6fff_e000;
pub const DT_ANDROID_RELRSZ: u32 = 0x6fff_e001;
pub const DT_ANDROID_RELRENT: u32 = 0x6fff_e003;
pub const SHT_ANDROID_RELR: u32 = 0x6fff_ff00;

/// Words covered by one bitmap entry (its lowest bit marks it as a bitmap).
const BITMAP_WORDS: u64 = 63;

/// Moves the relative relocations that can be packed (from `tables.section_relative` and
/// `tables.rela_dyn`) to `tables.relr`: at an even address (an address entry is even), in
/// writable memory (a text relocation stays an explicit one, as with GNU ld). Their places
/// hold the link-time value already, which RELR needs: it has no addend field. Only PIEs
/// and shared objects have them.
pub fn pack(link: &Link, tables: &mut Tables) {
    if !link.opts.pack_relative_relocs || !link.opts.is_pic() {
        return;
    }
    for (file, relocs) in tables.section_relative.iter_mut().enumerate() {
        relocs.retain(|r| {
            let place = Place::Section {
                file: file as FileId,
                sec: r.sec,
                offset: r.offset,
            };
            let packed = packable(link, place);
            if packed {
                tables.relr.push(place);
            }
            !packed
        });
    }
    let relocs = std::mem::take(&mut tables.rela_dyn);
    for r in relocs {
        if r.r_type == R_X86_64_RELATIVE && packable(link, r.place) {
            tables.relr.push(r.place);
        } else {
            tables.rela_dyn.push(r);
        }
    }
}

/// Whether the relative relocation of `place` goes to `.relr.dyn`, which has no addend: its
/// place must hold the link-time value.
pub fn packs(link: &Link, place: Place) -> bool {
    link.opts.pack_relative_relocs && link.opts.is_pic() && packable(link, place)
}

fn packable(link: &Link, place: Place) -> bool {
    match place {
        Place::Got(_) => true,
        Place::Section { file, sec, offset } => {
            let s = &link.objects[file as usize].sections[sec as usize];
            s.flags & u64::from(SHF_WRITE) != 0
                && s.align >= 2
                && offset % 2 == 0
                && s.pieces.is_empty()
        }
        Place::GotPlt(_) | Place::CopyRel(_) => false,
    }
}

/// The packed places' addresses, sorted, each once.
fn addresses(link: &Image) -> Vec<u64> {
    let mut a: Vec<u64> = link
        .tables
        .relr
        .iter()
        .map(|&p| crate::synthetic::place_address(link, p))
        .collect();
    a.sort_unstable();
    a.dedup();
    a
}

/// The RELR words for `addresses` (sorted, distinct, even).
pub fn encode(addresses: &[u64]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < addresses.len() {
        let start = addresses[i];
        out.push(start);
        i += 1;
        // The first word the next bitmap covers.
        let mut next = start + 8;
        loop {
            let mut bitmap = 0u64;
            while let Some(&a) = addresses.get(i) {
                let delta = a.wrapping_sub(next);
                if a < next || delta % 8 != 0 || delta / 8 >= BITMAP_WORDS {
                    break;
                }
                bitmap |= 1 << (delta / 8);
                i += 1;
            }
            if bitmap == 0 {
                break;
            }
            out.push((bitmap << 1) | 1);
            next += 8 * BITMAP_WORDS;
        }
    }
    out
}

/// Sizes `.relr.dyn` to its encoding, and returns the encoding (for the writer and
/// DT_RELRSZ), as [`layout::settle_encoded_size`] does it (the size cannot pass one word
/// per place; the writer fills what the encoding leaves with empty bitmaps).
pub fn settle(
    link: &mut Link,
    tables: &Tables,
    placement: &Placement,
    segments: &mut Segments,
) -> Result<Vec<u64>> {
    let words =
        layout::settle_encoded_size(link, segments, Synthetic::RelrDyn, |link, segments| {
            let words = encode(&addresses(&Image::before_symbol_addresses(
                link, tables, placement, segments,
            )));
            let size = 8 * words.len() as u64;
            Ok((words, size))
        })?;
    Ok(words.unwrap_or_default())
}

/// `.relr.dyn`'s contents.
pub fn write(link: &Image, buf: &mut [u8]) {
    for (i, chunk) in buf.chunks_exact_mut(8).enumerate() {
        // Past the encoding: a bitmap with no bit set relocates nothing.
        let w = link.contents.relr.get(i).copied().unwrap_or(1);
        chunk.copy_from_slice(&w.to_le_bytes());
    }
}

/// Bytes of the encoding itself (DT_RELRSZ), without any padding.
pub fn encoded_size(link: &Image) -> u64 {
    8 * link.contents.relr.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the loader does with the words: the addresses it relocates.
    fn decode(words: &[u64]) -> Vec<u64> {
        let mut out = Vec::new();
        let mut next = 0;
        for &w in words {
            if w & 1 == 0 {
                out.push(w);
                next = w + 8;
            } else {
                for bit in 1..64 {
                    if w >> bit & 1 == 1 {
                        out.push(next + 8 * (bit - 1));
                    }
                }
                next += 8 * BITMAP_WORDS;
            }
        }
        out
    }

    #[test]
    fn a_run_of_pointers_is_one_address_and_bitmaps() {
        let table: Vec<u64> = (0..10).map(|i| 0x4000 + 8 * i).collect();
        let words = encode(&table);
        assert_eq!(words, [0x4000, (0b1_1111_1111 << 1) | 1]);
        assert_eq!(decode(&words), table);
    }

    #[test]
    fn gaps_and_long_runs_round_trip() {
        let mut a: Vec<u64> = (0..200).map(|i| 0x10000 + 8 * i).collect();
        a.extend([
            0x20000,
            0x20010,
            0x20012,
            0x30000 + 8 * 63,
            0x30000 + 8 * 64,
        ]);
        a.push(0x40000);
        a.sort_unstable();
        let words = encode(&a);
        assert_eq!(decode(&words), a);
        // 200 words after 0x10000: one address, then four bitmaps (63 + 63 + 63 + 10).
        assert_eq!(words[0], 0x10000);
        assert!(words[1..5].iter().all(|w| w & 1 == 1));
        // An address off the 8-byte grid starts an entry of its own.
        assert!(words.contains(&0x20012));
    }

    #[test]
    fn nothing_to_encode() {
        assert!(encode(&[]).is_empty());
        assert_eq!(decode(&[0x1000, 1]), [0x1000]);
    }
}
