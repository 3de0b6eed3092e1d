//! Using called-value propagation in the IR: `!callees` metadata on indirect calls, and
//! promotion of calls with few possible targets to direct calls guarded by a comparison
//! (with an indirect fallback unless the target set is complete), so that the inliner,
//! which runs afterwards, can inline them.
//!
//! Call sites are found again after the modules are linked through a `!rld.site` tag set
//! before linking. LLVM-C has no block splitting, so `split_after` builds it from moving
//! instructions and rebuilding the successors' phi nodes.

use crate::ir::{md_kind, md_node, md_string, Value};
use inkwell::context::Context;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMIntPredicate;
use inkwell::module::Module;
use std::ffi::CString;

/// What to do at one call site: where it is (its caller's global index and the
/// instruction's position in the caller, as in the summary), its targets (function names in
/// the merged module) and whether the set is complete (no other target is possible).
/// `caller_shape` is the caller's shape when it was summarized: the site is used only if the
/// caller still has it, so a summary that does not describe the bitcode never redirects a
/// call.
#[derive(Debug, Clone)]
pub struct SitePlan {
    pub caller: u32,
    pub caller_shape: rld_summaries::FunctionShape,
    pub instruction: u32,
    pub targets: Vec<String>,
    pub complete: bool,
    pub promote: bool,
}

const SITE_KIND: &str = "rld.site";

/// Tags call instruction `call` with a site key ("module.id") to find it after linking.
pub fn tag_site(ctx: &Context, call: Value, key: &str) {
    let (ctx, call) = (ctx.raw(), call.raw());
    // SAFETY: building an MDString in the instruction's context and attaching it.
    unsafe {
        let node = md_node(ctx, &[md_string(ctx, key)]);
        LLVMSetMetadata(
            call,
            md_kind(ctx, SITE_KIND),
            LLVMMetadataAsValue(ctx, node),
        );
    }
}

/// Every tagged call in the module, with its key.
pub fn tagged_sites(ctx: &Context, module: &Module) -> Vec<(String, Value)> {
    let (ctx, module) = (ctx.raw(), module.as_mut_ptr());
    let kind = md_kind(ctx, SITE_KIND);
    let mut out = Vec::new();
    // SAFETY: walking a live module; reading metadata the tagging put there.
    unsafe {
        let mut f = LLVMGetFirstFunction(module);
        while !f.is_null() {
            let mut bb = LLVMGetFirstBasicBlock(f);
            while !bb.is_null() {
                let mut i = LLVMGetFirstInstruction(bb);
                while !i.is_null() {
                    let md = LLVMGetMetadata(i, kind);
                    if !md.is_null() && LLVMGetMDNodeNumOperands(md) == 1 {
                        let mut op = std::ptr::null_mut();
                        LLVMGetMDNodeOperands(md, &mut op);
                        let mut len = 0u32;
                        let p = LLVMGetMDString(op, &mut len);
                        if !p.is_null() {
                            let bytes = std::slice::from_raw_parts(p as *const u8, len as usize);
                            out.push((
                                String::from_utf8_lossy(bytes).into_owned(),
                                Value::from_raw(i),
                            ));
                        }
                    }
                    i = LLVMGetNextInstruction(i);
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
            f = LLVMGetNextFunction(f);
        }
    }
    out
}

fn named_function(module: LLVMModuleRef, name: &str) -> Option<LLVMValueRef> {
    let c = CString::new(name).ok()?;
    // SAFETY: looking up a function by name in a live module.
    let f = unsafe { LLVMGetNamedFunction(module, c.as_ptr()) };
    (!f.is_null()).then_some(f)
}

/// Declares function `name` in `module` with the function type `call` calls through.
fn declare(module: LLVMModuleRef, call: LLVMValueRef, name: &str) -> Option<LLVMValueRef> {
    let c = CString::new(name).ok()?;
    // SAFETY: `call` is a call-like instruction of `module`; a declaration is added to it.
    unsafe {
        let ty = LLVMGetCalledFunctionType(call);
        if ty.is_null() {
            return None;
        }
        Some(LLVMAddFunction(module, c.as_ptr(), ty))
    }
}

/// What `apply_plan` did at a call site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// A target is missing from the merged module: the site is left alone.
    Nothing,
    /// `!callees` attached, and the targets' attributes the call now carries (LLVM's
    /// spelling; see [`crate::call_attributes`]).
    Annotated(String),
    /// `!callees` attached and the call promoted to direct calls.
    Promoted,
}

/// Attaches `!callees` and, where planned, promotes the call.
pub fn apply_plan(ctx: &Context, module: &Module, call: Value, plan: &SitePlan) -> Applied {
    let (ctx, module, call) = (ctx.raw(), module.as_mut_ptr(), call.raw());
    // A target another partition defines may not be named in this one's modules at all:
    // declare it, with the type the call uses (partitioning already made it a symbol the
    // partitions share).
    let targets: Vec<LLVMValueRef> = plan
        .targets
        .iter()
        .filter_map(|n| named_function(module, n).or_else(|| declare(module, call, n)))
        .collect();
    if targets.len() != plan.targets.len() || targets.is_empty() {
        return Applied::Nothing;
    }
    // SAFETY: all values belong to `module` in `ctx`; metadata is built in the same context.
    unsafe {
        let mds: Vec<LLVMMetadataRef> = targets.iter().map(|&f| LLVMValueAsMetadata(f)).collect();
        let node = md_node(ctx, &mds);
        LLVMSetMetadata(
            call,
            md_kind(ctx, "callees"),
            LLVMMetadataAsValue(ctx, node),
        );
        LLVMSetMetadata(call, md_kind(ctx, SITE_KIND), std::ptr::null_mut());
        if !plan.promote || LLVMIsACallInst(call).is_null() || is_musttail(call) {
            let added = if plan.complete {
                crate::call_attributes::copy_targets_attributes(ctx, call, &targets)
            } else {
                String::new()
            };
            return Applied::Annotated(added);
        }
        promote(ctx, call, &targets, plan.complete);
    }
    Applied::Promoted
}

/// LLVM-C (14) cannot ask for `musttail` directly; a `musttail` call must stay as it is, so
/// read it from the instruction's printed form (only done for tail calls, which are few).
unsafe fn is_musttail(call: LLVMValueRef) -> bool {
    if LLVMIsTailCall(call) == 0 {
        return false;
    }
    let text = LLVMPrintValueToString(call);
    let musttail = std::ffi::CStr::from_ptr(text)
        .to_string_lossy()
        .contains("musttail call");
    LLVMDisposeMessage(text);
    musttail
}

/// Moves everything after `inst` into a new block, which takes over `inst`'s block's place
/// as predecessor of its successors. Returns the new block.
unsafe fn split_after(ctx: LLVMContextRef, inst: LLVMValueRef) -> LLVMBasicBlockRef {
    let bb = LLVMGetInstructionParent(inst);
    let func = LLVMGetBasicBlockParent(bb);
    let next_bb = LLVMGetNextBasicBlock(bb);
    let tail = if next_bb.is_null() {
        LLVMAppendBasicBlockInContext(ctx, func, c"icp.cont".as_ptr())
    } else {
        LLVMInsertBasicBlockInContext(ctx, next_bb, c"icp.cont".as_ptr())
    };
    let builder = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(builder, tail);
    let mut i = LLVMGetNextInstruction(inst);
    while !i.is_null() {
        let next = LLVMGetNextInstruction(i);
        LLVMInstructionRemoveFromParent(i);
        LLVMInsertIntoBuilder(builder, i);
        i = next;
    }
    // The successors' phi nodes named `bb` as predecessor; now it is `tail`.
    let term = LLVMGetBasicBlockTerminator(tail);
    if !term.is_null() {
        for s in 0..LLVMGetNumSuccessors(term) {
            let succ = LLVMGetSuccessor(term, s);
            retarget_phis(builder, succ, bb, tail);
        }
    }
    LLVMDisposeBuilder(builder);
    tail
}

unsafe fn retarget_phis(
    builder: LLVMBuilderRef,
    block: LLVMBasicBlockRef,
    from: LLVMBasicBlockRef,
    to: LLVMBasicBlockRef,
) {
    let mut i = LLVMGetFirstInstruction(block);
    while !i.is_null() && !LLVMIsAPHINode(i).is_null() {
        let next = LLVMGetNextInstruction(i);
        let n = LLVMCountIncoming(i);
        if (0..n).any(|k| LLVMGetIncomingBlock(i, k) == from) {
            LLVMPositionBuilderBefore(builder, i);
            let phi = LLVMBuildPhi(builder, LLVMTypeOf(i), c"".as_ptr());
            for k in 0..n {
                let mut v = LLVMGetIncomingValue(i, k);
                let mut b = LLVMGetIncomingBlock(i, k);
                if b == from {
                    b = to;
                }
                LLVMAddIncoming(phi, &mut v, &mut b, 1);
            }
            LLVMReplaceAllUsesWith(i, phi);
            LLVMInstructionEraseFromParent(i);
        }
        i = next;
    }
}

/// A copy of `call` at the builder's position, calling `callee` instead when given. A clone
/// keeps everything the call carries: attributes, calling convention, tail-call kind,
/// operand bundles, debug location.
unsafe fn clone_call(
    ctx: LLVMContextRef,
    builder: LLVMBuilderRef,
    call: LLVMValueRef,
    callee: Option<LLVMValueRef>,
) -> LLVMValueRef {
    let copy = LLVMInstructionClone(call);
    if let Some(target) = callee {
        // The callee is a call's last operand.
        let last = (LLVMGetNumOperands(copy) - 1) as u32;
        LLVMSetOperand(copy, last, target);
        LLVMSetMetadata(copy, md_kind(ctx, "callees"), std::ptr::null_mut());
    }
    LLVMInsertIntoBuilder(builder, copy);
    copy
}

/// `call %fp(args)` becomes `if (%fp == @f1) call @f1(args) else if ... else call %fp(args)`.
unsafe fn promote(
    ctx: LLVMContextRef,
    call: LLVMValueRef,
    targets: &[LLVMValueRef],
    complete: bool,
) {
    let fnty = LLVMGetCalledFunctionType(call);
    let callee = LLVMGetCalledValue(call);
    let returns_value = LLVMGetTypeKind(LLVMGetReturnType(fnty))
        != inkwell::llvm_sys::LLVMTypeKind::LLVMVoidTypeKind;
    let dbg = inkwell::llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(call);
    let bb = LLVMGetInstructionParent(call);
    let cont = split_after(ctx, call);

    let builder = LLVMCreateBuilderInContext(ctx);
    if !dbg.is_null() {
        LLVMSetCurrentDebugLocation2(builder, dbg);
    }
    let mut incoming: Vec<(LLVMValueRef, LLVMBasicBlockRef)> = Vec::new();
    let mut test_block = bb;
    LLVMPositionBuilderBefore(builder, call);
    let last = targets.len() - 1;
    for (n, &target) in targets.iter().enumerate() {
        let direct_bb = LLVMInsertBasicBlockInContext(ctx, cont, c"icp.direct".as_ptr());
        // With a complete set the last target needs no test: nothing else is possible.
        let untested = complete && n == last;
        let next_bb = if untested {
            direct_bb
        } else {
            LLVMInsertBasicBlockInContext(ctx, cont, c"icp.next".as_ptr())
        };
        LLVMPositionBuilderAtEnd(builder, test_block);
        if untested {
            LLVMBuildBr(builder, direct_bb);
        } else {
            let as_callee_type = LLVMConstBitCast(target, LLVMTypeOf(callee));
            let cmp = LLVMBuildICmp(
                builder,
                LLVMIntPredicate::LLVMIntEQ,
                callee,
                as_callee_type,
                c"icp.is".as_ptr(),
            );
            LLVMBuildCondBr(builder, cmp, direct_bb, next_bb);
        }
        LLVMPositionBuilderAtEnd(builder, direct_bb);
        let direct = clone_call(
            ctx,
            builder,
            call,
            Some(LLVMConstBitCast(target, LLVMTypeOf(callee))),
        );
        LLVMBuildBr(builder, cont);
        incoming.push((direct, direct_bb));
        test_block = next_bb;
        if untested {
            break;
        }
    }
    if !complete {
        // The fallback keeps the original indirect call (moved into its own block).
        LLVMPositionBuilderAtEnd(builder, test_block);
        let fallback = clone_call(ctx, builder, call, None);
        LLVMBuildBr(builder, cont);
        incoming.push((fallback, test_block));
    }
    // Remove the now-unterminated original block's call and join the results.
    if returns_value {
        let first = LLVMGetFirstInstruction(cont);
        if first.is_null() {
            LLVMPositionBuilderAtEnd(builder, cont);
        } else {
            LLVMPositionBuilderBefore(builder, first);
        }
        let phi = LLVMBuildPhi(builder, LLVMGetReturnType(fnty), c"".as_ptr());
        for (v, b) in &incoming {
            let (mut v, mut b) = (*v, *b);
            LLVMAddIncoming(phi, &mut v, &mut b, 1);
        }
        LLVMReplaceAllUsesWith(call, phi);
    }
    LLVMInstructionEraseFromParent(call);
    LLVMDisposeBuilder(builder);
}
