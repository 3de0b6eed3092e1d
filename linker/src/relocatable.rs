//! `-r`: one relocatable object made of the inputs, for a later link to use as if it were
//! those inputs.
//!
//! As lld and GNU ld do it: sections of the same name (and kind) are concatenated under
//! their own name; members of COMDAT groups stay sections of their own and their groups
//! are kept, once per signature, so the final link can still choose one copy; mergeable
//! strings and constants are merged; `.eh_frame` is concatenated without its terminator;
//! common symbols stay common; hidden symbols stay global (the final link makes them
//! local); nothing gets an address. Every relocation is kept, with its offset inside the
//! output section and its symbol renumbered (see [`crate::emit_relocs`]).

use crate::context::Link;
use crate::elf_header::{FileHeader, SectionHeader};
use crate::emit_relocs::relocation_sections;
use crate::error::{LinkError, Result};
use crate::layout;
use crate::object_file::SectionKind;
use crate::output_file::PendingOutput;
use crate::output_section::{Placement, TailKind};
use crate::static_symtab::{build_symtab, SymtabIndex};
use crate::synthetic::{gnu_property_size, write_gnu_property};
use crate::timer::Timer;
use object::elf::*;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// A section header of the output, in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Header {
    Output(u32),
    Group(usize),
    Rela(u32),
    /// The inputs' call graph profiles, for the final link to order code by (lld keeps
    /// them too), and their relocations naming caller and callee.
    CallGraph,
    CallGraphRel,
    GnuStack,
    GnuProperty,
    Symtab,
    Strtab,
    Shstrtab,
    SymtabShndx,
}

/// A COMDAT group the output keeps: the object it came from, its signature symbol there,
/// and its members' output sections.
struct Group {
    file: u32,
    signature: u32,
    members: Vec<u32>,
}

/// Lays out and writes the relocatable output.
pub fn write(link: &mut Link, mut pending: PendingOutput, timer: &mut Timer) -> Result<()> {
    drop_duplicate_groups(link);
    layout::assign_input_sections(link)?;
    crate::script_layout::apply_subalign(link)?;
    crate::script_layout::relocatable_order(link)?;
    crate::script_layout::report_orphans(link)?;
    let placement = layout::place_inputs(link)?;
    timer.phase("output sections");

    let mut compressed = compress_debug_sections(link, &placement)?;
    let groups = kept_groups(link);
    let has_relocs: Vec<bool> = link
        .outputs
        .iter()
        .map(|o| {
            o.inputs.iter().any(|&(f, i)| {
                let s = &link.objects[f as usize].sections[i as usize];
                s.kind != SectionKind::Merge && !s.relocs().is_empty()
            })
        })
        .collect();

    // A group's header goes before its first member's, as the ELF specification asks.
    let mut group_at: FxHashMap<u32, usize> = FxHashMap::default();
    for (g, group) in groups.iter().enumerate() {
        if let Some(&first) = group.members.iter().min() {
            group_at.entry(first).or_insert(g);
        }
    }
    let mut headers = Vec::new();
    // Per output section: the header index of its relocations (0 if none).
    let mut rela_index = vec![0u32; has_relocs.len()];
    for (k, &relocs) in has_relocs.iter().enumerate() {
        let k = k as u32;
        if let Some(&g) = group_at.get(&k) {
            headers.push(Header::Group(g));
        }
        headers.push(Header::Output(k));
        if relocs {
            headers.push(Header::Rela(k));
            rela_index[k as usize] = headers.len() as u32;
        }
    }
    let has_call_graph = link.objects.iter().any(|o| !o.call_graph.is_empty());
    if has_call_graph {
        headers.extend([Header::CallGraph, Header::CallGraphRel]);
    }
    headers.push(Header::GnuStack);
    let property_size = gnu_property_size(link);
    if property_size > 0 {
        headers.push(Header::GnuProperty);
    }
    headers.extend([Header::Symtab, Header::Strtab, Header::Shstrtab]);
    let index_of = |headers: &[Header], h: Header| -> u32 {
        1 + headers.iter().position(|&x| x == h).expect("header listed") as u32
    };
    for (i, h) in headers.iter().enumerate() {
        if let Header::Output(k) = *h {
            let o = &mut link.outputs[k as usize];
            o.index = 1 + i as u32;
        }
    }

    // A relocatable output has no GOT, PLT, dynamic relocations or segments.
    let no_tables = crate::tables::Tables::default();
    let no_segments = crate::context::Segments {
        sections: crate::context::SectionPlaces::for_outputs(&link.outputs),
        ..Default::default()
    };
    let image =
        crate::image::Image::before_symbol_addresses(link, &no_tables, &placement, &no_segments);
    let (symtab, index) = build_symtab(&image);
    let index = index.expect("-r builds the symbol index");
    let mut relocs: FxHashMap<u32, Vec<u8>> =
        relocation_sections(&image, &index, &Default::default())
            .into_iter()
            .map(|r| (r.output, r.bytes))
            .collect();
    let (call_graph, call_graph_rel) = call_graph_bytes(link, &index);
    if symtab.has_extended_indices() {
        headers.push(Header::SymtabShndx);
    }
    timer.phase("  .symtab and relocations");

    let symtab_index = index_of(&headers, Header::Symtab);
    let group_bytes: Vec<Vec<u8>> = groups
        .iter()
        .map(|g| {
            let mut words = vec![GRP_COMDAT];
            for &k in &g.members {
                words.push(link.outputs[k as usize].index);
                if has_relocs[k as usize] {
                    words.push(rela_index[k as usize]);
                }
            }
            words.iter().flat_map(|w| w.to_le_bytes()).collect()
        })
        .collect();

    let mut shstrtab = vec![0u8];
    let mut name_offsets = Vec::with_capacity(headers.len());
    for h in &headers {
        let name = match *h {
            Header::Output(k) => link.outputs[k as usize].name.clone(),
            Header::Group(_) => ".group".into(),
            Header::Rela(k) => format!(".rela{}", link.outputs[k as usize].name),
            Header::CallGraph => ".llvm.call-graph-profile".into(),
            Header::CallGraphRel => ".rel.llvm.call-graph-profile".into(),
            Header::GnuStack => ".note.GNU-stack".into(),
            Header::GnuProperty => ".note.gnu.property".into(),
            Header::Symtab => ".symtab".into(),
            Header::Strtab => ".strtab".into(),
            Header::Shstrtab => ".shstrtab".into(),
            Header::SymtabShndx => ".symtab_shndx".into(),
        };
        name_offsets.push(shstrtab.len() as u32);
        shstrtab.extend_from_slice(name.as_bytes());
        shstrtab.push(0);
    }
    let shndx_bytes: Vec<u8> = symtab.shndx.iter().flat_map(|i| i.to_le_bytes()).collect();

    // Every header's fields; file offsets assigned in order after the ELF header.
    let mut shdrs: Vec<SectionHeader> = Vec::with_capacity(headers.len());
    let mut end = 64u64;
    for (i, h) in headers.iter().enumerate() {
        let mut sh = match *h {
            Header::Output(k) => {
                let o = &link.outputs[k as usize];
                let mut sh = shdr(o.sh_type, o.flags, o.size, o.align, o.entsize);
                sh.link = link.outputs.linked_index(o);
                sh
            }
            Header::Group(g) => {
                let mut sh = shdr(SHT_GROUP, 0, group_bytes[g].len() as u64, 4, 4);
                sh.link = symtab_index;
                sh.info = signature_index(link, &index, &groups[g]);
                sh
            }
            Header::Rela(k) => {
                let target = &link.outputs[k as usize];
                let bytes = relocs.get(&k).map_or(0, Vec::len) as u64;
                let flags = u64::from(SHF_INFO_LINK) | (target.flags & u64::from(SHF_GROUP));
                let mut sh = shdr(SHT_RELA, flags, bytes, 8, 24);
                sh.link = symtab_index;
                sh.info = target.index;
                sh
            }
            Header::CallGraph => {
                let flags = u64::from(SHF_EXCLUDE);
                shdr(
                    SHT_LLVM_CALL_GRAPH_PROFILE,
                    flags,
                    call_graph.len() as u64,
                    1,
                    8,
                )
            }
            Header::CallGraphRel => {
                let size = call_graph_rel.len() as u64;
                let mut sh = shdr(SHT_REL, u64::from(SHF_INFO_LINK), size, 8, 16);
                sh.link = symtab_index;
                sh.info = index_of(&headers, Header::CallGraph);
                sh
            }
            Header::GnuStack => {
                // Executable only if an input asked for it.
                let flags = if layout::asks_for_executable_stack(link) {
                    u64::from(SHF_EXECINSTR)
                } else {
                    0
                };
                shdr(SHT_PROGBITS, flags, 0, 1, 0)
            }
            Header::GnuProperty => shdr(SHT_NOTE, u64::from(SHF_ALLOC), property_size, 8, 0),
            Header::Symtab => {
                let mut sh = shdr(SHT_SYMTAB, 0, symtab.symtab_len() as u64, 8, 24);
                sh.link = index_of(&headers, Header::Strtab);
                sh.info = symtab.first_global;
                sh
            }
            Header::Strtab => shdr(SHT_STRTAB, 0, symtab.strtab_len() as u64, 1, 0),
            Header::Shstrtab => shdr(SHT_STRTAB, 0, shstrtab.len() as u64, 1, 0),
            Header::SymtabShndx => {
                let mut sh = shdr(SHT_SYMTAB_SHNDX, 0, shndx_bytes.len() as u64, 4, 4);
                sh.link = symtab_index;
                sh
            }
        };
        sh.name = name_offsets[i];
        end = end.next_multiple_of(sh.align.max(1));
        sh.offset = end;
        if sh.sh_type != SHT_NOBITS {
            end += sh.size;
        }
        shdrs.push(sh);
    }
    let shoff = end.next_multiple_of(8);
    let shnum = 1 + headers.len() as u64;
    let mut image = pending.buffer(shoff + 64 * shnum)?;
    let buf: &mut [u8] = &mut image;

    for (h, sh) in headers.iter().zip(&shdrs) {
        let at = sh.offset as usize;
        let place = &mut buf[at..at
            + if sh.sh_type == SHT_NOBITS {
                0
            } else {
                sh.size as usize
            }];
        match *h {
            Header::Output(k) => match compressed.remove(&k) {
                Some(bytes) => place.copy_from_slice(&bytes),
                None => write_output_section(link, &placement, k, place),
            },
            Header::Group(g) => place.copy_from_slice(&group_bytes[g]),
            Header::Rela(k) => {
                if let Some(bytes) = relocs.remove(&k) {
                    place.copy_from_slice(&bytes);
                }
            }
            Header::CallGraph => place.copy_from_slice(&call_graph),
            Header::CallGraphRel => place.copy_from_slice(&call_graph_rel),
            Header::GnuStack => {}
            Header::GnuProperty => write_gnu_property(link, place),
            Header::Symtab => symtab.write_symtab(place),
            Header::Strtab => symtab.write_strtab(place),
            Header::Shstrtab => place.copy_from_slice(&shstrtab),
            Header::SymtabShndx => place.copy_from_slice(&shndx_bytes),
        }
    }
    FileHeader {
        e_type: ET_REL,
        osabi: crate::elf_header::output_osabi(link),
        entry: 0,
        phnum: 0,
        shoff,
        shnum: shnum as u32,
        shstrndx: index_of(&headers, Header::Shstrtab),
    }
    .write(buf);
    for (i, sh) in shdrs.iter().enumerate() {
        let at = (shoff + 64 * (1 + i as u64)) as usize;
        sh.write(&mut buf[at..at + 64]);
    }
    timer.phase("write output");
    pending.commit(image)
}

const SHT_LLVM_CALL_GRAPH_PROFILE: u32 = 0x6fff_4c09;

/// The inputs' call graph profiles as one section: each entry's count, and per entry two
/// R_X86_64_NONE relocations (REL, as LLVM writes them) naming caller and callee in the
/// output's symbol table. An entry whose symbol the output does not list is left out.
fn call_graph_bytes(link: &Link, index: &SymtabIndex) -> (Vec<u8>, Vec<u8>) {
    let (mut counts, mut rels) = (Vec::new(), Vec::new());
    for (f, obj) in link.objects.iter().enumerate() {
        let output_index = |sym: u32| index.of(link.target(f as u32, sym as usize));
        for e in &obj.call_graph {
            let (Some(from), Some(to)) = (output_index(e.from), output_index(e.to)) else {
                continue;
            };
            let offset = counts.len() as u64;
            counts.extend_from_slice(&e.weight.to_le_bytes());
            for sym in [from, to] {
                rels.extend_from_slice(&offset.to_le_bytes());
                rels.extend_from_slice(&(u64::from(sym) << 32).to_le_bytes());
            }
        }
    }
    (counts, rels)
}

/// Keeps each COMDAT group once. Reading the inputs dropped later copies already, except
/// beside the LTO object, whose groups hold the definitions the bitcode prevailed with:
/// a final link would keep only the first of two copies, so the one the symbol table
/// chose stays and the others go.
fn drop_duplicate_groups(link: &mut Link) {
    let mut by_signature: FxHashMap<&[u8], Vec<(u32, usize)>> = FxHashMap::default();
    for (f, obj) in link.objects.iter().enumerate() {
        for (g, group) in obj.comdat_groups.iter().enumerate() {
            let live = group
                .members
                .iter()
                .any(|m| obj.sections[m as usize].is_kept());
            if live {
                by_signature
                    .entry(group.signature)
                    .or_default()
                    .push((f as u32, g));
            }
        }
    }
    let mut losers = Vec::new();
    for (signature, copies) in by_signature {
        if copies.len() < 2 {
            continue;
        }
        let chosen = link
            .symtab
            .lookup(signature)
            .and_then(|id| match link.symtab.get(id).def {
                crate::symbols::SymbolDef::Defined { file, .. } => Some(file),
                _ => None,
            });
        let winner = copies
            .iter()
            .position(|&(f, _)| Some(f) == chosen)
            .unwrap_or(0);
        losers.extend(
            copies
                .into_iter()
                .enumerate()
                .filter(|&(i, _)| i != winner)
                .map(|(_, copy)| copy),
        );
    }
    for (f, g) in losers {
        let obj = &mut link.objects[f as usize];
        let members = obj.comdat_groups[g].members;
        for m in members.iter() {
            let m = m as usize;
            obj.sections[m].kind = SectionKind::Ignored;
            obj.sections[m].live = false;
        }
    }
}

/// The groups whose members the output holds: one per signature (the others' members
/// were dropped when the inputs were read).
fn kept_groups(link: &Link) -> Vec<Group> {
    let mut groups = Vec::new();
    // `--force-group-allocation`: resolved here, no group is left for the final link.
    if link.opts.force_group_allocation {
        return groups;
    }
    for (f, obj) in link.objects.iter().enumerate() {
        for g in &obj.comdat_groups {
            let members: Vec<u32> = g
                .members
                .iter()
                .filter_map(|m| {
                    let s = &obj.sections[m as usize];
                    let placed = link.outputs.position(s.output).filter(|_| s.is_kept());
                    placed.map(|p| p as u32)
                })
                .collect();
            if !members.is_empty() {
                groups.push(Group {
                    file: f as u32,
                    signature: g.signature_symbol,
                    members,
                });
            }
        }
    }
    groups
}

/// The output's index of a group's signature symbol; a local one not shown in the symbol
/// table is replaced by the section symbol of the group's first member.
fn signature_index(link: &Link, index: &SymtabIndex, g: &Group) -> u32 {
    let shown = index.of(link.target(g.file, g.signature as usize));
    shown.unwrap_or_else(|| index.sections[g.members[0] as usize])
}

/// Output section `k`'s bytes, unrelocated: its inputs at their offsets, `.eh_frame`
/// records, merged pieces; traps between code (lld's).
fn write_output_section(link: &Link, placement: &Placement, k: u32, out: &mut [u8]) {
    let o = &link.outputs[k as usize];
    if o.sh_type == SHT_NOBITS {
        return;
    }
    if let Some(p) = crate::fill::pattern(o.flags, None) {
        crate::fill::fill(out, p);
    }
    for &(f, i) in &o.inputs {
        let s = &link.objects[f as usize].sections[i as usize];
        let at = s.offset as usize;
        match s.kind {
            SectionKind::Merge | SectionKind::Ignored => {}
            SectionKind::EhFrame => {
                let window = s.offset..u64::MAX;
                crate::write::copy_eh_frame_pieces(link, placement, f, i, &mut out[at..], window);
            }
            SectionKind::Regular => {
                if s.sh_type != SHT_NOBITS {
                    out[at..at + s.data().len()].copy_from_slice(s.data());
                }
            }
        }
    }
    for t in &o.tails {
        if let TailKind::Merged(g) = t.kind {
            let data = &placement.merge_groups[g as usize].data;
            let at = t.offset as usize;
            out[at..at + data.len()].copy_from_slice(data);
        }
    }
}

/// `--compress-debug-sections` and `--compress-sections` in `-r` output, as lld does them:
/// each section they choose whose compressed form is smaller becomes SHF_COMPRESSED (its relocations keep the
/// uncompressed offsets, which is what consumers apply them to). The compressed bytes, by
/// output section.
fn compress_debug_sections(
    link: &mut Link,
    placement: &Placement,
) -> Result<FxHashMap<u32, Vec<u8>>> {
    let chosen = crate::compressed::sections_to_compress(link.opts, &link.outputs)?;
    let done: Vec<(u32, std::io::Result<Vec<u8>>)> = chosen
        .par_iter()
        .map(|&(k, how)| {
            let o = &link.outputs[k as usize];
            let mut bytes = vec![0u8; o.size as usize];
            write_output_section(link, placement, k, &mut bytes);
            (k, crate::compressed::compress_section(&bytes, o.align, how))
        })
        .collect();
    let mut compressed = FxHashMap::default();
    for (k, bytes) in done {
        let o = &mut link.outputs[k as usize];
        let bytes = bytes.map_err(|e| LinkError::Link(format!("compressing {}: {e}", o.name)))?;
        if let Some(bytes) = crate::compressed::adopt(o, bytes) {
            compressed.insert(k, bytes);
        }
    }
    Ok(compressed)
}

/// A section header with the fields every section sets; name, offset, link and info are
/// filled in afterwards.
fn shdr(sh_type: u32, flags: u64, size: u64, align: u64, entsize: u64) -> SectionHeader {
    SectionHeader {
        sh_type,
        flags,
        size,
        align,
        entsize,
        ..Default::default()
    }
}
