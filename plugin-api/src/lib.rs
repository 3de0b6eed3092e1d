//! The gold linker plugin interface (binutils' `include/plugin-api.h`), once, in Rust: the
//! types both sides share, for rld hosting a plugin (gcc's `liblto_plugin.so`) and for rld's
//! own LTO shipped as a plugin to GNU ld, gold and mold.
//!
//! C enums cross this interface as plain `int`s that the other side may set to any value,
//! so each is a newtype over `c_int` with its values as constants (a Rust `enum` holding an
//! unknown value would be undefined behaviour). Layouts are checked against the C header by
//! `tests/layout.rs`.

use std::ffi::{c_char, c_int, c_uint, c_void};

macro_rules! c_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $value:ident = $n:expr,)* }) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $name(pub c_int);

        impl $name {
            $($(#[$vdoc])* pub const $value: $name = $name($n);)*

            /// Every named value, with its C name's tail, for tests and messages.
            pub const ALL: &'static [($name, &'static str)] = &[$(($name::$value, stringify!($value)),)*];
        }
    };
}

c_enum! {
    /// `enum ld_plugin_status`: what most calls return.
    Status {
        OK = 0,
        /// Asked for the symbols of a file that added none.
        NO_SYMS = 1,
        /// No claimed file has this handle.
        BAD_HANDLE = 2,
        ERR = 3,
    }
}

c_enum! {
    /// `enum ld_plugin_output_file_type`: what the link makes (`LDPT_LINKER_OUTPUT`).
    OutputType {
        REL = 0,
        EXEC = 1,
        DYN = 2,
        PIE = 3,
    }
}

c_enum! {
    /// `enum ld_plugin_symbol_kind`: a symbol's `def` field.
    SymbolKind {
        DEF = 0,
        WEAKDEF = 1,
        UNDEF = 2,
        WEAKUNDEF = 3,
        COMMON = 4,
    }
}

c_enum! {
    /// `enum ld_plugin_symbol_visibility`.
    Visibility {
        DEFAULT = 0,
        PROTECTED = 1,
        INTERNAL = 2,
        HIDDEN = 3,
    }
}

c_enum! {
    /// `enum ld_plugin_symbol_type`: a symbol's `symbol_type` field (`get_symbols_v2`+).
    SymbolType {
        UNKNOWN = 0,
        FUNCTION = 1,
        VARIABLE = 2,
    }
}

c_enum! {
    /// `enum ld_plugin_symbol_section_kind`: a symbol's `section_kind` field.
    SectionKind {
        DEFAULT = 0,
        BSS = 1,
    }
}

c_enum! {
    /// `enum ld_plugin_symbol_resolution`: how the linker resolved a plugin's symbol.
    Resolution {
        UNKNOWN = 0,
        /// An undefined reference.
        UNDEF = 1,
        /// This definition prevails, and regular objects reference it.
        PREVAILING_DEF = 2,
        /// This definition prevails, and only IR references it.
        PREVAILING_DEF_IRONLY = 3,
        /// A regular object's definition prevails over this one.
        PREEMPTED_REG = 4,
        /// Another IR file's definition prevails over this one.
        PREEMPTED_IR = 5,
        /// A reference resolved to an IR definition.
        RESOLVED_IR = 6,
        /// A reference resolved to a regular object's definition.
        RESOLVED_EXEC = 7,
        /// A reference resolved to a shared library's definition.
        RESOLVED_DYN = 8,
        /// Like `PREVAILING_DEF_IRONLY`, but the symbol is exported (dynamic symbol table).
        PREVAILING_DEF_IRONLY_EXP = 9,
    }
}

c_enum! {
    /// `enum ld_plugin_level`: the severity of a `message`.
    Level {
        INFO = 0,
        WARNING = 1,
        ERROR = 2,
        FATAL = 3,
    }
}

c_enum! {
    /// `enum ld_plugin_tag`: the kind of a transfer-vector entry.
    Tag {
        NULL = 0,
        API_VERSION = 1,
        GOLD_VERSION = 2,
        LINKER_OUTPUT = 3,
        OPTION = 4,
        REGISTER_CLAIM_FILE_HOOK = 5,
        REGISTER_ALL_SYMBOLS_READ_HOOK = 6,
        REGISTER_CLEANUP_HOOK = 7,
        ADD_SYMBOLS = 8,
        GET_SYMBOLS = 9,
        ADD_INPUT_FILE = 10,
        MESSAGE = 11,
        GET_INPUT_FILE = 12,
        RELEASE_INPUT_FILE = 13,
        ADD_INPUT_LIBRARY = 14,
        OUTPUT_NAME = 15,
        SET_EXTRA_LIBRARY_PATH = 16,
        GNU_LD_VERSION = 17,
        GET_VIEW = 18,
        GET_INPUT_SECTION_COUNT = 19,
        GET_INPUT_SECTION_TYPE = 20,
        GET_INPUT_SECTION_NAME = 21,
        GET_INPUT_SECTION_CONTENTS = 22,
        UPDATE_SECTION_ORDER = 23,
        ALLOW_SECTION_ORDERING = 24,
        GET_SYMBOLS_V2 = 25,
        ALLOW_UNIQUE_SEGMENT_FOR_SECTIONS = 26,
        UNIQUE_SEGMENT_FOR_SECTIONS = 27,
        GET_SYMBOLS_V3 = 28,
        GET_INPUT_SECTION_ALIGNMENT = 29,
        GET_INPUT_SECTION_SIZE = 30,
        REGISTER_NEW_INPUT_HOOK = 31,
        GET_WRAP_SYMBOLS = 32,
        ADD_SYMBOLS_V2 = 33,
        GET_API_VERSION = 34,
    }
}

/// `LD_PLUGIN_API_VERSION`, the value of the `API_VERSION` entry.
pub const API_VERSION: c_int = 1;

/// `struct ld_plugin_input_file`: a file offered to the claim-file handler. `offset` and
/// `filesize` place an archive member inside its archive; `handle` is the linker's.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct InputFile {
    pub name: *const c_char,
    pub fd: c_int,
    pub offset: i64,
    pub filesize: i64,
    pub handle: *mut c_void,
}

/// `struct ld_plugin_symbol` (little-endian field order of the `def` bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Symbol {
    pub name: *mut c_char,
    pub version: *mut c_char,
    /// A [`SymbolKind`] value.
    pub def: c_char,
    /// A [`SymbolType`] value.
    pub symbol_type: c_char,
    /// A [`SectionKind`] value.
    pub section_kind: c_char,
    pub unused: c_char,
    /// A [`Visibility`] value.
    pub visibility: c_int,
    pub size: u64,
    pub comdat_key: *mut c_char,
    /// A [`Resolution`] value, filled by `get_symbols`.
    pub resolution: c_int,
}

/// `struct ld_plugin_section`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Section {
    pub handle: *const c_void,
    pub shndx: c_uint,
}

// The plugin's handlers, which the linker calls.
pub type ClaimFileHandler =
    unsafe extern "C" fn(file: *const InputFile, claimed: *mut c_int) -> Status;
pub type AllSymbolsReadHandler = unsafe extern "C" fn() -> Status;
pub type CleanupHandler = unsafe extern "C" fn() -> Status;
pub type NewInputHandler = unsafe extern "C" fn(file: *const InputFile) -> Status;

// The linker's services, which the plugin calls.
pub type RegisterClaimFile = unsafe extern "C" fn(handler: ClaimFileHandler) -> Status;
pub type RegisterAllSymbolsRead = unsafe extern "C" fn(handler: AllSymbolsReadHandler) -> Status;
pub type RegisterCleanup = unsafe extern "C" fn(handler: CleanupHandler) -> Status;
pub type RegisterNewInput = unsafe extern "C" fn(handler: NewInputHandler) -> Status;
pub type AddSymbols =
    unsafe extern "C" fn(handle: *mut c_void, nsyms: c_int, syms: *const Symbol) -> Status;
pub type GetSymbols =
    unsafe extern "C" fn(handle: *const c_void, nsyms: c_int, syms: *mut Symbol) -> Status;
pub type GetInputFile = unsafe extern "C" fn(handle: *const c_void, file: *mut InputFile) -> Status;
pub type GetView = unsafe extern "C" fn(handle: *const c_void, view: *mut *const c_void) -> Status;
pub type ReleaseInputFile = unsafe extern "C" fn(handle: *const c_void) -> Status;
pub type AddInputFile = unsafe extern "C" fn(pathname: *const c_char) -> Status;
pub type AddInputLibrary = unsafe extern "C" fn(libname: *const c_char) -> Status;
pub type SetExtraLibraryPath = unsafe extern "C" fn(path: *const c_char) -> Status;
/// `printf`-like. Rust cannot define a variadic function, so a host implements it in C.
pub type Message = unsafe extern "C" fn(level: c_int, format: *const c_char, ...) -> Status;
pub type GetWrapSymbols =
    unsafe extern "C" fn(num_symbols: *mut u64, wrap_symbols: *mut *mut *const c_char) -> Status;
pub type GetApiVersion = unsafe extern "C" fn(
    plugin_identifier: *const c_char,
    plugin_version: *const c_char,
    minimal_api_supported: c_int,
    maximal_api_supported: c_int,
    linker_identifier: *mut *const c_char,
    linker_version: *mut *const c_char,
) -> c_int;

/// The value of a transfer-vector entry; which member is meant depends on the tag. Entries
/// this crate does not name (section ordering, ...) are read as `ptr`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union TvValue {
    pub val: c_int,
    pub string: *const c_char,
    pub register_claim_file: RegisterClaimFile,
    pub register_all_symbols_read: RegisterAllSymbolsRead,
    pub register_cleanup: RegisterCleanup,
    pub register_new_input: RegisterNewInput,
    pub add_symbols: AddSymbols,
    pub get_symbols: GetSymbols,
    pub add_input_file: AddInputFile,
    pub message: Message,
    pub get_input_file: GetInputFile,
    pub get_view: GetView,
    pub release_input_file: ReleaseInputFile,
    pub add_input_library: AddInputLibrary,
    pub set_extra_library_path: SetExtraLibraryPath,
    pub get_wrap_symbols: GetWrapSymbols,
    pub get_api_version: GetApiVersion,
    pub ptr: *const c_void,
}

/// `struct ld_plugin_tv`: one entry of the transfer vector `onload` receives, which ends at
/// a `NULL` tag.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Tv {
    pub tag: Tag,
    pub value: TvValue,
}

/// `onload`, the plugin's entry point (the symbol is named `onload`).
pub type Onload = unsafe extern "C" fn(tv: *mut Tv) -> Status;
