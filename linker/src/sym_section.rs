//! Which section a symbol of the output's `.symtab` or `.dynsym` is defined in (`st_shndx`).
//!
//! Two details matter beyond display. The dynamic loader does not relocate a symbol marked
//! SHN_ABS (glibc 2.35 and later), so a linker-defined symbol such as `_end` or
//! `__start_foo` must name a real section, or a PIE or shared library exporting it hands out
//! an unrelocated address. And an output with 65,280 sections or more has indices that do not
//! fit `st_shndx`: those are written as SHN_XINDEX, with the real index in `.symtab_shndx`.

use crate::context::LinkerSymbol;
use crate::image::Image;
use crate::object_file::NO_OUTPUT;
use crate::output_section::TailKind;
use crate::symbols::{SymbolDef, SymbolId};
use object::elf::{SHN_ABS, SHN_LORESERVE, SHN_XINDEX};

/// Where a symbol in the output's symbol tables is defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymSection {
    Undefined,
    Absolute,
    /// A common symbol left for the final link to allocate (`-r`).
    Common,
    /// The section header index of an output section.
    Output(u32),
}

impl SymSection {
    /// `st_shndx`, and the index `.symtab_shndx` holds for it (0 unless SHN_XINDEX).
    pub fn st_shndx(self) -> (u16, u32) {
        match self {
            SymSection::Undefined => (0, 0),
            SymSection::Absolute => (SHN_ABS, 0),
            SymSection::Common => (object::elf::SHN_COMMON, 0),
            SymSection::Output(i) if i >= u32::from(SHN_LORESERVE) => (SHN_XINDEX, i),
            SymSection::Output(i) => (i as u16, 0),
        }
    }

    pub fn is_defined_in_section(self) -> bool {
        matches!(self, SymSection::Output(_))
    }
}

/// The section of global symbol `id` as the output's symbol tables show it.
pub fn symbol_section(link: &Image, id: SymbolId) -> SymSection {
    symbol_section_bounded(link, id, 0)
}

fn symbol_section_bounded(link: &Image, id: SymbolId, depth: u32) -> SymSection {
    match link.symtab.get(id).def {
        SymbolDef::Defined { file, section, .. } => {
            if section == crate::object_file::shndx::ABS {
                return SymSection::Absolute;
            }
            let s = &link.objects[file as usize].sections[section as usize];
            if s.output == NO_OUTPUT {
                SymSection::Absolute
            } else {
                SymSection::Output(link.output(s.output).index)
            }
        }
        SymbolDef::Common { .. } => tail_section(link, TailKind::Commons),
        SymbolDef::Synthetic => match link.linker_symbols.get(&id) {
            Some(LinkerSymbol::Absolute(_)) => SymSection::Absolute,
            // --defsym aliases may name each other; the depth bounds a cycle.
            Some(LinkerSymbol::Alias(other, _)) if depth < 16 => {
                symbol_section_bounded(link, *other, depth + 1)
            }
            Some(LinkerSymbol::Expr(e)) if crate::layout::expr_is_absolute(link, e) => {
                SymSection::Absolute
            }
            // A section's bounds belong to that section, even where another one starts at
            // the same address (lld defines them relative to it).
            Some(LinkerSymbol::SectionBound { name, .. }) => {
                match link.outputs.iter().find(|o| &o.name == name) {
                    Some(o) => SymSection::Output(o.index),
                    None => section_at(link, link.sym_addr[id as usize]),
                }
            }
            Some(LinkerSymbol::Synthetic { which, .. }) => match link.synthetic_section(*which) {
                Some(o) => SymSection::Output(o.index),
                None => section_at(link, link.sym_addr[id as usize]),
            },
            Some(LinkerSymbol::ScriptDot(k, _)) => match link.segments.script.values.get(*k) {
                Some((_, Some(index))) => SymSection::Output(*index),
                _ => SymSection::Absolute,
            },
            _ => section_at(link, link.sym_addr.get(id as usize).copied().unwrap_or(0)),
        },
        SymbolDef::Shared { .. } if link.tables.copies.slots.contains_key(&id) => tail_section(
            link,
            TailKind::CopyRel {
                read_only: link.tables.copies.slots[&id].read_only,
            },
        ),
        _ => SymSection::Undefined,
    }
}

fn tail_section(link: &Image, kind: TailKind) -> SymSection {
    link.outputs
        .iter()
        .find(|o| o.tail(kind).is_some())
        .map_or(SymSection::Absolute, |o| SymSection::Output(o.index))
}

/// The allocated output section an address lies in or follows (the last one starting at or
/// below it), for linker-defined symbols that mark section boundaries.
pub fn section_at(link: &Image, addr: u64) -> SymSection {
    link.outputs
        .iter()
        .filter(|o| o.is_alloc() && link.addr(o) <= addr)
        .max_by_key(|o| (link.addr(o), o.size))
        .or_else(|| {
            link.outputs
                .iter()
                .filter(|o| o.is_alloc())
                .min_by_key(|o| link.addr(o))
        })
        .map_or(SymSection::Absolute, |o| SymSection::Output(o.index))
}
