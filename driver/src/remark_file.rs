//! The remark file (`--opt-remarks-filename`): rld's own remarks first, then LLVM's, which
//! the partitions stream to files beside it while they compile, in the format asked for
//! (LLVM's YAML or bitstream). Remarks pass through one at a time: a large program's
//! remarks are never held in memory at once.

use crate::error::DriverError;
use rld_lto_api::LtoOptions;
use rld_remarks::sink::{RemarkSink, SinkFormat};
use rld_remarks::{Remark, RemarkFilter, YamlDocuments};
use std::path::{Path, PathBuf};

/// The remark file's format (`--opt-remarks-format`), checked before any work is done so
/// that a misspelt format fails the link at once, not after LLVM has run.
pub fn remark_format(opts: &LtoOptions) -> Result<SinkFormat, DriverError> {
    match opts.remarks_format.as_deref() {
        None => Ok(SinkFormat::Yaml),
        Some(name) => SinkFormat::from_llvm_name(name)
            .ok_or_else(|| DriverError::RemarkFormat(name.to_string())),
    }
}

/// Where LLVM writes its remarks for the remark file `path`: beside it, to be joined after
/// rld's own.
pub(crate) fn llvm_remarks_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".llvm.tmp");
    name.into()
}

/// Writes rld's remarks, then LLVM's (which the partitions streamed to files beside, removed
/// here), to the remark file, one remark at a time: the file is never held in memory.
pub(crate) fn write_remarks(
    opts: &LtoOptions,
    remarks: &[Remark],
    llvm_files: &[PathBuf],
) -> Result<(), DriverError> {
    let written = write_remark_file(opts, remarks, llvm_files);
    // Whatever happened, LLVM's files beside the remark file go.
    for f in llvm_files {
        let _ = std::fs::remove_file(f);
    }
    written
}

fn write_remark_file(
    opts: &LtoOptions,
    remarks: &[Remark],
    llvm_files: &[PathBuf],
) -> Result<(), DriverError> {
    let Some(path) = &opts.remarks_filename else {
        return Ok(());
    };
    let filter = RemarkFilter::new(opts.remarks_passes.as_deref())
        .map_err(|e| DriverError::RemarkPasses(e.to_string()))?;
    let io = |e| DriverError::io(path, e);
    let file = std::fs::File::create(path).map_err(io)?;
    let mut sink = RemarkSink::new(remark_format(opts)?, std::io::BufWriter::new(file));
    for r in remarks.iter().filter(|r| filter.accepts(&r.pass)) {
        sink.add(r).map_err(io)?;
    }
    // Then LLVM's own remarks from the optimization pipeline and code generation.
    for llvm in llvm_files {
        append_llvm_remarks(&mut sink, llvm, path)?;
    }
    let mut out = sink.finish().map_err(io)?;
    std::io::Write::flush(&mut out).map_err(io)
}

/// Streams one file of LLVM's YAML remarks into `sink` (copied as they are for YAML);
/// `out` is the remark file, named by write errors.
fn append_llvm_remarks(
    sink: &mut RemarkSink<std::io::BufWriter<std::fs::File>>,
    llvm: &Path,
    out: &Path,
) -> Result<(), DriverError> {
    let file = std::fs::File::open(llvm).map_err(|e| DriverError::io(llvm, e))?;
    let mut input = std::io::BufReader::new(file);
    match sink {
        // A copy error may be either file's: name the one being written.
        RemarkSink::Yaml(w) => std::io::copy(&mut input, w)
            .map(|_| ())
            .map_err(|e| DriverError::io(out, e)),
        _ => YamlDocuments::new(input).try_for_each(|r| {
            let r = r.map_err(|source| DriverError::LlvmRemarks {
                path: llvm.to_path_buf(),
                source,
            })?;
            sink.add(&r).map_err(|e| DriverError::io(out, e))
        }),
    }
}
