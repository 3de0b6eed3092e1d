//! Writing the output file: the ELF and program headers, every section's bytes (input
//! sections relocated in parallel), .symtab, section headers, and the build ID.
//!
//! The image is written into a buffer from `output_file`, which puts it in place only when
//! everything succeeded.

use crate::context::Link;
use crate::dynamic::DynamicTables;
use crate::error::{LinkError, Result};
use crate::object_file::{shndx, SectionKind, LE, NO_OUTPUT};
use crate::options::{BuildId, OutputKind};
use crate::output_file::{OutputBuffer, PendingOutput};
use crate::output_section::{eh_record_len, fde_cie_pointer, Synthetic, TailKind};
use crate::relocate::relocate_section;
use crate::scan::RelocPlan;
use crate::sym_section::{symbol_section, SymSection};
use crate::symbols::SymbolDef;
use crate::synthetic::{put_u32, put_u64, write_synthetic};
use crate::timer::Timer;
use object::elf::*;
use object::read::elf::Sym as _;
use rayon::prelude::*;

/// The static symbol table, its string table and, when some section index does not fit
/// `st_shndx`, its `.symtab_shndx`; or a part of them, built on its own and appended.
#[derive(Default)]
struct Symtab {
    symtab: Vec<u8>,
    strtab: Vec<u8>,
    /// One word per symbol: the real section index where `st_shndx` is SHN_XINDEX.
    shndx: Vec<u32>,
    first_global: u32,
}

/// Which symbols a part of `.symtab` holds, for [`SymtabIndex`].
enum PartOf {
    /// Per symbol, the output section (index in `Link::outputs`) it stands for.
    Sections(Vec<u32>),
    /// Per symbol, its index in object `file`'s symbol table.
    Locals(usize, Vec<u32>),
    /// Per symbol, its global symbol id.
    Globals(Vec<u32>),
}

/// Where the symbols a copied relocation may name sit in `.symtab` (`--emit-relocs`).
pub(crate) struct SymtabIndex {
    /// Per output section (by position in `Link::outputs`): its section symbol, or 0.
    pub sections: Vec<u32>,
    /// Per object: its local symbols shown, (input index, `.symtab` index), sorted.
    pub locals: Vec<Vec<(u32, u32)>>,
    /// Per global symbol id: its `.symtab` index, or 0 when not shown.
    pub globals: Vec<u32>,
}

impl SymtabIndex {
    fn new(link: &Link, parts: &[(Symtab, PartOf)]) -> SymtabIndex {
        let mut index = SymtabIndex {
            sections: vec![0; link.outputs.len()],
            locals: vec![Vec::new(); link.objects.len()],
            globals: vec![0; link.symtab.symbols.len()],
        };
        let mut next = 1u32;
        for (part, of) in parts {
            let count = (part.symtab.len() / 24) as u32;
            match of {
                PartOf::Sections(outputs) => {
                    for (k, &o) in outputs.iter().enumerate() {
                        index.sections[o as usize] = next + k as u32;
                    }
                }
                PartOf::Locals(file, syms) => {
                    index.locals[*file] = (syms.iter().enumerate())
                        .map(|(k, &i)| (i, next + k as u32))
                        .collect();
                }
                PartOf::Globals(ids) => {
                    for (k, &id) in ids.iter().enumerate() {
                        index.globals[id as usize] = next + k as u32;
                    }
                }
            }
            next += count;
        }
        index
    }

    /// The `.symtab` index of object `file`'s local symbol `sym`, if shown.
    pub fn local(&self, file: u32, sym: u32) -> Option<u32> {
        let locals = &self.locals[file as usize];
        locals
            .binary_search_by_key(&sym, |&(i, _)| i)
            .ok()
            .map(|k| locals[k].1)
    }
}

/// One symbol of `.symtab` before it is encoded.
struct OutSym<'a> {
    name: &'a [u8],
    info: u8,
    other: u8,
    section: SymSection,
    value: u64,
    size: u64,
}

impl Symtab {
    fn push(&mut self, sym: OutSym, tls_start: u64) {
        // In a part, a name's offset plus one, so that 0 stays "no name" (section
        // symbols have none: tools show the section's name for them).
        let name = if sym.name.is_empty() {
            0
        } else {
            let offset = self.strtab.len() as u32 + 1;
            self.strtab.extend_from_slice(sym.name);
            self.strtab.push(0);
            offset
        };
        // TLS symbols hold their offset inside the TLS template, not an address.
        let value = if sym.info & 0xf == STT_TLS && sym.section.is_defined_in_section() {
            sym.value.wrapping_sub(tls_start)
        } else {
            sym.value
        };
        let (shndx, extended) = sym.section.st_shndx();
        let out = &mut self.symtab;
        out.extend_from_slice(&name.to_le_bytes());
        out.push(sym.info);
        out.push(sym.other);
        out.extend_from_slice(&shndx.to_le_bytes());
        out.extend_from_slice(&value.to_le_bytes());
        out.extend_from_slice(&sym.size.to_le_bytes());
        self.shndx.push(extended);
    }

    /// The whole table from parts built on their own, in order after the null symbol; the
    /// first `first_global` parts hold the local symbols. Each part is copied into place in
    /// parallel, its names moved to where its strings land.
    fn join(parts: Vec<Symtab>, first_global: usize) -> Symtab {
        let mut table = Symtab {
            symtab: vec![0u8; 24 + parts.iter().map(|p| p.symtab.len()).sum::<usize>()],
            strtab: vec![0u8; 1 + parts.iter().map(|p| p.strtab.len()).sum::<usize>()],
            shndx: vec![0],
            first_global: 1 + parts[..first_global]
                .iter()
                .map(|p| (p.symtab.len() / 24) as u32)
                .sum::<u32>(),
        };
        for p in &parts {
            table.shndx.extend_from_slice(&p.shndx);
        }
        let mut places = Vec::with_capacity(parts.len());
        let (mut syms, mut strs) = (&mut table.symtab[24..], &mut table.strtab[1..]);
        let mut base = 1u32;
        for p in &parts {
            let (sym_place, rest) = std::mem::take(&mut syms).split_at_mut(p.symtab.len());
            let (str_place, rest_str) = std::mem::take(&mut strs).split_at_mut(p.strtab.len());
            places.push((sym_place, str_place, base));
            syms = rest;
            strs = rest_str;
            base += p.strtab.len() as u32;
        }
        places.into_par_iter().zip(parts.par_iter()).for_each(
            |((sym_place, str_place, base), part)| {
                str_place.copy_from_slice(&part.strtab);
                sym_place.copy_from_slice(&part.symtab);
                for entry in sym_place.chunks_exact_mut(24) {
                    let name = u32::from_le_bytes(entry[..4].try_into().unwrap());
                    if name != 0 {
                        entry[..4].copy_from_slice(&(name - 1 + base).to_le_bytes());
                    }
                }
            },
        );
        table
    }

    /// Whether `.symtab_shndx` is needed.
    fn has_extended_indices(&self) -> bool {
        self.shndx.iter().any(|&i| i != 0)
    }
}

/// The name a static function or variable had in its source: LTO partitions refer to one
/// another's statics as `NAME.rld.MODULE` (hidden), which is local again in the output.
/// `None` for what the compiler made without a source name (string literals, constant
/// tables: LLVM's `private`), which one module's object would not have had in its symbol
/// table either.
fn source_name(name: &[u8]) -> Option<&[u8]> {
    match rld_summaries::partition::split_shared_name(name) {
        Some(shared) => (!shared.private).then_some(shared.source),
        None => Some(name),
    }
}

/// `.symtab`, and with `--emit-relocs` where its symbols sit.
fn build_symtab(link: &Link) -> (Symtab, Option<SymtabIndex>) {
    let tls_start = link.tls.start;
    let emit_relocs = link.opts.emit_relocs;
    // With copied relocations, a section symbol per output section first (what relocations
    // against the inputs' section symbols become, as lld makes them); then the locals of
    // every object (none with `-x`; no `.L` temporaries with `-X`), then hidden globals
    // (which are local to the output), then the others: each part built in parallel, then
    // joined in that order.
    let mut parts: Vec<(Symtab, PartOf)> = Vec::new();
    if emit_relocs {
        let mut part = Symtab::default();
        let mut outputs = Vec::new();
        for (k, o) in link.outputs.iter().enumerate() {
            if o.synthetic.is_some() {
                continue;
            }
            let sym = OutSym {
                name: b"",
                info: (STB_LOCAL << 4) | STT_SECTION,
                other: 0,
                section: SymSection::Output(o.index),
                value: o.addr,
                size: 0,
            };
            part.push(sym, tls_start);
            outputs.push(k as u32);
        }
        parts.push((part, PartOf::Sections(outputs)));
    }
    if !link.opts.discard_all {
        let locals: Vec<(Symtab, PartOf)> = link
            .objects
            .par_iter()
            .enumerate()
            .map(|(file, obj)| {
                let mut part = Symtab::default();
                let mut shown = Vec::new();
                local_symbols(link, file, obj, |i, out| {
                    part.push(out, tls_start);
                    if emit_relocs {
                        shown.push(i as u32);
                    }
                });
                (part, PartOf::Locals(file, shown))
            })
            .collect();
        parts.extend(locals);
    }
    const CHUNK: usize = 4096;
    let globals: Vec<((Symtab, PartOf), (Symtab, PartOf))> = link
        .symtab
        .symbols
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(chunk, symbols)| {
            let (mut hidden, mut visible) = (Symtab::default(), Symtab::default());
            let (mut hidden_ids, mut visible_ids) = (Vec::new(), Vec::new());
            for i in 0..symbols.len() {
                let id = (chunk * CHUNK + i) as u32;
                if let Some((is_hidden, out)) = global_symbol(link, id) {
                    let (part, ids) = if is_hidden {
                        (&mut hidden, &mut hidden_ids)
                    } else {
                        (&mut visible, &mut visible_ids)
                    };
                    part.push(out, tls_start);
                    if emit_relocs {
                        ids.push(id);
                    }
                }
            }
            (
                (hidden, PartOf::Globals(hidden_ids)),
                (visible, PartOf::Globals(visible_ids)),
            )
        })
        .collect();
    let mut visible = Vec::with_capacity(globals.len());
    for (hidden, v) in globals {
        parts.push(hidden);
        visible.push(v);
    }
    let first_global = parts.len();
    parts.extend(visible);
    let index = emit_relocs.then(|| SymtabIndex::new(link, &parts));
    let table = Symtab::join(parts.into_iter().map(|(p, _)| p).collect(), first_global);
    (table, index)
}

/// The local symbols object `file` contributes to `.symtab`.
fn local_symbols<'a>(
    link: &'a Link,
    file: usize,
    obj: &'a crate::object_file::ObjectFile,
    mut emit: impl FnMut(usize, OutSym<'a>),
) {
    for i in 1..obj.first_global {
        let sym = &obj.symbols[i];
        let ty = sym.st_type();
        let name = obj.symbol_name(i);
        if ty == STT_SECTION || name.is_empty() {
            continue;
        }
        let index = obj.symbol_section(i);
        // `.L` labels are the assembler's temporaries; it keeps one only when a
        // relocation into a mergeable section needs it (`.LCPI0_0`, `.L.str`). lld's rule:
        // dropped with `-X`, and in mergeable sections unless `--discard-none`.
        if name.starts_with(b".L") && !link.opts.discard_none {
            let in_merge = obj
                .sections
                .get(index as usize)
                .is_some_and(|s| s.flags & u64::from(SHF_MERGE) != 0);
            if link.opts.discard_locals || in_merge {
                continue;
            }
        }
        let (section, value) = if ty == STT_FILE || index == shndx::ABS {
            (SymSection::Absolute, sym.st_value(LE))
        } else if !shndx::is_section(index) {
            continue;
        } else {
            // A section identical code folding removed shows as the copy kept (lld).
            let (f, sec) = link
                .folded_into
                .get(&(file as u32, index))
                .copied()
                .unwrap_or((file as u32, index));
            let s = &link.objects[f as usize].sections[sec as usize];
            if !s.is_kept() || s.output == NO_OUTPUT {
                continue;
            }
            match link.section_address(f, sec, sym.st_value(LE)) {
                Some(a) => (SymSection::Output(link.outputs[s.output as usize].index), a),
                None => continue,
            }
        };
        let out = OutSym {
            name,
            info: sym.st_info(),
            other: sym.st_other(),
            section,
            value,
            size: sym.st_size(LE),
        };
        emit(i, out);
    }
}

/// Global symbol `id` as `.symtab` shows it, and whether it is hidden (local to the
/// output); None if it is not shown.
fn global_symbol<'a>(link: &'a Link, id32: u32) -> Option<(bool, OutSym<'a>)> {
    let id = id32 as usize;
    let sym = &link.symtab.symbols[id];
    let section = match sym.def {
        // Symbols of sections that garbage collection dropped are gone too.
        SymbolDef::Defined { file, section, .. }
            if shndx::is_section(section)
                && !link.objects[file as usize].sections[section as usize].is_kept() =>
        {
            return None
        }
        SymbolDef::Defined { .. } | SymbolDef::Common { .. } | SymbolDef::Synthetic => {
            symbol_section(link, id32)
        }
        SymbolDef::Shared { .. } if link.copy_offsets.contains_key(&id32) => {
            symbol_section(link, id32)
        }
        SymbolDef::Shared { .. } | SymbolDef::Undefined if sym.ref_file.is_some() => {
            SymSection::Undefined
        }
        _ => return None,
    };
    let value = match section {
        SymSection::Undefined => 0,
        _ => link.sym_addr[id],
    };
    let undefined = section == SymSection::Undefined;
    let hidden = matches!(sym.visibility, STV_HIDDEN | STV_INTERNAL) && sym.is_defined_locally();
    let bind = if hidden {
        STB_LOCAL
    } else if sym.weak && sym.is_defined_locally() || sym.is_undef_weak() && undefined {
        STB_WEAK
    } else {
        STB_GLOBAL
    };
    let ty = if link
        .iplt_index
        .contains_key(&crate::context::Target::Global(id32))
        && !undefined
    {
        STT_GNU_IFUNC
    } else if undefined && sym.sym_type == STT_GNU_IFUNC {
        // A shared library's IFUNC is a plain function to its callers (GNU ld and lld
        // write it so).
        STT_FUNC
    } else {
        sym.sym_type
    };
    let name = if hidden {
        source_name(sym.name)?
    } else {
        sym.name
    };
    let out = OutSym {
        name,
        info: (bind << 4) | ty,
        other: sym.declared_visibility.unwrap_or(sym.visibility),
        section,
        value,
        // What another module defines has no size here (as GNU ld and lld write it).
        size: if undefined { 0 } else { sym.size },
    };
    Some((hidden, out))
}

/// One piece of the output file that can be written independently of the others.
enum Job {
    Input { file: u32, sec: u32 },
    EhFrame { file: u32, sec: u32 },
    Merged { group: u32 },
    Synthetic(Synthetic),
    Bytes(usize),
    Compressed(u32),
}

pub fn write_output(
    link: &Link,
    plan: &RelocPlan,
    dynamic: &DynamicTables,
    pending: &mut PendingOutput,
    timer: &mut Timer,
) -> Result<OutputBuffer> {
    let (symtab, symtab_index) = if link.opts.strip_all {
        (None, None)
    } else {
        let (table, index) = build_symtab(link);
        (Some(table), index)
    };
    timer.phase("  .symtab");
    let copied_relocs = symtab_index
        .map(|index| crate::emit_relocs::relocation_sections(link, &index))
        .unwrap_or_default();

    // Non-allocated sections after the image: .symtab, .symtab_shndx (only when some
    // section index does not fit st_shndx), .strtab and .shstrtab; then the section headers.
    let first_trailing = link.outputs.len() as u32 + 1;
    let mut trailing: Vec<TrailingSection> = Vec::new();
    if let Some(st) = symtab {
        let extended = st.has_extended_indices();
        trailing.push(TrailingSection {
            name: ".symtab".into(),
            sh_type: SHT_SYMTAB,
            flags: 0,
            link: first_trailing + 1 + u32::from(extended),
            info: st.first_global,
            align: 8,
            entsize: 24,
            bytes: st.symtab,
        });
        if extended {
            trailing.push(TrailingSection {
                name: ".symtab_shndx".into(),
                sh_type: SHT_SYMTAB_SHNDX,
                flags: 0,
                link: first_trailing,
                info: 0,
                align: 4,
                entsize: 4,
                bytes: st.shndx.iter().flat_map(|i| i.to_le_bytes()).collect(),
            });
        }
        trailing.push(TrailingSection::strings(".strtab", st.strtab));
    }
    for rela in copied_relocs {
        trailing.push(TrailingSection {
            name: format!(".rela{}", link.outputs[rela.output as usize].name),
            sh_type: SHT_RELA,
            flags: u64::from(SHF_INFO_LINK),
            link: first_trailing,
            info: link.outputs[rela.output as usize].index,
            align: 8,
            entsize: 24,
            bytes: rela.bytes,
        });
    }
    let mut shstrtab = vec![0u8];
    let mut shname = |s: &str| -> u32 {
        let off = shstrtab.len() as u32;
        shstrtab.extend_from_slice(s.as_bytes());
        shstrtab.push(0);
        off
    };
    let mut names: Vec<u32> = link.outputs.iter().map(|o| shname(&o.name)).collect();
    names.extend(trailing.iter().map(|t| shname(&t.name)));
    names.push(shname(".shstrtab"));
    trailing.push(TrailingSection::strings(".shstrtab", shstrtab));

    let mut end = link
        .outputs
        .iter()
        .filter(|o| !o.is_nobits())
        .map(|o| o.offset + o.size)
        .max()
        .unwrap_or(0)
        .max(64 + 56 * link.segments.len() as u64);
    let mut trailing_offsets = Vec::with_capacity(trailing.len());
    for t in &trailing {
        end = end.next_multiple_of(t.align);
        trailing_offsets.push(end);
        end += t.bytes.len() as u64;
    }
    let shoff = end.next_multiple_of(8);
    let shnum = 1 + link.outputs.len() + trailing.len();
    let file_size = shoff + 64 * shnum as u64;

    let mut map = pending.buffer(file_size)?;
    let buf: &mut [u8] = &mut map;

    // Collect every independent piece with its file range, then write them in parallel.
    // (file offset, size, address or 0 if not allocated, what to write)
    let mut jobs: Vec<(u64, u64, u64, Job)> = Vec::new();
    for (index, o) in link.outputs.iter().enumerate() {
        if o.is_nobits() {
            continue;
        }
        if link.compressed_outputs.contains_key(&(index as u32)) {
            jobs.push((o.offset, o.size, 0, Job::Compressed(index as u32)));
            continue;
        }
        let addr = |offset: u64| if o.is_alloc() { o.addr + offset } else { 0 };
        if let Some(which) = o.synthetic {
            jobs.push((o.offset, o.size, addr(0), Job::Synthetic(which)));
            continue;
        }
        for &(f, i) in &o.inputs {
            let s = &link.objects[f as usize].sections[i as usize];
            match s.kind {
                SectionKind::Merge => {}
                SectionKind::EhFrame => {
                    let size = s
                        .pieces
                        .iter()
                        .filter(|p| p.output_offset != u64::MAX)
                        .map(|p| {
                            p.output_offset + eh_record_len(s.data, p.input_offset as usize)
                                - s.offset
                        })
                        .max()
                        .unwrap_or(0);
                    let job = Job::EhFrame { file: f, sec: i };
                    jobs.push((o.offset + s.offset, size, addr(s.offset), job));
                }
                _ => {
                    let job = Job::Input { file: f, sec: i };
                    jobs.push((o.offset + s.offset, s.size, addr(s.offset), job));
                }
            }
        }
        for t in &o.tails {
            if let TailKind::Merged(g) = t.kind {
                jobs.push((
                    o.offset + t.offset,
                    t.size,
                    addr(t.offset),
                    Job::Merged { group: g },
                ));
            }
        }
    }
    for (i, (t, off)) in trailing.iter().zip(&trailing_offsets).enumerate() {
        jobs.push((*off, t.bytes.len() as u64, 0, Job::Bytes(i)));
    }
    jobs.retain(|j| j.1 > 0);
    jobs.sort_by_key(|j| j.0);

    let mut slices: Vec<(&mut [u8], u64, &Job)> = Vec::with_capacity(jobs.len());
    let mut rest: &mut [u8] = buf;
    let mut consumed = 0u64;
    for (off, size, addr, job) in &jobs {
        if *off < consumed {
            return Err(LinkError::Link(format!(
                "internal error: overlapping output at offset {off:#x}"
            )));
        }
        let (_, tail) = std::mem::take(&mut rest).split_at_mut((off - consumed) as usize);
        let (piece, tail) = tail.split_at_mut(*size as usize);
        rest = tail;
        consumed = off + size;
        slices.push((piece, *addr, job));
    }
    let errors: Vec<String> = slices
        .into_par_iter()
        .flat_map(|(piece, addr, job)| match job {
            Job::Input { file, sec } => {
                let errors = relocate_section(link, plan, *file, *sec, piece, addr);
                crate::endbr::apply(link, *file, *sec, piece);
                errors
            }
            Job::EhFrame { file, sec } => {
                copy_eh_frame_pieces(link, *file, *sec, piece);
                relocate_eh_frame(link, plan, *file, *sec, piece, addr)
            }
            Job::Merged { group } => {
                piece.copy_from_slice(&link.merge_groups[*group as usize].data);
                Vec::new()
            }
            Job::Synthetic(which) => {
                write_synthetic(link, dynamic, *which, piece);
                Vec::new()
            }
            Job::Bytes(i) => {
                piece.copy_from_slice(&trailing[*i].bytes);
                Vec::new()
            }
            Job::Compressed(index) => {
                piece.copy_from_slice(&link.compressed_outputs[index]);
                Vec::new()
            }
        })
        .collect();
    if !errors.is_empty() {
        return Err(LinkError::Many(errors));
    }
    timer.phase("  sections and relocations");

    write_headers(link, buf, shoff, shnum as u32);
    // Section headers.
    let mut sh = shoff as usize + 64;
    let index_of = |w: Synthetic| link.synthetic_section(w).map_or(0, |o| o.index);
    let dynsym_index = index_of(Synthetic::DynSym);
    let dynstr_index = index_of(Synthetic::DynStr);
    for (i, o) in link.outputs.iter().enumerate() {
        let (link_idx, info) = match o.synthetic {
            Some(Synthetic::DynSym) => (dynstr_index, 1),
            Some(Synthetic::GnuVersion) | Some(Synthetic::GnuHash) | Some(Synthetic::SysvHash) => {
                (dynsym_index, 0)
            }
            Some(Synthetic::GnuVersionR) => (dynstr_index, dynamic.verneed_count),
            Some(Synthetic::GnuVersionD) => (dynstr_index, dynamic.verdef_count),
            Some(Synthetic::Dynamic) => (dynstr_index, 0),
            Some(Synthetic::RelaDyn) => (dynsym_index, 0),
            Some(Synthetic::RelaPlt) => (
                dynsym_index,
                if link.is_dynamic {
                    index_of(Synthetic::GotPlt)
                } else {
                    0
                },
            ),
            _ => (0, 0),
        };
        let entsize = if o.sh_type == SHT_INIT_ARRAY
            || o.sh_type == SHT_FINI_ARRAY
            || o.sh_type == SHT_PREINIT_ARRAY
        {
            8
        } else {
            o.entsize
        };
        write_shdr(
            &mut buf[sh..sh + 64],
            names[i],
            o.sh_type,
            o.flags,
            o.addr,
            o.offset,
            o.size,
            link_idx,
            info,
            o.align,
            entsize,
        );
        sh += 64;
    }
    for ((t, off), name) in trailing
        .iter()
        .zip(&trailing_offsets)
        .zip(&names[link.outputs.len()..])
    {
        write_shdr(
            &mut buf[sh..sh + 64],
            *name,
            t.sh_type,
            t.flags,
            0,
            *off,
            t.bytes.len() as u64,
            t.link,
            t.info,
            t.align,
            t.entsize,
        );
        sh += 64;
    }

    timer.phase("  headers");
    if let Some(id_sec) = link.synthetic_section(Synthetic::BuildId) {
        let start = id_sec.offset as usize + 16;
        let len = id_sec.size as usize - 16;
        let id = compute_build_id(&link.opts.build_id, buf, len);
        buf[start..start + len].copy_from_slice(&id[..len]);
        timer.phase("  build ID");
    }
    Ok(map)
}

/// Copies the kept CIEs and FDEs and points each FDE at its CIE's new position.
fn copy_eh_frame_pieces(link: &Link, file: u32, sec: u32, out: &mut [u8]) {
    let s = &link.objects[file as usize].sections[sec as usize];
    for p in &s.pieces {
        if p.output_offset == u64::MAX {
            continue;
        }
        let start = p.input_offset as usize;
        let len = eh_record_len(s.data, start) as usize;
        let dst = (p.output_offset - s.offset) as usize;
        out[dst..dst + len].copy_from_slice(&s.data[start..start + len]);
        if let Some(id) = fde_cie_pointer(s.data, start) {
            let cie_in = (p.input_offset + 4).wrapping_sub(u64::from(id));
            // The CIE is here, or an equal one placed earlier stands for it.
            let cie_out = s
                .piece_output_offset(cie_in)
                .or_else(|| link.cie_aliases.get(&(file, sec, cie_in)).copied());
            if let Some(cie_out) = cie_out {
                let new = (p.output_offset + 4 - cie_out) as u32;
                out[dst + 4..dst + 8].copy_from_slice(&new.to_le_bytes());
            }
        }
    }
}

fn relocate_eh_frame(
    link: &Link,
    plan: &RelocPlan,
    file: u32,
    sec: u32,
    out: &mut [u8],
    base: u64,
) -> Vec<String> {
    // `relocate_section` copies whole sections; for .eh_frame the pieces are already in
    // place, so relocate a scratch copy of the original bytes is not needed: apply directly.
    crate::relocate::relocate_split_section(link, plan, file, sec, out, base)
}

#[allow(clippy::too_many_arguments)]
fn write_shdr(
    b: &mut [u8],
    name: u32,
    sh_type: u32,
    flags: u64,
    addr: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
) {
    put_u32(b, 0, name);
    put_u32(b, 4, sh_type);
    put_u64(b, 8, flags);
    put_u64(b, 16, addr);
    put_u64(b, 24, offset);
    put_u64(b, 32, size);
    put_u32(b, 40, link);
    put_u32(b, 44, info);
    put_u64(b, 48, align);
    put_u64(b, 56, entsize);
}

/// A non-allocated section written after the image (symbol and string tables).
struct TrailingSection {
    name: String,
    sh_type: u32,
    flags: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
    bytes: Vec<u8>,
}

impl TrailingSection {
    fn strings(name: &str, bytes: Vec<u8>) -> TrailingSection {
        TrailingSection {
            name: name.to_string(),
            sh_type: SHT_STRTAB,
            flags: 0,
            link: 0,
            info: 0,
            align: 1,
            entsize: 0,
            bytes,
        }
    }
}

/// The ELF header and program headers. The last section is .shstrtab. Counts and indices
/// that do not fit the header's 16-bit fields go into section 0 (the ELF extended
/// numbering: e_shnum 0 with the count in its sh_size, e_shstrndx SHN_XINDEX with the
/// index in its sh_link).
fn write_headers(link: &Link, buf: &mut [u8], shoff: u64, shnum: u32) {
    buf[0..16].copy_from_slice(&[0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let e_type = match link.opts.kind {
        OutputKind::Executable => ET_EXEC,
        _ => ET_DYN,
    };
    buf[16..18].copy_from_slice(&e_type.to_le_bytes());
    buf[18..20].copy_from_slice(&EM_X86_64.to_le_bytes());
    put_u32(buf, 20, 1);
    put_u64(buf, 24, entry_address(link));
    put_u64(buf, 32, 64);
    put_u64(buf, 40, shoff);
    put_u32(buf, 48, 0);
    buf[52..54].copy_from_slice(&64u16.to_le_bytes());
    buf[54..56].copy_from_slice(&56u16.to_le_bytes());
    buf[56..58].copy_from_slice(&(link.segments.len() as u16).to_le_bytes());
    buf[58..60].copy_from_slice(&64u16.to_le_bytes());
    let shstrndx = shnum - 1;
    let lo_reserve = u32::from(SHN_LORESERVE);
    let e_shnum = if shnum >= lo_reserve { 0 } else { shnum as u16 };
    let e_shstrndx = if shstrndx >= lo_reserve {
        SHN_XINDEX
    } else {
        shstrndx as u16
    };
    buf[60..62].copy_from_slice(&e_shnum.to_le_bytes());
    buf[62..64].copy_from_slice(&e_shstrndx.to_le_bytes());
    let section0 = shoff as usize;
    if e_shnum == 0 {
        put_u64(buf, section0 + 32, u64::from(shnum));
    }
    if e_shstrndx == SHN_XINDEX {
        put_u32(buf, section0 + 40, shstrndx);
    }
    for (i, s) in link.segments.iter().enumerate() {
        let p = &mut buf[64 + 56 * i..64 + 56 * (i + 1)];
        put_u32(p, 0, s.p_type);
        put_u32(p, 4, s.flags);
        put_u64(p, 8, s.offset);
        put_u64(p, 16, s.vaddr);
        put_u64(p, 24, s.vaddr);
        put_u64(p, 32, s.filesz);
        put_u64(p, 40, s.memsz);
        put_u64(p, 48, s.align);
    }
}

pub fn entry_address(link: &Link) -> u64 {
    let name = link.opts.entry.as_deref().unwrap_or("_start");
    match link.symtab.lookup(name.as_bytes()) {
        Some(id) if link.symtab.get(id).is_defined_locally() => link.sym_addr[id as usize],
        _ => 0,
    }
}

/// `--build-id=fast`: a tree hash, so that it is computed in parallel: the xxh3 of every
/// 1 MiB chunk, then the xxh3 of those hashes (lld's scheme; its digest is its own).
fn fast_build_id(data: &[u8]) -> u64 {
    const CHUNK: usize = 1 << 20;
    let hashes: Vec<u8> = data
        .par_chunks(CHUNK)
        .flat_map_iter(|c| xxhash_rust::xxh3::xxh3_64(c).to_le_bytes())
        .collect();
    xxhash_rust::xxh3::xxh3_64(&hashes)
}

fn compute_build_id(style: &BuildId, data: &[u8], len: usize) -> Vec<u8> {
    match style {
        BuildId::Fast => fast_build_id(data).to_le_bytes().to_vec(),
        BuildId::Md5 => {
            use md5::Digest;
            md5::Md5::digest(data).to_vec()
        }
        BuildId::Sha1 => sha1_smol::Sha1::from(data).digest().bytes().to_vec(),
        BuildId::Uuid => {
            let mut bytes = vec![0u8; 16];
            if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
                use std::io::Read;
                let _ = f.read_exact(&mut bytes);
            }
            bytes[6] = (bytes[6] & 0x0f) | 0x40;
            bytes[8] = (bytes[8] & 0x3f) | 0x80;
            bytes
        }
        BuildId::Hex(h) => h.clone(),
        BuildId::None => vec![0; len],
    }
}

#[cfg(test)]
mod tests {
    use super::{fast_build_id, source_name};

    #[test]
    fn the_fast_build_id_covers_every_byte_whatever_the_threads() {
        let mut data: Vec<u8> = (0..(3 << 20) + 17).map(|i| (i * 7 % 251) as u8).collect();
        let on = |threads: usize, data: &[u8]| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| fast_build_id(data))
        };
        let id = on(1, &data);
        assert_eq!(on(4, &data), id);
        for at in [0, 1 << 20, data.len() - 1] {
            data[at] ^= 1;
            assert_ne!(on(2, &data), id, "byte {at} not covered");
            data[at] ^= 1;
        }
        // Chunks are hashed where they are: moving bytes between them changes the ID.
        data.swap(0, 1 << 20);
        assert_ne!(on(2, &data), id);
    }

    #[test]
    fn shared_statics_get_their_source_names_back() {
        assert_eq!(source_name(b"counter.rld.12"), Some(&b"counter"[..]));
        assert_eq!(source_name(b"a.b.rld.0"), Some(&b"a.b"[..]));
        for kept in [&b"counter"[..], b"x.rld.", b".rld.3", b"x.rld.3a", b"rld.3"] {
            assert_eq!(source_name(kept), Some(kept));
        }
        // What the compiler made (private) has no name in the output.
        assert_eq!(source_name(b".str.4.rld.private.2"), None);
    }
}
