//! A relocatable ELF object (a `.o` or an archive member), read in place from its mapping.
//!
//! Parsing validates what later passes index blindly: section and symbol indices, relocation
//! tables and string offsets. After this, a corrupt object cannot make the linker panic.

use crate::error::{LinkError, Result};
use crate::output_section::OutputId;
use crate::static_ptr::StaticPtr;
use crate::symbols::SymbolId;
use object::elf;
use object::read::elf::Rela as _;
use object::read::elf::{FileHeader, SectionHeader, Sym as _};

/// Byte order of every input (x86-64 is little-endian), as a value for object's accessors.
pub const LE: object::LittleEndian = object::LittleEndian;
pub type Sym = elf::Sym64<object::LittleEndian>;
pub type Rela = elf::Rela64<object::LittleEndian>;
pub type Shdr = elf::SectionHeader64<object::LittleEndian>;

/// Index of an object file in the link (`Link::objects`).
pub type FileId = u32;

/// Sentinel for "not placed in any output section".
pub const NO_OUTPUT: OutputId = OutputId::NONE;

/// How the linker treats one input section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionKind {
    /// Not part of the output: metadata, a losing COMDAT copy, `.note.GNU-stack`, SHF_EXCLUDE.
    Ignored,
    /// Copied as a whole and relocated.
    Regular,
    /// SHF_MERGE: split into pieces that are deduplicated across the link.
    Merge,
    /// `.eh_frame`: split into CIEs and FDEs so FDEs of dead functions can be dropped.
    EhFrame,
}

pub struct InputSection {
    name: StaticPtr<u8>,
    name_len: u32,
    pub sh_type: u32,
    pub flags: u64,
    pub align: u32,
    /// SHF_MERGE's piece size (a larger one would be a corrupt header's: kept as 0, none).
    pub entsize: u16,
    /// Bytes in the output; the contents' length, except for SHT_NOBITS (no contents).
    size: u64,
    data: StaticPtr<u8>,
    relocs: StaticPtr<Rela>,
    relocs_len: u32,
    pub kind: SectionKind,
    /// Set by garbage collection (or for every kept section without `--gc-sections`).
    pub live: bool,
    /// Output section this input is placed in, or [`NO_OUTPUT`].
    pub output: OutputId,
    /// Offset of this input inside its output section.
    pub offset: u64,
    /// For merge and `.eh_frame` sections: the pieces the section was split into.
    pub pieces: Pieces,
}

/// What an input section's header says that its record keeps.
#[derive(Debug, Clone, Copy)]
pub struct SectionAttrs {
    pub sh_type: u32,
    pub flags: u64,
    pub align: u32,
    pub entsize: u16,
}

/// A slice longer than an input-section record keeps a length for (4 Gi names' bytes or
/// relocations: no real object comes near).
#[derive(Debug)]
pub struct TooLong;

impl InputSection {
    /// A section named `name` with contents `data`, or, for SHT_NOBITS, `nobits_size`
    /// bytes and no contents; no relocations yet, placed nowhere yet.
    pub fn new(
        name: &'static str,
        header: SectionAttrs,
        data: &'static [u8],
        nobits_size: u64,
        kind: SectionKind,
    ) -> std::result::Result<InputSection, TooLong> {
        let SectionAttrs {
            sh_type,
            flags,
            align,
            entsize,
        } = header;
        let nobits = sh_type == elf::SHT_NOBITS;
        let (data, size) = if nobits {
            (&[][..], nobits_size)
        } else {
            (data, data.len() as u64)
        };
        Ok(InputSection {
            name: StaticPtr::of(name.as_bytes()),
            name_len: u32::try_from(name.len()).map_err(|_| TooLong)?,
            sh_type,
            flags,
            align,
            entsize,
            size,
            data: StaticPtr::of(data),
            relocs: StaticPtr::of(&[]),
            relocs_len: 0,
            kind,
            live: kind != SectionKind::Ignored,
            output: NO_OUTPUT,
            offset: 0,
            pieces: Pieces::default(),
        })
    }

    pub fn name(&self) -> &'static str {
        // SAFETY: `name` and `name_len` are a `&'static str`'s start and length (`new`).
        let bytes = unsafe { self.name.slice(self.name_len as usize) };
        // SAFETY: the bytes are that `str`'s, whole: valid UTF-8.
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }

    /// Contents; empty for SHT_NOBITS.
    pub fn data(&self) -> &'static [u8] {
        let len = if self.sh_type == elf::SHT_NOBITS {
            0
        } else {
            self.size as usize
        };
        // SAFETY: `data` is the start of a `'static` slice of `size` bytes, or of an empty
        // one for SHT_NOBITS (`new`; neither field changes after).
        unsafe { self.data.slice(len) }
    }

    /// Bytes in the output (SHT_NOBITS: in memory only).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The relocations that apply to this section.
    pub fn relocs(&self) -> &'static [Rela] {
        // SAFETY: `relocs` and `relocs_len` are a `'static` slice's start and length
        // (`new`, `set_relocs`).
        unsafe { self.relocs.slice(self.relocs_len as usize) }
    }

    /// New contents for a section that has some (rewritten in place of the input's).
    pub fn set_data(&mut self, data: &'static [u8]) {
        debug_assert_ne!(self.sh_type, elf::SHT_NOBITS);
        self.size = data.len() as u64;
        self.data = StaticPtr::of(data);
    }

    pub fn set_relocs(&mut self, relocs: &'static [Rela]) -> std::result::Result<(), TooLong> {
        self.relocs_len = u32::try_from(relocs.len()).map_err(|_| TooLong)?;
        self.relocs = StaticPtr::of(relocs);
        Ok(())
    }
}

/// The pieces a section was split into. Most sections have none, so the list sits behind
/// one thin pointer: a large link holds hundreds of thousands of input sections.
#[derive(Default)]
// The box is the point: one word (a `Vec` is three, a boxed slice two) for the sections
// that have no pieces.
#[allow(clippy::box_collection)]
pub struct Pieces(Option<Box<Vec<Piece>>>);

impl From<Vec<Piece>> for Pieces {
    fn from(pieces: Vec<Piece>) -> Pieces {
        Pieces((!pieces.is_empty()).then(|| Box::new(pieces)))
    }
}

impl std::ops::Deref for Pieces {
    type Target = [Piece];
    fn deref(&self) -> &[Piece] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

impl std::ops::DerefMut for Pieces {
    fn deref_mut(&mut self) -> &mut [Piece] {
        match &mut self.0 {
            Some(pieces) => pieces.as_mut_slice(),
            None => &mut [],
        }
    }
}

/// A piece of a split section (a string, a constant, a CIE or an FDE).
#[derive(Debug, Clone, Copy)]
pub struct Piece {
    pub input_offset: u64,
    /// Offset inside the output section, or `u64::MAX` if the piece was dropped.
    pub output_offset: u64,
}

impl InputSection {
    /// Maps an offset inside this (split) section to an offset in its output section.
    pub fn piece_output_offset(&self, input_offset: u64) -> Option<u64> {
        let i = self
            .pieces
            .partition_point(|p| p.input_offset <= input_offset)
            .checked_sub(1)?;
        let p = self.pieces[i];
        if p.output_offset == u64::MAX {
            return None;
        }
        Some(p.output_offset + (input_offset - p.input_offset))
    }
}

impl InputSection {
    pub fn is_alloc(&self) -> bool {
        self.flags & u64::from(elf::SHF_ALLOC) != 0
    }

    /// Whether this section's contents end up in the output.
    pub fn is_kept(&self) -> bool {
        self.kind != SectionKind::Ignored && self.live
    }
}

/// A COMDAT group: only the first object to define a signature keeps its members.
pub struct ComdatGroup {
    pub signature: &'static [u8],
    /// `name_table::name_hash` of the signature, computed where the object is parsed (off
    /// the resolving thread, which looks up every group of a C++ link).
    pub hash: u64,
    /// The symbol naming the group (`sh_info` of its section), which `-r` output keeps.
    pub signature_symbol: u32,
    pub members: GroupMembers,
}

/// The section indices of a COMDAT group, read in place from its section (every one
/// checked to be a section of the object when it was parsed): a C++ object has a group
/// per inline function, and a list of its own for each would be an allocation each.
#[derive(Clone, Copy)]
pub struct GroupMembers(&'static [object::U32<object::LittleEndian>]);

impl GroupMembers {
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().map(|m| m.get(LE))
    }
}

pub struct ObjectFile {
    /// Display name: `path` or `archive.a(member.o)`.
    pub name: String,
    pub data: &'static [u8],
    pub sections: Vec<InputSection>,
    pub symbols: &'static [Sym],
    /// Resolved SHN_XINDEX section indices, parallel to `symbols` (empty if none are extended).
    pub symbol_shndx: Vec<u32>,
    pub strtab: &'static [u8],
    /// Index of the first global symbol (the symbol table's sh_info).
    pub first_global: usize,
    /// Global symbol ids for symbols `first_global..`.
    pub globals: Vec<SymbolId>,
    pub comdat_groups: Vec<ComdatGroup>,
    /// The allocatable members of COMDAT groups with two or more, each with the member
    /// after it (the last with the first), by member: `--gc-sections` keeps such a group
    /// whole, as lld and GNU ld do (a static variable and its guard, a class's
    /// destructors, a function and its LSDA). Usually empty.
    pub group_ring: Vec<(u32, u32)>,
    /// The libraries its `.deplibs` names (clang's `#pragma comment(lib, "m")`), which the
    /// link adds after the command line's inputs as lld does.
    pub dependent_libraries: Vec<&'static [u8]>,
    /// GNU_PROPERTY_X86_FEATURE_1_AND of `.note.gnu.property`, if present.
    pub x86_features: Option<u32>,
    /// GNU_PROPERTY_X86_ISA_1_NEEDED of `.note.gnu.property` (0 if absent).
    pub x86_isa_needed: u32,
    /// Made by rld's own LTO: its locals may carry the names partitions share
    /// (`summaries::partition::shared_name`).
    pub from_lto: bool,
    /// Its `.eh_frame` sections (most objects have one or none), found once here rather
    /// than by scanning every section of a large link again.
    pub eh_frames: Vec<u32>,
    /// Its SHF_MERGE sections ([`SectionKind::Merge`] when parsed), for the same reason.
    pub merges: Vec<u32>,
    /// Only gcc's IR is inside (`__gnu_lto_slim`): a final link cannot use it without gcc's
    /// plugin ([`ObjectFile::refuse_gcc_lto_slim`]); `-r` copies it.
    pub gcc_lto_slim: bool,
    /// gcc's `-fsplit-stack` notes: `.note.GNU-split-stack` (its functions check their
    /// stack), `.note.GNU-no-split-stack` (some do not). See `split_stack`.
    pub split_stack: bool,
    pub some_no_split_stack: bool,
    /// SHF_LINK_ORDER sections and the section each is linked to (sh_link), by section:
    /// metadata about code (`.llvm_bb_addr_map`, `.stack_sizes`,
    /// `__patchable_function_entries`, `__sancov_pcs`) that lives, and is ordered, with it.
    pub link_order: Vec<(u32, u32)>,
    /// The call graph profile (`.llvm.call-graph-profile`, written by LLVM when the code
    /// was compiled with a profile): caller and callee symbol indices and the call count.
    pub call_graph: Vec<CallGraphEdge>,
}

/// One entry of an object's `.llvm.call-graph-profile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallGraphEdge {
    pub from: u32,
    pub to: u32,
    pub weight: u64,
}

/// One CIE or FDE of an `.eh_frame` section, with the relocations inside it.
pub struct EhRecord {
    pub start: usize,
    pub end: usize,
    pub is_cie: bool,
    pub relocs: &'static [Rela],
}

impl EhRecord {
    /// For an FDE: the symbol of its start address (the relocation at offset 8).
    pub fn fde_target(&self) -> Option<usize> {
        let first = self.relocs.first()?;
        (!self.is_cie && first.r_offset(LE) as usize == self.start + 8)
            .then(|| first.r_sym(LE, false) as usize)
    }
}

/// Where one CIE, FDE or terminator lies in `.eh_frame` data, and a record's CIE id word
/// (0 for a CIE, the distance back to its CIE for an FDE).
#[derive(Debug, Clone, Copy)]
pub struct EhPlace {
    pub start: usize,
    pub end: usize,
    pub id: u32,
    /// A zero terminator (4 bytes), not a record: crtend.o's, or one `ld -r` left between
    /// records.
    pub terminator: bool,
}

/// The records and terminators of `.eh_frame` data in order, read with gimli's CFI reader:
/// each CIE parsed whole (version, augmentation), each FDE's CIE pointer resolved. A record
/// gimli cannot read, that does not fit the data, or that uses the 64-bit format x86-64
/// never emits, ends the walk with an error. Zero terminators are walked over (gimli's own
/// iterator would stop at the first), as `ld -r` can leave them between records.
pub fn eh_frame_places(
    data: &[u8],
) -> impl Iterator<Item = std::result::Result<EhPlace, String>> + '_ {
    use gimli::UnwindSection as _;
    let section = gimli::EhFrame::new(data, gimli::LittleEndian);
    // Pointers in CIE augmentations (the personality routine) are read relative to these;
    // their values are never used (relocations give them), but a relative one needs a base.
    let bases = gimli::BaseAddresses::default()
        .set_eh_frame(0)
        .set_text(0)
        .set_got(0);
    let mut pos = 0usize;
    let mut failed = false;
    std::iter::from_fn(move || {
        if failed || pos + 4 > data.len() {
            return None;
        }
        let at = pos;
        let len = u32::from_le_bytes(data[at..at + 4].try_into().ok()?);
        if len == 0 {
            pos += 4;
            return Some(Ok(EhPlace {
                start: at,
                end: pos,
                id: 0,
                terminator: true,
            }));
        }
        let result = if len == u32::MAX {
            Err(format!("64-bit record at offset {at:#x}"))
        } else if len < 4 || at + 4 + len as usize > data.len() {
            Err(format!("record at offset {at:#x} extends past the section"))
        } else {
            let end = at + 4 + len as usize;
            let offset = gimli::EhFrameOffset(at);
            match section.partial_fde_from_offset(&bases, offset) {
                Ok(fde) => Ok(EhPlace {
                    start: at,
                    end,
                    // The pointer is the distance back from its own field to the CIE.
                    id: (at + 4 - fde.cie_offset().0) as u32,
                    terminator: false,
                }),
                Err(gimli::Error::NotCiePointer(_)) => section
                    .cie_from_offset(&bases, offset)
                    .map(|_| EhPlace {
                        start: at,
                        end,
                        id: 0,
                        terminator: false,
                    })
                    .map_err(|e| format!("CIE at offset {at:#x}: {e}")),
                Err(gimli::Error::OffsetOutOfBounds(_)) => {
                    Err(format!("FDE at offset {at:#x} points to no CIE before it"))
                }
                Err(e) => Err(format!("record at offset {at:#x}: {e}")),
            }
        };
        failed = result.is_err();
        pos = at + 4 + len as usize;
        Some(result)
    })
}

/// The records of `.eh_frame` section `s` in order (terminators skipped), each with its
/// relocations (sorted by offset, as assemblers write them). The section was checked when
/// it was read.
pub fn eh_frame_records(s: &InputSection) -> impl Iterator<Item = EhRecord> + '_ {
    let mut ri = 0usize;
    let places = checked_eh_frame_places(s.data());
    places.filter(|p| !p.terminator).map(move |place| {
        while ri < s.relocs().len() && (s.relocs()[ri].r_offset(LE) as usize) < place.start {
            ri += 1;
        }
        let first = ri;
        while ri < s.relocs().len() && (s.relocs()[ri].r_offset(LE) as usize) < place.end {
            ri += 1;
        }
        EhRecord {
            start: place.start,
            end: place.end,
            is_cie: place.id == 0,
            relocs: &s.relocs()[first..ri],
        }
    })
}

/// The records and terminators of `.eh_frame` data that [`check_eh_frame`] accepted when
/// its object was read, as [`eh_frame_places`] gives them: their lengths and CIE id words
/// are then known to be right and are read as they are, without parsing each CIE and FDE
/// again (gimli's walk, once each for garbage collection, ICF and splitting, took a tenth
/// of a large link's `--gc-sections`). On data that was not checked, the walk stops at the
/// first record that does not fit.
pub fn checked_eh_frame_places(data: &[u8]) -> impl Iterator<Item = EhPlace> + '_ {
    let mut pos = 0usize;
    std::iter::from_fn(move || {
        let at = pos;
        let word = |i: usize| -> Option<u32> {
            let bytes = data.get(i..i.checked_add(4)?)?;
            Some(u32::from_le_bytes(bytes.try_into().ok()?))
        };
        let len = word(at)? as usize;
        if len == 0 {
            pos = at + 4;
            return Some(EhPlace {
                start: at,
                end: pos,
                id: 0,
                terminator: true,
            });
        }
        let end = (at + 4)
            .checked_add(len)
            .filter(|&end| end <= data.len() && len >= 4)?;
        pos = end;
        Some(EhPlace {
            start: at,
            end,
            // A CIE's id word is 0; an FDE's is the distance back to its CIE (checked).
            id: word(at + 4)?,
            terminator: false,
        })
    })
}

/// The structure the linker relies on when it splits `.eh_frame` into records and points
/// each FDE at its (possibly merged) CIE: records that fit the section, and each FDE's CIE
/// pointer naming the start of a CIE before it.
fn check_eh_frame(data: &[u8]) -> std::result::Result<(), String> {
    // The records come in order of their offsets, so the CIEs' list is sorted (and an
    // object has one or two: no set is worth building).
    let mut cies = Vec::new();
    for place in eh_frame_places(data) {
        let place = place?;
        if place.terminator {
            continue;
        }
        if place.id == 0 {
            cies.push(place.start);
        } else {
            let cie = (place.start + 4).checked_sub(place.id as usize);
            if cie.is_none_or(|c| cies.binary_search(&c).is_err()) {
                return Err(format!(
                    "FDE at offset {:#x} points to no CIE before it",
                    place.start
                ));
            }
        }
    }
    Ok(())
}

fn bad(name: &str, msg: impl std::fmt::Display) -> LinkError {
    LinkError::bad_input(name, msg)
}

/// Reads a NUL-terminated name from a string table, bounds-checked.
pub fn read_str(table: &'static [u8], offset: u32) -> Option<&'static [u8]> {
    let rest = table.get(offset as usize..)?;
    // C++ names are long, and every symbol's is read when an object is parsed.
    let end = memchr::memchr(0, rest)?;
    Some(&rest[..end])
}

/// The NUL-terminated name at `offset` of a string table known to be UTF-8; None where
/// the offset is past the end or not on a character boundary, or no NUL ends the name.
fn read_name(table: &'static str, offset: u32) -> Option<&'static str> {
    let rest = table.get(offset as usize..)?;
    let end = memchr::memchr(0, rest.as_bytes())?;
    // A NUL is one byte and never inside a character: the cut is on a boundary.
    Some(&rest[..end])
}

impl ObjectFile {
    pub fn parse(name: String, data: &'static [u8]) -> Result<ObjectFile> {
        let header = elf::FileHeader64::<object::LittleEndian>::parse(data)
            .map_err(|e| bad(&name, format!("not a valid ELF64 object: {e}")))?;
        // FileHeader64<LittleEndian> rejects big-endian files here.
        header
            .endian()
            .map_err(|_| bad(&name, "big-endian ELF is not supported"))?;
        if header.e_machine.get(LE) != elf::EM_X86_64 {
            return Err(bad(
                &name,
                format!(
                    "incompatible machine type {} (only x86-64 is supported)",
                    header.e_machine.get(LE)
                ),
            ));
        }
        if header.e_type.get(LE) != elf::ET_REL {
            return Err(bad(&name, "not a relocatable object"));
        }
        let section_table = header
            .sections(LE, data)
            .map_err(|e| bad(&name, format!("bad section headers: {e}")))?;
        let headers: &'static [Shdr] = section_table.iter().as_slice();
        // Section names read with `read_str` (memchr) rather than byte by byte.
        let shstrtab: &'static [u8] = header
            .shstrndx(LE, data)
            .ok()
            .and_then(|i| headers.get(i as usize))
            .and_then(|sh| sh.data(LE, data).ok())
            .unwrap_or_default();

        // The symbol table; an object without one is legal (e.g. only data, no symbols).
        let mut symbols: &'static [Sym] = &[];
        let mut strtab: &'static [u8] = &[];
        let mut first_global = 0usize;
        let mut symtab_index = 0usize;
        let mut shndx_table: &'static [object::U32<object::LittleEndian>] = &[];
        for (i, sh) in headers.iter().enumerate() {
            match sh.sh_type(LE) {
                elf::SHT_SYMTAB => {
                    symbols = sh
                        .data_as_array(LE, data)
                        .map_err(|_| bad(&name, "symbol table extends past end of file"))?;
                    let link = sh.sh_link(LE) as usize;
                    let str_sh = headers.get(link).ok_or_else(|| {
                        bad(&name, "symbol table links to a missing string table")
                    })?;
                    strtab = str_sh
                        .data(LE, data)
                        .map_err(|_| bad(&name, "string table extends past end of file"))?;
                    first_global = sh.sh_info(LE) as usize;
                    if first_global > symbols.len() {
                        return Err(bad(&name, "symbol table sh_info is out of range"));
                    }
                    symtab_index = i;
                }
                elf::SHT_SYMTAB_SHNDX => {
                    shndx_table = sh
                        .data_as_array(LE, data)
                        .map_err(|_| bad(&name, "SHT_SYMTAB_SHNDX extends past end of file"))?;
                }
                _ => {}
            }
        }
        let gcc_lto_slim = defines_gcc_lto_slim(symbols, strtab);
        let symbol_shndx = if shndx_table.is_empty() {
            Vec::new()
        } else {
            (0..symbols.len())
                .map(|i| shndx_table.get(i).map_or(0, |v| v.get(LE)))
                .collect()
        };

        // The section names' table checked as UTF-8 once: a large object's names are long
        // (`.text.` and a mangled C++ name), and checking each on its own costs a tenth of
        // parsing. A name in a valid table is valid wherever it starts on a character.
        let shstrtab_text = std::str::from_utf8(shstrtab).ok();
        let mut sections = Vec::with_capacity(headers.len());
        let (mut split_stack, mut some_no_split_stack) = (false, false);
        for (i, sh) in headers.iter().enumerate() {
            let sec_name = match shstrtab_text.and_then(|t| read_name(t, sh.sh_name(LE))) {
                Some(n) => n,
                None => {
                    let n = read_str(shstrtab, sh.sh_name(LE))
                        .ok_or_else(|| bad(&name, format!("section {i} has a bad name offset")))?;
                    std::str::from_utf8(n)
                        .map_err(|_| bad(&name, format!("section {i} name is not UTF-8")))?
                }
            };
            let sh_type = sh.sh_type(LE);
            let flags = sh.sh_flags(LE);
            let size = sh.sh_size(LE);
            let section_data: &'static [u8] = if sh_type == elf::SHT_NOBITS {
                &[]
            } else {
                sh.data(LE, data).map_err(|_| {
                    bad(
                        &name,
                        format!("section {sec_name} extends past the end of the file"),
                    )
                })?
            };
            // Debug sections compressed by `-gz`: linked as their uncompressed contents.
            let (sec_name, flags, size, section_data, compressed_align) =
                match crate::compressed::inflate(sec_name, flags, section_data) {
                    Ok(Some(d)) => (d.name, d.flags, d.data.len() as u64, d.data, Some(d.align)),
                    Ok(None) => (sec_name, flags, size, section_data, None),
                    Err(msg) => return Err(bad(&name, format!("section {sec_name}: {msg}"))),
                };
            let align = sh.sh_addralign(LE).max(1);
            if !align.is_power_of_two() {
                return Err(bad(
                    &name,
                    format!("section {sec_name} has a non-power-of-two alignment"),
                ));
            }
            // lld's limit: more than 4 GiB of alignment would only pad the output with
            // gigabytes (or overflow its layout).
            if align > u64::from(u32::MAX) {
                return Err(bad(
                    &name,
                    format!("section {sec_name} has an alignment of {align}, which is too large"),
                ));
            }
            let kind = classify_section(sec_name, sh_type, flags, i == 0);
            if kind == SectionKind::Ignored {
                split_stack |= sec_name == SPLIT_STACK_NOTE;
                some_no_split_stack |= sec_name == NO_SPLIT_STACK_NOTE;
            }
            // At most 4 GiB (checked above). Outside the memory image, alignment only pads
            // the file: past a page it is only a corrupt header's way of making the output
            // gigabytes long.
            let align = if flags & u64::from(elf::SHF_ALLOC) != 0 {
                align as u32
            } else {
                compressed_align.unwrap_or(align).clamp(1, 4096) as u32
            };
            let entsize = u16::try_from(sh.sh_entsize(LE)).unwrap_or(0);
            let attrs = SectionAttrs {
                sh_type,
                flags,
                align,
                entsize,
            };
            let section = InputSection::new(sec_name, attrs, section_data, size, kind)
                .map_err(|TooLong| bad(&name, format!("section {i} has a name too long")))?;
            sections.push(section);
        }

        let link_order = headers
            .iter()
            .enumerate()
            .filter(|(_, sh)| sh.sh_flags(LE) & u64::from(elf::SHF_LINK_ORDER) != 0)
            .filter_map(|(i, sh)| {
                let parent = sh.sh_link(LE) as usize;
                (parent != 0 && parent < sections.len() && parent != i)
                    .then_some((i as u32, parent as u32))
            })
            .collect();

        let call_graph = read_call_graph(headers, data, symbols.len())
            .map_err(|msg| bad(&name, format!(".llvm.call-graph-profile: {msg}")))?;

        let (mut eh_frames, mut merges) = (Vec::new(), Vec::new());
        for (i, s) in sections.iter().enumerate() {
            match s.kind {
                SectionKind::EhFrame => {
                    check_eh_frame(s.data())
                        .map_err(|msg| bad(&name, format!("corrupt .eh_frame: {msg}")))?;
                    eh_frames.push(i as u32);
                }
                SectionKind::Merge => merges.push(i as u32),
                _ => {}
            }
        }

        // Attach relocation tables to the sections they apply to.
        let mut comdat_groups = Vec::new();
        let mut group_ring = Vec::new();
        let mut dependent_libraries = Vec::new();
        let mut x86_features = None;
        let mut x86_isa_needed = 0;
        for (i, sh) in headers.iter().enumerate() {
            match sh.sh_type(LE) {
                elf::SHT_RELA => {
                    let target = sh.sh_info(LE) as usize;
                    if target >= sections.len() {
                        return Err(bad(
                            &name,
                            format!("relocation section {i} targets a missing section"),
                        ));
                    }
                    let relocs: &'static [Rela] = sh.data_as_array(LE, data).map_err(|_| {
                        bad(
                            &name,
                            format!("relocation section {i} extends past end of file"),
                        )
                    })?;
                    for r in relocs {
                        if r.r_sym(LE, false) as usize >= symbols.len() {
                            return Err(bad(
                                &name,
                                format!(
                                    "relocation in {} refers to symbol index {} out of range",
                                    sections[target].name(),
                                    r.r_sym(LE, false)
                                ),
                            ));
                        }
                        if r.r_offset(LE) > sections[target].size {
                            return Err(bad(
                                &name,
                                format!(
                                    "relocation offset {:#x} is outside section {}",
                                    r.r_offset(LE),
                                    sections[target].name()
                                ),
                            ));
                        }
                    }
                    sections[target].set_relocs(relocs).map_err(|TooLong| {
                        bad(
                            &name,
                            format!("relocation section {i} has too many entries"),
                        )
                    })?;
                }
                elf::SHT_REL
                    if sections[sh.sh_info(LE) as usize % sections.len().max(1)].is_alloc() =>
                {
                    return Err(bad(
                        &name,
                        "SHT_REL relocations are not supported on x86-64",
                    ));
                }
                elf::SHT_GROUP => {
                    let words: &'static [object::U32<object::LittleEndian>] = sh
                        .data_as_array(LE, data)
                        .map_err(|_| bad(&name, "group section extends past end of file"))?;
                    let Some((flag, members)) = words.split_first() else {
                        continue;
                    };
                    if flag.get(LE) & elf::GRP_COMDAT == 0 {
                        continue;
                    }
                    let sig_index = sh.sh_info(LE) as usize;
                    let sym = symbols
                        .get(sig_index)
                        .ok_or_else(|| bad(&name, "group signature symbol out of range"))?;
                    let signature = read_str(strtab, sym.st_name(LE))
                        .ok_or_else(|| bad(&name, "group signature has a bad name"))?;
                    let members = GroupMembers(members);
                    // The allocatable members, each to the next and the last to the first.
                    let (mut first, mut last) = (None, None);
                    for m in members.iter() {
                        let member = sections
                            .get(m as usize)
                            .ok_or_else(|| bad(&name, "group member section out of range"))?;
                        if member.is_alloc() && member.kind != SectionKind::Ignored {
                            match last {
                                Some(l) => group_ring.push((l, m)),
                                None => first = Some(m),
                            }
                            last = Some(m);
                        }
                    }
                    if let (Some(first), Some(last)) = (first, last) {
                        if first != last {
                            group_ring.push((last, first));
                        }
                    }
                    comdat_groups.push(ComdatGroup {
                        signature,
                        hash: crate::name_table::name_hash(signature),
                        signature_symbol: sig_index as u32,
                        members,
                    });
                }
                SHT_LLVM_DEPENDENT_LIBRARIES => dependent_libraries.extend(
                    sections[i]
                        .data()
                        .split(|&b| b == 0)
                        .filter(|name| !name.is_empty()),
                ),
                elf::SHT_NOTE if sections[i].name() == ".note.gnu.property" => {
                    let data = sections[i].data();
                    let and = gnu_property(data, elf::GNU_PROPERTY_X86_FEATURE_1_AND);
                    x86_features = Some(and.unwrap_or(0));
                    x86_isa_needed =
                        gnu_property(data, elf::GNU_PROPERTY_X86_ISA_1_NEEDED).unwrap_or(0);
                    sections[i].kind = SectionKind::Ignored;
                    sections[i].live = false;
                }
                _ => {}
            }
        }
        if symtab_index != 0 {
            sections[symtab_index].kind = SectionKind::Ignored;
        }

        // Validate every symbol's name and section index once, so later passes need not.
        // A string table that ends with a NUL (lld requires it too) holds a terminated
        // name at each offset inside it: no name needs reading here.
        if !symbols.is_empty() && strtab.last() != Some(&0) {
            return Err(bad(&name, "symbol string table is not null-terminated"));
        }
        for (i, sym) in symbols.iter().enumerate() {
            if sym.st_name(LE) as usize >= strtab.len() {
                return Err(bad(&name, format!("symbol {i} has a bad name offset")));
            }
            let shndx = resolve_shndx(sym, &symbol_shndx, i);
            if shndx::is_section(shndx) && shndx as usize >= sections.len() {
                return Err(bad(
                    &name,
                    format!("symbol {i} refers to section {shndx}, which does not exist"),
                ));
            }
            // A common symbol's value is its alignment (lld's limits: an alignment of 4 GiB
            // or more would only pad .bss, and the file after it, with gigabytes).
            let align = sym.st_value(LE);
            if shndx == shndx::COMMON && (align == 0 || align >= u64::from(u32::MAX)) {
                let sym_name = read_str(strtab, sym.st_name(LE)).unwrap_or_default();
                return Err(bad(
                    &name,
                    format!(
                        "common symbol '{}' has invalid alignment: {align}",
                        String::from_utf8_lossy(sym_name)
                    ),
                ));
            }
        }

        Ok(ObjectFile {
            name,
            data,
            sections,
            symbols,
            symbol_shndx,
            strtab,
            first_global,
            globals: Vec::new(),
            comdat_groups,
            group_ring: {
                group_ring.sort_unstable();
                group_ring
            },
            dependent_libraries,
            x86_features,
            x86_isa_needed,
            from_lto: false,
            eh_frames,
            merges,
            gcc_lto_slim,
            split_stack,
            some_no_split_stack,
            link_order,
            call_graph,
        })
    }

    /// The file a section of this object is shown as coming from: the object's name, or
    /// `<internal>` for the section the linker added (its `.comment` line).
    pub fn owner_of(&self, sec: &InputSection) -> &str {
        if crate::comment::is_linker_line(sec) {
            "<internal>"
        } else {
            &self.name
        }
    }

    /// The other allocatable members of the COMDAT group `section` is in, in ring order
    /// from the one after it (none unless the group has two or more:
    /// [`ObjectFile::group_ring`]). Bounded by the ring's length: a malformed object may put
    /// a section in two groups, whose rings then need not lead back to it.
    pub fn group_members_after(&self, section: u32) -> impl Iterator<Item = u32> + '_ {
        let next = move |at: &u32| {
            let i = self.group_ring.binary_search_by_key(at, |&(s, _)| s).ok()?;
            Some(self.group_ring[i].1).filter(|&n| n != section)
        };
        let first = if self.group_ring.is_empty() {
            None
        } else {
            next(&section)
        };
        std::iter::successors(first, next).take(self.group_ring.len())
    }

    /// The section SHF_LINK_ORDER section `section` is linked to, if it is one.
    pub fn link_order_parent(&self, section: u32) -> Option<u32> {
        let at = self
            .link_order
            .binary_search_by_key(&section, |&(s, _)| s)
            .ok()?;
        Some(self.link_order[at].1)
    }

    pub fn symbol_name(&self, index: usize) -> &'static [u8] {
        read_str(self.strtab, self.symbols[index].st_name(LE)).unwrap_or_default()
    }

    /// A symbol's name and where its first `@` is (`.symver`), found in one pass.
    pub fn symbol_name_and_at(&self, index: usize) -> (&'static [u8], Option<usize>) {
        let rest = self
            .strtab
            .get(self.symbols[index].st_name(LE) as usize..)
            .unwrap_or_default();
        match memchr::memchr2(0, b'@', rest) {
            Some(end) if rest[end] == 0 => (&rest[..end], None),
            Some(at) => {
                let end = memchr::memchr(0, &rest[at..]).map_or(rest.len(), |n| at + n);
                (&rest[..end], Some(at))
            }
            // Not terminated: `parse` rejects such a table.
            None => (&[], None),
        }
    }

    /// The section index of a symbol, with SHN_XINDEX resolved.
    pub fn symbol_section(&self, index: usize) -> u32 {
        resolve_shndx(&self.symbols[index], &self.symbol_shndx, index)
    }

    /// Whether symbol `index` is a strong (not weak) undefined reference: one that loads
    /// the archive member defining it.
    pub fn is_strong_undefined(&self, index: usize) -> bool {
        self.symbol_section(index) == shndx::UNDEF && self.symbols[index].st_bind() != elf::STB_WEAK
    }

    /// Where a reference at `offset` of section `sec` is, as lld words it in diagnostics:
    /// `file.o:(function)` when a function symbol covers it, else `file.o:(.sec+0xOFF)`;
    /// preceded by the source file's name (its STT_FILE symbol) when it has one.
    pub fn location(&self, sec: u32, offset: u64) -> String {
        let function = (1..self.symbols.len()).find(|&i| {
            let s = &self.symbols[i];
            s.st_type() == elf::STT_FUNC
                && self.symbol_section(i) == sec
                && (s.st_value(LE)..s.st_value(LE).saturating_add(s.st_size(LE))).contains(&offset)
        });
        let place = match function {
            Some(i) => format!(
                "{}:({})",
                self.name,
                crate::demangle::display(self.symbol_name(i))
            ),
            None => format!(
                "{}:({}+{offset:#x})",
                self.name,
                self.sections.get(sec as usize).map_or("", |s| s.name())
            ),
        };
        // The source line from the DWARF line table if there is one, as lld; else the
        // source file the STT_FILE symbol names.
        let source = crate::source_line::line_of(self, sec, offset)
            .map(|(path, line)| crate::source_line::describe(&path, line))
            .or_else(|| {
                (1..self.first_global)
                    .find(|&i| self.symbols[i].st_type() == elf::STT_FILE)
                    .map(|i| String::from_utf8_lossy(self.symbol_name(i)).into_owned())
                    .filter(|n| !n.is_empty())
            });
        match source {
            Some(src) => format!("{src}\n>>>               {place}"),
            None => place,
        }
    }

    pub fn global_index(&self, sym_index: usize) -> Option<SymbolId> {
        sym_index
            .checked_sub(self.first_global)
            .and_then(|i| self.globals.get(i).copied())
    }
}

/// Where a symbol is, as [`ObjectFile::symbol_section`] gives it: `st_shndx` with SHN_XINDEX
/// looked up in `.symtab_shndx`, and the special indices moved past every real one, so that
/// a section numbered 65,280 or more (in an object with that many sections) is never taken
/// for one of them.
pub mod shndx {
    pub const UNDEF: u32 = 0;
    /// SHN_ABS, and the processor- and OS-specific indices, which GNU ld and lld both take
    /// as absolute.
    pub const ABS: u32 = u32::MAX;
    /// SHN_COMMON (and x86-64's large common).
    pub const COMMON: u32 = u32::MAX - 1;

    /// Whether `i` names one of the object's sections.
    pub fn is_section(i: u32) -> bool {
        i != UNDEF && i < COMMON
    }
}

/// The `.symtab` of an ELF object, or `None` if the bytes are not one that can be read: for
/// quick looks at a file's symbols (archive members, the front door) before it is parsed.
pub fn elf_symbol_table(
    data: &[u8],
) -> Option<object::read::elf::SymbolTable<'_, elf::FileHeader64<object::LittleEndian>>> {
    let header = elf::FileHeader64::<object::LittleEndian>::parse(data).ok()?;
    let sections = header.sections(LE, data).ok()?;
    sections.symbols(LE, data, elf::SHT_SYMTAB).ok()
}

const SHT_LLVM_ODRTAB: u32 = 0x6fff_4c00;
/// The last of the ones lld consumes in a row: linker options, the old call graph
/// profile, `.llvm_addrsig`, `.deplibs`, partitions' symbols, headers and program headers.
const SHT_LLVM_PART_PHDR: u32 = 0x6fff_4c07;
const SHT_LLVM_DEPENDENT_LIBRARIES: u32 = 0x6fff_4c04;
const SHT_LLVM_CALL_GRAPH_PROFILE: u32 = 0x6fff_4c09;
const SHT_LLVM_LTO: u32 = 0x6fff_4c0c;

/// The entries of an object's call graph profile: the section holds a 64-bit count per
/// entry, and its relocation section (REL, as LLVM writes it on every target; RELA read
/// too) two R_X86_64_NONE relocations per entry, naming the caller then the callee.
fn read_call_graph(
    headers: &'static [Shdr],
    data: &'static [u8],
    symbol_count: usize,
) -> std::result::Result<Vec<CallGraphEdge>, String> {
    let Some(cg) = headers
        .iter()
        .position(|sh| sh.sh_type(LE) == SHT_LLVM_CALL_GRAPH_PROFILE)
    else {
        return Ok(Vec::new());
    };
    let weights: &[object::U64<object::LittleEndian>] = headers[cg]
        .data_as_array(LE, data)
        .map_err(|_| "extends past the end of the file".to_string())?;
    let mut symbols: Vec<u32> = Vec::new();
    for sh in headers.iter().filter(|sh| sh.sh_info(LE) as usize == cg) {
        let entry = match sh.sh_type(LE) {
            elf::SHT_REL => 16,
            elf::SHT_RELA => 24,
            _ => continue,
        };
        let bytes = sh
            .data(LE, data)
            .map_err(|_| "its relocations extend past the end of the file".to_string())?;
        // r_info's high half is the symbol index, in REL and RELA alike.
        symbols.extend(
            bytes
                .chunks_exact(entry)
                .map(|r| u32::from_le_bytes([r[12], r[13], r[14], r[15]])),
        );
    }
    if symbols.iter().any(|&s| s as usize >= symbol_count) {
        return Err("a relocation names a symbol out of range".into());
    }
    Ok(weights
        .iter()
        .zip(symbols.chunks_exact(2))
        .map(|(w, pair)| CallGraphEdge {
            from: pair[0],
            to: pair[1],
            weight: w.get(LE),
        })
        .collect())
}

/// x86-64's large common symbols (the psABI's medium and large code models).
const SHN_X86_64_LCOMMON: u16 = 0xff02;

fn resolve_shndx(sym: &Sym, shndx_table: &[u32], index: usize) -> u32 {
    match sym.st_shndx(LE) {
        elf::SHN_XINDEX => shndx_table.get(index).copied().unwrap_or(shndx::UNDEF),
        elf::SHN_UNDEF => shndx::UNDEF,
        elf::SHN_COMMON | SHN_X86_64_LCOMMON => shndx::COMMON,
        s if s >= elf::SHN_LORESERVE => shndx::ABS,
        s => u32::from(s),
    }
}

impl ObjectFile {
    /// The error for an object holding only gcc's IR in a final link: linking its empty
    /// native part would fail later with an undefined symbol that names the wrong problem
    /// (GNU ld: "plugin needed").
    pub fn refuse_gcc_lto_slim(&self) -> Result<()> {
        if !self.gcc_lto_slim {
            return Ok(());
        }
        Err(bad(
            &self.name,
            "GCC LTO object (gcc -flto) holding only GCC's IR, which rld does not read: \
             build it without -flto, with -ffat-lto-objects, or with clang -flto",
        ))
    }

    /// Takes the SHF_EXCLUDE sections a final link leaves out into the link (for `-r`),
    /// those that would otherwise be copied whole: the rest of what parsing ignores stays
    /// ignored (relocation and symbol tables, LLVM's metadata the linker consumes).
    pub fn keep_excluded_sections(&mut self) {
        let exclude = u64::from(elf::SHF_EXCLUDE);
        for s in self.sections.iter_mut().skip(1) {
            // `.deplibs` too: the final link adds the libraries (lld's `-r` keeps it); and
            // the split-stack notes, which tell it how the code checks its stack.
            if s.sh_type == SHT_LLVM_DEPENDENT_LIBRARIES
                || s.name() == SPLIT_STACK_NOTE
                || s.name() == NO_SPLIT_STACK_NOTE
            {
                s.kind = SectionKind::Regular;
                s.live = true;
                continue;
            }
            if s.kind == SectionKind::Ignored
                && s.flags & exclude != 0
                && classify_section(s.name(), s.sh_type, s.flags & !exclude, false)
                    == SectionKind::Regular
            {
                s.kind = SectionKind::Regular;
                s.live = true;
            }
        }
    }

    /// `-O0`: SHF_MERGE sections are copied whole, as other sections are (lld's `-O0`, for
    /// a faster link; the output is larger).
    pub fn copy_merge_sections_whole(&mut self) {
        for &i in &self.merges {
            let s = &mut self.sections[i as usize];
            if s.kind == SectionKind::Merge {
                s.kind = SectionKind::Regular;
            }
        }
        self.merges.clear();
    }
}

/// gcc's `-fsplit-stack` notes (see [`ObjectFile::split_stack`]).
const SPLIT_STACK_NOTE: &str = ".note.GNU-split-stack";
const NO_SPLIT_STACK_NOTE: &str = ".note.GNU-no-split-stack";

/// Decides once, from name, type and flags, what the linker does with an input section.
fn classify_section(name: &str, sh_type: u32, flags: u64, is_null: bool) -> SectionKind {
    if is_null || flags & elf::SHF_EXCLUDE as u64 != 0 {
        return SectionKind::Ignored;
    }
    match sh_type {
        elf::SHT_NULL
        | elf::SHT_SYMTAB
        | elf::SHT_STRTAB
        | elf::SHT_RELA
        | elf::SHT_REL
        | elf::SHT_GROUP
        | elf::SHT_SYMTAB_SHNDX => return SectionKind::Ignored,
        // LLVM's metadata the linker consumes, not copies, as lld consumes it: the ODR
        // table, linker options, call graph profiles, address-significance tables,
        // dependent libraries, partitions; and a fat LTO object's bitcode, which `-r`
        // drops as lld does (concatenated, it would not be bitcode). Its other sections
        // (the basic block address map, jump table sizes, ...) are copied, as lld copies
        // them.
        SHT_LLVM_ODRTAB..=SHT_LLVM_PART_PHDR | SHT_LLVM_CALL_GRAPH_PROFILE | SHT_LLVM_LTO => {
            return SectionKind::Ignored
        }
        _ => {}
    }
    // `.gnu.warning.SYM` (glibc's text about `dlopen` in static programs) is copied as lld
    // copies it; GNU ld prints it and drops the section.
    // The split-stack notes say what the linker must do (`split_stack`), as lld reads them;
    // `-r` keeps them for the final link.
    if name == ".note.GNU-stack"
        || name == ".gnu_debuglink"
        || name == SPLIT_STACK_NOTE
        || name == NO_SPLIT_STACK_NOTE
    {
        return SectionKind::Ignored;
    }
    if name == ".eh_frame" {
        return SectionKind::EhFrame;
    }
    let merge = flags & u64::from(elf::SHF_MERGE) != 0;
    if merge && sh_type == elf::SHT_PROGBITS {
        return SectionKind::Merge;
    }
    SectionKind::Regular
}

/// Whether an ELF object carries GCC's LTO IR (`gcc -flto`: `.gnu.lto_*` sections, with or
/// without machine code beside them): what gcc's linker plugin claims.
pub fn has_gcc_lto_sections(data: &[u8]) -> bool {
    use object::read::elf::FileHeader as _;
    let Ok(header) = elf::FileHeader64::<object::LittleEndian>::parse(data) else {
        return false;
    };
    let Ok(sections) = header.sections(LE, data) else {
        return false;
    };
    sections.iter().any(|sh| {
        sections
            .section_name(LE, sh)
            .is_ok_and(|name| name.starts_with(b".gnu.lto_"))
    })
}

/// The LLVM bitcode an object built with clang's `-ffat-lto-objects` carries beside its
/// machine code (section `.llvm.lto`, as LLVM's `IRObjectFile::findBitcodeInMemBuffer`
/// looks for it), and where it starts in `data`; None if there is none or it is not bitcode.
pub fn fat_lto_bitcode(data: &'static [u8]) -> Option<(&'static [u8], u64)> {
    let header = elf::FileHeader64::<object::LittleEndian>::parse(data).ok()?;
    let sections = header.sections(LE, data).ok()?;
    let section = sections
        .iter()
        .find(|sh| sections.section_name(LE, sh) == Ok(b".llvm.lto"))?;
    let bitcode = section.data(LE, data).ok()?;
    let offset = bitcode.as_ptr() as u64 - data.as_ptr() as u64;
    rld_lto_api::is_bitcode(bitcode).then_some((bitcode, offset))
}

/// gcc marks an object whose sections hold only its IR (no machine code) with the common
/// symbol `__gnu_lto_slim` (only common symbols are compared: every object is asked).
fn defines_gcc_lto_slim(symbols: &[Sym], strtab: &[u8]) -> bool {
    const MARK: &[u8] = b"__gnu_lto_slim\0";
    symbols.iter().any(|s| {
        if s.st_shndx.get(LE) != elf::SHN_COMMON {
            return false;
        }
        let at = s.st_name.get(LE) as usize;
        strtab.get(at..).is_some_and(|rest| rest.starts_with(MARK))
    })
}

/// The 4-byte property `wanted` of a `.note.gnu.property` section.
fn gnu_property(data: &[u8], wanted: u32) -> Option<u32> {
    let u32_at = |off: usize| -> Option<u32> {
        data.get(off..off + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut off = 0;
    while off + 12 <= data.len() {
        let namesz = u32_at(off)? as usize;
        let descsz = u32_at(off + 4)? as usize;
        let ntype = u32_at(off + 8)?;
        let desc_start = off + 12 + namesz.next_multiple_of(4);
        let desc_end = desc_start.checked_add(descsz)?;
        if ntype == elf::NT_GNU_PROPERTY_TYPE_0 {
            let mut p = desc_start;
            while p + 8 <= desc_end {
                let pr_type = u32_at(p)?;
                let pr_size = u32_at(p + 4)? as usize;
                if pr_type == wanted && pr_size == 4 {
                    return u32_at(p + 8);
                }
                p += 8 + pr_size.next_multiple_of(8);
            }
        }
        off = desc_end.next_multiple_of(4);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of `len` bytes after its length word, with CIE id `id`.
    fn record(len: u32, id: u32) -> Vec<u8> {
        let mut r = len.to_le_bytes().to_vec();
        r.extend_from_slice(&id.to_le_bytes());
        r.resize(4 + len as usize, 0);
        r
    }

    /// A CIE as compilers write it (version 1, "zR", FDE addresses PC-relative), of version
    /// `version`.
    fn cie(version: u8) -> Vec<u8> {
        let mut r = 16u32.to_le_bytes().to_vec();
        r.extend_from_slice(&0u32.to_le_bytes());
        // Version, augmentation, code and data alignment, return address register, the
        // augmentation data (its length, then the FDE pointer encoding), DW_CFA_nop padding.
        r.extend_from_slice(&[version, b'z', b'R', 0, 1, 0x78, 16, 1, 0x1b]);
        r.resize(20, 0);
        r
    }

    #[test]
    fn an_input_section_record_stays_small() {
        // 600,000 of them in a large link, written as the inputs are parsed: each 16
        // bytes more cost about 2% of the link (see static_ptr).
        assert!(std::mem::size_of::<InputSection>() <= 80);
    }

    #[test]
    fn a_section_s_slices_come_back_as_given() {
        static BYTES: [u8; 5] = *b"hello";
        let attrs = |sh_type| SectionAttrs {
            sh_type,
            flags: 3,
            align: 8,
            entsize: 0,
        };
        let s = InputSection::new(
            ".data.x",
            attrs(elf::SHT_PROGBITS),
            &BYTES,
            0,
            SectionKind::Regular,
        )
        .unwrap();
        assert_eq!((s.name(), s.data(), s.size()), (".data.x", &BYTES[..], 5));
        assert!(s.relocs().is_empty());
        let bss = InputSection::new(
            ".bss",
            attrs(elf::SHT_NOBITS),
            &BYTES,
            1 << 40,
            SectionKind::Regular,
        )
        .unwrap();
        assert_eq!((bss.data(), bss.size()), (&[][..], 1 << 40));
    }

    #[test]
    fn names_from_a_checked_table_start_only_on_characters() {
        let table: &'static str = "\0.text.\u{e9}t\u{e9}\0.data\0tail";
        assert_eq!(read_name(table, 1), Some(".text.\u{e9}t\u{e9}"));
        // A suffix shared with a longer name (as assemblers merge them).
        assert_eq!(read_name(table, 6), Some(".\u{e9}t\u{e9}"));
        assert_eq!(read_name(table, 0), Some(""));
        // Inside the two bytes of 'é': not a name of a valid table, left to the byte path.
        assert_eq!(read_name(table, 8), None);
        // No NUL after it, or past the end.
        assert_eq!(read_name(table, table.len() as u32 - 4), None);
        assert_eq!(read_name(table, 1000), None);
        // The byte path then reports what the per-name check always did.
        assert!(
            std::str::from_utf8(read_str(Box::leak(table.as_bytes().into()), 8).unwrap()).is_err()
        );
    }

    #[test]
    fn eh_frame_walk_skips_terminators_and_stops_at_damage() {
        // CIE, terminator (as `ld -r` leaves them), FDE pointing back to the CIE.
        let mut data = cie(1);
        data.extend_from_slice(&[0, 0, 0, 0]);
        let fde_at = data.len();
        data.extend(record(16, (fde_at + 4) as u32));
        let places: Vec<(usize, usize, u32, bool)> = eh_frame_places(&data)
            .map(|p| p.map(|p| (p.start, p.end, p.id, p.terminator)).unwrap())
            .collect();
        let fde_id = (fde_at + 4) as u32;
        assert_eq!(
            places,
            [
                (0, 20, 0, false),
                (20, 24, 0, true),
                (fde_at, fde_at + 20, fde_id, false)
            ]
        );
        assert_eq!(check_eh_frame(&data), Ok(()));
        // Once checked, the quick walk finds the same places.
        let quick: Vec<(usize, usize, u32, bool)> = checked_eh_frame_places(&data)
            .map(|p| (p.start, p.end, p.id, p.terminator))
            .collect();
        assert_eq!(quick, places);

        // An FDE whose CIE pointer leads into the CIE, or before the section.
        for pointer in [3, 40] {
            let mut bad = cie(1);
            bad.extend(record(16, pointer));
            assert!(
                check_eh_frame(&bad)
                    .unwrap_err()
                    .contains("points to no CIE"),
                "{pointer}"
            );
        }
        // Two CIEs: an FDE may use the first (the CIEs' list is searched, not its last).
        let mut two = cie(1);
        two.extend(cie(1));
        let fde_at = two.len();
        two.extend(record(16, (fde_at + 4) as u32));
        assert_eq!(check_eh_frame(&two), Ok(()));
        // Pointing between them, it points to none.
        let mut between = two[..fde_at].to_vec();
        between.extend(record(16, (fde_at + 4 - 8) as u32));
        assert!(check_eh_frame(&between)
            .unwrap_err()
            .contains("points to no CIE"));
        // A CIE the reader does not know.
        let unknown = check_eh_frame(&cie(99)).unwrap_err();
        assert!(unknown.starts_with("CIE at offset 0x0: "), "{unknown}");
        // A record longer than the data ends the walk with an error, once.
        let mut cut = cie(1);
        cut.extend_from_slice(&40u32.to_le_bytes());
        cut.extend_from_slice(&[0; 8]);
        let walk: Vec<_> = eh_frame_places(&cut).collect();
        assert_eq!(walk.len(), 2);
        // The quick walk, given data nobody checked, stops there too (never past the end).
        assert_eq!(checked_eh_frame_places(&cut).count(), 1);
        assert_eq!(checked_eh_frame_places(&[1, 0, 0]).count(), 0);
        assert_eq!(checked_eh_frame_places(&[1, 0, 0, 0, 7]).count(), 0);
        assert_eq!(checked_eh_frame_places(&[0xff; 12]).count(), 0);
        assert!(walk[1]
            .as_ref()
            .unwrap_err()
            .contains("extends past the section"));
        let mut wide = 0xffff_ffffu32.to_le_bytes().to_vec();
        wide.extend_from_slice(&[0; 12]);
        assert!(check_eh_frame(&wide).unwrap_err().contains("64-bit"));
    }
}
