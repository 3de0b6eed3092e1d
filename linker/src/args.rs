//! GNU ld command-line syntax → [`Options`].
//!
//! Compiler drivers (gcc's collect2, clang) call the linker with GNU ld's syntax, so that is what
//! rld accepts: multi-letter options with one or two dashes, arguments as `--opt=V` or `--opt V`,
//! one-letter options with the argument glued on (`-lfoo`, `-L/dir`, `-znow`), `@file` response
//! files, and position-dependent state (`--as-needed`, `-Bstatic`, ...) that applies to the
//! inputs after it.
//!
//! Options are described by a table (`SPECS`) rather than a `match` on raw strings, so spelling
//! rules live in one place (`Parser::option`) and `--help` is generated from the same table.

use std::fmt::Write as _;
use std::num::NonZeroUsize;
use std::str::FromStr;
use std::sync::OnceLock;

use crate::options::*;
use rld_lto_api::{apply_plugin_opt, parse_jobs, parse_opt_level, PluginOpt};

mod foreign_options;

#[derive(Debug, thiserror::Error)]
pub enum ArgsError {
    #[error("unknown option: {0}")]
    UnknownOption(String),
    #[error("unsupported option: {0} (a GNU ld or lld option that rld does not implement)")]
    UnsupportedOption(String),
    #[error("missing argument to {0}")]
    MissingArgument(String),
    #[error("option {0} does not take an argument")]
    UnexpectedArgument(String),
    #[error("invalid argument to {option}: {value}")]
    InvalidValue { option: String, value: String },
    #[error("unsupported emulation: {0} (only elf_x86_64 is supported)")]
    UnsupportedEmulation(String),
    /// lld's words (it takes the unreadable `@FILE` for an input it cannot open).
    #[error("cannot open @{}: {}", .0, crate::error::io_reason(.1))]
    ResponseFile(String, #[source] std::io::Error),
    #[error("--pop-state without a matching --push-state")]
    PopStateWithoutPush,
    #[error("--start-group inside another group: groups may not nest")]
    NestedGroup,
    #[error("--end-group without a matching --start-group")]
    EndGroupWithoutStart,
    /// An option's value refused in the words of the linker the option comes from.
    #[error("{0}")]
    Refused(String),
}

/// Parses the linker's arguments (without `argv[0]`).
///
/// Having no inputs is not an error here: `-v` alone is legitimate, and whether to complain is
/// the driver's decision.
pub fn parse_args<I: IntoIterator<Item = String>>(args: I) -> Result<Options, ArgsError> {
    let mut expanded = Vec::new();
    expand_response_files(args, 0, &mut expanded)?;
    let mut rest = expanded.into_iter();
    let mut p = Parser::default();
    let mut only_inputs = false;
    while let Some(arg) = rest.next() {
        if only_inputs || !arg.starts_with('-') {
            p.o.command_line.push(CommandArg::Read {
                option: String::new(),
                path: arg.clone(),
            });
            p.push_file(arg);
        } else if arg == "--" {
            // getopt's end-of-options marker: what follows are file names even if they start with '-'.
            only_inputs = true;
            p.o.command_line.push(CommandArg::Literal(vec![arg]));
        } else if arg == "-" {
            // Reading an input from stdin is not supported (GNU ld rejects it too).
            return Err(ArgsError::UnknownOption(arg));
        } else {
            let next = rest.as_slice().first().cloned();
            let left = rest.len();
            p.matched = None;
            p.value = None;
            p.option(&arg, &mut rest)?;
            let mut tokens = vec![arg];
            tokens.extend(next.filter(|_| rest.len() < left));
            let recorded = p.recorded(tokens);
            p.o.command_line.push(recorded);
        }
    }
    Ok(p.finish())
}

/// The `--help` text: usage and one line per supported option, generated from the option table.
pub fn help_text() -> &'static str {
    static HELP: OnceLock<String> = OnceLock::new();
    HELP.get_or_init(|| {
        let mut s = String::from(
            "Usage: rld [options] file...\n       \
             rld remarks summary|filter|diff|check|view ... (optimization remark tools; \
             rld remarks --help)\n\n\
             Multi-letter options take one or two dashes, and their argument as --opt=ARG or \
             --opt ARG. `man rld` describes every option.\n\nOptions:\n",
        );
        let _ = writeln!(s, "  {:<38} Read options from FILE", "@FILE");
        for spec in SPECS {
            if spec.names.is_empty() {
                let _ = writeln!(s, "\n{}:", spec.help);
                continue;
            }
            let names: Vec<String> = spec.names.iter().map(|n| spec.usage(n)).collect();
            let _ = writeln!(s, "  {:<38} {}", names.join(", "), spec.help);
        }
        // GNU ld and lld end with this line, and libtool's configure greps it
        // (`: supported targets:.* elf`) to decide that the linker can build shared
        // libraries: without it, every package built with libtool gets static ones only.
        s.push_str("\nrld: supported targets: elf64-x86-64\n");
        s
    })
}

/// Nesting limit for `@file`, so a file that includes itself fails instead of looping forever.
const MAX_RESPONSE_DEPTH: usize = 32;

/// Replaces each `@file` argument by the arguments in the file, recursively (libiberty's
/// `expandargv`). Unlike libiberty, an unreadable file is an error rather than a literal `@file`
/// input, which would only fail later with a more confusing message.
fn expand_response_files<I: IntoIterator<Item = String>>(
    args: I,
    depth: usize,
    out: &mut Vec<String>,
) -> Result<(), ArgsError> {
    for arg in args {
        let Some(path) = arg.strip_prefix('@').filter(|p| !p.is_empty()) else {
            out.push(arg);
            continue;
        };
        let error = |e| ArgsError::ResponseFile(path.to_string(), e);
        if depth >= MAX_RESPONSE_DEPTH {
            return Err(error(std::io::Error::other(
                "response files nested too deeply",
            )));
        }
        let text = std::fs::read_to_string(path).map_err(error)?;
        expand_response_files(split_response_file(&text), depth + 1, out)?;
    }
    Ok(())
}

/// Splits a response file like libiberty's `buildargv`: whitespace separates arguments, single
/// and double quotes group, and a backslash takes the next character literally (inside quotes too).
pub(crate) fn split_response_file(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            return args;
        }
        let mut arg = String::new();
        let mut quote = None;
        while let Some(c) = chars.next() {
            match quote {
                _ if c == '\\' => arg.extend(chars.next()),
                Some(q) if c == q => quote = None,
                Some(_) => arg.push(c),
                None if c == '\'' || c == '"' => quote = Some(c),
                None if c.is_whitespace() => break,
                None => arg.push(c),
            }
        }
        args.push(arg);
    }
}

/// How an option takes its argument, and what it does.
#[derive(Clone, Copy)]
enum Action {
    /// No argument.
    Flag(fn(&mut Parser)),
    /// No argument, but may fail (state stack and group bookkeeping).
    Check(fn(&mut Parser) -> Result<(), ArgsError>),
    /// Required argument (`--opt=V`, `--opt V`, and for one-letter options `-oV`); cannot fail.
    Set(fn(&mut Parser, &str)),
    /// Required argument like `Set`, validated.
    Value(fn(&mut Parser, &str) -> Result<(), ArgsError>),
    /// Optional argument, only as `--opt=V` (so in `--build-id foo.o`, `foo.o` stays an input).
    Optional(fn(&mut Parser, Option<&str>) -> Result<(), ArgsError>),
    /// Argument glued to the name, lld style: `--lto-O2`.
    Joined(fn(&mut Parser, &str) -> Result<(), ArgsError>),
}

struct Spec {
    /// Names as usually written; either dash form is accepted. Only one-letter names accept
    /// a glued argument (`-oV`).
    names: &'static [&'static str],
    /// Argument placeholder for `--help`.
    meta: &'static str,
    help: &'static str,
    action: Action,
}

impl Spec {
    /// How `--help` shows `name`.
    fn usage(&self, name: &str) -> String {
        let (long, meta) = (name.starts_with("--"), self.meta);
        match self.action {
            Action::Flag(_) | Action::Check(_) => name.to_string(),
            Action::Set(_) | Action::Value(_) if long => format!("{name}={meta}"),
            Action::Set(_) | Action::Value(_) => format!("{name} {meta}"),
            Action::Optional(_) => format!("{name}[={meta}]"),
            Action::Joined(_) => format!("{name}{meta}"),
        }
    }
}

type Names = &'static [&'static str];

const fn flag(names: Names, help: &'static str, f: fn(&mut Parser)) -> Spec {
    let action = Action::Flag(f);
    Spec {
        names,
        meta: "",
        help,
        action,
    }
}

/// A heading in `--help` (and the manual's section of the options after it); no name, so
/// no argument matches it.
const fn heading(title: &'static str) -> Spec {
    Spec {
        names: &[],
        meta: "",
        help: title,
        action: Action::Flag(|_| {}),
    }
}

const fn arg(names: Names, meta: &'static str, help: &'static str, action: Action) -> Spec {
    Spec {
        names,
        meta,
        help,
        action,
    }
}

use Action::{Check, Joined, Optional, Set, Value};
use OutputKind::{Executable, Pie, Shared};

#[rustfmt::skip]
const SPECS: &[Spec] = &[
    heading("Output"),
    arg(&["-o", "--output"], "FILE", "Write the output to FILE (default a.out)",
        Set(|p, v| p.o.output = v.into())),
    flag(&["-pie", "--pic-executable"], "Produce a position-independent executable", |p| p.o.kind = Pie),
    flag(&["-no-pie", "--no-pic-executable"], "Produce a position-dependent executable (default)",
        |p| p.o.kind = Executable),
    flag(&["-shared", "-Bshareable"], "Produce a shared library", |p| p.o.kind = Shared),
    flag(&["-static"], "Link statically: no dynamic linker, -l finds only archives", Parser::static_link),
    flag(&["-n", "--nmagic"], "Do not page-align segments; link statically", |p| {
        p.o.nmagic = true;
        p.static_link();
    }),
    arg(&["--split-stack-adjust-size"], "N", "Extra stack a -fsplit-stack function asks for before it calls one without the check (default 16384)",
        Value(|p, v| {
            p.o.split_stack_adjust_size = v.parse().map_err(|_| {
                ArgsError::Refused(format!("--split-stack-adjust-size: size must be >= 0, got '{v}'"))
            })?;
            Ok(())
        })),
    arg(&["--oformat"], "elf|binary", "Write an ELF file (default) or the flat memory image alone (binary)",
        Value(Parser::oformat)),
    flag(&["-N", "--omagic"], "One writable, executable segment, not page-aligned; link statically", |p| {
        p.o.omagic = true;
        p.o.nmagic = true;
        p.static_link();
    }),
    flag(&["--no-omagic"], "Undo -N (and -n): page-aligned segments of their own", |p| {
        p.o.omagic = false;
        p.o.nmagic = false;
    }),
    flag(&["--no-nmagic"], "Undo -n: page-aligned segments", |p| p.o.nmagic = false),
    flag(&["-static-pie"], "Produce a static position-independent executable", Parser::static_pie),
    flag(&["-r", "--relocatable", "-i"], "Produce a relocatable object (-i: GNU ld's other name)", |p| p.o.relocatable = true),
    flag(&["--force-group-allocation"], "With -r, resolve COMDAT groups as a final link does: no group sections in the output",
        |p| p.o.force_group_allocation = true),
    arg(&["-m"], "EMULATION", "Set the emulation; only elf_x86_64 is supported", Value(Parser::emulation)),
    arg(&["--package-metadata"], "JSON", "Add a .note.package note holding JSON (the packaging metadata of systemd's spec)",
        Set(|p, v| p.o.package_metadata = Some(v.into()))),
    arg(&["--build-id"], "STYLE", "Add .note.gnu.build-id: sha1 (bare --build-id), fast, md5, uuid, none, 0xHEX",
        Optional(Parser::build_id)),
    flag(&["--eh-frame-hdr"], "Create .eh_frame_hdr and PT_GNU_EH_FRAME", |p| p.o.eh_frame_hdr = true),
    flag(&["--no-eh-frame-hdr"], "Do not create .eh_frame_hdr (default)", |p| p.o.eh_frame_hdr = false),
    flag(&["-s", "--strip-all"], "Omit all symbol information", |p| p.o.strip_all = true),
    flag(&["-q", "--emit-relocs"], "Keep the inputs' relocations in the output (.rela sections)",
        |p| p.o.emit_relocs = true),
    flag(&["--gdb-index"], "Write .gdb_index, gdb's index of the debug information",
        |p| p.o.gdb_index = true),
    flag(&["--no-gdb-index"], "Do not write .gdb_index (default)", |p| p.o.gdb_index = false),
    flag(&["-S", "--strip-debug"], "Omit debug information", |p| p.o.strip_debug = true),
    flag(&["-X", "--discard-locals"], "Drop temporary local symbols (.L*)", |p| {
        p.o.discard_locals = true;
        p.o.discard_none = false;
    }),
    flag(&["-x", "--discard-all"], "Drop all local symbols", |p| {
        p.o.discard_all = true;
        p.o.discard_none = false;
    }),
    flag(&["--discard-none"], "Keep all local symbols, .L labels in mergeable sections too", |p| {
        p.o.discard_locals = false;
        p.o.discard_all = false;
        p.o.discard_none = true;
    }),
    arg(&["--compress-debug-sections"], "zlib|zstd|none", "Compress the .debug_* output sections (SHF_COMPRESSED)",
        Value(Parser::compress_debug_sections)),
    arg(&["--compress-sections"], "GLOB=TYPE[:LEVEL]", "Compress the non-loaded output sections GLOB names with TYPE (none, zlib, zstd), at LEVEL; the last match wins, over --compress-debug-sections",
        Value(Parser::compress_sections)),
    arg(&["--symbol-ordering-file"], "FILE", "Put the sections defining the symbols FILE lists (one per line) first in their output sections, in that order",
        Value(|p, v| {
            p.o.symbol_ordering_file = Some(v.into());
            Ok(())
        })),
    flag(&["--warn-symbol-ordering"], "Warn about --symbol-ordering-file symbols that cannot be ordered (default)",
        |p| p.o.warn_symbol_ordering = true),
    flag(&["--no-warn-symbol-ordering"], "Do not warn about --symbol-ordering-file symbols that cannot be ordered",
        |p| p.o.warn_symbol_ordering = false),
    arg(&["--call-graph-profile-sort"], "none|hfsort|cdsort", "Place code sections that call each other often together (default cdsort)",
        Value(Parser::call_graph_profile_sort)),
    flag(&["--no-call-graph-profile-sort"], "Keep code sections in input order whatever the call graph profile says",
        |p| p.o.call_graph_sort = crate::call_graph_sort::CallGraphSort::None),
    arg(&["--call-graph-ordering-file"], "FILE", "Take the call counts from FILE (lines CALLER CALLEE COUNT), not from the objects",
        Set(|p, v| p.o.call_graph_ordering_file = Some(v.into()))),
    arg(&["--print-symbol-order"], "FILE", "Write the symbols in the order --call-graph-profile-sort=hfsort placed them",
        Set(|p, v| p.o.print_symbol_order = Some(v.into()))),
    flag(&["--print-memory-usage"], "Print how much of each MEMORY region the output uses",
        |p| p.o.print_memory_usage = true),
    flag(&["--check-sections"], "Refuse a linker script's sections that overlap (default)",
        |p| p.o.check_sections = true),
    flag(&["--no-check-sections"], "Let a linker script's sections overlap",
        |p| p.o.check_sections = false),
    arg(&["--orphan-handling"], "place|warn|error", "What to do with the sections a linker script's SECTIONS does not place: place them (default), warn, or refuse",
        Value(|p, v| {
            use crate::options::OrphanHandling;
            p.o.orphan_handling = match v {
                "place" => OrphanHandling::Place,
                "warn" => OrphanHandling::Warn,
                "error" => OrphanHandling::Error,
                _ => return Err(invalid(&p.opt, v)),
            };
            Ok(())
        })),
    arg(&["--sort-section"], "name|alignment", "Order the sections of a linker script's descriptions by name or alignment where no SORT nested in them does",
        Value(Parser::sort_section)),
    flag(&["--fork"], "Link in a child process and exit as soon as the output is written (default)", |p| p.o.fork = true),
    flag(&["--no-fork"], "Link in this process, which exits when it has freed everything", |p| p.o.fork = false),
    // lld's spelling: only `--threads=N`, so `--threads foo.o` keeps foo.o an input.
    arg(&["--threads"], "N", "Use N threads (default: all cores)", Optional(Parser::threads)),
    flag(&["--no-threads"], "Use one thread", |p| p.o.threads = Some(1)),
    arg(&["--thread-count"], "N", "Use N threads (gold's name for --threads=N)", Value(Parser::thread_count)),
    heading("Inputs"),
    arg(&["--sysroot"], "DIR", "Use DIR as the system root for library search",
        Set(|p, v| p.o.sysroot = Some(v.into()))),
    arg(&["-L", "--library-path"], "DIR", "Add DIR to the library search path",
        Set(|p, v| p.o.library_paths.push(v.into()))),
    arg(&["-l", "--library"], "NAME", "Link libNAME.so or libNAME.a (-l:FILE: exactly FILE)",
        Value(Parser::library)),
    flag(&["--as-needed"], "Record following shared libraries only if used", |p| p.state.as_needed = true),
    flag(&["--no-as-needed"], "Record following shared libraries always (default)",
        |p| p.state.as_needed = false),
    flag(&["--whole-archive"], "Link every member of following archives", |p| p.state.whole_archive = true),
    flag(&["--no-whole-archive"], "Link only needed archive members (default)",
        |p| p.state.whole_archive = false),
    flag(&["-Bstatic", "-dn", "-non_shared"], "Following -l find only archives",
        |p| p.state.static_only = true),
    flag(&["-Bdynamic", "-dy", "-call_shared"], "Following -l also find shared libraries (default)",
        |p| p.state.static_only = false),
    arg(&["-b", "--format"], "binary|elf|default", "Read the following input files as raw data (binary) or as objects, archives and libraries (elf, default)",
        Value(|p, v| {
            p.state.binary = match v {
                "binary" => true,
                "elf" | "default" | "elf64-x86-64" | "elf64-little" => false,
                _ => return Err(invalid(&p.opt, v)),
            };
            Ok(())
        })),
    flag(&["--start-lib"], "Treat the following objects as archive members (until --end-lib)",
        |p| p.state.lazy = true),
    flag(&["--end-lib"], "End --start-lib", |p| p.state.lazy = false),
    flag(&["--push-state"], "Save the input state (as-needed, whole-archive, static)",
        |p| p.stack.push(p.state)),
    arg(&["--pop-state"], "", "Restore the input state saved by --push-state",
        Check(Parser::pop_state)),
    arg(&["--start-group", "-("], "", "Search the following archives repeatedly", Check(Parser::start_group)),
    arg(&["--end-group", "-)"], "", "End a group", Check(Parser::end_group)),
    flag(&["-nostdlib"], "Search only the -L directories", |p| p.o.nostdlib = true),
    arg(&["--remap-inputs"], "FROM=TO", "Read an input whose path matches the glob FROM from TO (/dev/null: leave it out)",
        Set(|p, v| p.o.remap_inputs.push(v.into()))),
    arg(&["--remap-inputs-file"], "FILE", "Remap inputs by FILE's FROM=TO lines",
        Set(|p, v| p.o.remap_inputs_files.push(v.into()))),
    flag(&["--dependent-libraries"], "Link the libraries .deplibs sections name (default)",
        |p| p.o.dependent_libraries = true),
    flag(&["--no-dependent-libraries"], "Do not link the libraries .deplibs sections name", |p| p.o.dependent_libraries = false),
    heading("Symbols"),
    arg(&["-e", "--entry"], "SYMBOL", "Start execution at SYMBOL (default _start)",
        Set(|p, v| p.o.entry = Some(v.into()))),
    arg(&["-u", "--undefined"], "SYMBOL", "Treat SYMBOL as referenced, pulling it from archives",
        Set(|p, v| p.o.undefined.push(v.into()))),
    arg(&["--require-defined"], "SYMBOL", "Like -u, and report an error unless SYMBOL is defined",
        Set(|p, v| {
            p.o.undefined.push(v.into());
            p.o.require_defined.push(v.into());
        })),
    arg(&["--undefined-glob"], "PATTERN", "Load the archive members that define symbols matching PATTERN",
        Set(|p, v| p.o.undefined_globs.push(v.into()))),
    arg(&["--retain-symbols-file"], "FILE", "Keep only the symbols FILE lists (one per line) global; the others become local",
        Set(|p, v| p.o.retain_symbols_file = Some(v.into()))),
    arg(&["--wrap"], "SYMBOL", "Resolve SYMBOL to __wrap_SYMBOL, __real_SYMBOL to SYMBOL",
        Set(|p, v| p.o.wrap.push(v.into()))),
    arg(&["--defsym"], "SYMBOL=EXPR", "Define SYMBOL", Value(Parser::defsym)),
    flag(&["--allow-multiple-definition"], "Let the first definition win over duplicates",
        |p| p.o.allow_multiple_definition = true),
    flag(&["--no-allow-multiple-definition"], "Duplicate definitions are errors (default)",
        |p| p.o.allow_multiple_definition = false),
    flag(&["--no-undefined"], "Report undefined symbols even in shared libraries",
        |p| p.o.report_undefined = Some(true)),
    arg(&["--unresolved-symbols"], "METHOD",
        "ignore-all, report-all, ignore-in-object-files or ignore-in-shared-libs: whether the objects' undefined symbols are reported",
        Value(Parser::unresolved_symbols)),
    flag(&["--warn-unresolved-symbols"], "Report undefined symbols as warnings",
        |p| p.o.warn_unresolved = true),
    flag(&["--error-unresolved-symbols"], "Report undefined symbols as errors (default)",
        |p| p.o.warn_unresolved = false),
    flag(&["--noinhibit-exec"], "Write the output despite undefined symbols and duplicate definitions (warned about)",
        |p| p.o.noinhibit_exec = true),
    // A shared library's own undefined symbols are resolved by the dynamic loader against its
    // dependencies; rld does not second-guess them (lld's default for -shared).
    flag(&["--allow-shlib-undefined"], "Allow undefined symbols in input shared libraries (default with -shared)",
        |p| p.o.report_shlib_undefined = Some(false)),
    flag(&["--no-allow-shlib-undefined"],
        "Report input shared libraries' undefined symbols (default without -shared; only for libraries whose dependencies are all linked)",
        |p| p.o.report_shlib_undefined = Some(true)),
    flag(&["--fortran-common"], "Let an archive member defining a common symbol replace it (lld-14's default, GNU ld's)",
        |p| p.o.fortran_common = true),
    flag(&["--no-fortran-common"], "Leave a common symbol to its commons whatever archives define (the default, as lld-15 and later)",
        |p| p.o.fortran_common = false),
    heading("Sections and layout"),
    arg(&["--image-base"], "ADDR", "Start the output's first segment at ADDR",
        Value(Parser::image_base)),
    arg(&["-Ttext-segment"], "ADDR", "Start the output's first segment at ADDR (GNU ld's; as --image-base)",
        Value(Parser::image_base)),
    arg(&["--section-start"], "SECTION=ADDR", "Place output section SECTION at ADDR",
        Value(Parser::section_start)),
    arg(&["--default-script", "-dT"], "FILE", "Read a linker script if no -T names one",
        Set(|p, v| p.default_script = Some(v.into()))),
    arg(&["-T", "--script"], "FILE", "Read a linker script",
        Value(|p, v| {
            let state = p.state;
            p.o.inputs.push(InputArg::Script { path: v.into(), state });
            Ok(())
        })),
    arg(&["-Ttext"], "ADDR", "Place .text at ADDR (as --section-start=.text=ADDR)",
        Value(|p, v| p.start_of(".text", v))),
    arg(&["-Tdata"], "ADDR", "Place .data at ADDR", Value(|p, v| p.start_of(".data", v))),
    arg(&["-Tbss"], "ADDR", "Place .bss at ADDR", Value(|p, v| p.start_of(".bss", v))),
    flag(&["--rosegment"], "Keep read-only data out of the code segment (default)", |p| p.o.rosegment = true),
    flag(&["--no-rosegment"], "Read-only data and the headers share the code's segment (as lld)",
        |p| p.o.rosegment = false),
    flag(&["--relax"], "Turn GOT loads of symbols defined in the output into direct references (default)",
        |p| p.o.relax = true),
    flag(&["--no-relax"], "Keep every GOT load as compiled", |p| p.o.relax = false),
    flag(&["--branch-to-branch"], "Send calls and jumps to a jump straight to its target (default at -O2)",
        |p| p.o.branch_to_branch = Some(true)),
    flag(&["--no-branch-to-branch"], "Leave calls and jumps to a jump as they are (default below -O2)",
        |p| p.o.branch_to_branch = Some(false)),
    flag(&["--gc-sections"], "Remove unreferenced sections", |p| p.o.gc_sections = true),
    flag(&["--no-gc-sections"], "Keep unreferenced sections (default)", |p| p.o.gc_sections = false),
    // Not folding identical code is always correct, only larger.
    arg(&["-O"], "LEVEL", "Output optimization level, as lld's: 0 merges no strings, 1 (default) merges identical ones, 2 also tail-merges strings and turns on --branch-to-branch",
        Value(Parser::opt_level)),
    arg(&["--shuffle-sections"], "GLOB=SEED", "Shuffle the input sections named GLOB with SEED, as lld does (-1 reverses them, 0 draws a seed)",
        Value(Parser::shuffle_sections)),
    arg(&["--icf"], "none|all|safe", "Fold identical read-only sections: all of them, or (safe) those whose address no object takes (clang's .llvm_addrsig)", Value(Parser::icf)),
    heading("Dynamic linking"),
    flag(&["--ignore-data-address-equality"], "Let a non-PIC program copy a library's protected variable (the library keeps its own address for it)",
        |p| p.o.ignore_data_address_equality = true),
    flag(&["--ignore-function-address-equality"], "Let a non-PIC program take a library's protected function's address through a PLT entry (the library keeps its own)",
        |p| p.o.ignore_function_address_equality = true),
    flag(&["--no-dynamic-linker"], "Do not request a program interpreter (no PT_INTERP)",
        |p| p.o.no_dynamic_linker = true),
    arg(&["-I", "--dynamic-linker"], "FILE", "Use FILE as the program interpreter",
        Set(|p, v| p.o.dynamic_linker = Some(v.into()))),
    arg(&["-h", "-soname"], "NAME", "Set DT_SONAME", Set(|p, v| p.o.soname = Some(v.into()))),
    arg(&["--filter", "-F"], "NAME", "Add DT_FILTER: this library filters NAME's symbols",
        Set(|p, v| p.o.filters.push((object::elf::DT_FILTER, v.into())))),
    arg(&["--auxiliary"], "NAME", "Add DT_AUXILIARY: NAME's symbols are preferred to this library's",
        Set(|p, v| p.o.filters.push((object::elf::DT_AUXILIARY, v.into())))),
    arg(&["--audit"], "LIB", "Add LIB to DT_AUDIT (libraries the dynamic loader audits the program with)",
        Set(|p, v| p.o.audit.push(v.into()))),
    arg(&["--depaudit", "-P"], "LIB", "Add LIB to DT_DEPAUDIT (auditing of this library's dependencies)",
        Set(|p, v| p.o.depaudit.push(v.into()))),
    arg(&["-rpath"], "DIR", "Add DIR to the runtime library search path",
        Set(|p, v| p.o.rpath.push(v.into()))),
    // GNU ld's rule: an existing file that is not a directory is --just-symbols, anything
    // else (a directory, a path that does not exist yet) an rpath; lld takes all for rpaths.
    arg(&["-R"], "DIR|FILE", "A file: as --just-symbols; otherwise as -rpath",
        Set(|p, v| {
            if is_symbols_file(v) {
                p.o.inputs.push(InputArg::JustSymbols { path: v.into() })
            } else {
                p.o.rpath.push(v.into())
            }
        })),
    arg(&["--just-symbols"], "FILE", "Define FILE's symbols at their addresses (absolute), linking nothing of it",
        Set(|p, v| p.o.inputs.push(InputArg::JustSymbols { path: v.into() }))),
    flag(&["--enable-new-dtags"], "Emit the rpath as DT_RUNPATH (default)", |p| p.o.new_dtags = true),
    flag(&["--disable-new-dtags"], "Emit the rpath as DT_RPATH", |p| p.o.new_dtags = false),
    arg(&["-init"], "SYMBOL", "Call SYMBOL at load time (DT_INIT, default _init)",
        Set(|p, v| p.o.init = v.into())),
    arg(&["-fini"], "SYMBOL", "Call SYMBOL at unload time (DT_FINI, default _fini)",
        Set(|p, v| p.o.fini = v.into())),
    arg(&["--hash-style"], "STYLE", "Symbol hash table: sysv, gnu or both (default)",
        Value(Parser::hash_style)),
    flag(&["--use-android-relr-tags"], "With --pack-dyn-relocs=relr: Android's DT_ANDROID_RELR tags and section type (lld's)",
        |p| p.o.android_relr_tags = true),
    flag(&["--no-use-android-relr-tags"], "The generic ABI's DT_RELR tags (default)", |p| p.o.android_relr_tags = false),
    flag(&["--apply-dynamic-relocs"], "Also write the values dynamic relocations fill in (GNU ld's output)",
        |p| p.o.apply_dynamic_relocs = true),
    arg(&["--spare-dynamic-tags"], "N", "End .dynamic with N empty entries, the terminator among them, for tools to fill (GNU ld's; default 1, as lld)",
        Value(|p, v| {
            p.o.spare_dynamic_tags = number(&p.opt, v)?;
            Ok(())
        })),
    flag(&["--check-dynamic-relocations"], "With --apply-dynamic-relocs, check that each place of .rela.dyn holds its relocation's addend",
        |p| p.o.check_dynamic_relocations = true),
    flag(&["--no-check-dynamic-relocations"], "Do not check the places of dynamic relocations (default)",
        |p| p.o.check_dynamic_relocations = false),
    flag(&["--no-apply-dynamic-relocs"], "Leave the places dynamic relocations fill as the inputs have them (default, lld's)",
        |p| p.o.apply_dynamic_relocs = false),
    arg(&["--pack-dyn-relocs"], "FORMAT", "relr: relative relocations as a DT_RELR bitmap (as -z pack-relative-relocs); android: .rela.dyn in Android's packed format (lld's); android+relr: both; none (default)",
        Value(Parser::pack_dyn_relocs)),
    flag(&["-E", "--export-dynamic"], "Export all global symbols to the dynamic symbol table",
        |p| p.o.export_dynamic = true),
    flag(&["--no-export-dynamic"], "Export only symbols that shared libraries need (default)",
        |p| p.o.export_dynamic = false),
    flag(&["-Bsymbolic"], "Bind global references within a shared library locally",
        |p| p.o.symbolic = Symbolic::All),
    flag(&["-Bsymbolic-functions"], "Bind global function references locally",
        |p| p.o.symbolic = Symbolic::Functions),
    flag(&["-Bsymbolic-non-weak"], "Bind references to non-weak definitions locally",
        |p| p.o.symbolic = Symbolic::NonWeak),
    flag(&["-Bsymbolic-non-weak-functions"], "Bind references to non-weak functions locally",
        |p| p.o.symbolic = Symbolic::NonWeakFunctions),
    flag(&["-Bno-symbolic"], "Undo -Bsymbolic and its kin: definitions stay preemptible (default)",
        |p| p.o.symbolic = Symbolic::None),
    arg(&["--version-script"], "FILE", "Read a version script", Set(|p, v| p.o.version_scripts.push(v.into()))),
    flag(&["--undefined-version"], "Allow version scripts to name undefined symbols",
        |p| p.o.undefined_version = true),
    flag(&["--no-undefined-version"], "Report symbols a version script names but nothing defines (default, as lld-16 and later)",
        |p| p.o.undefined_version = false),
    arg(&["--dynamic-list"], "FILE", "Read a list of symbols to export",
        Set(|p, v| p.o.dynamic_lists.push(v.into()))),
    arg(&["--export-dynamic-symbol"], "GLOB",
        "Export matching symbols; in a shared library they stay preemptible even with -Bsymbolic",
        Set(|p, v| p.o.export_dynamic_symbols.push(v.into()))),
    arg(&["--export-dynamic-symbol-list"], "FILE",
        "--export-dynamic-symbol for each pattern of FILE (the dynamic-list format)",
        Set(|p, v| p.o.export_dynamic_symbol_lists.push(v.into()))),
    arg(&["--exclude-libs"], "LIBS", "Do not export symbols from the comma-separated archives",
        Set(|p, v| p.o.exclude_libs.push(v.into()))),
    arg(&["-z"], "KEYWORD", "A GNU ld/lld keyword: relro, now, text, execstack, separate-code, defs, pack-relative-relocs, max-page-size=N, ... (man rld lists them all)",
        Value(Parser::z_keyword)),
    flag(&["--default-symver"], "Version every exported symbol of a shared library with its soname",
        |p| p.o.default_symver = true),
    heading("Link-time optimization"),
    arg(&["--dump-summary"], "FILE", "Print the module summary of a bitcode file or a cached .rldsum",
        Set(|p, v| p.o.dump_summary = Some(v.into()))),
    flag(&["-flto"], "Link-time optimize bitcode inputs", |p| p.o.lto = true),
    arg(&["-mllvm"], "OPT", "Pass OPT to LLVM", Set(|p, v| p.o.lto_opts.llvm_args.push(v.into()))),
    arg(&["--lto-O"], "<0-3>", "LTO optimization level (default 2)", Joined(Parser::lto_level)),
    arg(&["--lto-CGO"], "<0-3>", "LTO code generation level (default 3 at --lto-O3, else 2)",
        Joined(|p, v| {
            let level = parse_opt_level(v).ok_or_else(|| invalid(&p.opt, v))?;
            p.o.lto_opts.cg_opt_level = Some(level);
            Ok(())
        })),
    arg(&["--cvp-max-targets"], "N", "Called-value propagation: most targets tracked per value (default 32)",
        Value(|p, v| { p.o.lto_opts.cvp_max_targets = count(&p.opt, v)?; Ok(()) })),
    arg(&["--icp-max-targets"], "N", "Promote indirect calls with at most N known targets (default 2)",
        Value(|p, v| { p.o.lto_opts.icp_max_targets = count(&p.opt, v)?; Ok(()) })),
    flag(&["--no-cvp"], "Do not run called-value propagation", |p| p.o.lto_opts.cvp = false),
    flag(&["--no-wpa-aa"], "Do not run the whole-program points-to analysis",
        |p| p.o.lto_opts.wpa_aa = false),
    flag(&["--no-wpa-aa-metadata"], "Run the points-to analysis (for called-value propagation) but write no alias metadata",
        |p| p.o.lto_opts.wpa_aa_metadata = false),
    flag(&["--fat-lto-objects"], "Link objects that carry LLVM bitcode (-ffat-lto-objects) through their bitcode",
        |p| p.o.fat_lto_objects = true),
    flag(&["--no-fat-lto-objects"], "Link such objects through their machine code (the default)",
        |p| p.o.fat_lto_objects = false),
    arg(&["--lto-partitions"], "N", "Split LTO into N partitions (default: from the program's size)",
        Value(|p, v| { p.o.lto_opts.partitions = Some(count(&p.opt, v)?); Ok(()) })),
    arg(&["--thinlto-jobs"], "N", "Compile N LTO partitions at once (default: all cores)",
        Value(Parser::lto_jobs)),
    flag(&["--save-temps"], "Keep LTO intermediate files", |p| p.o.lto_opts.save_temps = true),
    arg(&["--lto-cache-dir", "--thinlto-cache-dir"], "DIR", "Cache LTO results in DIR",
        Set(|p, v| p.o.lto_opts.cache_dir = Some(v.into()))),
    arg(&["--thinlto-cache-policy", "--lto-cache-policy"], "POLICY", "How the LTO cache is pruned after the link (LLVM's syntax: prune_after=168h:cache_size=75%:...)",
        Value(|p, v| {
            p.o.lto_opts.cache_policy = rld_lto_api::CachePolicy::parse(v)
                .map_err(|e| invalid(&p.opt, &format!("{v} ({e})")))?;
            Ok(())
        })),
    arg(&["--opt-remarks-filename"], "FILE", "Write LTO optimization remarks to FILE",
        Set(|p, v| p.o.lto_opts.remarks_filename = Some(v.into()))),
    arg(&["--opt-remarks-passes"], "REGEX", "Only remarks from passes matching REGEX",
        Set(|p, v| p.o.lto_opts.remarks_passes = Some(v.into()))),
    arg(&["--opt-remarks-format"], "FORMAT", "Remarks file format: yaml (default) or bitstream",
        Set(|p, v| p.o.lto_opts.remarks_format = Some(v.into()))),
    flag(&["--opt-remarks-with-hotness"], "Include profile hotness in remarks",
        |p| p.o.lto_opts.remarks_with_hotness = true),
    arg(&["--opt-remarks-hotness-threshold"], "N|auto", "Leave out LLVM's remarks of code run fewer than N times (auto: from the profile)",
        Value(|p, v| {
            let t = rld_lto_api::parse_hotness_threshold(v).ok_or_else(|| invalid(&p.opt, v))?;
            p.o.lto_opts.remarks_hotness_threshold = t;
            Ok(())
        })),
    flag(&["--lto-basic-block-address-map"], "Emit LTO code's basic block address map (SHT_LLVM_BB_ADDR_MAP)",
        |p| p.basic_blocks.address_map = Some(true)),
    flag(&["--no-lto-basic-block-address-map"], "Emit no basic block address map (the default)",
        |p| p.basic_blocks.address_map = Some(false)),
    arg(&["--lto-basic-block-sections"], "all|none|labels|FILE", "Put LTO code's basic blocks in sections of their own (FILE: those it lists)",
        Set(Parser::lto_basic_block_sections)),
    flag(&["--lto-unique-basic-block-section-names"], "Give each basic block section a unique name",
        |p| p.basic_blocks.unique_names = Some(true)),
    flag(&["--no-lto-unique-basic-block-section-names"], "Basic block sections share names (the default)",
        |p| p.basic_blocks.unique_names = Some(false)),
    flag(&["--lto-emit-llvm"], "Write the LTO-optimized program as LLVM bitcode to the output, linking nothing",
        |p| p.o.lto_opts.emit = rld_lto_api::Emit::Bitcode),
    flag(&["--lto-emit-asm"], "Write the LTO-optimized program as assembly to the output, linking nothing",
        |p| p.o.lto_opts.emit = rld_lto_api::Emit::Assembly),
    arg(&["--lto-newpm-passes"], "PIPELINE", "Run LLVM's pass pipeline PIPELINE (its textual form) instead of lto<On>",
        Set(|p, v| p.o.lto_opts.pipeline = Some(v.into()))),
    arg(&["--lto-aa-pipeline"], "AAS", "Use the alias analyses AAS (LLVM's textual form) in the LTO pipeline",
        Set(|p, v| p.o.lto_opts.aa_pipeline = Some(v.into()))),
    arg(&["--load-pass-plugin"], "FILE", "Load the LLVM pass plugin FILE into the LTO pipeline (its passes run where it registers them)",
        Set(|p, v| p.o.lto_opts.pass_plugins.push(v.into()))),
    flag(&["--lto-debug-pass-manager"], "Print each LLVM pass as it runs",
        |p| p.o.lto_opts.debug_pass_manager = true),
    flag(&["--lto-pgo-warn-mismatch"], "Warn about functions a context-sensitive profile does not match (default)",
        |p| p.o.lto_opts.pgo_warn_mismatch = true),
    flag(&["--no-lto-pgo-warn-mismatch"], "Do not warn about functions a context-sensitive profile does not match",
        |p| p.o.lto_opts.pgo_warn_mismatch = false),
    arg(&["--lto-sample-profile"], "FILE", "Optimize LTO with the AutoFDO sample profile FILE",
        Set(|p, v| p.o.lto_opts.profile.sample = Some(v.into()))),
    arg(&["--lto-cs-profile-file"], "FILE", "The context-sensitive PGO profile to use (or, with --lto-cs-profile-generate, to write)",
        Set(|p, v| p.o.lto_opts.profile.cs_file = Some(v.into()))),
    flag(&["--lto-cs-profile-generate"], "Instrument the program after LTO's inlining for a context-sensitive profile",
        |p| p.o.lto_opts.profile.cs_generate = true),
    arg(&["--thinlto-distributor"], "PATH",
        "Compile the LTO partitions as jobs of the distributor PATH (lld's DTLTO interface)",
        Set(|p, v| p.o.lto_opts.distribution.distributor = v.into())),
    arg(&["--thinlto-distributor-arg"], "ARG", "Pass ARG to the distributor",
        Set(|p, v| p.o.lto_opts.distribution.distributor_args.push(v.into()))),
    arg(&["--thinlto-remote-compiler"], "PATH",
        "The rld the distributed jobs run (default: this one; a clang is not used)",
        Set(|p, v| p.o.lto_opts.distribution.remote_compiler = Some(v.into()))),
    arg(&["--thinlto-remote-compiler-arg"], "ARG", "Pass ARG to each distributed job's rld",
        Set(|p, v| p.o.lto_opts.distribution.remote_compiler_args.push(v.into()))),
    arg(&["--thinlto-remote-compiler-prepend-arg"], "ARG",
        "Put ARG right after the remote compiler in each job's command",
        Set(|p, v| p.o.lto_opts.distribution.remote_compiler_prepend_args.push(v.into()))),
    arg(&["--thinlto-distributor-timeout"], "SECONDS",
        "Stop the distributor and fail the link after SECONDS (default: wait)",
        Value(|p, v| {
            p.o.lto_opts.distribution.timeout_seconds = Some(count(&p.opt, v)? as u64);
            Ok(())
        })),
    heading("Plugins"),
    // LLVM's plugin (LLVMgold.so) is never loaded: rld's LTO does its work.
    arg(&["-plugin"], "FILE", "Load a linker plugin (gcc's LTO plugin); LLVMgold.so is not loaded: rld does LLVM LTO itself",
        Set(Parser::plugin)),
    arg(&["-plugin-opt"], "OPT", "LTO option (O2, jobs=N, mcpu=CPU, -llvm-option, ...)",
        Value(Parser::plugin_opt)),
    heading("Diagnostics"),
    arg(&["--dependency-file"], "FILE", "Write a Makefile rule listing every file the link read to FILE",
        Set(|p, v| p.o.dependency_file = Some(v.into()))),
    arg(&["--why-extract"], "FILE", "Write why each archive member was loaded to FILE (- for standard output)",
        Set(|p, v| p.o.why_extract = Some(v.into()))),
    flag(&["--print-dependencies"], "Print which input section uses which other file's symbols (mold's report)",
        |p| p.o.print_dependencies = true),
    arg(&["--print-archive-stats"], "FILE", "Write each archive's member count and how many were loaded to FILE (- for standard output)",
        Set(|p, v| p.o.print_archive_stats = Some(v.into()))),
    flag(&["--demangle"], "Demangle C++ names in diagnostics (default)", |p| p.o.demangle = true),
    flag(&["--no-demangle"], "Show C++ names in diagnostics as they are mangled", |p| p.o.demangle = false),
    flag(&["-t", "--trace"], "Print each input file as it is loaded", |p| p.o.trace = true),
    arg(&["-y", "--trace-symbol"], "SYMBOL", "Print each input file that defines or references SYMBOL",
        Set(|p, v| p.o.trace_symbols.push(v.into()))),
    arg(&["--print-gc-sections"], "FILE", "List the sections --gc-sections removes (to FILE, else standard output)",
        Optional(|p, v| {
            p.o.print_gc_sections = Some(v.unwrap_or("-").into());
            Ok(())
        })),
    flag(&["--no-print-gc-sections"], "Do not list them (default)", |p| p.o.print_gc_sections = None),
    flag(&["--warn-backrefs"], "Warn about references that load archive members from earlier groups",
        |p| p.o.warn_backrefs = true),
    flag(&["--no-warn-backrefs"], "Do not warn about such references (default)", |p| p.o.warn_backrefs = false),
    arg(&["--warn-backrefs-exclude"], "GLOB", "Do not warn about the archive members GLOB matches",
        Set(|p, v| p.o.warn_backrefs_exclude.push(v.into()))),
    flag(&["--warn-textrel"], "Warn about text relocations, as without -z text or -z notext (default)",
        |p| {
            p.o.z_text = false;
            p.o.z_notext = false;
        }),
    arg(&["--why-live"], "GLOB", "Print why --gc-sections kept each live symbol GLOB matches",
        Set(|p, v| p.o.why_live.push(v.into()))),
    arg(&["-Map"], "FILE", "Write a link map (lld's format; - for standard output)",
        Set(|p, v| p.o.map_file = Some(v.into()))),
    flag(&["-M", "--print-map"], "Write the link map to standard output (as -Map -)",
        |p| p.o.map_file = Some("-".into())),
    flag(&["--cref"], "Write a cross reference table of global symbols (after the map, or to standard output)",
        |p| p.o.cref = true),
    flag(&["--no-warnings", "-w"], "Show no warnings (and cancel --fatal-warnings)", |p| p.o.no_warnings = true),
    arg(&["--error-handling-script"], "SCRIPT", "Run SCRIPT undefined-symbol NAME, or SCRIPT missing-lib NAME, before reporting the error",
        Value(|p, v| {
            p.o.error_handling_script = Some(v.into());
            Ok(())
        })),
    arg(&["--error-limit"], "N", "Show at most N errors (default 20; 0 for all)",
        Value(|p, v| {
            p.o.error_limit = number::<usize>(&p.opt, v)?;
            Ok(())
        })),
    flag(&["--warn-rwx-segments"], "Warn about a loaded segment that is writable and executable (GNU ld's)",
        |p| p.o.warn_rwx_segments = true),
    flag(&["--no-warn-rwx-segments"], "No warning about writable and executable segments (default)",
        |p| p.o.warn_rwx_segments = false),
    flag(&["--warn-execstack"], "Warn when the output asks for an executable stack (GNU ld's)",
        |p| p.o.warn_execstack = true),
    flag(&["--no-warn-execstack"], "No warning about an executable stack (default)",
        |p| p.o.warn_execstack = false),
    flag(&["--fatal-warnings"], "Treat warnings as errors", |p| p.o.fatal_warnings = true),
    flag(&["--no-fatal-warnings"], "Do not treat warnings as errors (default)", |p| p.o.fatal_warnings = false),
    flag(&["--warn-once"], "Name one place per undefined symbol (GNU ld: warn once per symbol)",
        |p| p.o.warn_once = true),
    flag(&["--warn-common"], "Warn when a common symbol meets another or a definition",
        |p| p.o.warn_common = true),
    flag(&["--no-warn-common"], "Do not warn about common symbols (default)", |p| p.o.warn_common = false),
    flag(&["--gnu-unique"], "Keep STB_GNU_UNIQUE bindings (default)", |p| p.o.gnu_unique = true),
    flag(&["--no-gnu-unique"], "Write STB_GNU_UNIQUE definitions as global", |p| p.o.gnu_unique = false),
    flag(&["--print-icf-sections"], "List the sections --icf folds", |p| p.o.print_icf_sections = true),
    flag(&["--no-print-icf-sections"], "Do not list them (default)", |p| p.o.print_icf_sections = false),
    arg(&["--keep-unique"], "SYMBOL", "Never fold the section that defines SYMBOL (--icf)",
        Value(|p, v| {
            p.o.keep_unique.push(v.to_string());
            Ok(())
        })),
    flag(&["--verbose"], "Name each file on standard error as it is opened", |p| p.o.verbose = true),
    flag(&["--time"], "Print how long each link phase took", |p| p.o.print_timing = true),
    arg(&["--time-trace"], "FILE", "Write the phases as a Chrome trace to FILE (default OUTPUT.time-trace)",
        Optional(|p, v| {
            p.o.time_trace = Some(v.map(std::path::PathBuf::from).unwrap_or_default());
            Ok(())
        })),
    arg(&["--time-trace-file"], "FILE", "As --time-trace=FILE",
        Set(|p, v| p.o.time_trace = Some(v.into()))),
    arg(&["--time-trace-granularity"], "US", "Leave out of the trace phases shorter than US microseconds (default 500)",
        Value(|p, v| {
            p.o.time_trace_granularity = number(&p.opt, v)?;
            Ok(())
        })),
    flag(&["-v", "-V"], "Print the version (and link if there are inputs)",
        |p| p.o.print_version = true),
    // GNU ld and lld link nothing after `--version`, inputs or not.
    flag(&["--version"], "Print the version and exit",
        |p| { p.o.print_version = true; p.o.version_only = true; }),
    flag(&["--help"], "Print this help", |p| p.o.print_help = true),
    // GNU ld's: build scripts ask it what to write in OUTPUT_FORMAT, and for the sysroot.
    flag(&["--print-output-format"], "Print the output format (elf64-x86-64), and link if there are inputs",
        |p| p.o.print_output_format = true),
    flag(&["--print-sysroot"], "Print the --sysroot directory (nothing without one) and exit",
        |p| p.o.print_sysroot = true),
    flag(&["--print-driver"],
        "Print the command line rld links with (run as `rld` without a C runtime, it adds what clang-14 adds) and exit",
        |p| p.o.print_driver = true),
    arg(&["--reproduce"], "FILE", "Write a tar of the inputs and the command line that replays the link",
        Set(|p, v| p.o.reproduce = Some(v.into()))),
    heading("Accepted for compatibility"),
    arg(&["--rsp-quoting"], "posix", "How response files are quoted: posix (the only one rld reads)",
        Value(|p, v| if v == "posix" { Ok(()) } else { Err(invalid(&p.opt, v)) })),
    arg(&["-rpath-link"], "DIR", "Where GNU ld looks for libraries' own dependencies: nothing to do (rld, as lld, does not read them)",
        Set(|_, _| {})),
    flag(&["--copy-dt-needed-entries", "--add-needed"],
        "Accepted with a warning; the DT_NEEDED entries of shared libraries are not followed",
        |p| {
            p.o.copy_dt_needed_entries = true;
            p.o.warnings.push("--copy-dt-needed-entries is ignored: rld does not follow the DT_NEEDED \
                entries of shared libraries to resolve symbols".into());
        }),
    flag(&["--no-copy-dt-needed-entries", "--no-add-needed"], "Do not follow DT_NEEDED (default)",
        |p| p.o.copy_dt_needed_entries = false),
    // rld's diagnostics are plain text; coloring them is not implemented.
    arg(&["--color-diagnostics"], "WHEN", "Accepted with a warning unless WHEN is never; diagnostics are not colored",
        Optional(|p, v| {
            if v != Some("never") {
                p.o.warnings.push("--color-diagnostics is ignored: rld's diagnostics are not colored".into());
            }
            Ok(())
        })),
    flag(&["--no-color-diagnostics"], "Accepted; diagnostics are not colored", |_| {}),
    // Common symbols are always placed by alignment, which is what sorting them buys.
    flag(&["--sort-common"], "Commons are always placed by alignment", |_| {}),
    // rld only reads x86-64 ELF, so there is no mismatch to tolerate.
    flag(&["--no-warn-mismatch"], "Nothing to tolerate: rld reads only x86-64 ELF", |_| {}),
    flag(&["-EL"], "Little-endian output: what rld always writes", |_| {}),
    flag(&["-EB"], "Big-endian output: warned about (rld writes x86-64, little-endian), as GNU ld does", |p| {
        p.o.warnings.push("could not find any targets that match endianness requirement".into());
    }),
    arg(&["--lto"], "full|thin", "Accepted: rld's LTO runs all bitcode, unified or not, through its one partitioned backend",
        Value(|_, v| match v {
            "full" | "thin" => Ok(()),
            _ => Err(ArgsError::Refused(format!("unknown LTO mode: {v}"))),
        })),
    // GNU ld ignores these (SVR4's -Qy, -g) or only tunes its own memory with them.
    flag(&["-Qy", "-g"], "Accepted: GNU ld ignores them too", |_| {}),
    flag(&["--no-keep-memory", "--reduce-memory-overheads"], "Accepted: GNU ld's memory tuning; rld's memory use is its own", |_| {}),
    arg(&["--hash-size", "--max-cache-size"], "N", "Accepted: GNU ld's sizes of its own tables and caches",
        Value(|p, v| number::<u64>(&p.opt, v).map(|_| ()))),
    flag(&["--map-whole-files", "--no-map-whole-files"], "Accepted: gold's choice of how to read inputs; rld maps them", |_| {}),
    flag(&["--mmap-output-file", "--no-mmap-output-file"], "Accepted: rld writes the output from its own buffers either way", |_| {}),
    flag(&["--xosegment", "--no-xosegment"], "Accepted: x86-64 code has no execute-only sections to place apart (as lld-22)", |_| {}),
    // lld-22 parses these and no longer warns about anything with them.
    flag(&["--warn-ifunc-textrel", "--no-warn-ifunc-textrel"], "Accepted: lld-22 warns about nothing with them either", |_| {}),
];

/// Options of gcc's liblto_plugin (gcc passes them as `-plugin-opt=-OPT`), which must not be
/// mistaken for LLVM options.
const GCC_PLUGIN_OPTS: &[&str] = &[
    "-pass-through=",
    "-fresolution=",
    "-linker-output-known",
    "-linker-output-auto-nolto-rel",
    "-sym-style=",
];

fn bare(name: &str) -> &str {
    name.trim_start_matches('-')
}

/// The spec with `name` (given without dashes).
fn find(name: &str) -> Option<&'static Spec> {
    SPECS
        .iter()
        .find(|s| s.names.iter().any(|n| bare(n) == name))
}

#[derive(Default)]
struct Parser {
    o: Options,
    /// State applied to the next input.
    state: InputState,
    /// `--push-state` saves.
    stack: Vec<InputState>,
    in_group: bool,
    /// `--default-script`/`-dT`: the script used if no `-T` names one.
    default_script: Option<std::path::PathBuf>,
    /// The last `-plugin` is hosted: the `-plugin-opt=` options that follow are its own.
    to_plugin: bool,
    /// The option being handled, as written (`-o`, `--hash-style`), for error messages.
    opt: String,
    /// The spec of the option being handled and its argument, for `--reproduce`.
    matched: Option<&'static Spec>,
    value: Option<String>,
    /// lld's `--lto-basic-block-*` options, the last of each: code generator options of
    /// LLVM's, passed once at the end (LLVM refuses a boolean option given twice).
    basic_blocks: BasicBlockOptions,
}

#[derive(Default)]
struct BasicBlockOptions {
    address_map: Option<bool>,
    sections: Option<String>,
    unique_names: Option<bool>,
}

impl BasicBlockOptions {
    /// The LLVM options lld's LTO sets in its TargetOptions (BBAddrMap, BBSections,
    /// UniqueBasicBlockSectionNames), as LLVM's code generator flags spell them.
    fn llvm_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if let Some(on) = self.address_map {
            args.push(format!("-basic-block-address-map={on}"));
        }
        if let Some(sections) = &self.sections {
            args.push(format!("-basic-block-sections={sections}"));
        }
        if let Some(on) = self.unique_names {
            args.push(format!("-unique-basic-block-section-names={on}"));
        }
        args
    }
}

impl Parser {
    /// Handles one argument that starts with `-`; `rest` supplies a separate option argument.
    fn option(
        &mut self,
        arg: &str,
        rest: &mut std::vec::IntoIter<String>,
    ) -> Result<(), ArgsError> {
        let (dashes, body) = match arg.strip_prefix("--") {
            Some(body) => ("--", body),
            None => ("-", &arg[1..]),
        };
        let (name, inline) = match body.split_once('=') {
            Some((name, v)) => (name, Some(v)),
            None => (body, None),
        };
        // Whole multi-letter names first, so `-static` is not `-s tatic` and `-export-dynamic`
        // is not `-e xport-dynamic`.
        if name.len() > 1 {
            if let Some(spec) = find(name).filter(|s| !matches!(s.action, Action::Joined(_))) {
                self.opt = format!("{dashes}{name}");
                self.matched = Some(spec);
                return self.apply(spec.action, inline, rest);
            }
        }
        // A name GNU ld or lld knows but rld does not: never split it into a one-letter
        // option with a glued argument (`-emit-relocs` is not `-e mit-relocs`).
        if name.len() > 1 && foreign_options::is_known_linker_option(name) {
            return Err(ArgsError::UnsupportedOption(format!("{dashes}{name}")));
        }
        for spec in SPECS {
            if let Action::Joined(f) = spec.action {
                for n in spec.names.iter().map(|n| bare(n)) {
                    if let Some(v) = body.strip_prefix(n) {
                        self.opt = format!("{dashes}{n}");
                        return f(self, v);
                    }
                }
            }
        }
        // One-letter options, possibly with the argument glued on: `-lfoo`, `-zmax-page-size=N`.
        if dashes == "-" && body.is_char_boundary(1) {
            let (letter, glued) = body.split_at(1);
            if let Some(spec) = find(letter) {
                let takes_value = matches!(spec.action, Action::Set(_) | Action::Value(_));
                if takes_value || glued.is_empty() {
                    self.opt = format!("-{letter}");
                    self.matched = Some(spec);
                    let glued = Some(glued).filter(|g| !g.is_empty());
                    return self.apply(spec.action, glued, rest);
                }
            }
        }
        Err(ArgsError::UnknownOption(format!("{dashes}{name}")))
    }

    fn apply(
        &mut self,
        action: Action,
        inline: Option<&str>,
        rest: &mut std::vec::IntoIter<String>,
    ) -> Result<(), ArgsError> {
        let unexpected = |opt: &str| Err(ArgsError::UnexpectedArgument(opt.to_string()));
        let mut required = |opt: &str| match inline {
            Some(v) => Ok(v.to_string()),
            None => rest
                .next()
                .ok_or_else(|| ArgsError::MissingArgument(opt.to_string())),
        };
        match action {
            Action::Flag(_) | Action::Check(_) if inline.is_some() => unexpected(&self.opt),
            Action::Flag(f) => {
                f(self);
                Ok(())
            }
            Action::Check(f) => f(self),
            Action::Set(f) => {
                let v = required(&self.opt)?;
                f(self, &v);
                self.value = Some(v);
                Ok(())
            }
            Action::Value(f) => {
                let v = required(&self.opt)?;
                f(self, &v)?;
                self.value = Some(v);
                Ok(())
            }
            Action::Optional(f) => f(self, inline),
            Action::Joined(f) => f(self, inline.unwrap_or_default()),
        }
    }

    /// How `--reproduce` replays the option just handled, written as `tokens`: the paths it
    /// reads or writes are moved into the archive, the rest is kept as written.
    fn recorded(&self, tokens: Vec<String>) -> CommandArg {
        let (Some(spec), Some(value)) = (self.matched, &self.value) else {
            return CommandArg::Literal(tokens);
        };
        let (option, path) = (self.opt.clone(), value.clone());
        match spec.names[0] {
            // A plugin stays where it is, like the dynamic linker: part of the toolchain
            // (and LLVM's, which clang names, is never loaded).
            "-L"
            | "--sysroot"
            | "-T"
            | "--default-script"
            | "--version-script"
            | "--dynamic-list"
            | "--export-dynamic-symbol-list"
            | "--dump-summary"
            | "--symbol-ordering-file"
            | "--call-graph-ordering-file"
            | "--just-symbols"
            | "--retain-symbols-file" => CommandArg::Read { option, path },
            "-R" if is_symbols_file(&path) => CommandArg::Read { option, path },
            "-o"
            | "-Map"
            | "--opt-remarks-filename"
            | "--dependency-file"
            | "--why-extract"
            | "--print-archive-stats" => CommandArg::Written { option, path },
            "--reproduce" | "--lto-cache-dir" => CommandArg::Dropped,
            _ => CommandArg::Literal(tokens),
        }
    }

    fn finish(mut self) -> Options {
        let basic_blocks = self.basic_blocks.llvm_args();
        self.o.lto_opts.llvm_args.extend(basic_blocks);
        if let Some(path) = self.default_script.take() {
            if !self
                .o
                .inputs
                .iter()
                .any(|i| matches!(i, InputArg::Script { .. }))
            {
                let state = self.state;
                self.o.inputs.push(InputArg::Script { path, state });
            }
        }
        if self.in_group {
            // GNU ld's behaviour: warn and close the group at the end.
            self.o
                .warnings
                .push("missing --end-group; added as last command line option".into());
            self.o.inputs.push(InputArg::EndGroup);
        }
        self.o
    }

    fn push_file(&mut self, path: String) {
        let state = self.state;
        self.o.inputs.push(InputArg::File {
            path: path.into(),
            state,
        });
    }

    fn library(&mut self, name: &str) -> Result<(), ArgsError> {
        if name.is_empty() || name == ":" {
            return Err(invalid(&self.opt, name));
        }
        let state = self.state;
        self.o.inputs.push(InputArg::Library {
            name: name.into(),
            state,
        });
        Ok(())
    }

    /// `-static` is GNU ld's alias of `-Bstatic`, but a driver passes it for a fully static
    /// link, so it also drops the interpreter and makes shared inputs an error.
    fn static_link(&mut self) {
        self.state.static_only = true;
        self.o.static_link = true;
        self.o.no_dynamic_linker = true;
    }

    /// lld's `-static-pie`; gcc spells the same thing `-static -pie --no-dynamic-linker`.
    fn static_pie(&mut self) {
        self.static_link();
        self.o.kind = Pie;
    }

    fn pop_state(&mut self) -> Result<(), ArgsError> {
        self.state = self.stack.pop().ok_or(ArgsError::PopStateWithoutPush)?;
        Ok(())
    }

    fn start_group(&mut self) -> Result<(), ArgsError> {
        if self.in_group {
            return Err(ArgsError::NestedGroup);
        }
        self.in_group = true;
        self.o.inputs.push(InputArg::StartGroup);
        Ok(())
    }

    fn end_group(&mut self) -> Result<(), ArgsError> {
        if !self.in_group {
            return Err(ArgsError::EndGroupWithoutStart);
        }
        self.in_group = false;
        self.o.inputs.push(InputArg::EndGroup);
        Ok(())
    }

    fn emulation(&mut self, v: &str) -> Result<(), ArgsError> {
        if v != "elf_x86_64" {
            return Err(ArgsError::UnsupportedEmulation(v.into()));
        }
        self.o.emulation = Some(v.into());
        Ok(())
    }

    fn hash_style(&mut self, v: &str) -> Result<(), ArgsError> {
        let (sysv, gnu) = match v {
            "sysv" => (true, false),
            "gnu" => (false, true),
            "both" => (true, true),
            _ => return Err(invalid(&self.opt, v)),
        };
        self.o.hash_style = HashStyle { sysv, gnu };
        Ok(())
    }

    fn sort_section(&mut self, v: &str) -> Result<(), ArgsError> {
        use crate::input::script::Sort;
        self.o.sort_section = match v {
            "name" => Sort::Name,
            "alignment" => Sort::Alignment,
            _ => return Err(invalid(&self.opt, v)),
        };
        Ok(())
    }

    fn compress_sections(&mut self, v: &str) -> Result<(), ArgsError> {
        let rule = crate::compressed::SectionRule::parse(v).map_err(ArgsError::Refused)?;
        self.o.compress_sections.push(rule);
        Ok(())
    }

    fn compress_debug_sections(&mut self, v: &str) -> Result<(), ArgsError> {
        use crate::compressed::DebugCompression;
        self.o.compress_debug_sections = match v {
            // GNU ld's name for the same format.
            "zlib" | "zlib-gabi" => Some(DebugCompression::Zlib),
            "zstd" => Some(DebugCompression::Zstd),
            "none" => None,
            _ => return Err(invalid(&self.opt, v)),
        };
        Ok(())
    }

    fn pack_dyn_relocs(&mut self, v: &str) -> Result<(), ArgsError> {
        (self.o.pack_relative_relocs, self.o.android_packed_relocs) = match v {
            "relr" => (true, false),
            "android" => (false, true),
            "android+relr" => (true, true),
            "none" => (false, false),
            _ => return Err(invalid(&self.opt, v)),
        };
        Ok(())
    }

    fn build_id(&mut self, v: Option<&str>) -> Result<(), ArgsError> {
        self.o.build_id = match v {
            // A bare --build-id is 20 bytes (SHA-1's size), as in lld-22 and GNU ld.
            Some("fast") => BuildId::Fast,
            Some("md5") => BuildId::Md5,
            None | Some("sha1" | "tree") => BuildId::Sha1,
            Some("uuid") => BuildId::Uuid,
            Some("none") => BuildId::None,
            Some(s) => {
                let hex = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"));
                BuildId::Hex(
                    hex.and_then(parse_hex)
                        .ok_or_else(|| invalid(&self.opt, s))?,
                )
            }
        };
        Ok(())
    }

    fn z_keyword(&mut self, v: &str) -> Result<(), ArgsError> {
        let (opt, o) = (&self.opt, &mut self.o);
        match v.split_once('=') {
            Some(("max-page-size", n)) => o.max_page_size = Some(page_size(opt, v, n)?),
            Some(("common-page-size", n)) => o.common_page_size = Some(page_size(opt, v, n)?),
            Some(("cet-report", level)) => {
                o.z_cet_report = match level {
                    "none" => None,
                    "warning" => Some(crate::options::Severity::Warning),
                    "error" => Some(crate::options::Severity::Error),
                    _ => return Err(invalid(opt, v)),
                }
            }
            Some(("start-stop-visibility", vis)) => {
                o.start_stop_visibility = match vis {
                    "default" => object::elf::STV_DEFAULT,
                    "internal" => object::elf::STV_INTERNAL,
                    "hidden" => object::elf::STV_HIDDEN,
                    "protected" => object::elf::STV_PROTECTED,
                    _ => return Err(invalid(opt, v)),
                }
            }
            Some(("stack-size", n)) => {
                o.z_stack_size = Some(parse_u64(n).ok_or_else(|| invalid(opt, v))?)
            }
            // lld's: the value relocations of matching non-allocated sections (debug info)
            // get where they refer into a dropped section.
            Some(("dead-reloc-in-nonalloc", rule)) => {
                let (glob, value) = rule
                    .split_once('=')
                    .filter(|(g, v)| !g.is_empty() && !v.is_empty())
                    .ok_or_else(|| invalid(opt, v))?;
                let value = parse_u64(value).ok_or_else(|| invalid(opt, v))?;
                o.dead_reloc_in_nonalloc.push((glob.to_string(), value));
            }
            _ => match v {
                "start-stop-gc" => o.start_stop_gc = crate::gc::StartStop::Collected,
                "nostart-stop-gc" => o.start_stop_gc = crate::gc::StartStop::Retains,
                "relro" => o.z_relro = true,
                "norelro" => o.z_relro = false,
                "now" => o.z_now = true,
                "lazy" => o.z_now = false,
                "execstack" => o.z_execstack = true,
                "noexecstack" => {
                    o.z_execstack = false;
                    o.z_execstack_if_needed = false;
                }
                "execstack-if-needed" => o.z_execstack_if_needed = true,
                // lld's: no PT_GNU_STACK at all (GNU ld ignores it).
                "nognustack" => o.z_gnustack = false,
                // lld's: the large code models' read-only data after `.bss` and `.lbss`.
                "lrodata-after-bss" => o.z_lrodata_after_bss = true,
                "retpolineplt" => o.z_retpolineplt = true,
                // lld's: no section header table.
                "nosectionheader" => o.z_section_header = false,
                "sectionheader" => o.z_section_header = true,
                "nolrodata-after-bss" => o.z_lrodata_after_bss = false,
                // x86-64's dynamic relocations are RELA anyway.
                "rela" => {}
                "text" => {
                    o.z_text = true;
                    o.z_notext = false;
                }
                "notext" | "textoff" => {
                    o.z_text = false;
                    o.z_notext = true;
                }
                "separate-code" => o.z_separate_code = true,
                "noseparate-code" => {
                    o.z_separate_code = false;
                    o.z_separate_loadable_segments = false;
                }
                "separate-loadable-segments" => o.z_separate_loadable_segments = true,
                "defs" => o.report_undefined = Some(true),
                "undefs" | "nodefs" => o.report_undefined = Some(false),
                "muldefs" => o.allow_multiple_definition = true,
                "origin" => o.z_origin = true,
                "copyreloc" => o.z_copyreloc = true,
                "nocopyreloc" => o.z_copyreloc = false,
                "initfirst" => o.z_flags_1 |= object::elf::DF_1_INITFIRST,
                "interpose" => o.z_flags_1 |= object::elf::DF_1_INTERPOSE,
                "nodefaultlib" => o.z_flags_1 |= object::elf::DF_1_NODEFLIB,
                "global" => o.z_flags_1 |= object::elf::DF_1_GLOBAL,
                "globalaudit" => o.z_flags_1 |= object::elf::DF_1_GLOBAUDIT,
                "nodelete" => o.z_nodelete = true,
                "nodlopen" => o.z_nodlopen = true,
                "rodynamic" => o.z_rodynamic = true,
                "pack-relative-relocs" => o.pack_relative_relocs = true,
                "nopack-relative-relocs" => o.pack_relative_relocs = false,
                "x86-64-baseline" => o.z_isa_level = object::elf::GNU_PROPERTY_X86_ISA_1_BASELINE,
                "x86-64-v2" => o.z_isa_level = object::elf::GNU_PROPERTY_X86_ISA_1_V2,
                "x86-64-v3" => o.z_isa_level = object::elf::GNU_PROPERTY_X86_ISA_1_V3,
                "x86-64-v4" => o.z_isa_level = object::elf::GNU_PROPERTY_X86_ISA_1_V4,
                "dynamic-undefined-weak" => o.z_dynamic_undefined_weak = true,
                "nodynamic-undefined-weak" => o.z_dynamic_undefined_weak = false,
                "keep-text-section-prefix" => o.z_keep_text_section_prefix = true,
                "nokeep-text-section-prefix" => o.z_keep_text_section_prefix = false,
                "keep-data-section-prefix" => o.z_keep_data_section_prefix = true,
                "nokeep-data-section-prefix" => o.z_keep_data_section_prefix = false,
                "ibt" | "ibtplt" => o.z_ibt = true,
                // lld's: IBT whatever the inputs say, each lacking it warned about.
                "force-ibt" => {
                    o.z_ibt = true;
                    o.z_force_ibt = true;
                }
                "rewrite-endbr" => o.z_rewrite_endbr = true,
                "norewrite-endbr" => o.z_rewrite_endbr = false,
                "shstk" => o.z_shstk = true,
                "combreloc" => o.z_combreloc = true,
                "nocombreloc" => o.z_combreloc = false,
                // GNU ld warns and carries on, and drivers rely on that for newer keywords.
                _ => o.warnings.push(format!("unknown -z value: {v}")),
            },
        }
        Ok(())
    }

    /// `--unresolved-symbols=METHOD`: for the objects' and the input libraries' undefined
    /// symbols.
    fn unresolved_symbols(&mut self, v: &str) -> Result<(), ArgsError> {
        let (objects, libraries) = match v {
            "ignore-all" => (false, false),
            "report-all" => (true, true),
            "ignore-in-object-files" => (false, true),
            "ignore-in-shared-libs" => (true, false),
            _ => return Err(invalid(&self.opt, v)),
        };
        self.o.report_undefined = Some(objects);
        self.o.report_shlib_undefined = Some(libraries);
        Ok(())
    }

    fn image_base(&mut self, v: &str) -> Result<(), ArgsError> {
        let base = parse_u64(v).ok_or_else(|| invalid(&self.opt, v))?;
        if base % 4096 != 0 {
            self.o.warnings.push(format!(
                "--image-base: address isn't multiple of page size: {v}"
            ));
        }
        self.o.image_base = Some(base);
        Ok(())
    }

    fn section_start(&mut self, v: &str) -> Result<(), ArgsError> {
        match v.split_once('=') {
            Some((name, addr)) if !name.is_empty() => self.start_of(name, addr),
            _ => Err(invalid(&self.opt, v)),
        }
    }

    /// A section's address: hexadecimal with or without `0x`, as GNU ld and lld read it
    /// (`-Ttext 401000` is 0x401000).
    fn start_of(&mut self, name: &str, addr: &str) -> Result<(), ArgsError> {
        let digits = addr
            .strip_prefix("0x")
            .or_else(|| addr.strip_prefix("0X"))
            .unwrap_or(addr);
        let addr = u64::from_str_radix(digits, 16).map_err(|_| invalid(&self.opt, addr))?;
        self.o.section_start.retain(|(n, _)| n != name);
        self.o.section_start.push((name.into(), addr));
        Ok(())
    }

    fn defsym(&mut self, v: &str) -> Result<(), ArgsError> {
        match v.split_once('=') {
            Some((sym, expr)) if !sym.is_empty() && !expr.is_empty() => {
                self.o.defsym.push((sym.into(), expr.into()));
                Ok(())
            }
            _ => Err(invalid(&self.opt, v)),
        }
    }

    fn oformat(&mut self, v: &str) -> Result<(), ArgsError> {
        // lld's rule: `binary`, or any name of an ELF format (GNU ld's `elf64-x86-64`).
        self.o.oformat_binary = match v {
            "binary" => true,
            _ if v.starts_with("elf") => false,
            _ => return Err(ArgsError::Refused(format!("unknown --oformat value: {v}"))),
        };
        Ok(())
    }

    fn shuffle_sections(&mut self, v: &str) -> Result<(), ArgsError> {
        let rule = crate::shuffle::parse_rule(v).map_err(ArgsError::Refused)?;
        self.o.shuffle_sections.push(rule);
        Ok(())
    }

    fn icf(&mut self, v: &str) -> Result<(), ArgsError> {
        use crate::icf::Icf;
        self.o.icf = match v {
            "none" => Icf::None,
            "all" => Icf::All,
            "safe" => Icf::Safe,
            _ => return Err(invalid(&self.opt, v)),
        };
        Ok(())
    }

    fn opt_level(&mut self, v: &str) -> Result<(), ArgsError> {
        self.o.opt_level = number(&self.opt, v)?;
        Ok(())
    }

    fn threads(&mut self, v: Option<&str>) -> Result<(), ArgsError> {
        self.o.threads = v.map(|n| count(&self.opt, n)).transpose()?;
        Ok(())
    }

    fn thread_count(&mut self, v: &str) -> Result<(), ArgsError> {
        self.o.threads = Some(count(&self.opt, v)?);
        Ok(())
    }

    /// lld's rule: `labels` is the basic block address map, with a warning that it is.
    fn lto_basic_block_sections(&mut self, v: &str) {
        if v == "labels" {
            self.o.warnings.push(
                "'--lto-basic-block-sections=labels' is deprecated; Please use \
                 '--lto-basic-block-address-map' instead"
                    .into(),
            );
            self.basic_blocks.address_map = Some(true);
        } else {
            self.basic_blocks.sections = Some(v.into());
        }
    }

    fn call_graph_profile_sort(&mut self, v: &str) -> Result<(), ArgsError> {
        use crate::call_graph_sort::CallGraphSort;
        self.o.call_graph_sort = match v {
            "none" => CallGraphSort::None,
            "hfsort" => CallGraphSort::Hfsort,
            "cdsort" => CallGraphSort::Cdsort,
            _ => return Err(invalid(&self.opt, v)),
        };
        self.o.call_graph_sort_asked = true;
        Ok(())
    }

    fn lto_level(&mut self, v: &str) -> Result<(), ArgsError> {
        self.o.lto_opts.opt_level = parse_opt_level(v).ok_or_else(|| invalid(&self.opt, v))?;
        Ok(())
    }

    /// lld's `--thinlto-jobs` also takes `all`, meaning the default.
    fn lto_jobs(&mut self, v: &str) -> Result<(), ArgsError> {
        self.o.lto_opts.jobs = parse_jobs(v).ok_or_else(|| invalid(&self.opt, v))?;
        Ok(())
    }

    /// `-plugin LIB`: hosted, unless it is LLVM's (or rld's own) LTO plugin, whose
    /// `-plugin-opt=` options then map onto rld's LTO.
    fn plugin(&mut self, v: &str) {
        let path = std::path::Path::new(v);
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy())
            .unwrap_or_default();
        self.to_plugin = !(file.contains("LLVMgold") || file.contains("rld_plugin"));
        if self.to_plugin {
            self.o.plugins.push(crate::plugin_host::PluginArg {
                path: path.into(),
                options: Vec::new(),
            });
        }
    }

    /// `-plugin-opt=OPT`: kept verbatim in `plugin_opts`. LLVMgold's options are the LTO
    /// driver's to read, so that rld and rld's gold plugin give each the same meaning;
    /// gcc's, and what the driver cannot use here, are rld's business.
    fn plugin_opt(&mut self, v: &str) -> Result<(), ArgsError> {
        self.o.plugin_opts.push(v.into());
        // Options after a hosted plugin are that plugin's, as in GNU ld.
        if let Some(plugin) = self.o.plugins.last_mut().filter(|_| self.to_plugin) {
            plugin.options.push(v.into());
            return Ok(());
        }
        // gcc's collect2 talks to its own liblto_plugin: the lto-wrapper path, the resolution
        // file, the pass-through libraries (already on the command line) and the like mean
        // nothing to rld.
        if v.starts_with('/') || GCC_PLUGIN_OPTS.iter().any(|o| v.starts_with(o)) {
            return Ok(());
        }
        let (lto, warnings) = (&mut self.o.lto_opts, &mut self.o.warnings);
        match apply_plugin_opt(lto, v).map_err(|e| invalid(&self.opt, &e.value))? {
            PluginOpt::Applied | PluginOpt::LlvmOption => {}
            PluginOpt::Ignored(why) => warnings.push(format!("-plugin-opt={v} is ignored: {why}")),
            PluginOpt::Unknown => warnings.push(format!("unknown -plugin-opt value: {v}")),
        }
        // A plugin writes its objects there for the host to read; rld links them from memory.
        if lto.obj_path.take().is_some() {
            warnings.push(format!(
                "-plugin-opt={v} is ignored: rld links LTO's objects from memory"
            ));
        }
        Ok(())
    }
}

/// Whether `-R PATH` names a file to take symbols from (GNU ld's test: it exists and is
/// not a directory).
fn is_symbols_file(path: &str) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_dir())
}

fn invalid(opt: &str, value: &str) -> ArgsError {
    ArgsError::InvalidValue {
        option: opt.to_string(),
        value: value.to_string(),
    }
}

fn number<T: FromStr>(opt: &str, v: &str) -> Result<T, ArgsError> {
    v.parse().map_err(|_| invalid(opt, v))
}

/// A positive count (threads, jobs, partitions).
fn count(opt: &str, v: &str) -> Result<usize, ArgsError> {
    Ok(number::<NonZeroUsize>(opt, v)?.get())
}

/// `-z max-page-size=N` / `common-page-size=N`: decimal or 0x-hex, and a power of two.
fn page_size(opt: &str, keyword: &str, n: &str) -> Result<u64, ArgsError> {
    parse_u64(n)
        .filter(|n| n.is_power_of_two())
        .ok_or_else(|| invalid(opt, keyword))
}

/// A number in decimal or `0x` hexadecimal, as `-z` keywords take them.
pub fn parse_u64(n: &str) -> Option<u64> {
    match n.strip_prefix("0x").or_else(|| n.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => n.parse().ok(),
    }
}

/// GNU ld's `--build-id=0xHEX`: pairs of hex digits, optionally separated by `-` or `:`.
fn parse_hex(s: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut bytes = Vec::new();
    let mut rest = s.as_bytes();
    while let [first, tail @ ..] = rest {
        match (first, tail) {
            (b'-' | b':', _) => rest = tail,
            (_, [second, tail @ ..]) => {
                bytes.push(digit(*first)? << 4 | digit(*second)?);
                rest = tail;
            }
            _ => return None,
        }
    }
    Some(bytes).filter(|b| !b.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn try_parse(cmdline: &str) -> Result<Options, ArgsError> {
        parse_args(cmdline.split_whitespace().map(String::from))
    }

    fn parse(cmdline: &str) -> Options {
        try_parse(cmdline).unwrap()
    }

    fn error(cmdline: &str) -> String {
        try_parse(cmdline).unwrap_err().to_string()
    }

    /// "" if `flags` are all off, else "[x..]" or " x ..." with the names of those that are on.
    fn on(flags: &[(bool, &str)], open: &str, sep: &str, close: &str) -> String {
        let names: Vec<&str> = flags.iter().filter(|f| f.0).map(|f| f.1).collect();
        let names = names.join(sep);
        if names.is_empty() {
            names
        } else {
            format!("{open}{names}{close}")
        }
    }

    /// The inputs in one line: paths and `-lNAME`, each with its state as `[n]` (as-needed),
    /// `[w]` (whole-archive), `[s]` (static-only); groups as `(` and `)`.
    fn inputs(o: &Options) -> String {
        let state = |s: &InputState| {
            let flags = [
                (s.as_needed, "n"),
                (s.whole_archive, "w"),
                (s.static_only, "s"),
            ];
            on(&flags, "[", "", "]")
        };
        let show = |i: &InputArg| match i {
            InputArg::File { path, state: s } => format!("{}{}", path.display(), state(s)),
            InputArg::Library { name, state: s } => format!("-l{name}{}", state(s)),
            InputArg::Script { path, state: s } => format!("-T {}{}", path.display(), state(s)),
            InputArg::JustSymbols { path } => format!("-R {}", path.display()),
            InputArg::StartGroup => "(".into(),
            InputArg::EndGroup => ")".into(),
        };
        o.inputs.iter().map(show).collect::<Vec<_>>().join(" ")
    }

    /// What the driver tests check besides inputs, in one line.
    fn settings(o: &Options) -> String {
        let hash = match (o.hash_style.sysv, o.hash_style.gnu) {
            (true, true) => "both",
            (false, true) => "gnu",
            _ => "sysv",
        };
        let interp = o.dynamic_linker.as_deref().unwrap_or("none");
        let flags = [
            (o.eh_frame_hdr, "eh-frame-hdr"),
            (o.static_link, "static"),
            (o.no_dynamic_linker, "no-interp"),
        ];
        let flags = on(&flags, " ", " ", "");
        format!(
            "{:?} interp={interp} hash={hash} build-id={:?}{flags}",
            o.kind, o.build_id
        )
    }

    fn dirs(o: &Options) -> String {
        o.library_paths
            .iter()
            .map(|d| d.to_str().unwrap())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn clang14_pie() {
        let o = parse(
            "-pie --hash-style=both --build-id --eh-frame-hdr -m elf_x86_64 -dynamic-linker \
             /lib64/ld-linux-x86-64.so.2 -o t /lib/x86_64-linux-gnu/Scrt1.o \
             /lib/x86_64-linux-gnu/crti.o /usr/bin/../lib/gcc/x86_64-linux-gnu/12/crtbeginS.o \
             -L/usr/bin/../lib/gcc/x86_64-linux-gnu/12 -L/lib/x86_64-linux-gnu \
             -L/usr/lib/x86_64-linux-gnu -L/lib -L/usr/lib /tmp/t-e58115.o -lgcc --as-needed \
             -lgcc_s --no-as-needed -lc -lgcc --as-needed -lgcc_s --no-as-needed \
             /usr/bin/../lib/gcc/x86_64-linux-gnu/12/crtendS.o /lib/x86_64-linux-gnu/crtn.o",
        );
        let interp = "interp=/lib64/ld-linux-x86-64.so.2";
        let expected = format!("Pie {interp} hash=both build-id=Sha1 eh-frame-hdr");
        assert_eq!((settings(&o), o.output.to_str()), (expected, Some("t")));
        let (gcc, lib) = (
            "/usr/bin/../lib/gcc/x86_64-linux-gnu/12",
            "/lib/x86_64-linux-gnu",
        );
        let expected = format!("{gcc} {lib} /usr/lib/x86_64-linux-gnu /lib /usr/lib");
        assert_eq!(dirs(&o), expected);
        let expected = format!(
            "{lib}/Scrt1.o {lib}/crti.o {gcc}/crtbeginS.o /tmp/t-e58115.o -lgcc -lgcc_s[n] -lc \
             -lgcc -lgcc_s[n] {gcc}/crtendS.o {lib}/crtn.o"
        );
        assert_eq!(inputs(&o), expected);
    }

    /// gcc-12's collect2 command line, with `kind` before `-o`, and the inputs it should give:
    /// gcc passes --as-needed up front, so every input carries it, through push/pop too.
    fn gcc12(kind: &str, crt1: &str, s: &str) -> (Options, String) {
        let gcc = "/usr/lib/gcc/x86_64-linux-gnu/12";
        let lib = "/usr/lib/gcc/x86_64-linux-gnu/12/../../../x86_64-linux-gnu";
        let o = parse(&format!(
            "-plugin {gcc}/liblto_plugin.so -plugin-opt={gcc}/lto-wrapper \
             -plugin-opt=-fresolution=/tmp/cc.res -plugin-opt=-pass-through=-lgcc \
             -plugin-opt=-pass-through=-lgcc_s --build-id --eh-frame-hdr -m elf_x86_64 \
             --hash-style=gnu --as-needed {kind} -o t {lib}/{crt1} {lib}/crti.o \
             {gcc}/crtbegin{s}.o -L{gcc} -L{lib} -L/usr/lib/../lib /tmp/cc.o -lgcc --push-state \
             --as-needed -lgcc_s --pop-state -lc -lgcc --push-state --as-needed -lgcc_s \
             --pop-state {gcc}/crtend{s}.o {lib}/crtn.o"
        ));
        assert_eq!(dirs(&o), format!("{gcc} {lib} /usr/lib/../lib"));
        let expected = format!(
            "{lib}/{crt1}[n] {lib}/crti.o[n] {gcc}/crtbegin{s}.o[n] /tmp/cc.o[n] -lgcc[n] \
             -lgcc_s[n] -lc[n] -lgcc[n] -lgcc_s[n] {gcc}/crtend{s}.o[n] {lib}/crtn.o[n]"
        );
        (o, expected)
    }

    #[test]
    fn gcc12_dynamic() {
        let interp = "interp=/lib64/ld-linux-x86-64.so.2";
        let (o, expected) = gcc12(
            "-dynamic-linker /lib64/ld-linux-x86-64.so.2 -pie",
            "Scrt1.o",
            "S",
        );
        let gnu = "hash=gnu build-id=Sha1 eh-frame-hdr";
        assert_eq!(
            (settings(&o), inputs(&o)),
            (format!("Pie {interp} {gnu}"), expected)
        );
        // gcc's own plugin options are kept, but are neither LLVM options nor warnings.
        assert_eq!(o.plugin_opts.len(), 4);
        assert!(o.lto_opts.llvm_args.is_empty() && o.warnings.is_empty());

        let (o, expected) = gcc12("-dynamic-linker /lib64/ld-linux-x86-64.so.2", "crt1.o", "");
        let settings_ = format!("Executable {interp} {gnu}");
        assert_eq!((settings(&o), inputs(&o)), (settings_, expected));

        let (o, expected) = gcc12("-shared", "crti.o", "S");
        let settings_ = format!("Shared interp=none {gnu}");
        assert_eq!((settings(&o), inputs(&o)), (settings_, expected));
    }

    #[test]
    fn gcc12_static() {
        let o = parse(
            "--build-id -m elf_x86_64 --hash-style=gnu --as-needed -static -o t crt1.o crti.o \
             crtbeginT.o -L/usr/lib/gcc/x86_64-linux-gnu/12 t.o --start-group -lgcc -lgcc_eh -lc \
             --end-group crtend.o crtn.o",
        );
        let expected = "Executable interp=none hash=gnu build-id=Sha1 static no-interp";
        assert_eq!((settings(&o), dirs(&o)), (expected.into(), GCC_DIR.into()));
        let expected = "crt1.o[ns] crti.o[ns] crtbeginT.o[ns] t.o[ns] ( -lgcc[ns] -lgcc_eh[ns] \
                        -lc[ns] ) crtend.o[ns] crtn.o[ns]";
        assert_eq!(inputs(&o), expected);
    }

    const GCC_DIR: &str = "/usr/lib/gcc/x86_64-linux-gnu/12";

    #[test]
    fn gcc12_static_pie() {
        let o = parse(
            "--build-id --eh-frame-hdr -m elf_x86_64 --hash-style=gnu --as-needed -static -pie \
             --no-dynamic-linker -z text -pie -o t rcrt1.o crti.o crtbeginS.o t.o --start-group \
             -lgcc -lgcc_eh -lc --end-group crtendS.o crtn.o",
        );
        let expected = "Pie interp=none hash=gnu build-id=Sha1 eh-frame-hdr static no-interp";
        assert_eq!(settings(&o), expected);
        let expected = "rcrt1.o[ns] crti.o[ns] crtbeginS.o[ns] t.o[ns] ( -lgcc[ns] -lgcc_eh[ns] \
                        -lc[ns] ) crtendS.o[ns] crtn.o[ns]";
        assert_eq!(inputs(&o), expected);
        // lld's spelling of the same thing.
        let o = parse("-static-pie -lc");
        let expected = "Pie interp=none hash=both build-id=None static no-interp";
        assert_eq!(
            (settings(&o), inputs(&o)),
            (expected.into(), "-lc[s]".into())
        );
    }

    #[test]
    fn argument_spellings() {
        let spellings = ["-L x -l foo", "-Lx -lfoo", "--library-path=x --library=foo"];
        for cmd in spellings
            .into_iter()
            .chain(["-library-path x --library foo"])
        {
            let o = parse(cmd);
            assert_eq!(
                (dirs(&o), inputs(&o)),
                ("x".into(), "-lfoo".into()),
                "{cmd}"
            );
        }
        for cmd in [
            "-o out",
            "-oout",
            "--output=out",
            "--output out",
            "-output=out",
        ] {
            assert_eq!(parse(cmd).output, PathBuf::from("out"), "{cmd}");
        }
        assert_eq!(
            inputs(&parse("-l:libfoo.a -l :libbar.so")),
            "-l:libfoo.a -l:libbar.so"
        );
        // `-R` names a file (--just-symbols) or anything else, a directory or a path that
        // does not exist (an rpath).
        let o = parse(
            "-e main --entry=start -u a --undefined=b --soname=x.so -rpath /r -R / -R /no/such/dir -R /proc/self/exe",
        );
        assert_eq!(
            (o.entry.as_deref(), o.undefined.join(" ")),
            (Some("start"), "a b".into())
        );
        assert_eq!(
            (o.soname.as_deref(), o.rpath.join(" ")),
            (Some("x.so"), "/r / /no/such/dir".into())
        );
        assert_eq!(inputs(&o), "-R /proc/self/exe");
        assert_eq!(parse("-hlibh.so").soname.as_deref(), Some("libh.so"));
        assert_eq!(
            parse("-melf_x86_64").emulation.as_deref(),
            Some("elf_x86_64")
        );
        assert_eq!(
            (parse("--pie").kind, parse("-Bshareable").kind),
            (Pie, Shared)
        );
        assert_eq!(parse("-pie --no-pic-executable").kind, Executable);
        assert!(parse("-export-dynamic").export_dynamic && parse("-E").export_dynamic);
        assert_eq!((parse("-O2").opt_level, parse("-O 1").opt_level), (2, 1));
        assert_eq!(parse("--threads=4").threads, Some(4));
        assert_eq!(parse("--threads 3 --no-threads").threads, Some(1));
        assert_eq!(parse("--thread-count 2").threads, Some(2));
        assert_eq!(parse("--thread-count=5").threads, Some(5));
        assert_eq!(inputs(&parse("a.o -- -weird.o")), "a.o -weird.o");
        let o = parse("-Map=m.txt --defsym a=b --wrap=malloc --version-script v -flto -r");
        assert_eq!(
            (o.map_file, o.defsym),
            (Some("m.txt".into()), vec![("a".into(), "b".into())])
        );
        assert!(o.wrap == ["malloc"] && o.version_scripts == [PathBuf::from("v")]);
        assert!(o.lto && o.relocatable);
    }

    #[test]
    fn errors() {
        let cases = [
            "--frobnicate => unknown option: --frobnicate",
            "-frobnicate=1 => unknown option: -frobnicate",
            "- => unknown option: -",
            "a.o -o => missing argument to -o",
            "--soname => missing argument to --soname",
            "--gc-sections=1 => option --gc-sections does not take an argument",
            "-m elf_i386 => unsupported emulation: elf_i386 (only elf_x86_64 is supported)",
            "--hash-style=fast => invalid argument to --hash-style: fast",
            "--build-id=0xabc => invalid argument to --build-id: 0xabc",
            "--build-id=0xzz => invalid argument to --build-id: 0xzz",
            "-z max-page-size=3 => invalid argument to -z: max-page-size=3",
            "--threads=0 => invalid argument to --threads: 0",
            "--lto-O4 => invalid argument to --lto-O: 4",
            "--pop-state => --pop-state without a matching --push-state",
            "-) => --end-group without a matching --start-group",
            "-( -( => --start-group inside another group: groups may not nest",
            "@/nonexistent/x => cannot open @/nonexistent/x: No such file or directory",
        ];
        for case in cases {
            let (cmd, expected) = case.split_once(" => ").unwrap();
            assert!(error(cmd).starts_with(expected), "{cmd}: {}", error(cmd));
        }
    }

    /// GNU ld's rule: a one-dash argument that names a long option is that option, known to
    /// rld or not; only other arguments split into a letter and a glued value.
    #[test]
    fn one_dash_long_options_are_never_split() {
        for cmd in ["-embedded-relocs", "-unique=.text", "--embedded-relocs"] {
            let e = error(cmd);
            let name = cmd.split('=').next().unwrap();
            assert_eq!(
                e,
                format!("unsupported option: {name} (a GNU ld or lld option that rld does not implement)"),
                "{cmd}"
            );
        }
        // Glued one-letter forms that name no long option still work.
        let o = parse("-emain -unot_an_option -lfoo a.o");
        assert_eq!(o.entry.as_deref(), Some("main"));
        assert_eq!(o.undefined, ["not_an_option"]);
        // `--threads` takes its count only as `--threads=N`.
        let o = parse("-threads a.o");
        assert_eq!((o.threads, inputs(&o).as_str()), (None, "a.o"));
        assert_eq!(parse("--threads=3 a.o").threads, Some(3));
    }

    #[test]
    fn undefined_version() {
        assert!(!parse("a.o").undefined_version);
        assert!(!parse("--no-undefined-version a.o").undefined_version);
        assert!(parse("--no-undefined-version -undefined-version a.o").undefined_version);
    }

    #[test]
    fn input_state() {
        let o = parse(
            "a.o --whole-archive -Bstatic --push-state --no-whole-archive -dy --as-needed b.a \
             --pop-state -lc -Bdynamic --no-whole-archive -( x.a -) -non_shared -ly",
        );
        assert_eq!(inputs(&o), "a.o b.a[n] -lc[ws] ( x.a ) -ly[s]");
        assert!(!o.static_link && !o.no_dynamic_linker);
        // GNU ld closes an unterminated group at the end, with a warning.
        let o = parse("--start-group a.a");
        assert_eq!(inputs(&o), "( a.a )");
        assert_eq!(
            o.warnings,
            ["missing --end-group; added as last command line option"]
        );
    }

    #[test]
    fn z_keywords() {
        let o = parse("-z now -znorelro -z execstack -z notext -z defs -z muldefs -z frob");
        assert!(o.z_now && !o.z_relro && o.z_execstack && !o.z_text);
        assert!(o.reports_undefined() && o.allow_multiple_definition);
        assert_eq!(o.warnings, ["unknown -z value: frob"]);
        let o = parse(
            "-z max-page-size=0x200000 -zcommon-page-size=4096 -z origin -z nodelete \
             -z nodlopen -z shstk -z noseparate-code",
        );
        assert_eq!(
            (o.max_page_size, o.common_page_size),
            (Some(0x20_0000), Some(4096))
        );
        assert!(o.z_origin && o.z_nodelete && o.z_nodlopen && o.z_shstk);
        assert!(o.warnings.is_empty(), "{:?}", o.warnings);
    }

    #[test]
    fn build_ids() {
        let id = |cmd| parse(cmd).build_id;
        let hex = |b: &[u8]| BuildId::Hex(b.to_vec());
        assert_eq!(id("--build-id=0xdeadbeef"), hex(&[0xde, 0xad, 0xbe, 0xef]));
        assert_eq!(id("--build-id=0xDE-AD:01"), hex(&[0xde, 0xad, 0x01]));
        assert_eq!(id("--build-id=sha1"), BuildId::Sha1);
        assert_eq!(id("--build-id"), BuildId::Sha1);
        assert_eq!(id("--build-id=fast"), BuildId::Fast);
        assert_eq!(id("--build-id --build-id=none"), BuildId::None);
        // A bare --build-id never takes the next argument.
        assert_eq!(inputs(&parse("--build-id md5")), "md5");
    }

    #[test]
    fn version_and_help() {
        let o = parse("-v");
        assert!(o.print_version && o.inputs.is_empty());
        assert!(parse("--version").print_version && parse("-V").print_version);
        assert!(parse("--version").version_only && !parse("-v").version_only);
        assert!(parse("--help").print_help && help_text().starts_with("Usage: rld"));
        // libtool's test for a linker that builds shared libraries.
        let targets = help_text()
            .lines()
            .find(|l| l.contains(": supported targets:"));
        assert!(targets.is_some_and(|l| l
            .split(": supported targets:")
            .nth(1)
            .is_some_and(|t| t.contains(" elf"))));
        for usage in [
            "-o FILE, --output=FILE",
            "--build-id[=STYLE]",
            "--lto-O<0-3>",
            "@FILE",
        ] {
            assert!(help_text().contains(usage), "{usage}");
        }
    }

    #[test]
    fn lto_options() {
        let o = parse(
            "-plugin /usr/lib/llvm-14/lib/LLVMgold.so -plugin-opt=mcpu=x86-64 -plugin-opt=O3 \
             -plugin-opt=jobs=8 --plugin-opt=thinlto -plugin-opt -debugger-tune=gdb \
             -plugin-opt=opt-remarks-filename=r.yaml -plugin-opt=save-temps -mllvm -x86-foo",
        );
        let lto = &o.lto_opts;
        assert_eq!(
            (lto.opt_level, lto.jobs, lto.mcpu.as_deref()),
            (3, Some(8), Some("x86-64"))
        );
        assert_eq!(lto.llvm_args, ["-debugger-tune=gdb", "-x86-foo"]);
        assert!(lto.save_temps && lto.remarks_filename == Some("r.yaml".into()));
        assert!(o.warnings.is_empty());
        let o = parse(
            "--lto-O1 --lto-partitions=4 --thinlto-jobs=2 --opt-remarks-filename f \
             --opt-remarks-passes inline --opt-remarks-format=yaml --opt-remarks-with-hotness \
             --thinlto-cache-dir=/c",
        );
        let lto = &o.lto_opts;
        assert_eq!(
            (lto.opt_level, lto.partitions, lto.jobs),
            (1, Some(4), Some(2))
        );
        assert_eq!(lto.remarks_passes.as_deref(), Some("inline"));
        assert_eq!(lto.remarks_format.as_deref(), Some("yaml"));
        assert!(lto.remarks_with_hotness && lto.remarks_filename.is_some());
        assert_eq!(lto.cache_dir, Some("/c".into()));
        assert!(lto.wpa_aa && lto.cvp);
        assert!(!parse("--no-wpa-aa").lto_opts.wpa_aa);
        assert!(lto.wpa_aa_metadata);
        assert!(!parse("--no-wpa-aa-metadata").lto_opts.wpa_aa_metadata);
    }

    /// What the LTO driver cannot use in rld is a warning, never silence; a bad count is an
    /// error naming the option as given.
    #[test]
    fn plugin_opts_rld_cannot_use() {
        let o = parse(
            "-plugin-opt=thinlto-index-only -plugin-opt=obj-path=/tmp/x.o -plugin-opt=O4 \
             -plugin-opt=thinlto-jobs=all",
        );
        assert_eq!(
            o.warnings,
            [
                "-plugin-opt=thinlto-index-only is ignored: rld compiles the bitcode itself and \
                 writes no ThinLTO index files",
                "-plugin-opt=obj-path=/tmp/x.o is ignored: rld links LTO's objects from memory",
                "unknown -plugin-opt value: O4",
            ]
        );
        assert_eq!((o.lto_opts.obj_path, o.lto_opts.jobs), (None, None));
        assert_eq!(
            error("-plugin-opt=jobs=0"),
            "invalid argument to -plugin-opt: 0"
        );
    }

    #[test]
    fn response_files() {
        let dir = std::env::temp_dir().join(format!("rld-args-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (inner, outer, looping) = (dir.join("inner"), dir.join("outer"), dir.join("loop"));
        std::fs::write(
            &inner,
            "-lm\n'a b.o' \"c \\\"d\\\".o\" e\\ f.o 'g\\'h' ''\n",
        )
        .unwrap();
        let text = format!("-o out\t-L 'l dir'\n@{}\nlast.o", inner.display());
        std::fs::write(&outer, text).unwrap();
        std::fs::write(&looping, format!("@{}", looping.display())).unwrap();
        let o = parse(&format!("first.o @{} --as-needed -lz", outer.display()));
        assert_eq!((o.output.to_str(), dirs(&o)), (Some("out"), "l dir".into()));
        assert_eq!(
            inputs(&o),
            "first.o -lm a b.o c \"d\".o e f.o g'h  last.o -lz[n]"
        );
        // A file that includes itself fails instead of recursing forever.
        assert!(error(&format!("@{}", looping.display())).contains("nested too deeply"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn options_rld_cannot_honour_warn_and_the_others_do_not() {
        for cmdline in [
            "--color-diagnostics a.o",
            "--color-diagnostics=always a.o",
            "--copy-dt-needed-entries a.o",
        ] {
            let o = parse(cmdline);
            assert_eq!(o.warnings.len(), 1, "{cmdline}: {:?}", o.warnings);
            let option = cmdline.split([' ', '=']).next().unwrap();
            assert!(o.warnings[0].contains(option) && o.warnings[0].contains("ignored"));
        }
        for cmdline in [
            "--icf=none a.o",
            "--icf=all a.o",
            "--icf=safe a.o",
            "--sort-common a.o",
            "--no-warn-mismatch a.o",
            "--color-diagnostics=never a.o",
            "--no-color-diagnostics a.o",
            "-O0 a.o",
            "-O1 a.o",
            "-O2 a.o",
            "-EL a.o",
            "--EL a.o",
            "--mmap-output-file a.o",
            "--no-mmap-output-file a.o",
            "--xosegment a.o",
            "--warn-ifunc-textrel a.o",
            "--lto=thin a.o",
            "-lto=full a.o",
            "-Qy a.o",
            "-g a.o",
            "--no-keep-memory a.o",
            "--reduce-memory-overheads a.o",
            "--hash-size=31 a.o",
            "--max-cache-size 100 a.o",
            "--map-whole-files a.o",
            "-X a.o",
            "-x a.o",
            "--print-gc-sections a.o",
            "--no-copy-dt-needed-entries a.o",
        ] {
            assert!(parse(cmdline).warnings.is_empty(), "{cmdline}");
        }
        assert!(parse("-i a.o").relocatable);
        // GNU ld's warning for a big-endian output, in its words.
        assert_eq!(
            parse("-EB a.o").warnings,
            ["could not find any targets that match endianness requirement"]
        );
    }

    /// The manual's OPTIONS sections (`## TITLE` in docs/rld.1.md), by title.
    fn manual_sections() -> Vec<(&'static str, &'static str)> {
        let manual = include_str!("../../docs/rld.1.md");
        let options = &manual[manual.find("\n# OPTIONS\n").expect("an OPTIONS section")..];
        let options = &options[..options[1..].find("\n# ").map_or(options.len(), |e| e + 1)];
        options
            .split("\n## ")
            .skip(1)
            .map(|s| s.split_once('\n').unwrap_or((s, "")))
            .collect()
    }

    /// The manual describes every option `--help` lists, every name of it, under the
    /// heading `--help` puts it under.
    #[test]
    fn the_manual_describes_every_option_under_its_heading() {
        let sections = manual_sections();
        let mut heading = "";
        let mut missing = Vec::new();
        for spec in SPECS {
            if spec.names.is_empty() {
                heading = spec.help;
                assert!(
                    sections.iter().any(|(t, _)| *t == heading),
                    "docs/rld.1.md has no section `## {heading}`"
                );
                continue;
            }
            let text = sections
                .iter()
                .find(|(t, _)| *t == heading)
                .map_or("", |s| s.1);
            for name in spec.names {
                let named = [b'`', b' ', b'=', b'[']
                    .iter()
                    .any(|&c| text.contains(&format!("`{name}{}", c as char)));
                if !named {
                    missing.push(format!("{name} (under {heading})"));
                }
            }
        }
        assert!(missing.is_empty(), "not in docs/rld.1.md: {missing:?}");
    }

    /// Every option the manual describes (a definition's term: the line before `:   `) is
    /// one rld parses; `-z` keywords included.
    #[test]
    fn the_manual_describes_only_options_rld_parses() {
        let mut unknown = Vec::new();
        for (_, text) in manual_sections() {
            let lines: Vec<&str> = text.lines().collect();
            for pair in lines.windows(2) {
                let (term, next) = (pair[0], pair[1]);
                if !next.starts_with(":   ") {
                    continue;
                }
                for quoted in term.split('`').skip(1).step_by(2) {
                    if !quoted.starts_with('-') {
                        continue;
                    }
                    if let Some(keyword) = quoted.strip_prefix("-z ") {
                        // A placeholder value (`max-page-size=`*N*) gets one that is valid.
                        let keyword = match keyword.strip_suffix('=') {
                            Some("cet-report") => "cet-report=warning".to_string(),
                            Some("start-stop-visibility") => "start-stop-visibility=hidden".into(),
                            Some("dead-reloc-in-nonalloc") => {
                                "dead-reloc-in-nonalloc=.debug_*=1".into()
                            }
                            Some(k) => format!("{k}=4096"),
                            None => keyword.to_string(),
                        };
                        let o = try_parse(&format!("-z {keyword} a.o"));
                        if o.is_err() || o.is_ok_and(|o| !o.warnings.is_empty()) {
                            unknown.push(quoted.to_string());
                        }
                        continue;
                    }
                    if quoted == "-z" {
                        continue;
                    }
                    let name = quoted.split(['=', ' ', '[']).next().unwrap_or(quoted);
                    let joined = SPECS.iter().any(|s| {
                        matches!(s.action, Action::Joined(_))
                            && s.names.iter().any(|n| bare(name).starts_with(bare(n)))
                    });
                    if find(bare(name)).is_none() && !joined && name != "-" {
                        unknown.push(quoted.to_string());
                    }
                }
            }
        }
        assert!(
            unknown.is_empty(),
            "docs/rld.1.md describes what rld does not parse: {unknown:?}"
        );
    }

    #[test]
    fn spec_names_are_unique() {
        let mut names: Vec<&str> = SPECS
            .iter()
            .flat_map(|s| s.names.iter().map(|n| bare(n)))
            .collect();
        let total = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), total);
    }
}
