//! The LTO step as one sequence of passes: the host's resolutions become the combined
//! index's, the dead-symbol worklist decides what lives, the survivors that nothing outside
//! needs are internalized, the whole-program analyses (points-to, called-value propagation,
//! mod/ref, alias scopes) plan what LLVM is told, the program is split into partitions, and
//! LLVM compiles each into an ELF object. Each decision is a remark.

use crate::actions::global_actions;
use crate::call_plan::call_plans;
use crate::error::DriverError;
use crate::remark_file::{llvm_remarks_path, remark_format, write_remarks};
use crate::remarks::{alias_remarks, call_remarks};
use crate::resolution::resolutions;
use crate::timing::PhaseClock;
use rld_lto::{Action, BitcodeInput, LtoConfig};
use rld_lto_api::{Host, LinkFacts, LtoOptions};
use rld_summaries::alias::AliasPlan;
use rld_summaries::partition::{PartitionInput, PartitionPlan};
use rld_summaries::{
    compute_dead_symbols, internalize, CombinedIndex, GlobalId, Liveness, ModuleSummary,
    Resolutions,
};
use std::collections::{BTreeMap, HashSet};

/// LLVM's own options: `-mllvm`'s, and lld's `--no-lto-pgo-warn-mismatch` (which lld
/// turns into LLVM's `-no-pgo-warn-mismatch` when a context-sensitive profile is used).
fn llvm_args(opts: &LtoOptions) -> Vec<String> {
    let mut args = opts.llvm_args.clone();
    let cs_use = opts.profile.cs_file.is_some() && !opts.profile.cs_generate;
    if !opts.pgo_warn_mismatch && cs_use {
        args.push("-no-pgo-warn-mismatch".into());
    }
    args
}

/// Compiles the bitcode modules `inputs` (with `summaries`, in the same order) into ELF
/// objects, one per partition, for the host to link in their place.
pub fn run(
    inputs: &[BitcodeInput],
    summaries: Vec<ModuleSummary>,
    host: &dyn Host,
    link: &LinkFacts,
    opts: &LtoOptions,
) -> Result<Vec<Vec<u8>>, DriverError> {
    let mut clock = PhaseClock::new(host, link.print_timing);
    remark_format(opts)?;
    let llvm_args = llvm_args(opts);
    if !llvm_args.is_empty() {
        rld_lto::shim::parse_llvm_options(&llvm_args).map_err(DriverError::LlvmOptions)?;
    }

    // The summaries' parses are over: their LLVM contexts' memory goes back before the
    // analyses allocate theirs.
    crate::memory::give_back_free_memory();

    // What lives, and what of it nothing outside the LTO unit needs.
    let index = CombinedIndex::new(summaries);
    let res = resolutions(host, link, &index);
    let live = compute_dead_symbols(&index, &res, &link.roots);
    let internal: HashSet<GlobalId> = internalize(&index, &res, &live, &link.roots)
        .into_iter()
        .collect();
    let (actions, mut remarks) = global_actions(&index, &res, &live, &internal);
    clock.phase("dead-symbol analysis", || {
        format!(
            "{} of {} definitions live",
            live.live_count(),
            index.modules.iter().map(|m| m.globals.len()).sum::<usize>()
        )
    });

    // The whole-program analyses: points-to sets serve CVP and the alias plan.
    let pts = opts
        .wpa_aa
        .then(|| points_to(&index, &res, &live, &mut clock));
    let cvp = opts
        .cvp
        .then(|| called_values(&index, &res, &live, pts.as_ref(), opts, &mut clock));
    let (plans, extra_refs) = cvp
        .as_ref()
        .map(|c| call_plans(&index, &live, c, opts.icp_max_targets))
        .unwrap_or_default();
    let aliases = match pts.as_ref().filter(|_| opts.wpa_aa_metadata) {
        Some(pts) => alias_plan(&index, &res, &live, pts, &mut clock),
        None => Default::default(),
    };
    // The points-to sets have served every client: free them before the backends run.
    drop(pts);
    crate::memory::give_back_free_memory();

    // The partitions: what each compiles, what it copies for inlining, what it shares.
    let partitions = partition(&index, &res, &actions, &internal, &extra_refs, link, opts)?;
    let threads = opts
        .jobs
        .or(link.threads)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    clock.phase("partitioning", || {
        let copied: u64 = (0..partitions.count()).map(|p| partitions.size(p).1).sum();
        format!(
            "{} partitions, {} threads, {copied} instructions copied for inlining, {} locals \
             shared",
            partitions.count(),
            threads.min(partitions.count() as usize),
            partitions.shared_count()
        )
    });

    // LLVM: each partition optimized and compiled, in parallel.
    let cfg = LtoConfig {
        opt_level: opts.opt_level,
        cg_opt_level: opts.cg_opt_level,
        pic: link.pic || link.relocatable,
        cpu: opts.mcpu.clone(),
        save_temps: opts.save_temps.then(|| link.output.clone()),
        // LLVM writes its remarks beside the file; rld's own come first when they are joined.
        pipeline_remarks: opts
            .remarks_filename
            .as_ref()
            .map(|p| (llvm_remarks_path(p), opts.remarks_passes.clone())),
        remarks_with_hotness: opts.remarks_with_hotness,
        remarks_hotness_threshold: opts.remarks_hotness_threshold,
        cache_dir: opts.cache_dir.clone(),
        llvm_args,
        // A distributed job makes objects: bitcode and assembly are made here.
        distribution: distribution(&opts.distribution, link, host)
            .filter(|_| opts.emit == rld_lto_api::Emit::Object),
        profile: opts.profile.clone(),
        dwo_dir: opts.dwo_dir.clone(),
        emit: opts.emit,
        pipeline: rld_lto::codegen::Pipeline {
            passes: opts.pipeline.clone(),
            aa: opts.aa_pipeline.clone(),
            plugins: opts.pass_plugins.clone(),
            debug: opts.debug_pass_manager,
        },
    };
    let declared_attributes = if partitions.count() > 1 {
        declared_attributes(&index, &aliases)
    } else {
        Default::default()
    };
    let label_addresses: Vec<bool> = index
        .modules
        .iter()
        .map(|m| {
            m.globals
                .iter()
                .any(|g| g.flags.contains(rld_summaries::GlobalFlags::BLOCK_ADDRESS))
        })
        .collect();
    let job = rld_lto::Job {
        inputs,
        label_addresses: &label_addresses,
        actions: &actions,
        plans: &plans,
        aliases: &aliases,
        partitions: &partitions,
        declared_attributes: &declared_attributes,
        cfg: &cfg,
    };
    let compiled = rld_lto::compile(&job, threads)?;
    let outcome = &compiled.outcome;
    for (skipped, what) in [
        (&outcome.alias_skipped, "no alias information written"),
        (&outcome.sites_skipped, "indirect calls not resolved"),
    ] {
        for (module, mismatch) in skipped {
            host.warning(&format!(
                "{module}: {what}: function {} does not match its summary ({})",
                mismatch.function, mismatch.detail
            ));
        }
    }
    if clock.enabled() && opts.wpa_aa && opts.wpa_aa_metadata {
        clock.note(
            outcome.alias_time,
            &format!(
                "LTO: alias metadata written ({} instructions in {} functions, attributes \
                 added to {} functions)",
                outcome.alias.instructions,
                outcome.alias.functions,
                outcome.alias.attributes.len()
            ),
        );
    }
    if clock.enabled() && (compiled.times.len() > 1 || compiled.cached.contains(&true)) {
        for (p, &took) in compiled.times.iter().enumerate() {
            let (own, copies) = partitions.size(p as u32);
            let cached = if compiled.cached[p] { ", cached" } else { "" };
            clock.note(
                took,
                &format!("  partition {p} ({own} instructions, {copies} copied{cached})"),
            );
        }
    }
    if let (true, Some(d)) = (clock.enabled(), compiled.distributed) {
        clock.note(
            d.prepare,
            &format!("  distributed: {} jobs' bitcode written", d.jobs),
        );
        clock.note(d.distributor, "  distributed: the distributor ran");
    }
    clock.phase("LLVM (link modules, optimize, codegen)", || {
        format!(
            "{} call sites promoted, {} of {} function bodies read",
            outcome.promoted.len(),
            outcome.bodies_read,
            outcome.bodies
        )
    });

    // The remarks: rld's decisions, then what LLVM made of them.
    if let Some(cvp) = &cvp {
        remarks.extend(call_remarks(&index, &live, cvp, outcome));
    }
    remarks.extend(alias_remarks(&index, &aliases, outcome));
    write_remarks(opts, &remarks, &compiled.remark_files)?;
    if let Some(dir) = &opts.cache_dir {
        rld_lto::cache_prune::prune(dir, &opts.cache_policy);
    }
    Ok(compiled.objects)
}

/// The whole program's points-to sets (stack, heap, globals, fields).
fn points_to(
    index: &CombinedIndex,
    res: &Resolutions,
    live: &Liveness,
    clock: &mut PhaseClock,
) -> rld_summaries::pointsto::PointsTo {
    let pts = rld_summaries::pointsto::points_to(index, res, live);
    clock.phase("points-to analysis", || {
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
}

/// Called-value propagation: the functions each indirect call site may call, sharpened by
/// the points-to sets when there are some.
fn called_values(
    index: &CombinedIndex,
    res: &Resolutions,
    live: &Liveness,
    pts: Option<&rld_summaries::pointsto::PointsTo>,
    opts: &LtoOptions,
    clock: &mut PhaseClock,
) -> rld_summaries::cvp::CvpResult {
    let cfg = rld_summaries::cvp::CvpConfig {
        max_targets: opts.cvp_max_targets,
    };
    let mut result = rld_summaries::cvp::called_value_propagation(index, res, live, &cfg);
    if let Some(pts) = pts {
        rld_summaries::cvp::refine_with_points_to(&mut result, index, res, live, pts, &cfg);
    }
    clock.phase("called-value propagation", || {
        let s = &result.stats;
        format!(
            "{} indirect call sites, {} resolved, {} overdefined",
            s.indirect_sites, s.resolved, s.overdefined
        )
    });
    result
}

/// What LLVM is told about memory: each function's mod/ref, then the alias scopes of its
/// accesses and calls.
fn alias_plan(
    index: &CombinedIndex,
    res: &Resolutions,
    live: &Liveness,
    pts: &rld_summaries::pointsto::PointsTo,
    clock: &mut PhaseClock,
) -> AliasPlan {
    let modref = rld_summaries::modref::mod_ref(index, res, live, pts);
    clock.phase("mod/ref analysis", || {
        format!(
            "{} functions, {} with memory attributes",
            modref.functions(),
            modref.attributes().len()
        )
    });
    let plan = rld_summaries::alias::alias_plan(index, res, live, pts, Some(&modref));
    clock.phase("alias scopes", || {
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

/// Splits the surviving definitions into partitions compiled in parallel; `-r` writes the
/// one object LTO produces.
fn partition(
    index: &CombinedIndex,
    res: &Resolutions,
    actions: &[Vec<Action>],
    internal: &HashSet<GlobalId>,
    extra_refs: &[(GlobalId, GlobalId)],
    link: &LinkFacts,
    opts: &LtoOptions,
) -> Result<PartitionPlan, DriverError> {
    let compiled: Vec<Vec<bool>> = index
        .modules
        .iter()
        .zip(actions)
        .map(|(module, acts)| {
            module
                .globals
                .iter()
                .zip(acts)
                .map(|(g, &a)| g.is_definition() && a != Action::Drop)
                .collect()
        })
        .collect();
    // Type tests (CFI, whole-program vtables) are lowered from every module's type
    // metadata at once (LLVM's LowerTypeTests): split, each partition would see only its
    // own vtables and fail the others' checks. One partition, as lld's full LTO.
    let type_tests = index.modules.iter().any(|m| m.type_tests);
    if link.relocatable || type_tests {
        return Ok(PartitionPlan::single(index, &compiled));
    }
    let input = PartitionInput {
        index,
        res,
        compiled: &compiled,
        internalized: internal,
        extra_refs,
        // Bitcode or assembly is of the whole program: one module.
        requested: match opts.emit {
            rld_lto_api::Emit::Object => opts.partitions.map(|n| n.min(u32::MAX as usize) as u32),
            _ => Some(1),
        },
    };
    let plan = rld_summaries::partition::partition(&input);
    // Checked against the summaries, not the partitioner's own graph: a cut that would
    // leave a reference unresolved or duplicate state stops the link.
    rld_summaries::partition::check(&plan, &input).map_err(DriverError::PartitionCut)?;
    Ok(plan)
}

/// The memory attributes of every function that has some, by the name it has in every
/// partition (a local's shared name), for its declarations in other partitions.
fn declared_attributes(
    index: &CombinedIndex,
    aliases: &AliasPlan,
) -> BTreeMap<String, rld_summaries::modref::MemoryAttributes> {
    let mut out = BTreeMap::new();
    for (m, list) in aliases.attributes.iter().enumerate() {
        for a in list {
            let g = &index.modules[m].globals[a.function as usize];
            let name = if g.linkage.is_local() {
                rld_summaries::partition::shared_name(
                    &g.name,
                    m as u32,
                    g.linkage == rld_summaries::Linkage::Private,
                )
            } else {
                g.name.clone()
            };
            out.insert(name, a.attributes);
        }
    }
    out
}

/// `--thinlto-distributor=`: how the partitions are distributed, if they are. The remote
/// compiler is an rld (`rld --lto-backend` compiles a partition): this one's path unless
/// `--thinlto-remote-compiler` names another. clang's driver passes its own path there
/// (`-fthinlto-distributor=`), and clang cannot compile rld's jobs: such a name is set
/// aside with a warning (and the prepend arguments clang gives with it).
fn distribution(
    d: &rld_lto_api::DistributionOptions,
    link: &LinkFacts,
    host: &dyn Host,
) -> Option<rld_lto::distribute::Distribution> {
    if d.distributor.is_empty() {
        return None;
    }
    let own = || {
        std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "rld".to_string())
    };
    let is_clang = |c: &str| {
        std::path::Path::new(c)
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("clang"))
    };
    let (remote_compiler, prepend) = match d.remote_compiler.as_deref() {
        Some(c) if !c.is_empty() && !is_clang(c) => {
            (c.to_string(), d.remote_compiler_prepend_args.clone())
        }
        Some(c) if !c.is_empty() => {
            host.warning(&format!(
                "--thinlto-remote-compiler={c} is not used: rld's LTO jobs are compiled by \
                 rld (`rld --lto-backend`), here {}; name the rld of the build hosts with \
                 --thinlto-remote-compiler=",
                own()
            ));
            (own(), Vec::new())
        }
        _ => (own(), d.remote_compiler_prepend_args.clone()),
    };
    Some(rld_lto::distribute::Distribution {
        distributor: d.distributor.clone().into(),
        distributor_args: d.distributor_args.clone(),
        remote_compiler,
        remote_compiler_prepend_args: prepend,
        remote_compiler_args: d.remote_compiler_args.clone(),
        linker_output: link.output.clone(),
        timeout: d.timeout_seconds.map(std::time::Duration::from_secs),
    })
}
