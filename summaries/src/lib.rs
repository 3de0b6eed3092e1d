//! rld's module summaries and whole-program analyses (pure Rust, no LLVM).
//!
//! The summary model, its on-disk format and the analyses over the combined index
//! (dead symbols, called-value propagation, alias analysis) land here with the LTO work;
//! the linker core does not depend on any of it yet.

/// Version of the on-disk summary format this crate reads and writes.
pub const FORMAT_VERSION: u32 = 0;
