//! The host linker as the plugin sees it: the services its transfer vector offers, read
//! once in `onload`, and messages through its `message` callback so that they look like the
//! host's own and a fatal one stops the host the way it stops itself.

use rld_plugin_api as api;
use std::ffi::{c_char, CStr, CString};
use std::path::PathBuf;

/// The host's services and the facts of the link it gave in the transfer vector.
#[derive(Clone, Copy, Default)]
pub struct HostApi {
    pub message: Option<api::Message>,
    pub register_claim_file: Option<api::RegisterClaimFile>,
    pub register_all_symbols_read: Option<api::RegisterAllSymbolsRead>,
    pub register_cleanup: Option<api::RegisterCleanup>,
    pub add_symbols: Option<api::AddSymbols>,
    /// `add_symbols_v2`: reads `symbol_type` and `section_kind`; v1 hosts read the four
    /// bytes from `def` on as one `int`, so those must be zero for them.
    pub add_symbols_v2: Option<api::AddSymbols>,
    pub get_symbols: Option<api::GetSymbols>,
    /// `get_symbols_v2`: knows `PREVAILING_DEF_IRONLY_EXP`.
    pub get_symbols_v2: Option<api::GetSymbols>,
    /// `get_symbols_v3`: also answers `NO_SYMS` for a claimed file the link did not use.
    pub get_symbols_v3: Option<api::GetSymbols>,
    pub add_input_file: Option<api::AddInputFile>,
    pub output_type: Option<api::OutputType>,
}

/// Everything `onload` read: the services, the output's name and the options.
#[derive(Default)]
pub struct Transfer {
    pub api: HostApi,
    pub output_name: Option<PathBuf>,
    pub options: Vec<String>,
}

/// Reads the transfer vector.
///
/// # Safety
/// `tv` points to entries ending with a `NULL` tag, as the interface prescribes.
pub unsafe fn read_transfer_vector(mut tv: *const api::Tv) -> Transfer {
    let mut t = Transfer::default();
    let string = |p: *const c_char| {
        // SAFETY: string entries hold NUL-terminated strings or null.
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    };
    loop {
        // SAFETY: the caller's contract: every entry up to the NULL one is readable, and
        // the union member read is the one the tag names.
        let entry = unsafe { &*tv };
        let v = &entry.value;
        unsafe {
            match entry.tag {
                api::Tag::NULL => break,
                api::Tag::MESSAGE => t.api.message = Some(v.message),
                api::Tag::REGISTER_CLAIM_FILE_HOOK => {
                    t.api.register_claim_file = Some(v.register_claim_file)
                }
                api::Tag::REGISTER_ALL_SYMBOLS_READ_HOOK => {
                    t.api.register_all_symbols_read = Some(v.register_all_symbols_read)
                }
                api::Tag::REGISTER_CLEANUP_HOOK => {
                    t.api.register_cleanup = Some(v.register_cleanup)
                }
                api::Tag::ADD_SYMBOLS => t.api.add_symbols = Some(v.add_symbols),
                api::Tag::ADD_SYMBOLS_V2 => t.api.add_symbols_v2 = Some(v.add_symbols),
                api::Tag::GET_SYMBOLS => t.api.get_symbols = Some(v.get_symbols),
                api::Tag::GET_SYMBOLS_V2 => t.api.get_symbols_v2 = Some(v.get_symbols),
                api::Tag::GET_SYMBOLS_V3 => t.api.get_symbols_v3 = Some(v.get_symbols),
                api::Tag::ADD_INPUT_FILE => t.api.add_input_file = Some(v.add_input_file),
                api::Tag::LINKER_OUTPUT => t.api.output_type = Some(api::OutputType(v.val)),
                api::Tag::OUTPUT_NAME => t.output_name = string(v.string).map(PathBuf::from),
                api::Tag::OPTION => t.options.extend(string(v.string)),
                _ => {}
            }
            tv = tv.add(1);
        }
    }
    t
}

impl HostApi {
    /// A message through the host (as `"%s"`, so the text is never read as a format).
    /// Without a `message` service it goes to standard error.
    pub fn message(&self, level: api::Level, text: &str) {
        let text = CString::new(text.replace('\0', " ")).unwrap_or_default();
        match self.message {
            // SAFETY: a printf-like host function given a format and its one argument.
            Some(message) => unsafe {
                message(level.0, c"%s".as_ptr(), text.as_ptr());
            },
            None => eprintln!("rld plugin: {}", text.to_string_lossy()),
        }
    }

    pub fn error(&self, text: &str) {
        self.message(api::Level::ERROR, text)
    }
}
