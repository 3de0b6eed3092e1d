//! Building a module summary from bitcode: every global with its linkage, visibility and
//! flags, what it references and calls, constructors, and the call sites and initializer
//! pointers the whole-program analyses start from.
//!
//! Each module is read in its own LLVM context, so modules are summarized in parallel.

use crate::error::LtoError;
use crate::facts::FactBuilder;
use crate::ir::{module_globals, DataLayout, Value};
use inkwell::context::Context;
use inkwell::module::Module;
use rld_summaries::{
    CallSite, Callee, GlobalFlags, GlobalKind, GlobalSummary, Linkage, ModuleSummary, Structor,
};
use std::collections::{HashMap, HashSet};

/// Parses bitcode into a module of `ctx` (from `data` itself, no copy), naming the file in
/// errors, and checks it with LLVM's verifier.
pub fn parse_module<'c, 'a: 'c>(
    ctx: &'c Context,
    name: &str,
    data: &'a [u8],
) -> Result<Module<'c>, LtoError> {
    let bad = |msg: String| LtoError::BadBitcode {
        file: name.to_string(),
        msg: msg.trim().to_string(),
    };
    let module =
        crate::fatal::reading(name, || crate::shim::parse_lazy(ctx, name, data)).map_err(bad)?;
    // Bodies are read on first use: read them all now, still naming the file if LLVM
    // gives up on it.
    crate::fatal::reading(name, || crate::shim::materialize_all(&module)).map_err(bad)?;
    crate::fatal::reading(name, || module.verify()).map_err(|e| bad(e.to_string()))?;
    Ok(module)
}

/// Reads one bitcode file and summarizes it.
pub fn summarize_bitcode(name: &str, data: &[u8]) -> Result<ModuleSummary, LtoError> {
    let ctx = Context::create();
    let module = parse_module(&ctx, name, data)?;
    // The summary's own copy of the module: what the declarations say is what LLVM will
    // know once its pipeline has run `inferattrs` on them.
    crate::fatal::reading(name, || crate::shim::infer_library_attributes(&module))
        .map_err(|msg| LtoError::Llvm(format!("{name}: inferring library attributes: {msg}")))?;
    Ok(crate::fatal::reading(name, || {
        summarize_module(name, &module)
    }))
}

/// Whether a constant holds the address of a basic block (`blockaddress`), through
/// constant expressions and aggregates. Constants are uniqued, so a constant is a DAG whose
/// shared parts a plain walk would visit exponentially often: each is visited once. A work
/// list, not recursion: a constant may nest as deep as its source's expressions.
fn holds_block_address(v: Value, seen: &mut HashSet<Value>) -> bool {
    seen.clear();
    let mut work = vec![v];
    while let Some(v) = work.pop() {
        if v.is_block_address() {
            return true;
        }
        if v.is_global_value() || !v.is_constant() || v.is_constant_data() || !seen.insert(v) {
            continue;
        }
        work.extend(v.operands());
    }
    false
}

/// Globals a constant (an initializer, an operand) refers to, through constant expressions
/// and aggregates, each shared part visited once (`seen` is scratch space), at any depth.
fn constant_refs(
    index: &HashMap<Value, u32>,
    v: Value,
    out: &mut Vec<u32>,
    seen: &mut HashSet<Value>,
) {
    seen.clear();
    let mut work = vec![v];
    while let Some(v) = work.pop() {
        if let Some(&i) = index.get(&v) {
            out.push(i);
            continue;
        }
        // A label's address refers to its function (which partitions keep with it).
        if let Some(&i) = v.block_address_function().and_then(|f| index.get(&f)) {
            out.push(i);
            continue;
        }
        if v.is_global_value() || !v.is_constant() || !seen.insert(v) {
            continue;
        }
        // Operands in reverse, so they are visited in order.
        work.extend(v.operands().into_iter().rev());
    }
}

/// [`constant_refs`] of an operand whose globals' addresses escape into code or data:
/// each is also marked address-taken.
fn address_refs(
    index: &HashMap<Value, u32>,
    v: Value,
    out: &mut Vec<u32>,
    address_taken: &mut [bool],
    seen: &mut HashSet<Value>,
) {
    let before = out.len();
    constant_refs(index, v, out, seen);
    for &r in &out[before..] {
        address_taken[r as usize] = true;
    }
}

pub fn summarize_module(module_id: &str, module: &Module) -> ModuleSummary {
    let globals = module_globals(module);
    let index: HashMap<Value, u32> = globals
        .iter()
        .enumerate()
        .map(|(i, &g)| (g, i as u32))
        .collect();
    let mut summary = ModuleSummary {
        module_id: module_id.to_string(),
        source_file: module.get_source_file_name().to_string_lossy().into_owned(),
        ..Default::default()
    };
    let mut facts = FactBuilder::new(&index, DataLayout::of_module(module));
    for (i, &g) in globals.iter().enumerate() {
        summary.globals.push(describe(g));
        if g.global_kind() == Some(GlobalKind::Function) && g.is_declaration() {
            if let Some(d) = g.declared_effects(i as u32) {
                summary.declared.push(d);
            }
        }
    }
    let mut address_taken = vec![false; globals.len()];
    let mut seen = HashSet::new();
    for (gi, &g) in globals.iter().enumerate() {
        let mut refs = Vec::new();
        let mut calls = Vec::new();
        match g.global_kind() {
            Some(GlobalKind::Function) if !g.is_declaration() => {
                let mut call_ids = HashMap::new();
                for (position, inst) in g.instructions().into_iter().enumerate() {
                    let callee = inst.called_value();
                    if let Some(c) = callee {
                        let target = c.strip_casts();
                        // A call of an alias (a C1 constructor standing for its C2) calls
                        // the aliasee, and keeps the alias alive.
                        let aliased = target
                            .aliasee()
                            .map(Value::strip_casts)
                            .filter(|a| a.is_function())
                            .and_then(|a| index.get(&a).copied());
                        let site = match index.get(&target) {
                            Some(&t) if target.is_function() => {
                                calls.push(t);
                                Some(Callee::Direct(t))
                            }
                            Some(&alias) => {
                                refs.push(alias);
                                // An ifunc or an alias of something else: a call nothing
                                // here can describe, which the facts take as opaque.
                                aliased.map(|t| {
                                    calls.push(t);
                                    Callee::Direct(t)
                                })
                            }
                            _ if c.is_inline_asm() => None,
                            _ => Some(Callee::Indirect(
                                facts.operand(c).unwrap_or_else(|| facts.value_id(c)),
                            )),
                        };
                        if let Some(callee) = site {
                            let id = summary.call_sites.len() as u32;
                            call_ids.insert(inst, id);
                            summary.call_sites.push(CallSite {
                                id,
                                caller: gi as u32,
                                instruction: position as u32,
                                callee,
                                debug_loc: inst.debug_loc(),
                                byval: inst.byval_arguments(),
                            });
                        }
                    }
                    for op in inst.operands() {
                        if Some(op) == callee {
                            continue;
                        }
                        // A label's address, also inside a constant expression (a
                        // difference of two labels, propagated into a caller).
                        if op.is_constant()
                            && !op.is_global_value()
                            && !op.is_constant_data()
                            && holds_block_address(op, &mut seen)
                        {
                            summary.globals[gi].flags.insert(GlobalFlags::BLOCK_ADDRESS);
                        }
                        address_refs(&index, op, &mut refs, &mut address_taken, &mut seen);
                    }
                }
                // The function's own operands (its personality function, prefix and
                // prologue data), which LLVM's summary counts as references too: a
                // personality defined in the LTO unit (Rust's `rust_eh_personality`, with
                // the standard library's bitcode) is used by nothing else, and the
                // unwinder calls it from outside.
                for op in g.operands() {
                    address_refs(&index, op, &mut refs, &mut address_taken, &mut seen);
                }
                facts.function(gi as u32, g, &call_ids);
            }
            Some(GlobalKind::Variable) => {
                if let Some(init) = g.initializer() {
                    constant_refs(&index, init, &mut refs, &mut seen);
                    if holds_block_address(init, &mut seen) {
                        summary.globals[gi].flags.insert(GlobalFlags::BLOCK_ADDRESS);
                    }
                    for &r in &refs {
                        address_taken[r as usize] = true;
                    }
                    facts.initializer(gi as u32, init, &mut summary.initializers);
                }
            }
            Some(GlobalKind::Alias) | Some(GlobalKind::IFunc) => {
                let target = g.aliasee().or_else(|| g.operands().first().copied());
                if let Some(t) = target {
                    constant_refs(&index, t.strip_casts(), &mut refs, &mut seen);
                    if g.global_kind() == Some(GlobalKind::Alias) {
                        summary.globals[gi].aliasee = refs.first().copied();
                    }
                }
            }
            _ => {}
        }
        refs.sort_unstable();
        refs.dedup();
        calls.sort_unstable();
        calls.dedup();
        let s = &mut summary.globals[gi];
        s.refs = refs;
        s.calls = calls;
    }
    for (i, taken) in address_taken.into_iter().enumerate() {
        if taken {
            summary.globals[i].flags.insert(GlobalFlags::ADDRESS_TAKEN);
        }
    }
    special_globals(&mut summary, &index, &globals);
    asm_symbols(&mut summary, module);
    summary.dependent_libraries = dependent_libraries(module);
    summary.type_tests = TYPE_TESTS
        .iter()
        .any(|name| module.get_function(name).is_some());
    facts.finish(&mut summary);
    summary
}

/// The intrinsics that test a pointer's type against the modules' type metadata.
const TYPE_TESTS: [&str; 4] = [
    "llvm.type.test",
    "llvm.public.type.test",
    "llvm.type.checked.load",
    "llvm.type.checked.load.relative",
];

/// The libraries `llvm.dependent-libraries` names (clang's `#pragma comment(lib, "m")`):
/// each node holds one string, as LLVM's IR symbol table reads them for lld.
fn dependent_libraries(module: &Module) -> Vec<String> {
    use inkwell::values::BasicMetadataValueEnum;
    let mut names = Vec::new();
    for node in module.get_global_metadata("llvm.dependent-libraries") {
        for operand in node.get_node_values().unwrap_or_default() {
            if let BasicMetadataValueEnum::MetadataValue(md) = operand {
                if let Some(name) = md.get_string_value() {
                    names.push(String::from_utf8_lossy(name).into_owned());
                }
            }
        }
    }
    names
}

/// The symbols of the module's inline asm, and the definitions it names: LLVM's LTO keeps
/// those as if listed in `llvm.compiler.used` (code it cannot see uses them; a `.symver`
/// of an internalized or dropped function fails to assemble), and they must be compiled
/// beside the asm.
fn asm_symbols(summary: &mut ModuleSummary, module: &Module) {
    if !crate::shim::has_inline_asm(module) {
        return;
    }
    // The asm parser reads the asm.
    inkwell::targets::Target::initialize_x86(&inkwell::targets::InitializationConfig::default());
    summary.asm_symbols = crate::shim::module_asm_symbols(module);
    let named: HashSet<&str> = summary
        .asm_symbols
        .iter()
        .filter(|a| !a.defined)
        .map(|a| a.name.as_str())
        .collect();
    for g in &mut summary.globals {
        if !g.is_declaration() && named.contains(g.name.as_str()) {
            g.flags
                .insert(GlobalFlags::COMPILER_USED | GlobalFlags::ASM_REFERENCED);
        }
    }
}

/// LLVM's `GlobalValue::canBeOmittedFromSymbolTable`, which lld and LLVMgold consult: a
/// `linkonce_odr` definition whose address nothing may compare. (`local_unnamed_addr`
/// suffices unless it is a variable that can be written: such a variable must be one
/// object across shared libraries.)
fn can_be_omitted_from_symbol_table(g: Value, kind: GlobalKind) -> bool {
    if g.linkage() != Linkage::LinkOnceODR || g.is_declaration() {
        return false;
    }
    if g.has_global_unnamed_addr() {
        return true;
    }
    if kind == GlobalKind::Variable && !g.is_global_constant() {
        return false;
    }
    g.has_unnamed_addr()
}

fn describe(g: Value) -> GlobalSummary {
    let kind = g.global_kind().unwrap_or(GlobalKind::Variable);
    let mut flags = GlobalFlags::default();
    if g.is_declaration() {
        flags.insert(GlobalFlags::DECLARATION);
    }
    if g.is_thread_local() {
        flags.insert(GlobalFlags::THREAD_LOCAL);
    }
    if g.is_global_constant() {
        flags.insert(GlobalFlags::CONSTANT);
    }
    let section = if kind == GlobalKind::Alias {
        None
    } else {
        g.section()
    };
    if section.is_some() {
        flags.insert(GlobalFlags::EXPLICIT_SECTION);
    }
    let comdat = if kind != GlobalKind::Alias && kind != GlobalKind::IFunc {
        crate::shim::comdat_name(g)
    } else {
        None
    };
    if comdat.is_some() {
        flags.insert(GlobalFlags::IN_COMDAT);
    }
    if g.has_unnamed_addr() {
        flags.insert(GlobalFlags::UNNAMED_ADDR);
    }
    if can_be_omitted_from_symbol_table(g, kind) {
        flags.insert(GlobalFlags::CAN_OMIT);
    }
    if kind == GlobalKind::Function && g.returns_noalias() {
        flags.insert(GlobalFlags::RETURNS_NOALIAS);
    }
    let debug_loc = if matches!(kind, GlobalKind::Function | GlobalKind::Variable) {
        g.debug_loc()
    } else {
        None
    };
    GlobalSummary {
        name: g.name(),
        kind,
        linkage: g.linkage(),
        visibility: g.visibility(),
        flags,
        section,
        comdat,
        refs: Vec::new(),
        calls: Vec::new(),
        aliasee: None,
        debug_loc,
    }
}

/// llvm.used / llvm.compiler.used mark their members; llvm.global_ctors/dtors list the
/// constructors the linked program runs.
fn special_globals(summary: &mut ModuleSummary, index: &HashMap<Value, u32>, globals: &[Value]) {
    for &g in globals {
        let name = g.name();
        let Some(init) = g.initializer() else {
            continue;
        };
        match name.as_str() {
            "llvm.used" | "llvm.compiler.used" => {
                let flag = if name == "llvm.used" {
                    GlobalFlags::USED
                } else {
                    GlobalFlags::COMPILER_USED
                };
                for elem in init.operands() {
                    if let Some(&i) = index.get(&elem.strip_casts()) {
                        summary.globals[i as usize].flags.insert(flag);
                    }
                }
            }
            "llvm.global_ctors" | "llvm.global_dtors" => {
                for entry in init.operands() {
                    let fields = entry.operands();
                    let (Some(prio), Some(func)) = (fields.first(), fields.get(1)) else {
                        continue;
                    };
                    let Some(&f) = index.get(&func.strip_casts()) else {
                        continue;
                    };
                    let s = Structor {
                        priority: prio.const_int().unwrap_or(65535) as u32,
                        function: f,
                    };
                    if name == "llvm.global_ctors" {
                        summary.ctors.push(s);
                    } else {
                        summary.dtors.push(s);
                    }
                }
            }
            _ => {}
        }
    }
}
