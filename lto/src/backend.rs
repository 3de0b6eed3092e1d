//! The LTO backend: reads the prevailing bitcode modules into one LLVM context, applies the
//! combined index's decisions to each (drop, internalize, keep), links them into one module,
//! runs LLVM's LTO pipeline and emits an ELF relocatable object in memory.

use crate::error::LtoError;
use crate::ir::module_globals;
use crate::promote::{self, SitePlan};
use crate::summarize::parse_module;
use crate::BitcodeInput;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{FileType, InitializationConfig, Target, TargetTriple};
use rld_summaries::{GlobalKind, Linkage};
use std::collections::HashMap;
use std::path::PathBuf;

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
    /// Position-independent code (PIE and shared outputs).
    pub pic: bool,
    /// `-plugin-opt=mcpu=`; x86-64 by default.
    pub cpu: Option<String>,
    /// `--save-temps`: the output path; intermediate files are written beside it.
    pub save_temps: Option<PathBuf>,
    /// LLVM's own optimization remarks (inline, licm, asm-printer, ...): the YAML file to
    /// write them to and the pass filter.
    pub pipeline_remarks: Option<(PathBuf, Option<String>)>,
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
    /// Instructions and functions given scoped-noalias metadata.
    pub alias: crate::alias_scopes::Annotated,
    /// Modules left without it because their bodies differ from their summaries.
    pub alias_skipped: Vec<(String, crate::alias_scopes::ShapeMismatch)>,
    /// Time spent writing the alias metadata.
    pub alias_time: std::time::Duration,
}

/// Links, optimizes and compiles the modules; `actions[i]` is parallel to the globals of
/// module `i` (in `ir::module_globals` order, as in its summary).
pub fn compile(
    inputs: &[BitcodeInput],
    actions: &[Vec<Action>],
    plans: &CallPlans,
    aliases: &rld_summaries::alias::AliasPlan,
    cfg: &LtoConfig,
) -> Result<(Vec<u8>, CallOutcome), LtoError> {
    Target::initialize_x86(&InitializationConfig::default());
    crate::fatal::install_handler();
    let ctx = Context::create();
    let mut merged: Option<Module> = None;
    // Linkage changes wait until every module is linked: an internal definition would no
    // longer satisfy the other modules' external declarations of the same name.
    let mut after_link: HashMap<String, Action> = HashMap::new();
    let mut outcome = CallOutcome::default();
    for (m, (input, acts)) in inputs.iter().zip(actions).enumerate() {
        let module = parse_module(&ctx, input.name, input.data)?;
        prepare_sites(&ctx, &module, m as u32, plans);
        let functions = aliases.modules.get(m).map_or(&[][..], Vec::as_slice);
        let attributes = aliases.attributes.get(m).map_or(&[][..], Vec::as_slice);
        if !functions.is_empty() || !attributes.is_empty() {
            let start = std::time::Instant::now();
            match crate::alias_scopes::annotate(&ctx, &module, m as u32, functions, attributes) {
                Ok(a) => {
                    outcome.alias.functions += a.functions;
                    outcome.alias.instructions += a.instructions;
                    outcome.alias.attributes.extend(a.attributes);
                }
                Err(mismatch) => outcome
                    .alias_skipped
                    .push((input.name.to_string(), mismatch)),
            }
            outcome.alias_time += start.elapsed();
        }
        drop_globals(&module, acts, &mut after_link);
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
    for g in module_globals(&module) {
        if let Some(&action) = after_link.get(&g.name()) {
            change_linkage(g, action);
        }
    }
    // Before the pipeline, so the inliner sees the promoted direct calls.
    for (key, call) in promote::tagged_sites(&ctx, &module) {
        let Some(site) = parse_site_key(&key) else {
            continue;
        };
        let Some(plan) = plans.sites.get(&site) else {
            continue;
        };
        match promote::apply_plan(&ctx, &module, call, plan) {
            promote::Applied::Nothing => {}
            promote::Applied::Annotated => outcome.annotated.push(site),
            promote::Applied::Promoted => {
                outcome.annotated.push(site);
                outcome.promoted.push(site);
            }
        }
    }
    if let Err(e) = module.verify() {
        return Err(LtoError::Llvm(format!(
            "internal error: invalid IR after call promotion: {}",
            e.to_string().trim()
        )));
    }
    let triple = {
        let t = module.get_triple();
        if t.as_str().to_bytes().is_empty() {
            TargetTriple::create("x86_64-pc-linux-gnu")
        } else {
            t
        }
    };
    let cpu = cfg.cpu.as_deref().unwrap_or("x86-64");
    // The target machine lld-14's LTO uses (function and data sections, init_array, ...),
    // which LLVM-C cannot configure: made by the C++ shim.
    let tm = crate::shim::create_lto_target_machine(&triple, cpu, "", cfg.opt_level, cfg.pic)
        .ok_or_else(|| LtoError::Llvm(format!("cannot create a target machine for {cpu}")))?;
    let remarks = match &cfg.pipeline_remarks {
        Some((path, passes)) => Some(
            crate::shim::PipelineRemarks::begin(&ctx, path, passes.as_deref(), false)
                .map_err(|e| LtoError::Llvm(format!("optimization remarks: {e}")))?,
        ),
        None => None,
    };

    save_temp(cfg, "0.0.preopt.bc", |p| module.write_bitcode_to_path(p))?;
    let pipeline = if cfg.opt_level == 0 {
        "default<O0>".to_string()
    } else {
        format!("lto<O{}>", cfg.opt_level.min(3))
    };
    module
        .run_passes(&pipeline, &tm, PassBuilderOptions::create())
        .map_err(|e| LtoError::Llvm(format!("optimization failed: {}", e.to_string().trim())))?;
    save_temp(cfg, "0.4.opt.bc", |p| module.write_bitcode_to_path(p))?;
    let object = tm
        .write_to_memory_buffer(&module, FileType::Object)
        .map_err(|e| LtoError::Llvm(format!("code generation failed: {}", e.to_string().trim())))?;
    let bytes = object.as_slice().to_vec();
    if let Some(r) = remarks {
        r.finish()
            .map_err(|e| LtoError::Llvm(format!("optimization remarks: {e}")))?;
    }
    save_temp(cfg, "lto.o", |p| std::fs::write(p, &bytes).is_ok())?;
    Ok((bytes, outcome))
}

fn parse_site_key(key: &str) -> Option<(u32, u32)> {
    let (m, id) = key.split_once('.')?;
    Some((m.parse().ok()?, id.parse().ok()?))
}

/// Before linking: gives local CVP targets unique names and tags the planned call sites
/// (numbered as the summary numbers them: call-like instructions of defined functions, in
/// order, inline asm excluded).
fn prepare_sites(ctx: &Context, module: &Module, m: u32, plans: &CallPlans) {
    let globals = module_globals(module);
    if let Some(renames) = plans.renames.get(m as usize) {
        for (index, name) in renames {
            if let Some(g) = globals.get(*index as usize) {
                g.set_name(name);
            }
        }
    }
    if !plans.sites.keys().any(|&(pm, _)| pm == m) {
        return;
    }
    let mut id = 0u32;
    for g in &globals {
        if g.global_kind() != Some(GlobalKind::Function) || g.is_declaration() {
            continue;
        }
        for inst in g.instructions() {
            let Some(callee) = inst.called_value() else {
                continue;
            };
            if callee.is_inline_asm() {
                continue;
            }
            if plans.sites.contains_key(&(m, id)) {
                promote::tag_site(ctx, inst, &format!("{m}.{id}"));
            }
            id += 1;
        }
    }
}

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

/// Turns the dropped globals of one module into declarations, and notes the linkage
/// changes to make once all modules are linked.
fn drop_globals(module: &Module, actions: &[Action], after_link: &mut HashMap<String, Action>) {
    let globals = module_globals(module);
    for (&g, &action) in globals.iter().zip(actions) {
        match action {
            Action::Keep => {}
            Action::Drop => match g.global_kind() {
                Some(GlobalKind::Function) if !g.is_declaration() => {
                    crate::shim::delete_function_body(g);
                    g.clear_comdat();
                    g.set_linkage(Linkage::External);
                }
                Some(GlobalKind::Variable) if !g.is_declaration() => {
                    g.remove_initializer();
                    g.clear_comdat();
                    g.set_linkage(Linkage::External);
                }
                Some(GlobalKind::Alias) => crate::shim::alias_to_declaration(g),
                _ => {}
            },
            Action::Internalize | Action::KeepWeak => {
                if !g.is_declaration() {
                    after_link.insert(g.name(), action);
                }
            }
        }
    }
}

fn change_linkage(g: crate::ir::Value, action: Action) {
    match action {
        Action::Internalize => {
            g.set_linkage(Linkage::Internal);
            g.set_default_visibility();
            if g.global_kind() != Some(GlobalKind::Alias) {
                g.clear_comdat();
            }
        }
        Action::KeepWeak => match g.linkage() {
            Linkage::LinkOnceODR => g.set_linkage(Linkage::WeakODR),
            Linkage::LinkOnceAny => g.set_linkage(Linkage::WeakAny),
            _ => {}
        },
        Action::Keep | Action::Drop => {}
    }
}
