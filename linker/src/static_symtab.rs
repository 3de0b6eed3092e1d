//! The output's static symbol table (`.symtab`, `.strtab`, `.symtab_shndx`): built in
//! parts in parallel (each object's locals, chunks of the globals), each written in place
//! into the output by the writer (never joined into one buffer first); with
//! relocations copied into the output (`--emit-relocs`, `-r`), also where each symbol
//! landed, so that a relocation can name it.

use crate::image::Image;
use crate::object_file::{shndx, InputSection, Piece, SectionKind, LE, NO_OUTPUT};
use crate::sym_section::{symbol_section, SymSection};
use crate::symbols::SymbolDef;
use crate::write::split_places;
use object::elf::*;
use object::read::elf::Sym as _;
use rayon::prelude::*;

/// The static symbol table and its string table, as parts built on their own (in order
/// after the null symbol; the first ones hold the local symbols), and, when some section
/// index does not fit `st_shndx`, `.symtab_shndx`.
pub(crate) struct Symtab {
    parts: Vec<Part>,
    /// One word per symbol: the real section index where `st_shndx` is SHN_XINDEX; empty
    /// when no symbol needs one.
    pub shndx: Vec<u32>,
    pub first_global: u32,
}

/// A part of the symbol table: its entries, whose names are offsets (plus one) into its own
/// strings, or into another part's.
#[derive(Default)]
struct Part {
    symtab: Vec<u8>,
    strtab: Vec<u8>,
    /// Per symbol, the `.symtab_shndx` word; empty while every one is 0 (nearly always: an
    /// output needs more than 65,279 sections for one not to be).
    shndx: Vec<u32>,
    /// Per symbol, the part whose strings hold its name; empty when they are this part's.
    /// A hidden symbol sits among the locals, its name among the globals' (lld writes
    /// `.strtab` in the order it met the names: every file's locals, then the globals).
    names_from: Vec<u32>,
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
    fn new(link: &Image, parts: &[(Part, PartOf)]) -> SymtabIndex {
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

    /// The `.symtab` index of a relocation's target, if the table shows it.
    pub fn of(&self, target: crate::context::Target) -> Option<u32> {
        match target {
            crate::context::Target::Global(id) => {
                Some(self.globals[id as usize]).filter(|&i| i != 0)
            }
            crate::context::Target::Local(f, i) => self.local(f, i),
        }
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

impl Part {
    /// Adds `name` to the part's strings: its offset plus one, so that 0 stays "no name"
    /// (section symbols have none: tools show the section's name for them).
    fn add_name(&mut self, name: &[u8]) -> u32 {
        if name.is_empty() {
            return 0;
        }
        let offset = self.strtab.len() as u32 + 1;
        self.strtab.extend_from_slice(name);
        self.strtab.push(0);
        offset
    }

    fn push(&mut self, sym: OutSym, tls_start: u64) {
        let name = self.add_name(sym.name);
        self.push_named(sym, name, tls_start);
    }

    /// Adds `sym` under `name`, as [`add_name`](Self::add_name) gave it.
    fn push_named(&mut self, sym: OutSym, name: u32, tls_start: u64) {
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
        if extended != 0 && self.shndx.is_empty() {
            self.shndx.resize(out.len() / 24 - 1, 0);
        }
        if !self.shndx.is_empty() {
            self.shndx.push(extended);
        }
    }

    /// The part as built, without the room its buffers grew into: the parts of a large
    /// link hold megabytes until the output is written.
    fn done(mut self) -> Part {
        self.symtab.shrink_to_fit();
        self.strtab.shrink_to_fit();
        self
    }
}

impl Symtab {
    fn from_parts(parts: Vec<Part>, first_global: usize) -> Symtab {
        let mut shndx = Vec::new();
        if parts.iter().any(|p| !p.shndx.is_empty()) {
            shndx.push(0);
            for p in &parts {
                if p.shndx.is_empty() {
                    shndx.resize(shndx.len() + p.symtab.len() / 24, 0);
                } else {
                    shndx.extend_from_slice(&p.shndx);
                }
            }
        }
        let first_global = 1 + parts[..first_global]
            .iter()
            .map(|p| (p.symtab.len() / 24) as u32)
            .sum::<u32>();
        Symtab {
            parts,
            shndx,
            first_global,
        }
    }

    /// The size of `.symtab`.
    pub fn symtab_len(&self) -> usize {
        24 + self.parts.iter().map(|p| p.symtab.len()).sum::<usize>()
    }

    /// The size of `.strtab`.
    pub fn strtab_len(&self) -> usize {
        1 + self.parts.iter().map(|p| p.strtab.len()).sum::<usize>()
    }

    /// Writes `.symtab` into `out` (of [`symtab_len`](Self::symtab_len) bytes), each part
    /// in parallel, its names moved to where its strings land in `.strtab`.
    pub fn write_symtab(&self, out: &mut [u8]) {
        out[..24].fill(0);
        let (places, _) = split_places(&mut out[24..], self.parts.iter().map(|p| p.symtab.len()));
        // Where each part's strings start in `.strtab`.
        let bases: Vec<u32> = self
            .parts
            .iter()
            .scan(1u32, |next, p| {
                let base = *next;
                *next += p.strtab.len() as u32;
                Some(base)
            })
            .collect();
        places
            .into_par_iter()
            .zip(&bases)
            .zip(self.parts.par_iter())
            .for_each(|((place, &base), part)| {
                place.copy_from_slice(&part.symtab);
                for (k, entry) in place.chunks_exact_mut(24).enumerate() {
                    let name = u32::from_le_bytes(entry[..4].try_into().unwrap());
                    let base = part.names_from.get(k).map_or(base, |&p| bases[p as usize]);
                    if name != 0 {
                        entry[..4].copy_from_slice(&(name - 1 + base).to_le_bytes());
                    }
                }
            });
    }

    /// Writes `.strtab` into `out` (of [`strtab_len`](Self::strtab_len) bytes).
    pub fn write_strtab(&self, out: &mut [u8]) {
        out[0] = 0;
        let (places, _) = split_places(&mut out[1..], self.parts.iter().map(|p| p.strtab.len()));
        places
            .into_par_iter()
            .zip(self.parts.par_iter())
            .for_each(|(place, part)| place.copy_from_slice(&part.strtab));
    }

    /// Whether `.symtab_shndx` is needed.
    pub(crate) fn has_extended_indices(&self) -> bool {
        !self.shndx.is_empty()
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

/// `.symtab`, and with `--emit-relocs` or `-r` where its symbols sit.
pub(crate) fn build_symtab(link: &Image) -> (Symtab, Option<SymtabIndex>) {
    let tls_start = link.segments.tls.start;
    let relocatable = link.opts.relocatable;
    let emit_relocs = link.opts.emit_relocs || relocatable;
    // With copied relocations, a section symbol per output section first (what relocations
    // against the inputs' section symbols become, as lld makes them); then the locals of
    // every object (none with `-x`; no `.L` temporaries with `-X`), then hidden globals
    // (which are local to the output), then the others: each part built in parallel, and
    // written in that order.
    let mut parts: Vec<(Part, PartOf)> = Vec::new();
    if emit_relocs {
        let mut part = Part::default();
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
                value: link.addr(o),
                size: 0,
            };
            part.push(sym, tls_start);
            outputs.push(k as u32);
        }
        parts.push((part.done(), PartOf::Sections(outputs)));
    }
    // Copied relocations may need the locals in mergeable sections: a PC-relative one
    // against a string (`.L.str - 4`) cannot become its section's symbol plus an offset,
    // which would point before the string's piece. So those stay even with `-x`.
    let mut locals_of: Vec<Option<(Part, PartOf)>> = Vec::new();
    if !link.opts.discard_all || emit_relocs {
        let locals: Vec<(Part, PartOf)> = link
            .objects
            .par_iter()
            .enumerate()
            .map(|(file, obj)| {
                let mut part = Part::default();
                let mut shown = Vec::new();
                local_symbols(link, file, obj, |i, out| {
                    part.push(out, tls_start);
                    if emit_relocs {
                        shown.push(i as u32);
                    }
                });
                (part.done(), PartOf::Locals(file, shown))
            })
            .collect();
        locals_of = locals.into_iter().map(Some).collect();
    }
    const CHUNK: usize = 4096;
    // In the order lld's symbol table holds them.
    let order = link.symtab.in_lld_order();
    let globals: Vec<(Vec<Hidden>, (Part, PartOf))> = order
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(chunk, ids)| {
            let mut visible = Part::default();
            let (mut hidden, mut visible_ids) = (Vec::new(), Vec::new());
            for &id in ids {
                let shown = if relocatable {
                    relocatable_symbol(link, id).map(|out| (false, out))
                } else {
                    global_symbol(link, id)
                };
                match shown {
                    // Placed beside their objects' locals below; named here.
                    Some((true, out)) => {
                        let name = (chunk as u32, visible.add_name(out.name));
                        hidden.push((defining_file(link, id), id, out, name));
                    }
                    Some((false, out)) => {
                        visible.push(out, tls_start);
                        if emit_relocs {
                            visible_ids.push(id);
                        }
                    }
                    None => {}
                }
            }
            (hidden, (visible.done(), PartOf::Globals(visible_ids)))
        })
        .collect();
    let mut hidden = Vec::new();
    let mut visible = Vec::with_capacity(globals.len());
    for (h, v) in globals {
        hidden.extend(h);
        visible.push(v);
    }
    parts.extend(local_parts(link, locals_of, hidden, emit_relocs));
    let first_global = parts.len();
    // The hidden symbols' names are in the globals' parts, which start here.
    for (part, _) in &mut parts {
        for chunk in &mut part.names_from {
            *chunk += first_global as u32;
        }
    }
    parts.extend(visible);
    let index = emit_relocs.then(|| SymtabIndex::new(link, &parts));
    let table = Symtab::from_parts(parts.into_iter().map(|(p, _)| p).collect(), first_global);
    (table, index)
}

/// A hidden symbol for the local part: the object defining it, or naming it if it is
/// undefined (None for the linker's own), its id, how it shows, and its name (the chunk of globals whose strings hold it,
/// and its offset there plus one).
type Hidden<'a> = (Option<usize>, u32, OutSym<'a>, (u32, u32));

fn defining_file(link: &Image, id: u32) -> Option<usize> {
    let sym = link.symtab.get(id);
    match sym.def {
        SymbolDef::Defined { file, .. } | SymbolDef::Common { file, .. } => Some(file as usize),
        // lld's undefined symbol belongs to the object that named it first; the ones it
        // demotes from archive members, to the linker.
        SymbolDef::Undefined => sym.ref_file.map(|f| f as usize),
        _ => None,
    }
}

/// The local part of `.symtab` in lld's order: symbols grouped by file, in order of each
/// group's first symbol. Each object's locals (`locals_of`, by file; empty without them),
/// then the hidden symbols it defines, which are local to the output (`hidden`, by id,
/// as [`global_symbol`] shows them); the hidden symbols of an object without locals, and
/// the linker's own, form groups of their own after those.
fn local_parts<'a>(
    link: &'a Image,
    locals_of: Vec<Option<(Part, PartOf)>>,
    hidden: Vec<Hidden<'a>>,
    emit_relocs: bool,
) -> Vec<(Part, PartOf)> {
    let has_locals = |file: usize| {
        locals_of
            .get(file)
            .and_then(|l| l.as_ref())
            .is_some_and(|(part, _)| !part.symtab.is_empty())
    };
    type Group<'a> = Vec<(u32, OutSym<'a>, (u32, u32))>;
    let mut by_file: Vec<Group> = Vec::new();
    by_file.resize_with(link.objects.len(), Vec::new);
    // Groups without locals before them, keyed by file (None: the linker's own symbols).
    let mut others: Vec<Group> = Vec::new();
    let mut other_of: rustc_hash::FxHashMap<Option<usize>, usize> = Default::default();
    for (file, id, out, name) in hidden {
        match file {
            Some(f) if has_locals(f) => by_file[f].push((id, out, name)),
            _ => {
                let group = *other_of.entry(file).or_insert_with(|| {
                    others.push(Vec::new());
                    others.len() - 1
                });
                others[group].push((id, out, name));
            }
        }
    }
    let tls_start = link.segments.tls.start;
    let hidden_part = |group: Group| {
        let mut part = Part::default();
        let mut ids = Vec::new();
        for (id, out, (chunk, name)) in group {
            part.push_named(out, name, tls_start);
            part.names_from.push(chunk);
            if emit_relocs {
                ids.push(id);
            }
        }
        (part.done(), PartOf::Globals(ids))
    };
    // Encoded in parallel: a C++ program's inline functions are hidden, tens of thousands.
    let by_file: Vec<Option<(Part, PartOf)>> = by_file
        .into_par_iter()
        .map(|group| (!group.is_empty()).then(|| hidden_part(group)))
        .collect();
    let others: Vec<(Part, PartOf)> = others.into_par_iter().map(hidden_part).collect();
    let mut parts = Vec::with_capacity(locals_of.len() + by_file.len() + others.len());
    for (locals, hidden) in locals_of.into_iter().zip(by_file) {
        parts.extend(locals);
        parts.extend(hidden);
    }
    parts.extend(others);
    parts
}

/// The local symbols object `file` contributes to `.symtab`.
fn local_symbols<'a>(
    link: &'a Image,
    file: usize,
    obj: &'a crate::object_file::ObjectFile,
    mut emit: impl FnMut(usize, OutSym<'a>),
) {
    let copies_relocs = link.opts.emit_relocs || link.opts.relocatable;
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
        let in_merge = obj
            .sections
            .get(index as usize)
            .is_some_and(|s| s.flags & u64::from(SHF_MERGE) != 0);
        if copies_relocs && in_merge {
            // Kept for the copied relocations (see build_symtab).
        } else if link.opts.discard_all
            || (name.starts_with(b".L")
                && !link.opts.discard_none
                && (link.opts.discard_locals || in_merge))
        {
            continue;
        }
        // A local of an LTO partition may carry a shared name (a promoted call's local
        // target keeps it where its partition alone uses it): shown by its source name, and
        // what the compiler made not at all (unless a copied relocation may name it).
        let name = match (obj.from_lto, source_name(name)) {
            (false, _) => name,
            (true, Some(source)) => source,
            (true, None) if copies_relocs => name,
            (true, None) => continue,
        };
        let (section, value) = if ty == STT_FILE || index == shndx::ABS {
            (SymSection::Absolute, sym.st_value(LE))
        } else if !shndx::is_section(index) {
            continue;
        } else {
            // A section identical code folding removed shows as the copy kept (lld).
            let (f, sec) = link.kept_copy(file as u32, index);
            let s = &link.objects[f as usize].sections[sec as usize];
            if !s.is_kept() || s.output == NO_OUTPUT {
                continue;
            }
            if s.kind == SectionKind::EhFrame {
                // crtend.o's `__FRAME_END__`, on the terminator the output replaces.
                let o = link.output(s.output);
                let value = link.addr(o) + eh_frame_offset(s, sym.st_value(LE));
                (SymSection::Output(o.index), value)
            } else {
                match link.section_address(f, sec, sym.st_value(LE)) {
                    Some(a) => (SymSection::Output(link.output(s.output).index), a),
                    None => continue,
                }
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

/// Where a symbol at `offset` of `.eh_frame` input `s` lands, from the start of its output
/// section, as lld places it: inside a record the output keeps, where the record went;
/// inside an FDE the output dropped, at that distance from the section's start; anywhere
/// else (a terminator, which the output replaces with its own at the end) at `offset`
/// itself. A symbol inside a CIE follows it (lld looks no further than its start).
fn eh_frame_offset(s: &InputSection, offset: u64) -> u64 {
    let word = |at: u64, k: u64| -> Option<u32> {
        let at = usize::try_from(at + 4 * k).ok()?;
        Some(u32::from_le_bytes(
            s.data().get(at..at + 4)?.try_into().ok()?,
        ))
    };
    // Each piece with its record's end and kind (None for a terminator).
    let record = |p: &Piece| -> Option<(u64, bool)> {
        let len = word(p.input_offset, 0).filter(|&l| l != 0)?;
        let is_cie = word(p.input_offset, 1)? == 0;
        Some((p.input_offset + 4 + u64::from(len), is_cie))
    };
    let before = |want_cie: bool| {
        s.pieces
            .iter()
            .rev()
            .filter(|p| p.input_offset <= offset)
            .find_map(|p| match record(p) {
                Some((end, is_cie)) if is_cie == want_cie => Some((p, end)),
                _ => None,
            })
    };
    let piece = match before(false) {
        Some((fde, end)) if offset < end => fde,
        _ => match before(true) {
            Some((cie, _)) => cie,
            None => return offset,
        },
    };
    if piece.output_offset == u64::MAX {
        offset - piece.input_offset
    } else {
        s.offset + piece.output_offset + (offset - piece.input_offset)
    }
}

/// Global symbol `id` as `.symtab` shows it, and whether it is hidden (local to the
/// output); None if it is not shown.
fn global_symbol<'a>(link: &'a Image, id32: u32) -> Option<(bool, OutSym<'a>)> {
    let id = id32 as usize;
    let sym = &link.symtab.symbols[id];
    let mut section = match sym.def {
        // Symbols of sections (or merged pieces) that garbage collection dropped are gone
        // too.
        SymbolDef::Defined {
            file,
            section,
            value,
        } if shndx::is_section(section) && {
            let s = &link.objects[file as usize].sections[section as usize];
            !s.is_kept() || s.kind == SectionKind::Merge && s.piece_output_offset(value).is_none()
        } =>
        {
            return None
        }
        SymbolDef::Defined { .. } | SymbolDef::Common { .. } | SymbolDef::Synthetic => {
            symbol_section(link, id32)
        }
        SymbolDef::Shared { .. } if link.tables.copies.slots.contains_key(&id32) => {
            symbol_section(link, id32)
        }
        // An archive member's symbol that only weak references named stays undefined
        // (lld demotes it so).
        SymbolDef::Shared { .. } | SymbolDef::Undefined | SymbolDef::Lazy { .. }
            if sym.ref_file.is_some() && !sym.only_dead_refs =>
        {
            SymSection::Undefined
        }
        _ => return None,
    };
    let mut value = match section {
        SymSection::Undefined => 0,
        _ => link.sym_addr[id],
    };
    let undefined = section == SymSection::Undefined;
    let mut size = if undefined { 0 } else { sym.size };
    // A non-preemptible IFUNC (calls and address go through its PLT entry) shows as lld
    // shows it: at that entry, a plain function, where something takes its address
    // directly; else at its resolver.
    let target = crate::context::Target::Global(id32);
    let ifunc = !undefined && link.tables.plt.iplt_index.contains_key(&target);
    let ifunc_entry = ifunc && link.tables.plt.iplt_direct.contains(&target);
    if ifunc_entry {
        section = crate::sym_section::section_at(link, value);
        size = 0;
    } else if ifunc {
        value = link.definition_address_of_defined(id32);
    }
    // Hidden references are local too, defined or not (lld's binding).
    let hidden = matches!(sym.visibility, STV_HIDDEN | STV_INTERNAL)
        && (sym.is_defined_locally() || sym.is_undefined());
    let bind = if hidden {
        STB_LOCAL
    } else {
        let weak = sym.weak && sym.is_defined_locally() || undefined && !sym.has_strong_ref;
        sym.output_binding(weak, link.opts.gnu_unique)
    };
    let ty = if ifunc_entry {
        STT_FUNC
    } else if ifunc {
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
        size,
    };
    Some((hidden, out))
}

/// Global symbol `id` as a relocatable output (`-r`) shows it, if the objects define or
/// refer to it: binding and visibility as they were (hidden symbols stay global for the
/// final link to make local), common symbols still common, values as offsets in their
/// sections.
fn relocatable_symbol<'a>(link: &'a Image, id: u32) -> Option<OutSym<'a>> {
    let sym = &link.symtab.symbols[id as usize];
    let (section, value, size) = match sym.def {
        SymbolDef::Defined {
            section: shndx::ABS,
            value,
            ..
        } => (SymSection::Absolute, value, sym.size),
        SymbolDef::Defined {
            file,
            section,
            value,
        } => {
            let s = link.objects[file as usize].sections.get(section as usize)?;
            if !s.is_kept() || s.output == NO_OUTPUT {
                return None;
            }
            let at = link.section_address(file, section, value)?;
            let index = link.output(s.output).index;
            (SymSection::Output(index), at, sym.size)
        }
        SymbolDef::Common { size, align, .. } => (SymSection::Common, align, size),
        SymbolDef::Undefined | SymbolDef::Shared { .. } if sym.ref_file.is_some() => {
            (SymSection::Undefined, 0, 0)
        }
        _ => return None,
    };
    let undefined = section == SymSection::Undefined;
    let weak = (sym.weak && !undefined) || (undefined && sym.is_undef_weak());
    let bind = sym.output_binding(weak, link.opts.gnu_unique);
    Some(OutSym {
        name: sym.name,
        info: (bind << 4) | sym.sym_type,
        other: sym.visibility,
        section,
        value,
        size,
    })
}

#[cfg(test)]
mod tests {
    use super::source_name;

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
