//! The LTO step of a link, between symbol resolution and layout (lld's LTO.cpp plays this
//! part): the linker's resolution of every bitcode symbol becomes the combined index's
//! resolutions, the dead-symbol worklist decides what lives, the survivors that nothing
//! outside needs are internalized, LLVM compiles what is left into one ELF object, and that
//! object takes the bitcode's place in the symbol table. Each decision is a remark.

use crate::error::{LinkError, Result};
use crate::gc::is_c_identifier;
use crate::options::Options;
use crate::scan::compute_preemption_in;
use crate::symbols::{Resolver, SymbolDef};
use object::elf;
use rld_lto::{Action, BitcodeInput, LtoConfig};
use rld_summaries::{
    compute_dead_symbols, internalize, CombinedIndex, GlobalFlags, GlobalId, GlobalKind, Remark,
    RemarkArg, RemarkFilter, RemarkKind, Resolutions,
};
use std::collections::HashSet;

/// Names the program needs whatever the code says: entry point, `-u`, `-init`/`-fini`.
fn root_names(opts: &Options) -> Vec<String> {
    let mut roots = opts.undefined.clone();
    if !opts.is_shared() && !opts.relocatable {
        roots.push(opts.entry.clone().unwrap_or_else(|| "_start".into()));
    }
    roots.push(opts.init.clone());
    roots.push(opts.fini.clone());
    roots
}

/// Fills the combined index's resolutions from the linker's symbol table (lld's rules).
fn resolutions(opts: &Options, r: &Resolver, index: &CombinedIndex) -> Resolutions {
    let mut res = Resolutions::new(index);
    for (m, module) in index.modules.iter().enumerate() {
        for (i, g) in module.globals.iter().enumerate() {
            let id = GlobalId {
                module: m as u32,
                index: i as u32,
            };
            if g.flags.contains(GlobalFlags::DECLARATION) {
                continue;
            }
            let slot = res.get_mut(id);
            if g.linkage.is_local() {
                slot.prevailing = true;
                slot.final_definition_in_linkage_unit = true;
                continue;
            }
            let Some(sid) = r.symtab.lookup(g.name.as_bytes()) else {
                continue;
            };
            let sym = r.symtab.get(sid);
            slot.prevailing = sym.def
                == SymbolDef::Bitcode {
                    module: m as u32,
                    index: i as u32,
                };
            // __start_/__stop_ symbols reach into a section without naming its contents.
            let start_stop = g.section.as_deref().is_some_and(|s| {
                is_c_identifier(s)
                    && (r.symtab.lookup(format!("__start_{s}").as_bytes()).is_some()
                        || r.symtab.lookup(format!("__stop_{s}").as_bytes()).is_some())
            });
            slot.visible_to_regular_obj = opts.relocatable
                || sym.native_ref
                || (slot.prevailing && sym.in_dynsym)
                || start_stop;
            slot.export_dynamic = sym.exported || sym.dso_ref;
            slot.preemptible = sym.preemptible;
            slot.final_definition_in_linkage_unit =
                !opts.is_shared() || sym.visibility != elf::STV_DEFAULT;
        }
    }
    res
}

fn remark(kind: RemarkKind, name: &str, g: &rld_summaries::GlobalSummary, text: &str) -> Remark {
    Remark {
        kind,
        pass: "lto".into(),
        name: name.into(),
        debug_loc: g.debug_loc.clone(),
        function: g.name.clone(),
        hotness: None,
        args: vec![
            RemarkArg {
                key: "Function".into(),
                value: g.name.clone(),
                debug_loc: None,
            },
            RemarkArg {
                key: "String".into(),
                value: text.into(),
                debug_loc: None,
            },
        ],
    }
}

/// Compiles every bitcode module the link uses into one object and resolves it in.
pub fn run_lto(opts: &Options, r: &mut Resolver) -> Result<Vec<u8>> {
    let is_dynamic = !r.dsos.is_empty() || opts.is_pic();
    compute_preemption_in(&mut r.symtab, opts, is_dynamic);
    let index = CombinedIndex::new(r.bitcode.iter().map(|m| m.summary.clone()).collect());
    let res = resolutions(opts, r, &index);
    let roots = root_names(opts);
    let live = compute_dead_symbols(&index, &res, &roots);
    let internal: HashSet<GlobalId> = internalize(&index, &res, &live, &roots)
        .into_iter()
        .collect();

    let mut remarks = Vec::new();
    let mut actions = Vec::with_capacity(index.modules.len());
    for (m, module) in index.modules.iter().enumerate() {
        let mut acts = Vec::with_capacity(module.globals.len());
        for (i, g) in module.globals.iter().enumerate() {
            let id = GlobalId {
                module: m as u32,
                index: i as u32,
            };
            let resolution = res.get(id);
            let action =
                if g.flags.contains(GlobalFlags::DECLARATION) || g.name.starts_with("llvm.") {
                    Action::Keep
                } else if !resolution.prevailing {
                    Action::Drop
                } else if !live.is_live(id) {
                    let what = if g.kind == GlobalKind::Function {
                        "deadfunction"
                    } else {
                        "deadglobal"
                    };
                    // Private globals are the compiler's own temporaries (string literals...):
                    // a remark about them would name nothing the programmer wrote.
                    if g.linkage != rld_summaries::Linkage::Private {
                        remarks.push(remark(
                            RemarkKind::Passed,
                            what,
                            g,
                            "not added to the combined module",
                        ));
                    }
                    Action::Drop
                } else if internal.contains(&id) {
                    remarks.push(remark(
                        RemarkKind::Passed,
                        "internalized",
                        g,
                        "internalized: not visible outside the LTO unit",
                    ));
                    Action::Internalize
                } else if matches!(
                    g.linkage,
                    rld_summaries::Linkage::LinkOnceODR | rld_summaries::Linkage::LinkOnceAny
                ) {
                    Action::KeepWeak
                } else {
                    Action::Keep
                };
            acts.push(action);
        }
        actions.push(acts);
    }
    write_remarks(opts, &remarks)?;

    let inputs: Vec<BitcodeInput> = r
        .bitcode
        .iter()
        .map(|m| BitcodeInput {
            name: &m.name,
            data: m.data,
        })
        .collect();
    let lto = &opts.lto_opts;
    let cfg = LtoConfig {
        opt_level: lto.opt_level,
        pic: opts.is_pic() || opts.relocatable,
        cpu: lto.mcpu.clone(),
        save_temps: lto.save_temps.then(|| opts.output.clone()),
    };
    let plans = rld_lto::CallPlans::default();
    let (object, _outcome) = rld_lto::compile(&inputs, &actions, &plans, &cfg)
        .map_err(|e| LinkError::Link(e.to_string()))?;
    Ok(object)
}

fn write_remarks(opts: &Options, remarks: &[Remark]) -> Result<()> {
    let lto = &opts.lto_opts;
    let Some(path) = &lto.remarks_filename else {
        return Ok(());
    };
    if let Some(format) = &lto.remarks_format {
        if format != "yaml" {
            return Err(LinkError::Link(format!(
                "unsupported remark format '{format}' (rld writes yaml)"
            )));
        }
    }
    let filter = RemarkFilter::new(lto.remarks_passes.as_deref())
        .map_err(|e| LinkError::Link(format!("bad --opt-remarks-passes regex: {e}")))?;
    let kept: Vec<Remark> = remarks
        .iter()
        .filter(|r| filter.accepts(&r.pass))
        .cloned()
        .collect();
    let text = rld_summaries::format_yaml(&kept);
    std::fs::write(path, text).map_err(|e| LinkError::io(path, e))
}

/// `rld --dump-summary FILE`: the summary of a bitcode file (built now) or of a cached
/// summary file, as readable text.
pub fn dump_summary(path: &std::path::Path) -> Result<String> {
    let data = std::fs::read(path).map_err(|e| LinkError::io(path, e))?;
    let name = path.display().to_string();
    let summary = if rld_lto::is_bitcode(&data) {
        rld_lto::summarize::summarize_bitcode(&name, &data)
            .map_err(|e| LinkError::Link(e.to_string()))?
    } else {
        rld_summaries::decode(&data).map_err(|e| LinkError::bad_input(&name, e))?
    };
    Ok(rld_summaries::dump(&summary))
}
