//! rld's LTO as a gold-API linker plugin (`librld_plugin.so`) for GNU ld, gold and mold:
//! `ld -plugin librld_plugin.so -plugin-opt=...`. The host offers every input file; the
//! plugin claims LLVM bitcode and reports its symbols, and once the host has resolved them
//! it runs the same LTO driver the `rld` linker runs (summaries, dead-symbol worklist,
//! called-value propagation, alias analysis, parallel backends, remarks) and hands the
//! objects back. The hooks take no context pointer, so the plugin's state is one global.

mod claim;
mod host;
mod lto;
mod resolve;

use claim::ClaimedModule;
use host::HostApi;
use rld_lto_driver::{apply_plugin_opt, LtoOptions, PluginOpt};
use rld_plugin_api as api;
use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Mutex;

/// What the plugin keeps between the host's calls.
struct Plugin {
    host: HostApi,
    output: PathBuf,
    opts: LtoOptions,
    modules: Vec<ClaimedModule>,
    /// The symbols of modules already compiled: the host may still read their names.
    reported: Vec<claim::HostSymbols>,
    /// Objects written for the host to read, removed by the cleanup hook.
    temporaries: Vec<PathBuf>,
}

static PLUGIN: Mutex<Option<Plugin>> = Mutex::new(None);

fn with_plugin<R>(f: impl FnOnce(&mut Plugin) -> R) -> Option<R> {
    let mut guard = PLUGIN.lock().unwrap_or_else(|e| e.into_inner());
    guard.as_mut().map(f)
}

/// The host's API, to report through without holding the state's lock.
fn host_api() -> HostApi {
    with_plugin(|p| p.host).unwrap_or_default()
}

/// Runs a hook, turning a panic into an error the host reports (unwinding into C is
/// undefined behaviour).
fn guarded(hook: &str, f: impl FnOnce() -> api::Status) -> api::Status {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("unknown cause");
        host_api().error(&format!("rld plugin: internal error in {hook}: {what}"));
        api::Status::ERR
    })
}

/// Applies the host's `-plugin-opt=` options; an option the plugin does not know is an
/// error, so a typo never silently changes nothing.
fn parse_options(host: &HostApi, options: &[String]) -> Option<LtoOptions> {
    let mut opts = LtoOptions::default();
    let mut ok = true;
    for option in options {
        match apply_plugin_opt(&mut opts, option) {
            Ok(PluginOpt::Applied | PluginOpt::LlvmOption) => {}
            Ok(PluginOpt::Ignored(why)) => host.message(
                api::Level::WARNING,
                &format!("rld plugin: -plugin-opt={option} is ignored: {why}"),
            ),
            Ok(PluginOpt::Unknown) => {
                host.error(&format!("rld plugin: unknown option -plugin-opt={option}"));
                ok = false;
            }
            Err(e) => {
                host.error(&format!("rld plugin: {e}"));
                ok = false;
            }
        }
    }
    // The host links what the plugin hands it: objects only.
    if opts.emit != rld_lto_api::Emit::Object {
        host.message(
            api::Level::WARNING,
            "rld plugin: -plugin-opt=emit-llvm and emit-asm are ignored: the host linker \
             links the plugin's objects (rld itself writes bitcode or assembly)",
        );
        opts.emit = rld_lto_api::Emit::Object;
    }
    ok.then_some(opts)
}

/// The plugin's entry point.
///
/// # Safety
/// `tv` is the host's transfer vector, ending with a `NULL` entry.
#[no_mangle]
pub unsafe extern "C" fn onload(tv: *mut api::Tv) -> api::Status {
    guarded("onload", || {
        // SAFETY: the caller's contract.
        let t = unsafe { host::read_transfer_vector(tv) };
        let host = t.api;
        let (Some(register_claim), Some(register_all_read), Some(_), Some(_)) = (
            host.register_claim_file,
            host.register_all_symbols_read,
            host.add_symbols,
            host.add_input_file,
        ) else {
            host.error("rld plugin: the linker lacks the plugin services LTO needs");
            return api::Status::ERR;
        };
        let Some(opts) = parse_options(&host, &t.options) else {
            return api::Status::ERR;
        };
        *PLUGIN.lock().unwrap_or_else(|e| e.into_inner()) = Some(Plugin {
            host,
            output: t.output_name.unwrap_or_else(|| PathBuf::from("a.out")),
            opts,
            modules: Vec::new(),
            reported: Vec::new(),
            temporaries: Vec::new(),
        });
        // SAFETY: registering our hooks with the host's own functions.
        unsafe {
            if register_claim(claim_file) != api::Status::OK
                || register_all_read(all_symbols_read) != api::Status::OK
            {
                return api::Status::ERR;
            }
            if let Some(register_cleanup) = host.register_cleanup {
                register_cleanup(cleanup);
            }
        }
        api::Status::OK
    })
}

/// Claims LLVM bitcode and reports its symbols; declines everything else.
unsafe extern "C" fn claim_file(file: *const api::InputFile, claimed: *mut c_int) -> api::Status {
    guarded("claim-file", || {
        // SAFETY: the host passes a valid file and a writable flag.
        let (file, claimed) = unsafe { (&*file, &mut *claimed) };
        *claimed = 0;
        if !claim::is_bitcode(file) {
            return api::Status::OK;
        }
        let host = host_api();
        let cache_dir = with_plugin(|p| p.opts.cache_dir.clone()).flatten();
        let typed = host.add_symbols_v2.is_some();
        let warn = |msg: &str| host.message(api::Level::WARNING, msg);
        let mut module = match claim::claim(file, cache_dir.as_deref(), typed, &warn) {
            Ok(m) => m,
            Err(e) => {
                host.error(&e.0);
                return api::Status::ERR;
            }
        };
        let syms = &mut module.host_symbols.symbols;
        let add_symbols = host
            .add_symbols_v2
            .or(host.add_symbols)
            .expect("checked in onload");
        // SAFETY: the symbols and their strings live as long as the module, which the
        // plugin keeps to the end of the link (hosts hold on to them).
        let status = unsafe { add_symbols(file.handle, syms.len() as c_int, syms.as_mut_ptr()) };
        if status != api::Status::OK {
            host.error(&format!("{}: the linker refused its symbols", module.name));
            return api::Status::ERR;
        }
        with_plugin(|p| p.modules.push(module));
        *claimed = 1;
        api::Status::OK
    })
}

/// Runs LTO on the claimed modules the link uses and adds the objects it makes.
unsafe extern "C" fn all_symbols_read() -> api::Status {
    guarded("all-symbols-read", || {
        let Some((host, output, opts, mut modules)) = with_plugin(|p| {
            (
                p.host,
                p.output.clone(),
                p.opts.clone(),
                std::mem::take(&mut p.modules),
            )
        }) else {
            return api::Status::ERR;
        };
        if modules.is_empty() {
            return api::Status::OK;
        }
        let result = lto::run(&host, &output, &opts, &mut modules);
        with_plugin(|p| {
            p.reported
                .extend(modules.into_iter().map(|m| m.host_symbols))
        });
        match result {
            Ok(files) => {
                with_plugin(|p| p.temporaries.extend(files.temporaries));
                api::Status::OK
            }
            Err(e) => {
                host.error(&e);
                api::Status::ERR
            }
        }
    })
}

/// Removes the objects the plugin wrote for the host (kept with `save-temps`/`obj-path`).
unsafe extern "C" fn cleanup() -> api::Status {
    guarded("cleanup", || {
        for path in with_plugin(|p| std::mem::take(&mut p.temporaries)).unwrap_or_default() {
            let _ = std::fs::remove_file(path);
        }
        api::Status::OK
    })
}

/// The entry point the `rld` binary calls when it loads this library for its own LTO (it
/// does not link LLVM itself): the driver, if `fingerprint` says the caller was built from
/// the same sources by the same compiler. Rust's ABI on both sides, on purpose: the values
/// that cross are Rust's (see `rld_lto_api::LtoBackend`).
#[no_mangle]
pub fn rld_lto_backend(fingerprint: &str) -> Option<&'static dyn rld_lto_api::LtoBackend> {
    (fingerprint == rld_lto_api::FINGERPRINT).then_some(&rld_lto_driver::InProcess)
}
