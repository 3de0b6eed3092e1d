//! What the relocation scan creates for the output: GOT entries, PLT entries, homes for
//! library data and functions the executable refers to directly (copies and canonical PLT
//! entries), and the dynamic relocations. The scan returns them as one value; the layout
//! sizes the linker's sections from it and the writer fills those sections from it.

use crate::context::{CopySlot, DynReloc, GotKind, Place, Target};
use crate::object_file::FileId;
use crate::symbols::SymbolId;
use rustc_hash::{FxHashMap, FxHashSet};

/// The GOT: one entry per (kind, target), at byte offsets in creation order.
#[derive(Default)]
pub struct Got {
    offsets: FxHashMap<(GotKind, Target), u64>,
    pub entries: Vec<(GotKind, Target, u64)>,
    pub size: u64,
}

impl Got {
    /// Adds an entry if missing; returns its offset when it is new.
    pub fn add(&mut self, kind: GotKind, t: Target) -> Option<u64> {
        if self.offsets.contains_key(&(kind, t)) {
            return None;
        }
        let off = self.size;
        self.offsets.insert((kind, t), off);
        self.entries.push((kind, t, off));
        self.size += 8 * kind.slots();
        Some(off)
    }

    pub fn offset(&self, kind: GotKind, t: Target) -> Option<u64> {
        self.offsets.get(&(kind, t)).copied()
    }
}

/// PLT entries: lazy ones for library functions (in `.rela.plt` order), and those of
/// non-preemptible IFUNCs, called through an IRELATIVE `.got.plt` slot.
#[derive(Default)]
pub struct Plt {
    pub lazy: Vec<SymbolId>,
    pub lazy_index: FxHashMap<SymbolId, u32>,
    pub iplt: Vec<Target>,
    pub iplt_index: FxHashMap<Target, u32>,
    /// The IFUNCs something refers to other than through a PLT or GOT: their entry is what
    /// `.symtab` shows them at (lld's).
    pub iplt_direct: FxHashSet<Target>,
    /// Library functions whose address the executable takes: their PLT entry is their
    /// address.
    pub canonical: FxHashSet<SymbolId>,
}

/// Copy-relocated library variables: where each lives, and the size and alignment of the
/// two areas (writable `.bss`, read-only `.bss.rel.ro`).
pub struct Copies {
    pub slots: FxHashMap<SymbolId, CopySlot>,
    pub size: [u64; 2],
    pub align: [u64; 2],
}

impl Default for Copies {
    fn default() -> Copies {
        Copies {
            slots: FxHashMap::default(),
            size: [0; 2],
            align: [1; 2],
        }
    }
}

/// An `R_X86_64_RELATIVE` relocation of a place in one of a file's input sections, whose
/// value is the address of the relocation's own symbol plus its addend. A large PIE has
/// hundreds of thousands: a third of a [`DynReloc`]'s size each.
#[derive(Debug, Clone, Copy)]
pub struct SectionRelative {
    pub sec: u32,
    /// The symbol index in the file.
    pub sym: u32,
    pub offset: u64,
    pub addend: i64,
}

/// Everything the relocation scan creates.
#[derive(Default)]
pub struct Tables {
    pub got: Got,
    pub plt: Plt,
    pub copies: Copies,
    /// The relative relocations of places in input sections, per file in file order: the
    /// head of `.rela.dyn`, before [`Tables::rela_dyn`].
    pub section_relative: Vec<Vec<SectionRelative>>,
    /// The other dynamic relocations of `.rela.dyn`.
    pub rela_dyn: Vec<DynReloc>,
    pub rela_plt: Vec<DynReloc>,
    /// Relative relocations packed into `.relr.dyn` (see [`crate::relr`]).
    pub relr: Vec<Place>,
    /// Some dynamic relocation applies to a read-only section (DT_TEXTREL).
    pub needs_textrel: bool,
    /// Read-only sections with dynamic relocations, with the first global symbol they name,
    /// for the warning (not with `-z notext`).
    pub text_relocation_sections: Vec<(FileId, u32, Option<SymbolId>)>,
    /// Some relocation is relative to the GOT base (GOTPC32, GOTOFF64, PLTOFF64, ...).
    pub uses_got_base: bool,
}

impl Tables {
    /// Entries of `.rela.dyn`.
    pub fn rela_dyn_count(&self) -> usize {
        self.section_relative.iter().map(Vec::len).sum::<usize>() + self.rela_dyn.len()
    }

    /// Entries of `.rela.dyn` that are `R_X86_64_RELATIVE` (`DT_RELACOUNT`).
    pub fn relative_count(&self) -> usize {
        self.section_relative.iter().map(Vec::len).sum::<usize>()
            + self
                .rela_dyn
                .iter()
                .filter(|r| r.r_type == object::elf::R_X86_64_RELATIVE)
                .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn got_entries_are_laid_out_once_each_in_order() {
        let mut got = Got::default();
        let a = Target::Global(7);
        let b = Target::Local(1, 3);
        assert_eq!(got.add(GotKind::Regular, a), Some(0));
        // A TLS GD entry takes two slots (module and offset).
        assert_eq!(got.add(GotKind::TlsGd, b), Some(8));
        assert_eq!(got.add(GotKind::TlsIe, a), Some(24));
        // Asking again gives nothing new.
        assert_eq!(got.add(GotKind::Regular, a), None);
        assert_eq!(got.add(GotKind::TlsGd, b), None);
        assert_eq!(got.size, 32);
        assert_eq!(got.offset(GotKind::TlsGd, b), Some(8));
        assert_eq!(got.offset(GotKind::TlsGd, a), None);
        let kinds: Vec<(GotKind, u64)> = got.entries.iter().map(|&(k, _, o)| (k, o)).collect();
        assert_eq!(
            kinds,
            [
                (GotKind::Regular, 0),
                (GotKind::TlsGd, 8),
                (GotKind::TlsIe, 24)
            ]
        );
    }
}
