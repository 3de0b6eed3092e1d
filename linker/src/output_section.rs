//! Output sections: which output section each input section goes to, SHF_MERGE
//! deduplication, `.eh_frame` splitting, and the extra regions (commons, copy relocations,
//! merged strings) that live at the end of an output section.

use crate::context::{Link, Target};
use crate::object_file::{FileId, ObjectFile, Piece, LE};
use object::elf;
use object::read::elf::Rela as _;
use rustc_hash::FxHashMap;

/// What produces an output section's bytes beyond its input sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Synthetic {
    Interp,
    BuildId,
    /// `.note.package`: `--package-metadata`'s JSON.
    PackageNote,
    GnuProperty,
    DynSym,
    DynStr,
    GnuVersion,
    GnuVersionR,
    GnuVersionD,
    GnuHash,
    SysvHash,
    RelaDyn,
    RelaPlt,
    RelrDyn,
    Plt,
    /// The IBT PLT's entries (`endbr64; jmp *slot`); `.plt` then holds the lazy stubs.
    PltSec,
    Got,
    GotPlt,
    Dynamic,
    EhFrameHdr,
    /// `.relro_padding` (lld-22's): NOBITS space from the end of the RELRO sections to
    /// the page's end, sized as addresses are assigned.
    RelroPadding,
}

/// A region at the end of an output section that is not an input section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailKind {
    /// Deduplicated pieces of the merge group with this index.
    Merged(u32),
    /// Common symbols (in `.bss`).
    Commons,
    /// Space for copy-relocated shared-library data (in `.bss`).
    /// Copy-relocated variables: `.bss`'s, or (`read_only`) `.bss.rel.ro`'s.
    CopyRel { read_only: bool },
    /// Zero bytes: the terminator that ends `.eh_frame`.
    Zero,
}

#[derive(Debug, Clone, Copy)]
pub struct Tail {
    pub kind: TailKind,
    pub offset: u64,
    pub size: u64,
    pub align: u64,
}

/// An output section's identity: the order of its creation, which never changes. Its
/// place in the final order (and its section header index) is decided once every output
/// exists (`layout::sort_output_sections`); [`crate::context::Link::output`] finds it there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OutputId(pub u32);

impl OutputId {
    /// No output: an input section that is not placed, or an output that was dropped.
    pub const NONE: OutputId = OutputId(u32::MAX);
}

/// The output sections, in creation order until the final order is set
/// ([`OutputSections::reorder`]); each found by its identity wherever it is.
#[derive(Default)]
pub struct OutputSections {
    list: Vec<OutputSection>,
    /// Where each output section (by id) is in `list`; `u32::MAX` once dropped.
    positions: Vec<u32>,
    /// The linker's own sections, by what they are.
    synthetic: FxHashMap<Synthetic, OutputId>,
}

impl std::ops::Deref for OutputSections {
    type Target = [OutputSection];

    fn deref(&self) -> &[OutputSection] {
        &self.list
    }
}

// Changed one by one, never reordered but by `reorder` (the positions follow the list).
impl<I: std::slice::SliceIndex<[OutputSection]>> std::ops::Index<I> for OutputSections {
    type Output = I::Output;

    fn index(&self, position: I) -> &I::Output {
        &self.list[position]
    }
}

impl<I: std::slice::SliceIndex<[OutputSection]>> std::ops::IndexMut<I> for OutputSections {
    fn index_mut(&mut self, position: I) -> &mut I::Output {
        &mut self.list[position]
    }
}

impl OutputSections {
    /// Adds an output section after the others and gives it its identity.
    pub fn add(&mut self, mut o: OutputSection) -> OutputId {
        let id = OutputId(self.positions.len() as u32);
        o.id = id;
        if let Some(which) = o.synthetic {
            self.synthetic.insert(which, id);
        }
        self.positions.push(self.list.len() as u32);
        self.list.push(o);
        id
    }

    /// How many identities were given (dropped sections' included).
    pub fn id_count(&self) -> usize {
        self.positions.len()
    }

    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, OutputSection> {
        self.list.iter_mut()
    }

    /// Where output section `id` is (none if it was dropped).
    pub fn position(&self, id: OutputId) -> Option<usize> {
        match self.positions.get(id.0 as usize) {
            Some(&p) if p != u32::MAX => Some(p as usize),
            _ => None,
        }
    }

    /// The linker's section `which`, if the link has one.
    pub fn synthetic(&self, which: Synthetic) -> Option<&OutputSection> {
        let id = self.synthetic_id(which)?;
        Some(&self.list[self.position(id)?])
    }

    pub fn synthetic_id(&self, which: Synthetic) -> Option<OutputId> {
        self.synthetic.get(&which).copied()
    }

    pub fn has_synthetic(&self, which: Synthetic) -> bool {
        self.synthetic.contains_key(&which)
    }

    /// Output section `id`, which must not have been dropped.
    pub fn section(&self, id: OutputId) -> &OutputSection {
        &self.list[self.positions[id.0 as usize] as usize]
    }

    /// The section `id` names, unless it was dropped.
    pub fn by_id(&self, id: OutputId) -> Option<&OutputSection> {
        let at = *self.positions.get(id.0 as usize)?;
        self.list.get(at as usize)
    }

    /// The header index of the output a SHF_LINK_ORDER output `o` is linked to (0: none).
    pub fn linked_index(&self, o: &OutputSection) -> u32 {
        o.linked_to
            .and_then(|id| self.by_id(id))
            .map_or(0, |t| t.index)
    }

    pub fn section_mut(&mut self, id: OutputId) -> &mut OutputSection {
        &mut self.list[self.positions[id.0 as usize] as usize]
    }

    /// Puts the sections in `order` (positions in the current order) and numbers their
    /// section headers in that order; returns those it leaves out, which are dropped.
    pub fn reorder(&mut self, order: &[usize]) -> Vec<OutputSection> {
        let mut old: Vec<Option<OutputSection>> = std::mem::take(&mut self.list)
            .into_iter()
            .map(Some)
            .collect();
        self.positions.fill(u32::MAX);
        for (new, &i) in order.iter().enumerate() {
            let mut o = old[i].take().expect("each output placed once");
            o.index = new as u32 + 1;
            self.positions[o.id.0 as usize] = new as u32;
            self.list.push(o);
        }
        old.into_iter().flatten().collect()
    }
}

pub struct OutputSection {
    /// Its identity (see [`OutputId`]).
    pub id: OutputId,
    pub name: String,
    pub sh_type: u32,
    pub flags: u64,
    pub align: u64,
    pub entsize: u64,
    pub size: u64,
    /// Section header index in the output (set when the sections are put in order).
    pub index: u32,
    pub inputs: Vec<(FileId, u32)>,
    pub tails: Vec<Tail>,
    /// For a SHF_LINK_ORDER output: the output holding the section its first linked input
    /// is linked to (its header's sh_link, as lld sets it).
    pub linked_to: Option<OutputId>,
    pub synthetic: Option<Synthetic>,
}

impl OutputSection {
    pub fn new(name: &str, sh_type: u32, flags: u64) -> OutputSection {
        OutputSection {
            id: OutputId::NONE,
            name: name.to_string(),
            sh_type,
            flags,
            align: 1,
            entsize: 0,
            size: 0,
            index: 0,
            inputs: Vec::new(),
            tails: Vec::new(),
            linked_to: None,
            synthetic: None,
        }
    }

    pub fn is_alloc(&self) -> bool {
        self.flags & u64::from(elf::SHF_ALLOC) != 0
    }

    pub fn is_nobits(&self) -> bool {
        self.sh_type == elf::SHT_NOBITS
    }

    pub fn is_tls(&self) -> bool {
        self.flags & u64::from(elf::SHF_TLS) != 0
    }

    pub fn is_writable(&self) -> bool {
        self.flags & u64::from(elf::SHF_WRITE) != 0
    }

    pub fn is_exec(&self) -> bool {
        self.flags & u64::from(elf::SHF_EXECINSTR) != 0
    }

    /// Reserves a tail region and returns its offset; `None` (and nothing reserved) if the
    /// section would no longer fit in the 64-bit address space.
    pub fn add_tail(&mut self, kind: TailKind, size: u64, align: u64) -> Option<u64> {
        let offset = self.size.checked_next_multiple_of(align.max(1))?;
        self.size = offset.checked_add(size)?;
        self.align = self.align.max(align);
        self.tails.push(Tail {
            kind,
            offset,
            size,
            align,
        });
        Some(offset)
    }

    pub fn tail(&self, kind: TailKind) -> Option<&Tail> {
        self.tails.iter().find(|t| t.kind == kind)
    }
}

/// lld's rule: sections whose names start with a well-known prefix merge into that output
/// section; everything else keeps its own name (so `__start_`/`__stop_` work).
pub fn output_section_name(name: &str, keep_text_prefix: bool) -> &str {
    // `-z keep-text-section-prefix` (lld's): hot, cold and start-up code keep output
    // sections of their own, so that they can be placed and mapped apart.
    const TEXT_KINDS: &[&str] = &[
        ".text.hot",
        ".text.unknown",
        ".text.unlikely",
        ".text.startup",
        ".text.exit",
        ".text.split",
    ];
    if keep_text_prefix {
        for p in TEXT_KINDS {
            if let Some(rest) = name.strip_prefix(p) {
                if rest.is_empty() || rest.starts_with('.') {
                    return p;
                }
            }
        }
    }
    const PREFIXES: &[&str] = &[
        ".text",
        ".rodata",
        ".data.rel.ro",
        ".data",
        ".bss.rel.ro",
        ".bss",
        ".ldata",
        ".lrodata",
        ".lbss",
        ".gcc_except_table",
        ".init_array",
        ".fini_array",
        ".preinit_array",
        ".tbss",
        ".tdata",
    ];
    for p in PREFIXES {
        if let Some(rest) = name.strip_prefix(p) {
            if rest.is_empty() || rest.starts_with('.') {
                return p;
            }
        }
    }
    // GNU ld's default script folds constructor tables into .init_array/.fini_array.
    if name == ".ctors" || name.starts_with(".ctors.") {
        return ".init_array";
    }
    if name == ".dtors" || name.starts_with(".dtors.") {
        return ".fini_array";
    }
    name
}

/// Sort key of an input section inside `.init_array`/`.fini_array`: `.init_array.N` and
/// `.ctors.(65535-N)` by priority, then the unprioritized ones, in input order.
pub fn init_priority(name: &str) -> u32 {
    let num = |s: &str| s.parse::<u32>().ok();
    for p in [".init_array.", ".fini_array.", ".preinit_array."] {
        if let Some(n) = name.strip_prefix(p).and_then(num) {
            return n;
        }
    }
    for p in [".ctors.", ".dtors."] {
        if let Some(n) = name.strip_prefix(p).and_then(num) {
            return 65535u32.saturating_sub(n);
        }
    }
    65536
}

/// The length of the `.eh_frame` record at `pos` (its length field included), clamped to
/// the data.
pub fn eh_record_len(data: &[u8], pos: usize) -> u64 {
    match data.get(pos..pos + 4) {
        Some(b) => {
            let len = u32::from_le_bytes(b.try_into().unwrap()) as u64;
            if len == 0xffff_ffff {
                // 64-bit DWARF length: never produced for x86-64 .eh_frame; the rest whole.
                (data.len() - pos) as u64
            } else {
                (4 + len).min((data.len() - pos) as u64)
            }
        }
        None => (data.len() - pos) as u64,
    }
}

/// The CIE pointer of the `.eh_frame` record at `pos` if it is an FDE (a record of at least
/// eight bytes whose length and CIE pointer are not zero; CIEs have a zero pointer, the
/// terminator a zero length).
pub fn fde_cie_pointer(data: &[u8], pos: usize) -> Option<u32> {
    if eh_record_len(data, pos) < 8 {
        return None;
    }
    let word = |at: usize| u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
    let (len, id) = (word(pos), word(pos + 4));
    (len != 0 && id != 0).then_some(id)
}

/// What makes two CIEs the same: their bytes and their relocations (offset in the CIE,
/// type, target, addend).
type CieKey = (Vec<u8>, Vec<(u64, u32, Target, i64)>);

/// What placing the inputs decided besides each input's offset: the deduplicated merge
/// groups, where common symbols went, which `.eh_frame` CIEs were dropped for an equal one,
/// and how many FDEs were kept (`.eh_frame_hdr`'s size).
#[derive(Default)]
pub struct Placement {
    pub merge_groups: Vec<crate::merge::MergeGroup>,
    /// Offset inside `.bss` of each common symbol.
    pub common_offsets: FxHashMap<crate::symbols::SymbolId, u64>,
    /// `.eh_frame` CIEs dropped for an equal one placed earlier: (file, section, offset in
    /// the section) → the output offset of the one kept.
    pub cie_aliases: FxHashMap<(FileId, u32, u64), u64>,
    pub eh_frame_fdes: usize,
    /// Each `.eh_frame` input's stretches of its output section (offsets from its start):
    /// the writer fills each with the input's records that landed there.
    pub eh_runs: FxHashMap<(FileId, u32), Vec<(u64, u64)>>,
}

/// The `.eh_frame` inputs of one output section (each with its pieces from
/// [`split_eh_frame`]) laid out as lld lays them out, from offset `start`: each distinct CIE,
/// in the order first met, followed by every kept FDE that uses it, from all the inputs in
/// order. Sets each input's pieces to their offsets from the section's start (an equal CIE
/// met later is dropped and recorded in `aliases`); returns where the records end, and
/// each input's runs (see [`Placement::eh_runs`]).
pub fn group_eh_frames(
    link: &Link,
    inputs: &mut [((FileId, u32), Vec<Piece>)],
    start: u64,
    aliases: &mut FxHashMap<(FileId, u32, u64), u64>,
) -> (u64, Vec<Vec<(u64, u64)>>) {
    use rayon::prelude::*;
    // Each input on its own (in parallel): its CIEs with their keys, which of them each FDE
    // uses, and how many bytes of FDEs each has. The passes in input order below go over
    // the CIEs only, not every record; the records are then placed in parallel again.
    let mut scans: Vec<EhScan> = inputs
        .par_iter()
        .map(|((f, i), pieces)| EhScan::new(link, *f, *i, pieces))
        .collect();

    // Groups in the order their first record is met: each distinct CIE, and each FDE whose
    // CIE is not before it in its input (a group of its own, after it).
    let mut groups: Vec<EhGroup> = Vec::new();
    let mut by_key: FxHashMap<CieKey, u32> = FxHashMap::default();
    let mut group_of: Vec<Vec<(u32, bool)>> = Vec::with_capacity(scans.len());
    for scan in scans.iter_mut() {
        let mut new_group = |cie_len: u64| {
            groups.push(EhGroup { cie_len, at: 0 });
            (groups.len() - 1) as u32
        };
        let of = scan.starts.iter_mut().map(|s| match s {
            EhStart::Cie { key, len, .. } => match key.take() {
                Some(key) => match by_key.entry(key) {
                    std::collections::hash_map::Entry::Occupied(o) => (*o.get(), false),
                    std::collections::hash_map::Entry::Vacant(v) => {
                        (*v.insert(new_group(*len)), true)
                    }
                },
                None => (new_group(*len), true),
            },
            EhStart::Orphan => (new_group(0), false),
        });
        group_of.push(of.collect());
    }
    // Each group's place: its CIE, then its FDEs, input by input.
    let mut fde_bytes = vec![0u64; groups.len()];
    for (scan, of) in scans.iter().zip(&group_of) {
        for (&(g, _), bytes) in of.iter().zip(&scan.fde_bytes) {
            fde_bytes[g as usize] += bytes;
        }
    }
    let mut off = start;
    let mut cursor = vec![0u64; groups.len()];
    for (g, group) in groups.iter_mut().enumerate() {
        group.at = off;
        cursor[g] = off + group.cie_len;
        off = cursor[g] + fde_bytes[g];
    }
    // Where each input's FDEs of each group start (inputs in order).
    let mut bases: Vec<Vec<(u32, u64)>> = Vec::with_capacity(scans.len());
    for (scan, of) in scans.iter().zip(&group_of) {
        let mut base: Vec<(u32, u64)> = Vec::new();
        for (&(g, _), &bytes) in of.iter().zip(&scan.fde_bytes) {
            if bytes == 0 {
                continue;
            }
            if !base.iter().any(|b| b.0 == g) {
                base.push((g, cursor[g as usize]));
            }
            cursor[g as usize] += bytes;
        }
        bases.push(base);
    }

    // Every record placed, each input on its own.
    let placed: Vec<EhPlaced> = inputs
        .par_iter_mut()
        .zip(scans.par_iter())
        .zip(group_of.par_iter())
        .zip(bases.par_iter_mut())
        .map(|(((entry, scan), of), base)| {
            let pieces = &mut entry.1;
            let (mut spans, mut dropped) = (Vec::new(), Vec::new());
            for (s, start) in scan.starts.iter().enumerate() {
                let EhStart::Cie { piece, len, .. } = *start else {
                    continue;
                };
                let (g, owner) = of[s];
                let p = &mut pieces[piece as usize];
                if owner {
                    p.output_offset = groups[g as usize].at;
                    spans.push((p.output_offset, len));
                } else {
                    dropped.push((p.input_offset, groups[g as usize].at));
                    p.output_offset = u64::MAX;
                }
            }
            for &(j, s, len) in &scan.fdes {
                let g = of[s as usize].0;
                let next = base
                    .iter_mut()
                    .find(|b| b.0 == g)
                    .expect("a base per group");
                pieces[j as usize].output_offset = next.1;
                spans.push((next.1, len));
                next.1 += len;
            }
            // In the order they are in the output, stretches of adjacent records joined.
            spans.sort_unstable_by_key(|&(at, _)| at);
            let mut runs: Vec<(u64, u64)> = Vec::new();
            for (at, len) in spans {
                match runs.last_mut() {
                    Some(run) if run.1 == at => run.1 = at + len,
                    _ => runs.push((at, at + len)),
                }
            }
            (runs, dropped)
        })
        .collect();
    let mut runs = Vec::with_capacity(placed.len());
    for (((f, i), _), (r, dropped)) in inputs.iter().zip(placed) {
        for (input_offset, at) in dropped {
            aliases.insert((*f, *i, input_offset), at);
        }
        runs.push(r);
    }
    (off, runs)
}

/// One input placed by [`group_eh_frames`]: its runs, and its CIEs dropped for an equal one
/// (offset in the input, output offset of the one kept).
type EhPlaced = (Vec<(u64, u64)>, Vec<(u64, u64)>);

/// A group of [`group_eh_frames`]: the length of its CIE (0 for an FDE's own group), and
/// where the group starts.
struct EhGroup {
    cie_len: u64,
    at: u64,
}

/// A record that may start a group of [`group_eh_frames`].
enum EhStart {
    /// A CIE: its piece, its key (None: one that is never the same as another), its length.
    Cie {
        piece: u32,
        key: Option<CieKey>,
        len: u64,
    },
    /// An FDE whose CIE is not before it in its input.
    Orphan,
}

/// One `.eh_frame` input as [`group_eh_frames`] needs it: the records that may start a
/// group, in order, with the bytes of the FDEs that go with each, and each kept FDE's
/// piece, start (index into `starts`) and length.
struct EhScan {
    starts: Vec<EhStart>,
    fde_bytes: Vec<u64>,
    fdes: Vec<(u32, u32, u64)>,
}

impl EhScan {
    fn new(link: &Link, f: FileId, i: u32, pieces: &[Piece]) -> EhScan {
        let s = &link.objects[f as usize].sections[i as usize];
        let mut scan = EhScan {
            starts: Vec::new(),
            fde_bytes: Vec::new(),
            fdes: Vec::new(),
        };
        // This input's CIEs by offset, with their starts.
        let mut cies: Vec<(u64, u32)> = Vec::new();
        for (j, p) in pieces.iter().enumerate() {
            if p.output_offset == u64::MAX {
                continue;
            }
            let at = p.input_offset as usize;
            let len = eh_record_len(s.data(), at);
            let start = match fde_cie_pointer(s.data(), at) {
                None => {
                    cies.push((p.input_offset, scan.starts.len() as u32));
                    scan.starts.push(EhStart::Cie {
                        piece: j as u32,
                        key: cie_key(link, f, s, p.input_offset, len),
                        len,
                    });
                    continue;
                }
                Some(id) => {
                    let cie_in = (p.input_offset + 4).wrapping_sub(u64::from(id));
                    match cies.iter().find(|c| c.0 == cie_in) {
                        Some(&(_, start)) => start,
                        None => {
                            scan.starts.push(EhStart::Orphan);
                            (scan.starts.len() - 1) as u32
                        }
                    }
                }
            };
            scan.fdes.push((j as u32, start, len));
        }
        scan.fde_bytes = vec![0; scan.starts.len()];
        for &(_, start, len) in &scan.fdes {
            scan.fde_bytes[start as usize] += len;
        }
        scan
    }
}

/// The CIEs placed so far in one output `.eh_frame`, by content. Every object compiled
/// alike starts with the same CIE; GNU ld and lld keep one of each, and so does rld: a
/// later copy is dropped and its FDEs point at the first.
#[derive(Default)]
pub struct CieTable {
    placed: FxHashMap<CieKey, u64>,
}

impl CieTable {
    /// Drops the CIEs of input `sec` of `file` seen before (recording in `aliases` where
    /// their FDEs must point) and moves the pieces after them down. `pieces` are
    /// relative to the input's start, which is at `base` in the output section. Returns the
    /// bytes saved.
    pub fn merge(
        &mut self,
        link: &Link,
        aliases: &mut FxHashMap<(FileId, u32, u64), u64>,
        file: FileId,
        sec: u32,
        pieces: &mut [Piece],
        base: u64,
    ) -> u64 {
        let obj = &link.objects[file as usize];
        let input = &obj.sections[sec as usize];
        let mut removed = 0u64;
        for p in pieces.iter_mut() {
            if p.output_offset == u64::MAX {
                continue;
            }
            p.output_offset -= removed;
            let start = p.input_offset as usize;
            if input.data().get(start + 4..start + 8) != Some(&[0, 0, 0, 0][..]) {
                continue;
            }
            let len = eh_record_len(input.data(), start);
            let Some(key) = cie_key(link, file, input, p.input_offset, len) else {
                continue;
            };
            match self.placed.get(&key) {
                Some(&first) => {
                    aliases.insert((file, sec, p.input_offset), first);
                    p.output_offset = u64::MAX;
                    removed += len;
                }
                None => {
                    self.placed.insert(key, base + p.output_offset);
                }
            }
        }
        removed
    }
}

/// The key of the CIE of `len` bytes at `start` of `input`, or `None` if it must stay
/// where it is: a relocation other than PC-relative could need a dynamic relocation of its
/// own, so only CIEs without one are shared.
fn cie_key(
    link: &Link,
    file: FileId,
    input: &crate::object_file::InputSection,
    start: u64,
    len: u64,
) -> Option<CieKey> {
    let bytes = input.data()[start as usize..(start + len) as usize].to_vec();
    let first = input.relocs().partition_point(|r| r.r_offset(LE) < start);
    let mut relocs = Vec::new();
    for r in &input.relocs()[first..] {
        let offset = r.r_offset(LE);
        if offset >= start + len {
            break;
        }
        let r_type = r.r_type(LE, false);
        if !matches!(r_type, elf::R_X86_64_PC32 | elf::R_X86_64_PC64) {
            return None;
        }
        let target = link.target(file, r.r_sym(LE, false) as usize);
        relocs.push((offset - start, r_type, target, r.r_addend(LE)));
    }
    Some((bytes, relocs))
}

/// Splits an `.eh_frame` input into CIEs and FDEs, dropping FDEs whose function is in a
/// section that is not in the output. Returns the size of what is kept and the number of
/// FDEs kept. Piece output offsets are relative to the start of this input's data.
pub fn split_eh_frame(obj: &ObjectFile, sec_index: usize) -> (Vec<Piece>, u64, usize) {
    let mut pieces = Vec::new();
    let mut out = 0u64;
    let mut fdes = 0;
    let sec = &obj.sections[sec_index];
    let mut records = crate::object_file::eh_frame_records(sec);
    for place in crate::object_file::checked_eh_frame_places(sec.data()) {
        // Input terminators (crtend.o's) are dropped, with any symbol on them (as lld drops
        // `__FRAME_END__`): the output gets one at its very end, after every object's
        // records (the LTO object comes last).
        if place.terminator {
            pieces.push(Piece {
                input_offset: place.start as u64,
                output_offset: u64::MAX,
            });
            continue;
        }
        let Some(record) = records.next() else {
            break;
        };
        // An FDE lives if the function its pc_begin relocation points at lives.
        let keep = record.is_cie
            || record
                .fde_target()
                .is_some_and(|sym| fde_target_live(obj, sym));
        let output_offset = if keep { out } else { u64::MAX };
        pieces.push(Piece {
            input_offset: record.start as u64,
            output_offset,
        });
        if keep {
            out += (record.end - record.start) as u64;
            fdes += usize::from(!record.is_cie);
        }
    }
    (pieces, out, fdes)
}

fn fde_target_live(obj: &ObjectFile, sym: usize) -> bool {
    let s = obj.symbol_section(sym);
    crate::object_file::shndx::is_section(s) && obj.sections[s as usize].is_kept()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(names: &[&str]) -> (OutputSections, Vec<OutputId>) {
        let mut outputs = OutputSections::default();
        let ids = names
            .iter()
            .map(|n| outputs.add(OutputSection::new(n, elf::SHT_PROGBITS, 0)))
            .collect();
        (outputs, ids)
    }

    #[test]
    fn ids_are_given_in_creation_order_and_found_in_place() {
        let (outputs, ids) = named(&[".text", ".data", ".bss"]);
        assert_eq!(ids, vec![OutputId(0), OutputId(1), OutputId(2)]);
        for (k, &id) in ids.iter().enumerate() {
            assert_eq!(outputs.position(id), Some(k));
            assert_eq!(outputs.section(id).id, id);
        }
        assert_eq!(outputs.position(OutputId::NONE), None);
    }

    #[test]
    fn reordering_moves_sections_and_keeps_their_ids() {
        let (mut outputs, ids) = named(&[".text", ".empty", ".data", ".rodata"]);
        // Final order: .rodata, .text, .data; .empty dropped.
        let dropped = outputs.reorder(&[3, 0, 2]);
        assert_eq!(dropped.len(), 1);
        assert_eq!(dropped[0].name, ".empty");
        assert_eq!(dropped[0].id, ids[1]);
        let order: Vec<&str> = outputs.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(order, [".rodata", ".text", ".data"]);
        // Section header indexes follow the final order.
        let indexes: Vec<u32> = outputs.iter().map(|o| o.index).collect();
        assert_eq!(indexes, [1, 2, 3]);
        assert_eq!(outputs.section(ids[0]).name, ".text");
        assert_eq!(outputs.position(ids[0]), Some(1));
        assert_eq!(outputs.section(ids[3]).name, ".rodata");
        assert_eq!(outputs.position(ids[3]), Some(0));
        assert_eq!(outputs.position(ids[1]), None);
        // Sections added afterwards get new ids after the old ones.
        let late = outputs.add(OutputSection::new(".late", elf::SHT_PROGBITS, 0));
        assert_eq!(late, OutputId(4));
        assert_eq!(outputs.position(late), Some(3));
    }
}
