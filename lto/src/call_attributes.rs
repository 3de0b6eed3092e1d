//! What every possible target of an indirect call says of itself, written on the call.
//!
//! LLVM reads a call's memory effects and what it does with each pointer argument from the
//! callee's attributes, and from the call's own; an indirect call has no callee to ask, so
//! a local whose address it is given counts as captured, and the call may touch anything.
//! Where called-value propagation knows every function the call may reach (the call has
//! `!callees`), the attributes all of them carry, as LLVM itself inferred or declared them,
//! hold for the call: rld copies them onto it. Memory effects are the union of the
//! targets'; a parameter attribute is copied only when every target has it (captures:
//! the union of what they capture).

use crate::llvm_memory;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMAttributeFunctionIndex, LLVMTypeKind};

/// An attribute kind's id, if this LLVM knows the name.
pub(crate) fn kind(name: &str) -> Option<u32> {
    // SAFETY: looking up an attribute kind by name.
    let k = unsafe { LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len()) };
    (k != 0).then_some(k)
}

/// The value of enum or integer attribute `kind` at `index` of function `f` (0 for one
/// without a value).
pub(crate) unsafe fn on_function(f: LLVMValueRef, index: u32, kind: u32) -> Option<u64> {
    let a = LLVMGetEnumAttributeAtIndex(f, index, kind);
    (!a.is_null()).then(|| LLVMGetEnumAttributeValue(a))
}

unsafe fn on_call(call: LLVMValueRef, index: u32, kind: u32) -> Option<u64> {
    let a = LLVMGetCallSiteEnumAttribute(call, index, kind);
    (!a.is_null()).then(|| LLVMGetEnumAttributeValue(a))
}

unsafe fn set_on_call(ctx: LLVMContextRef, call: LLVMValueRef, index: u32, kind: u32, v: u64) {
    LLVMRemoveCallSiteEnumAttribute(call, index, kind);
    LLVMAddCallSiteAttribute(call, index, LLVMCreateEnumAttribute(ctx, kind, v));
}

/// Copies onto indirect call `call` what all of `targets` (its complete set of possible
/// callees, functions of the call's module) say. Returns the attributes added, in LLVM's
/// spelling, parameters by position (`memory(read) 0:captures(none) 0:readonly`).
///
/// # Safety
/// `call` is a call-like instruction and `targets` functions, all of one module in `ctx`.
pub unsafe fn copy_targets_attributes(
    ctx: LLVMContextRef,
    call: LLVMValueRef,
    targets: &[LLVMValueRef],
) -> String {
    let mut added: Vec<String> = Vec::new();
    if targets.is_empty() {
        return String::new();
    }
    if let Some(memory) = kind("memory") {
        let union = targets.iter().fold(0u64, |acc, &f| {
            acc | on_function(f, LLVMAttributeFunctionIndex, memory)
                .unwrap_or(u64::from(llvm_memory::UNKNOWN))
        });
        let before = on_call(call, LLVMAttributeFunctionIndex, memory)
            .unwrap_or(u64::from(llvm_memory::UNKNOWN));
        if before & union != before {
            set_on_call(
                ctx,
                call,
                LLVMAttributeFunctionIndex,
                memory,
                before & union,
            );
            added.push(llvm_memory::spelling((before & union) as u32));
        }
    }
    let arity = targets
        .iter()
        .map(|&f| LLVMCountParams(f))
        .min()
        .unwrap_or(0)
        .min(LLVMGetNumArgOperands(call));
    let captures = kind("captures");
    let access: Vec<(&str, u32)> = ["readnone", "readonly", "writeonly"]
        .into_iter()
        .filter_map(|n| Some((n, kind(n)?)))
        .collect();
    let by_value: Vec<u32> = ["byval", "inalloca", "preallocated"]
        .into_iter()
        .filter_map(kind)
        .collect();
    for i in 0..arity {
        let arg = LLVMGetOperand(call, i);
        if LLVMGetTypeKind(LLVMTypeOf(arg)) != LLVMTypeKind::LLVMPointerTypeKind {
            continue;
        }
        let index = i + 1;
        // What the callee does with its own copy says nothing of the caller's pointer.
        if by_value.iter().any(|&k| on_call(call, index, k).is_some()) {
            continue;
        }
        if let Some(captures) = captures {
            let all: Option<u64> = targets
                .iter()
                .map(|&f| on_function(f, index, captures))
                .try_fold(0u64, |acc, c| Some(acc | c?));
            if let Some(union) = all {
                let before = on_call(call, index, captures);
                let after = before.map_or(union, |b| b & union);
                if before != Some(after) {
                    set_on_call(ctx, call, index, captures, after);
                    added.push(format!(
                        "{i}:{}",
                        llvm_memory::captures_spelling(after as u32)
                    ));
                }
            }
        }
        // Reads and writes through the argument: a target's `readnone` rules out both.
        let (mut no_reads, mut no_writes) = (true, true);
        for &f in targets {
            let has = |name: &str| {
                access
                    .iter()
                    .any(|&(n, k)| n == name && on_function(f, index, k).is_some())
            };
            let none = has("readnone");
            no_reads &= none || has("writeonly");
            no_writes &= none || has("readonly");
        }
        let name = match (no_reads, no_writes) {
            (true, true) => "readnone",
            (false, true) => "readonly",
            (true, false) => "writeonly",
            (false, false) => continue,
        };
        let Some(&(_, k)) = access.iter().find(|&&(n, _)| n == name) else {
            continue;
        };
        let present = access
            .iter()
            .any(|&(_, k)| on_call(call, index, k).is_some());
        if !present {
            set_on_call(ctx, call, index, k, 0);
            added.push(format!("{i}:{name}"));
        }
    }
    added.join(" ")
}
