//! Writes the whole-program alias analysis into a module as LLVM's scoped-noalias metadata
//! (`rld_summaries::alias`): per function a domain, per scope a node naming it, and on each
//! access and call `!alias.scope` and `!noalias` lists; and the memory attributes
//! (`readnone`, `readonly`, `writeonly`, `nofree`) the whole-program mod/ref proves.
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
use crate::llvm_memory;
use inkwell::context::Context;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::module::Module;
use rld_summaries::alias::{FunctionAttributes, FunctionScopes, ScopeMask};
use rld_summaries::modref::MemoryAttributes;
use rld_summaries::FunctionShape;
use std::collections::HashMap;

/// Counts of one module's annotation.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Annotated {
    pub functions: usize,
    pub instructions: usize,
    /// Functions given attributes the IR did not have, with their names and what was
    /// added (`"readonly nofree"`).
    pub attributes: Vec<(String, String)>,
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
    attributes: &[FunctionAttributes],
) -> Result<Annotated, ShapeMismatch> {
    let globals = module_globals(module);
    // Check every function first: a mismatch anywhere means the numbering cannot be
    // trusted for the module.
    let mut bodies = Vec::with_capacity(functions.len());
    for f in functions {
        bodies.push(checked_body(&globals, f.function, &f.shape)?);
    }
    for a in attributes {
        checked_body(&globals, a.function, &a.shape)?;
    }
    let mut out = write_scopes(ctx, m, functions, bodies);
    for a in attributes {
        let f = globals[a.function as usize];
        let added = add_attributes(ctx, f, a.attributes);
        if !added.is_empty() {
            out.attributes.push((f.name(), added));
        }
    }
    Ok(out)
}

/// The instructions of function `index`, if its body has the summary's shape.
pub(crate) fn checked_body(
    globals: &[Value],
    index: u32,
    expected: &FunctionShape,
) -> Result<Vec<Value>, ShapeMismatch> {
    let Some(&g) = globals.get(index as usize) else {
        return Err(ShapeMismatch {
            function: format!("#{index}"),
            detail: "no such global in the module".into(),
        });
    };
    let instructions = g.instructions();
    let shape = FunctionShape::of_opcodes(index, instructions.iter().map(|i| i.opcode_number()));
    if shape != *expected {
        return Err(ShapeMismatch {
            function: g.name(),
            detail: format!(
                "{} instructions (summary: {}), opcode hash {:016x} (summary: {:016x})",
                shape.instructions, expected.instructions, shape.opcode_hash, expected.opcode_hash
            ),
        });
    }
    Ok(instructions)
}

fn write_scopes(
    ctx: &Context,
    m: u32,
    functions: &[FunctionScopes],
    bodies: Vec<Vec<Value>>,
) -> Annotated {
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
        let all = if f.scopes >= ScopeMask::BITS {
            ScopeMask::MAX
        } else {
            (1 << f.scopes) - 1
        };
        let mut lists: HashMap<ScopeMask, LLVMMetadataRef> = HashMap::new();
        let mut list = |mask: ScopeMask| {
            *lists.entry(mask).or_insert_with(|| {
                let members: Vec<LLVMMetadataRef> = (0..f.scopes)
                    .filter(|s| mask & (1 << s) != 0)
                    .map(|s| scopes[s as usize])
                    .collect();
                md_node(ctx, &members)
            })
        };
        let mut annotated = 0;
        for &(position, mask) in &f.instructions {
            let noalias = all & !mask;
            // An instruction that may touch everything the function touches tells nothing.
            if noalias == 0 {
                continue;
            }
            let Some(inst) = instructions.get(position as usize) else {
                continue;
            };
            // A call that touches none of the function's objects has no scope of its own:
            // `!noalias` alone says it touches nothing the accesses do.
            if mask != 0 {
                set_metadata(ctx, *inst, scope_kind, list(mask));
            }
            set_metadata(ctx, *inst, noalias_kind, list(noalias));
            annotated += 1;
        }
        if annotated > 0 {
            out.functions += 1;
            out.instructions += annotated;
        }
    }
    out
}

/// Adds what `proven` says and `f` does not yet; returns the attributes added, in LLVM's
/// spelling (`"memory(read) nofree"`). The function's `memory(...)` loses the accesses the
/// whole program rules out, in every location it allows.
pub(crate) fn add_attributes(ctx: &Context, f: Value, proven: MemoryAttributes) -> String {
    let mut added = Vec::new();
    let before = attribute(ctx, f, "memory", None).unwrap_or(llvm_memory::UNKNOWN);
    let mut after = llvm_memory::restrict(before, proven.no_reads, proven.no_writes);
    if proven.only_arguments {
        after = llvm_memory::keep_to_arguments(after);
    }
    if after != before {
        attribute(ctx, f, "memory", Some(after));
        added.push(llvm_memory::spelling(after));
    }
    if proven.no_free && attribute(ctx, f, "nofree", None).is_none() {
        attribute(ctx, f, "nofree", Some(0));
        added.push("nofree".to_string());
    }
    added.join(" ")
}

/// The value of function `f`'s enum attribute `name` (0 for one without a value), if it
/// has it; with `set`, gives it that value first.
fn attribute(ctx: &Context, f: Value, name: &str, set: Option<u32>) -> Option<u32> {
    use crate::call_attributes::{kind, on_function};
    let index = inkwell::llvm_sys::LLVMAttributeFunctionIndex;
    let kind = kind(name)?;
    // SAFETY: reading or changing the function attributes of a function in this context.
    unsafe {
        if let Some(value) = set {
            LLVMRemoveEnumAttributeAtIndex(f.raw(), index, kind);
            let attr = LLVMCreateEnumAttribute(ctx.raw(), kind, u64::from(value));
            LLVMAddAttributeAtIndex(f.raw(), index, attr);
        }
        on_function(f.raw(), index, kind).map(|v| v as u32)
    }
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
