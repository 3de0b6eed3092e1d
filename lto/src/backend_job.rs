//! `rld --lto-backend BITCODE --lto-backend-options=FILE -o OBJECT`: one distributed LTO
//! job (see [`crate::distribute`]), run by a distributor on whatever host it chooses. It
//! reads the partition's bitcode, sets the `-mllvm` options of the link, and runs the same
//! pipeline and code generator with the same settings as the in-process backend. The
//! object is written whole or not at all.

use crate::codegen::optimize_and_emit;
use crate::distribute::{OPTIONS_FLAG, REMARKS_FLAG};
use crate::error::LtoError;
use crate::job_options::JobOptions;
use inkwell::context::Context;
use inkwell::targets::{InitializationConfig, Target};
use std::path::{Path, PathBuf};

/// A job's command line, after `--lto-backend`.
#[derive(Debug, PartialEq, Eq)]
struct JobArgs {
    bitcode: PathBuf,
    options: PathBuf,
    object: PathBuf,
    /// LLVM's remarks go here (when the options ask for them).
    remarks: Option<PathBuf>,
}

fn parse_args(args: &[String]) -> Result<JobArgs, String> {
    let (mut bitcode, mut options, mut object, mut remarks) = (None, None, None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if let Some(v) = a.strip_prefix(OPTIONS_FLAG) {
            options = Some(PathBuf::from(v));
        } else if let Some(v) = a.strip_prefix(REMARKS_FLAG) {
            remarks = Some(PathBuf::from(v));
        } else if a == "-o" {
            object = Some(PathBuf::from(
                it.next().ok_or("-o needs the object file's name")?,
            ));
        } else if a.starts_with('-') && a != "-" {
            return Err(format!(
                "unknown argument '{a}' (a job takes BITCODE {OPTIONS_FLAG}FILE -o OBJECT)"
            ));
        } else if bitcode.replace(PathBuf::from(a)).is_some() {
            return Err("more than one bitcode file".into());
        }
    }
    Ok(JobArgs {
        bitcode: bitcode.ok_or("no bitcode file")?,
        options: options.ok_or_else(|| format!("no {OPTIONS_FLAG}FILE"))?,
        object: object.ok_or("no -o OBJECT")?,
        remarks,
    })
}

/// Runs the job `args` describes.
pub fn run(args: &[String]) -> Result<(), LtoError> {
    let job = parse_args(args).map_err(|e| LtoError::Llvm(format!("--lto-backend: {e}")))?;
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| LtoError::Io { path, source }
    };
    let bytes = std::fs::read(&job.options).map_err(io(&job.options))?;
    let mut options = JobOptions::decode(&bytes)
        .and_then(|o| o.check_same_build().map(|()| o))
        .map_err(|e| LtoError::Llvm(format!("{}: {e}", job.options.display())))?;
    match (&mut options.codegen.remarks, &job.remarks) {
        (Some(r), Some(path)) => r.path = path.clone(),
        (None, None) => {}
        (Some(_), None) => {
            return Err(LtoError::Llvm(format!(
                "--lto-backend: the job asks for LLVM's remarks: no {REMARKS_FLAG}FILE"
            )))
        }
        (None, Some(_)) => {
            return Err(LtoError::Llvm(format!(
                "--lto-backend: {REMARKS_FLAG} given, but the job asks for no remarks"
            )))
        }
    }
    crate::shim::parse_llvm_options(&options.llvm_args)
        .map_err(|e| LtoError::Llvm(format!("{}: {e}", job.options.display())))?;
    Target::initialize_x86(&InitializationConfig::default());
    crate::fatal::install_handler();

    let name = job.bitcode.display().to_string();
    let data = std::fs::read(&job.bitcode).map_err(io(&job.bitcode))?;
    if !crate::is_bitcode(&data) {
        return Err(LtoError::BadBitcode {
            file: name,
            msg: "not an LLVM bitcode file".into(),
        });
    }
    let ctx = Context::create();
    let module = crate::fatal::reading(&name, || {
        let module = crate::shim::parse_lazy(&ctx, &name, &data)?;
        crate::shim::materialize_all(&module)?;
        Ok(module)
    })
    .map_err(|msg: String| LtoError::BadBitcode {
        file: name.clone(),
        msg,
    })?;
    if let Err(e) = module.verify() {
        return Err(LtoError::BadBitcode {
            file: name,
            msg: format!("invalid IR: {}", e.to_string().trim()),
        });
    }
    let object = optimize_and_emit(&ctx, &module, &options.codegen, |_| Ok(()))?;
    // Whole or nothing: a job killed while writing leaves no object that looks finished.
    let mut partial = job.object.as_os_str().to_owned();
    partial.push(format!(".partial{}", std::process::id()));
    let partial = PathBuf::from(partial);
    std::fs::write(&partial, &object)
        .and_then(|()| std::fs::rename(&partial, &job.object))
        .map_err(|source| {
            let _ = std::fs::remove_file(&partial);
            LtoError::Io {
                path: job.object.display().to_string(),
                source,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn a_job_names_its_bitcode_options_and_object() {
        let want = JobArgs {
            bitcode: "p.bc".into(),
            options: "p.rldjob".into(),
            object: "p.o".into(),
            remarks: None,
        };
        assert_eq!(
            parse_args(&strings("p.bc --lto-backend-options=p.rldjob -o p.o")).unwrap(),
            want
        );
        assert_eq!(
            parse_args(&strings("-o p.o p.bc --lto-backend-options=p.rldjob")).unwrap(),
            want
        );
        for (bad, why) in [
            ("p.bc -o p.o", "--lto-backend-options"),
            ("p.bc --lto-backend-options=x -o", "-o needs"),
            ("p.bc q.bc --lto-backend-options=x -o p.o", "more than one"),
            (
                "p.bc --lto-backend-options=x -o p.o -c",
                "unknown argument '-c'",
            ),
            ("--lto-backend-options=x -o p.o", "no bitcode"),
        ] {
            let e = parse_args(&strings(bad)).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
