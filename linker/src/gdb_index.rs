//! `--gdb-index`: the `.gdb_index` section (version 7, as lld writes it), which lets gdb
//! find a program's compile units, the unit covering an address and the units defining a
//! name without reading all of the debug information first.
//!
//! Each object's debug sections are read with gimli after their relocations are applied
//! with the output's addresses (so unit ranges are final addresses, and ranges of code the
//! link discarded start at 0 and are left out). Units come from `.debug_info` (the
//! offset of the object's part of the output section added), ranges from each unit's
//! `DW_AT_low_pc`/`high_pc`/`ranges`, names from `.debug_gnu_pubnames` and
//! `.debug_gnu_pubtypes` (written by `-ggnu-pubnames`; without them the index has units and
//! ranges only, as lld's).

use crate::context::Target;
use crate::image::Image;
use crate::object_file::{shndx, SectionKind, LE, NO_OUTPUT};
use crate::relocate::target_is_live;
use gimli::{EndianSlice, LittleEndian};
use object::elf::{R_X86_64_32, R_X86_64_64};
use object::read::elf::{Rela as _, Sym as _};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

const VERSION: u32 = 7;

/// What one object contributes: its units, their address ranges and their public names.
#[derive(Default)]
struct Contribution {
    /// Offset in the output's `.debug_info` and length (header included) of each unit.
    units: Vec<(u64, u64)>,
    /// Address ranges, each with the unit (index in `units`) covering it.
    ranges: Vec<(u64, u64, u32)>,
    /// Public names with their unit and gdb's attribute byte (symbol kind, static).
    names: Vec<(&'static [u8], u32, u8)>,
}

/// The whole `.gdb_index` section.
pub fn build(link: &Image) -> Vec<u8> {
    let loaded: Vec<(u64, u64)> = link
        .outputs
        .iter()
        .filter(|o| o.is_alloc() && o.size > 0)
        .map(|o| (link.addr(o), link.addr(o) + o.size))
        .collect();
    let parts: Vec<Contribution> = (0..link.objects.len())
        .into_par_iter()
        .map(|f| read_object(link, f as u32, &loaded).unwrap_or_default())
        .collect();
    encode(&parts)
}

/// Object `file`'s section `name` (if the output has it) with its relocations applied as
/// one object's reader needs them: references to code and data get their final
/// addresses (0 where the link dropped the target), references into the object's own
/// debug sections keep their offsets there; with that section's offset in its output
/// section.
fn relocated(link: &Image, file: u32, name: &str) -> Option<(Vec<u8>, u64)> {
    let obj = &link.objects[file as usize];
    let i = obj.sections.iter().position(|s| {
        s.name() == name && s.is_kept() && s.output != NO_OUTPUT && s.kind == SectionKind::Regular
    })?;
    let s = &obj.sections[i];
    let mut bytes = s.data().to_vec();
    for r in s.relocs() {
        let sym = r.r_sym(LE, false) as usize;
        let target = link.target(file, sym);
        let addend = r.r_addend(LE);
        let in_debug_section = match target {
            Target::Local(..) => {
                let section = obj.symbol_section(sym);
                shndx::is_section(section)
                    && obj
                        .sections
                        .get(section as usize)
                        .is_some_and(|t| !t.is_alloc())
            }
            Target::Global(_) => false,
        };
        let value = if in_debug_section {
            obj.symbols[sym].st_value(LE).wrapping_add(addend as u64)
        } else if target_is_live(link, target) {
            link.address_with_addend(target, addend) as u64
        } else {
            0
        };
        let width = match r.r_type(LE, false) {
            R_X86_64_64 => 8,
            R_X86_64_32 => 4,
            _ => continue,
        };
        let at = r.r_offset(LE) as usize;
        if let Some(place) = bytes.get_mut(at..at.saturating_add(width)) {
            place.copy_from_slice(&value.to_le_bytes()[..width]);
        }
    }
    Some((bytes, s.offset))
}

fn read_object(link: &Image, file: u32, loaded: &[(u64, u64)]) -> Option<Contribution> {
    let (info, info_base) = relocated(link, file, ".debug_info")?;
    let section = |name: &str| relocated(link, file, name).map(|(b, _)| b);
    let abbrev = section(".debug_abbrev").unwrap_or_default();
    let addr = section(".debug_addr").unwrap_or_default();
    let rnglists = section(".debug_rnglists").unwrap_or_default();
    let ranges = section(".debug_ranges").unwrap_or_default();
    // Reading a unit reads its line program's header too.
    let line = section(".debug_line").unwrap_or_default();
    let dwarf = gimli::Dwarf::load(|id| -> Result<_, gimli::Error> {
        let bytes: &[u8] = match id {
            gimli::SectionId::DebugInfo => &info,
            gimli::SectionId::DebugAbbrev => &abbrev,
            gimli::SectionId::DebugAddr => &addr,
            gimli::SectionId::DebugRngLists => &rnglists,
            gimli::SectionId::DebugRanges => &ranges,
            gimli::SectionId::DebugLine => &line,
            _ => &[],
        };
        Ok(EndianSlice::new(bytes, LittleEndian))
    })
    .ok()?;

    let mut out = Contribution::default();
    // Unit offset in the object's `.debug_info` → its index.
    let mut unit_at: FxHashMap<u64, u32> = FxHashMap::default();
    let mut headers = dwarf.units();
    while let Ok(Some(header)) = headers.next() {
        let Some(offset) = header.debug_info_offset() else {
            break;
        };
        let index = out.units.len() as u32;
        unit_at.insert(offset.0 as u64, index);
        out.units.push((
            info_base + offset.0 as u64,
            header.length_including_self() as u64,
        ));
        let Ok(unit) = dwarf.unit(header) else {
            continue;
        };
        let Ok(mut iter) = dwarf.unit_ranges(&unit) else {
            continue;
        };
        while let Ok(Some(r)) = iter.next() {
            let in_output = loaded.iter().any(|&(lo, hi)| r.begin >= lo && r.begin < hi);
            if r.begin < r.end && in_output {
                out.ranges.push((r.begin, r.end, index));
            }
        }
    }

    let obj = &link.objects[file as usize];
    for name in [".debug_gnu_pubnames", ".debug_gnu_pubtypes"] {
        let Some(i) = obj.sections.iter().position(|s| s.name() == name) else {
            continue;
        };
        let Some((bytes, _)) = relocated(link, file, name) else {
            continue;
        };
        // Names are never relocated: take them from the input's bytes, which live as long
        // as the link.
        read_pubnames(&bytes, obj.sections[i].data(), &unit_at, &mut out.names);
    }
    Some(out)
}

/// The sets of a `.debug_gnu_pubnames`/`pubtypes` section: each names the unit it
/// describes by its offset in the object's `.debug_info`, then
/// lists (DIE offset, attribute byte, name) up to a zero offset.
fn read_pubnames(
    bytes: &[u8],
    original: &'static [u8],
    unit_at: &FxHashMap<u64, u32>,
    names: &mut Vec<(&'static [u8], u32, u8)>,
) {
    let u32_at = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    let mut set = 0usize;
    while let Some(length) = u32_at(set) {
        let end = set
            .saturating_add(4)
            .saturating_add(length as usize)
            .min(bytes.len());
        // unit_length, version (2), debug_info_offset, debug_info_length.
        let unit = u32_at(set + 6).and_then(|o| unit_at.get(&u64::from(o)).copied());
        let mut at = set + 14;
        while let (Some(unit), Some(die)) = (unit, u32_at(at)) {
            if die == 0 || at + 5 > end {
                break;
            }
            let attributes = bytes[at + 4];
            let start = at + 5;
            let Some(len) = original[start.min(end)..end].iter().position(|&c| c == 0) else {
                break;
            };
            names.push((&original[start..start + len], unit, attributes));
            at = start + len + 1;
        }
        if length == 0 || end >= bytes.len() {
            break;
        }
        set = end;
    }
}

/// gdb's hash of a symbol name (`mapped_index_string_hash`, index version 5 and later).
fn name_hash(name: &[u8]) -> u32 {
    name.iter().fold(0u32, |r, &c| {
        r.wrapping_mul(67)
            .wrapping_add(u32::from(c.to_ascii_lowercase()))
            .wrapping_sub(113)
    })
}

/// The section: header, unit list, (empty) type unit list, address area, symbol hash
/// table, constant pool (unit vectors, then names).
fn encode(parts: &[Contribution]) -> Vec<u8> {
    let mut units = Vec::new();
    let mut ranges = Vec::new();
    // Name → its unit vector (unit index | attributes << 24), names in first-seen order.
    let mut symbols: Vec<(&[u8], Vec<u32>)> = Vec::new();
    let mut symbol_at: FxHashMap<&[u8], usize> = FxHashMap::default();
    for part in parts {
        let base = units.len() as u32;
        units.extend_from_slice(&part.units);
        ranges.extend(part.ranges.iter().map(|&(lo, hi, u)| (lo, hi, base + u)));
        for &(name, unit, attributes) in &part.names {
            let at = *symbol_at.entry(name).or_insert_with(|| {
                symbols.push((name, Vec::new()));
                symbols.len() - 1
            });
            let entry = (base + unit) | (u32::from(attributes) << 24);
            if !symbols[at].1.contains(&entry) {
                symbols[at].1.push(entry);
            }
        }
    }
    let slots = ((symbols.len() * 4 / 3).next_power_of_two()).max(1024);

    // The constant pool: unit vectors first, then the names.
    let mut pool = Vec::new();
    let mut vector_at = Vec::with_capacity(symbols.len());
    for (_, vector) in &symbols {
        vector_at.push(pool.len() as u32);
        pool.extend_from_slice(&(vector.len() as u32).to_le_bytes());
        for v in vector {
            pool.extend_from_slice(&v.to_le_bytes());
        }
    }
    let mut table = vec![0u8; slots * 8];
    let mask = slots as u32 - 1;
    for (k, (name, _)) in symbols.iter().enumerate() {
        let name_at = pool.len() as u32;
        pool.extend_from_slice(name);
        pool.push(0);
        let h = name_hash(name);
        let step = (h.wrapping_mul(17) & mask) | 1;
        let mut slot = h & mask;
        // A name's offset is never 0: the unit vectors come first in the pool.
        while table[slot as usize * 8..slot as usize * 8 + 4] != [0; 4] {
            slot = (slot + step) & mask;
        }
        let at = slot as usize * 8;
        table[at..at + 4].copy_from_slice(&name_at.to_le_bytes());
        table[at + 4..at + 8].copy_from_slice(&vector_at[k].to_le_bytes());
    }

    let unit_list = 24u32;
    let types_list = unit_list + 16 * units.len() as u32;
    let address_area = types_list;
    let symbol_table = address_area + 20 * ranges.len() as u32;
    let constant_pool = symbol_table + table.len() as u32;
    let mut out = Vec::with_capacity(constant_pool as usize + pool.len());
    for word in [
        VERSION,
        unit_list,
        types_list,
        address_area,
        symbol_table,
        constant_pool,
    ] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    for (offset, length) in units {
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&length.to_le_bytes());
    }
    for (lo, hi, unit) in ranges {
        out.extend_from_slice(&lo.to_le_bytes());
        out.extend_from_slice(&hi.to_le_bytes());
        out.extend_from_slice(&unit.to_le_bytes());
    }
    out.extend_from_slice(&table);
    out.extend_from_slice(&pool);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_gdbs() {
        // gdb's mapped_index_string_hash, by hand: r = r * 67 + c - 113 per lowercased byte.
        assert_eq!(name_hash(b""), 0);
        assert_eq!(name_hash(b"a"), 97u32.wrapping_sub(113));
        let by_hand = (u32::from(b'm') - 113)
            .wrapping_mul(67)
            .wrapping_add(u32::from(b'a'))
            .wrapping_sub(113);
        assert_eq!(name_hash(b"ma"), by_hand);
        assert_eq!(name_hash(b"Main"), name_hash(b"main"));
    }

    #[test]
    fn names_land_in_their_probed_slots_with_their_unit_vectors() {
        let part = Contribution {
            units: vec![(0, 0x40), (0x40, 0x30)],
            ranges: vec![(0x1000, 0x1010, 1)],
            names: vec![(b"main", 1, 0x30), (b"helper", 0, 0x30), (b"main", 1, 0x30)],
        };
        let out = encode(&[part]);
        let word = |at: usize| u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
        assert_eq!(word(0), 7);
        let (symtab, pool) = (word(16) as usize, word(20) as usize);
        assert_eq!(word(16) - word(12), 20, "one address range");
        let slots = (pool - symtab) / 8;
        assert_eq!(slots, 1024);
        let lookup = |name: &[u8]| -> Vec<u32> {
            let h = name_hash(name);
            let mask = slots as u32 - 1;
            let step = (h.wrapping_mul(17) & mask) | 1;
            let mut slot = h & mask;
            loop {
                let at = symtab + slot as usize * 8;
                let (name_at, vector_at) = (word(at) as usize, word(at + 4) as usize);
                assert_ne!(name_at, 0, "{:?} not found", String::from_utf8_lossy(name));
                let stored = &out[pool + name_at..];
                if stored.starts_with(name) && stored[name.len()] == 0 {
                    let count = word(pool + vector_at) as usize;
                    return (0..count)
                        .map(|k| word(pool + vector_at + 4 + 4 * k))
                        .collect();
                }
                slot = (slot + step) & mask;
            }
        };
        assert_eq!(lookup(b"main"), [1 | 0x30 << 24]);
        assert_eq!(lookup(b"helper"), [0x30 << 24]);
    }
}
