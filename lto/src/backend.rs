//! The LTO backend: for each partition of the program (see `rld_summaries::partition`), in
//! a thread and an LLVM context of its own, reads the modules it needs lazily from the
//! mapped bitcode, gives each global its form there (owned definition with the combined
//! index's decision applied, copy for inlining, or declaration), links them into one module,
//! runs LLVM's LTO pipeline and emits an ELF relocatable object in memory.

use crate::codegen::{CodegenSettings, RemarkSettings};
use crate::error::LtoError;
use crate::ir::module_globals;
use crate::promote::{self, SitePlan};
use crate::BitcodeInput;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::targets::{InitializationConfig, Target};
use rld_summaries::modref::MemoryAttributes;
use rld_summaries::partition::{self, PartitionPlan, Placement};
use rld_summaries::{GlobalKind, Linkage};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// What to do with one global of a module before it joins the merged module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Leave as it is.
    Keep,
    /// Live but needed by nothing outside the LTO unit: make it internal so the optimizer
    /// may inline, specialize or delete it.
    Internalize,
    /// Dead, or a copy whose prevailing definition is elsewhere: keep only a declaration.
    Drop,
    /// A prevailing linkonce definition that must survive optimization (something outside
    /// the LTO unit uses it): make it weak, which the optimizer may not discard.
    KeepWeak,
}

#[derive(Debug, Clone)]
pub struct LtoConfig {
    /// LTO optimization level, 0..=3 (`--lto-O<n>`, `-plugin-opt=O<n>`).
    pub opt_level: u8,
    /// `--lto-CGO<n>`: the code generator's level, 0..=3.
    pub cg_opt_level: Option<u8>,
    /// Position-independent code (PIE and shared outputs).
    pub pic: bool,
    /// `-plugin-opt=mcpu=`; x86-64 by default.
    pub cpu: Option<String>,
    /// `--save-temps`: the output path; intermediate files are written beside it.
    pub save_temps: Option<PathBuf>,
    /// LLVM's own optimization remarks (inline, licm, asm-printer, ...): where to write them
    /// (YAML; several partitions write `PATH.partN`, see [`Compiled::remark_files`]) and
    /// the pass filter.
    pub pipeline_remarks: Option<(PathBuf, Option<String>)>,
    /// `--opt-remarks-with-hotness`: LLVM adds each remark's `Hotness` where profile data
    /// gives one (none without PGO).
    pub remarks_with_hotness: bool,
    /// `--opt-remarks-hotness-threshold` (None: `auto`).
    pub remarks_hotness_threshold: Option<u64>,
    /// `--lto-cache-dir`: partitions whose inputs and decisions did not change reuse their
    /// objects (not with `--save-temps` or LLVM's remarks, which need the compilation).
    pub cache_dir: Option<PathBuf>,
    /// `-mllvm` options: set in this process already; a distributed job's process sets
    /// them too, and they are part of a cached object's key.
    pub llvm_args: Vec<String>,
    /// `--thinlto-distributor=`: the partitions are compiled as jobs of an external
    /// distributor instead of in this process.
    pub distribution: Option<crate::distribute::Distribution>,
    /// AutoFDO and context-sensitive PGO profiles for LLVM's pipeline.
    pub profile: rld_lto_api::ProfileOptions,
    /// `-plugin-opt=dwo_dir=`: split DWARF, partition `p`'s in `DIR/p.dwo`.
    pub dwo_dir: Option<PathBuf>,
    /// A pass pipeline, alias analyses or pass logging other than the default.
    pub pipeline: crate::codegen::Pipeline,
    /// Objects, or the program as bitcode or assembly (one partition).
    pub emit: rld_lto_api::Emit,
}

/// Called-value propagation's results to apply: per module, local functions to give unique
/// names (so other modules' call sites can name them after linking); per call site
/// (module, call-site id as in the summary), what to do.
#[derive(Debug, Default)]
pub struct CallPlans {
    pub renames: Vec<Vec<(u32, String)>>,
    pub sites: HashMap<(u32, u32), SitePlan>,
}

/// What happened to the planned call sites and alias annotations.
#[derive(Debug, Default)]
pub struct CallOutcome {
    /// Sites that got `!callees`.
    pub annotated: Vec<(u32, u32)>,
    /// Of those, sites promoted to direct calls.
    pub promoted: Vec<(u32, u32)>,
    /// Indirect calls given their targets' attributes, with the attributes added (LLVM's
    /// spelling).
    pub call_attributes: Vec<((u32, u32), String)>,
    /// Instructions and functions given scoped-noalias metadata.
    pub alias: crate::alias_scopes::Annotated,
    /// Modules left without it because their bodies differ from their summaries.
    pub alias_skipped: Vec<(String, crate::alias_scopes::ShapeMismatch)>,
    /// Modules whose planned call sites were left alone because their callers' bodies
    /// differ from their summaries.
    pub sites_skipped: Vec<(String, crate::alias_scopes::ShapeMismatch)>,
    /// Time spent writing the alias metadata.
    pub alias_time: std::time::Duration,
    /// Function bodies in the modules loaded, and how many of them were read (the rest,
    /// dead or owned by another partition, stay unread in the bitcode).
    pub bodies: u64,
    pub bodies_read: u64,
}

/// Everything the partitions of one LTO link share.
pub struct Job<'a> {
    pub inputs: &'a [BitcodeInput<'a>],
    /// Per module: whether it takes label addresses (`blockaddress`). The bitcode writer
    /// may keep such constants at module level, where the reader resolves them against the
    /// bodies it reads: every body of the module is read before any is dropped.
    pub label_addresses: &'a [bool],
    /// `actions[m]` is parallel to the globals of module `m` (in `ir::module_globals` order,
    /// as in its summary).
    pub actions: &'a [Vec<Action>],
    pub plans: &'a CallPlans,
    pub aliases: &'a rld_summaries::alias::AliasPlan,
    pub partitions: &'a PartitionPlan,
    /// Memory attributes the whole program proves, by function name (as named in the
    /// partitions: shared locals by their shared names), for the declarations of functions
    /// other partitions define.
    pub declared_attributes: &'a std::collections::BTreeMap<String, MemoryAttributes>,
    pub cfg: &'a LtoConfig,
}

/// The compiled partitions: one ELF object each, in partition order.
pub struct Compiled {
    pub objects: Vec<Vec<u8>>,
    pub outcome: CallOutcome,
    /// Per partition: how long it took (read, optimize, compile).
    pub times: Vec<std::time::Duration>,
    /// Per partition: whether its object came from the cache.
    pub cached: Vec<bool>,
    /// With `pipeline_remarks`: the files LLVM wrote its remarks to, in partition order,
    /// for the caller to stream into the remark file and remove.
    pub remark_files: Vec<PathBuf>,
    /// With a distributor: where the time went.
    pub distributed: Option<crate::distribute::DistributedTimes>,
}

/// Optimizes and compiles every partition, `threads` at a time (each in its own LLVM
/// context). The objects do not depend on the thread count or on scheduling.
pub fn compile(job: &Job, threads: usize) -> Result<Compiled, LtoError> {
    Target::initialize_x86(&InitializationConfig::default());
    crate::fatal::install_handler();
    check_profile_files(&job.cfg.profile)?;
    if let Some(dir) = &job.cfg.dwo_dir {
        // As lld's LTO: the directory is made if need be.
        std::fs::create_dir_all(dir).map_err(|e| {
            LtoError::Llvm(format!(
                "cannot create the .dwo directory {}: {e}",
                dir.display()
            ))
        })?;
    }
    let count = job.partitions.count();
    let cache = cache_keys(job);
    let mut results: Vec<Option<PartitionResult>> = (0..count).map(|_| None).collect();
    if let Some((dir, keys)) = &cache {
        for (p, &key) in keys.iter().enumerate() {
            let start = std::time::Instant::now();
            if let Some((object, outcome)) = crate::object_cache::load(dir, key) {
                results[p] = Some(Ok(PartitionOutput {
                    object,
                    outcome,
                    time: start.elapsed(),
                    cached: true,
                }));
            }
        }
    }
    // Largest first, so that a big partition does not start last.
    let mut queue: Vec<u32> = (0..count)
        .filter(|&p| results[p as usize].is_none())
        .collect();
    queue.sort_by_key(|&p| std::cmp::Reverse(job.partitions.size(p).0));
    let store = |p: u32, object: &[u8], outcome: &CallOutcome| {
        if let Some((dir, keys)) = &cache {
            crate::object_cache::store(dir, keys[p as usize], object, outcome);
        }
    };
    let mut distributed = None;
    if let Some(distribution) = &job.cfg.distribution {
        let start = std::time::Instant::now();
        let mut times = crate::distribute::DistributedTimes::default();
        let outputs = crate::distribute::compile(job, distribution, &queue, threads, &mut times)?;
        distributed = Some(times);
        for (p, object, outcome) in outputs {
            store(p, &object, &outcome);
            results[p as usize] = Some(Ok(PartitionOutput {
                object,
                outcome,
                time: start.elapsed(),
                cached: false,
            }));
        }
    } else {
        let done = in_parallel(&queue, threads, |&p| {
            let start = std::time::Instant::now();
            let (object, outcome) = compile_isolated(job, p)?;
            store(p, &object, &outcome);
            Ok(PartitionOutput {
                object,
                outcome,
                time: start.elapsed(),
                cached: false,
            })
        });
        for (&p, result) in queue.iter().zip(done) {
            results[p as usize] = result;
        }
    }
    let mut compiled = Compiled {
        objects: Vec::with_capacity(count as usize),
        outcome: CallOutcome::default(),
        times: Vec::with_capacity(count as usize),
        cached: Vec::with_capacity(count as usize),
        remark_files: Vec::new(),
        distributed,
    };
    for result in results {
        let Some(result) = result else {
            continue;
        };
        let out = match result {
            Ok(out) => out,
            Err(e) => {
                // No half-written remarks are left behind.
                if let Some((path, _)) = &job.cfg.pipeline_remarks {
                    for p in 0..count {
                        let _ = std::fs::remove_file(remark_file(path, count, p));
                    }
                }
                return Err(e);
            }
        };
        compiled.objects.push(out.object);
        compiled.times.push(out.time);
        compiled.cached.push(out.cached);
        compiled.outcome.merge(out.outcome);
    }
    if compiled.objects.len() != count as usize {
        return Err(LtoError::Llvm(
            "internal error: a partition was not compiled".into(),
        ));
    }
    if job.cfg.emit == rld_lto_api::Emit::Object {
        crate::cut_check::check_objects(&compiled.objects).map_err(|e| {
            LtoError::Llvm(format!(
                "internal error: the partitions' objects do not fit together: {e}"
            ))
        })?;
    }
    compiled.outcome.finish();
    if let Some((path, _)) = &job.cfg.pipeline_remarks {
        compiled.remark_files = (0..count).map(|p| remark_file(path, count, p)).collect();
    }
    Ok(compiled)
}

/// Runs `work` on every item, `threads` at a time, items taken in order; after a failure no
/// further item starts. Each item's result, `None` for one that did not start.
pub(crate) fn in_parallel<I: Sync, T: Send>(
    items: &[I],
    threads: usize,
    work: impl Fn(&I) -> Result<T, LtoError> + Sync,
) -> Vec<Option<Result<T, LtoError>>> {
    let results: std::sync::Mutex<Vec<Option<Result<T, LtoError>>>> =
        std::sync::Mutex::new(items.iter().map(|_| None).collect());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let worker = || loop {
        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(item) = items.get(i) else {
            break;
        };
        let result = work(item);
        let failed = result.is_err();
        results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
        if failed {
            // Stop handing out work; the caller reports the first error in its order.
            next.store(items.len(), std::sync::atomic::Ordering::Relaxed);
        }
    };
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        worker();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                // Code generation recurses deeply on big functions: give each worker the
                // main thread's stack size.
                std::thread::Builder::new()
                    .stack_size(64 << 20)
                    .spawn_scoped(s, worker)
                    .expect("cannot start an LTO thread");
            }
        });
    }
    results.into_inner().unwrap_or_else(|e| e.into_inner())
}

struct PartitionOutput {
    object: Vec<u8>,
    outcome: CallOutcome,
    time: std::time::Duration,
    cached: bool,
}

/// The cache directory and every partition's key, when the cache applies.
fn cache_keys(job: &Job) -> Option<(PathBuf, Vec<u128>)> {
    use rayon::prelude::*;
    let dir = job.cfg.cache_dir.clone()?;
    // A cached object would leave its `.dwo` file unwritten; bitcode and assembly are
    // not objects.
    if job.cfg.emit != rld_lto_api::Emit::Object
        || job.cfg.save_temps.is_some()
        || job.cfg.pipeline_remarks.is_some()
        || job.cfg.dwo_dir.is_some()
        // A pass plugin's code decides the output, and the key cannot see it.
        || !job.cfg.pipeline.plugins.is_empty()
    {
        return None;
    }
    // The profiles' contents decide the code as much as the bitcode does.
    let profiles: Vec<u128> = job
        .cfg
        .profile
        .inputs()
        .iter()
        .map(|p| std::fs::read(p).map(|bytes| xxhash_rust::xxh3::xxh3_128(&bytes)))
        .collect::<Result<_, _>>()
        .ok()?;
    let hashes: Vec<u128> = job
        .inputs
        .par_iter()
        .map(|i| xxhash_rust::xxh3::xxh3_128(i.data))
        .collect();
    let keys = (0..job.partitions.count())
        .map(|p| crate::object_cache::key(job, p, &hashes, &profiles))
        .collect();
    Some((dir, keys))
}

type PartitionResult = Result<PartitionOutput, LtoError>;

impl CallOutcome {
    fn merge(&mut self, other: CallOutcome) {
        self.annotated.extend(other.annotated);
        self.promoted.extend(other.promoted);
        self.call_attributes.extend(other.call_attributes);
        self.alias.functions += other.alias.functions;
        self.alias.instructions += other.alias.instructions;
        self.alias.attributes.extend(other.alias.attributes);
        self.alias_skipped.extend(other.alias_skipped);
        self.sites_skipped.extend(other.sites_skipped);
        self.alias_time += other.alias_time;
        self.bodies += other.bodies;
        self.bodies_read += other.bodies_read;
    }

    /// A site or module reported by several partitions (a copied function's sites are
    /// promoted in every copy) counts once.
    fn finish(&mut self) {
        for list in [&mut self.annotated, &mut self.promoted] {
            list.sort_unstable();
            list.dedup();
        }
        for list in [&mut self.alias_skipped, &mut self.sites_skipped] {
            list.sort_by(|a, b| a.0.cmp(&b.0));
            list.dedup_by(|a, b| a.0 == b.0);
        }
        self.alias.attributes.sort();
        self.alias.attributes.dedup();
        self.call_attributes.sort();
        self.call_attributes.dedup_by(|a, b| a.0 == b.0);
    }
}

/// The file partition `p` writes LLVM's remarks to: the final one for a single partition.
fn remark_file(path: &Path, count: u32, p: u32) -> PathBuf {
    if count == 1 {
        return path.to_path_buf();
    }
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".part{p}"));
    name.into()
}

/// Compiles partition `p` in a child process of its own (`isolate::in_child`) where this
/// process works in children, else (or where no child can be started) in this one. The
/// child's memory is the child's: a process's peak is one partition's compilation on top
/// of what the linker holds, not every partition being compiled at once, and LLVM's
/// structures go with the child without being torn down.
fn compile_isolated(job: &Job, p: u32) -> Result<(Vec<u8>, CallOutcome), LtoError> {
    let compile = || compile_partition(job, p);
    let here = || compile().map(|(object, outcome)| (object.to_vec(), outcome));
    if !crate::in_children() {
        return here();
    }
    isolated(&format!("compiling partition {p}"), compile).unwrap_or_else(here)
}

/// Runs `work` in a forked child (`isolate::in_child`) and passes its object and outcome
/// back; None where no child could be started.
pub(crate) fn isolated<O: AsRef<[u8]>>(
    what: &str,
    work: impl FnOnce() -> Result<(O, CallOutcome), LtoError>,
) -> Option<Result<(Vec<u8>, CallOutcome), LtoError>> {
    let bytes = crate::isolate::in_child(what, || {
        let (object, outcome) = work()?;
        // The object is copied once, into a buffer of the frame's size.
        let object = object.as_ref();
        let mut bytes = Vec::with_capacity(object.len() + 512);
        bytes.extend_from_slice(&(outcome.alias_time.as_nanos() as u64).to_le_bytes());
        crate::object_cache::encode_into(&mut bytes, object, &outcome);
        Ok(bytes)
    })?;
    Some(bytes.and_then(|bytes| {
        let garbage = || LtoError::Llvm(format!("{what}: the process sent garbage"));
        let nanos = u64::from_le_bytes(*bytes.first_chunk::<8>().ok_or_else(garbage)?);
        let (object, mut outcome) =
            crate::object_cache::decode_in_place(bytes, 8).ok_or_else(garbage)?;
        outcome.alias_time = std::time::Duration::from_nanos(nanos);
        Ok((object, outcome))
    }))
}

/// Reads, links, optimizes and compiles partition `p` in a context of its own.
fn compile_partition(
    job: &Job,
    p: u32,
) -> Result<(crate::codegen::Emitted, CallOutcome), LtoError> {
    let cfg = job.cfg;
    let ctx = Context::create();
    let (module, outcome) = prepare_partition(&ctx, job, p)?;
    let settings = codegen_settings(cfg, job.partitions.count(), p);
    let bytes = crate::codegen::optimize_and_emit(&ctx, &module, &settings, |module| {
        save_temp(cfg, &format!("{p}.4.opt.bc"), |path| {
            module.write_bitcode_to_path(path)
        })
    })?;
    save_object_temp(cfg, p, &bytes)?;
    Ok((bytes, outcome))
}

/// A profile LLVM cannot open would stop each partition's compilation with LLVM's own
/// message (and its exit): refused once, naming the file, before any starts.
fn check_profile_files(profile: &rld_lto_api::ProfileOptions) -> Result<(), LtoError> {
    for path in profile.inputs() {
        std::fs::File::open(path).map_err(|e| {
            LtoError::Llvm(format!("cannot read the profile {}: {e}", path.display()))
        })?;
    }
    Ok(())
}

/// How partition `p` of `count` is optimized and compiled.
pub(crate) fn codegen_settings(cfg: &LtoConfig, count: u32, p: u32) -> CodegenSettings {
    CodegenSettings {
        opt_level: cfg.opt_level,
        cg_opt_level: cfg.cg_opt_level,
        cpu: cfg.cpu.clone().unwrap_or_else(|| "x86-64".to_string()),
        pic: cfg.pic,
        remarks: cfg
            .pipeline_remarks
            .as_ref()
            .map(|(path, passes)| RemarkSettings {
                path: remark_file(path, count, p),
                passes: passes.clone(),
                with_hotness: cfg.remarks_with_hotness,
                hotness_threshold: cfg.remarks_hotness_threshold,
            }),
        profile: cfg.profile.clone(),
        pipeline: cfg.pipeline.clone(),
        emit: cfg.emit,
        dwo: cfg.dwo_dir.as_ref().map(|dir| dir.join(format!("{p}.dwo"))),
    }
}

/// `--save-temps`: partition `p`'s object under lld's names: `out.lto.o`, then
/// `out.lto.1.o`, `out.lto.2.o`, ...
pub(crate) fn save_object_temp(cfg: &LtoConfig, p: u32, bytes: &[u8]) -> Result<(), LtoError> {
    let object_name = if p == 0 {
        "lto.o".to_string()
    } else {
        format!("lto.{p}.o")
    };
    save_temp(cfg, &object_name, |path| {
        std::fs::write(path, bytes).is_ok()
    })
}

/// Builds partition `p`'s module in `ctx`: its modules read, each global given its form
/// there, linked into one, the whole-program decisions applied (internalization, call
/// plans, alias scopes, attributes), and verified: what LLVM's pipeline starts from.
pub(crate) fn prepare_partition<'ctx, 'a: 'ctx>(
    ctx: &'ctx Context,
    job: &Job<'a>,
    p: u32,
) -> Result<(Module<'ctx>, CallOutcome), LtoError> {
    let cfg = job.cfg;
    let mut merged: Option<Module> = None;
    // Linkage changes wait until every module is linked: an internal definition would no
    // longer satisfy the other modules' external declarations of the same name.
    let mut after_link = AfterLink::default();
    let mut outcome = CallOutcome::default();
    let mut next_in_order = 0;
    for &m in job.partitions.modules(p) {
        let input = &job.inputs[m as usize];
        let module = crate::fatal::reading(input.name, || {
            crate::shim::parse_lazy(ctx, input.name, input.data)
        })
        .map_err(|msg| LtoError::BadBitcode {
            file: input.name.to_string(),
            msg,
        })?;
        let read = |module: &Module| {
            crate::fatal::reading(input.name, || crate::shim::materialize_all(module)).map_err(
                |msg| LtoError::BadBitcode {
                    file: input.name.to_string(),
                    msg,
                },
            )
        };
        let read_first = job
            .label_addresses
            .get(m as usize)
            .copied()
            .unwrap_or(false);
        if read_first {
            read(&module)?;
        }
        let globals = module_globals(&module);
        let actions = job.actions.get(m as usize).map_or(&[][..], Vec::as_slice);
        let bodies = function_bodies(&globals);
        outcome.bodies += bodies;
        let layout = crate::ir::DataLayout::of_module(&module);
        // Taken while the list is the summary's: placing makes declarations of aliases
        // (new functions, which shift the indices of every variable and alias).
        // Only where a list exists (as it may in no module).
        let has_structors = ["llvm.global_ctors", "llvm.global_dtors"]
            .iter()
            .any(|name| crate::ir::named_global(&module, name).is_some());
        let dropped = if has_structors {
            dropped_functions(&globals, actions)
        } else {
            Default::default()
        };
        place_globals(job, p, m, &globals, actions, layout, &mut after_link);
        // What is left is what materializing reads (listed again: an alias made a
        // declaration is gone from the module, and from memory).
        outcome.bodies_read += if read_first {
            bodies
        } else {
            function_bodies(&module_globals(&module))
        };
        let home = job.partitions.is_home(p, m);
        if !home {
            // Module-level inline asm may define symbols: one partition emits it.
            module.set_inline_assembly("");
        }
        if job.partitions.count() > 1 {
            crate::shim::trim_debug_info(&module, home);
        }
        read(&module)?;
        // Reading the bodies may have replaced intrinsic declarations: the old values are
        // gone, and the list is now the summary's (up to the intrinsics).
        let globals = module_globals(&module);
        tag_sites(ctx, &globals, m, job, &mut outcome);
        annotate_aliases(ctx, &module, m, p, job, &mut outcome);
        let keep_keys = job.partitions.count() == 1;
        rewrite_structor_lists(&module, &dropped, keep_keys, &mut after_link);
        next_in_order = crate::shim::number_in_link_order(&module, next_in_order);
        match &merged {
            None => merged = Some(module),
            Some(dest) => dest.link_in_module(module).map_err(|e| {
                LtoError::Llvm(format!("linking {}: {}", input.name, e.to_string().trim()))
            })?,
        }
    }
    let Some(module) = merged else {
        return Err(LtoError::Llvm("no bitcode modules to compile".into()));
    };
    // The code in lld's order: linked as lld links the modules, the same functions would
    // come out elsewhere (and run at other addresses).
    crate::shim::sort_in_link_order(&module);
    // Never a program without a definition the partition owns: whatever the module linker
    // left out (a COMDAT it took from an earlier module, say) is an error here.
    for g in module_globals(&module) {
        let name = g.name();
        if after_link.defined.remove(&name) && g.is_declaration() {
            return Err(dropped_definition(&name));
        }
        if let Some(&change) = after_link.changes.get(&name) {
            change.apply(g);
        }
        // What another partition defines: its callers here still know what it touches.
        if g.global_kind() == Some(GlobalKind::Function) && g.is_declaration() {
            if let Some(&attributes) = job.declared_attributes.get(&name) {
                crate::alias_scopes::add_attributes(ctx, g, attributes);
            }
        }
    }
    if let Some(name) = after_link.defined.iter().min() {
        return Err(dropped_definition(name));
    }
    // Before the pipeline, so the inliner sees the promoted direct calls.
    for (key, call) in promote::tagged_sites(ctx, &module) {
        let Some(site) = parse_site_key(&key) else {
            continue;
        };
        let Some(plan) = job.plans.sites.get(&site) else {
            continue;
        };
        match promote::apply_plan(ctx, &module, call, plan) {
            promote::Applied::Nothing => {}
            promote::Applied::Annotated(added) => {
                outcome.annotated.push(site);
                if !added.is_empty() {
                    outcome.call_attributes.push((site, added));
                }
            }
            promote::Applied::Promoted => {
                outcome.annotated.push(site);
                outcome.promoted.push(site);
            }
        }
    }
    // Before the verifier, so that a partition it rejects can be looked at.
    save_temp(cfg, &format!("{p}.0.preopt.bc"), |path| {
        module.write_bitcode_to_path(path)
    })?;
    if let Err(e) = module.verify() {
        return Err(LtoError::Llvm(format!(
            "internal error: partition {p} is invalid IR before optimization: {}",
            e.to_string().trim()
        )));
    }
    Ok((module, outcome))
}

fn parse_site_key(key: &str) -> Option<(u32, u32)> {
    let (m, id) = key.split_once('.')?;
    Some((m.parse().ok()?, id.parse().ok()?))
}

/// Before linking: tags the planned call sites whose caller has its body here, so they can
/// be found in the merged module. The summary says where each is (caller, position); the
/// caller must still have the shape the summary recorded, or none of the module's sites is
/// used (a stale summary's positions cannot be trusted), and a position that is not an
/// indirect call is left alone.
fn tag_sites(
    ctx: &Context,
    globals: &[crate::ir::Value],
    m: u32,
    job: &Job,
    outcome: &mut CallOutcome,
) {
    let mut by_caller: BTreeMap<u32, Vec<(u32, u32, &SitePlan)>> = BTreeMap::new();
    for (&(pm, id), plan) in &job.plans.sites {
        if pm == m {
            by_caller
                .entry(plan.caller)
                .or_default()
                .push((plan.instruction, id, plan));
        }
    }
    let mut checked = Vec::with_capacity(by_caller.len());
    for (caller, sites) in by_caller {
        let Some(&f) = globals.get(caller as usize) else {
            continue;
        };
        if f.global_kind() != Some(GlobalKind::Function) || f.is_declaration() {
            continue;
        }
        match crate::alias_scopes::checked_body(globals, caller, &sites[0].2.caller_shape) {
            Ok(instructions) => checked.push((instructions, sites)),
            Err(mismatch) => {
                let name = job.inputs[m as usize].name.to_string();
                outcome.sites_skipped.push((name, mismatch));
                return;
            }
        }
    }
    for (instructions, sites) in checked {
        for (position, id, _) in sites {
            let Some(&inst) = instructions.get(position as usize) else {
                continue;
            };
            match inst.called_value() {
                Some(callee) if !callee.is_inline_asm() && callee.global_kind().is_none() => {
                    promote::tag_site(ctx, inst, &format!("{m}.{id}"))
                }
                _ => {}
            }
        }
    }
}

/// Writes the alias analysis' metadata and attributes into the functions of module `m`
/// that partition `p` holds; only the ones it owns are counted.
fn annotate_aliases(
    ctx: &Context,
    module: &Module,
    m: u32,
    p: u32,
    job: &Job,
    outcome: &mut CallOutcome,
) {
    let present = |function: u32| {
        job.partitions.placement(
            p,
            rld_summaries::GlobalId {
                module: m,
                index: function,
            },
        )
    };
    let functions = job
        .aliases
        .modules
        .get(m as usize)
        .map_or(&[][..], Vec::as_slice);
    let attributes = job
        .aliases
        .attributes
        .get(m as usize)
        .map_or(&[][..], Vec::as_slice);
    for own in [true, false] {
        let wanted = |f: u32| match present(f) {
            Placement::Own => own,
            Placement::Copy => !own,
            Placement::Elsewhere => false,
        };
        let functions: Vec<_> = functions
            .iter()
            .filter(|f| wanted(f.function))
            .cloned()
            .collect();
        let attributes: Vec<_> = attributes
            .iter()
            .filter(|a| wanted(a.function))
            .cloned()
            .collect();
        if functions.is_empty() && attributes.is_empty() {
            continue;
        }
        let start = std::time::Instant::now();
        match crate::alias_scopes::annotate(ctx, module, m, &functions, &attributes) {
            Ok(a) if own => {
                outcome.alias.functions += a.functions;
                outcome.alias.instructions += a.instructions;
                outcome.alias.attributes.extend(a.attributes);
            }
            Ok(_) => {}
            Err(mismatch) => {
                let name = job.inputs[m as usize].name.to_string();
                outcome.alias_skipped.push((name, mismatch));
            }
        }
        outcome.alias_time += start.elapsed();
    }
}

/// Writes a `--save-temps` file: `out.SUFFIX`.
fn save_temp(
    cfg: &LtoConfig,
    suffix: &str,
    write: impl FnOnce(&std::path::Path) -> bool,
) -> Result<(), LtoError> {
    let Some(out) = &cfg.save_temps else {
        return Ok(());
    };
    let mut name = out.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    let path = PathBuf::from(name);
    if write(&path) {
        Ok(())
    } else {
        Err(LtoError::Io {
            path: path.display().to_string(),
            source: std::io::Error::other("cannot write --save-temps file"),
        })
    }
}

/// What is done by name once the partition's modules are linked (only non-local names are,
/// and those are unique).
#[derive(Default)]
struct AfterLink {
    /// Linkage changes.
    changes: HashMap<String, Change>,
    /// The non-local definitions the partition keeps (owns, or copies), which must still be
    /// definitions in the merged module.
    defined: std::collections::HashSet<String>,
}

fn dropped_definition(name: &str) -> LtoError {
    LtoError::Llvm(format!(
        "internal error: the module linker left out the definition of {name}"
    ))
}

/// A linkage change made once the partition's modules are linked (by name: only non-local
/// names are changed after linking, and those are unique).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// Internal linkage (internalized).
    Internalize,
    /// Another partition's shared definition: a hidden declaration.
    ShareDeclaration,
    /// A copy for inlining: `available_externally`.
    Copy,
}

impl Change {
    fn apply(self, g: crate::ir::Value) {
        match self {
            Change::Internalize => {
                g.set_linkage(Linkage::Internal);
                g.set_default_visibility();
                if g.global_kind() != Some(GlobalKind::Alias) {
                    g.clear_comdat();
                }
            }
            Change::ShareDeclaration => g.set_hidden_visibility(),
            Change::Copy => g.set_linkage(Linkage::AvailableExternally),
        }
    }
}

/// A linkonce definition made weak, which neither the module linker nor the optimizer may
/// drop.
fn keep_weak(g: crate::ir::Value) {
    match g.linkage() {
        Linkage::LinkOnceODR => g.set_linkage(Linkage::WeakODR),
        Linkage::LinkOnceAny => g.set_linkage(Linkage::WeakAny),
        _ => {}
    }
}

/// Gives every global of module `m` its form in partition `p`: a definition it owns (with
/// the linkage the LTO decisions give it), a copy for inlining, or a declaration. Shared
/// locals get their unique names here, before linking, in every partition alike.
fn place_globals(
    job: &Job,
    p: u32,
    m: u32,
    globals: &[crate::ir::Value],
    actions: &[Action],
    layout: crate::ir::DataLayout,
    after_link: &mut AfterLink,
) {
    let mut for_aliases = aliased_elsewhere(job, p, m, globals, layout);
    // Local targets of promoted calls need names other modules can use (the same scheme).
    let renamed: std::collections::HashSet<u32> = job
        .plans
        .renames
        .get(m as usize)
        .into_iter()
        .flatten()
        .map(|&(index, _)| index)
        .collect();
    for (i, &g) in globals.iter().enumerate() {
        if g.is_intrinsic() {
            // The rest are intrinsics, which are declarations as they are, and whose
            // numbering differs from the summary's (see `module_globals`).
            break;
        }
        let id = rld_summaries::GlobalId {
            module: m,
            index: i as u32,
        };
        let action = actions.get(i).copied().unwrap_or(Action::Keep);
        let linkage = g.linkage();
        let local = linkage.is_local();
        let shared = job.partitions.is_shared(id);
        let placement = job.partitions.placement(p, id);
        if local {
            // Named across partitions, or about to become a declaration (which cannot be
            // local): a name no other module uses.
            if shared || placement == Placement::Elsewhere || renamed.contains(&(i as u32)) {
                let private = linkage == rld_summaries::Linkage::Private;
                g.set_name(&partition::shared_name(&g.name(), m, private));
            }
            // What the others name is a hidden symbol (not local first: a local cannot be
            // hidden).
            if shared {
                g.set_linkage(Linkage::External);
                g.set_hidden_visibility();
            }
        }
        match placement {
            Placement::Own => {
                // The module linker takes a linkonce definition only where something
                // linked from the same module refers to it. What refers to the prevailing
                // copy may be anywhere: in a module linked later (its own copy dropped to
                // a declaration), in another partition, outside the LTO unit. So every
                // owned linkonce definition is weak until the modules are linked (as
                // LLVM's own LTO makes prevailing linkonce definitions weak).
                keep_weak(g);
                match action {
                    Action::Internalize if shared => g.set_hidden_visibility(),
                    Action::Internalize => {
                        after_link.changes.insert(g.name(), Change::Internalize);
                    }
                    Action::KeepWeak | Action::Keep | Action::Drop => {}
                }
                if !g.linkage().is_local() {
                    after_link.defined.insert(g.name());
                }
            }
            Placement::Copy => {
                g.clear_comdat();
                if local && !shared {
                    // Only its own module refers to it: linked with that module's code.
                    g.set_linkage(Linkage::AvailableExternally);
                } else {
                    // The module linker links an `available_externally` body only where
                    // the destination already refers to it, which misses callers in
                    // modules linked later: the copy is an ordinary definition until every
                    // module is in.
                    g.set_linkage(Linkage::External);
                    after_link.changes.insert(g.name(), Change::Copy);
                    after_link.defined.insert(g.name());
                }
            }
            Placement::Elsewhere => {
                // Named first: an alias made a declaration is a new value (the alias is
                // erased), which takes over the name.
                if shared {
                    after_link
                        .changes
                        .insert(g.name(), Change::ShareDeclaration);
                }
                match for_aliases.remove(&i) {
                    Some(aliases) if keep_for_aliases(g, m, &aliases) => {}
                    _ => to_declaration(g),
                }
            }
        }
    }
}

/// The definitions of module `m` that partition `p` does not keep (a copy that does not
/// prevail, or one another partition owns) but that an alias it owns stands for: by index,
/// those aliases and the byte offset each points at.
fn aliased_elsewhere(
    job: &Job,
    p: u32,
    m: u32,
    globals: &[crate::ir::Value],
    layout: crate::ir::DataLayout,
) -> HashMap<usize, Vec<(crate::ir::Value, i64)>> {
    let placement = |i: usize| {
        job.partitions.placement(
            p,
            rld_summaries::GlobalId {
                module: m,
                index: i as u32,
            },
        )
    };
    let mut out: HashMap<usize, Vec<(crate::ir::Value, i64)>> = HashMap::new();
    let mut index: Option<HashMap<crate::ir::Value, usize>> = None;
    for (i, &a) in globals.iter().enumerate() {
        if a.global_kind() != Some(GlobalKind::Alias) || placement(i) != Placement::Own {
            continue;
        }
        let Some((object, offset)) = aliasee_object(a, layout) else {
            continue;
        };
        let index =
            index.get_or_insert_with(|| globals.iter().enumerate().map(|(i, &g)| (g, i)).collect());
        if let Some(&j) = index.get(&object) {
            if placement(j) == Placement::Elsewhere && !object.is_declaration() {
                out.entry(j).or_default().push((a, offset));
            }
        }
    }
    out
}

/// The function or variable an alias stands for (through casts, constant offsets and other
/// aliases), and the offset into it.
fn aliasee_object(
    alias: crate::ir::Value,
    layout: crate::ir::DataLayout,
) -> Option<(crate::ir::Value, i64)> {
    use inkwell::llvm_sys::LLVMOpcode;
    let mut v = alias.aliasee()?;
    let mut offset = 0i64;
    for _ in 0..32 {
        v = v.strip_casts();
        match v.global_kind() {
            Some(GlobalKind::Function | GlobalKind::Variable) => return Some((v, offset)),
            Some(GlobalKind::Alias) => v = v.aliasee()?,
            Some(GlobalKind::IFunc) => return None,
            None if v.is_constant_expr() && v.opcode() == Some(LLVMOpcode::LLVMGetElementPtr) => {
                offset = offset.checked_add(v.gep_offset(layout)?)?;
                v = *v.operands().first()?;
            }
            None => return None,
        }
    }
    None
}

/// A definition partition `p` does not keep (a copy that does not prevail, say), which an
/// alias it owns stands for (a C++ complete-object destructor `D1` aliasing the base-object
/// `D2` of the same group, where another module's `D2` prevails). The alias must stay a
/// definition at this body's address, as the linker would have left it; LLVM's module linker
/// copies an aliasee that does not prevail for its aliases, but only with its body. So the
/// body stays, as a local of a name no other module uses (not in its COMDAT, which may be
/// one the merged module already has), the aliases point at it, and everything else in the
/// module refers to a new declaration of the symbol, as `to_declaration` leaves it. False
/// (nothing changed) where that cannot be done.
fn keep_for_aliases(g: crate::ir::Value, m: u32, aliases: &[(crate::ir::Value, i64)]) -> bool {
    use inkwell::llvm_sys::core::*;
    use inkwell::llvm_sys::{LLVMAttributeFunctionIndex, LLVMAttributeReturnIndex};
    let kind = g.global_kind();
    if !matches!(kind, Some(GlobalKind::Function | GlobalKind::Variable)) || g.is_declaration() {
        return false;
    }
    let name = g.name();
    let Ok(c_name) = std::ffi::CString::new(name.as_str()) else {
        return false;
    };
    let raw = g.raw();
    // SAFETY: `g` is a function or variable definition of a live module, and the aliases
    // are aliases of the same module; every value made here belongs to that module and
    // has `g`'s type, so `g`'s uses may refer to it instead.
    unsafe {
        let module = LLVMGetGlobalParent(raw);
        let value_type = LLVMGlobalGetValueType(raw);
        g.set_name(&partition::shared_name(&name, m, false));
        let decl = if kind == Some(GlobalKind::Function) {
            let f = LLVMAddFunction(module, c_name.as_ptr(), value_type);
            LLVMSetFunctionCallConv(f, LLVMGetFunctionCallConv(raw));
            let params = LLVMCountParams(raw);
            let places = [LLVMAttributeFunctionIndex, LLVMAttributeReturnIndex];
            for place in places.into_iter().chain(1..=params) {
                let n = LLVMGetAttributeCountAtIndex(raw, place) as usize;
                let mut attributes = vec![std::ptr::null_mut(); n];
                if n > 0 {
                    LLVMGetAttributesAtIndex(raw, place, attributes.as_mut_ptr());
                }
                for a in attributes {
                    LLVMAddAttributeAtIndex(f, place, a);
                }
            }
            f
        } else {
            let space = LLVMGetPointerAddressSpace(LLVMTypeOf(raw));
            let v = LLVMAddGlobalInAddressSpace(module, value_type, c_name.as_ptr(), space);
            LLVMSetThreadLocalMode(v, LLVMGetThreadLocalMode(raw));
            LLVMSetGlobalConstant(v, LLVMIsGlobalConstant(raw));
            LLVMSetExternallyInitialized(v, LLVMIsExternallyInitialized(raw));
            v
        };
        let decl_value = crate::ir::Value::from_raw(decl);
        if decl_value.name() != name {
            // The name is taken after all: undo.
            erase_new_global(decl, kind);
            g.set_name(&name);
            return false;
        }
        LLVMSetVisibility(decl, LLVMGetVisibility(raw));
        LLVMSetUnnamedAddress(decl, LLVMGetUnnamedAddress(raw));
        LLVMSetAlignment(decl, LLVMGetAlignment(raw));
        LLVMReplaceAllUsesWith(raw, decl);
        g.set_linkage(Linkage::Internal);
        g.set_default_visibility();
        g.clear_comdat();
        let context = LLVMGetModuleContext(module);
        for &(alias, offset) in aliases {
            let ty = LLVMTypeOf(alias.raw());
            let target = if offset == 0 {
                LLVMConstPointerCast(raw, ty)
            } else {
                let byte = LLVMInt8TypeInContext(context);
                let space = LLVMGetPointerAddressSpace(LLVMTypeOf(raw));
                let base = LLVMConstPointerCast(raw, LLVMPointerType(byte, space));
                let mut at = [LLVMConstInt(
                    LLVMInt64TypeInContext(context),
                    offset as u64,
                    1,
                )];
                let moved = LLVMConstInBoundsGEP2(byte, base, at.as_mut_ptr(), 1);
                LLVMConstPointerCast(moved, ty)
            };
            LLVMAliasSetAliasee(alias.raw(), target);
        }
    }
    true
}

/// Erases a global this module just made and nothing uses.
///
/// # Safety
/// `v` is a function (`kind` says so) or global variable without uses.
unsafe fn erase_new_global(v: inkwell::llvm_sys::prelude::LLVMValueRef, kind: Option<GlobalKind>) {
    if kind == Some(GlobalKind::Function) {
        inkwell::llvm_sys::core::LLVMDeleteFunction(v)
    } else {
        inkwell::llvm_sys::core::LLVMDeleteGlobal(v)
    }
}

/// Takes the constructors and destructors of the functions the link drops out of the
/// module's `llvm.global_ctors`/`llvm.global_dtors` (the initializer of a COMDAT group
/// another module's copy of prevails: a native link discards it with the group), and,
/// between partitions, the keys out of the rest, so that the module linker keeps every one
/// (see [`crate::ir::Value::rewrite_structors`]).
fn rewrite_structor_lists(
    module: &Module,
    dropped: &std::collections::HashSet<crate::ir::Value>,
    keep_keys: bool,
    after_link: &mut AfterLink,
) {
    for name in ["llvm.global_ctors", "llvm.global_dtors"] {
        // The `llvm.*` lists another partition emits are gone from this module already.
        if let Some(list) = crate::ir::named_global(module, name) {
            if !list.rewrite_structors(|f| !dropped.contains(&f), keep_keys) {
                // Nothing left to run: the list is gone, as it may be in every module.
                after_link.defined.remove(name);
            }
        }
    }
}

/// The functions the link drops, from `globals` numbered as the summary numbers them.
/// Functions outlive what placing does to a module (it deletes bodies, not functions),
/// so the set stays valid.
fn dropped_functions(
    globals: &[crate::ir::Value],
    actions: &[Action],
) -> std::collections::HashSet<crate::ir::Value> {
    globals
        .iter()
        .zip(actions)
        .filter(|&(g, &a)| {
            a == Action::Drop && g.global_kind() == Some(GlobalKind::Function) && !g.is_intrinsic()
        })
        .map(|(&g, _)| g)
        .collect()
}

/// How many of `globals` are functions with a body (read or still in the bitcode).
fn function_bodies(globals: &[crate::ir::Value]) -> u64 {
    globals
        .iter()
        .filter(|g| g.global_kind() == Some(GlobalKind::Function) && !g.is_declaration())
        .count() as u64
}

/// Turns a definition another partition owns (or that is dropped) into a declaration.
fn to_declaration(g: crate::ir::Value) {
    match g.global_kind() {
        Some(GlobalKind::Function) if !g.is_declaration() => {
            crate::shim::delete_function_body(g);
            g.clear_comdat();
            g.set_linkage(Linkage::External);
        }
        Some(GlobalKind::Variable) if !g.is_declaration() => {
            if g.name().starts_with("llvm.") {
                // `llvm.global_ctors`, `llvm.used`, ...: the owning partition emits them.
                g.delete_global_variable();
                return;
            }
            g.remove_initializer();
            g.clear_comdat();
            g.set_linkage(Linkage::External);
        }
        Some(GlobalKind::Alias) | Some(GlobalKind::IFunc) => crate::shim::alias_to_declaration(g),
        _ => {}
    }
}
