//! The LTO step's interface, without LLVM. The linker reads bitcode's summaries and hands
//! the LTO step its symbol resolution through these types; the step itself (LLVM, behind
//! [`LtoBackend`]) lives in a shared library the `rld` binary loads only when a link has
//! bitcode, so that a link without it never pays for loading LLVM (about 15 ms and 45 MB).

mod backend;
mod bitcode;
mod cache_policy;
mod host;
pub mod interrupt;
mod memory_report;
mod options;
mod plugin_opt;

pub use backend::{BackendSettings, CallLayout, LtoBackend, LtoFailure, ENTRY_SYMBOL, FINGERPRINT};
pub use bitcode::{is_bitcode, BitcodeInput};
pub use cache_policy::CachePolicy;
pub use host::{Host, LinkFacts, SymbolFacts};
pub use memory_report::{peak_rss_bytes, peak_rss_note, resource_usage, status_bytes};
pub use options::{DistributionOptions, Emit, LtoOptions, ProfileOptions};
pub use plugin_opt::{
    apply_plugin_opt, parse_hotness_threshold, parse_jobs, parse_opt_level, PluginOpt,
    PluginOptError,
};

/// Whether a section name can have `__start_`/`__stop_` symbols: linkers define them only
/// for sections named like a C identifier.
pub fn is_c_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}
