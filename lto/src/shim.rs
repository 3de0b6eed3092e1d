//! Safe wrappers over the small C++ shim in `llvm-wrapper/` (built by `build.rs`) for what
//! LLVM-C lacks: a target machine set up as lld's LTO sets it up, LLVM's own optimization
//! remarks (inline, licm, gvn, ..., asm-printer) written to a YAML file, the pass pipeline
//! with profiles (AutoFDO, context-sensitive PGO), and objects with split DWARF.

use inkwell::context::Context;
use inkwell::llvm_sys::core::LLVMDisposeMessage;
use inkwell::llvm_sys::prelude::{LLVMContextRef, LLVMModuleRef};
use inkwell::llvm_sys::target_machine::LLVMTargetMachineRef;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::targets::{TargetMachine, TargetTriple};
use std::ffi::{c_char, c_uint, CStr, CString};
use std::marker::PhantomData;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr::{self, NonNull};

/// The C++ side's remarks handle (`struct RldRemarks`).
#[repr(C)]
struct RawRemarks {
    _opaque: [u8; 0],
}

extern "C" {
    fn rld_create_lto_target_machine(
        triple: *const c_char,
        cpu: *const c_char,
        features: *const c_char,
        cg_opt_level: c_uint,
        pic: bool,
    ) -> LLVMTargetMachineRef;
    fn rld_remarks_begin(
        ctx: LLVMContextRef,
        path: *const c_char,
        passes: *const c_char,
        with_hotness: bool,
        threshold_auto: bool,
        threshold: u64,
        error: *mut *mut c_char,
    ) -> *mut RawRemarks;
    fn rld_remarks_end(handle: *mut RawRemarks, error: *mut *mut c_char) -> bool;
    fn rld_delete_function_body(function: inkwell::llvm_sys::prelude::LLVMValueRef);
    fn rld_module_asm_symbols(
        module: LLVMModuleRef,
        ctx: *mut std::ffi::c_void,
        each: extern "C" fn(*mut std::ffi::c_void, *const c_char, usize, bool, bool),
    );
    fn rld_alias_to_declaration(alias: inkwell::llvm_sys::prelude::LLVMValueRef);
    fn rld_parse_lazy(
        ctx: LLVMContextRef,
        data: *const c_char,
        size: usize,
        name: *const c_char,
        error: *mut *mut c_char,
    ) -> LLVMModuleRef;
    fn rld_bitcode_producer(data: *const c_char, size: usize, producer: *mut *mut c_char) -> bool;
    fn rld_materialize_all(module: LLVMModuleRef, error: *mut *mut c_char) -> bool;
    fn rld_write_bitcode(
        module: LLVMModuleRef,
        path: *const c_char,
        error: *mut *mut c_char,
    ) -> bool;
    fn rld_trim_debug_info(module: LLVMModuleRef, home: bool);
    fn rld_number_in_link_order(module: LLVMModuleRef, next: u64) -> u64;
    fn rld_sort_in_link_order(module: LLVMModuleRef);
    fn rld_comdat_name(
        global: inkwell::llvm_sys::prelude::LLVMValueRef,
        len: *mut usize,
    ) -> *const c_char;
    fn rld_run_lto_passes(
        module: LLVMModuleRef,
        tm: LLVMTargetMachineRef,
        passes: *const c_char,
        vectorize: bool,
        sample_profile: *const c_char,
        cs_profile: *const c_char,
        cs_generate: bool,
        aa_pipeline: *const c_char,
        plugins: *const *const c_char,
        plugin_count: usize,
        debug: bool,
        error: *mut *mut c_char,
    ) -> bool;
    fn rld_emit_split_dwarf_object(
        tm: LLVMTargetMachineRef,
        module: LLVMModuleRef,
        dwo_path: *const c_char,
        error: *mut *mut c_char,
    ) -> inkwell::llvm_sys::prelude::LLVMMemoryBufferRef;
    fn rld_cache_directed_layout(
        node_count: usize,
        sizes: *const u64,
        counts: *const u64,
        call_count: usize,
        calls: *const u64,
        offsets: *const u64,
        order: *mut u64,
    );
    fn rld_parse_llvm_options(
        argc: std::ffi::c_int,
        argv: *const *const c_char,
        error: *mut *mut c_char,
    ) -> bool;
}

/// Sets LLVM's own options (`-mllvm -foo`, `-plugin-opt=-foo`) for the rest of the
/// process; a bad option is an error with LLVM's message.
pub fn parse_llvm_options(args: &[String]) -> Result<(), String> {
    let strings: Vec<CString> = std::iter::once("rld")
        .chain(args.iter().map(String::as_str))
        .map(|a| CString::new(a).map_err(|_| format!("bad LLVM option {a:?}")))
        .collect::<Result<_, _>>()?;
    let argv: Vec<*const c_char> = strings.iter().map(|s| s.as_ptr()).collect();
    let mut error = ptr::null_mut();
    // SAFETY: `argv` holds `argv.len()` valid C strings that outlive the call.
    let ok = unsafe { rld_parse_llvm_options(argv.len() as _, argv.as_ptr(), &mut error) };
    if ok {
        return Ok(());
    }
    // LLVM words its message for a tool of its own: no program name, no `--help` hint.
    let message = take_message(error);
    Err(message
        .lines()
        .map(|l| {
            l.trim_start_matches("rld: ")
                .replace("  Try: 'rld --help'", "")
        })
        .collect::<Vec<_>>()
        .join("; "))
}

/// A target machine as lld 14 creates it for LTO code generation: a section per function
/// and per datum (unique names), `.init_array` constructors, relaxable GOT relocations
/// (`R_X86_64_[REX_]GOTPCRELX`), address-significance tables, the default code model,
/// PIC or static relocation, and codegen level `opt_level` (0 None, 1 Less, 2 Default,
/// 3 and above Aggressive). `None` if the target is unknown or not initialized
/// (`Target::initialize_x86`) or an argument contains a NUL byte.
pub fn create_lto_target_machine(
    triple: &TargetTriple,
    cpu: &str,
    features: &str,
    cg_opt_level: u8,
    pic: bool,
) -> Option<TargetMachine> {
    let cpu = CString::new(cpu).ok()?;
    let features = CString::new(features).ok()?;
    // SAFETY: all three strings are NUL-terminated and outlive the call, which copies them.
    let raw = unsafe {
        rld_create_lto_target_machine(
            triple.as_str().as_ptr(),
            cpu.as_ptr(),
            features.as_ptr(),
            c_uint::from(cg_opt_level),
            pic,
        )
    };
    if raw.is_null() {
        return None;
    }
    // SAFETY: `raw` is a new, non-null TargetMachine that nothing else owns; the
    // TargetMachine takes ownership and disposes of it with LLVMDisposeTargetMachine.
    Some(unsafe { TargetMachine::new(raw) })
}

/// LLVM's optimization remarks of one context, streamed to a YAML file for as long as this
/// lives: every remark of the pass pipeline (`Module::run_passes`) and of code generation
/// (`TargetMachine::write_to_memory_buffer` and friends) run on modules of that context in
/// the meantime, as lld's `--opt-remarks-filename` records them. `finish` (or drop) closes
/// the file and detaches the context.
pub struct PipelineRemarks<'ctx> {
    handle: NonNull<RawRemarks>,
    path: String,
    _ctx: PhantomData<&'ctx Context>,
}

impl<'ctx> PipelineRemarks<'ctx> {
    /// Starts recording `ctx`'s remarks to `path` (created or truncated). `passes` keeps
    /// only the remarks of passes whose name matches the regular expression (LLVM's
    /// syntax, as `--opt-remarks-passes`); `hotness` asks for profile hotness in them.
    /// Errors: the file cannot be created, the expression is invalid, or `ctx` is already
    /// recording remarks.
    pub fn begin(
        ctx: &'ctx Context,
        settings: &crate::codegen::RemarkSettings,
    ) -> Result<PipelineRemarks<'ctx>, String> {
        let (path, passes) = (&settings.path, settings.passes.as_deref());
        let shown = path.display().to_string();
        let c_path = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| format!("{shown}: file name contains a NUL byte"))?;
        let c_passes = passes
            .map(CString::new)
            .transpose()
            .map_err(|_| "--opt-remarks-passes: pattern contains a NUL byte".to_string())?;
        let mut error: *mut c_char = ptr::null_mut();
        // SAFETY: `ctx` is a live context that outlives the handle (the `'ctx` borrow);
        // the strings are NUL-terminated and copied by the callee; `error` is a valid
        // out-pointer.
        let handle = unsafe {
            rld_remarks_begin(
                ctx.raw(),
                c_path.as_ptr(),
                c_passes.as_ref().map_or(ptr::null(), |p| p.as_ptr()),
                settings.with_hotness,
                settings.hotness_threshold.is_none(),
                settings.hotness_threshold.unwrap_or(0),
                &mut error,
            )
        };
        match NonNull::new(handle) {
            Some(handle) => Ok(PipelineRemarks {
                handle,
                path: shown,
                _ctx: PhantomData,
            }),
            None => Err(format!(
                "cannot record optimization remarks to {shown}: {}",
                take_message(error)
            )),
        }
    }

    /// Stops recording and closes the file; errors if writing it failed.
    pub fn finish(self) -> Result<(), String> {
        let handle = self.handle;
        let path = self.path.clone();
        std::mem::forget(self);
        end(handle).map_err(|e| format!("cannot write optimization remarks to {path}: {e}"))
    }
}

impl Drop for PipelineRemarks<'_> {
    fn drop(&mut self) {
        // Nowhere to report a write error from here; `finish` reports it.
        let _ = end(self.handle);
    }
}

fn end(handle: NonNull<RawRemarks>) -> Result<(), String> {
    let mut error: *mut c_char = ptr::null_mut();
    // SAFETY: `handle` came from rld_remarks_begin and is ended exactly once (by `finish`,
    // which forgets the owner, or by `drop`), while its context is alive (the `'ctx`
    // borrow); `error` is a valid out-pointer.
    let ok = unsafe { rld_remarks_end(handle.as_ptr(), &mut error) };
    if ok {
        Ok(())
    } else {
        Err(take_message(error))
    }
}

/// Takes ownership of an LLVM-allocated message (null: none) and frees it.
fn take_message(message: *mut c_char) -> String {
    if message.is_null() {
        return "unknown error".to_string();
    }
    // SAFETY: the shim set `message` with LLVMCreateMessage: NUL-terminated, ours to free
    // with LLVMDisposeMessage, and not used after this.
    unsafe {
        let text = CStr::from_ptr(message).to_string_lossy().into_owned();
        LLVMDisposeMessage(message);
        text
    }
}

/// Turns a function definition into a declaration as LLVM does (`Function::deleteBody`).
pub(crate) fn delete_function_body(function: crate::ir::Value) {
    // SAFETY: `function` is a function of a live module (callers check the kind); LLVM
    // deletes its body and everything hung off it.
    unsafe { rld_delete_function_body(function.raw()) }
}

/// Reads a module lazily from `data` (no copy: the bytes must outlive the module, which the
/// `'a` borrow ensures): function bodies are read by [`materialize_all`], and a body deleted
/// before that is never read.
pub fn parse_lazy<'ctx, 'a: 'ctx>(
    ctx: &'ctx Context,
    name: &str,
    data: &'a [u8],
) -> Result<inkwell::module::Module<'ctx>, String> {
    let c_name = CString::new(name).map_err(|_| "file name contains a NUL byte".to_string())?;
    if let Some(producer) = producer(data) {
        check_producer(&producer, env!("RLD_LLVM_VERSION"))?;
    }
    let mut error: *mut c_char = ptr::null_mut();
    // SAFETY: `data` outlives the module (`'a: 'ctx`, and the module cannot outlive its
    // context); the name is copied by LLVM; `error` is a valid out-pointer.
    let raw = unsafe {
        rld_parse_lazy(
            ctx.raw(),
            data.as_ptr() as *const c_char,
            data.len(),
            c_name.as_ptr(),
            &mut error,
        )
    };
    if raw.is_null() {
        return Err(take_message(error));
    }
    // SAFETY: a new module of `ctx` that nothing else owns.
    Ok(unsafe { inkwell::module::Module::new(raw) })
}

/// The producer string of a bitcode file (`LLVM22.1.8`), if it has one.
fn producer(data: &[u8]) -> Option<String> {
    let mut out: *mut c_char = ptr::null_mut();
    // SAFETY: `data` is live for the call; `out` is a valid out-pointer.
    let found = unsafe { rld_bitcode_producer(data.as_ptr().cast(), data.len(), &mut out) };
    found.then(|| take_message(out))
}

/// Refuses bitcode an LLVM newer than rld's wrote: its reader may not know what the
/// bitcode says, and what it does not know it may not reject. `ours` is `22.1.8`.
pub(crate) fn check_producer(producer: &str, ours: &str) -> Result<(), String> {
    let major = |v: &str| -> Option<u32> {
        let digits: String = v.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    let theirs = producer.strip_prefix("LLVM").and_then(major);
    match (theirs, major(ours)) {
        (Some(theirs), Some(mine)) if theirs > mine => Err(format!(
            "bitcode written by a newer LLVM (producer '{producer}') than rld's LTO reads \
             (LLVM {ours}); compile it with clang {mine} or older, or use an rld built on \
             LLVM {theirs}"
        )),
        _ => Ok(()),
    }
}

/// Reads the bodies of a lazily read module that are still unread.
pub fn materialize_all(module: &inkwell::module::Module) -> Result<(), String> {
    let mut error: *mut c_char = ptr::null_mut();
    // SAFETY: a live module; `error` is a valid out-pointer.
    if unsafe { rld_materialize_all(module.as_mut_ptr(), &mut error) } {
        Ok(())
    } else {
        Err(take_message(error))
    }
}

/// Gives `module`'s declarations of C library functions the attributes LLVM itself infers
/// for them (its `inferattrs` pass, which the LTO pipeline runs first on the merged module):
/// bitcode from an older compiler, or one that did not run the pass, then tells the
/// analyses what LLVM 22 knows, e.g. that `fwrite` only reads its buffer.
pub fn infer_library_attributes(module: &inkwell::module::Module) -> Result<(), String> {
    use inkwell::llvm_sys::error::{LLVMDisposeErrorMessage, LLVMGetErrorMessage};
    use inkwell::llvm_sys::transforms::pass_builder::LLVMRunPasses;
    let options = inkwell::passes::PassBuilderOptions::create();
    // SAFETY: a live module and options; no target machine is allowed (the library
    // functions come from the module's triple); the error, if any, is read and disposed.
    unsafe {
        let error = LLVMRunPasses(
            module.as_mut_ptr(),
            c"inferattrs".as_ptr(),
            ptr::null_mut(),
            options.as_mut_ptr(),
        );
        if error.is_null() {
            return Ok(());
        }
        let message = LLVMGetErrorMessage(error);
        let text = CStr::from_ptr(message).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(message);
        Err(text)
    }
}

/// Writes `module`'s bitcode to `path`, keeping the order of each value's uses, so that
/// the module read back optimizes and compiles to the same bytes as this one.
pub fn write_bitcode(
    module: &inkwell::module::Module,
    path: &std::path::Path,
) -> Result<(), String> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| "file name contains a NUL byte".to_string())?;
    let mut error: *mut c_char = ptr::null_mut();
    // SAFETY: a live module; the path is NUL-terminated; `error` is a valid out-pointer.
    if unsafe { rld_write_bitcode(module.as_mut_ptr(), c_path.as_ptr(), &mut error) } {
        Ok(())
    } else {
        Err(take_message(error))
    }
}

/// Keeps in a module's debug info only what one LTO partition describes: the global
/// variables it defines, and, in the module's `home` partition, the module-level rest
/// (enums, retained types, imports, variables no global holds).
pub fn trim_debug_info(module: &inkwell::module::Module, home: bool) {
    // SAFETY: a live module whose globals are placed; the shim only edits its compile
    // units' lists.
    unsafe { rld_trim_debug_info(module.as_mut_ptr(), home) }
}

/// Numbers a module's function definitions, from `next`, in the order lld's LTO puts them
/// in its combined module (see the shim); returns the next number. Called on each module
/// before it is linked into its partition's, in input order; [`sort_in_link_order`] then
/// orders the partition's functions by the numbers.
pub fn number_in_link_order(module: &inkwell::module::Module, next: u64) -> u64 {
    // SAFETY: a live, fully read module; the shim only attaches metadata to its functions.
    unsafe { rld_number_in_link_order(module.as_mut_ptr(), next) }
}

/// Puts a linked module's numbered functions in the order of their numbers, first, and
/// removes the numbers.
pub fn sort_in_link_order(module: &inkwell::module::Module) {
    // SAFETY: a live module; the shim moves its functions within its own list.
    unsafe { rld_sort_in_link_order(module.as_mut_ptr()) }
}

/// The name of the COMDAT group global object `g` is in, if any.
pub(crate) fn comdat_name(g: crate::ir::Value) -> Option<String> {
    let mut len = 0usize;
    // SAFETY: `g` is a global of a live module; the name's bytes are the module's and are
    // copied before it changes.
    unsafe {
        let ptr = rld_comdat_name(g.raw(), &mut len);
        if ptr.is_null() {
            return None;
        }
        let bytes = std::slice::from_raw_parts(ptr.cast::<u8>(), len);
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// Whether `module` has module-level inline asm.
pub(crate) fn has_inline_asm(module: &inkwell::module::Module) -> bool {
    let mut len = 0usize;
    // SAFETY: the module is live; LLVM returns a pointer to its own string and its length.
    unsafe { inkwell::llvm_sys::core::LLVMGetModuleInlineAsm(module.as_mut_ptr(), &mut len) };
    len > 0
}

/// The global symbols of `module`'s inline asm (see `rld_module_asm_symbols`); the X86
/// target, with its asm parser, must be initialized.
pub(crate) fn module_asm_symbols(
    module: &inkwell::module::Module,
) -> Vec<rld_summaries::AsmSymbol> {
    extern "C" fn each(
        ctx: *mut std::ffi::c_void,
        name: *const c_char,
        len: usize,
        defined: bool,
        weak: bool,
    ) {
        // SAFETY: `ctx` is the Vec handed in below, alive for the call; `name` points to
        // `len` bytes LLVM keeps for the duration of this callback.
        let (out, bytes) = unsafe {
            (
                &mut *ctx.cast::<Vec<rld_summaries::AsmSymbol>>(),
                std::slice::from_raw_parts(name.cast::<u8>(), len),
            )
        };
        out.push(rld_summaries::AsmSymbol {
            name: String::from_utf8_lossy(bytes).into_owned(),
            defined,
            weak,
        });
    }
    let mut out: Vec<rld_summaries::AsmSymbol> = Vec::new();
    // SAFETY: the module is live for the call; the callback only pushes onto `out`.
    unsafe {
        rld_module_asm_symbols(
            module.as_mut_ptr(),
            (&mut out as *mut Vec<rld_summaries::AsmSymbol>).cast(),
            each,
        )
    };
    out
}

/// Replaces an alias (or ifunc) by a declaration of the same name (aliases cannot be declarations).
pub(crate) fn alias_to_declaration(alias: crate::ir::Value) {
    // SAFETY: `alias` is a GlobalAlias of a live module (callers check the kind); LLVM
    // replaces its uses and erases it, and the caller does not use the value afterwards.
    unsafe { rld_alias_to_declaration(alias.raw()) }
}

/// A path as a C string; None if it holds a NUL byte.
fn path_c_string(path: &Path) -> Result<CString, String> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| format!("{}: a path with a NUL byte", path.display()))
}

/// Runs the pass pipeline `passes` on `module` as `Module::run_passes` (LLVM-C's
/// `LLVMRunPasses`) does, with the loop and SLP vectorizers on or off, with the settings'
/// profiles handed to LLVM's pass builder and to `tm` as lld's LTO hands them (an AutoFDO
/// profile read again after inlining; context-sensitive PGO instrumented or used), and its
/// alias analyses and pass logging (`--lto-aa-pipeline`, `--lto-debug-pass-manager`).
pub fn run_lto_passes(
    module: &Module,
    tm: &TargetMachine,
    passes: &str,
    vectorize: bool,
    settings: &crate::codegen::CodegenSettings,
) -> Result<(), String> {
    let text = |t: &str| CString::new(t).map_err(|_| format!("{t:?}: a NUL byte"));
    let passes = text(passes)?;
    let aa = settings.pipeline.aa.as_deref().map(text).transpose()?;
    let profile = &settings.profile;
    let optional = |p: &Option<std::path::PathBuf>| p.as_deref().map(path_c_string).transpose();
    let sample = optional(&profile.sample)?;
    let cs = optional(&profile.cs_file)?;
    let ptr_of = |c: &Option<CString>| c.as_ref().map_or(ptr::null(), |c| c.as_ptr());
    let plugins: Vec<CString> = settings
        .pipeline
        .plugins
        .iter()
        .map(|p| path_c_string(p))
        .collect::<Result<_, _>>()?;
    let plugin_ptrs: Vec<*const c_char> = plugins.iter().map(|p| p.as_ptr()).collect();
    let mut error = ptr::null_mut();
    // SAFETY: the module and target machine are live for the call; the strings are
    // NUL-terminated (or null) and outlive it; LLVM copies what it keeps.
    let ok = unsafe {
        rld_run_lto_passes(
            module.as_mut_ptr(),
            tm.as_mut_ptr(),
            passes.as_ptr(),
            vectorize,
            ptr_of(&sample),
            ptr_of(&cs),
            profile.cs_generate,
            ptr_of(&aa),
            plugin_ptrs.as_ptr(),
            plugin_ptrs.len(),
            settings.pipeline.debug,
            &mut error,
        )
    };
    if ok {
        Ok(())
    } else {
        Err(take_message(error))
    }
}

/// Compiles `module` to an object whose DWARF is split: the `.dwo` part is written to
/// `dwo`, the object (returned in LLVM's buffer) keeps the skeleton units naming it.
pub fn emit_split_dwarf_object(
    tm: &TargetMachine,
    module: &Module,
    dwo: &Path,
) -> Result<MemoryBuffer<'static>, String> {
    let dwo = path_c_string(dwo)?;
    let mut error = ptr::null_mut();
    // SAFETY: the target machine and module are live for the call, `dwo` is NUL-terminated
    // and outlives it.
    let raw = unsafe {
        rld_emit_split_dwarf_object(
            tm.as_mut_ptr(),
            module.as_mut_ptr(),
            dwo.as_ptr(),
            &mut error,
        )
    };
    if raw.is_null() {
        return Err(take_message(error));
    }
    // SAFETY: `raw` is a new memory buffer (LLVMCreateMemoryBufferWithMemoryRangeCopy)
    // that nothing else owns; the MemoryBuffer disposes of it.
    Ok(unsafe { MemoryBuffer::new(raw) })
}

/// LLVM's Cache-Directed Sort of a call graph: the nodes in the order it lays them out.
/// A malformed graph (lengths that disagree, a call naming no node) gives the nodes in
/// their own order.
pub fn cache_directed_layout(layout: &rld_lto_api::CallLayout) -> Vec<u64> {
    let n = layout.sizes.len();
    let identity = (0..n as u64).collect();
    let nodes_named = layout
        .calls
        .iter()
        .all(|&(from, to, _)| from < n as u64 && to < n as u64);
    if layout.counts.len() != n || layout.offsets.len() != layout.calls.len() || !nodes_named {
        return identity;
    }
    let calls: Vec<u64> = layout
        .calls
        .iter()
        .flat_map(|&(a, b, c)| [a, b, c])
        .collect();
    let mut order = vec![u64::MAX; n];
    // SAFETY: every pointer covers the length passed with it (`sizes` and `counts` n
    // entries, `calls` 3 per call, `offsets` one per call, `order` n); the shim reads them
    // and writes at most n entries of `order`.
    unsafe {
        rld_cache_directed_layout(
            n,
            layout.sizes.as_ptr(),
            layout.counts.as_ptr(),
            layout.calls.len(),
            calls.as_ptr(),
            layout.offsets.as_ptr(),
            order.as_mut_ptr(),
        );
    }
    if order.iter().any(|&o| o >= n as u64) {
        return identity;
    }
    order
}

#[cfg(test)]
mod tests {
    use super::check_producer;

    #[test]
    fn a_newer_producer_is_refused_and_named() {
        let e = check_producer("LLVM23.0.0git", "22.1.8").unwrap_err();
        assert!(
            e.contains("'LLVM23.0.0git'") && e.contains("LLVM 22.1.8"),
            "{e}"
        );
    }

    #[test]
    fn older_and_same_producers_and_other_spellings_are_read() {
        for producer in [
            "LLVM14.0.6",
            "LLVM22.1.8",
            "LLVM22.1.2-rust-1.95.0-stable",
            "APPLE_1_1500.3.9.4_0",
            "",
        ] {
            assert_eq!(check_producer(producer, "22.1.8"), Ok(()), "{producer}");
        }
    }
}
