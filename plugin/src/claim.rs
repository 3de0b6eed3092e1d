//! The claim-file hook's work: recognize LLVM bitcode (also an archive member, at an
//! offset in its archive), build the module's summary, and describe its global symbols to
//! the host as `ld_plugin_symbol`s. Anything else is declined, so the host links it itself
//! (gcc's IR stays with gcc's plugin).

use rld_plugin_api as api;
use rld_summaries::{GlobalFlags, GlobalKind, GlobalSummary, Linkage, ModuleSummary, Visibility};
use std::ffi::{c_char, CString};
use std::fs::File;
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::os::unix::fs::FileExt;

/// A bitcode file the plugin claimed: its bytes, its summary, and which summary global each
/// symbol reported to the host stands for.
pub struct ClaimedModule {
    pub name: String,
    pub handle: usize,
    pub data: Vec<u8>,
    pub summary: ModuleSummary,
    /// `reported[i]` is the global index (into `summary.globals`) of symbol `i`; the
    /// module's inline-asm symbols follow those in `host_symbols`.
    pub reported: Vec<u32>,
    /// The symbols as the host was given them. Hosts keep the array and its strings (GNU
    /// ld reads names and fills resolutions through it later), so they live as long as
    /// the module.
    pub host_symbols: HostSymbols,
}

/// Why a file could not be read or claimed; the host shows it with the file's name.
#[derive(Debug)]
pub struct ClaimError(pub String);

/// The file's display name: an archive member is its archive and offset, as GNU ld names
/// it for gcc's plugin.
pub fn display_name(file: &api::InputFile) -> String {
    // SAFETY: the host passes a NUL-terminated name (or null).
    let name = if file.name.is_null() {
        String::from("<unnamed>")
    } else {
        unsafe { std::ffi::CStr::from_ptr(file.name) }
            .to_string_lossy()
            .into_owned()
    };
    if file.offset != 0 {
        format!("{name}@0x{:x}", file.offset)
    } else {
        name
    }
}

/// Reads `len` bytes at the file's offset (plus `skip`) from the host's descriptor, which
/// stays the host's: it is not closed here.
fn read_at(file: &api::InputFile, skip: u64, len: usize) -> std::io::Result<Vec<u8>> {
    // SAFETY: the descriptor is open for the duration of the claim call; ManuallyDrop keeps
    // it from being closed when `f` goes away.
    let f = ManuallyDrop::new(unsafe { File::from_raw_fd(file.fd) });
    let mut buf = vec![0; len];
    f.read_exact_at(&mut buf, file.offset as u64 + skip)?;
    Ok(buf)
}

/// Whether the file is LLVM bitcode, from its first bytes.
pub fn is_bitcode(file: &api::InputFile) -> bool {
    file.filesize >= 4 && read_at(file, 0, 4).is_ok_and(|magic| rld_lto::is_bitcode(&magic))
}

/// Reads and summarizes a bitcode file the host offered.
/// `typed`: the host reads `symbol_type` (`add_symbols_v2`).
pub fn claim(
    file: &api::InputFile,
    cache_dir: Option<&std::path::Path>,
    typed: bool,
    warn: &(dyn Fn(&str) + Sync),
) -> Result<ClaimedModule, ClaimError> {
    let name = display_name(file);
    let size = usize::try_from(file.filesize)
        .map_err(|_| ClaimError(format!("{name}: bad file size {}", file.filesize)))?;
    let data = read_at(file, 0, size).map_err(|e| ClaimError(format!("{name}: {e}")))?;
    let summary = rld_lto::summarize_all(
        &[rld_lto::BitcodeInput {
            name: &name,
            data: &data,
        }],
        cache_dir,
        warn,
    )
    .map_err(|e| ClaimError(e.to_string()))?
    .remove(0);
    let reported: Vec<u32> = summary
        .globals
        .iter()
        .enumerate()
        .filter(|(_, g)| is_reported(g))
        .map(|(i, _)| i as u32)
        .collect();
    let host_symbols = host_symbols(&summary, &reported, typed);
    Ok(ClaimedModule {
        name,
        handle: file.handle as usize,
        data,
        summary,
        reported,
        host_symbols,
    })
}

/// The globals the host's symbol table hears of: what the module defines or needs by name.
fn is_reported(g: &GlobalSummary) -> bool {
    !g.linkage.is_local() && !g.name.is_empty() && !g.name.starts_with("llvm.")
}

/// The `ld_plugin_symbol`s of a claimed module, with the strings they point to.
pub struct HostSymbols {
    pub symbols: Vec<api::Symbol>,
    _strings: Vec<CString>,
}

// SAFETY: the raw pointers in `symbols` point into `_strings`, owned by the same value and
// moved with it (a CString's bytes do not move); the plugin touches them only under its
// state's lock, and the host reads them from the thread that calls the plugin.
unsafe impl Send for HostSymbols {}

/// With `v2` false the symbols carry no type (v1 hosts read those bytes as part of `def`).
/// After the IR globals come the names the module's inline asm defines or needs that no IR
/// global reports (LLVMgold's irsymtab does the same): the host then pulls archive members
/// for what only asm calls, and sees `foo@@V2` defined by a `.symver`, so that a version
/// script's `foo` finds it (mold warned "symbol not found" without them).
fn host_symbols(summary: &ModuleSummary, reported: &[u32], v2: bool) -> HostSymbols {
    let mut strings = Vec::new();
    let mut string = |s: &str| -> *mut c_char {
        let c = CString::new(s.replace('\0', "")).unwrap_or_default();
        let p = c.as_ptr() as *mut c_char;
        strings.push(c);
        p
    };
    let mut symbols: Vec<api::Symbol> = reported
        .iter()
        .map(|&i| {
            let g = &summary.globals[i as usize];
            let name = string(&g.name);
            let comdat = g
                .comdat
                .as_deref()
                .map_or(std::ptr::null_mut(), &mut string);
            host_symbol(
                name,
                kind(g),
                v2.then(|| symbol_type(g)),
                visibility(g),
                comdat,
            )
        })
        .collect();
    let in_ir: std::collections::HashSet<&str> = reported
        .iter()
        .map(|&i| summary.globals[i as usize].name.as_str())
        .collect();
    for a in &summary.asm_symbols {
        if in_ir.contains(a.name.as_str()) {
            continue;
        }
        let def = match (a.defined, a.weak) {
            (true, false) => api::SymbolKind::DEF,
            (true, true) => api::SymbolKind::WEAKDEF,
            (false, false) => api::SymbolKind::UNDEF,
            (false, true) => api::SymbolKind::WEAKUNDEF,
        };
        symbols.push(host_symbol(
            string(&a.name),
            def,
            v2.then_some(api::SymbolType::UNKNOWN),
            api::Visibility::DEFAULT,
            std::ptr::null_mut(),
        ));
    }
    HostSymbols {
        symbols,
        _strings: strings,
    }
}

/// One `ld_plugin_symbol`, unresolved; `symbol_type` only for hosts that read it (v1 hosts
/// read those bytes as part of `def`).
fn host_symbol(
    name: *mut c_char,
    def: api::SymbolKind,
    symbol_type: Option<api::SymbolType>,
    visibility: api::Visibility,
    comdat_key: *mut c_char,
) -> api::Symbol {
    api::Symbol {
        name,
        version: std::ptr::null_mut(),
        def: def.0 as c_char,
        symbol_type: symbol_type.map_or(0, |t| t.0 as c_char),
        section_kind: api::SectionKind::DEFAULT.0 as c_char,
        unused: 0,
        visibility: visibility.0,
        size: 0,
        comdat_key,
        resolution: api::Resolution::UNKNOWN.0,
    }
}

/// How the host should treat the symbol. An `available_externally` body is only a copy for
/// inlining: to the host it is a reference.
fn kind(g: &GlobalSummary) -> api::SymbolKind {
    if g.is_declaration() || g.linkage == Linkage::AvailableExternally {
        if g.linkage == Linkage::ExternalWeak {
            api::SymbolKind::WEAKUNDEF
        } else {
            api::SymbolKind::UNDEF
        }
    } else if g.linkage == Linkage::Common {
        api::SymbolKind::COMMON
    } else if g.linkage.is_weak_for_linker() {
        api::SymbolKind::WEAKDEF
    } else {
        api::SymbolKind::DEF
    }
}

fn symbol_type(g: &GlobalSummary) -> api::SymbolType {
    match g.kind {
        GlobalKind::Function | GlobalKind::IFunc => api::SymbolType::FUNCTION,
        _ if g.flags.contains(GlobalFlags::DECLARATION) => api::SymbolType::UNKNOWN,
        _ => api::SymbolType::VARIABLE,
    }
}

fn visibility(g: &GlobalSummary) -> api::Visibility {
    match g.visibility {
        Visibility::Default => api::Visibility::DEFAULT,
        Visibility::Hidden => api::Visibility::HIDDEN,
        Visibility::Protected => api::Visibility::PROTECTED,
    }
}
