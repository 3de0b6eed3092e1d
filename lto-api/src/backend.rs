//! The LTO backend: everything of the LTO step that needs LLVM, behind one trait. The
//! `rld` binary does not link LLVM; the first time a link meets bitcode it loads the
//! library that implements this trait (rld's LTO library, `librld_plugin.so`, which is also
//! its gold plugin) and calls it through [`ENTRY_SYMBOL`]. Programs that link LLVM anyway
//! (the plugin itself, the fuzz targets) use an implementation in process.
//!
//! The two sides pass Rust values to each other, so they must be built from the same
//! sources by the same compiler: the entry point checks [`FINGERPRINT`] and answers a
//! caller built otherwise with nothing.

use crate::{BitcodeInput, Host, LinkFacts, LtoOptions};
use rld_summaries::ModuleSummary;
use std::path::Path;

/// Hash of the sources of the values that cross the interface, and of the compiler.
pub const FINGERPRINT: &str = env!("RLD_LTO_FINGERPRINT");

/// The library's entry point: `fn(fingerprint: &str) -> Option<&'static dyn LtoBackend>`
/// (Rust ABI), None when `fingerprint` is not the library's own.
pub const ENTRY_SYMBOL: &[u8] = b"rld_lto_backend";

/// How the host runs the backend, told once before anything else.
#[derive(Debug, Clone, Copy, Default)]
pub struct BackendSettings {
    /// The host's thread count (`--threads=N`); None: every core.
    pub threads: Option<usize>,
    /// Run LLVM in child processes: reading bitcode not summarized before (LLVM crashing
    /// on a corrupt file ends as an error naming it) and compiling each partition (the
    /// process's peak memory is one partition's). The `rld` binary does; a plugin inside
    /// another linker's process never forks its host.
    pub child_processes: bool,
}

/// A failure of the LTO step, as the message the linker prints.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LtoFailure(pub String);

/// The LTO step's LLVM side.
pub trait LtoBackend: Sync {
    /// Called once, before any other method.
    fn init(&self, settings: BackendSettings);
    /// The summaries of `inputs`, in order (from the cache in `cache_dir` where they are
    /// there); `warn` hears of a damaged cache entry.
    fn summarize_all(
        &self,
        inputs: &[BitcodeInput],
        cache_dir: Option<&Path>,
        warn: &(dyn Fn(&str) + Sync),
    ) -> Result<Vec<ModuleSummary>, LtoFailure>;
    /// The summary of one module, read in this process (`--dump-summary`).
    fn summarize(&self, input: BitcodeInput) -> Result<ModuleSummary, LtoFailure>;
    /// The LTO step: the whole-program analyses over `summaries`, then LLVM; one ELF
    /// object per partition.
    fn run(
        &self,
        inputs: &[BitcodeInput],
        summaries: Vec<ModuleSummary>,
        host: &dyn Host,
        link: &LinkFacts,
        opts: &LtoOptions,
    ) -> Result<Vec<Vec<u8>>, LtoFailure>;
    /// `rld --lto-backend ARGS...`: one job of a distributed link (its arguments after
    /// `--lto-backend`).
    fn backend_job(&self, args: &[String]) -> Result<(), LtoFailure>;
    /// LLVM's Cache-Directed Sort of functions (`llvm::codelayout`, what lld's
    /// `--call-graph-profile-sort=cdsort` runs): the order of the nodes, given each node's
    /// size and incoming count and the calls (caller, callee, count) with each call's
    /// offset in its caller.
    fn cache_directed_layout(&self, layout: &CallLayout) -> Vec<u64>;
}

/// A call graph to lay out ([`LtoBackend::cache_directed_layout`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallLayout {
    pub sizes: Vec<u64>,
    pub counts: Vec<u64>,
    /// (caller, callee, count), node indices.
    pub calls: Vec<(u64, u64, u64)>,
    /// Where in its caller each call is.
    pub offsets: Vec<u64>,
}
