//! The linker plugins' part of the link (gcc's LTO through its `liblto_plugin.so`), between
//! symbol resolution and rld's own LTO: every symbol of a claimed file gets its resolution
//! (`LDPR_*`, what GNU ld would report), the plugins run all-symbols-read, and the objects
//! and libraries they add come back to take the claimed files' place.

use crate::error::Result;
use crate::input::{self, InputFile};
use crate::options::{Options, OutputKind};
use crate::plugin_host::PluginSymbol;
use crate::symbols::{Resolver, Symbol, SymbolDef};
use rld_plugin_api::{OutputType, Resolution};
use std::collections::HashSet;

/// What the plugins handed back: objects to link in place of the claimed files, then
/// libraries that were not inputs yet.
pub struct PluginResult {
    pub objects: Vec<(String, &'static [u8])>,
    pub libraries: Vec<InputFile>,
}

/// The kind of output, as the plugin interface names it (`LDPT_LINKER_OUTPUT`).
pub fn output_type(opts: &Options) -> OutputType {
    if opts.relocatable {
        return OutputType::REL;
    }
    match opts.kind {
        OutputKind::Executable => OutputType::EXEC,
        OutputKind::Pie => OutputType::PIE,
        OutputKind::Shared => OutputType::DYN,
    }
}

/// Runs the plugins' all-symbols-read with the resolution of every symbol they reported.
pub fn run(
    opts: &Options,
    r: &mut Resolver,
    dynamic_list: &crate::dynamic_list::DynamicList,
) -> Result<PluginResult> {
    // Exported symbols are decided by the same rules the output will use.
    let is_dynamic = opts.is_dynamic_with(!r.dsos.is_empty());
    let rules = crate::scan::BindingRules::new(opts, is_dynamic, dynamic_list);
    let roots = crate::lto_driver::root_names(opts);
    let roots: HashSet<&[u8]> = roots.iter().map(|r| r.as_bytes()).collect();
    let resolutions = r
        .plugin_files
        .iter()
        .enumerate()
        .map(|(f, file)| {
            let res = file
                .symbols
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let name = s.name.as_bytes();
                    let key = crate::symbols::resolution_name(name);
                    let sym = r.symtab.lookup(key).map(|id| r.symtab.get(id));
                    // A `symver` alias is not exported as far as the plugin is told: GNU ld
                    // matches the version script against the versioned name, which
                    // `local: *` takes. gcc keeps the alias all the same (its `.symver`
                    // gives the output its version).
                    // `-r`: a later link may use any definition (GNU ld's rule).
                    let exported = opts.relocatable
                        || !name.contains(&b'@')
                            && sym.is_some_and(|sym| rules.binding(sym).exported);
                    // An `--as-needed` library nothing but IR needs is not loaded yet
                    // where GNU ld answers: what only it defines is still undefined.
                    let sym = sym.filter(|sym| match sym.def {
                        SymbolDef::Shared { dso, .. } => {
                            let dso = &r.dsos[dso as usize];
                            dso.needed || !dso.as_needed
                        }
                        _ => true,
                    });
                    let root = roots.contains(s.name.as_bytes());
                    resolution(s, sym, (f as u32, i as u32), root, exported)
                })
                .collect();
            (file.handle, res)
        })
        .collect();
    let host = r
        .plugins
        .as_mut()
        .expect("plugin files come from a plugin host");
    let outputs = host.all_symbols_read(resolutions)?;
    let objects = outputs
        .files
        .iter()
        .map(|path| Ok((path.display().to_string(), input::map_file(path)?)))
        .collect::<Result<Vec<_>>>()?;
    let mut libraries = Vec::new();
    let mut seen = HashSet::new();
    for name in &outputs.libraries {
        if !seen.insert(name) {
            continue;
        }
        let loaded = |path: &str| r.has_library(path);
        libraries.extend(input::collect_plugin_library(
            opts,
            name,
            &outputs.library_paths,
            &loaded,
        )?);
    }
    Ok(PluginResult { objects, libraries })
}

/// The resolution GNU ld reports for symbol `at` (file, index) of a claimed file, which the
/// output `exported` or not.
fn resolution(
    s: &PluginSymbol,
    sym: Option<&Symbol>,
    at: (u32, u32),
    root: bool,
    exported: bool,
) -> Resolution {
    let Some(sym) = sym else {
        return Resolution::UNDEF;
    };
    if s.is_definition() {
        return match sym.def {
            // A shared library's reference or definition makes the symbol visible from
            // outside (`exported`), not used by a regular object: GNU ld's
            // `non_ir_ref_dynamic`, which lets gcc drop a COMDAT copy the library has too.
            SymbolDef::Plugin { file, index } if (file, index) == at => {
                if root || sym.native_ref || sym.bitcode_ref {
                    Resolution::PREVAILING_DEF
                } else if exported {
                    Resolution::PREVAILING_DEF_IRONLY_EXP
                } else {
                    Resolution::PREVAILING_DEF_IRONLY
                }
            }
            SymbolDef::Plugin { .. } => Resolution::PREEMPTED_IR,
            _ => Resolution::PREEMPTED_REG,
        };
    }
    match sym.def {
        SymbolDef::Plugin { .. } => Resolution::RESOLVED_IR,
        SymbolDef::Shared { .. } => Resolution::RESOLVED_DYN,
        SymbolDef::Undefined | SymbolDef::Lazy { .. } => Resolution::UNDEF,
        _ => Resolution::RESOLVED_EXEC,
    }
}
