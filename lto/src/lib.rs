//! The LLVM side of rld: recognizing bitcode, summarizing modules, and the LTO backend that
//! links the prevailing modules, applies the whole-program decisions, optimizes, and emits
//! an ELF object for the linker.

pub mod alias_scopes;
pub mod backend;
pub mod error;
pub mod facts;
pub mod fatal;
pub mod ir;
pub mod object_cache;
pub mod promote;
pub mod shim;
pub mod summarize;

pub use backend::{compile, Action, CallOutcome, CallPlans, Compiled, Job, LtoConfig};
pub use error::LtoError;
pub use promote::SitePlan;

use rld_summaries::ModuleSummary;
use std::path::Path;

/// Magic of a raw LLVM bitcode file ("BC" 0xC0DE).
const RAW_BITCODE_MAGIC: [u8; 4] = [0x42, 0x43, 0xC0, 0xDE];
/// Magic of the bitcode wrapper header (0x0B17C0DE, little endian).
const WRAPPER_MAGIC: [u8; 4] = [0xDE, 0xC0, 0x17, 0x0B];

/// Whether `data` is LLVM bitcode, raw or inside the bitcode wrapper.
pub fn is_bitcode(data: &[u8]) -> bool {
    data.starts_with(&RAW_BITCODE_MAGIC) || data.starts_with(&WRAPPER_MAGIC)
}

/// A bitcode input: its display name and its bytes.
#[derive(Clone, Copy)]
pub struct BitcodeInput<'a> {
    pub name: &'a str,
    pub data: &'a [u8],
}

/// Summarizes modules in parallel (one LLVM context each). With a cache directory,
/// summaries are stored and found by a hash of the bitcode and the summary format version.
pub fn summarize_all(
    inputs: &[BitcodeInput],
    cache_dir: Option<&Path>,
) -> Result<Vec<ModuleSummary>, LtoError> {
    use rayon::prelude::*;
    inputs
        .par_iter()
        .map(|input| summarize_cached(input, cache_dir))
        .collect()
}

fn summarize_cached(
    input: &BitcodeInput,
    cache_dir: Option<&Path>,
) -> Result<ModuleSummary, LtoError> {
    let Some(dir) = cache_dir else {
        return summarize::summarize_bitcode(input.name, input.data);
    };
    let key = xxhash_rust::xxh3::xxh3_128(input.data);
    let path = dir.join(format!(
        "{key:032x}-v{}.rldsum",
        rld_summaries::FORMAT_VERSION
    ));
    if let Ok(bytes) = std::fs::read(&path) {
        let mut summary = rld_summaries::decode(&bytes).map_err(|source| LtoError::BadCache {
            path: path.display().to_string(),
            source,
        })?;
        // The cache is keyed by content; the name is this link's.
        summary.module_id = input.name.to_string();
        return Ok(summary);
    }
    let summary = summarize::summarize_bitcode(input.name, input.data)?;
    let io = |source| LtoError::Io {
        path: path.display().to_string(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    // Write then rename, so a concurrent or interrupted link never sees half an entry.
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, rld_summaries::encode(&summary)).map_err(io)?;
    std::fs::rename(&tmp, &path).map_err(io)?;
    Ok(summary)
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
