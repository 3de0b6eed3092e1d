//! Writes the whole-program alias analysis into a module as LLVM's scoped-noalias metadata
//! (`rld_summaries::alias`): per function a domain, per scope a node naming it, and on each
//! access `!alias.scope` and `!noalias` lists.
//!
//! Scope and domain nodes are identified by unique strings (`rld.aa.<module>.<function>`),
//! not by self-reference (LLVM-C cannot build distinct nodes): strings from different
//! modules and functions differ, so linking the modules keeps them apart.
//!
//! The summary names an access by its function's instruction position. Before annotating a
//! function, its instructions are checked against the shape the summary recorded (count
//! and a hash of the opcodes); a module with any mismatch (bitcode that changed since it
//! was summarized, a different instruction numbering) is left unannotated.

use crate::ir::{md_kind, md_node, md_string, module_globals, Value};
use inkwell::context::Context;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::module::Module;
use rld_summaries::alias::FunctionScopes;
use rld_summaries::FunctionShape;
use std::collections::HashMap;

/// Counts of one module's annotation.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Annotated {
    pub functions: usize,
    pub instructions: usize,
}

/// Why a module was not annotated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeMismatch {
    pub function: String,
    pub detail: String,
}

/// Annotates module number `m` (before it is linked); nothing changes when any function's
/// body differs from its summary.
pub fn annotate(
    ctx: &Context,
    module: &Module,
    m: u32,
    functions: &[FunctionScopes],
) -> Result<Annotated, ShapeMismatch> {
    let globals = module_globals(module);
    let mut bodies = Vec::with_capacity(functions.len());
    // Check every function first: a mismatch anywhere means the numbering cannot be
    // trusted for the module.
    for f in functions {
        let Some(&g) = globals.get(f.function as usize) else {
            return Err(ShapeMismatch {
                function: format!("#{}", f.function),
                detail: "no such global in the module".into(),
            });
        };
        let instructions = g.instructions();
        let shape =
            FunctionShape::of_opcodes(f.function, instructions.iter().map(|i| i.opcode_number()));
        if shape != f.shape {
            return Err(ShapeMismatch {
                function: g.name(),
                detail: format!(
                    "{} instructions (summary: {}), opcode hash {:016x} (summary: {:016x})",
                    shape.instructions,
                    f.shape.instructions,
                    shape.opcode_hash,
                    f.shape.opcode_hash
                ),
            });
        }
        bodies.push(instructions);
    }
    let ctx = ctx.raw();
    let scope_kind = md_kind(ctx, "alias.scope");
    let noalias_kind = md_kind(ctx, "noalias");
    let mut out = Annotated::default();
    for (f, instructions) in functions.iter().zip(bodies) {
        let prefix = format!("rld.aa.{m}.{}", f.function);
        let domain = md_node(ctx, &[md_string(ctx, &prefix)]);
        let scopes: Vec<LLVMMetadataRef> = (0..f.scopes)
            .map(|s| md_node(ctx, &[md_string(ctx, &format!("{prefix}.{s}")), domain]))
            .collect();
        let all = if f.scopes >= 64 {
            u64::MAX
        } else {
            (1u64 << f.scopes) - 1
        };
        let mut lists: HashMap<u64, LLVMMetadataRef> = HashMap::new();
        let mut list = |mask: u64| {
            *lists.entry(mask).or_insert_with(|| {
                let members: Vec<LLVMMetadataRef> = (0..f.scopes)
                    .filter(|s| mask & (1u64 << s) != 0)
                    .map(|s| scopes[s as usize])
                    .collect();
                md_node(ctx, &members)
            })
        };
        let mut annotated = 0;
        for &(position, mask) in &f.instructions {
            let noalias = all & !mask;
            // An access that may touch everything the function touches tells nothing.
            if noalias == 0 || mask == 0 {
                continue;
            }
            let Some(inst) = instructions.get(position as usize) else {
                continue;
            };
            let (scope_list, noalias_list) = (list(mask), list(noalias));
            set_metadata(ctx, *inst, scope_kind, scope_list);
            set_metadata(ctx, *inst, noalias_kind, noalias_list);
            annotated += 1;
        }
        if annotated > 0 {
            out.functions += 1;
            out.instructions += annotated;
        }
    }
    Ok(out)
}

/// Sets the scope list `md` of `kind` on `inst`, keeping the scopes of a list already there
/// (from `restrict` parameters the compiler inlined): each domain is judged on its own.
fn set_metadata(ctx: LLVMContextRef, inst: Value, kind: u32, md: LLVMMetadataRef) {
    // SAFETY: reading and attaching metadata of the instruction's own context; the operand
    // buffer is sized from LLVM's own count.
    unsafe {
        let existing = LLVMGetMetadata(inst.raw(), kind);
        let md = if existing.is_null() {
            md
        } else {
            let n = LLVMGetMDNodeNumOperands(existing) as usize;
            let mut ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n];
            LLVMGetMDNodeOperands(existing, ops.as_mut_ptr());
            let mut members: Vec<LLVMMetadataRef> = ops
                .into_iter()
                .filter(|v| !v.is_null())
                .map(|v| LLVMValueAsMetadata(v))
                .collect();
            let ours = LLVMMetadataAsValue(ctx, md);
            let k = LLVMGetMDNodeNumOperands(ours) as usize;
            let mut ours_ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); k];
            LLVMGetMDNodeOperands(ours, ours_ops.as_mut_ptr());
            members.extend(ours_ops.into_iter().map(|v| LLVMValueAsMetadata(v)));
            md_node(ctx, &members)
        };
        LLVMSetMetadata(inst.raw(), kind, LLVMMetadataAsValue(ctx, md));
    }
}
