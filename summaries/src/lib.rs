//! rld's module summaries and whole-program analyses (pure Rust, no LLVM).
//!
//! - [`model`]: what rld knows about one bitcode module (globals, references, calls,
//!   constructors, call sites, value-flow facts), filled from LLVM IR by `lto/`.
//! - [`encoding`]: the summaries' on-disk form (`FORMAT.md`), for the summary cache.
//! - [`mod@dump`]: a readable text form, for debugging.
//! - [`index`]: all modules joined by symbol name, with the linker's resolutions.
//! - [`dead`]: which definitions the program can reach, and which may become internal.
//! - [`remarks`]: optimization remarks in LLVM's YAML format.
//!
//! The most used items are re-exported here.

pub mod dead;
pub mod dump;
pub mod encoding;
pub mod index;
pub mod model;
pub mod remarks;

#[cfg(test)]
mod fixtures;

pub use dead::{compute_dead_symbols, internalize, LiveReason, Liveness};
pub use dump::dump;
pub use encoding::{decode, encode, SummaryError, FORMAT_VERSION};
pub use index::{CombinedIndex, GlobalId, Resolution, Resolutions};
pub use model::*;
pub use remarks::{
    dead_function_remark, format_yaml, parse_yaml, write_yaml, Remark, RemarkArg, RemarkFilter,
    RemarkKind, RemarkParseError,
};
