//! The LTO step of a link, between symbol resolution and layout: the linker's side of the
//! LTO driver (`rld-lto-driver`, shared with rld's gold plugin). This module answers the
//! driver's questions from the linker's symbol table and command line; the driver decides
//! what lives, what becomes internal, and compiles the bitcode into objects that take its
//! place in the symbol table.

use crate::error::{LinkError, Result};
use crate::options::Options;
use crate::scan::BindingRules;
use crate::symbols::{Resolver, SymbolDef, SymbolTable};
use object::elf;
use rld_lto_api::{BitcodeInput, Host, LinkFacts, SymbolFacts};
use rld_summaries::GlobalId;

/// Names the program needs whatever the code says: entry point, `-u`, `-init`/`-fini`.
/// (To a linker plugin, these are references from outside its files.)
pub(crate) fn root_names(opts: &Options) -> Vec<String> {
    let mut roots = opts.undefined.clone();
    if !opts.is_shared() && !opts.relocatable {
        roots.push(opts.entry.clone().unwrap_or_else(|| "_start".into()));
    }
    roots.push(opts.init.clone());
    roots.push(opts.fini.clone());
    // --wrap: the bitcode still calls `foo`; the linker sends those calls to `__wrap_foo`
    // and `__real_foo` calls to `foo` only after LTO, so both must survive it.
    for w in &opts.wrap {
        roots.push(format!("__wrap_{w}"));
        roots.push(w.clone());
    }
    roots
}

/// The link as the driver sees it.
fn link_facts(opts: &Options) -> LinkFacts {
    LinkFacts {
        output: opts.output.clone(),
        relocatable: opts.relocatable,
        shared: opts.is_shared(),
        pic: opts.is_pic(),
        roots: root_names(opts),
        threads: opts.threads,
        print_timing: opts.print_timing,
    }
}

/// The driver's view of the symbol table after resolution.
struct LinkerHost<'a> {
    symtab: &'a SymbolTable,
    /// How each symbol will bind in the output.
    rules: BindingRules<'a>,
}

impl Host for LinkerHost<'_> {
    fn symbol(&self, name: &[u8]) -> Option<SymbolFacts> {
        let sym = self.symtab.get(self.symtab.lookup(name)?);
        let prevailing = match sym.def {
            SymbolDef::Bitcode { module, index } => Some(GlobalId { module, index }),
            _ => None,
        };
        let binding = self.rules.binding(sym);
        Some(SymbolFacts {
            prevailing,
            native_ref: sym.native_ref,
            in_dynsym: binding.in_dynsym,
            exported: binding.exported,
            dso_ref: sym.dso_ref,
            preemptible: binding.preemptible,
            default_visibility: sym.visibility == elf::STV_DEFAULT,
        })
    }

    fn section_bounds_referenced(&self, section: &str) -> bool {
        ["__start_", "__stop_"].iter().any(|prefix| {
            self.symtab
                .lookup(format!("{prefix}{section}").as_bytes())
                .is_some()
        })
    }

    fn warning(&self, msg: &str) {
        crate::diag::warn(msg);
    }

    fn note(&self, msg: &str) {
        eprintln!("rld: {msg}");
    }
}

/// Compiles every bitcode module the link uses into objects (one per partition).
pub fn run_lto(
    opts: &Options,
    r: &mut Resolver,
    dynamic_list: &crate::dynamic_list::DynamicList,
) -> Result<Vec<Vec<u8>>> {
    let is_dynamic = opts.is_dynamic_with(!r.dsos.is_empty());
    // What the command line names (`-u`, the entry point, `-init`, `-fini`) is used from
    // outside the bitcode like a native object's reference (lld marks it so): exported as
    // any other definition, omittable or not.
    for name in root_names(opts) {
        if let Some(id) = r.symtab.lookup(name.as_bytes()) {
            r.symtab.get_mut(id).lto_can_omit = false;
        }
    }
    // The driver takes the summaries; the resolver keeps only what it still asks (globals).
    let summaries = r
        .bitcode
        .iter_mut()
        .map(|m| {
            let globals = m.summary.globals.clone();
            std::mem::replace(
                &mut m.summary,
                rld_summaries::ModuleSummary {
                    globals,
                    ..Default::default()
                },
            )
        })
        .collect();
    let inputs: Vec<BitcodeInput> = r
        .bitcode
        .iter()
        .map(|m| BitcodeInput {
            name: &m.name,
            data: m.data,
        })
        .collect();
    let host = LinkerHost {
        symtab: &r.symtab,
        rules: BindingRules::new(opts, is_dynamic, dynamic_list),
    };
    let backend = crate::lto_backend::backend()?;
    Ok(backend.run(&inputs, summaries, &host, &link_facts(opts), &opts.lto_opts)?)
}

/// `rld --dump-summary FILE`: the summary of a bitcode file (built now) or of a cached
/// summary file, as readable text.
pub fn dump_summary(path: &std::path::Path) -> Result<String> {
    let data = std::fs::read(path).map_err(|e| LinkError::io(path, e))?;
    let name = path.display().to_string();
    let summary = if rld_lto_api::is_bitcode(&data) {
        let input = BitcodeInput {
            name: &name,
            data: &data,
        };
        crate::lto_backend::backend()?.summarize(input)?
    } else {
        rld_summaries::decode(&data).map_err(|e| LinkError::bad_input(&name, e))?
    };
    Ok(rld_summaries::dump(&summary))
}
