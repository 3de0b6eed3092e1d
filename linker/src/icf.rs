//! Identical code folding (`--icf=all|safe`, as lld does it): read-only sections with the
//! same bytes whose relocations point to the same places, or to sections that are
//! themselves identical, are kept once; the copies leave the output, and every symbol and
//! relocation that named them names the one kept.
//!
//! Sections are first grouped by what can be compared directly (flags, bytes, relocation
//! types, offsets and addends, targets outside the candidates); the groups are then split
//! by the groups their relocations point into, again and again, until no group splits.
//! What remains in one group is identical, cycles of mutually recursive functions included.

use crate::context::Link;
use crate::object_file::{shndx, FileId, SectionKind, LE};
use crate::symbols::SymbolDef;
use object::elf;
use object::read::elf::{Rela as _, Sym as _};
use rustc_hash::FxHashMap;

/// Which sections may be folded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Icf {
    #[default]
    None,
    /// Any code, and read-only data whose address nothing takes or exports.
    All,
    /// Only sections whose address nothing takes (clang's `.llvm_addrsig` says which; in
    /// an object without one, any symbol's section keeps its address) or exports.
    Safe,
}

/// `.llvm_addrsig`: the symbols whose address the object's code takes or compares.
const SHT_LLVM_ADDRSIG: u32 = 0x6fff_4c03;

type SectionRef = (FileId, u32);

/// What a relocation points to, for comparing.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Target {
    /// Into candidate number `n`, at this offset (symbol value plus addend).
    Candidate(u32, i64),
    /// Into another section, which must be the same one.
    Section(SectionRef, i64),
    /// Into merged constants or strings: equal contents end up at one address. The piece's
    /// bytes, the offset in it, and the addend beyond that.
    Merged(Vec<u8>, i64, i64),
    /// A symbol not defined in a section (undefined, shared, absolute, common, linker-made).
    Symbol(u32, i64),
}

/// The folding done: per kept section, the sections folded into it.
pub struct Folded {
    pub groups: Vec<(SectionRef, Vec<SectionRef>)>,
}

/// Folds identical sections; the folded ones are no longer live, and `link.folded_into`
/// maps each to the section kept in its place.
pub fn fold(link: &mut Link, level: Icf) -> Folded {
    if level == Icf::None {
        return Folded { groups: Vec::new() };
    }
    let candidates = candidates(link, level);
    let index: FxMap<SectionRef, u32> = candidates
        .iter()
        .enumerate()
        .map(|(i, &s)| (s, i as u32))
        .collect();
    let described: Vec<(Vec<u8>, Vec<Target>)> = candidates
        .iter()
        .map(|&s| describe(link, s, &index))
        .collect();

    // Classes by the comparable part; the candidates' own targets wait for the rounds.
    let mut class: Vec<u32> = {
        let mut ids: FxMap<(&[u8], Vec<Target>), u32> = FxMap::default();
        described
            .iter()
            .map(|(constant, targets)| {
                let outside: Vec<Target> = targets
                    .iter()
                    .map(|t| match t {
                        Target::Candidate(_, off) => Target::Candidate(u32::MAX, *off),
                        t => t.clone(),
                    })
                    .collect();
                let n = ids.len() as u32;
                *ids.entry((constant.as_slice(), outside)).or_insert(n)
            })
            .collect()
    };
    let mut count = distinct(&class);
    loop {
        let mut ids: FxMap<(u32, Vec<u32>), u32> = FxMap::default();
        let next: Vec<u32> = described
            .iter()
            .enumerate()
            .map(|(i, (_, targets))| {
                let inner: Vec<u32> = targets
                    .iter()
                    .filter_map(|t| match t {
                        Target::Candidate(c, _) => Some(class[*c as usize]),
                        _ => None,
                    })
                    .collect();
                let n = ids.len() as u32;
                *ids.entry((class[i], inner)).or_insert(n)
            })
            .collect();
        let next_count = distinct(&next);
        class = next;
        if next_count == count {
            break;
        }
        count = next_count;
    }

    // In each class the first section in input order stays.
    let mut kept: FxMap<u32, usize> = FxMap::default();
    let mut groups: Vec<(SectionRef, Vec<SectionRef>)> = Vec::new();
    let mut group_of: FxMap<usize, usize> = FxMap::default();
    for (i, &c) in class.iter().enumerate() {
        match kept.get(&c) {
            None => {
                kept.insert(c, i);
            }
            Some(&k) => {
                let g = *group_of.entry(k).or_insert_with(|| {
                    groups.push((candidates[k], Vec::new()));
                    groups.len() - 1
                });
                groups[g].1.push(candidates[i]);
            }
        }
    }
    for (keep, folded) in &groups {
        let align = folded
            .iter()
            .map(|&(f, s)| link.objects[f as usize].sections[s as usize].align)
            .max()
            .unwrap_or(1);
        let k = &mut link.objects[keep.0 as usize].sections[keep.1 as usize];
        k.align = k.align.max(align);
        for &(f, s) in folded {
            link.objects[f as usize].sections[s as usize].live = false;
            link.folded_into.insert((f, s), *keep);
        }
    }
    // A folded section's SHF_LINK_ORDER metadata goes with it (lld's): the kept copy has
    // its own.
    for (f, obj) in link.objects.iter_mut().enumerate() {
        for &(child, parent) in &obj.link_order {
            if link.folded_into.contains_key(&(f as u32, parent)) {
                obj.sections[child as usize].live = false;
            }
        }
    }
    // Global symbols defined in a folded section are defined in the kept one.
    for sym in link.symtab.symbols.iter_mut() {
        if let SymbolDef::Defined { file, section, .. } = &mut sym.def {
            if let Some(&(kf, ks)) = link.folded_into.get(&(*file, *section)) {
                *file = kf;
                *section = ks;
            }
        }
    }
    Folded { groups }
}

type FxMap<K, V> = FxHashMap<K, V>;

fn distinct(class: &[u32]) -> usize {
    let mut seen = rustc_hash::FxHashSet::default();
    class.iter().filter(|&&c| seen.insert(c)).count()
}

/// The sections that may be folded, in input order.
fn candidates(link: &Link, level: Icf) -> Vec<SectionRef> {
    let mut unique = address_significant(link, level);
    // `--keep-unique SYMBOL` (lld's): its section is never folded.
    for name in &link.opts.keep_unique {
        let def = link
            .symtab
            .lookup(name.as_bytes())
            .map(|id| link.symtab.get(id).def);
        match def {
            Some(SymbolDef::Defined { file, section, .. }) if shndx::is_section(section) => {
                unique.insert((file, section));
            }
            _ => crate::diag::warn(&format!("could not find symbol {name} to keep unique")),
        }
    }
    // Identical code may still catch different exceptions: a function with a language-
    // specific data area (its FDE points to one) is never folded, as in lld.
    for (f, obj) in link.objects.iter().enumerate() {
        for (i, s) in obj.sections.iter().enumerate() {
            if s.kind == SectionKind::EhFrame && s.is_kept() {
                functions_with_lsda(link, f as FileId, i, &mut unique);
            }
        }
    }
    let mut out = Vec::new();
    for (f, obj) in link.objects.iter().enumerate() {
        for (i, s) in obj.sections.iter().enumerate() {
            let r = (f as FileId, i as u32);
            let writable = s.flags & u64::from(elf::SHF_WRITE) != 0
                && s.name() != ".data.rel.ro"
                && !s.name().starts_with(".data.rel.ro.");
            let eligible = s.is_kept()
                && s.kind == SectionKind::Regular
                && s.is_alloc()
                && s.sh_type == elf::SHT_PROGBITS
                && !writable
                && s.flags & u64::from(elf::SHF_LINK_ORDER | elf::SHF_TLS) == 0
                && s.name() != ".init"
                && s.name() != ".fini"
                // `__start_NAME`/`__stop_NAME` enumerate such sections: folding would
                // change what they see.
                && !crate::gc::is_c_identifier(s.name())
                && !unique.contains(&r);
            if eligible {
                out.push(r);
            }
        }
    }
    out
}

/// Sections that must stay apart because their address matters: those of symbols exported
/// to the dynamic symbol table, and those of the symbols each object's `.llvm_addrsig`
/// lists (every symbol of an object without one). As in lld, code under `--icf=all` folds
/// anyway: only data keeps its address there.
fn address_significant(link: &Link, level: Icf) -> rustc_hash::FxHashSet<SectionRef> {
    let mut unique = rustc_hash::FxHashSet::default();
    let mut mark = |(file, section): SectionRef| {
        if !shndx::is_section(section) {
            return;
        }
        let Some(s) = link.objects[file as usize].sections.get(section as usize) else {
            return;
        };
        if level == Icf::Safe || s.flags & u64::from(elf::SHF_EXECINSTR) == 0 {
            unique.insert((file, section));
        }
    };
    for sym in &link.symtab.symbols {
        if let SymbolDef::Defined { file, section, .. } = sym.def {
            if sym.in_dynsym {
                mark((file, section));
            }
        }
    }
    for (f, obj) in link.objects.iter().enumerate() {
        let f = f as FileId;
        let section_of = |sym: usize| -> Option<SectionRef> {
            match obj.global_index(sym) {
                Some(id) => match link.symtab.get(id).def {
                    SymbolDef::Defined { file, section, .. } => Some((file, section)),
                    _ => None,
                },
                None => Some((f, obj.symbol_section(sym))),
            }
        };
        match obj.sections.iter().find(|s| s.sh_type == SHT_LLVM_ADDRSIG) {
            Some(addrsig) => {
                let mut data = addrsig.data();
                while let Some((sym, rest)) = uleb128(data) {
                    data = rest;
                    let sym = usize::try_from(sym).unwrap_or(usize::MAX);
                    if sym < obj.symbols.len() {
                        section_of(sym).into_iter().for_each(&mut mark);
                    }
                }
            }
            // Nothing says which addresses are taken: any symbol's may be.
            None => (1..obj.symbols.len())
                .filter_map(section_of)
                .for_each(&mut mark),
        }
    }
    unique
}

/// Adds the sections of the functions whose FDE in `.eh_frame` section `sec` of object
/// `f` has an LSDA: on x86-64 an FDE's relocations are its start address and, when it
/// has one, its LSDA pointer.
fn functions_with_lsda(
    link: &Link,
    f: FileId,
    sec: usize,
    out: &mut rustc_hash::FxHashSet<SectionRef>,
) {
    let obj = &link.objects[f as usize];
    for record in crate::object_file::eh_frame_records(&obj.sections[sec]) {
        let Some(sym) = record.fde_target().filter(|_| record.relocs.len() >= 2) else {
            continue;
        };
        let section = match obj.global_index(sym) {
            Some(id) => match link.symtab.get(id).def {
                SymbolDef::Defined { file, section, .. } => Some((file, section)),
                _ => None,
            },
            None => Some((f, obj.symbol_section(sym))),
        };
        out.extend(section);
    }
}

fn uleb128(data: &[u8]) -> Option<(u64, &[u8])> {
    let mut value = 0u64;
    for (i, &b) in data.iter().enumerate().take(10) {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((value, &data[i + 1..]));
        }
    }
    None
}

/// A section's comparable bytes (flags, type, contents, and per relocation its type, offset
/// and addend), and where its relocations point.
fn describe(
    link: &Link,
    (f, s): SectionRef,
    index: &FxMap<SectionRef, u32>,
) -> (Vec<u8>, Vec<Target>) {
    let obj = &link.objects[f as usize];
    let sec = &obj.sections[s as usize];
    let mut constant = Vec::with_capacity(sec.data().len() + 24 * sec.relocs().len() + 24);
    constant.extend_from_slice(&sec.flags.to_le_bytes());
    constant.extend_from_slice(&sec.size().to_le_bytes());
    // Sections of different output sections stay apart (their code is placed apart).
    let output = crate::output_section::output_section_name(
        sec.name(),
        link.opts.z_keep_text_section_prefix,
    );
    constant.extend_from_slice(output.as_bytes());
    constant.push(0);
    constant.extend_from_slice(sec.data());
    let mut targets = Vec::with_capacity(sec.relocs().len());
    for r in sec.relocs() {
        constant.extend_from_slice(&r.r_type(LE, false).to_le_bytes());
        constant.extend_from_slice(&r.r_offset(LE).to_le_bytes());
        let addend = r.r_addend(LE);
        targets.push(target(link, f, r.r_sym(LE, false) as usize, addend, index));
    }
    (constant, targets)
}

fn target(
    link: &Link,
    f: FileId,
    sym: usize,
    addend: i64,
    index: &FxMap<SectionRef, u32>,
) -> Target {
    let obj = &link.objects[f as usize];
    // A section symbol's addend is an offset into its section; another symbol's addend is
    // separate (a PC-relative reference's -4 does not move into the previous constant).
    let (file, section, value, is_section) = match obj.global_index(sym) {
        Some(id) => match link.symtab.get(id).def {
            SymbolDef::Defined {
                file,
                section,
                value,
            } if shndx::is_section(section) && !link.symtab.get(id).preemptible => {
                (file, section, value, false)
            }
            // Undefined, in a library, absolute, or interposable at run time: the symbol
            // itself is what must match.
            _ => return Target::Symbol(id, addend),
        },
        None => {
            let section = obj.symbol_section(sym);
            let Some(esym) = obj.symbols.get(sym) else {
                return Target::Symbol(u32::MAX, addend);
            };
            let value = esym.st_value(LE);
            if !shndx::is_section(section) {
                // A local absolute symbol: its value is the target.
                return Target::Symbol(u32::MAX, (value as i64).wrapping_add(addend));
            }
            (f, section, value, esym.st_type() == elf::STT_SECTION)
        }
    };
    let at = (value as i64).wrapping_add(addend);
    if let Some(&n) = index.get(&(file, section)) {
        return Target::Candidate(n, at);
    }
    let target = &link.objects[file as usize].sections[section as usize];
    if target.kind == SectionKind::Merge {
        let (inside, beyond) = if is_section {
            (at, 0)
        } else {
            (value as i64, addend)
        };
        if let Some((bytes, delta)) = merged_piece(target, inside) {
            return Target::Merged(bytes, delta, beyond);
        }
    }
    Target::Section((file, section), at)
}

/// The piece of a merge section holding byte `at` (a string with its NUL, or an entsize
/// constant) and `at`'s offset in it: equal pieces get one address in the output.
fn merged_piece(sec: &crate::object_file::InputSection, at: i64) -> Option<(Vec<u8>, i64)> {
    let at = usize::try_from(at).ok()?;
    if at >= sec.data().len() {
        return None;
    }
    let (start, end) = if sec.flags & u64::from(elf::SHF_STRINGS) != 0 {
        let start = sec.data()[..at]
            .iter()
            .rposition(|&b| b == 0)
            .map_or(0, |p| p + 1);
        let end = at + sec.data()[at..].iter().position(|&b| b == 0)? + 1;
        (start, end)
    } else {
        let size = Some(usize::from(sec.entsize)).filter(|&e| e > 0)?;
        let start = at - at % size;
        (start, (start + size).min(sec.data().len()))
    };
    Some((sec.data()[start..end].to_vec(), (at - start) as i64))
}

/// `--print-icf-sections`, as lld words it.
pub fn report(link: &Link, folded: &Folded) -> Vec<String> {
    let name = |(f, s): SectionRef| {
        let obj = &link.objects[f as usize];
        format!("{}:({})", obj.name, obj.sections[s as usize].name())
    };
    let mut out = Vec::new();
    for (keep, gone) in &folded.groups {
        out.push(format!("selected section {}", name(*keep)));
        for &g in gone {
            out.push(format!("  removing identical section {}", name(g)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addrsig_indices() {
        let data = [3u8, 0x80, 0x01, 7];
        let (a, rest) = uleb128(&data).unwrap();
        let (b, rest) = uleb128(rest).unwrap();
        let (c, rest) = uleb128(rest).unwrap();
        assert_eq!((a, b, c), (3, 128, 7));
        assert!(rest.is_empty() && uleb128(rest).is_none());
    }
}
