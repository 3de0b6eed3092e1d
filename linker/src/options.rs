//! What the command line asks for, after parsing: the link's settings and its ordered inputs.
//!
//! `args.rs` fills this from GNU ld syntax; the rest of the linker only reads it.

use std::path::PathBuf;

/// The LTO settings belong to the LTO driver, which rld's gold plugin shares.
pub use rld_lto_api::LtoOptions;

/// What kind of ELF file the link produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    /// ET_EXEC at a fixed address (`-no-pie`, the GNU ld default).
    Executable,
    /// ET_DYN executable (`-pie`, Debian's compiler default).
    Pie,
    /// ET_DYN shared library (`-shared`).
    Shared,
}

/// Position-dependent state that applies to the inputs that follow it on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InputState {
    /// `--as-needed`: a shared library is recorded as DT_NEEDED only if it resolves a reference.
    pub as_needed: bool,
    /// `--whole-archive`: every member of an archive is linked, referenced or not.
    pub whole_archive: bool,
    /// `-Bstatic` (also `-static`): `-l` finds only `lib*.a`.
    pub static_only: bool,
    /// Between `--start-lib` and `--end-lib`: objects are linked only if something needs
    /// them, as archive members are.
    pub lazy: bool,
    /// `-b binary` / `--format=binary`: files are raw data (see `input::binary`), until
    /// `-b elf` or `-b default`.
    pub binary: bool,
}

/// `--orphan-handling`: what becomes of the sections a linker script's `SECTIONS` does
/// not place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OrphanHandling {
    /// Placed where lld places them, silently (the default).
    #[default]
    Place,
    /// Placed, each with a warning.
    Warn,
    /// Each an error.
    Error,
}

/// One input in command-line order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputArg {
    /// A file named by path: object, archive, shared library, linker script or bitcode.
    File { path: PathBuf, state: InputState },
    /// `-lNAME` (`name` = "NAME") or `-l:FILE` (`name` = ":FILE").
    Library { name: String, state: InputState },
    /// `-T FILE` / `--script FILE`: a linker script (searched in the `-L` directories too).
    Script { path: PathBuf, state: InputState },
    /// `--just-symbols FILE` (`-R FILE`): FILE's defined symbols, absolute at their values.
    JustSymbols { path: PathBuf },
    /// `--start-group` / `-(`.
    StartGroup,
    /// `--end-group` / `-)`.
    EndGroup,
}

/// `--hash-style`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashStyle {
    pub sysv: bool,
    pub gnu: bool,
}

/// `--build-id[=style]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildId {
    None,
    /// `--build-id=fast`: an 8-byte xxh3 tree hash of the output.
    Fast,
    Md5,
    /// `--build-id=sha1`, and a bare `--build-id` (lld-22's and GNU ld's default): 20 bytes.
    Sha1,
    /// 16 random bytes.
    Uuid,
    /// `--build-id=0xHEX`: these exact bytes.
    Hex(Vec<u8>),
}

/// Everything the command line sets.
#[derive(Debug, Clone)]
pub struct Options {
    pub output: PathBuf,
    pub inputs: Vec<InputArg>,
    /// `-L` directories, in order.
    pub library_paths: Vec<PathBuf>,
    pub sysroot: Option<PathBuf>,
    pub kind: OutputKind,
    /// `-static` / `-static-pie` / `--no-dynamic-linker`: no PT_INTERP, no shared libraries.
    pub no_dynamic_linker: bool,
    /// `-static` given anywhere: shared libraries on the command line are an error.
    pub static_link: bool,
    pub dynamic_linker: Option<String>,
    pub hash_style: HashStyle,
    pub build_id: BuildId,
    pub eh_frame_hdr: bool,
    /// `-z relro` (default) / `-z norelro`.
    pub z_relro: bool,
    /// PT_GNU_STACK is written (lld's `-z nognustack` leaves it out).
    pub z_gnustack: bool,
    /// A section header table is written (lld's `-z nosectionheader` leaves it out, with
    /// the sections only it finds: symbol tables, debug information, `.comment`).
    pub z_section_header: bool,
    /// lld's `-z retpolineplt`: PLT entries jump through a retpoline (Spectre v2).
    pub z_retpolineplt: bool,
    /// lld's `-z lrodata-after-bss`: `.lrodata` after `.bss` and `.lbss` (as GNU ld places
    /// it), `.ldata` after it.
    pub z_lrodata_after_bss: bool,
    /// `-z combreloc` (default): `.rela.dyn` sorted as lld sorts it; `-z nocombreloc`
    /// keeps the order the relocations were found in.
    pub z_combreloc: bool,
    /// `--rosegment` (default) / `--no-rosegment`: read-only data in a segment of its own.
    pub rosegment: bool,
    /// `-z now` / `-z lazy` (default lazy).
    pub z_now: bool,
    /// `-n`/`--nmagic`: segments not page-aligned (a static image for a loader that is not
    /// Linux's, such as a boot loader's).
    pub nmagic: bool,
    /// `-N`/`--omagic`: as `-n`, and everything in one writable, executable segment.
    pub omagic: bool,
    /// `--oformat binary`: the output is the flat memory image, laid out as under `-N`
    /// without room for headers.
    pub oformat_binary: bool,
    /// `-z execstack` / `-z noexecstack` (default noexecstack).
    pub z_execstack: bool,
    /// `-z execstack-if-needed` (mold's): an executable stack only if an input object's
    /// `.note.GNU-stack` asks for one (as GNU ld decides by default).
    pub z_execstack_if_needed: bool,
    /// `-z text`: text relocations are errors. Without it they are allowed, as GNU ld
    /// allows them: with a warning, unless `-z notext` asked for them.
    pub z_text: bool,
    /// `-z notext` was given: text relocations without a warning.
    pub z_notext: bool,
    /// `-rpath` / `-R` entries, in order.
    pub rpath: Vec<String>,
    /// `--enable-new-dtags` (default, DT_RUNPATH) / `--disable-new-dtags` (DT_RPATH).
    pub new_dtags: bool,
    pub soname: Option<String>,
    /// `--filter NAME` (DT_FILTER) and `--auxiliary NAME` (DT_AUXILIARY), as (tag, name).
    pub filters: Vec<(u32, String)>,
    /// `--audit LIB` (DT_AUDIT) and `--depaudit LIB`/`-P LIB` (DT_DEPAUDIT), in order:
    /// GNU ld joins each kind's libraries with `:` into one entry.
    pub audit: Vec<String>,
    pub depaudit: Vec<String>,
    /// `-e` / `--entry`; `_start` when absent.
    pub entry: Option<String>,
    /// `-u` / `--undefined`.
    pub undefined: Vec<String>,
    /// `-init` (default `_init`) and `-fini` (default `_fini`).
    pub init: String,
    pub fini: String,
    pub gc_sections: bool,
    /// `-s` / `--strip-all`.
    pub strip_all: bool,
    /// `-S` / `--strip-debug`.
    pub strip_debug: bool,
    /// `-q` / `--emit-relocs`: the inputs' relocations copied into the output.
    pub emit_relocs: bool,
    /// `--gdb-index`: write `.gdb_index`.
    pub gdb_index: bool,
    /// `-E` / `--export-dynamic`.
    pub export_dynamic: bool,
    /// `-O<n>` (1 by default): 0 copies mergeable sections whole, 2 and up tail-merge
    /// strings and redirect branches to branches (lld's levels).
    pub opt_level: u8,
    /// `--split-stack-adjust-size=N`: the extra stack a split-stack function that calls
    /// one without the check asks for (lld's and gold's 16 KiB by default).
    pub split_stack_adjust_size: u32,
    /// `--error-handling-script=SCRIPT`: run for undefined symbols and missing libraries.
    pub error_handling_script: Option<PathBuf>,
    /// `--check-dynamic-relocations`: read the written places of `.rela.dyn` back (with
    /// `--apply-dynamic-relocs`).
    pub check_dynamic_relocations: bool,
    /// `--force-group-allocation`: `-r` resolves COMDAT groups as a final link does and
    /// writes no group sections.
    pub force_group_allocation: bool,
    /// The `--remap-inputs` table, once read (see `Remap::of`).
    pub remap_table: std::sync::OnceLock<crate::input::remap::Remap>,
    /// `--shuffle-sections=GLOB=SEED`, in order.
    pub shuffle_sections: Vec<crate::shuffle::Rule>,
    /// `--branch-to-branch` / `--no-branch-to-branch`; unset: on from `-O2`, as in lld.
    pub branch_to_branch: Option<bool>,
    /// `-v` / `-V` / `--version`: print the version; link only if there are inputs.
    pub print_version: bool,
    /// `--spare-dynamic-tags=N`: empty `.dynamic` entries after the last (GNU ld's).
    pub spare_dynamic_tags: u32,
    /// `--print-output-format`: print the BFD name of the output format (GNU ld's).
    pub print_output_format: bool,
    /// `--print-sysroot`: print the sysroot and exit (GNU ld's).
    pub print_sysroot: bool,
    /// `--version`: print the version and link nothing, as GNU ld and lld.
    pub version_only: bool,
    /// `--help`.
    pub print_help: bool,
    /// `--print-driver`: print the command line as completed by the front door, and exit.
    pub print_driver: bool,
    /// `--dump-summary FILE`: print a module summary instead of linking.
    pub dump_summary: Option<PathBuf>,
    /// `-m EMULATION` (only elf_x86_64 is supported).
    pub emulation: Option<String>,
    /// `-plugin-opt=...` values, kept for the LTO driver.
    pub plugin_opts: Vec<String>,
    /// `-plugin LIB` (other than LLVM's, whose work rld's LTO does) with its options.
    pub plugins: Vec<crate::plugin_host::PluginArg>,
    /// `-flto` on rld's own command line.
    pub lto: bool,
    /// `--time`: print the time each link phase took.
    pub print_timing: bool,
    /// `--fork` (default) / `--no-fork`: the `rld` command links in a child process (see
    /// `crate::detach`).
    pub fork: bool,
    /// `--threads=N` / `--no-threads` (None = all cores).
    pub threads: Option<usize>,
    /// `--allow-multiple-definition` / `-z muldefs`.
    pub allow_multiple_definition: bool,
    /// Whether the objects' undefined symbols are reported: `--no-undefined`, `-z defs`,
    /// `-z undefs` and `--unresolved-symbols=`, the last one winning; None: only outside
    /// `-shared` (see [`Options::reports_undefined`]).
    pub report_undefined: Option<bool>,
    /// Whether input shared libraries' undefined symbols are reported (lld's check, made only
    /// for a library whose own dependencies are all in the link): `--allow-shlib-undefined`,
    /// `--no-allow-shlib-undefined`, `--unresolved-symbols=`; None: outside `-shared`.
    pub report_shlib_undefined: Option<bool>,
    /// `-z copyreloc` (default) / `-z nocopyreloc`: whether a non-PIC executable may copy a
    /// shared library's variable.
    pub z_copyreloc: bool,
    /// `--ignore-data-address-equality` / `--ignore-function-address-equality` (lld's): a
    /// non-PIC executable may copy a library's protected variable / give its protected
    /// function a canonical PLT entry, though the library then sees another address.
    pub ignore_data_address_equality: bool,
    pub ignore_function_address_equality: bool,
    /// `--fat-lto-objects` (lld's; clang passes it for `-flto -ffat-lto-objects`): an object
    /// carrying LLVM bitcode in a `.llvm.lto` section is linked through its bitcode, not its
    /// machine code.
    pub fat_lto_objects: bool,
    /// `--cref`: the cross reference table, in the map file or on standard output.
    pub cref: bool,
    /// `--call-graph-profile-sort=` (default `cdsort`, as lld), `--no-call-graph-profile-sort`.
    pub call_graph_sort: crate::call_graph_sort::CallGraphSort,
    /// The orderer was named on the command line (not lld's default).
    pub call_graph_sort_asked: bool,
    /// `--call-graph-ordering-file=`: the call counts, instead of the objects' profiles.
    pub call_graph_ordering_file: Option<std::path::PathBuf>,
    /// `--print-symbol-order=`: the symbols in the order `hfsort` gave their sections.
    pub print_symbol_order: Option<std::path::PathBuf>,
    /// DF_1 flags asked for by `-z initfirst|interpose|nodefaultlib|global`.
    pub z_flags_1: u32,
    /// `-z stack-size=N`: PT_GNU_STACK's p_memsz (the main thread's stack size, for the
    /// loaders that read it).
    pub z_stack_size: Option<u64>,
    /// `--warn-unresolved-symbols` (`--error-unresolved-symbols`, the default, undoes it):
    /// reported undefined symbols are warnings, not errors.
    pub warn_unresolved: bool,
    /// `--noinhibit-exec`: undefined symbols and duplicate definitions are warnings, and
    /// the output is written (lld's and GNU ld's option; rld's other errors still stop it).
    pub noinhibit_exec: bool,
    /// `--undefined-version` / `--no-undefined-version` (default, as lld since 16): whether
    /// a version script may name symbols that nothing defines.
    pub undefined_version: bool,
    /// `--relax` (default) / `--no-relax`: GOT loads of local symbols become direct.
    pub relax: bool,
    /// `--fatal-warnings`.
    pub fatal_warnings: bool,
    /// `-Bsymbolic`, `-Bsymbolic-functions`, ... (the last one given).
    pub symbolic: Symbolic,
    /// `--export-dynamic-symbol=GLOB` (lld's).
    pub export_dynamic_symbols: Vec<String>,
    /// `--export-dynamic-symbol-list=FILE` (lld's; the dynamic-list format).
    pub export_dynamic_symbol_lists: Vec<PathBuf>,
    /// `-z separate-code`: code in its own page-aligned segment.
    /// `-z separate-loadable-segments` (lld's): every loadable segment starts on a page of
    /// its own in the file, not only code.
    pub z_separate_loadable_segments: bool,
    pub z_separate_code: bool,
    /// Warnings produced while parsing (unknown `-z` keywords and the like).
    pub warnings: Vec<String>,
    /// `-r` / `--relocatable`: produce an ET_REL object (not supported by the writer yet).
    pub relocatable: bool,
    /// `-z origin` (DF_ORIGIN / DF_1_ORIGIN).
    pub z_origin: bool,
    /// `-z nodelete` (DF_1_NODELETE).
    pub z_nodelete: bool,
    /// `-z nodlopen` (DF_1_NOOPEN).
    pub z_nodlopen: bool,
    /// `-z rodynamic` (lld's): `.dynamic` read-only, without DT_DEBUG (which the dynamic
    /// loader would write).
    pub z_rodynamic: bool,
    /// `-z pack-relative-relocs` / `--pack-dyn-relocs=relr`: relative relocations of a PIE
    /// or shared object as a `.relr.dyn` bitmap (DT_RELR) instead of `.rela.dyn` entries.
    pub pack_relative_relocs: bool,
    /// `--apply-dynamic-relocs` (lld's): the places a dynamic relocation fills also get the
    /// link-time value (GNU ld always writes it); by default they keep the input's bytes,
    /// as lld leaves them, since the relocation carries its addend.
    pub apply_dynamic_relocs: bool,
    /// `--use-android-relr-tags` (lld's): the table under Android's names
    /// (DT_ANDROID_RELR*, SHT_ANDROID_RELR), for Android releases before DT_RELR.
    pub android_relr_tags: bool,
    /// `--pack-dyn-relocs=android` (lld's): `.rela.dyn` in Android's packed format.
    pub android_packed_relocs: bool,
    /// `--no-warnings`/`-w`: warnings are not shown (and `--fatal-warnings` is cancelled).
    pub no_warnings: bool,
    /// `--error-limit=N` (lld's): errors shown before "too many errors"; 0 for all.
    pub error_limit: usize,
    /// `--warn-rwx-segments` (GNU ld's): warn about a loaded segment that is writable and
    /// executable.
    pub warn_rwx_segments: bool,
    /// `--warn-execstack` (GNU ld's): warn when the output asks for an executable stack.
    pub warn_execstack: bool,
    /// `--package-metadata=JSON` (lld's and GNU ld's): a `.note.package` note holding it.
    pub package_metadata: Option<String>,
    /// `--warn-once`: one place per undefined symbol in its report.
    pub warn_once: bool,
    /// `-z x86-64-baseline|v2|v3|v4` (GNU ld's): the ISA level the output needs
    /// (GNU_PROPERTY_X86_ISA_1_NEEDED bits), 0 when not given.
    pub z_isa_level: u32,
    /// `--default-symver` (GNU ld's): exported symbols of a shared library get its soname as
    /// their version.
    pub default_symver: bool,
    /// `-z dynamic-undefined-weak` (the default) / `-z nodynamic-undefined-weak` (GNU ld's):
    /// whether a dynamic output leaves undefined weak symbols to the dynamic loader, or
    /// resolves them to 0 itself.
    pub z_dynamic_undefined_weak: bool,
    /// `-z cet-report=warning|error` (None: `none`, the default): report each input object
    /// without the IBT or SHSTK property, as lld does.
    pub z_cet_report: Option<Severity>,
    /// `-z start-stop-visibility=V`: the visibility of `__start_SEC`/`__stop_SEC`
    /// (protected unless a reference asks for less, as GNU ld and lld).
    pub start_stop_visibility: u8,
    /// `-z start-stop-gc` / `-z nostart-stop-gc` (the default, GNU ld's).
    pub start_stop_gc: crate::gc::StartStop,
    /// `-z keep-text-section-prefix` (lld's): `.text.hot`, `.text.unlikely`, ... stay apart.
    pub z_keep_text_section_prefix: bool,
    /// `-z keep-data-section-prefix` (lld-22's): output sections `.data.rel.ro.hot` and
    /// `.data.rel.ro.unlikely` (a linker script's) are RELRO, as `.data.rel.ro` is.
    pub z_keep_data_section_prefix: bool,
    /// `-z rewrite-endbr` (mold's): `endbr64` of functions whose address nothing takes
    /// becomes a NOP.
    pub z_rewrite_endbr: bool,
    /// `-z ibt` (GNU ld's; `-z ibtplt` too): PLT entries that start with `endbr64`, and the
    /// output marked GNU_PROPERTY_X86_FEATURE_1_IBT.
    pub z_ibt: bool,
    /// lld's `-z force-ibt`: as `z_ibt`, with a warning per object lacking IBT (unless
    /// `-z cet-report` reports them).
    pub z_force_ibt: bool,
    /// lld's `-z dead-reloc-in-nonalloc=GLOB=VALUE`, in order (the last match wins).
    pub dead_reloc_in_nonalloc: Vec<(String, u64)>,
    /// `-z shstk`: mark the output GNU_PROPERTY_X86_FEATURE_1_SHSTK.
    pub z_shstk: bool,
    /// `-z max-page-size=N` (None = the target default).
    pub max_page_size: Option<u64>,
    /// `-z common-page-size=N` (None = the target default).
    pub common_page_size: Option<u64>,
    /// `-nostdlib`: search only the `-L` directories for `-l`.
    pub nostdlib: bool,
    /// `--copy-dt-needed-entries` / `--no-copy-dt-needed-entries` (default off).
    pub copy_dt_needed_entries: bool,
    /// `-X` / `--discard-locals`: drop compiler-generated local symbols (`.L*`).
    pub discard_locals: bool,
    /// `-x` / `--discard-all`: drop all local symbols.
    pub discard_all: bool,
    /// `-Map FILE` (accepted; no map file is written yet).
    pub map_file: Option<PathBuf>,
    /// `--print-gc-sections[=FILE]`: where the sections `--gc-sections` removes are listed
    /// (`-`: standard output).
    pub print_gc_sections: Option<std::path::PathBuf>,
    /// `--why-live=GLOB`: the symbols whose chain of reasons for surviving `--gc-sections`
    /// is printed.
    pub why_live: Vec<String>,
    /// `--remap-inputs=FROM=TO`, in order.
    pub remap_inputs: Vec<String>,
    /// `--remap-inputs-file=FILE`, in order.
    pub remap_inputs_files: Vec<PathBuf>,
    /// `--time-trace[=FILE]`: where the Chrome trace of the phases goes (`OUTPUT.time-trace`
    /// when no file is given: the empty path).
    pub time_trace: Option<PathBuf>,
    /// `--time-trace-granularity=US` (lld's default: 500).
    pub time_trace_granularity: u64,
    /// `--dependent-libraries` (lld's default): link the libraries `.deplibs` sections
    /// name.
    pub dependent_libraries: bool,
    /// `--warn-backrefs`: warn about references that load an archive member from an earlier
    /// group (which GNU ld would not load).
    pub warn_backrefs: bool,
    /// `--warn-backrefs-exclude=GLOB`: members (`archive(member)`) not warned about.
    pub warn_backrefs_exclude: Vec<String>,
    /// `--icf=all|safe`: fold identical read-only sections.
    pub icf: crate::icf::Icf,
    /// `--print-icf-sections`: list what folding kept and removed.
    pub print_icf_sections: bool,
    /// `--keep-unique SYMBOL`s: their sections are never folded.
    pub keep_unique: Vec<String>,
    /// `--orphan-handling=place|warn|error`.
    pub orphan_handling: OrphanHandling,
    /// `--check-sections` (default) / `--no-check-sections`: whether a script's sections
    /// may not overlap.
    pub check_sections: bool,
    /// `--print-memory-usage`: the `MEMORY` regions' use, on standard output.
    pub print_memory_usage: bool,
    /// `--symbol-ordering-file FILE`: symbols whose sections go first, in this order.
    pub symbol_ordering_file: Option<std::path::PathBuf>,
    /// `--warn-symbol-ordering` (default) / `--no-warn-symbol-ordering`.
    pub warn_symbol_ordering: bool,
    /// `--sort-section=name|alignment`: the order of linker-script descriptions' sections
    /// where no nested `SORT` gives one (`Sort::None`: input order).
    pub sort_section: crate::input::script::Sort,
    /// `--compress-debug-sections=zlib|zstd`: how `.debug_*` output sections are
    /// compressed (None: they are not).
    pub compress_debug_sections: Option<crate::compressed::DebugCompression>,
    /// `--compress-sections=GLOB=TYPE[:LEVEL]`, in order (the last match wins).
    pub compress_sections: Vec<crate::compressed::SectionRule>,
    /// `--exclude-libs LIB,LIB,...` values, as given.
    pub exclude_libs: Vec<String>,
    /// `--version-script FILE`, in order.
    pub version_scripts: Vec<PathBuf>,
    /// `--dynamic-list FILE`, in order.
    pub dynamic_lists: Vec<PathBuf>,
    /// `--wrap SYMBOL`.
    pub wrap: Vec<String>,
    /// `--defsym SYMBOL=EXPRESSION`, split at the first `=`.
    pub defsym: Vec<(String, String)>,
    /// LTO settings from lld-style flags and `-plugin-opt=`.
    pub lto_opts: LtoOptions,
    /// `--demangle` (default) / `--no-demangle`: C++ names in diagnostics.
    pub demangle: bool,
    /// `--discard-none`: every local symbol kept, `.L` labels in mergeable sections too.
    pub discard_none: bool,
    /// `-t` / `--trace`: print each input file as it is loaded.
    pub trace: bool,
    /// `-y SYMBOL` / `--trace-symbol=SYMBOL`.
    pub trace_symbols: Vec<String>,
    /// `--image-base=ADDR`: where the first segment starts (any output kind, as lld).
    pub image_base: Option<u64>,
    /// `--section-start=NAME=ADDR`, `-Ttext`/`-Tdata`/`-Tbss=ADDR`: output sections placed
    /// at fixed addresses (the last address given for a name wins).
    pub section_start: Vec<(String, u64)>,
    /// `--retain-symbols-file=FILE`: only the symbols it lists stay global.
    pub retain_symbols_file: Option<PathBuf>,
    /// `--warn-common`: warn when a common symbol meets another or a definition.
    pub warn_common: bool,
    /// `--gnu-unique` (default): a definition bound `STB_GNU_UNIQUE` keeps that binding in
    /// the output; `--no-gnu-unique` makes it global (lld's option).
    pub gnu_unique: bool,
    /// `--fortran-common`: an archive member defining a symbol that is so far only common
    /// is loaded, and its definition wins (GNU ld, lld up to 14); off by default, as in
    /// lld since 15.
    pub fortran_common: bool,
    /// `--verbose`: name each file as it is opened.
    pub verbose: bool,
    /// `--dependency-file=FILE`: a Makefile rule listing every file the link read.
    pub dependency_file: Option<PathBuf>,
    /// `--why-extract=FILE` (`-`: standard output): why each archive member was loaded.
    pub why_extract: Option<PathBuf>,
    /// `--print-dependencies` (mold's): which section uses which other file's symbols.
    pub print_dependencies: bool,
    /// `--print-archive-stats=FILE` (`-`: standard output): each archive's members and
    /// how many were loaded.
    pub print_archive_stats: Option<PathBuf>,
    /// `--undefined-glob=PATTERN`: load the archive members defining matching symbols.
    pub undefined_globs: Vec<String>,
    /// `--require-defined=SYMBOL` (GNU ld): like `-u`, and an error unless something defines it.
    pub require_defined: Vec<String>,
    /// `--reproduce FILE`: pack the inputs and the command line into this tar.
    pub reproduce: Option<PathBuf>,
    /// The command line as parsed (response files expanded), with the role of each path in
    /// it, for `--reproduce`.
    pub command_line: Vec<CommandArg>,
}

/// One argument (or option with its value) of the command line, as `--reproduce` replays it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandArg {
    /// Written back as it came.
    Literal(Vec<String>),
    /// A file or directory the link reads (an input, `-L DIR`, `--version-script FILE`);
    /// `option` is empty for an input file.
    Read { option: String, path: String },
    /// A file the link writes (`-o`, remarks): replayed inside the archive's directory.
    Written { option: String, path: String },
    /// Meaningless in a replay (`--reproduce` itself, the LTO cache).
    Dropped,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            output: PathBuf::from("a.out"),
            inputs: Vec::new(),
            library_paths: Vec::new(),
            spare_dynamic_tags: 0,
            print_output_format: false,
            print_sysroot: false,
            sysroot: None,
            kind: OutputKind::Executable,
            no_dynamic_linker: false,
            static_link: false,
            dynamic_linker: None,
            // Both tables, as lld and GNU ld write them unless told otherwise.
            hash_style: HashStyle {
                sysv: true,
                gnu: true,
            },
            build_id: BuildId::None,
            eh_frame_hdr: false,
            z_relro: true,
            z_gnustack: true,
            z_lrodata_after_bss: false,
            z_retpolineplt: false,
            z_section_header: true,
            z_combreloc: true,
            rosegment: true,
            z_now: false,
            nmagic: false,
            omagic: false,
            oformat_binary: false,
            z_execstack: false,
            z_execstack_if_needed: false,
            z_text: false,
            z_notext: false,
            rpath: Vec::new(),
            new_dtags: true,
            soname: None,
            filters: Vec::new(),
            audit: Vec::new(),
            depaudit: Vec::new(),
            entry: None,
            undefined: Vec::new(),
            init: "_init".to_string(),
            fini: "_fini".to_string(),
            gc_sections: false,
            strip_all: false,
            strip_debug: false,
            emit_relocs: false,
            gdb_index: false,
            export_dynamic: false,
            opt_level: 1,
            branch_to_branch: None,
            shuffle_sections: Vec::new(),
            remap_table: std::sync::OnceLock::new(),
            force_group_allocation: false,
            check_dynamic_relocations: false,
            error_handling_script: None,
            split_stack_adjust_size: 16384,
            print_version: false,
            version_only: false,
            print_help: false,
            print_driver: false,
            dump_summary: None,
            emulation: None,
            plugin_opts: Vec::new(),
            plugins: Vec::new(),
            lto: false,
            print_timing: false,
            fork: true,
            threads: None,
            allow_multiple_definition: false,
            report_undefined: None,
            report_shlib_undefined: None,
            z_flags_1: 0,
            z_copyreloc: true,
            ignore_data_address_equality: false,
            fat_lto_objects: false,
            cref: false,
            call_graph_sort: crate::call_graph_sort::CallGraphSort::Cdsort,
            call_graph_sort_asked: false,
            call_graph_ordering_file: None,
            print_symbol_order: None,
            ignore_function_address_equality: false,
            z_stack_size: None,
            warn_unresolved: false,
            noinhibit_exec: false,
            undefined_version: false,
            relax: true,
            fatal_warnings: false,
            symbolic: Symbolic::None,
            export_dynamic_symbols: Vec::new(),
            export_dynamic_symbol_lists: Vec::new(),
            z_separate_code: false,
            z_separate_loadable_segments: false,
            warnings: Vec::new(),
            relocatable: false,
            z_origin: false,
            z_nodelete: false,
            z_nodlopen: false,
            z_rodynamic: false,
            pack_relative_relocs: false,
            apply_dynamic_relocs: false,
            warn_once: false,
            z_isa_level: 0,
            default_symver: false,
            z_dynamic_undefined_weak: true,
            z_cet_report: None,
            start_stop_visibility: object::elf::STV_PROTECTED,
            start_stop_gc: crate::gc::StartStop::Retains,
            z_keep_text_section_prefix: false,
            z_keep_data_section_prefix: false,
            z_ibt: false,
            z_force_ibt: false,
            dead_reloc_in_nonalloc: Vec::new(),
            z_rewrite_endbr: false,
            z_shstk: false,
            max_page_size: None,
            common_page_size: None,
            nostdlib: false,
            copy_dt_needed_entries: false,
            discard_locals: false,
            discard_all: false,
            map_file: None,
            print_gc_sections: None,
            why_live: Vec::new(),
            remap_inputs: Vec::new(),
            remap_inputs_files: Vec::new(),
            time_trace: None,
            time_trace_granularity: 500,
            dependent_libraries: true,
            warn_backrefs: false,
            warn_backrefs_exclude: Vec::new(),
            icf: crate::icf::Icf::None,
            print_icf_sections: false,
            keep_unique: Vec::new(),
            orphan_handling: OrphanHandling::Place,
            check_sections: true,
            print_memory_usage: false,
            sort_section: crate::input::script::Sort::None,
            symbol_ordering_file: None,
            warn_symbol_ordering: true,
            compress_debug_sections: None,
            compress_sections: Vec::new(),
            android_relr_tags: false,
            android_packed_relocs: false,
            no_warnings: false,
            error_limit: 20,
            warn_rwx_segments: false,
            warn_execstack: false,
            package_metadata: None,
            exclude_libs: Vec::new(),
            version_scripts: Vec::new(),
            dynamic_lists: Vec::new(),
            wrap: Vec::new(),
            defsym: Vec::new(),
            lto_opts: LtoOptions::default(),
            demangle: true,
            discard_none: false,
            trace: false,
            trace_symbols: Vec::new(),
            image_base: None,
            section_start: Vec::new(),
            require_defined: Vec::new(),
            undefined_globs: Vec::new(),
            why_extract: None,
            print_dependencies: false,
            print_archive_stats: None,
            dependency_file: None,
            verbose: false,
            warn_common: false,
            gnu_unique: true,
            fortran_common: false,
            retain_symbols_file: None,
            reproduce: None,
            command_line: Vec::new(),
        }
    }
}

impl Options {
    /// Whether the output is position independent (PIE or shared library).
    pub fn is_pic(&self) -> bool {
        matches!(self.kind, OutputKind::Pie | OutputKind::Shared)
    }

    /// Whether the output has `.dynamic`: it is position independent, or links shared
    /// libraries.
    pub fn is_dynamic_with(&self, shared_libraries: bool) -> bool {
        shared_libraries || self.is_pic()
    }

    /// Whether everything goes in one segment, not page-aligned (`-N`, `--oformat binary`).
    pub fn one_segment(&self) -> bool {
        self.omagic || self.oformat_binary
    }

    /// Whether the whole output image stays in memory until it is written (rather than
    /// going to the file part by part): something reads it back first.
    pub fn keeps_image_in_memory(&self) -> bool {
        self.checks_dynamic_relocations() || self.oformat_binary
    }

    /// Whether the written places of `.rela.dyn` are read back: `--check-dynamic-relocations`
    /// where they hold addends to compare (`--apply-dynamic-relocs`), as in lld.
    pub fn checks_dynamic_relocations(&self) -> bool {
        self.check_dynamic_relocations && self.apply_dynamic_relocs
    }

    /// Whether branches to jumps go straight to the jumps' targets.
    pub fn branch_to_branch(&self) -> bool {
        self.branch_to_branch.unwrap_or(self.opt_level >= 2)
    }

    pub fn is_shared(&self) -> bool {
        self.kind == OutputKind::Shared
    }

    /// Whether an object's reference to a symbol nothing defines is reported (lld's rule:
    /// not in `-shared` output, where the dynamic loader may find it, unless asked).
    pub fn reports_undefined(&self) -> bool {
        self.report_undefined.unwrap_or(!self.is_shared())
    }

    /// Whether input shared libraries' undefined symbols are reported (lld's default: not
    /// in `-shared` output).
    pub fn reports_shlib_undefined(&self) -> bool {
        self.report_shlib_undefined.unwrap_or(!self.is_shared())
    }

    /// Whether a reported undefined symbol is a warning rather than an error
    /// (`--warn-unresolved-symbols`, `--noinhibit-exec`; `--fatal-warnings` wins).
    pub fn undefined_warns(&self) -> bool {
        (self.warn_unresolved || self.noinhibit_exec) && !self.fatal_warnings
    }
}

/// How a finding is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Warning,
    Error,
}

/// Which of a shared library's own definitions bind within it (`-Bsymbolic` and its
/// kin): as in lld and GNU ld, the last of `-Bsymbolic`, `-Bsymbolic-functions`,
/// `-Bsymbolic-non-weak`, `-Bsymbolic-non-weak-functions` and `-Bno-symbolic` decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symbolic {
    /// Default-visibility definitions stay preemptible (`-Bno-symbolic`, the default).
    None,
    /// Non-weak functions bind locally.
    NonWeakFunctions,
    /// Functions bind locally.
    Functions,
    /// Non-weak definitions bind locally.
    NonWeak,
    /// Every definition binds locally.
    All,
}

impl Symbolic {
    /// Whether a definition of type `sym_type` (STT_*), weak or not, binds locally.
    pub fn binds_locally(self, sym_type: u8, weak: bool) -> bool {
        let function = matches!(sym_type, object::elf::STT_FUNC | object::elf::STT_GNU_IFUNC);
        match self {
            Symbolic::None => false,
            Symbolic::NonWeakFunctions => function && !weak,
            Symbolic::Functions => function,
            Symbolic::NonWeak => !weak,
            Symbolic::All => true,
        }
    }
}
