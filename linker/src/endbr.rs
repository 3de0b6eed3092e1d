//! `-z rewrite-endbr` (mold's): with Intel IBT, only functions reached through an indirect
//! branch need the `endbr64` landing pad they start with. Those whose address nothing takes
//! (only direct calls and jumps reach them) get a 4-byte NOP there instead, so that an
//! indirect branch to them faults: fewer places an attacker can jump to.
//!
//! A function's address counts as taken when any relocation of allocated code or data other
//! than a direct branch (`R_X86_64_PLT32`) may point to it (`.eh_frame` only describes
//! functions, and is not counted), when the dynamic symbol table exports it, or when it is
//! the entry point or `-init`/`-fini` (reached by the loader's indirect branches).

use crate::image::Image;
use crate::object_file::{shndx, FileId, SectionKind, LE};
use crate::symbols::SymbolDef;
use object::elf;
use object::read::elf::{Rela as _, Sym as _};
use rustc_hash::{FxHashMap, FxHashSet};

const ENDBR64: [u8; 4] = [0xf3, 0x0f, 0x1e, 0xfa];
/// `nopl 0(%rax)`: the same four bytes' length.
pub const NOP4: [u8; 4] = [0x0f, 0x1f, 0x40, 0x00];

/// Per section, the offsets of the `endbr64`s to overwrite.
pub type Rewrites = FxHashMap<(FileId, u32), Vec<u64>>;

pub fn find(link: &Image) -> Rewrites {
    let taken = taken_addresses(link);
    let mut out: Rewrites = FxHashMap::default();
    for (f, obj) in link.objects.iter().enumerate() {
        let f = f as FileId;
        for (i, sym) in obj.symbols.iter().enumerate().skip(1) {
            if sym.st_type() != elf::STT_FUNC {
                continue;
            }
            // A global is judged where it is defined, once, by its resolved definition.
            if let Some(id) = obj.global_index(i) {
                match link.symtab.get(id).def {
                    SymbolDef::Defined { file, .. } if file == f => {}
                    _ => continue,
                }
            }
            let sec = obj.symbol_section(i);
            if !shndx::is_section(sec) {
                continue;
            }
            let s = &obj.sections[sec as usize];
            let at = sym.st_value(LE);
            let starts_with_endbr = usize::try_from(at)
                .ok()
                .and_then(|at| s.data().get(at..at + 4))
                .is_some_and(|b| b == ENDBR64);
            let code = s.is_kept()
                && s.kind == SectionKind::Regular
                && s.flags & u64::from(elf::SHF_EXECINSTR) != 0;
            if code && starts_with_endbr && !taken.contains(&(f, sec, at)) {
                out.entry((f, sec)).or_default().push(at);
            }
        }
    }
    for v in out.values_mut() {
        v.sort_unstable();
        v.dedup();
    }
    out
}

/// Every (file, section, offset) whose address may be taken.
fn taken_addresses(link: &Image) -> FxHashSet<(FileId, u32, u64)> {
    let mut taken = FxHashSet::default();
    let mark_symbol = |id: crate::symbols::SymbolId, taken: &mut FxHashSet<_>| {
        if let SymbolDef::Defined {
            file,
            section,
            value,
        } = link.symtab.get(id).def
        {
            taken.insert((file, section, value));
        }
    };
    for (id, sym) in link.symtab.symbols.iter().enumerate() {
        if sym.in_dynsym {
            mark_symbol(id as u32, &mut taken);
        }
    }
    let entry = link.opts.entry.as_deref().unwrap_or("_start");
    for name in [entry, link.opts.init.as_str(), link.opts.fini.as_str()] {
        if let Some(id) = link.symtab.lookup(name.as_bytes()) {
            mark_symbol(id, &mut taken);
        }
    }
    for (f, obj) in link.objects.iter().enumerate() {
        let f = f as FileId;
        for s in &obj.sections {
            if !s.is_kept() || !s.is_alloc() || s.kind == SectionKind::EhFrame {
                continue;
            }
            for r in s.relocs() {
                if r.r_type(LE, false) == elf::R_X86_64_PLT32 {
                    continue;
                }
                let sym = r.r_sym(LE, false) as usize;
                if let Some(id) = obj.global_index(sym) {
                    mark_symbol(id, &mut taken);
                    continue;
                }
                let Some(esym) = obj.symbols.get(sym) else {
                    continue;
                };
                let sec = obj.symbol_section(sym);
                if esym.st_type() == elf::STT_SECTION {
                    // Section-relative: the addend says where, give or take the -4 or -8
                    // of a PC-relative field; every start within reach counts.
                    let at = r.r_addend(LE);
                    for delta in 0..=8 {
                        if let Ok(at) = u64::try_from(at + delta) {
                            taken.insert((f, sec, at));
                        }
                    }
                } else {
                    taken.insert((f, sec, esym.st_value(LE)));
                }
            }
        }
    }
    taken
}

/// Overwrites the `endbr64`s of section (`file`, `sec`), copied into `out`.
pub fn apply(link: &Image, file: FileId, sec: u32, out: &mut [u8]) {
    let Some(offsets) = link.contents.endbr.get(&(file, sec)) else {
        return;
    };
    for &at in offsets {
        if let Some(bytes) = usize::try_from(at)
            .ok()
            .and_then(|at| out.get_mut(at..at + 4))
        {
            bytes.copy_from_slice(&NOP4);
        }
    }
}
