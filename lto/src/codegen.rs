//! The last step of a partition: LLVM's LTO pipeline and the code generator, from a module
//! with every whole-program decision applied to an ELF relocatable object. The in-process
//! backend runs it on the module it has just built; a distributed job (`rld --lto-backend`)
//! runs it on the same module read back from bitcode, with the same settings, so both give
//! the same bytes.

use crate::error::LtoError;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::targets::{FileType, TargetTriple};
use std::path::PathBuf;

/// Everything besides the module that the object depends on (and LLVM's own `-mllvm`
/// options, which are process-wide).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodegenSettings {
    /// 0..=3.
    pub opt_level: u8,
    /// `--lto-CGO`: the code generator's level, 0..=3 (else lld's: 3 at `opt_level` 3, 2
    /// below).
    pub cg_opt_level: Option<u8>,
    pub cpu: String,
    pub pic: bool,
    /// LLVM's own remarks for this partition, if asked for.
    pub remarks: Option<RemarkSettings>,
    /// Profiles the pipeline reads (or, for context-sensitive PGO, instruments for).
    pub profile: rld_lto_api::ProfileOptions,
    /// `--lto-newpm-passes`, `--lto-aa-pipeline`, `--lto-debug-pass-manager`.
    pub pipeline: Pipeline,
    /// An object, or (`--lto-emit-llvm`, `--lto-emit-asm`) bitcode or assembly.
    pub emit: rld_lto_api::Emit,
    /// Split DWARF: the `.dwo` file this partition's debug information goes to, the object
    /// keeping skeleton units that name it.
    pub dwo: Option<PathBuf>,
}

/// What LLVM's pass pipeline is, when it is not the default one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pipeline {
    /// The passes (LLVM's textual form) instead of `lto<On>`.
    pub passes: Option<String>,
    /// The alias analyses instead of LLVM's default set.
    pub aa: Option<String>,
    /// Pass plugins loaded into the pass builder, in order (`--load-pass-plugin`).
    pub plugins: Vec<std::path::PathBuf>,
    /// Print each pass as it runs.
    pub debug: bool,
}

/// Where LLVM's remarks of one partition go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemarkSettings {
    pub path: PathBuf,
    /// `--opt-remarks-passes`.
    pub passes: Option<String>,
    pub with_hotness: bool,
    /// LLVM's remarks of code run fewer times are left out; None: the profile's threshold.
    pub hotness_threshold: Option<u64>,
}

/// A compiled object in the buffer LLVM wrote it to: a child passes it on to its parent
/// from there, so a large object is not copied once more on the way.
pub struct Emitted(MemoryBuffer<'static>);

impl std::ops::Deref for Emitted {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.0.as_slice()
    }
}

impl AsRef<[u8]> for Emitted {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

/// Optimizes `module` with LLVM's LTO pipeline at `s.opt_level` and compiles it; `after_opt`
/// sees the optimized module (`--save-temps`).
pub fn optimize_and_emit(
    ctx: &Context,
    module: &Module,
    s: &CodegenSettings,
    after_opt: impl FnOnce(&Module) -> Result<(), LtoError>,
) -> Result<Emitted, LtoError> {
    let triple = {
        let t = module.get_triple();
        if t.as_str().to_bytes().is_empty() {
            TargetTriple::create("x86_64-pc-linux-gnu")
        } else {
            t
        }
    };
    // The target machine lld-22's LTO uses (function and data sections, init_array, ...),
    // which LLVM-C cannot configure: made by the C++ shim.
    let cg_level = s
        .cg_opt_level
        .unwrap_or(if s.opt_level >= 3 { 3 } else { 2 });
    let tm = crate::shim::create_lto_target_machine(&triple, &s.cpu, "", cg_level, s.pic)
        .ok_or_else(|| LtoError::Llvm(format!("cannot create a target machine for {}", s.cpu)))?;
    let remarks = match &s.remarks {
        Some(r) => Some(
            crate::shim::PipelineRemarks::begin(ctx, r)
                .map_err(|e| LtoError::Llvm(format!("optimization remarks: {e}")))?,
        ),
        None => None,
    };
    let pipeline = match &s.pipeline.passes {
        Some(passes) => passes.clone(),
        None if s.opt_level == 0 => "default<O0>".to_string(),
        None => format!("lto<O{}>", s.opt_level.min(3)),
    };
    // As lld's LTO configures the pipeline: the vectorizers run from -O2 on.
    crate::shim::run_lto_passes(module, &tm, &pipeline, s.opt_level > 1, s)
        .map_err(|e| LtoError::Llvm(format!("optimization failed: {}", e.trim())))?;
    after_opt(module)?;
    let object = match (&s.dwo, s.emit) {
        (_, rld_lto_api::Emit::Bitcode) => Ok(module.write_bitcode_to_memory()),
        (_, rld_lto_api::Emit::Assembly) => tm
            .write_to_memory_buffer(module, FileType::Assembly)
            .map_err(|e| e.to_string()),
        (Some(dwo), _) => crate::shim::emit_split_dwarf_object(&tm, module, dwo),
        (None, _) => tm
            .write_to_memory_buffer(module, FileType::Object)
            .map_err(|e| e.to_string()),
    }
    .map_err(|e| LtoError::Llvm(format!("code generation failed: {}", e.trim())))?;
    if let Some(r) = remarks {
        r.finish()
            .map_err(|e| LtoError::Llvm(format!("optimization remarks: {e}")))?;
    }
    Ok(Emitted(object))
}
