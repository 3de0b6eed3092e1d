//! The link as the writer sees it: the inputs, symbols and output sections ([`Link`]) with
//! what each later phase returned — the relocation scan's tables ([`Tables`]), the layout's
//! segments and symbol addresses, and the extra [`Contents`]. What only they together
//! answer lives here: the addresses relocations and the linker's sections use (PLT
//! entries, GOT slots, symbols redirected to their PLT entry).

use crate::context::{GotKind, Link, Segments, Target};
use crate::object_file::{FileId, LE, NO_OUTPUT};
use crate::output_section::{Placement, Synthetic};
use crate::symbols::SymbolDef;
use crate::tables::Tables;
use object::elf;
use object::read::elf::Sym as _;
use rustc_hash::FxHashMap;

/// What the writer puts in the output besides the input sections and the linker's tables,
/// decided once addresses are final.
#[derive(Default)]
pub struct Contents {
    /// `.relr.dyn`'s encoding (see [`crate::relr::settle`]).
    pub relr: Vec<u64>,
    /// `.rela.dyn` packed for Android (see [`crate::android_relocs::settle`]).
    pub android_rela: Vec<u8>,
    /// The bytes of linker script data commands: (output section, offset, bytes).
    pub script_data: Vec<(u32, u64, Vec<u8>)>,
    /// The fill patterns of output sections: (output section, 4 bytes).
    pub fills: Vec<(u32, [u8; 4])>,
    /// Output sections written compressed (`--compress-debug-sections`), by index: their
    /// bytes, header included.
    pub compressed: FxHashMap<u32, Vec<u8>>,
    /// `-z rewrite-endbr`: per section, the `endbr64`s written as NOPs.
    pub endbr: crate::endbr::Rewrites,
}

/// No contents yet: the view the layout uses while it computes them.
static NO_CONTENTS: std::sync::LazyLock<Contents> = std::sync::LazyLock::new(Contents::default);
/// No section starts yet: every address is computed from the section's record.
static NO_STARTS: SectionStarts = SectionStarts {
    first: Vec::new(),
    start: Vec::new(),
};

/// Where each input section starts in the output, once addresses are final: the writer
/// looks up a section's address for every relocation, and one dense array answers that
/// from a cache line shared by neighbouring sections, where the section's own record and its
/// output section's would cost a miss each. Sections whose pieces move separately (merged
/// strings, `.eh_frame`), dropped or folded ones are not in it: their records answer.
#[derive(Default)]
pub struct SectionStarts {
    /// Where each object's sections begin in `start` (one more entry than objects).
    first: Vec<usize>,
    /// Each section's start plus one, or 0 for a section left to its record.
    start: Vec<u64>,
}

impl SectionStarts {
    pub fn new(link: &Link, segments: &Segments) -> SectionStarts {
        use rayon::prelude::*;
        let mut first = Vec::with_capacity(link.objects.len() + 1);
        let mut total = 0;
        for o in &link.objects {
            first.push(total);
            total += o.sections.len();
        }
        first.push(total);
        // One allocation (of zero pages: 0 is "not flat"), each object's share filled on
        // its own.
        let mut start = vec![0; total];
        let (shares, _) =
            crate::write::split_places(&mut start, link.objects.iter().map(|o| o.sections.len()));
        link.objects.par_iter().zip(shares).for_each(|(o, share)| {
            for (slot, s) in share.iter_mut().zip(&o.sections) {
                if s.is_kept() && s.output != NO_OUTPUT && s.pieces.is_empty() {
                    // Plus one; a start of 2^64 - 1 reads as not flat, which the
                    // section's record then answers the same.
                    *slot = segments
                        .sections
                        .of_id(s.output)
                        .addr
                        .wrapping_add(s.offset)
                        .wrapping_add(1);
                }
            }
        });
        SectionStarts { first, start }
    }

    /// Where section `sec` of `file` starts, if this table knows.
    fn get(&self, file: FileId, sec: u32) -> Option<u64> {
        let (&from, &to) = (
            self.first.get(file as usize)?,
            self.first.get(file as usize + 1)?,
        );
        let at = from + sec as usize;
        if at >= to {
            return None;
        }
        self.start[at].checked_sub(1)
    }
}

/// A view of the link with its tables; it reads as the link itself (`Deref`).
#[derive(Clone, Copy)]
pub struct Image<'a, 'o> {
    pub link: &'a Link<'o>,
    pub tables: &'a Tables,
    /// Merged strings, commons, dropped CIEs (see [`Placement`]).
    pub placement: &'a Placement,
    /// The program headers, the TLS template, the image base.
    pub segments: &'a Segments,
    /// The final address of every global symbol, by id (`layout::compute_all_symbol_addresses`).
    pub sym_addr: &'a [u64],
    pub contents: &'a Contents,
    /// Where input sections start (empty before addresses are final).
    pub starts: &'a SectionStarts,
}

impl<'o> std::ops::Deref for Image<'_, 'o> {
    type Target = Link<'o>;

    fn deref(&self) -> &Link<'o> {
        self.link
    }
}

impl<'a, 'o> Image<'a, 'o> {
    pub fn new(
        link: &'a Link<'o>,
        tables: &'a Tables,
        placement: &'a Placement,
        segments: &'a Segments,
        sym_addr: &'a [u64],
        contents: &'a Contents,
        starts: &'a SectionStarts,
    ) -> Image<'a, 'o> {
        Image {
            link,
            tables,
            placement,
            segments,
            sym_addr,
            contents,
            starts,
        }
    }

    /// The view while the layout computes symbol addresses: what it answers then (PLT and
    /// GOT places, section addresses) does not depend on them.
    pub fn before_symbol_addresses(
        link: &'a Link<'o>,
        tables: &'a Tables,
        placement: &'a Placement,
        segments: &'a Segments,
    ) -> Image<'a, 'o> {
        Image::new(
            link,
            tables,
            placement,
            segments,
            &[],
            &NO_CONTENTS,
            &NO_STARTS,
        )
    }

    /// Address of the target's definition ignoring PLT redirection (the IFUNC resolver).
    pub fn definition_address(&self, t: Target) -> u64 {
        match t {
            Target::Global(id) => match self.symtab.get(id).def {
                SymbolDef::Defined {
                    file,
                    section,
                    value,
                } => self.defined_address(file, section, value).unwrap_or(0),
                _ => self.symbol_address(id),
            },
            Target::Local(f, i) => self.local_definition_address(f, i as usize).unwrap_or(0),
        }
    }

    /// Global symbol `id`'s address; 0 where there are none (`-r`, where relocations keep
    /// naming symbols) or not yet.
    fn symbol_address(&self, id: crate::symbols::SymbolId) -> u64 {
        self.sym_addr.get(id as usize).copied().unwrap_or(0)
    }

    /// The address a relocation against `t` uses for S (symbols in dropped sections: 0).
    pub fn target_address(&self, t: Target) -> u64 {
        match t {
            Target::Global(id) => self.symbol_address(id),
            Target::Local(f, i) => self.local_address(f, i as usize).unwrap_or(0),
        }
    }

    /// S + A. For a section symbol of a merged section the addend selects the piece, so it
    /// must be applied before mapping the offset into the output (lld does the same).
    pub fn address_with_addend(&self, t: Target, addend: i64) -> i64 {
        self.address_and_sum(t, addend).1
    }

    /// S and S + A together: a local target's symbol and section are looked up once, not
    /// once for each (the writer needs both at every relocation). Modulo 2^64, as the psABI
    /// computes (a corrupt addend must not overflow).
    pub fn address_and_sum(&self, t: Target, addend: i64) -> (i64, i64) {
        let Target::Local(f, i) = t else {
            let s = self.target_address(t) as i64;
            return (s, s.wrapping_add(addend));
        };
        let obj = &self.objects[f as usize];
        let sym = &obj.symbols[i as usize];
        // Most targets: a symbol in a section the table knows (whose bytes moved as one,
        // so a merged section's symbol is never one), in a link without IFUNCs.
        if self.tables.plt.iplt.is_empty() {
            if let Some(start) = self.starts.get(f, obj.symbol_section(i as usize)) {
                let s = start.wrapping_add(sym.st_value(LE)) as i64;
                return (s, s.wrapping_add(addend));
            }
        }
        if sym.st_type() == elf::STT_SECTION {
            let shndx = obj.symbol_section(i as usize);
            let merged = obj
                .sections
                .get(shndx as usize)
                .is_some_and(|s| s.kind == crate::object_file::SectionKind::Merge);
            if merged {
                let value = sym.st_value(LE);
                let off = (value as i64).wrapping_add(addend) as u64;
                let s = self.section_address(f, shndx, value).unwrap_or(0) as i64;
                return (s, self.section_address(f, shndx, off).unwrap_or(0) as i64);
            }
        }
        let s = self.local_address(f, i as usize).unwrap_or(0) as i64;
        (s, s.wrapping_add(addend))
    }

    /// Address of an input section offset in the output, or None if that part was dropped:
    /// from [`SectionStarts`] where it knows, else from the section's record.
    pub fn section_address(&self, file: FileId, sec: u32, offset: u64) -> Option<u64> {
        match self.starts.get(file, sec) {
            Some(start) => Some(start.wrapping_add(offset)),
            None => self.recorded_section_address(file, sec, offset),
        }
    }

    fn recorded_section_address(&self, file: FileId, sec: u32, offset: u64) -> Option<u64> {
        let s = self.objects[file as usize].sections.get(sec as usize)?;
        if !s.is_kept() || s.output == NO_OUTPUT {
            // Folded into an identical section: the same bytes at its address.
            let &(kf, ks) = self.folded_into.get(&(file, sec))?;
            return self.section_address(kf, ks, offset);
        }
        let base = self.segments.sections.of_id(s.output).addr;
        // Modulo 2^64: a corrupt symbol value may point anywhere.
        if s.pieces.is_empty() {
            Some(base.wrapping_add(s.offset).wrapping_add(offset))
        } else {
            Some(base.wrapping_add(s.piece_output_offset(offset)?))
        }
    }

    /// Address of a symbol defined in an object, without PLT redirection.
    pub fn definition_address_of_defined(&self, id: crate::symbols::SymbolId) -> u64 {
        match self.symtab.get(id).def {
            SymbolDef::Defined {
                file,
                section,
                value,
            } => self.defined_address(file, section, value).unwrap_or(0),
            _ => 0,
        }
    }

    /// Output section `o`'s address.
    pub fn addr(&self, o: &crate::output_section::OutputSection) -> u64 {
        self.segments.sections.addr(o)
    }

    /// Where output section `o` starts in the file.
    pub fn offset(&self, o: &crate::output_section::OutputSection) -> u64 {
        self.segments.sections.offset(o)
    }

    /// Output section `which`'s address (0 if the link has none).
    pub fn synthetic_addr(&self, which: Synthetic) -> u64 {
        self.synthetic_section(which)
            .map_or(0, |s| self.segments.sections.addr(s))
    }

    /// Where a symbol defined in `section` of `file` at `value` is.
    pub fn defined_address(&self, file: FileId, section: u32, value: u64) -> Option<u64> {
        if section == crate::object_file::shndx::ABS {
            return Some(value);
        }
        self.section_address(file, section, value)
    }

    /// Where local symbol `index` of `file` is defined (no IFUNC redirection), through
    /// [`Image::section_address`].
    pub fn local_definition_address(&self, file: FileId, index: usize) -> Option<u64> {
        let obj = &self.objects[file as usize];
        let value = obj.symbols[index].st_value(LE);
        self.defined_address(file, obj.symbol_section(index), value)
    }

    fn local_address(&self, file: FileId, index: usize) -> Option<u64> {
        // Most links have no IFUNC: no lookup per relocation then.
        if !self.tables.plt.iplt.is_empty() {
            if let Some(&i) = self
                .tables
                .plt
                .iplt_index
                .get(&Target::Local(file, index as u32))
            {
                return Some(self.plt_entry_address_iplt(i));
            }
        }
        self.local_definition_address(file, index)
    }

    /// The PLT entry code calls for lazy entry `index` (in `.plt.sec` with IBT).
    pub fn plt_entry_address(&self, index: u32) -> u64 {
        if let Some(r) = crate::synthetic::RetpolinePlt::of(self) {
            return self.synthetic_addr(Synthetic::Plt) + r.entry_offset(index);
        }
        if self.ibt_plt() {
            return self.synthetic_addr(Synthetic::PltSec) + 16 * u64::from(index);
        }
        self.synthetic_addr(Synthetic::Plt) + 16 + 16 * u64::from(index)
    }

    /// Where lazy entry `index` starts binding: its `.got.plt` slot's first value.
    pub fn plt_lazy_stub(&self, index: u32) -> u64 {
        if let Some(r) = crate::synthetic::RetpolinePlt::of(self) {
            return r.lazy_stub(self.plt_entry_address(index));
        }
        if self.ibt_plt() {
            return self.synthetic_addr(Synthetic::Plt) + 16 + 16 * u64::from(index);
        }
        // Past the entry's `jmp *slot`: its `pushq`.
        self.plt_entry_address(index) + 6
    }

    pub fn plt_entry_address_iplt(&self, index: u32) -> u64 {
        let after = 16 * self.tables.plt.lazy.len() as u64 + 16 * u64::from(index);
        if self.ibt_plt() {
            return self.synthetic_addr(Synthetic::PltSec) + after;
        }
        let header = if self.tables.plt.lazy.is_empty() {
            0
        } else {
            16
        };
        self.synthetic_addr(Synthetic::Plt) + header + after
    }

    /// Address of the .got.plt slot of a lazy PLT entry or an IPLT entry.
    pub fn gotplt_slot(&self, plt_index: u32, iplt: bool) -> u64 {
        let idx = if iplt {
            self.tables.plt.lazy.len() as u64 + u64::from(plt_index)
        } else {
            u64::from(plt_index)
        };
        self.synthetic_addr(Synthetic::GotPlt) + 24 + 8 * idx
    }

    pub fn got_address(&self, kind: GotKind, t: Target) -> Option<u64> {
        let off = self.tables.got.offset(kind, t)?;
        Some(self.synthetic_addr(Synthetic::Got) + off)
    }
}
