//! The global symbol table and symbol resolution.
//!
//! Resolution follows lld's rules rather than GNU ld's command-line scan: every archive's
//! symbols are visible as lazy definitions at once, a strong undefined reference fetches the
//! member that defines it wherever the archive appears, and a shared library's definition
//! satisfies a reference without pulling an archive member. This makes `--start-group` moot
//! and gives the same result as lld on the programs both accept.

use crate::error::{LinkError, Result};
use crate::input::{Archive, InputFile};
use crate::name_table::name_hash;
use crate::object_file::{shndx, FileId, ObjectFile, SectionKind, LE};
use crate::prefetch::{Parsed, PluginOffers, Prefetch, Ticket};
use crate::shared_file::{DsoId, SharedFile};
use object::elf;
use object::read::elf::Sym as _;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;

pub type SymbolId = u32;

/// Where a global symbol's winning definition is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolDef {
    Undefined,
    /// Defined by an archive member that has not been loaded.
    Lazy {
        archive: u32,
        member: u32,
    },
    /// Defined in an object: `section` is its section index, or SHN_ABS.
    Defined {
        file: FileId,
        section: u32,
        value: u64,
    },
    Common {
        file: FileId,
        size: u64,
        align: u64,
    },
    /// Defined by a shared library (`index` into its `symbols`).
    Shared {
        dso: DsoId,
        index: u32,
    },
    /// Defined by the linker itself (`_end`, `__start_foo`, ...), placed at layout.
    Synthetic,
    /// Defined by global `index` of LLVM bitcode module `module` (until LTO replaces it).
    Bitcode {
        module: u32,
        index: u32,
    },
    /// Defined by the inline asm of LLVM bitcode module `module` (until LTO replaces it).
    BitcodeAsm {
        module: u32,
    },
    /// Defined by symbol `index` of the file a linker plugin claimed as `file` (until the
    /// plugin's objects replace it).
    Plugin {
        file: u32,
        index: u32,
    },
}

#[derive(Debug, Clone)]
pub struct Symbol {
    pub name: &'static [u8],
    pub def: SymbolDef,
    /// Binding of the definition, or for an undefined symbol: whether every reference is weak.
    pub weak: bool,
    /// The definition is bound `STB_GNU_UNIQUE` (g++'s inline functions' statics, template
    /// static members): the dynamic loader binds every loaded object's references to one
    /// copy, even across `dlopen(RTLD_LOCAL)`. Resolution treats it as global (as lld and
    /// GNU ld do); the output keeps the binding.
    pub unique: bool,
    /// Most constraining visibility seen in any object (hidden once a version script makes
    /// the symbol local).
    pub visibility: u8,
    /// The visibility the objects gave it, kept when a version script made it local:
    /// `.symtab` shows that one (GNU ld, lld).
    pub declared_visibility: Option<u8>,
    pub sym_type: u8,
    pub size: u64,
    /// Some object references it with a non-weak undefined symbol.
    pub has_strong_ref: bool,
    /// First object that referenced it (for error messages).
    pub ref_file: Option<FileId>,
    /// Some shared library references or defines it: an executable must export its
    /// definition, so the library's references bind to it (lld and GNU ld).
    pub dso_ref: bool,
    /// Some shared library references it with a non-weak undefined symbol: that pulls the
    /// defining archive member in, as an object's reference would.
    dso_strong_ref: bool,
    /// Its strong references so far are all from files a linker plugin claimed (gcc's IR):
    /// they fetch archive members, but a versioned definition they resolve to (libm's
    /// `ceil@@GLIBC_2.2.5`) makes no `--as-needed` library needed: GNU ld decides that from
    /// the objects the plugin's LTO returns, where the reference may be gone (gcc expands
    /// `ceil` inline). An unversioned one does, as in GNU ld.
    plugin_ref_only: bool,
    /// Some native (non-bitcode) object references or defines it: LTO must keep it visible.
    pub native_ref: bool,
    /// Some LLVM bitcode module references it: to a linker plugin, a reference from outside
    /// the files it claimed.
    pub bitcode_ref: bool,
    /// Every bitcode definition of it may be left out of the symbol table (LLVM's
    /// `canBeOmittedFromSymbolTable`), and none came after a definition that may not: lld's
    /// `ltoCanOmit`. Unless a native object or the command line uses it, `-shared` and
    /// `--export-dynamic` do not export it, and LTO may internalize it.
    pub lto_can_omit: bool,
    /// The version an object gave its definition with `.symver` (`foo@@VER`, or `foo@VER`
    /// when `hidden`): it overrides the version script's node.
    /// Boxed: few symbols have one, and every symbol of a large link is held to its end.
    pub version: Option<Box<SymVersion>>,
    /// In the dynamic symbol table.
    pub in_dynsym: bool,
    /// May be bound to another module's definition at run time.
    pub preemptible: bool,
    /// Exported from the output (a defined symbol in .dynsym).
    pub exported: bool,
    /// Defined outside the objects, and only sections `--gc-sections` removed refer to it:
    /// it leaves `.symtab` and `.dynsym` (lld).
    pub only_dead_refs: bool,
    /// Where lld's symbol table would hold it (the order it inserts names in: each file's
    /// as it is parsed, an archive member's definitions as the walk of the archive reaches
    /// them); u32::MAX until an input names it. The output's symbol tables, GOT and PLT
    /// follow this order, as lld's follow its table.
    pub rank: u32,
}

impl Symbol {
    fn new(name: &'static [u8]) -> Symbol {
        Symbol {
            name,
            def: SymbolDef::Undefined,
            weak: true,
            unique: false,
            visibility: elf::STV_DEFAULT,
            declared_visibility: None,
            sym_type: elf::STT_NOTYPE,
            size: 0,
            has_strong_ref: false,
            ref_file: None,
            dso_ref: false,
            dso_strong_ref: false,
            plugin_ref_only: false,
            native_ref: false,
            bitcode_ref: false,
            lto_can_omit: false,
            version: None,
            in_dynsym: false,
            preemptible: false,
            exported: false,
            only_dead_refs: false,
            rank: u32::MAX,
        }
    }

    pub fn is_defined_locally(&self) -> bool {
        matches!(
            self.def,
            SymbolDef::Defined { .. }
                | SymbolDef::Common { .. }
                | SymbolDef::Synthetic
                | SymbolDef::Bitcode { .. }
                | SymbolDef::BitcodeAsm { .. }
                | SymbolDef::Plugin { .. }
        )
    }

    /// Some strong reference (an object's, bitcode's or a shared library's) wants it: an
    /// archive member defining it is loaded.
    fn is_wanted(&self) -> bool {
        self.has_strong_ref || self.dso_strong_ref
    }

    pub fn is_undefined(&self) -> bool {
        matches!(self.def, SymbolDef::Undefined | SymbolDef::Lazy { .. })
    }

    /// Defined in none of the objects: undefined, in a shared library, or in an archive
    /// member never loaded.
    pub fn is_outside(&self) -> bool {
        matches!(
            self.def,
            SymbolDef::Undefined | SymbolDef::Lazy { .. } | SymbolDef::Shared { .. }
        )
    }

    /// The binding the output gives a global symbol that is `weak` there: a
    /// `STB_GNU_UNIQUE` definition keeps its binding unless `--no-gnu-unique`.
    pub fn output_binding(&self, weak: bool, gnu_unique: bool) -> u8 {
        if weak {
            elf::STB_WEAK
        } else if self.unique && gnu_unique {
            elf::STB_GNU_UNIQUE
        } else {
            elf::STB_GLOBAL
        }
    }

    /// A strong reference from an object, bitcode or the command line: not (only) from
    /// files a plugin claimed.
    fn note_strong_ref(&mut self) {
        self.has_strong_ref = true;
        self.plugin_ref_only = false;
    }

    pub fn is_undef_weak(&self) -> bool {
        self.is_undefined() && !self.has_strong_ref
    }

    pub fn is_ifunc(&self) -> bool {
        self.sym_type == elf::STT_GNU_IFUNC && matches!(self.def, SymbolDef::Defined { .. })
    }

    pub fn is_tls(&self) -> bool {
        self.sym_type == elf::STT_TLS
    }

    /// Takes in the visibility an object gives the symbol. A non-default visibility binds
    /// it inside the output, so a shared library's definition no longer satisfies it (lld
    /// and GNU ld: "undefined hidden symbol").
    fn merge_visibility(&mut self, vis: u8) {
        self.visibility = merge_visibility(self.visibility, vis);
        if self.visibility != elf::STV_DEFAULT && matches!(self.def, SymbolDef::Shared { .. }) {
            self.def = SymbolDef::Undefined;
        }
    }

    /// The file lld names with the symbol in messages (`file:(name)`): its definition's,
    /// or for an undefined symbol the first that referred to it; `<internal>` for the
    /// linker's own (and one no file names).
    pub fn file_name<'a>(&self, objects: &'a [ObjectFile], dsos: &'a [SharedFile]) -> &'a str {
        match self.def {
            SymbolDef::Defined { file, .. } | SymbolDef::Common { file, .. } => {
                objects[file as usize].name.as_str()
            }
            SymbolDef::Shared { dso, .. } => dsos[dso as usize].name.as_str(),
            SymbolDef::Undefined => self
                .ref_file
                .map_or("<internal>", |f| objects[f as usize].name.as_str()),
            _ => "<internal>",
        }
    }

    /// The name as diagnostics show it (C++ names demangled unless `--no-demangle`).
    pub fn display_name(&self) -> String {
        crate::demangle::display(self.name)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymVersion {
    pub name: &'static [u8],
    pub hidden: bool,
}

/// The name a symbol has in `.dynsym`: without its `@VERSION` part.
pub fn base_name(name: &[u8]) -> &[u8] {
    name.iter()
        .position(|&c| c == b'@')
        .map_or(name, |i| &name[..i])
}

/// Combines visibilities: hidden (and internal) beat protected, which beats default.
pub(crate) fn merge_visibility(a: u8, b: u8) -> u8 {
    let rank = |v: u8| match v {
        elf::STV_DEFAULT => 0,
        elf::STV_PROTECTED => 1,
        _ => 2,
    };
    let hidden_like = |v: u8| {
        if v == elf::STV_INTERNAL {
            elf::STV_HIDDEN
        } else {
            v
        }
    };
    if rank(a) >= rank(b) {
        hidden_like(a)
    } else {
        hidden_like(b)
    }
}

#[derive(Default)]
pub struct SymbolTable {
    pub symbols: Vec<Symbol>,
    /// The ids by name.
    names: crate::name_table::NameTable,
    /// The next [`Symbol::rank`].
    next_rank: u32,
}

/// How the name table reads an id's name: from its symbol.
fn name_of(symbols: &[Symbol]) -> impl Fn(SymbolId) -> &'static [u8] + Sync + '_ {
    |id| symbols[id as usize].name
}

impl SymbolTable {
    pub fn intern(&mut self, name: &'static [u8]) -> SymbolId {
        let next = self.symbols.len() as SymbolId;
        let (id, new) = self
            .names
            .intern(name, name_hash(name), next, &name_of(&self.symbols));
        if new {
            self.symbols.push(Symbol::new(name));
        }
        id
    }

    /// The ids of the names of `files`, interned in order (in parallel when there are
    /// many and `pool_free`: see [`crate::name_table`]).
    pub fn intern_batch<N: crate::name_table::HashedName>(
        &mut self,
        files: &[&[N]],
        pool_free: bool,
    ) -> Vec<Vec<SymbolId>> {
        let mut new_names = Vec::new();
        let next = self.symbols.len() as SymbolId;
        let ids = self.names.intern_batch(
            files,
            next,
            &mut new_names,
            &name_of(&self.symbols),
            pool_free,
        );
        self.symbols.extend(new_names.into_iter().map(Symbol::new));
        ids
    }

    /// Makes room for `additional` more names, so that a large link does not grow the
    /// table again and again.
    pub fn reserve(&mut self, additional: usize) {
        self.names.reserve(additional);
        self.symbols.reserve(additional);
    }

    pub fn lookup(&self, name: &[u8]) -> Option<SymbolId> {
        self.names.lookup(name, &name_of(&self.symbols))
    }

    pub fn get(&self, id: SymbolId) -> &Symbol {
        &self.symbols[id as usize]
    }

    /// Gives the symbol its [`Symbol::rank`], if it has none yet.
    pub fn touch(&mut self, id: SymbolId) {
        let sym = &mut self.symbols[id as usize];
        if sym.rank == u32::MAX {
            sym.rank = self.next_rank;
            self.next_rank += 1;
        }
    }

    /// Interns `name` and gives it a rank.
    pub fn intern_touched(&mut self, name: &'static [u8]) -> SymbolId {
        let id = self.intern(name);
        self.touch(id);
        id
    }

    /// Every id in lld's order ([`Symbol::rank`]); those no input named (the linker's own)
    /// after them, in id order.
    pub fn in_lld_order(&self) -> Vec<SymbolId> {
        use rayon::prelude::*;
        use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
        // Ranks are distinct, so each slot is written once: in parallel, a pass over every
        // symbol's record being most of the work.
        let slots: Vec<AtomicU32> = (0..self.next_rank)
            .into_par_iter()
            .map(|_| AtomicU32::new(SymbolId::MAX))
            .collect();
        let rest: Vec<SymbolId> = self
            .symbols
            .par_iter()
            .enumerate()
            .filter_map(|(id, sym)| match slots.get(sym.rank as usize) {
                Some(slot) => {
                    slot.store(id as SymbolId, Relaxed);
                    None
                }
                None => Some(id as SymbolId),
            })
            .collect();
        let mut order: Vec<SymbolId> = slots
            .into_iter()
            .map(AtomicU32::into_inner)
            .filter(|&id| id != SymbolId::MAX)
            .collect();
        order.extend(rest);
        order
    }

    /// The ids of the symbols `keep` accepts, in the order of [`Self::in_lld_order`]: for a
    /// few symbols of many (`.dynsym`'s), cheaper than ordering all of them.
    pub fn in_lld_order_where(&self, keep: impl Fn(&Symbol) -> bool + Sync) -> Vec<SymbolId> {
        use rayon::prelude::*;
        let mut kept: Vec<(bool, u32, SymbolId)> = self
            .symbols
            .par_iter()
            .enumerate()
            .filter(|(_, sym)| keep(sym))
            .map(|(id, sym)| {
                let id = id as SymbolId;
                // Unranked symbols (the linker's own) last, in id order.
                if sym.rank < self.next_rank {
                    (false, sym.rank, id)
                } else {
                    (true, 0, id)
                }
            })
            .collect();
        kept.par_sort_unstable();
        kept.into_iter().map(|(_, _, id)| id).collect()
    }

    pub fn get_mut(&mut self, id: SymbolId) -> &mut Symbol {
        &mut self.symbols[id as usize]
    }
}

/// The outcome of resolution: every object that takes part, every shared library, and the
/// symbol table that binds them.
pub struct Resolved {
    pub objects: Vec<ObjectFile>,
    pub dsos: Vec<SharedFile>,
    pub symtab: SymbolTable,
}

/// A file a linker plugin claimed (`gcc -flto` objects): the symbols it reported stand for
/// it until the plugin hands back objects.
pub struct PluginFile {
    pub name: String,
    /// The plugin host's handle for the file.
    pub handle: usize,
    pub symbols: Vec<crate::plugin_host::PluginSymbol>,
}

/// An LLVM bitcode input taking part in the link, with its summary.
pub struct BitcodeModule {
    pub name: String,
    pub data: &'static [u8],
    pub summary: rld_summaries::ModuleSummary,
}

/// Symbol resolution in progress: inputs are added in command-line order, then (with LTO)
/// the compiled bitcode comes back as an object, and `finish` checks the result.
pub struct Resolver {
    objects: Vec<ObjectFile>,
    pub dsos: Vec<SharedFile>,
    archives: Vec<Archive>,
    fetched: Vec<Vec<bool>>,
    pub symtab: SymbolTable,
    pub bitcode: Vec<BitcodeModule>,
    /// The linker plugins (`-plugin`), and the files they claimed.
    pub plugins: Option<crate::plugin_host::PluginHost>,
    pub plugin_files: Vec<PluginFile>,
    /// The first file with each COMDAT group whose signature was no symbol's name when the
    /// group was first seen: (signature's hash, signature, file).
    comdats: hashbrown::HashTable<(u64, &'static [u8], FileId)>,
    /// The first file with each COMDAT group whose signature is a symbol's name, by the
    /// symbol's id (`FileId::MAX`: none yet). See [`Resolver::first_with_group`].
    comdat_by_symbol: Vec<FileId>,
    /// `name@VERSION` of every versioned shared-library definition, for references that
    /// name a version.
    dso_versioned: FxHashMap<Vec<u8>, (DsoId, u32)>,
    /// Archive members an `--as-needed` library's definition took the place of (symbol,
    /// archive, member): GNU ld forgets such a library's symbols while nothing needs it,
    /// so that code gcc's LTO generates takes those symbols from the archive
    /// ([`Resolver::forget_unneeded_libraries`]).
    shadowed_members: Vec<(SymbolId, u32, u32)>,
    /// What [`Resolver::forget_unneeded_libraries`] took back: each symbol's library
    /// definition, its type and size.
    forgotten: Vec<(SymbolId, SymbolDef, u8, u64)>,
    /// Archive members fetched and not yet added, a stack: the next to add on top. Each
    /// is parsing in the background from the moment it is fetched.
    pending: Vec<(u32, u32, Ticket)>,
    /// Members whose parse started before anything fetched them (their symbols are wanted
    /// already): a fetch takes the ticket instead of starting another parse.
    speculated: FxHashMap<(u32, u32), Ticket>,
    /// Some archive symbol may still load its member: adding an object may fetch.
    any_lazy: bool,
    /// How many objects are being added inside one another (each loading the next).
    depth: u32,
    prefetch: Prefetch,
    duplicates: Vec<String>,
    allow_multiple_definition: bool,
    cache_dir: Option<std::path::PathBuf>,
    /// Set while the LTO object is added: its definitions replace the bitcode ones.
    adding_lto_object: bool,
    /// `--wrap`: undefined references to a key go to its value (`foo` → `__wrap_foo`,
    /// `__real_foo` → `foo`).
    wrapped: FxHashMap<Vec<u8>, &'static [u8]>,
    /// `-t`: print each file as it is loaded.
    pub trace_files: bool,
    /// `-y SYMBOL`: print each file that defines or references these.
    pub trace_symbols: FxHashSet<Vec<u8>>,
    /// The LTO object is not an input: it is not traced.
    tracing_lto_object: bool,
    /// `--why-extract`: each member loaded because of a reference, in loading order; None
    /// when not asked.
    pub why_extract: Option<Vec<Extraction>>,
    /// The file whose symbols are being added (what a fetch is for, in `--why-extract`
    /// and `--warn-backrefs`).
    current_file: String,
    /// `--warn-backrefs`: None when not asked.
    pub backrefs: Option<crate::backrefs::Backrefs>,
    /// `--dependent-libraries` (lld's default): the libraries the files added name in
    /// `.deplibs` (or bitcode's `llvm.dependent-libraries`) and not yet added, each with
    /// the file naming it; None when not asked.
    pub dependent_libraries: Option<Vec<(String, String)>>,
    /// `--warn-common`.
    pub warn_common: bool,
    /// See `Options::fortran_common`.
    pub fortran_common: bool,
    /// `-r`: SHF_EXCLUDE sections are copied (a later link decides about them), as lld and
    /// GNU ld do: gcc's and clang's IR in fat LTO objects, gcc's own LTO output for `-r`.
    pub keep_excluded: bool,
    /// `-O0` (not with `-r`): mergeable sections are not merged (lld's rule).
    pub unmerged: bool,
    /// `--noinhibit-exec`: duplicate definitions are warned about (the first one wins),
    /// as lld downgrades its errors.
    pub duplicates_warn: bool,
}

/// Why an archive member was loaded (`--why-extract`).
#[derive(Debug)]
pub struct Extraction {
    /// The file that referred to the symbol, or `<internal>` (`-u`), or an option.
    pub reference: String,
    pub archive: u32,
    pub member: u32,
    pub symbol: &'static [u8],
}

impl Resolver {
    /// `-t` and `-y`, worded as lld words them, on standard output.
    fn trace_file(&self, name: &str) {
        if self.trace_files && !self.tracing_lto_object {
            println!("{name}");
        }
    }

    fn trace_symbol(&self, file: &str, name: &[u8], what: &str) {
        if !self.tracing_lto_object && self.trace_symbols.contains(name) {
            println!("{file}: {what} {}", String::from_utf8_lossy(name));
        }
    }

    /// `roots` (entry, `-u`) are referenced before any file, so they fetch members too.
    pub fn new(
        roots: &[String],
        allow_multiple_definition: bool,
        cache_dir: Option<&std::path::Path>,
    ) -> Resolver {
        let mut r = Resolver {
            objects: Vec::new(),
            dsos: Vec::new(),
            archives: Vec::new(),
            fetched: Vec::new(),
            symtab: SymbolTable::default(),
            bitcode: Vec::new(),
            plugins: None,
            plugin_files: Vec::new(),
            comdats: hashbrown::HashTable::new(),
            comdat_by_symbol: Vec::new(),
            dso_versioned: FxHashMap::default(),
            shadowed_members: Vec::new(),
            forgotten: Vec::new(),
            pending: Vec::new(),
            speculated: FxHashMap::default(),
            any_lazy: false,
            depth: 0,
            prefetch: Prefetch::default(),
            duplicates: Vec::new(),
            allow_multiple_definition,
            cache_dir: cache_dir.map(Into::into),
            adding_lto_object: false,
            wrapped: FxHashMap::default(),
            trace_files: false,
            trace_symbols: Default::default(),
            tracing_lto_object: false,
            why_extract: None,
            current_file: String::new(),
            backrefs: None,
            dependent_libraries: None,
            warn_common: false,
            fortran_common: false,
            keep_excluded: false,
            unmerged: false,
            duplicates_warn: false,
        };
        for root in roots {
            r.add_root(root);
        }
        r
    }

    /// A reference to `name` from outside the inputs (`-u`, the entry point, a script).
    fn add_root(&mut self, name: &str) -> SymbolId {
        let name: &'static [u8] = Box::leak(name.to_owned().into_bytes().into_boxed_slice());
        let id = self.symtab.intern_touched(name);
        self.symtab.get_mut(id).note_strong_ref();
        id
    }

    /// References made once every input is in (what script assignments read, the entry
    /// point): an archive member defining one is loaded now, after every input.
    pub fn add_late_roots(&mut self, roots: &[String]) -> Result<()> {
        let mut fetched = false;
        for root in roots {
            let id = self.add_root(root);
            match self.symtab.get(id).def {
                SymbolDef::Lazy { archive, member } => {
                    let name = self.symtab.get(id).name;
                    self.load_for(archive, member, name, "<internal>")?;
                    fetched = true;
                }
                SymbolDef::Shared { dso, .. } => self.dsos[dso as usize].needed = true,
                _ => {}
            }
        }
        if fetched {
            self.mark_needed_libraries();
        }
        Ok(())
    }

    /// `--wrap SYMBOL` for each of `symbols`.
    pub fn wrap(&mut self, symbols: &[String]) {
        for s in symbols {
            let leak =
                |v: String| -> &'static [u8] { Box::leak(v.into_bytes().into_boxed_slice()) };
            self.wrapped
                .insert(s.as_bytes().to_vec(), leak(format!("__wrap_{s}")));
            self.wrapped
                .insert(format!("__real_{s}").into_bytes(), leak(s.clone()));
        }
    }

    /// Loads every input in order, resolving symbols and fetching the archive members needed.
    pub fn add_inputs(&mut self, inputs: Vec<InputFile>) -> Result<()> {
        // Summaries of the bitcode named on the command line are built in parallel up front;
        // archive members are summarized when fetched.
        let bitcode: Vec<rld_lto_api::BitcodeInput> = inputs
            .iter()
            .filter_map(|f| match f {
                InputFile::Bitcode { name, data } => Some(rld_lto_api::BitcodeInput { name, data }),
                _ => None,
            })
            .collect();
        // Archive indexes name most of the symbols a link will see.
        let indexed: usize = inputs
            .iter()
            .map(|f| match f {
                InputFile::Archive(a) => a.index_names,
                _ => 0,
            })
            .sum();
        self.symtab.reserve(indexed);
        let mut summaries = self.summarize(&bitcode)?.into_iter();
        // The archives, numbered as `add_archive` will number them, for parsing ahead.
        if self.archives.is_empty() {
            let archives = inputs
                .iter()
                .filter_map(|f| match f {
                    InputFile::Archive(a) if a.whole => Some(crate::prefetch::AheadArchive {
                        members: Vec::new(),
                        index: None,
                    }),
                    InputFile::Archive(a) => Some(crate::prefetch::AheadArchive {
                        members: a.members.iter().map(|m| (m.name.clone(), m.data)).collect(),
                        index: Some(std::sync::Arc::clone(&a.symbols)),
                    }),
                    _ => None,
                })
                .collect();
            self.prefetch.plan_ahead(archives, self.plugin_offers());
        }
        // Every object named on the command line is loaded, and every member of a whole
        // archive: all of them start parsing now, in the order resolution takes them (were
        // a whole archive's members submitted when resolution reaches it, the threads would
        // run dry at the end of each archive).
        let plugins = self.plugin_offers();
        let mut tickets: VecDeque<Ticket> = inputs
            .iter()
            .filter_map(|f| match f {
                InputFile::Object { name, data } => {
                    Some(self.prefetch.submit(name.clone(), data, plugins, true))
                }
                _ => None,
            })
            .collect();
        let mut whole_tickets: VecDeque<Vec<Ticket>> = inputs
            .iter()
            .filter_map(|f| match f {
                InputFile::Archive(a) if a.whole => Some(
                    a.members
                        .iter()
                        .map(|m| self.prefetch.submit(m.name.clone(), m.data, plugins, false))
                        .collect(),
                ),
                _ => None,
            })
            .collect();
        // Shared libraries too, after those (they usually come last).
        let mut shared_tickets: VecDeque<Ticket> = inputs
            .iter()
            .filter_map(|f| match f {
                InputFile::Shared {
                    name,
                    soname,
                    data,
                    as_needed,
                } => Some(self.prefetch.submit_shared(
                    name.clone(),
                    soname.clone(),
                    data,
                    *as_needed,
                )),
                _ => None,
            })
            .collect();
        for input in inputs {
            let mark = self.pending.len();
            if let Some(b) = &mut self.backrefs {
                b.next_input();
            }
            match input {
                InputFile::Object { name, data } => {
                    let ticket = tickets.pop_front().expect("one ticket per object");
                    match self.prefetch.take(ticket) {
                        Parsed::ForPlugin => {
                            let path = std::path::Path::new(&name);
                            if !self.offer_to_plugins(&name, path, 0, data)? {
                                self.add_object(name, data)?
                            }
                        }
                        Parsed::Object(parsed) => self.add_parsed_objects(vec![*parsed?])?,
                        // Classified as ELF by the same magic: not reached, but an error
                        // (from the ELF reader) rather than a panic if it were.
                        Parsed::Bitcode => self.add_object(name, data)?,
                        Parsed::Shared(_) => unreachable!("objects are parsed as objects"),
                    }
                }
                InputFile::Archive(archive) => {
                    let parsing = if archive.whole {
                        whole_tickets
                            .pop_front()
                            .expect("one ticket list per whole archive")
                    } else {
                        Vec::new()
                    };
                    self.add_archive(archive, parsing)?
                }
                InputFile::Shared { .. } => {
                    let ticket = shared_tickets.pop_front().expect("one ticket per library");
                    match self.prefetch.take(ticket) {
                        Parsed::Shared(dso) => self.add_shared(*dso?),
                        _ => unreachable!("a shared library's parse gives a shared library"),
                    }
                }
                InputFile::Bitcode { name, data } => {
                    let summary = summaries.next().expect("one summary per bitcode input");
                    self.add_bitcode(name, data, summary);
                }
            }
            self.settle(mark)?;
        }
        self.mark_needed_libraries();
        Ok(())
    }

    /// The summaries of `inputs` (LLVM is loaded only when there are some).
    fn summarize(
        &self,
        inputs: &[rld_lto_api::BitcodeInput],
    ) -> Result<Vec<rld_summaries::ModuleSummary>> {
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let backend = crate::lto_backend::backend()?;
        Ok(backend.summarize_all(inputs, self.cache_dir.as_deref(), &warn)?)
    }

    /// `--undefined-glob PATTERN` (lld's): every archive member defining a symbol whose name
    /// matches is loaded, as if the symbol were referenced (members loaded on the way are not
    /// matched again).
    pub fn fetch_matching(&mut self, patterns: &[String]) -> Result<()> {
        if patterns.is_empty() {
            return Ok(());
        }
        let members: Vec<(u32, u32, &'static [u8])> = self
            .symtab
            .symbols
            .iter()
            .filter(|s| {
                patterns
                    .iter()
                    .any(|p| crate::dynamic_list::glob_match(p.as_bytes(), s.name))
            })
            .filter_map(|s| match s.def {
                SymbolDef::Lazy { archive, member } => Some((archive, member, s.name)),
                _ => None,
            })
            .collect();
        for (archive, member, name) in members {
            self.load_for(archive, member, name, "--undefined-glob")?;
        }
        self.mark_needed_libraries();
        Ok(())
    }

    /// Adds the object LTO produced: its definitions take the place of the bitcode ones, and
    /// whatever bitcode definitions it no longer exports (internalized or dropped) are gone.
    pub fn add_lto_objects(&mut self, objects: Vec<(String, &'static [u8])>) -> Result<()> {
        self.adding_lto_object = true;
        self.tracing_lto_object = true;
        let mark = self.pending.len();
        for (name, data) in objects {
            self.add_object(name, data)?;
        }
        self.adding_lto_object = false;
        for sym in self.symtab.symbols.iter_mut() {
            if let SymbolDef::Bitcode { .. }
            | SymbolDef::BitcodeAsm { .. }
            | SymbolDef::Plugin { .. } = sym.def
            {
                sym.def = SymbolDef::Undefined;
                sym.weak = true;
            }
        }
        self.settle(mark)?;
        self.mark_needed_libraries();
        Ok(())
    }

    /// gcc's LTO (GNU ld's rule): an `--as-needed` library that nothing needed when it was
    /// read is not loaded, so the calls gcc's code generation adds (`__addtf3` for
    /// `__float128` arithmetic) take the archive member that library had shadowed
    /// (libgcc.a's, before libgcc_s.so on gcc's command line), and the library gets no
    /// `DT_NEEDED` for them. Undone for what the objects do not use by
    /// [`Resolver::remember_unneeded_libraries`].
    pub fn forget_unneeded_libraries(&mut self) {
        for &(id, archive, member) in &self.shadowed_members {
            let sym = self.symtab.get_mut(id);
            let SymbolDef::Shared { dso, .. } = sym.def else {
                continue;
            };
            let d = &self.dsos[dso as usize];
            if !d.as_needed || d.needed || self.fetched[archive as usize][member as usize] {
                continue;
            }
            self.forgotten.push((id, sym.def, sym.sym_type, sym.size));
            sym.def = SymbolDef::Lazy { archive, member };
        }
    }

    /// The library definitions [`Resolver::forget_unneeded_libraries`] took back where no
    /// archive member took their place.
    pub fn remember_unneeded_libraries(&mut self) {
        for (id, def, sym_type, size) in std::mem::take(&mut self.forgotten) {
            let sym = self.symtab.get_mut(id);
            if let SymbolDef::Lazy { .. } | SymbolDef::Undefined = sym.def {
                sym.def = def;
                sym.sym_type = sym_type;
                sym.size = size;
            }
        }
        self.mark_needed_libraries();
    }

    /// Whether an archive or shared library of this name (its path) is already an input.
    pub fn has_library(&self, name: &str) -> bool {
        self.archives.iter().any(|a| a.name == name) || self.dsos.iter().any(|d| d.name == name)
    }

    /// `--exclude-libs`: symbols defined by members of the named archives (by file name,
    /// or `ALL`) are not exported from the output.
    pub fn hide_archive_symbols(&mut self, libs: &[String]) {
        let names: Vec<&str> = libs.iter().flat_map(|l| l.split([',', ':'])).collect();
        let excluded = |member: &str| {
            let Some(archive) = member.strip_suffix(')').and_then(|m| m.rsplit_once('(')) else {
                return false;
            };
            let file = std::path::Path::new(archive.0)
                .file_name()
                .map_or(String::new(), |f| f.to_string_lossy().into_owned());
            names.iter().any(|&n| n == "ALL" || n == file)
        };
        for sym in self.symtab.symbols.iter_mut() {
            let from = match sym.def {
                SymbolDef::Defined { file, .. } | SymbolDef::Common { file, .. } => {
                    self.objects.get(file as usize).map(|o| o.name.as_str())
                }
                SymbolDef::Bitcode { module, .. } | SymbolDef::BitcodeAsm { module } => {
                    self.bitcode.get(module as usize).map(|m| m.name.as_str())
                }
                SymbolDef::Plugin { file, .. } => self
                    .plugin_files
                    .get(file as usize)
                    .map(|f| f.name.as_str()),
                _ => None,
            };
            if from.is_some_and(&excluded) && sym.visibility == elf::STV_DEFAULT {
                sym.visibility = elf::STV_HIDDEN;
            }
        }
    }

    /// Whether any ELF object (not bitcode) takes part.
    pub fn has_objects(&self) -> bool {
        !self.objects.is_empty()
    }

    /// Hands the archives' symbol indexes back to the kernel: resolution has read them,
    /// and a large library's is megabytes.
    pub fn release_archive_indexes(&self) {
        for archive in &self.archives {
            crate::input::release_pages(archive.index);
        }
    }

    pub fn finish(self) -> Result<Resolved> {
        if self.duplicates_warn {
            for report in &self.duplicates {
                crate::diag::warn_lines(report);
            }
        } else if !self.duplicates.is_empty() {
            return Err(LinkError::Many(self.duplicates));
        }
        Ok(Resolved {
            objects: self.objects,
            dsos: self.dsos,
            symtab: self.symtab,
        })
    }

    fn add_bitcode(
        &mut self,
        name: String,
        data: &'static [u8],
        summary: rld_summaries::ModuleSummary,
    ) {
        use rld_summaries::{GlobalFlags, GlobalKind, Linkage, Visibility};
        let module = self.bitcode.len() as u32;
        self.trace_file(&name);
        self.note_current_file(&name);
        if let Some(wanted) = &mut self.dependent_libraries {
            let named = summary.dependent_libraries.iter();
            wanted.extend(named.map(|lib| (lib.clone(), name.clone())));
        }
        for (i, g) in summary.globals.iter().enumerate() {
            if g.linkage.is_local() || g.name.starts_with("llvm.") || g.name.is_empty() {
                continue;
            }
            let what = if g.flags.contains(GlobalFlags::DECLARATION) {
                "reference to"
            } else {
                "definition of"
            };
            self.trace_symbol(&name, g.name.as_bytes(), what);
            let sym_name: &'static [u8] = Box::leak(g.name.clone().into_bytes().into_boxed_slice());
            let id = self.symtab.intern_touched(sym_name);
            let vis = match g.visibility {
                Visibility::Default => elf::STV_DEFAULT,
                Visibility::Hidden => elf::STV_HIDDEN,
                Visibility::Protected => elf::STV_PROTECTED,
            };
            self.symtab.get_mut(id).merge_visibility(vis);
            let sym_type = if g.flags.contains(GlobalFlags::THREAD_LOCAL) {
                elf::STT_TLS
            } else if matches!(g.kind, GlobalKind::Function | GlobalKind::IFunc) {
                elf::STT_FUNC
            } else {
                elf::STT_OBJECT
            };
            if g.flags.contains(GlobalFlags::DECLARATION) {
                let weak = g.linkage == Linkage::ExternalWeak;
                self.add_bitcode_reference(id, weak, sym_type);
            } else if g.linkage != Linkage::AvailableExternally {
                // lld's rule: omittable while every definition so far is (lazy, common and
                // shared ones do not count).
                let sym = self.symtab.get_mut(id);
                let defined_before =
                    sym.is_defined_locally() && !matches!(sym.def, SymbolDef::Common { .. });
                sym.lto_can_omit = g.flags.contains(GlobalFlags::CAN_OMIT)
                    && (!defined_before || sym.lto_can_omit);
                let def = SymbolDef::Bitcode {
                    module,
                    index: i as u32,
                };
                self.add_defined(id, def, g.linkage.is_weak_for_linker(), sym_type, 0, &name);
            }
        }
        // Then the symbols of its inline asm, as lld takes them from LLVM's IR symbol table
        // (`.symver` aliases by their versioned names: `foo@@VER` defines foo).
        for a in &summary.asm_symbols {
            let full: &'static [u8] = Box::leak(a.name.clone().into_bytes().into_boxed_slice());
            let (sym_name, version, versioned_name) = split_symver(full, a.defined);
            let what = if a.defined {
                "definition of"
            } else {
                "reference to"
            };
            self.trace_symbol(&name, sym_name, what);
            let id = self.symtab.intern_touched(sym_name);
            if a.defined {
                if let Some(v) = version {
                    self.symtab.get_mut(id).version = Some(Box::new(v));
                }
                let def = SymbolDef::BitcodeAsm { module };
                self.add_defined(id, def, a.weak, elf::STT_NOTYPE, 0, &name);
            } else {
                if versioned_name {
                    self.bind_versioned_reference(id, sym_name);
                }
                self.add_bitcode_reference(id, a.weak, elf::STT_NOTYPE);
            }
        }
        self.bitcode.push(BitcodeModule {
            name,
            data,
            summary,
        });
    }

    /// A reference from bitcode: it fetches archive members like any other, but does not
    /// count as a native reference (LTO may still internalize or drop the target).
    fn add_bitcode_reference(&mut self, id: SymbolId, weak: bool, sym_type: u8) {
        self.symtab.get_mut(id).bitcode_ref = true;
        self.add_ir_reference(id, weak, sym_type);
    }

    /// A reference from IR (bitcode, or a file a plugin claimed): it fetches archive members
    /// like any other, but it is not a native object's reference.
    fn add_ir_reference(&mut self, id: SymbolId, weak: bool, sym_type: u8) {
        let sym = self.symtab.get_mut(id);
        if !weak {
            sym.note_strong_ref();
        }
        match sym.def {
            SymbolDef::Undefined if sym.sym_type == elf::STT_NOTYPE => sym.sym_type = sym_type,
            SymbolDef::Lazy { archive, member } if !weak => {
                let name = sym.name;
                self.fetch_for_current(id, archive, member, name)
            }
            _ => {}
        }
    }
    /// Loads the members fetched since the pending stack held `mark` entries, in the order
    /// they were fetched (see [`drain_fetches`](Self::drain_fetches)).
    fn settle(&mut self, mark: usize) -> Result<()> {
        self.pending[mark..].reverse();
        self.drain_fetches()
    }

    /// Loads the fetched archive members depth first, as lld does: a member, then what it
    /// fetches (in the order it fetched them, each with what that one fetches), then the
    /// member fetched before it. The order never depends on timing; each member is parsed in
    /// the background from the moment it was fetched (or its symbols were first wanted).
    ///
    /// While no archive symbol can load a member, adding objects fetches nothing: the
    /// members parsed already are added as one batch, their names interned together.
    fn drain_fetches(&mut self) -> Result<()> {
        self.drain_above(0)
    }

    /// [`drain_fetches`](Self::drain_fetches) for the members above the first `floor` of
    /// the pending stack (those an object being added just fetched).
    fn drain_above(&mut self, floor: usize) -> Result<()> {
        let mut batch = Vec::new();
        while self.pending.len() > floor {
            let Some((a, m, ticket)) = self.pending.pop() else {
                break;
            };
            let mark = self.pending.len();
            let member = &self.archives[a as usize].members[m as usize];
            if let Some(b) = &mut self.backrefs {
                b.loading = b.archive_group(a);
            }
            match self.prefetch.take(ticket) {
                Parsed::Object(parsed) => {
                    batch.push(*parsed?);
                    // Whatever is parsed already joins the batch; resolution does not wait
                    // for the rest (unless each member's group is wanted).
                    let next_ready = !self.any_lazy
                        && self.backrefs.is_none()
                        && self.pending.len() > floor
                        && self
                            .pending
                            .last()
                            .is_some_and(|&(_, _, t)| self.prefetch.is_ready(t));
                    if !next_ready {
                        self.add_parsed_objects(std::mem::take(&mut batch))?;
                    }
                }
                Parsed::ForPlugin => {
                    let (name, data) = (member.name.clone(), member.data);
                    let (file, offset) = (member.file.clone(), member.offset);
                    self.add_parsed_objects(std::mem::take(&mut batch))?;
                    if !self.offer_to_plugins(&name, &file, offset, data)? {
                        self.add_object(name, data)?;
                    }
                }
                Parsed::Shared(_) => unreachable!("archive members are parsed as objects"),
                Parsed::Bitcode => {
                    let (name, data) = (member.name.clone(), member.data);
                    self.add_parsed_objects(std::mem::take(&mut batch))?;
                    let summary = self
                        .summarize(&[rld_lto_api::BitcodeInput { name: &name, data }])?
                        .remove(0);
                    self.add_bitcode(name, data, summary);
                }
            }
            // What it fetched, first fetch on top.
            self.pending[mark..].reverse();
        }
        Ok(())
    }

    /// Starts parsing member `member` of archive `archive` before anything fetches it: one
    /// of its symbols is wanted, so it will most likely be loaded, and loading goes depth
    /// first (the member is needed the moment it is fetched).
    fn speculate(&mut self, archive: u32, member: u32) {
        if self.fetched[archive as usize][member as usize]
            || self.speculated.contains_key(&(archive, member))
        {
            return;
        }
        let m = &self.archives[archive as usize].members[member as usize];
        let plugins = self.plugin_offers();
        let ticket = self
            .prefetch
            .member(archive, member, &m.name, m.data, plugins);
        self.speculated.insert((archive, member), ticket);
    }

    /// What the plugins are offered before rld parses it (see [`PluginOffers`]).
    fn plugin_offers(&self) -> PluginOffers {
        match (&self.plugins, self.keep_excluded) {
            (None, _) => PluginOffers::Nothing,
            (Some(_), false) => PluginOffers::Ir,
            (Some(_), true) => PluginOffers::Everything,
        }
    }

    /// Offers a file to the plugins (one with gcc's IR; with `-r`, every object); a file
    /// one of them claims takes part in resolution through the symbols it reported.
    fn offer_to_plugins(
        &mut self,
        name: &str,
        path: &std::path::Path,
        offset: u64,
        data: &'static [u8],
    ) -> Result<bool> {
        let Some(host) = self.plugins.as_mut() else {
            return Ok(false);
        };
        let offer = crate::plugin_host::Offer { path, offset, data };
        let Some(claimed) = host.claim(&offer, name)? else {
            return Ok(false);
        };
        self.add_plugin_file(name.to_string(), claimed);
        Ok(true)
    }

    fn add_plugin_file(&mut self, name: String, claimed: crate::plugin_host::ClaimedFile) {
        use rld_plugin_api::{SymbolKind, SymbolType, Visibility};
        let file = self.plugin_files.len() as u32;
        self.note_current_file(&name);
        for (i, s) in claimed.symbols.iter().enumerate() {
            if s.name.is_empty() {
                continue;
            }
            let full: &'static [u8] = Box::leak(s.name.clone().into_bytes().into_boxed_slice());
            // gcc names a `symver` attribute's alias `foo@@VER`, as the assembler would.
            let (sym_name, version, versioned_name) = split_symver(full, s.is_definition());
            let id = self.symtab.intern_touched(sym_name);
            if let Some(v) = version {
                self.symtab.get_mut(id).version = Some(Box::new(v));
            } else if versioned_name {
                self.bind_versioned_reference(id, sym_name);
            }
            let vis = match s.visibility {
                Visibility::HIDDEN => elf::STV_HIDDEN,
                Visibility::INTERNAL => elf::STV_INTERNAL,
                Visibility::PROTECTED => elf::STV_PROTECTED,
                _ => elf::STV_DEFAULT,
            };
            self.symtab.get_mut(id).merge_visibility(vis);
            let sym_type = match s.symbol_type {
                SymbolType::FUNCTION => elf::STT_FUNC,
                SymbolType::VARIABLE => elf::STT_OBJECT,
                _ => elf::STT_NOTYPE,
            };
            if s.is_definition() {
                let def = SymbolDef::Plugin {
                    file,
                    index: i as u32,
                };
                // A common symbol is as weak as a common symbol: a real definition beats it.
                let weak = s.kind != SymbolKind::DEF;
                self.add_defined(id, def, weak, sym_type, s.size, &name);
            } else {
                let weak = s.kind == SymbolKind::WEAKUNDEF;
                let before = self.symtab.get(id);
                let only_plugins = !before.has_strong_ref || before.plugin_ref_only;
                self.add_ir_reference(id, weak, sym_type);
                if !weak && only_plugins {
                    self.symtab.get_mut(id).plugin_ref_only = true;
                }
            }
        }
        self.plugin_files.push(PluginFile {
            name,
            handle: claimed.handle,
            symbols: claimed.symbols,
        });
    }

    /// Fetches a member for `symbol`, wanted by `reference` (recorded for `--why-extract`).
    fn fetch_for(&mut self, archive: u32, member: u32, symbol: &'static [u8], reference: &str) {
        if !self.fetched[archive as usize][member as usize] {
            if let Some(why) = &mut self.why_extract {
                why.push(Extraction {
                    reference: reference.to_string(),
                    archive,
                    member,
                    symbol,
                });
            }
        }
        self.fetch(archive, member);
    }

    /// Fetches a member for `symbol` (as [`fetch_for`](Self::fetch_for)) and, if it was not
    /// loaded yet, loads it now with what it loads in turn.
    fn load_for(
        &mut self,
        archive: u32,
        member: u32,
        symbol: &'static [u8],
        reference: &str,
    ) -> Result<()> {
        let fresh = !self.fetched[archive as usize][member as usize];
        self.fetch_for(archive, member, symbol, reference);
        if fresh {
            self.drain_fetches()?;
        }
        Ok(())
    }

    /// `--warn-backrefs`' warnings (see [`crate::backrefs`]), once the command line's
    /// inputs are resolved: later loads (a plugin's libraries) are not checked.
    pub fn backward_references(&mut self, exclude: &[String]) -> Vec<String> {
        let Some(backrefs) = self.backrefs.take() else {
            return Vec::new();
        };
        let member_name =
            |a: u32, m: u32| self.archives[a as usize].members[m as usize].name.clone();
        backrefs.report(&self.symtab, member_name, exclude)
    }

    /// What `--print-archive-stats` writes, as lld writes it: each archive on the command
    /// line (as often as it is named), its members and how many were loaded.
    pub fn archive_stats(&self) -> String {
        let mut out = String::from("members\textracted\tarchive\n");
        for (archive, fetched) in self.archives.iter().zip(&self.fetched) {
            if archive.lazy_object {
                continue;
            }
            let extracted = fetched.iter().filter(|&&f| f).count();
            out.push_str(&format!(
                "{}\t{extracted}\t{}\n",
                archive.members.len(),
                archive.name
            ));
        }
        out
    }

    /// What `--why-extract` writes, as lld writes it.
    pub fn why_extract_report(&self) -> Option<String> {
        let why = self.why_extract.as_ref()?;
        let mut out = String::from("reference\textracted\tsymbol\n");
        for e in why {
            let member = &self.archives[e.archive as usize].members[e.member as usize].name;
            out.push_str(&format!(
                "{}\t{member}\t{}\n",
                e.reference,
                crate::demangle::display(e.symbol)
            ));
        }
        Some(out)
    }

    /// Remembers the file being added, for `--why-extract` and `--warn-backrefs` (only
    /// when they are asked for); with the latter, returns its group.
    fn note_current_file(&mut self, name: &str) -> u32 {
        if self.why_extract.is_some() || self.backrefs.is_some() {
            self.current_file = name.to_string();
        }
        match &mut self.backrefs {
            Some(b) => {
                b.current = b.loading;
                b.current
            }
            None => 0,
        }
    }

    /// Back to the file being added (`group`: what [`Self::note_current_file`] returned for
    /// it) after loading what it fetched.
    fn resume_current_file(&mut self, name: &str, group: u32) {
        self.note_current_file(name);
        if let Some(b) = &mut self.backrefs {
            b.current = group;
        }
    }

    /// Fetches a member for `symbol`, wanted by the file being added.
    fn fetch_for_current(
        &mut self,
        id: SymbolId,
        archive: u32,
        member: u32,
        symbol: &'static [u8],
    ) {
        if let Some(b) = &mut self.backrefs {
            b.reference(id, &self.current_file, archive, member);
        }
        let reference = std::mem::take(&mut self.current_file);
        self.fetch_for(archive, member, symbol, &reference);
        self.current_file = reference;
    }

    /// Who wants `id` so far, for `--why-extract`: the first object that referred to it.
    fn referrer(&self, id: SymbolId) -> String {
        if self.why_extract.is_none() {
            return String::new();
        }
        match self.symtab.get(id).ref_file {
            Some(f) => self.objects[f as usize].name.clone(),
            None => "<internal>".to_string(),
        }
    }

    fn fetch(&mut self, archive: u32, member: u32) {
        if !self.fetched[archive as usize][member as usize] {
            let ticket = match self.speculated.remove(&(archive, member)) {
                Some(ticket) => ticket,
                None => {
                    let m = &self.archives[archive as usize].members[member as usize];
                    let plugins = self.plugin_offers();
                    self.prefetch
                        .member(archive, member, &m.name, m.data, plugins)
                }
            };
            self.fetch_parsing(archive, member, ticket);
        }
    }

    /// Fetches a member whose parse started as `ticket`.
    fn fetch_parsing(&mut self, archive: u32, member: u32, ticket: Ticket) {
        self.fetched[archive as usize][member as usize] = true;
        self.pending.push((archive, member, ticket));
    }

    /// Adds an archive; `parsing` holds the tickets of the members whose parse has started
    /// (every member of a whole archive, which are all fetched; none of another).
    fn add_archive(&mut self, archive: Archive, parsing: Vec<Ticket>) -> Result<()> {
        let a = self.archives.len() as u32;
        if let Some(b) = &mut self.backrefs {
            b.archive_added(a);
        }
        self.fetched.push(vec![false; archive.members.len()]);
        // In place before anything is fetched: a fetch starts parsing the member.
        self.archives.push(archive);
        // A whole archive's members, in order (added after the archive, as fetches are).
        for (m, ticket) in parsing.into_iter().enumerate() {
            self.fetch_parsing(a, m as u32, ticket);
        }
        // The index names are interned first (together: in parallel for a large index).
        let index = std::sync::Arc::clone(&self.archives[a as usize].symbols);
        let ids = self
            .symtab
            .intern_batch(&[&index[..]], true)
            .pop()
            .unwrap_or_default();
        // The index in order, as lld takes each member's symbols in turn: a member is
        // loaded (with what it loads in turn) the moment one of its symbols is wanted, before
        // the later members' symbols are known. The members wanted a little further on start
        // parsing ahead of the walk (their symbols' records still in cache when it gets
        // there).
        const AHEAD: usize = 512;
        let mut ahead = 0;
        for k in 0..ids.len() {
            while ahead < ids.len().min(k + AHEAD) {
                let sym = self.symtab.get(ids[ahead]);
                if sym.def == SymbolDef::Undefined && sym.is_wanted() {
                    self.speculate(a, index[ahead].member);
                }
                ahead += 1;
            }
            let id = ids[k];
            // lld names a member's definitions as its walk of the archive reaches them.
            self.symtab.touch(id);
            let (name, member) = (index[k].name, index[k].member);
            if self.is_common(id) {
                if !self.fortran_common {
                    continue;
                }
                // A real definition of a symbol that is so far only common is pulled in.
                let m = &self.archives[a as usize].members[member as usize];
                let (member_name, data) = (m.name.clone(), m.data);
                if self.defines_non_common(&member_name, data, name)? {
                    let reference = self.referrer(id);
                    self.load_for(a, member, name, &reference)?;
                }
                continue;
            }
            let sym = self.symtab.get_mut(id);
            if sym.def == SymbolDef::Undefined {
                sym.def = SymbolDef::Lazy { archive: a, member };
                // Already wanted: load it now (once per member, however many symbols want it).
                if sym.is_wanted() {
                    let reference = self.referrer(id);
                    self.load_for(a, member, name, &reference)?;
                } else if !self.fetched[a as usize][member as usize] {
                    self.any_lazy = true;
                }
            } else if let (Some(b), SymbolDef::Defined { .. }) = (&mut self.backrefs, sym.def) {
                b.defined_again(id);
            }
        }
        Ok(())
    }

    /// Whether the symbol is so far defined only as a common symbol (native or bitcode).
    fn is_common(&self, id: SymbolId) -> bool {
        match self.symtab.get(id).def {
            SymbolDef::Common { .. } => true,
            SymbolDef::Bitcode { module, index } => {
                self.bitcode[module as usize].summary.globals[index as usize].linkage
                    == rld_summaries::Linkage::Common
            }
            SymbolDef::Plugin { file, index } => {
                self.plugin_files[file as usize].symbols[index as usize].kind
                    == rld_plugin_api::SymbolKind::COMMON
            }
            _ => false,
        }
    }

    /// Whether archive member `member` (named `member_name`) defines `name` other than as
    /// a common symbol; bitcode is asked through its summary.
    fn defines_non_common(
        &self,
        member_name: &str,
        data: &'static [u8],
        name: &[u8],
    ) -> Result<bool> {
        use rld_summaries::{GlobalFlags, Linkage};
        if !rld_lto_api::is_bitcode(data) {
            return Ok(crate::input::archive::defines_non_common(data, name));
        }
        let summary = self
            .summarize(&[rld_lto_api::BitcodeInput {
                name: member_name,
                data,
            }])?
            .remove(0);
        let by_ir = summary.globals.iter().any(|g| {
            g.name.as_bytes() == name
                && !g.flags.contains(GlobalFlags::DECLARATION)
                && g.linkage != Linkage::Common
        });
        let by_asm = summary
            .asm_symbols
            .iter()
            .any(|a| a.defined && resolution_name(a.name.as_bytes()) == name);
        Ok(by_ir || by_asm)
    }

    fn add_shared(&mut self, dso: SharedFile) {
        let d = self.dsos.len() as DsoId;
        self.note_current_file(&dso.name);
        self.trace_file(&dso.name);
        for (i, s) in dso.symbols.iter().enumerate() {
            if !s.is_undefined && !s.hidden {
                self.trace_symbol(&dso.name, s.name, "shared definition of");
            }
            if s.is_undefined {
                let id = self.symtab.intern_touched(s.name);
                let sym = self.symtab.get_mut(id);
                // The output's definition is exported for it, but a reference in a version
                // (`foo@V1`) fetches no archive member (lld's rule): the library that
                // defines that version is linked for it.
                sym.dso_ref = true;
                if s.bind != elf::STB_WEAK && s.needed_version.is_none() {
                    sym.dso_strong_ref = true;
                    if let SymbolDef::Lazy { archive, member } = sym.def {
                        self.fetch_for(archive, member, s.name, &dso.name);
                    }
                }
                continue;
            }
            if let Some(v) = s.version {
                let key = [s.name, b"@", v].concat();
                if let Some(id) = self.symtab.lookup(&key) {
                    let sym = self.symtab.get_mut(id);
                    if sym.is_undefined() {
                        sym.def = SymbolDef::Shared {
                            dso: d,
                            index: i as u32,
                        };
                        sym.sym_type = s.sym_type;
                        sym.size = s.size;
                    }
                }
                self.dso_versioned.insert(key, (d, i as u32));
            }
            if s.hidden {
                continue;
            }
            let id = self.symtab.intern_touched(s.name);
            let sym = self.symtab.get_mut(id);
            // If the output defines it too, the output's definition interposes the library's.
            sym.dso_ref = true;
            // A hidden reference must be satisfied inside the output, never by a library.
            if sym.is_undefined() && sym.visibility == elf::STV_DEFAULT {
                if let (SymbolDef::Lazy { archive, member }, true) = (sym.def, dso.as_needed) {
                    self.shadowed_members.push((id, archive, member));
                }
                sym.def = SymbolDef::Shared {
                    dso: d,
                    index: i as u32,
                };
                sym.sym_type = s.sym_type;
                sym.size = s.size;
            }
        }
        self.dsos.push(dso);
    }

    fn add_object(&mut self, name: String, data: &'static [u8]) -> Result<()> {
        let obj = ObjectFile::parse(name, data)?;
        self.add_parsed_object(obj)
    }

    fn add_parsed_object(&mut self, obj: ObjectFile) -> Result<()> {
        let names = global_names(&obj);
        self.add_parsed_objects(vec![(obj, names)])
    }

    /// Adds objects in order, their names interned together first (in parallel when there
    /// are many; the ids are those a one-by-one loop would give, see [`crate::name_table`]).
    fn add_parsed_objects(
        &mut self,
        mut objects: Vec<(ObjectFile, Vec<GlobalName>)>,
    ) -> Result<()> {
        if !self.wrapped.is_empty() {
            for (obj, names) in &mut objects {
                apply_wrap(obj, names, &self.wrapped);
            }
        }
        let slices: Vec<&[GlobalName]> = objects.iter().map(|(_, n)| n.as_slice()).collect();
        // While the pool still parses, work handed to it would wait behind the parse: this
        // thread interns the batch itself.
        let ids = self.symtab.intern_batch(&slices, !self.prefetch.busy());
        if self.any_lazy {
            // The members these objects will load start parsing while they are resolved:
            // loading goes depth first, each right after the object that wants it.
            for ((obj, _), ids) in objects.iter().zip(&ids) {
                for (k, &id) in ids.iter().enumerate() {
                    let strong = obj.is_strong_undefined(obj.first_global + k);
                    if let (true, SymbolDef::Lazy { archive, member }) =
                        (strong, self.symtab.get(id).def)
                    {
                        self.speculate(archive, member);
                    }
                }
            }
        }
        for ((obj, names), ids) in objects.into_iter().zip(&ids) {
            self.add_object_symbols(obj, &names, ids)?;
        }
        Ok(())
    }

    /// The first file with COMDAT group `g` of `obj` (whose global names and their ids are
    /// `names` and `ids`): `file`, the number `obj` is about to take, if none had it.
    ///
    /// A group's signature is nearly always the name of a global symbol the group defines,
    /// interned already with the object's names: the symbol's id stands for the signature
    /// then, and finding the group costs one look into a table by id, where hashing and
    /// comparing the signature (a long C++ name, in another object's memory) took a third
    /// of resolving a C++ object. Signatures that are no global of their object go by name,
    /// and both ways meet: a name that is a symbol's goes by its id, and a group recorded
    /// by name before its name became a symbol's is looked for by name too.
    fn first_with_group(
        &mut self,
        obj: &ObjectFile,
        g: usize,
        names: &[GlobalName],
        ids: &[SymbolId],
        file: FileId,
    ) -> FileId {
        let group = &obj.comdat_groups[g];
        let sig = group.signature;
        let own = (group.signature_symbol as usize)
            .checked_sub(obj.first_global)
            .filter(|&k| names.get(k).is_some_and(|n| std::ptr::eq(n.name, sig)))
            .map(|k| ids[k]);
        if let Some(id) = own.or_else(|| self.symtab.lookup(sig)) {
            let at = id as usize;
            if at >= self.comdat_by_symbol.len() {
                let len = (at + 1).max(self.symtab.symbols.len());
                self.comdat_by_symbol.resize(len, FileId::MAX);
            }
            if self.comdat_by_symbol[at] == FileId::MAX {
                let by_name = self.comdats.find(group.hash, |c| c.1 == sig);
                self.comdat_by_symbol[at] = by_name.map_or(file, |c| c.2);
            }
            return self.comdat_by_symbol[at];
        }
        match self.comdats.entry(group.hash, |c| c.1 == sig, |c| c.0) {
            hashbrown::hash_table::Entry::Occupied(o) => o.get().2,
            hashbrown::hash_table::Entry::Vacant(v) => v.insert((group.hash, sig, file)).get().2,
        }
    }

    /// Resolves the global symbols of `obj`, named `names` with ids `ids`. As in lld, the
    /// object takes its place among the files first, and a member one of its references
    /// loads is loaded then and there (with what it loads in turn), before the object's
    /// next symbol.
    fn add_object_symbols(
        &mut self,
        mut obj: ObjectFile,
        names: &[GlobalName],
        ids: &[SymbolId],
    ) -> Result<()> {
        let file = self.objects.len() as FileId;
        obj.from_lto = self.adding_lto_object;
        let group = self.note_current_file(&obj.name);
        if let (Some(wanted), false) = (&mut self.dependent_libraries, self.adding_lto_object) {
            for name in &obj.dependent_libraries {
                let name = String::from_utf8_lossy(name).into_owned();
                wanted.push((name, obj.name.clone()));
            }
        }
        self.trace_file(&obj.name);

        if self.keep_excluded {
            obj.keep_excluded_sections();
        } else {
            obj.refuse_gcc_lto_slim()?;
        }
        if self.unmerged {
            obj.copy_merge_sections_whole();
        }
        // First copy of each COMDAT group wins; the losers' sections never take part. The
        // LTO object's groups always stay: they hold the definitions the bitcode prevailed
        // with, even where a native member with the same group was loaded earlier.
        for g in 0..obj.comdat_groups.len() {
            if self.adding_lto_object {
                break;
            }
            let first = self.first_with_group(&obj, g, names, ids, file);
            if first != file {
                let ObjectFile {
                    comdat_groups,
                    sections,
                    ..
                } = &mut obj;
                for m in comdat_groups[g].members.iter() {
                    let s = &mut sections[m as usize];
                    s.kind = SectionKind::Ignored;
                    s.live = false;
                }
            }
        }

        obj.globals = ids.to_vec();
        let (symbols, first_global) = (obj.symbols, obj.first_global);
        let has_groups = !obj.comdat_groups.is_empty();
        let obj_name = obj.name.clone();
        self.objects.push(obj);
        // `-y` lists a file's definitions before its references, as lld (which resolves
        // them in that order) does.
        let mut traced_refs = Vec::new();
        // Definitions first, then references (which may load members), as lld resolves
        // them: a member loaded for a reference finds this object's definitions in place.
        // lld's symbol table holds the object's names from here, in its order.
        // Definitions from the front, references from the back (then turned around): one
        // list, with no second one to grow for the references.
        let mut order: Vec<(u32, u32, bool)> = vec![(0, 0, false); ids.len()];
        let (mut defs, mut refs) = (0, ids.len());
        {
            let obj = &self.objects[file as usize];
            for (k, &id) in ids.iter().enumerate() {
                self.symtab.touch(id);
                let section = obj.symbol_section(first_global + k);
                let in_discarded = shndx::is_section(section)
                    && obj.sections[section as usize].kind == SectionKind::Ignored
                    && has_groups;
                let at = (k as u32, section, in_discarded);
                if section == shndx::UNDEF || in_discarded {
                    refs -= 1;
                    order[refs] = at;
                } else {
                    order[defs] = at;
                    defs += 1;
                }
            }
        }
        order[defs..].reverse();
        for (k, section, in_discarded) in order {
            let k = k as usize;
            let (g, id) = (&names[k], ids[k]);
            let i = first_global + k;
            let esym = &symbols[i];
            let name = g.name;
            if let Some(v) = g.version {
                if section != shndx::UNDEF {
                    self.symtab.get_mut(id).version = Some(Box::new(v));
                }
            }
            if g.versioned_name {
                self.bind_versioned_reference(id, name);
            }
            if !self.adding_lto_object {
                self.symtab.get_mut(id).native_ref = true;
            }
            let bind = esym.st_bind();
            let is_weak = bind == elf::STB_WEAK;
            self.symtab
                .get_mut(id)
                .merge_visibility(esym.st_visibility());
            if !self.trace_symbols.is_empty() {
                if section == shndx::UNDEF || in_discarded {
                    traced_refs.push(name);
                } else if section == shndx::COMMON {
                    self.trace_symbol(&obj_name, name, "common definition of");
                } else {
                    self.trace_symbol(&obj_name, name, "definition of");
                }
            }
            if section == shndx::UNDEF || in_discarded {
                let before = self.pending.len();
                self.add_undefined(id, file, is_weak, esym.st_type());
                // A chain deeper than this loads the rest after the object (deterministic
                // all the same), so that a pathological archive cannot exhaust the stack.
                if self.pending.len() > before && self.depth < MAX_LOAD_DEPTH {
                    self.depth += 1;
                    let loaded = self.drain_above(before);
                    self.depth -= 1;
                    loaded?;
                    self.resume_current_file(&obj_name, group);
                }
            } else if section == shndx::COMMON {
                self.add_common(id, file, esym.st_size(LE), esym.st_value(LE).max(1));
            } else {
                let def = SymbolDef::Defined {
                    file,
                    section,
                    value: esym.st_value(LE),
                };
                self.add_defined(
                    id,
                    def,
                    is_weak,
                    esym.st_type(),
                    esym.st_size(LE),
                    &obj_name,
                );
                if bind == elf::STB_GNU_UNIQUE && self.symtab.get(id).def == def {
                    self.symtab.get_mut(id).unique = true;
                }
                // The defining object's copy of the name (equal bytes) from now on: the
                // first copy interned may be an archive index's, whose pages are given
                // back after resolution.
                let sym = self.symtab.get_mut(id);
                if sym.def == def {
                    sym.name = name;
                }
            }
        }
        for name in traced_refs {
            self.trace_symbol(&obj_name, name, "reference to");
        }
        Ok(())
    }

    /// A name with an `@` not yet defined binds to a shared library's symbol of that
    /// version (`foo@VER` names version VER of foo).
    fn bind_versioned_reference(&mut self, id: SymbolId, name: &[u8]) {
        let sym = self.symtab.get_mut(id);
        if sym.def == SymbolDef::Undefined {
            if let Some(&(dso, index)) = self.dso_versioned.get(name) {
                let s = &self.dsos[dso as usize].symbols[index as usize];
                sym.def = SymbolDef::Shared { dso, index };
                sym.sym_type = s.sym_type;
                sym.size = s.size;
            }
        }
    }

    fn add_undefined(&mut self, id: SymbolId, file: FileId, weak: bool, sym_type: u8) {
        let sym = self.symtab.get_mut(id);
        if sym.ref_file.is_none() {
            sym.ref_file = Some(file);
        }
        if !weak {
            sym.note_strong_ref();
        }
        match sym.def {
            SymbolDef::Undefined if sym.sym_type == elf::STT_NOTYPE => {
                sym.sym_type = sym_type;
            }
            // A member's symbol that only weak references name stays undefined, with their
            // type (`.symtab` shows it so, as lld does).
            SymbolDef::Lazy { .. } if weak && sym.sym_type == elf::STT_NOTYPE => {
                sym.sym_type = sym_type;
            }
            // A weak reference does not fetch an archive member (lld and GNU ld agree).
            SymbolDef::Lazy { archive, member } if !weak => {
                let name = sym.name;
                self.fetch_for_current(id, archive, member, name)
            }
            _ => {}
        }
    }

    fn add_common(&mut self, id: SymbolId, file: FileId, size: u64, align: u64) {
        // `--warn-common`, in lld's words.
        if self.warn_common && !self.adding_lto_object {
            let sym = self.symtab.get(id);
            match sym.def {
                SymbolDef::Defined { .. } if !sym.weak => {
                    warn(&format!("common {} is overridden", sym.display_name()))
                }
                SymbolDef::Common { .. } => {
                    warn(&format!("multiple common of {}", sym.display_name()))
                }
                _ => {}
            }
        }
        let sym = self.symtab.get_mut(id);
        match sym.def {
            SymbolDef::Defined { .. } if !sym.weak => {}
            SymbolDef::Common {
                size: old_size,
                align: old_align,
                file: old_file,
            } => {
                // The largest common wins; alignment is the strictest of all.
                let (f, s) = if size > old_size {
                    (file, size)
                } else {
                    (old_file, old_size)
                };
                sym.def = SymbolDef::Common {
                    file: f,
                    size: s,
                    align: align.max(old_align),
                };
                sym.size = s;
            }
            _ => {
                sym.def = SymbolDef::Common { file, size, align };
                sym.weak = false;
                sym.sym_type = elf::STT_OBJECT;
                sym.size = size;
            }
        }
    }

    fn add_defined(
        &mut self,
        id: SymbolId,
        def: SymbolDef,
        weak: bool,
        sym_type: u8,
        size: u64,
        file_name: &str,
    ) {
        let sym = self.symtab.get_mut(id);
        let replace = match sym.def {
            SymbolDef::Undefined
            | SymbolDef::Lazy { .. }
            | SymbolDef::Shared { .. }
            | SymbolDef::Synthetic => true,
            // LTO's output object defines what the bitcode did.
            SymbolDef::Bitcode { .. } | SymbolDef::BitcodeAsm { .. } | SymbolDef::Plugin { .. }
                if self.adding_lto_object =>
            {
                true
            }
            SymbolDef::Common { .. } => {
                if !weak && self.warn_common && !self.adding_lto_object {
                    warn(&format!("common {} is overridden", sym.display_name()));
                }
                !weak
            }
            SymbolDef::Defined { .. }
            | SymbolDef::Bitcode { .. }
            | SymbolDef::BitcodeAsm { .. }
            | SymbolDef::Plugin { .. } => {
                if sym.weak && !weak {
                    true
                } else if !sym.weak && !weak {
                    if !self.allow_multiple_definition {
                        let old_name =
                            definer(&self.objects, &self.bitcode, &self.plugin_files, sym.def);
                        self.duplicates.push(format!(
                            "duplicate symbol: {}\n>>> defined in {}\n>>> defined in {}",
                            sym.display_name(),
                            old_name,
                            file_name
                        ));
                    }
                    false
                } else {
                    false
                }
            }
        };
        if replace {
            sym.def = def;
            sym.weak = weak;
            sym.unique = false;
            sym.sym_type = sym_type;
            sym.size = size;
        }
    }

    /// The name of the file whose definition `def` is ("?" for none).
    pub fn definer(&self, def: SymbolDef) -> &str {
        definer(&self.objects, &self.bitcode, &self.plugin_files, def)
    }

    /// A library resolved by a strong reference from the output is needed (`--as-needed`).
    fn mark_needed_libraries(&mut self) {
        use rayon::prelude::*;
        // A pass over every symbol: on all threads, each with its own flags.
        let count = self.dsos.len();
        let dsos = &self.dsos;
        let needed = self
            .symtab
            .symbols
            .par_iter()
            .fold(
                || vec![false; count],
                |mut needed, sym| {
                    if let (SymbolDef::Shared { dso, index }, true) = (sym.def, sym.has_strong_ref)
                    {
                        let versioned =
                            || dsos[dso as usize].symbols[index as usize].version.is_some();
                        if !(sym.plugin_ref_only && versioned()) {
                            needed[dso as usize] = true;
                        }
                    }
                    needed
                },
            )
            .reduce(
                || vec![false; count],
                |a, b| a.iter().zip(b).map(|(x, y)| *x || y).collect(),
            );
        for (dso, needed) in self.dsos.iter_mut().zip(needed) {
            dso.needed |= needed;
        }
    }
}

/// The name of the file whose definition `def` is, among the resolver's files ("?" for
/// none); by field, so that it can be asked while the symbol table is being changed.
fn definer<'a>(
    objects: &'a [ObjectFile],
    bitcode: &'a [BitcodeModule],
    plugin_files: &'a [PluginFile],
    def: SymbolDef,
) -> &'a str {
    match def {
        SymbolDef::Defined { file, .. } => objects.get(file as usize).map(|o| o.name.as_str()),
        SymbolDef::Bitcode { module, .. } | SymbolDef::BitcodeAsm { module } => {
            bitcode.get(module as usize).map(|m| m.name.as_str())
        }
        SymbolDef::Plugin { file, .. } => plugin_files.get(file as usize).map(|f| f.name.as_str()),
        _ => None,
    }
    .unwrap_or("?")
}

/// A global symbol's name as resolution sees it, hashed (worked out for many objects at
/// once, in parallel, before any is resolved).
pub struct GlobalName {
    name: &'static [u8],
    hash: u64,
    /// What `.symver` gave it (`foo@@VER`, or `foo@VER` on a definition).
    version: Option<SymVersion>,
    /// The name keeps an `@`: a hidden version's, or a reference to a versioned symbol.
    versioned_name: bool,
}

impl crate::name_table::HashedName for GlobalName {
    fn name(&self) -> &'static [u8] {
        self.name
    }
    fn hash(&self) -> u64 {
        self.hash
    }
}

/// The names of the global symbols of `obj`, with `.symver` applied.
pub fn global_names(obj: &ObjectFile) -> Vec<GlobalName> {
    (obj.first_global..obj.symbols.len())
        .map(|i| {
            let defined = obj.symbol_section(i) != shndx::UNDEF;
            let (name, at) = obj.symbol_name_and_at(i);
            let (name, version, versioned_name) = split_version(name, at, defined);
            GlobalName {
                name,
                hash: name_hash(name),
                version,
                versioned_name,
            }
        })
        .collect()
}

/// A global's name as resolution takes it, by `.symver`'s rules (lld's, GNU ld's), `at`
/// being the position of its first `@`: `foo@@VER` defines foo (default version VER);
/// `foo@VER` is its own symbol (a hidden version), and so is a reference to `foo@VER`.
/// Returns the name, the version, and whether the name keeps an `@`.
fn split_version(
    name: &'static [u8],
    at: Option<usize>,
    defined: bool,
) -> (&'static [u8], Option<SymVersion>, bool) {
    let Some(at) = at else {
        return (name, None, false);
    };
    if name.get(at + 1) == Some(&b'@') {
        let version = SymVersion {
            name: &name[at + 2..],
            hidden: false,
        };
        return (&name[..at], Some(version), false);
    }
    let version = defined.then(|| SymVersion {
        name: &name[at + 1..],
        hidden: true,
    });
    (name, version, true)
}

/// The name resolution files `name` under: `foo@@VER` (a default version) is foo; any other
/// name is itself (see [`split_version`]).
pub(crate) fn resolution_name(name: &[u8]) -> &[u8] {
    match memchr::memchr(b'@', name) {
        Some(at) if name.get(at + 1) == Some(&b'@') => &name[..at],
        _ => name,
    }
}

/// [`split_version`] of a name not yet searched for its `@`.
pub(crate) fn split_symver(
    name: &'static [u8],
    defined: bool,
) -> (&'static [u8], Option<SymVersion>, bool) {
    split_version(name, memchr::memchr(b'@', name), defined)
}

/// `--wrap`: undefined references to a wrapped name go to its replacement; definitions
/// keep their names.
fn apply_wrap(
    obj: &ObjectFile,
    names: &mut [GlobalName],
    wrapped: &FxHashMap<Vec<u8>, &'static [u8]>,
) {
    for (k, g) in names.iter_mut().enumerate() {
        if obj.symbol_section(obj.first_global + k) != shndx::UNDEF {
            continue;
        }
        if let Some(&to) = wrapped.get(g.name) {
            g.name = to;
            g.hash = name_hash(to);
            g.versioned_name = memchr::memchr(b'@', to).is_some();
        }
    }
}

/// How deep members load one another before the rest wait for the object that wants them.
const MAX_LOAD_DEPTH: u32 = 256;

/// A warning about an input, as the command line prints them.
fn warn(msg: &str) {
    crate::diag::warn(msg);
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::write::{Comdat, Object, Symbol as Sym, SymbolSection};
    use object::{
        Architecture, BinaryFormat, ComdatKind, Endianness, SymbolFlags, SymbolKind, SymbolScope,
    };

    /// An object with one COMDAT group `grp`, holding one function section; the group's
    /// signature symbol is the global `grp` it defines, or a local of that name.
    fn with_group(global: bool) -> &'static [u8] {
        let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let text = obj.add_section(vec![], b".text.grp".to_vec(), object::SectionKind::Text);
        obj.append_section_data(text, &[0xc3], 1);
        let signature = obj.add_symbol(Sym {
            name: b"grp".to_vec(),
            value: 0,
            size: 1,
            kind: SymbolKind::Text,
            scope: if global {
                SymbolScope::Dynamic
            } else {
                SymbolScope::Compilation
            },
            weak: global,
            section: SymbolSection::Section(text),
            flags: SymbolFlags::None,
        });
        obj.add_comdat(Comdat {
            kind: ComdatKind::Any,
            symbol: signature,
            sections: vec![text],
        });
        Box::leak(obj.write().expect("object written").into_boxed_slice())
    }

    /// The order of a few symbols is their order among all: ranked ones by rank (which is
    /// not their id's order), the linker's own after them by id.
    #[test]
    fn a_few_symbols_keep_their_place_in_lld_s_order() {
        let mut t = SymbolTable::default();
        let names: [&'static [u8]; 6] = [b"a", b"b", b"c", b"d", b"e", b"f"];
        let ids: Vec<SymbolId> = names.iter().map(|n| t.intern(n)).collect();
        // Ranks in another order than the ids; `b` and `e` stay unranked.
        for &i in &[3, 0, 5, 2] {
            t.touch(ids[i]);
        }
        let all = t.in_lld_order();
        assert_eq!(all, [ids[3], ids[0], ids[5], ids[2], ids[1], ids[4]]);
        let odd = |sym: &Symbol| matches!(sym.name, b"a" | b"c" | b"e" | b"f");
        let expected: Vec<SymbolId> = all.iter().copied().filter(|&id| odd(t.get(id))).collect();
        assert_eq!(t.in_lld_order_where(odd), expected);
    }

    /// Groups found by their signature symbol's id and groups found by name are one table:
    /// whichever way the first copy was recorded, every later copy is a loser.
    #[test]
    fn the_first_copy_of_a_group_wins_however_its_signature_is_named() {
        for order in [[false, true, false, true], [true, false, true, false]] {
            let mut r = Resolver::new(&[], false, None);
            let inputs = order
                .iter()
                .enumerate()
                .map(|(i, &global)| InputFile::Object {
                    name: format!("{i}.o"),
                    data: with_group(global),
                })
                .collect();
            r.add_inputs(inputs).expect("inputs added");
            let kept: Vec<bool> = r
                .objects
                .iter()
                .map(|o| {
                    let text = o.sections.iter().find(|s| s.name() == ".text.grp");
                    text.expect("the group's section").kind != SectionKind::Ignored
                })
                .collect();
            assert_eq!(kept, [true, false, false, false], "{order:?}");
        }
    }
}
