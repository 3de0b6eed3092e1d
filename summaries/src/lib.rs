//! rld's module summaries and whole-program analyses (pure Rust, no LLVM).
//!
//! - [`model`]: what rld knows about one bitcode module (globals, references, calls,
//!   constructors, call sites, value-flow facts), filled from LLVM IR by `lto/`.
//! - [`encoding`]: the summaries' on-disk form (`FORMAT.md`), for the summary cache.
//! - [`mod@dump`]: a readable text form, for debugging.
//! - [`index`]: all modules joined by symbol name, with the linker's resolutions.
//! - [`dead`]: which definitions the program can reach, and which may become internal.
//! - [`program`]: what references denote after symbol resolution, and what outside code sees.
//! - [`library`]: what functions outside the unit may do, from LLVM's attributes on their
//!   declarations, the intrinsics' definitions and a few justified entries.
//! - [`sparse`]: a generic sparse propagation solver (keys, a lattice, rules, a worklist).
//! - [`cvp`]: called-value propagation, the possible callees of every indirect call site.
//! - [`pointsto`]: whole-program points-to analysis (stack, heap, globals, fields, calls).
//! - [`modref`]: what each function and call may read, write or free, over the whole program.
//! - [`partition`]: the LTO unit split into partitions compiled in parallel.
//! - [`alias`]: the points-to and mod/ref answers as scoped-noalias annotations for LLVM.
//!
//! The most used items are re-exported here.

pub mod alias;
pub mod cvp;
pub mod dead;
pub mod dump;
pub mod encoding;
pub mod index;
pub mod library;
pub mod model;
pub mod modref;
pub mod partition;
pub mod pointsto;
pub mod program;
mod scc;
pub mod sparse;

#[cfg(test)]
mod fixtures;

pub use cvp::{called_value_propagation, CalleeSet, CvpConfig, CvpResult, CvpStats};
pub use dead::{compute_dead_symbols, internalize, LiveReason, Liveness};
pub use dump::dump;
pub use encoding::{decode, encode, SummaryError, FORMAT_VERSION};
pub use index::{CombinedIndex, GlobalId, Resolution, Resolutions};
pub use model::*;
