//! The host's half of the transfer vector: the functions a plugin calls back. They take no
//! context pointer, so what they record lives in one process-wide [`State`]; its lock is
//! never held while a plugin runs, because a plugin calls back from inside every hook.

use super::PluginSymbol;
use rld_plugin_api as api;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::os::fd::IntoRawFd;
use std::path::PathBuf;
use std::sync::Mutex;

/// The hooks one plugin registered from `onload`.
#[derive(Default, Clone, Copy)]
pub(super) struct Hooks {
    pub claim_file: Option<api::ClaimFileHandler>,
    pub all_symbols_read: Option<api::AllSymbolsReadHandler>,
    pub cleanup: Option<api::CleanupHandler>,
}

/// A file offered to the plugins: what `get_input_file` and `get_view` answer about it.
pub(super) struct OfferedFile {
    pub name: std::ffi::CString,
    pub path: PathBuf,
    pub offset: u64,
    pub data: &'static [u8],
}

#[derive(Default)]
pub(super) struct State {
    pub hooks: Vec<Hooks>,
    /// Files offered so far; a file's handle is its index plus one.
    pub offered: Vec<OfferedFile>,
    /// The symbols a plugin added for a handle when it claimed the file.
    pub symbols: HashMap<usize, Vec<PluginSymbol>>,
    /// The linker's resolution of those symbols, ready before all-symbols-read.
    pub resolutions: HashMap<usize, Vec<api::Resolution>>,
    pub added_files: Vec<PathBuf>,
    pub added_libraries: Vec<String>,
    pub library_paths: Vec<PathBuf>,
    /// Messages of level ERROR: the link fails once the hook returns.
    pub errors: Vec<String>,
}

pub(super) static STATE: Mutex<Option<State>> = Mutex::new(None);

/// Runs `f` on the state (created on first use).
pub(super) fn with_state<R>(f: impl FnOnce(&mut State) -> R) -> R {
    let mut guard = STATE.lock().unwrap_or_else(|e| e.into_inner());
    f(guard.get_or_insert_with(State::default))
}

pub(super) fn handle_of(index: usize) -> *mut c_void {
    (index + 1) as *mut c_void
}

fn index_of(handle: *const c_void) -> Option<usize> {
    (handle as usize).checked_sub(1)
}

/// A C string from the plugin, or `None` for a null pointer.
///
/// # Safety
/// `p` is null or points to a NUL-terminated string.
unsafe fn string(p: *const c_char) -> Option<String> {
    // SAFETY: the caller guarantees a valid C string when non-null.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

unsafe extern "C" fn register_claim_file(handler: api::ClaimFileHandler) -> api::Status {
    with_state(|s| s.hooks.last_mut().map(|h| h.claim_file = Some(handler)));
    api::Status::OK
}

unsafe extern "C" fn register_all_symbols_read(handler: api::AllSymbolsReadHandler) -> api::Status {
    with_state(|s| {
        s.hooks
            .last_mut()
            .map(|h| h.all_symbols_read = Some(handler))
    });
    api::Status::OK
}

unsafe extern "C" fn register_cleanup(handler: api::CleanupHandler) -> api::Status {
    with_state(|s| s.hooks.last_mut().map(|h| h.cleanup = Some(handler)));
    api::Status::OK
}

/// `add_symbols` and `add_symbols_v2`: the v2 fields (`symbol_type`, `section_kind`) are
/// zero, meaning "unknown" and "default", for a v1 caller.
unsafe extern "C" fn add_symbols(
    handle: *mut c_void,
    nsyms: c_int,
    syms: *const api::Symbol,
) -> api::Status {
    let Some(index) = index_of(handle) else {
        return api::Status::BAD_HANDLE;
    };
    let syms: &[api::Symbol] = if nsyms <= 0 || syms.is_null() {
        &[]
    } else {
        // SAFETY: the plugin passes `nsyms` symbols at `syms` (the interface's contract).
        unsafe { std::slice::from_raw_parts(syms, nsyms as usize) }
    };
    let symbols: Vec<PluginSymbol> = syms
        .iter()
        .map(|s| PluginSymbol {
            // SAFETY: the interface's strings are NUL-terminated or null.
            name: unsafe { string(s.name) }.unwrap_or_default(),
            version: unsafe { string(s.version) },
            comdat_key: unsafe { string(s.comdat_key) },
            kind: api::SymbolKind(s.def as c_int),
            symbol_type: api::SymbolType(s.symbol_type as c_int),
            visibility: api::Visibility(s.visibility),
            size: s.size,
        })
        .collect();
    with_state(|s| {
        if index >= s.offered.len() {
            return api::Status::BAD_HANDLE;
        }
        s.symbols.entry(index).or_default().extend(symbols);
        api::Status::OK
    })
}

/// `get_symbols` (v1): an exported IR-only definition is reported as `PREVAILING_DEF`,
/// the only value such a plugin knows for it.
unsafe extern "C" fn get_symbols_v1(
    handle: *const c_void,
    nsyms: c_int,
    syms: *mut api::Symbol,
) -> api::Status {
    // SAFETY: forwarded unchanged; the contract is the same.
    unsafe { fill_resolutions(handle, nsyms, syms, false) }
}

unsafe extern "C" fn get_symbols_v2(
    handle: *const c_void,
    nsyms: c_int,
    syms: *mut api::Symbol,
) -> api::Status {
    // SAFETY: forwarded unchanged; the contract is the same.
    unsafe { fill_resolutions(handle, nsyms, syms, true) }
}

/// # Safety
/// `syms` points to `nsyms` writable symbols (the interface's contract).
unsafe fn fill_resolutions(
    handle: *const c_void,
    nsyms: c_int,
    syms: *mut api::Symbol,
    exp: bool,
) -> api::Status {
    let Some(index) = index_of(handle) else {
        return api::Status::BAD_HANDLE;
    };
    let Some(resolutions) = with_state(|s| s.resolutions.get(&index).cloned()) else {
        return api::Status::NO_SYMS;
    };
    if nsyms <= 0 || syms.is_null() {
        return api::Status::OK;
    }
    // SAFETY: the caller's contract.
    let syms = unsafe { std::slice::from_raw_parts_mut(syms, nsyms as usize) };
    for (sym, &r) in syms.iter_mut().zip(&resolutions) {
        sym.resolution = if !exp && r == api::Resolution::PREVAILING_DEF_IRONLY_EXP {
            api::Resolution::PREVAILING_DEF.0
        } else {
            r.0
        };
    }
    api::Status::OK
}

/// Records a string a plugin passes (a path, a library name) in the state.
///
/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn record(p: *const c_char, store: impl FnOnce(&mut State, String)) -> api::Status {
    // SAFETY: the caller's contract.
    match unsafe { string(p) } {
        Some(v) => {
            with_state(|s| store(s, v));
            api::Status::OK
        }
        None => api::Status::ERR,
    }
}

unsafe extern "C" fn add_input_file(path: *const c_char) -> api::Status {
    // SAFETY: the plugin passes a C string.
    unsafe { record(path, |s, p| s.added_files.push(p.into())) }
}

unsafe extern "C" fn add_input_library(name: *const c_char) -> api::Status {
    // SAFETY: the plugin passes a C string.
    unsafe { record(name, |s, n| s.added_libraries.push(n)) }
}

unsafe extern "C" fn set_extra_library_path(path: *const c_char) -> api::Status {
    // SAFETY: the plugin passes a C string.
    unsafe { record(path, |s, p| s.library_paths.push(p.into())) }
}

/// `get_input_file`: a fresh descriptor of the file, closed by `release_input_file`.
unsafe extern "C" fn get_input_file(
    handle: *const c_void,
    file: *mut api::InputFile,
) -> api::Status {
    let Some(index) = index_of(handle) else {
        return api::Status::BAD_HANDLE;
    };
    let found = with_state(|s| {
        s.offered
            .get(index)
            .map(|f| (f.name.as_ptr(), f.path.clone(), f.offset, f.data.len()))
    });
    let Some((name, path, offset, size)) = found else {
        return api::Status::BAD_HANDLE;
    };
    let Ok(fd) = std::fs::File::open(&path) else {
        return api::Status::ERR;
    };
    // SAFETY: `file` points to a writable struct (the interface's contract); `name` lives
    // in the state for the rest of the process.
    unsafe {
        *file = api::InputFile {
            name,
            fd: fd.into_raw_fd(),
            offset: offset as i64,
            filesize: size as i64,
            handle: handle as *mut c_void,
        };
    }
    api::Status::OK
}

unsafe extern "C" fn release_input_file(_handle: *const c_void) -> api::Status {
    // The descriptor `get_input_file` opened is the plugin's to close once it has it; the
    // linker keeps nothing else open for it.
    api::Status::OK
}

unsafe extern "C" fn get_view(handle: *const c_void, view: *mut *const c_void) -> api::Status {
    let Some(index) = index_of(handle) else {
        return api::Status::BAD_HANDLE;
    };
    let Some(data) = with_state(|s| s.offered.get(index).map(|f| f.data)) else {
        return api::Status::BAD_HANDLE;
    };
    // SAFETY: `view` is writable (the interface's contract); the data is mapped for the
    // rest of the process.
    unsafe { *view = data.as_ptr().cast() };
    api::Status::OK
}

extern "C" {
    /// `message.c`: formats and calls [`rld_plugin_message_text`].
    fn rld_plugin_message(level: c_int, format: *const c_char, ...) -> api::Status;
}

/// The text of a plugin's message. A fatal one ends the link here, as in GNU ld: the
/// plugin goes on after `message` returns as if the linker had stopped.
#[no_mangle]
extern "C" fn rld_plugin_message_text(level: c_int, text: *const c_char) -> api::Status {
    // SAFETY: message.c passes a NUL-terminated string.
    let text = unsafe { string(text) }.unwrap_or_default();
    match api::Level(level) {
        api::Level::INFO => eprintln!("rld: {text}"),
        api::Level::WARNING => crate::diag::warn(&text),
        // Reported as the link's error when the hook returns.
        api::Level::ERROR => with_state(|s| s.errors.push(text)),
        _ => {
            eprintln!("rld: error: {text}");
            super::run_cleanup();
            std::process::exit(1);
        }
    }
    api::Status::OK
}

/// The transfer vector handed to `onload`: every entry the host implements, then the
/// options and facts of this link. The strings must outlive the call.
pub(super) fn transfer_vector(
    output_type: api::OutputType,
    output_name: &CStr,
    options: &[std::ffi::CString],
) -> Vec<api::Tv> {
    let entry = |tag: api::Tag, value: api::TvValue| api::Tv { tag, value };
    let mut tv = vec![
        entry(
            api::Tag::API_VERSION,
            api::TvValue {
                val: api::API_VERSION,
            },
        ),
        entry(api::Tag::LINKER_OUTPUT, api::TvValue { val: output_type.0 }),
        entry(
            api::Tag::OUTPUT_NAME,
            api::TvValue {
                string: output_name.as_ptr(),
            },
        ),
        entry(
            api::Tag::REGISTER_CLAIM_FILE_HOOK,
            api::TvValue {
                register_claim_file,
            },
        ),
        entry(
            api::Tag::REGISTER_ALL_SYMBOLS_READ_HOOK,
            api::TvValue {
                register_all_symbols_read,
            },
        ),
        entry(
            api::Tag::REGISTER_CLEANUP_HOOK,
            api::TvValue { register_cleanup },
        ),
        entry(api::Tag::ADD_SYMBOLS, api::TvValue { add_symbols }),
        entry(api::Tag::ADD_SYMBOLS_V2, api::TvValue { add_symbols }),
        entry(
            api::Tag::GET_SYMBOLS,
            api::TvValue {
                get_symbols: get_symbols_v1,
            },
        ),
        entry(
            api::Tag::GET_SYMBOLS_V2,
            api::TvValue {
                get_symbols: get_symbols_v2,
            },
        ),
        entry(api::Tag::ADD_INPUT_FILE, api::TvValue { add_input_file }),
        entry(
            api::Tag::ADD_INPUT_LIBRARY,
            api::TvValue { add_input_library },
        ),
        entry(
            api::Tag::SET_EXTRA_LIBRARY_PATH,
            api::TvValue {
                set_extra_library_path,
            },
        ),
        entry(
            api::Tag::MESSAGE,
            api::TvValue {
                message: rld_plugin_message,
            },
        ),
        entry(api::Tag::GET_INPUT_FILE, api::TvValue { get_input_file }),
        entry(
            api::Tag::RELEASE_INPUT_FILE,
            api::TvValue { release_input_file },
        ),
        entry(api::Tag::GET_VIEW, api::TvValue { get_view }),
    ];
    for option in options {
        tv.push(entry(
            api::Tag::OPTION,
            api::TvValue {
                string: option.as_ptr(),
            },
        ));
    }
    tv.push(entry(api::Tag::NULL, api::TvValue { val: 0 }));
    tv
}
