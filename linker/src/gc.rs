//! `--gc-sections`: keep only the sections reachable from the roots through relocations.
//!
//! Roots are the entry point, `-u`, `-init`/`-fini`, exported symbols, symbols shared
//! libraries need, symbols linker scripts and `--defsym` name, and sections that must
//! survive unreferenced: constructor tables, notes, `.init`/`.fini`, SHF_GNU_RETAIN, and
//! C-identifier sections whose `__start_`/`__stop_` symbols are used. `.eh_frame` is not a
//! root; an FDE keeps its LSDA and personality only when its function is live.

use crate::object_file::{shndx, FileId, ObjectFile, SectionKind, LE};
use crate::symbols::{SymbolDef, SymbolId, SymbolTable};
use object::elf;

const SHF_GNU_RETAIN: u64 = 0x20_0000;

pub use rld_lto_api::is_c_identifier;

fn is_gc_root(name: &str, sh_type: u32, flags: u64, symtab: &SymbolTable) -> bool {
    if flags & SHF_GNU_RETAIN != 0 {
        return true;
    }
    if matches!(
        sh_type,
        elf::SHT_INIT_ARRAY | elf::SHT_FINI_ARRAY | elf::SHT_PREINIT_ARRAY | elf::SHT_NOTE
    ) {
        return true;
    }
    for prefix in [
        ".init_array",
        ".fini_array",
        ".preinit_array",
        ".ctors",
        ".dtors",
    ] {
        if name.starts_with(prefix) {
            return true;
        }
    }
    if matches!(name, ".init" | ".fini" | ".jcr") {
        return true;
    }
    if is_c_identifier(name) {
        let start = format!("__start_{name}");
        let stop = format!("__stop_{name}");
        return symtab.lookup(start.as_bytes()).is_some()
            || symtab.lookup(stop.as_bytes()).is_some();
    }
    false
}

struct Marker<'a> {
    objects: &'a mut [ObjectFile],
    symtab: &'a SymbolTable,
    stack: Vec<(FileId, u32)>,
}

impl Marker<'_> {
    fn mark(&mut self, file: FileId, sec: u32) {
        let s = &mut self.objects[file as usize].sections[sec as usize];
        if !s.live && s.kind != SectionKind::Ignored {
            s.live = true;
            self.stack.push((file, sec));
        }
    }

    fn mark_symbol(&mut self, file: FileId, sym_index: usize) {
        let obj = &self.objects[file as usize];
        let target = if let Some(id) = obj.global_index(sym_index) {
            match self.symtab.get(id).def {
                SymbolDef::Defined { file, section, .. } => Some((file, section)),
                _ => None,
            }
        } else {
            Some((file, obj.symbol_section(sym_index)))
        };
        if let Some((f, s)) = target {
            if shndx::is_section(s) {
                self.mark(f, s);
            }
        }
    }

    fn propagate(&mut self) {
        while let Some((file, sec)) = self.stack.pop() {
            let relocs = self.objects[file as usize].sections[sec as usize].relocs;
            for r in relocs {
                self.mark_symbol(file, r.r_sym(LE, false) as usize);
            }
        }
    }
}

/// Marks live sections; everything else allocatable is dropped from the output.
/// `kept(file, section)`: sections a linker script's `KEEP` names, roots too.
pub fn collect_garbage(
    objects: &mut [ObjectFile],
    symtab: &SymbolTable,
    root_symbols: &[u32],
    kept: &dyn Fn(&str, &str) -> bool,
) {
    mark_live(objects, symtab, root_symbols, &|_, obj, s| {
        let sec = &obj.sections[s];
        is_gc_root(sec.name, sec.sh_type, sec.flags, symtab) || kept(&obj.name, sec.name)
    });
}

/// Without `--gc-sections`: drops the functions of LTO partitions that nothing calls or
/// refers to any more, as LLVM drops an unused internal function of one module. A function
/// local to the LTO unit but used across partitions is a hidden symbol of its partition's
/// object; where every caller inlined it, its body is left over. Only sections of LTO
/// objects that define hidden functions and nothing else go: every other section is a
/// root, so whatever native code, a root symbol or live code refers to stays.
/// (With one partition LLVM saw every use and already deleted what is unused.)
pub fn collect_lto_leftovers(objects: &mut [ObjectFile], symtab: &SymbolTable, roots: &[u32]) {
    let candidates: Vec<Vec<bool>> = objects.iter().map(leftover_candidates).collect();
    mark_live(objects, symtab, roots, &|file, obj, s| {
        let sec = &obj.sections[s];
        !candidates[file][s] || is_gc_root(sec.name, sec.sh_type, sec.flags, symtab)
    });
}

/// Per section of `obj`: an LTO object's code section whose symbols are all hidden
/// functions (and at least one).
fn leftover_candidates(obj: &ObjectFile) -> Vec<bool> {
    if !obj.from_lto {
        return vec![false; obj.sections.len()];
    }
    let mut candidate: Vec<Option<bool>> = vec![None; obj.sections.len()];
    for i in obj.first_global..obj.symbols.len() {
        let sec = obj.symbol_section(i);
        let Some(slot) = candidate
            .get_mut(sec as usize)
            .filter(|_| shndx::is_section(sec))
        else {
            continue;
        };
        let sym = &obj.symbols[i];
        let hidden = matches!(sym.st_visibility(), elf::STV_HIDDEN | elf::STV_INTERNAL);
        let ok = hidden && sym.st_type() == elf::STT_FUNC;
        *slot = Some(slot.unwrap_or(true) && ok);
    }
    obj.sections
        .iter()
        .zip(candidate)
        .map(|(s, c)| {
            c == Some(true) && s.is_alloc() && s.flags & u64::from(elf::SHF_EXECINSTR) != 0
        })
        .collect()
}

/// Marks the sections reachable from `root_symbols` and from the allocatable sections
/// `is_root(file, object, section)` names.
fn mark_live(
    objects: &mut [ObjectFile],
    symtab: &SymbolTable,
    root_symbols: &[u32],
    is_root: &dyn Fn(usize, &ObjectFile, usize) -> bool,
) {
    // Start from nothing live except non-allocatable sections, which GC never drops.
    for obj in objects.iter_mut() {
        for s in obj.sections.iter_mut() {
            if s.kind != SectionKind::Ignored {
                s.live = !s.is_alloc();
            }
        }
    }
    let mut marker = Marker {
        objects,
        symtab,
        stack: Vec::new(),
    };
    for &id in root_symbols {
        if let SymbolDef::Defined { file, section, .. } = symtab.get(id).def {
            if shndx::is_section(section) {
                marker.mark(file, section);
            }
        }
    }
    for f in 0..marker.objects.len() {
        for i in 0..marker.objects[f].sections.len() {
            let s = &marker.objects[f].sections[i];
            if s.kind != SectionKind::Ignored
                && s.kind != SectionKind::EhFrame
                && s.is_alloc()
                && is_root(f, &marker.objects[f], i)
            {
                marker.mark(f as FileId, i as u32);
            }
        }
    }
    marker.propagate();

    // FDEs of live functions keep their LSDAs and personality routines; repeat until the
    // set stops growing, since an LSDA can reference more code.
    loop {
        let before = marker.stack.len();
        for f in 0..marker.objects.len() {
            let obj = &marker.objects[f];
            let mut to_mark = Vec::new();
            for (i, s) in obj.sections.iter().enumerate() {
                if s.kind != SectionKind::EhFrame {
                    continue;
                }
                for_each_live_fde_reloc(obj, i, |sym| to_mark.push(sym));
            }
            for sym in to_mark {
                marker.mark_symbol(f as FileId, sym);
            }
        }
        if marker.stack.len() == before {
            break;
        }
        marker.propagate();
    }
    for obj in marker.objects.iter_mut() {
        for s in obj.sections.iter_mut() {
            if s.kind == SectionKind::EhFrame {
                s.live = true;
            }
        }
    }
}

/// `--as-needed` after `--gc-sections`: the shared libraries that kept sections still
/// need, as lld decides it (a library is needed if a non-weak reference from a section
/// that survived, or a root symbol, resolves to it). By library index; a library only
/// dead code used gets no DT_NEEDED. Every kept section's relocations count, the
/// unloaded ones' and `.eh_frame`'s included (a superset: never a library too few).
pub fn libraries_still_needed(
    objects: &[ObjectFile],
    symtab: &SymbolTable,
    roots: &[SymbolId],
    libraries: usize,
) -> Vec<bool> {
    let mut needed = vec![false; libraries];
    let mut mark = |id: SymbolId| {
        if let SymbolDef::Shared { dso, .. } = symtab.get(id).def {
            if let Some(n) = needed.get_mut(dso as usize) {
                *n = true;
            }
        }
    };
    roots.iter().for_each(|&id| mark(id));
    for obj in objects {
        for s in obj.sections.iter().filter(|s| s.live) {
            for r in s.relocs {
                let index = r.r_sym(LE, false) as usize;
                let weak = obj
                    .symbols
                    .get(index)
                    .is_some_and(|sym| sym.st_bind() == elf::STB_WEAK);
                if let (Some(id), false) = (obj.global_index(index), weak) {
                    mark(id);
                }
            }
        }
    }
    needed
}

/// What `--print-gc-sections` prints: a line per section garbage collection dropped, as lld
/// words it (`removing unused section FILE:(NAME)`), in input order.
pub fn removed_sections(objects: &[ObjectFile]) -> Vec<String> {
    let mut out = Vec::new();
    for obj in objects {
        for s in &obj.sections {
            if s.kind != SectionKind::Ignored && s.is_alloc() && !s.live {
                out.push(format!("removing unused section {}:({})", obj.name, s.name));
            }
        }
    }
    out
}

/// Calls `f` with the symbol of every relocation in a CIE, or in an FDE whose function is live.
fn for_each_live_fde_reloc(obj: &ObjectFile, sec: usize, mut f: impl FnMut(usize)) {
    for record in crate::object_file::eh_frame_records(&obj.sections[sec]) {
        let live = record.is_cie
            || record.fde_target().is_some_and(|sym| {
                let s = obj.symbol_section(sym);
                shndx::is_section(s) && obj.sections[s as usize].is_kept()
            });
        if live {
            for r in record.relocs.iter().skip(usize::from(!record.is_cie)) {
                f(r.r_sym(LE, false) as usize);
            }
        }
    }
}
