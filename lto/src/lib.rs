//! The LLVM side of rld: recognizing bitcode, summarizing modules, and the LTO backend that
//! links the prevailing modules, applies the whole-program decisions, optimizes, and emits
//! an ELF object for the linker.

pub mod alias_scopes;
pub mod backend;
pub mod backend_job;
pub mod cache_prune;
pub mod call_attributes;
pub mod codegen;
mod cut_check;
pub mod distribute;
pub mod error;
pub mod facts;
pub mod fatal;
pub mod ir;
pub mod isolate;
pub mod job_options;
pub mod llvm_memory;
pub mod object_cache;
pub mod promote;
pub mod shim;
pub mod summarize;

pub use backend::{compile, Action, CallOutcome, CallPlans, Compiled, Job, LtoConfig};
pub use error::LtoError;
pub use promote::SitePlan;
pub use rld_lto_api::{is_bitcode, BitcodeInput};

use rld_summaries::ModuleSummary;
use std::path::{Path, PathBuf};

/// Whether this process runs LLVM in child processes ([`isolate`]): the `rld` binary does;
/// a plugin inside another linker's process does not fork its host.
static CHILDREN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes [`summarize_all`] read new bitcode in child processes, so that LLVM crashing on a
/// corrupt file ends as an error naming it, and [`compile`] compile each partition in one,
/// so that the linker's peak memory is one partition's compilation on top of its own.
pub fn work_in_children(on: bool) {
    CHILDREN.store(on, std::sync::atomic::Ordering::SeqCst);
}

fn in_children() -> bool {
    CHILDREN.load(std::sync::atomic::Ordering::SeqCst)
}

/// Summarizes modules in parallel (one LLVM context each, in child processes when
/// [`work_in_children`] says so). With a cache directory, summaries are stored and
/// found by a hash of the bitcode, rld's version, LLVM's version and the summary format
/// version; `warn` hears of a damaged entry, which is summarized again and replaced.
pub fn summarize_all(
    inputs: &[BitcodeInput],
    cache_dir: Option<&Path>,
    warn: &(dyn Fn(&str) + Sync),
) -> Result<Vec<ModuleSummary>, LtoError> {
    use rayon::prelude::*;
    let cached: Vec<Option<ModuleSummary>> = match cache_dir {
        Some(dir) => inputs
            .par_iter()
            .map(|input| cache_lookup(dir, input, warn))
            .collect(),
        None => inputs.iter().map(|_| None).collect(),
    };
    let todo: Vec<&BitcodeInput> = inputs
        .iter()
        .zip(&cached)
        .filter(|(_, c)| c.is_none())
        .map(|(i, _)| i)
        .collect();
    let isolated = if in_children() && !todo.is_empty() {
        isolate::summarize(&todo)
    } else {
        todo.iter().map(|_| None).collect()
    };
    let fresh: Vec<Result<ModuleSummary, LtoError>> = todo
        .par_iter()
        .zip(isolated)
        .map(|(input, done)| {
            let summary = match done {
                Some(result) => result?,
                None => summarize::summarize_bitcode(input.name, input.data)?,
            };
            if let Some(dir) = cache_dir {
                let path = cache_entry(dir, input.data);
                store(dir, &path, &rld_summaries::encode(&summary)).map_err(|source| {
                    LtoError::Io {
                        path: path.display().to_string(),
                        source,
                    }
                })?;
            }
            Ok(summary)
        })
        .collect();
    let mut fresh = fresh.into_iter();
    cached
        .into_iter()
        .map(|c| match c {
            Some(summary) => Ok(summary),
            None => fresh
                .next()
                .expect("one fresh summary per input not cached"),
        })
        .collect()
}

/// The summary cache's file for `data`.
fn cache_entry(dir: &Path, data: &[u8]) -> PathBuf {
    use xxhash_rust::xxh3::Xxh3;
    let mut h = Xxh3::new();
    for part in [
        env!("CARGO_PKG_VERSION"),
        env!("RLD_LLVM_VERSION"),
        &rld_summaries::FORMAT_VERSION.to_string(),
    ] {
        h.update(part.as_bytes());
        h.update(&[0]);
    }
    h.update(data);
    dir.join(format!(
        "{:032x}-v{}.rldsum",
        h.digest128(),
        rld_summaries::FORMAT_VERSION
    ))
}

/// The cached summary of `input`, if there is a sound one.
fn cache_lookup(
    dir: &Path,
    input: &BitcodeInput,
    warn: &(dyn Fn(&str) + Sync),
) -> Option<ModuleSummary> {
    let path = cache_entry(dir, input.data);
    let bytes = std::fs::read(&path).ok()?;
    match rld_summaries::decode(&bytes) {
        Ok(mut summary) => {
            // The cache is keyed by content; the name is this link's.
            summary.module_id = input.name.to_string();
            cache_prune::touch(&path);
            Some(summary)
        }
        Err(e) => {
            warn(&format!(
                "{}: corrupt cached summary of {} ({e}); summarizing it again",
                path.display(),
                input.name
            ));
            None
        }
    }
}

/// Writes a cache entry under a name of its own, then renames it into place: a concurrent
/// or interrupted link never reads half an entry, and two writers (two links, or two
/// threads of one given the same file twice) never write into one file.
pub(crate) fn store(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::hash::{BuildHasher, Hasher};
    std::fs::create_dir_all(dir)?;
    // Each RandomState is keyed afresh, so the name is unique to this writer.
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    let tmp = path.with_extension(format!("tmp{:016x}", h.finish()));
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognizes_raw_and_wrapped_bitcode() {
        assert!(is_bitcode(&[0x42, 0x43, 0xC0, 0xDE, 0x35]));
        assert!(is_bitcode(&[0xDE, 0xC0, 0x17, 0x0B, 0, 0]));
        assert!(!is_bitcode(b"\x7fELF"));
        assert!(!is_bitcode(b"BC"));
    }
}
