//! The LTO backend in this process: the driver and LLVM, linked in. rld's LTO library
//! hands it to the `rld` binary that loads it; the plugin and in-process tools use it
//! directly.

use rld_lto_api::{
    BackendSettings, BitcodeInput, CallLayout, Host, LinkFacts, LtoBackend, LtoFailure, LtoOptions,
};
use rld_summaries::ModuleSummary;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// The driver as an [`LtoBackend`].
pub struct InProcess;

/// A panic inside the LTO step ends as its error, never unwinding into a caller that may
/// be another build of the standard library.
fn guarded<T>(f: impl FnOnce() -> Result<T, LtoFailure>) -> Result<T, LtoFailure> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(LtoFailure(format!(
            "internal error in the LTO step: {what}; please report this bug with the command line"
        )))
    })
}

fn failure(e: impl std::fmt::Display) -> LtoFailure {
    LtoFailure(e.to_string())
}

impl LtoBackend for InProcess {
    fn init(&self, settings: BackendSettings) {
        rld_lto::work_in_children(settings.child_processes);
        if let Some(n) = settings.threads {
            // The pool may exist already (an in-process caller built it): then it stays.
            let _ = rayon::ThreadPoolBuilder::new()
                .num_threads(n.max(1))
                .build_global();
        }
    }

    fn summarize_all(
        &self,
        inputs: &[BitcodeInput],
        cache_dir: Option<&Path>,
        warn: &(dyn Fn(&str) + Sync),
    ) -> Result<Vec<ModuleSummary>, LtoFailure> {
        guarded(|| rld_lto::summarize_all(inputs, cache_dir, warn).map_err(failure))
    }

    fn summarize(&self, input: BitcodeInput) -> Result<ModuleSummary, LtoFailure> {
        guarded(|| rld_lto::summarize::summarize_bitcode(input.name, input.data).map_err(failure))
    }

    fn run(
        &self,
        inputs: &[BitcodeInput],
        summaries: Vec<ModuleSummary>,
        host: &dyn Host,
        link: &LinkFacts,
        opts: &LtoOptions,
    ) -> Result<Vec<Vec<u8>>, LtoFailure> {
        guarded(|| crate::run(inputs, summaries, host, link, opts).map_err(failure))
    }

    fn backend_job(&self, args: &[String]) -> Result<(), LtoFailure> {
        guarded(|| rld_lto::backend_job::run(args).map_err(failure))
    }

    fn cache_directed_layout(&self, layout: &CallLayout) -> Vec<u64> {
        rld_lto::shim::cache_directed_layout(layout)
    }
}
