//! The state of one link from resolution on: what resolution kept (objects, shared
//! libraries, symbols with their binding), the output sections and the inputs assigned to
//! them, what identical code folding folded, and the symbols the linker defines. Nothing
//! here has a value that is wrong before some later pass: what later phases compute is
//! theirs to return — the relocation scan's plan and tables (`tables.rs`), the placement of
//! merged strings and commons, each output section's address and file offset with the
//! segments ([`Segments`]), the symbol addresses, the writer's extra contents (`image.rs`,
//! which joins them for the writer).

use crate::object_file::{shndx, FileId, ObjectFile};
use crate::options::Options;
use crate::output_section::{OutputId, OutputSection, OutputSections, Synthetic};
use crate::shared_file::SharedFile;
use crate::symbols::{SymbolDef, SymbolId, SymbolTable};
use object::elf;
use rustc_hash::FxHashMap;

/// What a relocation points at: a global symbol or one object's local symbol.
/// Ordered as lld creates table entries: global symbols by id (the order the symbol table
/// met them), then each file's local symbols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    Global(SymbolId),
    Local(FileId, u32),
}

/// The kinds of GOT entries; TLS ones take two slots except initial-exec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GotKind {
    Regular,
    TlsIe,
    TlsGd,
    TlsLd,
    TlsDesc,
}

impl GotKind {
    pub fn slots(self) -> u64 {
        match self {
            GotKind::Regular | GotKind::TlsIe => 1,
            _ => 2,
        }
    }
}

/// Where a dynamic relocation applies.
#[derive(Debug, Clone, Copy)]
pub enum Place {
    Section { file: FileId, sec: u32, offset: u64 },
    Got(u64),
    GotPlt(u64),
    CopyRel(CopySlot),
}

/// Where a copy-relocated variable lives: in `.bss`, or in `.bss.rel.ro` (RELRO) when the
/// library has it in read-only memory (lld's rule: its protection is kept), at an offset
/// inside that area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopySlot {
    pub read_only: bool,
    pub offset: u64,
}

/// How a dynamic relocation's addend is computed once addresses are known.
#[derive(Debug, Clone, Copy)]
pub enum DynAddend {
    Const(i64),
    /// Address of the target plus a constant (R_X86_64_RELATIVE, IRELATIVE).
    Address(Target, i64),
    /// Offset of a TLS target inside the TLS segment plus a constant.
    TlsOffset(Target, i64),
}

#[derive(Debug, Clone, Copy)]
pub struct DynReloc {
    pub place: Place,
    pub r_type: u32,
    /// Dynamic symbol (a preemptible global), or none (index 0).
    pub sym: Option<SymbolId>,
    pub addend: DynAddend,
}

/// A value the linker defines: `_end`, `__start_foo`, `_GLOBAL_OFFSET_TABLE_`...
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkerSymbol {
    ImageBase,
    /// Start or end of an output section (by name); `end` selects the end.
    SectionBound {
        name: String,
        end: bool,
    },
    Synthetic {
        which: Synthetic,
        end: bool,
    },
    /// End of the last section with file contents in a writable segment.
    EndOfData,
    /// End of everything (after .bss).
    End,
    /// Start of .bss.
    BssStart,
    /// End of the executable code.
    EndOfText,
    TlsStart,
    /// `--defsym NAME=VALUE`.
    Absolute(u64),
    /// `--defsym NAME=OTHER+OFFSET`: another symbol's address plus an offset.
    Alias(SymbolId, i64),
    /// A linker script assignment or `--defsym` with any other expression, evaluated once
    /// the layout is known.
    Expr(Box<crate::script_expr::Expr>),
    /// An assignment inside `SECTIONS` (its number there, and its expression): its value
    /// comes from the scripted layout (`ScriptResults::values`).
    ScriptDot(usize, Box<crate::script_expr::Expr>),
}

#[derive(Debug, Clone, Copy)]
pub struct Segment {
    pub p_type: u32,
    pub flags: u32,
    pub offset: u64,
    pub vaddr: u64,
    pub filesz: u64,
    pub memsz: u64,
    pub align: u64,
    /// The load (physical) address where a linker script's `AT` makes it differ.
    pub paddr: Option<u64>,
}

/// Where address assignment put one output section.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SectionPlace {
    /// Its address (0 for a section that is not loaded).
    pub addr: u64,
    /// Where it starts in the file.
    pub offset: u64,
    /// The load address a linker script's `AT` gives it, if not its address.
    pub lma: Option<u64>,
}

/// Where address assignment put each output section, by id ([`OutputId`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SectionPlaces(Vec<SectionPlace>);

impl SectionPlaces {
    /// Room for the output sections made so far, none placed yet.
    pub fn for_outputs(outputs: &crate::output_section::OutputSections) -> SectionPlaces {
        SectionPlaces(vec![SectionPlace::default(); outputs.id_count()])
    }

    /// Where output section `o` is.
    pub fn of(&self, o: &OutputSection) -> SectionPlace {
        self.of_id(o.id)
    }

    /// Where output section `id` is.
    pub fn of_id(&self, id: OutputId) -> SectionPlace {
        self.0[id.0 as usize]
    }

    pub fn set(&mut self, o: &OutputSection, place: SectionPlace) {
        self.0[o.id.0 as usize] = place;
    }

    /// Output section `o`'s address.
    pub fn addr(&self, o: &OutputSection) -> u64 {
        self.of(o).addr
    }

    /// Where output section `o` starts in the file.
    pub fn offset(&self, o: &OutputSection) -> u64 {
        self.of(o).offset
    }

    /// Where output section `o` ends in memory. (Saturated: a section that would end past
    /// 2^64 is refused once laid out, by `layout::assign_addresses`, and until then nothing
    /// computed from its end may wrap below its start.)
    pub fn end(&self, o: &OutputSection) -> u64 {
        self.of(o).addr.saturating_add(o.size)
    }
}

/// What address assignment decides: each output section's place, the program headers, the
/// TLS template, the image's base address, and what the scripted layout computed. The
/// output sections themselves hold what is known before (names, flags, sizes, inputs), so
/// nothing reads an address before there is one.
#[derive(Debug, Clone, Default)]
pub struct Segments {
    pub sections: SectionPlaces,
    pub headers: Vec<Segment>,
    pub tls: TlsLayout,
    pub image_base: u64,
    pub script: ScriptResults,
}

impl Segments {
    /// Bytes of the ELF header and the program headers (`SIZEOF_HEADERS`).
    pub fn headers_size(&self) -> u64 {
        64 + 56 * self.headers.len() as u64
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct TlsLayout {
    pub start: u64,
    pub memsz: u64,
    pub align: u64,
}

impl TlsLayout {
    /// x86-64 (variant II): the thread pointer sits just past the TLS block, aligned.
    pub fn tp_offset(&self, addr: u64) -> i64 {
        addr.wrapping_sub(self.start) as i64 - self.memsz.next_multiple_of(self.align.max(1)) as i64
    }
}

pub struct Link<'o> {
    pub opts: &'o Options,
    pub objects: Vec<ObjectFile>,
    pub dsos: Vec<SharedFile>,
    pub symtab: SymbolTable,
    /// The output sections: in creation order until `layout::sort_output_sections` puts
    /// them in their final order (without the empty ones it drops).
    pub outputs: OutputSections,
    /// Sections identical code folding removed, each with the section kept in its place
    /// (none before it runs, or without `--icf`).
    pub folded_into: FxHashMap<(FileId, u32), (FileId, u32)>,
    /// `--symbol-ordering-file`'s rank of each section it orders (none without it).
    pub section_order: crate::symbol_order::SectionOrder,
    /// The call graph profile `--call-graph-profile-sort` orders code by.
    pub call_graph: crate::call_graph_sort::Profile,
    /// The output has .dynamic (any shared library, PIE or shared output).
    pub is_dynamic: bool,
    /// What each symbol the linker defines stands for (`SymbolDef::Synthetic` symbols: each
    /// is given its entry as it is defined).
    pub linker_symbols: FxHashMap<SymbolId, LinkerSymbol>,
    /// Whether each symbol assigned inside `SECTIONS` is absolute, once decided: deciding
    /// evaluates its expression, which reads the symbols it names, so an assignment chain
    /// (`y1 = y0 + y0; y2 = y1 + y1; ...`) would be evaluated again on every read.
    pub script_absolute: std::sync::Mutex<FxHashMap<SymbolId, bool>>,
    /// With `--gc-sections`: which parts of merge sections what is kept refers to (the
    /// strings and constants merged into the output).
    pub piece_marks: Option<crate::gc::PieceMarks>,
    /// `--dynamic-list` entries.
    pub dynamic_list: crate::dynamic_list::DynamicList,
    /// `--version-script`.
    pub version_script: Option<crate::version_script::VersionScript>,
    /// Linker scripts' symbol assignments and `ASSERT`s (see `input::ScriptFacts`).
    pub scripts: crate::input::ScriptFacts,
    /// The x86 feature bits every object that puts something in the image has, once asked
    /// (see `layout::gnu_property_features`): the sections kept are final by then, and
    /// finding them passes every section.
    pub x86_features: std::sync::OnceLock<u32>,
}

/// What a linker script's `SECTIONS` gives the layout and the writer, once laid out.
#[derive(Debug, Clone, Default)]
pub struct ScriptResults {
    /// The value and section header index of each assignment inside `SECTIONS`.
    pub values: Vec<(u64, Option<u32>)>,
    /// What the scripted layout found wrong (a section outside its region, a bad
    /// expression), reported after it.
    pub errors: Vec<String>,
    /// Where the data commands go: (output section, address, item of its description).
    pub data_places: Vec<(usize, u64, usize)>,
    /// Each `MEMORY` region: its name, origin and length, and how far the sections placed
    /// in it (or loaded in it) reach (`--print-memory-usage`).
    pub memory: Vec<(String, u64, u64, u64)>,
}

/// What the link starts from: the command line's lists and scripts, read before the
/// inputs were resolved.
pub struct LinkInputs {
    pub dynamic_list: crate::dynamic_list::DynamicList,
    pub version_script: Option<crate::version_script::VersionScript>,
    pub scripts: crate::input::ScriptFacts,
}

impl<'o> Link<'o> {
    /// The link of what resolution kept: no output sections yet.
    pub fn new(
        opts: &'o Options,
        resolved: crate::symbols::Resolved,
        inputs: LinkInputs,
    ) -> Link<'o> {
        Link {
            opts,
            is_dynamic: opts.is_dynamic_with(!resolved.dsos.is_empty()),
            objects: resolved.objects,
            dsos: resolved.dsos,
            symtab: resolved.symtab,
            outputs: OutputSections::default(),
            folded_into: FxHashMap::default(),
            section_order: Default::default(),
            call_graph: Default::default(),
            linker_symbols: FxHashMap::default(),
            script_absolute: Default::default(),
            piece_marks: None,
            dynamic_list: inputs.dynamic_list,
            version_script: inputs.version_script,
            scripts: inputs.scripts,
            x86_features: std::sync::OnceLock::new(),
        }
    }

    /// Output section `id`, which must not have been dropped.
    pub fn output(&self, id: OutputId) -> &OutputSection {
        self.outputs.section(id)
    }

    /// Puts the output sections in their final order: `order` lists positions in
    /// `outputs`; the sections it leaves out are dropped, with the inputs they hold.
    /// Identities do not change: whatever names an output by its id finds it in its new
    /// place.
    pub fn set_output_order(&mut self, order: &[usize]) {
        for dropped in self.outputs.reorder(order) {
            for (f, s) in dropped.inputs {
                self.objects[f as usize].sections[s as usize].live = false;
            }
        }
    }

    pub fn synthetic_section(&self, which: Synthetic) -> Option<&OutputSection> {
        self.outputs.synthetic(which)
    }

    /// The PLT is laid out for IBT (`.plt` stubs and `.plt.sec` entries, see layout): the
    /// layout made a `.plt.sec`.
    pub fn ibt_plt(&self) -> bool {
        self.outputs.has_synthetic(Synthetic::PltSec)
    }

    /// Resolves a relocation's symbol index in `file` to a target.
    pub fn target(&self, file: FileId, sym_index: usize) -> Target {
        match self.objects[file as usize].global_index(sym_index) {
            Some(id) => Target::Global(id),
            None => Target::Local(file, sym_index as u32),
        }
    }

    /// Where a target is defined in an object: file, section and offset in it (none for one
    /// undefined, shared, absolute, common or the linker's).
    pub fn defined_in_section(&self, t: Target) -> Option<(FileId, u32, u64)> {
        let (file, sec, value) = match t {
            Target::Global(id) => match self.symtab.get(id).def {
                SymbolDef::Defined {
                    file,
                    section,
                    value,
                } => (file, section, value),
                _ => return None,
            },
            Target::Local(f, i) => {
                let obj = &self.objects[f as usize];
                use object::read::elf::Sym as _;
                let value = obj.symbols[i as usize].st_value(crate::object_file::LE);
                (f, obj.symbol_section(i as usize), value)
            }
        };
        shndx::is_section(sec).then_some((file, sec, value))
    }

    /// The section identical code folding kept in place of section `sec` of `file` (the
    /// same bytes and relocations), or that section itself.
    pub fn kept_copy(&self, file: FileId, sec: u32) -> (FileId, u32) {
        self.folded_into
            .get(&(file, sec))
            .copied()
            .unwrap_or((file, sec))
    }

    pub fn is_preemptible(&self, t: Target) -> bool {
        match t {
            Target::Global(id) => self.symtab.get(id).preemptible,
            Target::Local(..) => false,
        }
    }

    pub fn target_type(&self, t: Target) -> u8 {
        match t {
            Target::Global(id) => self.symtab.get(id).sym_type,
            Target::Local(f, i) => self.objects[f as usize].symbols[i as usize].st_type(),
        }
    }

    /// An absolute symbol's value does not move with the load address: SHN_ABS definitions,
    /// `--defsym NAME=NUMBER` (and aliases of absolute symbols), and undefined symbols that
    /// resolve to 0.
    pub fn is_absolute(&self, t: Target) -> bool {
        match t {
            Target::Global(id) => self.is_absolute_symbol(id, 0),
            Target::Local(f, i) => {
                self.objects[f as usize].symbol_section(i as usize) == shndx::ABS
            }
        }
    }

    fn is_absolute_symbol(&self, id: SymbolId, depth: u32) -> bool {
        let s = self.symtab.get(id);
        match s.def {
            SymbolDef::Defined { section, .. } => section == shndx::ABS,
            SymbolDef::Synthetic => match self.linker_symbols.get(&id) {
                Some(LinkerSymbol::Absolute(_)) => true,
                // Bounded: --defsym aliases may name each other.
                Some(LinkerSymbol::Alias(other, _)) if depth < 16 => {
                    self.is_absolute_symbol(*other, depth + 1)
                }
                Some(LinkerSymbol::Expr(e)) => crate::layout::expr_is_absolute(self, e),
                // Decided by the expression's shape, as `.` there is an address: the
                // relocation scan needs it before the layout gives the symbol its value.
                Some(LinkerSymbol::ScriptDot(_, e)) => {
                    let known = self
                        .script_absolute
                        .lock()
                        .ok()
                        .and_then(|m| m.get(&id).copied());
                    known.unwrap_or_else(|| {
                        let absolute = crate::layout::assignment_is_absolute(self, e);
                        if let Ok(mut m) = self.script_absolute.lock() {
                            m.insert(id, absolute);
                        }
                        absolute
                    })
                }
                _ => false,
            },
            _ => s.is_undefined() && !s.preemptible,
        }
    }

    /// A non-preemptible IFUNC: calls and address-taking both go through its PLT entry.
    pub fn is_local_ifunc(&self, t: Target) -> bool {
        match t {
            Target::Global(id) => {
                let s = self.symtab.get(id);
                s.is_ifunc() && !s.preemptible
            }
            Target::Local(f, i) => {
                self.objects[f as usize].symbols[i as usize].st_type() == elf::STT_GNU_IFUNC
            }
        }
    }

    pub fn target_name(&self, t: Target) -> String {
        match t {
            Target::Global(id) => self.symtab.get(id).display_name(),
            Target::Local(f, i) => {
                let obj = &self.objects[f as usize];
                let name = obj.symbol_name(i as usize);
                if name.is_empty() {
                    let sec = obj.symbol_section(i as usize) as usize;
                    obj.sections
                        .get(sec)
                        .map_or("?".to_string(), |s| s.name().to_string())
                } else {
                    String::from_utf8_lossy(name).into_owned()
                }
            }
        }
    }
}
