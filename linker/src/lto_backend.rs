//! Where the LTO step's LLVM side comes from. The `rld` binary does not link LLVM: loading
//! it costs a link about 15 ms and 45 MB, which a link without bitcode should not pay. The
//! first link step that needs LLVM loads rld's LTO library (`librld_plugin.so`, which is
//! also rld's gold plugin) and keeps it for the rest of the process. A program that links
//! the LTO driver itself installs it instead ([`install`]).

use crate::error::{LinkError, Result};
use rld_lto_api::{BackendSettings, LtoBackend, ENTRY_SYMBOL, FINGERPRINT};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The library's file name.
pub const LIBRARY: &str = "librld_plugin.so";

/// Overrides where the library is looked for.
pub const LIBRARY_ENV: &str = "RLD_LTO_LIBRARY";

static BACKEND: OnceLock<std::result::Result<&'static dyn LtoBackend, String>> = OnceLock::new();
static SETTINGS: Mutex<BackendSettings> = Mutex::new(BackendSettings {
    threads: None,
    child_processes: false,
});

/// Uses `backend` for every LTO step of this process (before the first one).
pub fn install(backend: &'static dyn LtoBackend) {
    let _ = BACKEND.set(Ok(backend));
}

/// How the loaded backend is to run (the `rld` binary's `--threads`, and running LLVM in
/// child processes); told before the first link step that needs LLVM.
pub fn configure(settings: BackendSettings) {
    *SETTINGS.lock().unwrap_or_else(|e| e.into_inner()) = settings;
}

/// The backend, loaded on first use.
pub fn backend() -> Result<&'static dyn LtoBackend> {
    let loaded = BACKEND.get_or_init(|| {
        let backend = load()?;
        backend.init(*SETTINGS.lock().unwrap_or_else(|e| e.into_inner()));
        Ok(backend)
    });
    loaded.clone().map_err(LinkError::Link)
}

/// Where the library may be: `$RLD_LTO_LIBRARY`, else beside the running binary (a build
/// tree) or in `../lib` from it (an install: `bin/rld`, `lib/librld_plugin.so`).
fn candidates() -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os(LIBRARY_ENV).filter(|p| !p.is_empty()) {
        return vec![PathBuf::from(p)];
    }
    // The executable's real path: `ld.rld` or `ld` may be a symlink to it.
    let Ok(exe) = std::env::current_exe().and_then(|e| e.canonicalize()) else {
        return Vec::new();
    };
    let Some(dir) = exe.parent() else {
        return Vec::new();
    };
    vec![
        dir.join(LIBRARY),
        dir.join("../lib").join(LIBRARY),
        dir.join("../lib/rld").join(LIBRARY),
    ]
}

fn load() -> std::result::Result<&'static dyn LtoBackend, String> {
    let places = candidates();
    let Some(path) = places.iter().find(|p| p.is_file()) else {
        let looked: Vec<String> = places.iter().map(|p| p.display().to_string()).collect();
        return Err(format!(
            "linking LLVM bitcode needs rld's LTO library {LIBRARY}, installed with rld; it is not at {} (set {LIBRARY_ENV} to where it is)",
            looked.join(" nor at ")
        ));
    };
    open(path).map_err(|e| format!("{}: {e}", path.display()))
}

type Entry = fn(&str) -> Option<&'static dyn LtoBackend>;

fn open(path: &Path) -> std::result::Result<&'static dyn LtoBackend, String> {
    // SAFETY: the library is rld's own LTO library: loading it runs LLVM's initializers,
    // nothing else; it stays loaded for the rest of the process (leaked below), so the
    // `'static` references it hands out stay valid.
    let library = unsafe { libloading::Library::new(path) }.map_err(|e| e.to_string())?;
    // SAFETY: the entry point has this signature in rld's LTO library (`rld-plugin`); a
    // library that lacks the symbol is refused here, and one built from other sources
    // answers the fingerprint with None.
    let entry: Entry = unsafe { library.get::<Entry>(ENTRY_SYMBOL) }
        .map(|symbol| *symbol)
        .map_err(|_| "not rld's LTO library (it has no rld_lto_backend)".to_string())?;
    let backend = entry(FINGERPRINT).ok_or_else(|| {
        "rld's LTO library is from another build of rld: install rld and its library together"
            .to_string()
    })?;
    std::mem::forget(library);
    Ok(backend)
}
