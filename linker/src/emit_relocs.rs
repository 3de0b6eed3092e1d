//! `-q`/`--emit-relocs`: the inputs' relocations kept in the output, one `.rela<name>`
//! section per output section that has any, for tools that rewrite a linked program
//! (BOLT, the kernel's relocation tools, binary diffing).
//!
//! As lld writes them: each relocation keeps its type (also where the linker relaxed the
//! instruction), its offset becomes the place's address (the offset inside the section for
//! sections not loaded), and its symbol becomes the output's: a global or a local the
//! symbol table shows is named by its index; anything else (an input's section symbol, a
//! local that is not shown, a merged string) becomes the output section's symbol with the
//! address it denoted as the addend. A relocation against what the link discarded becomes
//! `R_X86_64_NONE`.

use crate::branch_to_branch::Redirects;
use crate::context::Target;
use crate::image::Image;
use crate::object_file::{shndx, SectionKind, LE};
use crate::static_symtab::SymtabIndex;
use crate::symbols::SymbolDef;
use object::elf::{R_X86_64_NONE, STT_SECTION};
use object::read::elf::Rela as _;
use rayon::prelude::*;

/// The relocations copied for one output section, encoded.
pub(crate) struct CopiedRelocations {
    /// The output section (its position in `Link::outputs`) they apply to.
    pub output: u32,
    pub bytes: Vec<u8>,
}

/// One `Elf64_Rela` per relocation of every input section in the output, in output order;
/// a redirected relocation (`--branch-to-branch`) names its new target, as lld's does.
pub(crate) fn relocation_sections(
    link: &Image,
    index: &SymtabIndex,
    redirects: &Redirects,
) -> Vec<CopiedRelocations> {
    link.outputs
        .par_iter()
        .enumerate()
        .filter(|(_, o)| o.synthetic.is_none())
        .filter_map(|(k, o)| {
            let mut bytes = Vec::new();
            for &(file, sec) in &o.inputs {
                let s = &link.objects[file as usize].sections[sec as usize];
                if !s.is_kept() || s.kind == SectionKind::Merge {
                    continue;
                }
                let mut redirects = redirects.of_section(file, sec);
                for (i, r) in s.relocs().iter().enumerate() {
                    let redirect = redirects.at(i);
                    // A dropped `.eh_frame` record has no place in the output.
                    let Some(place) = link.section_address(file, sec, r.r_offset(LE)) else {
                        continue;
                    };
                    let r_type = r.r_type(LE, false);
                    let (target, addend) = match redirect {
                        Some(now) => (Some(now.target), now.addend),
                        None => match r.r_sym(LE, false) {
                            0 => (None, r.r_addend(LE)),
                            sym => (Some(link.target(file, sym as usize)), r.r_addend(LE)),
                        },
                    };
                    let (sym, addend) = output_symbol(link, index, target, addend);
                    let info = match sym {
                        Some(sym) => (u64::from(sym) << 32) | u64::from(r_type),
                        None => u64::from(R_X86_64_NONE),
                    };
                    bytes.extend_from_slice(&place.to_le_bytes());
                    bytes.extend_from_slice(&info.to_le_bytes());
                    bytes.extend_from_slice(&addend.to_le_bytes());
                }
            }
            (!bytes.is_empty()).then_some(CopiedRelocations {
                output: k as u32,
                bytes,
            })
        })
        .collect()
}

/// The output's symbol index and addend for a relocation to `target` (none: symbol 0);
/// `None` for a target the link discarded.
fn output_symbol(
    link: &Image,
    index: &SymtabIndex,
    target: Option<Target>,
    addend: i64,
) -> (Option<u32>, i64) {
    let Some(target) = target else {
        return (Some(0), addend);
    };
    // A section symbol goes through its section (below).
    let is_section = matches!(target, Target::Local(f, i)
        if link.objects[f as usize].symbols[i as usize].st_type() == STT_SECTION);
    let shown = (!is_section).then(|| index.of(target)).flatten();
    if let Some(i) = shown {
        return (Some(i), addend);
    }
    // Through the section the target is defined in.
    let (def_file, def_section) = match target {
        Target::Global(id) => match link.symtab.get(id).def {
            SymbolDef::Defined { file, section, .. } => (file, section),
            _ => return (None, 0),
        },
        Target::Local(f, i) => (f, link.objects[f as usize].symbol_section(i as usize)),
    };
    if def_section == shndx::ABS {
        return (Some(0), link.address_with_addend(target, addend));
    }
    match output_of(link, def_file, def_section) {
        Some(out) => {
            let base = link.addr(&link.outputs[out as usize]) as i64;
            let value = link.address_with_addend(target, addend).wrapping_sub(base);
            (Some(index.sections[out as usize]), value)
        }
        None => (None, 0),
    }
}

/// The output section (position in `Link::outputs`) holding input section `sec` of
/// `file`, or the copy identical code folding kept in its place.
fn output_of(link: &Image, file: u32, sec: u32) -> Option<u32> {
    if !shndx::is_section(sec) {
        return None;
    }
    let (f, sec) = link.kept_copy(file, sec);
    let s = link.objects[f as usize].sections.get(sec as usize)?;
    if !s.is_kept() {
        return None;
    }
    link.outputs.position(s.output).map(|p| p as u32)
}
