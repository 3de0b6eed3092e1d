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
use rld_remarks::sink::{RemarkSink, SinkFormat};
use rld_remarks::{Remark, RemarkArg, RemarkFilter, RemarkKind, YamlDocuments};
use rld_summaries::partition::split_shared_name;
use rld_summaries::{
    compute_dead_symbols, internalize, CombinedIndex, GlobalFlags, GlobalId, GlobalKind,
    Resolutions,
};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Names the program needs whatever the code says: entry point, `-u`, `-init`/`-fini`.
fn root_names(opts: &Options) -> Vec<String> {
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

/// The summaries' source position as a remark's (the two crates do not depend on each other).
fn remark_loc(loc: &Option<rld_summaries::DebugLoc>) -> Option<rld_remarks::DebugLoc> {
    loc.as_ref().map(|l| rld_remarks::DebugLoc {
        file: l.file.clone(),
        line: l.line,
        column: l.column,
    })
}

/// An `lto` remark about a global, shaped like lld's `deadfunction` remark: the global as a
/// `Function` argument carrying its location, then the message with LLVM's surrounding spaces.
fn remark(kind: RemarkKind, name: &str, g: &rld_summaries::GlobalSummary, text: &str) -> Remark {
    let mut r = rld_remarks::dead_function_remark(&g.name, remark_loc(&g.debug_loc));
    r.kind = kind;
    r.name = name.into();
    r.args[1].value = format!(" {text} ");
    r
}

/// Compiles every bitcode module the link uses into objects (one per partition).
pub fn run_lto(
    opts: &Options,
    r: &mut Resolver,
    dynamic_list: &crate::dynamic_list::DynamicList,
) -> Result<Vec<Vec<u8>>> {
    let mut clock = std::time::Instant::now();
    remark_format(opts)?;
    let is_dynamic = !r.dsos.is_empty() || opts.is_pic();
    compute_preemption_in(&mut r.symtab, opts, is_dynamic, dynamic_list);
    // The index takes the summaries; the resolver keeps only what it still asks (globals).
    let index = CombinedIndex::new(
        r.bitcode
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
            .collect(),
    );
    let res = resolutions(opts, r, &index);
    let roots = root_names(opts);
    let live = compute_dead_symbols(&index, &res, &roots);
    let internal: HashSet<GlobalId> = internalize(&index, &res, &live, &roots)
        .into_iter()
        .collect();

    let mut remarks: Vec<Remark> = Vec::new();
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
    phase(opts, &mut clock, "dead-symbol analysis", || {
        format!(
            "{} of {} definitions live",
            live.live_count(),
            index.modules.iter().map(|m| m.globals.len()).sum::<usize>()
        )
    });
    let pts = opts.lto_opts.wpa_aa.then(|| {
        // The whole program's points-to sets (stack, heap, globals, fields).
        let pts = rld_summaries::pointsto::points_to(&index, &res, &live);
        phase(opts, &mut clock, "points-to analysis", || {
            let s = pts.stats();
            let (total, largest) = pts.set_sizes();
            format!(
                "{} objects, {} locations, {} nodes, {} edges, {} merged, {} iterations, \
                 {} elements delivered, {} sets widened, sets: {total} elements, \
                 largest {largest}",
                s.objects,
                s.locations,
                s.solver.nodes,
                s.solver.edges,
                s.solver.merged,
                s.solver.iterations,
                s.solver.delivered,
                s.solver.widened
            )
        });
        pts
    });
    let cvp = if opts.lto_opts.cvp {
        let cfg = rld_summaries::cvp::CvpConfig {
            max_targets: opts.lto_opts.cvp_max_targets,
        };
        let result = rld_summaries::cvp::called_value_propagation(&index, &res, &live, &cfg);
        let mut result = result;
        if let Some(pts) = &pts {
            rld_summaries::cvp::refine_with_points_to(&mut result, &index, &res, &live, pts, &cfg);
        }
        phase(opts, &mut clock, "called-value propagation", || {
            let s = &result.stats;
            format!(
                "{} indirect call sites, {} resolved, {} overdefined",
                s.indirect_sites, s.resolved, s.overdefined
            )
        });
        Some(result)
    } else {
        None
    };
    let (plans, extra_refs) = cvp
        .as_ref()
        .map(|c| call_plans(&index, &live, c, opts.lto_opts.icp_max_targets))
        .unwrap_or_default();
    let aliases = match pts.as_ref().filter(|_| opts.lto_opts.wpa_aa_metadata) {
        Some(pts) => {
            let modref = rld_summaries::modref::mod_ref(&index, &res, &live, pts);
            phase(opts, &mut clock, "mod/ref analysis", || {
                format!(
                    "{} functions, {} with memory attributes",
                    modref.functions(),
                    modref.attributes().len()
                )
            });
            let plan = rld_summaries::alias::alias_plan(&index, &res, &live, pts, Some(&modref));
            phase(opts, &mut clock, "alias scopes", || {
                format!(
                    "{} functions, {} instructions ({} calls), {} no-alias pairs, \
                     {} call/access pairs apart",
                    plan.functions(),
                    plan.instructions(),
                    plan.calls(),
                    plan.noalias_pairs(),
                    plan.nomodref_pairs()
                )
            });
            plan
        }
        None => Default::default(),
    };
    // The points-to sets have served every client: free them before the backends run.
    drop(pts);

    // The partitions: what each compiles, what it copies for inlining, what it shares.
    let compiled: Vec<Vec<bool>> = index
        .modules
        .iter()
        .zip(&actions)
        .map(|(module, acts)| {
            module
                .globals
                .iter()
                .zip(acts)
                .map(|(g, &a)| g.is_definition() && a != Action::Drop)
                .collect()
        })
        .collect();
    let partitions = if opts.relocatable {
        // `-r` writes the one object LTO produces.
        rld_summaries::partition::PartitionPlan::single(&index, &compiled)
    } else {
        rld_summaries::partition::partition(&rld_summaries::partition::PartitionInput {
            index: &index,
            res: &res,
            compiled: &compiled,
            internalized: &internal,
            extra_refs: &extra_refs,
            requested: opts
                .lto_opts
                .partitions
                .map(|n| n.min(u32::MAX as usize) as u32),
        })
    };
    let threads = opts
        .lto_opts
        .jobs
        .or(opts.threads)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    phase(opts, &mut clock, "partitioning", || {
        let copied: u64 = (0..partitions.count()).map(|p| partitions.size(p).1).sum();
        format!(
            "{} partitions, {} threads, {copied} instructions copied for inlining, {} locals \
             shared",
            partitions.count(),
            threads.min(partitions.count() as usize),
            partitions.shared_count()
        )
    });

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
        // LLVM writes its remarks beside the file; rld's own come first when they are joined.
        pipeline_remarks: lto
            .remarks_filename
            .as_ref()
            .map(|p| (llvm_remarks_path(p), lto.remarks_passes.clone())),
        cache_dir: lto.cache_dir.clone(),
    };
    let declared_attributes = if partitions.count() > 1 {
        declared_attributes(&index, &aliases)
    } else {
        Default::default()
    };
    let job = rld_lto::Job {
        inputs: &inputs,
        actions: &actions,
        plans: &plans,
        aliases: &aliases,
        partitions: &partitions,
        declared_attributes: &declared_attributes,
        cfg: &cfg,
    };
    let compiled = rld_lto::compile(&job, threads).map_err(|e| LinkError::Link(e.to_string()))?;
    let outcome = compiled.outcome;
    for (module, mismatch) in &outcome.alias_skipped {
        eprintln!(
            "rld: warning: {module}: no alias information written: function {} does not \
             match its summary ({})",
            mismatch.function, mismatch.detail
        );
    }
    if opts.print_timing && opts.lto_opts.wpa_aa && opts.lto_opts.wpa_aa_metadata {
        eprintln!(
            "rld: {:>8.2} ms    LTO: alias metadata written ({} instructions in {} functions, \
             attributes added to {} functions)",
            outcome.alias_time.as_secs_f64() * 1e3,
            outcome.alias.instructions,
            outcome.alias.functions,
            outcome.alias.attributes.len()
        );
    }
    if opts.print_timing && (compiled.times.len() > 1 || compiled.cached.contains(&true)) {
        for (p, t) in compiled.times.iter().enumerate() {
            let (own, copies) = partitions.size(p as u32);
            let cached = if compiled.cached[p] { ", cached" } else { "" };
            eprintln!(
                "rld: {:>8.2} ms      partition {p} ({own} instructions, {copies} copied{cached})",
                t.as_secs_f64() * 1e3
            );
        }
    }
    phase(
        opts,
        &mut clock,
        "LLVM (link modules, optimize, codegen)",
        || format!("{} call sites promoted", outcome.promoted.len()),
    );
    if let Some(cvp) = &cvp {
        remarks.extend(call_remarks(&index, &live, cvp, &outcome));
    }
    remarks.extend(alias_remarks(&index, &aliases, &outcome));
    write_remarks(opts, &remarks, &compiled.remark_files)?;
    Ok(compiled.objects)
}

/// The memory attributes of every function that has some, by the name it has in every
/// partition (a local's shared name), for its declarations in other partitions.
fn declared_attributes(
    index: &CombinedIndex,
    aliases: &rld_summaries::alias::AliasPlan,
) -> std::collections::BTreeMap<String, rld_summaries::modref::MemoryAttributes> {
    let mut out = std::collections::BTreeMap::new();
    for (m, list) in aliases.attributes.iter().enumerate() {
        for a in list {
            let g = &index.modules[m].globals[a.function as usize];
            let name = if g.linkage.is_local() {
                rld_summaries::partition::shared_name(&g.name, m as u32)
            } else {
                g.name.clone()
            };
            out.insert(name, a.attributes);
        }
    }
    out
}

/// The name a CVP target has in the merged module: local functions are renamed before
/// linking so that call sites in other modules can name them.
fn target_name(index: &CombinedIndex, id: GlobalId, renames: &mut [Vec<(u32, String)>]) -> String {
    let g = index.global(id);
    if !g.linkage.is_local() {
        return g.name.clone();
    }
    let unique = format!("{}.rld.{}", g.name, id.module);
    let list = &mut renames[id.module as usize];
    if !list.iter().any(|(i, _)| *i == id.index) {
        list.push((id.index, unique.clone()));
    }
    unique
}

/// Turns CVP's callee sets into what the backend does at each indirect call site, and
/// lists (caller, target) for each: the caller's code names the target afterwards, which
/// partitioning must know.
fn call_plans(
    index: &CombinedIndex,
    live: &rld_summaries::Liveness,
    cvp: &rld_summaries::cvp::CvpResult,
    icp_max_targets: usize,
) -> (rld_lto::CallPlans, Vec<(GlobalId, GlobalId)>) {
    use rld_summaries::cvp::CalleeSet;
    let mut plans = rld_lto::CallPlans {
        renames: vec![Vec::new(); index.modules.len()],
        sites: Default::default(),
    };
    let mut refs = Vec::new();
    for (&(m, site), set) in &cvp.sites {
        let CalleeSet::Functions(targets) = set else {
            continue;
        };
        let call = &index.modules[m as usize].call_sites[site as usize];
        let caller = GlobalId {
            module: m,
            index: call.caller,
        };
        // Every target must exist in the merged module as a function definition or
        // declaration; a dropped caller needs nothing.
        if targets.is_empty() || !live.is_live(caller) {
            continue;
        }
        refs.extend(targets.iter().map(|&t| (caller, t)));
        let names = targets
            .iter()
            .map(|&t| target_name(index, t, &mut plans.renames))
            .collect();
        plans.sites.insert(
            (m, site),
            rld_lto::SitePlan {
                caller: call.caller,
                instruction: call.instruction,
                targets: names,
                // The analysis is sound: a FunctionSet holds every possible callee.
                complete: true,
                promote: targets.len() <= icp_max_targets,
            },
        );
    }
    // In index order, whatever order the sites came in: the renames are part of the
    // partition cache's keys.
    for list in &mut plans.renames {
        list.sort_unstable();
    }
    refs.sort_unstable();
    (plans, refs)
}

/// One remark per indirect call site of live code: its callees, its promotion, or why it
/// stayed unresolved.
fn call_remarks(
    index: &CombinedIndex,
    live: &rld_summaries::Liveness,
    cvp: &rld_summaries::cvp::CvpResult,
    outcome: &rld_lto::CallOutcome,
) -> Vec<Remark> {
    use rld_summaries::cvp::CalleeSet;
    let promoted: HashSet<(u32, u32)> = outcome.promoted.iter().copied().collect();
    let annotated: HashSet<(u32, u32)> = outcome.annotated.iter().copied().collect();
    let mut out = Vec::new();
    for (&(m, site), set) in &cvp.sites {
        let module = &index.modules[m as usize];
        let call = &module.call_sites[site as usize];
        let caller = GlobalId {
            module: m,
            index: call.caller,
        };
        if !live.is_live(caller) {
            continue;
        }
        let function = module.globals[call.caller as usize].name.clone();
        let arg = |key: &str, value: String| RemarkArg {
            key: key.into(),
            value,
            debug_loc: None,
        };
        let (kind, name, args) = match set {
            CalleeSet::Functions(targets) if annotated.contains(&(m, site)) => {
                let mut args = vec![arg(
                    "String",
                    if promoted.contains(&(m, site)) {
                        "indirect call promoted to direct calls of: ".into()
                    } else {
                        "indirect call can only call: ".into()
                    },
                )];
                // Name the callees as the source does (local targets were renamed for
                // linking only).
                for &t in targets {
                    args.push(arg("Callee", index.global(t).name.clone()));
                }
                let name = if promoted.contains(&(m, site)) {
                    "promoted"
                } else {
                    "callees"
                };
                (RemarkKind::Passed, name, args)
            }
            CalleeSet::Functions(_) | CalleeSet::Undefined => continue,
            CalleeSet::Overdefined => {
                let reason =
                    cvp.reasons.get(&(m, site)).cloned().unwrap_or_else(|| {
                        "the called value may come from outside the program".into()
                    });
                (
                    RemarkKind::Missed,
                    "unresolved",
                    vec![
                        arg("String", "indirect call not resolved: ".into()),
                        arg("Reason", reason),
                    ],
                )
            }
        };
        out.push(Remark {
            kind,
            pass: "cvp".into(),
            name: name.into(),
            debug_loc: remark_loc(&call.debug_loc),
            function,
            hotness: None,
            args,
        });
    }
    out
}

/// The remark file's format (`--opt-remarks-format`), checked before any work is done.
fn remark_format(opts: &Options) -> Result<SinkFormat> {
    match opts.lto_opts.remarks_format.as_deref() {
        None => Ok(SinkFormat::Yaml),
        Some(name) => SinkFormat::from_llvm_name(name).ok_or_else(|| {
            LinkError::Link(format!(
                "unsupported remark format '{name}' (rld writes yaml or bitstream)"
            ))
        }),
    }
}

/// Writes rld's remarks, then LLVM's (which the partitions streamed to files beside, removed
/// here), to the remark file, one remark at a time: the file is never held in memory.
fn write_remarks(opts: &Options, remarks: &[Remark], llvm_files: &[PathBuf]) -> Result<()> {
    let written = write_remark_file(opts, remarks, llvm_files);
    // Whatever happened, LLVM's files beside the remark file go.
    for f in llvm_files {
        let _ = std::fs::remove_file(f);
    }
    written
}

fn write_remark_file(opts: &Options, remarks: &[Remark], llvm_files: &[PathBuf]) -> Result<()> {
    let lto = &opts.lto_opts;
    let Some(path) = &lto.remarks_filename else {
        return Ok(());
    };
    let filter = RemarkFilter::new(lto.remarks_passes.as_deref())
        .map_err(|e| LinkError::Link(format!("bad --opt-remarks-passes regex: {e}")))?;
    let io = |e| LinkError::io(path, e);
    let file = std::fs::File::create(path).map_err(io)?;
    let mut sink = RemarkSink::new(remark_format(opts)?, std::io::BufWriter::new(file));
    for r in remarks.iter().filter(|r| filter.accepts(&r.pass)) {
        sink.add(r).map_err(io)?;
    }
    // Then LLVM's own remarks from the optimization pipeline and code generation.
    for llvm in llvm_files {
        append_llvm_remarks(&mut sink, llvm, path)?;
    }
    let mut out = sink.finish().map_err(io)?;
    std::io::Write::flush(&mut out).map_err(io)
}

/// Streams one file of LLVM's YAML remarks into `sink` (copied as they are for YAML);
/// `out` is the remark file, named by write errors.
fn append_llvm_remarks(
    sink: &mut RemarkSink<std::io::BufWriter<std::fs::File>>,
    llvm: &Path,
    out: &Path,
) -> Result<()> {
    let mut input =
        std::io::BufReader::new(std::fs::File::open(llvm).map_err(|e| LinkError::io(llvm, e))?);
    match sink {
        // A copy error may be either file's: name the one being written.
        RemarkSink::Yaml(w) => std::io::copy(&mut input, w)
            .map(|_| ())
            .map_err(|e| LinkError::io(out, e)),
        _ => YamlDocuments::new(input).try_for_each(|r| {
            let r =
                r.map_err(|e| LinkError::Link(format!("{}: LLVM's remarks: {e}", llvm.display())))?;
            sink.add(&r).map_err(|e| LinkError::io(out, e))
        }),
    }
}

fn llvm_remarks_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".llvm.tmp");
    name.into()
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

/// With `--time`, how long the LTO step's part since the last call took, and a fact about it.
fn phase(
    opts: &Options,
    clock: &mut std::time::Instant,
    name: &str,
    detail: impl FnOnce() -> String,
) {
    if opts.print_timing {
        let now = std::time::Instant::now();
        eprintln!(
            "rld: {:>8.2} ms    LTO: {name} ({})",
            (now - *clock).as_secs_f64() * 1e3,
            detail()
        );
        *clock = now;
    }
}

/// One `!Analysis` remark per annotated function (pass `wpa-aa`): its memory accesses, the
/// abstract objects they touch, and the pairs of accesses (and of calls and accesses) LLVM
/// can now tell apart; and a `!Passed` remark per function given memory attributes.
fn alias_remarks(
    index: &CombinedIndex,
    aliases: &rld_summaries::alias::AliasPlan,
    outcome: &rld_lto::CallOutcome,
) -> Vec<Remark> {
    let arg = |key: &str, value: String| RemarkArg {
        key: key.into(),
        value,
        debug_loc: None,
    };
    let mut out = Vec::new();
    for (m, functions) in aliases.modules.iter().enumerate() {
        let module = &index.modules[m];
        if outcome
            .alias_skipped
            .iter()
            .any(|(name, _)| *name == module.module_id)
        {
            continue;
        }
        for f in functions {
            let g = &module.globals[f.function as usize];
            out.push(Remark {
                kind: RemarkKind::Analysis,
                pass: "wpa-aa".into(),
                name: "AliasScopes".into(),
                debug_loc: remark_loc(&g.debug_loc),
                function: g.name.clone(),
                hotness: None,
                args: vec![
                    arg("String", "whole-program alias analysis: ".into()),
                    arg("Accesses", f.accesses.to_string()),
                    arg("String", " memory accesses to ".into()),
                    arg("Objects", f.objects.to_string()),
                    arg("String", " abstract objects, ".into()),
                    arg("NoAliasPairs", f.noalias_pairs.to_string()),
                    arg("String", " pairs of accesses that cannot alias; ".into()),
                    arg("Calls", f.calls.to_string()),
                    arg("String", " calls, ".into()),
                    arg("NoModRefPairs", f.nomodref_pairs.to_string()),
                    arg(
                        "String",
                        " pairs of a call and an access it cannot touch".into(),
                    ),
                ],
            });
        }
    }
    // Functions that got memory attributes from the whole program.
    for (function, added) in &outcome.alias.attributes {
        // The function's own location, as its other remarks have it. A local shared by
        // partitions is named `NAME.rld.M`, M its module; a name defined in several
        // modules (two static functions) has no one location.
        let (source, module) = match split_shared_name(function.as_bytes()) {
            Some((source, m)) => (std::str::from_utf8(source).unwrap_or(function), Some(m)),
            None => (function.as_str(), None),
        };
        let defs: Vec<GlobalId> = index
            .definitions(source)
            .into_iter()
            .filter(|id| module.is_none_or(|m| id.module == m))
            .collect();
        let debug_loc = match defs[..] {
            [id] => remark_loc(&index.global(id).debug_loc),
            _ => None,
        };
        out.push(Remark {
            kind: RemarkKind::Passed,
            pass: "wpa-aa".into(),
            name: "MemoryAttributes".into(),
            debug_loc,
            function: source.to_string(),
            hotness: None,
            args: vec![
                arg("String", "whole-program mod/ref: added ".into()),
                arg("Attributes", added.clone()),
            ],
        });
    }
    out
}
