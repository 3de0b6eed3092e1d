//! Distributed LTO: the partitions compiled as jobs of an external distributor, through
//! the interface lld-22 gives ThinLTO ("integrated distributed ThinLTO", DTLTO), so that
//! any distributor written for lld drives rld unchanged.
//!
//! The linker writes a JSON file in lld's schema (`common` with the linker output, the
//! remote compiler's arguments and the inputs every job needs; `jobs`, each with its
//! arguments, inputs and outputs), runs the distributor with it, waits, and links the
//! objects the jobs made. What differs from lld is what a job is: not a ThinLTO module that
//! the remote compiler imports into and optimizes on its own guesses, but one of rld's
//! partitions with every whole-program decision already applied (internalization, call
//! promotions, alias scopes, attributes), written as one self-contained bitcode file. The
//! remote compiler is rld itself (`rld --lto-backend`), which runs the last step of the
//! in-process backend ([`crate::codegen`]) on it, with the settings in the job's options
//! file ([`crate::job_options`]): the program is byte for byte the in-process link's.

use crate::backend::{
    codegen_settings, in_parallel, isolated, prepare_partition, save_object_temp, CallOutcome, Job,
};
use crate::error::LtoError;
use crate::job_options::JobOptions;
use std::path::{Path, PathBuf};

/// How the jobs are distributed (`--thinlto-distributor=` and its companions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Distribution {
    /// Run as given: no `$PATH` search, as lld runs it.
    pub distributor: PathBuf,
    pub distributor_args: Vec<String>,
    /// The program a job runs, an rld.
    pub remote_compiler: String,
    pub remote_compiler_prepend_args: Vec<String>,
    pub remote_compiler_args: Vec<String>,
    /// The link's output as given (`-o`): the JSON's `linker_output`; every job file is
    /// written beside it.
    pub linker_output: PathBuf,
    /// `--thinlto-distributor-timeout=`: how long the distributor may run.
    pub timeout: Option<std::time::Duration>,
}

/// The option a job's arguments name its options file with.
pub const OPTIONS_FLAG: &str = "--lto-backend-options=";
/// The option a job's arguments name the file for LLVM's remarks with.
pub const REMARKS_FLAG: &str = "--lto-backend-remarks=";

/// The files of one job, beside the output: `OUT.lto.P.PID.bc` (input), `.rldjob`
/// (options), `.native.o` (output), as lld names its job files after the process.
struct JobFiles {
    partition: u32,
    bitcode: PathBuf,
    options: PathBuf,
    object: PathBuf,
    remarks: Option<PathBuf>,
}

/// Files removed when the link is over, or interrupted by a signal; kept with
/// `--save-temps`.
struct Temporaries {
    files: Vec<PathBuf>,
    guards: Vec<rld_lto_api::interrupt::Guard>,
    keep: bool,
}

impl Temporaries {
    fn add(&mut self, path: &Path) {
        if !self.keep {
            self.guards.push(rld_lto_api::interrupt::Guard::new(path));
        }
        self.files.push(path.to_path_buf());
    }
}

impl Drop for Temporaries {
    fn drop(&mut self) {
        if !self.keep {
            for f in &self.files {
                let _ = std::fs::remove_file(f);
            }
        }
    }
}

/// Where a distributed link's time went (`--time`).
#[derive(Debug, Clone, Copy, Default)]
pub struct DistributedTimes {
    pub jobs: usize,
    /// Building and writing the jobs' bitcode, here.
    pub prepare: std::time::Duration,
    /// The distributor, from start to exit.
    pub distributor: std::time::Duration,
}

/// Compiles the partitions in `queue` (largest first) as distributed jobs; returns each
/// one's object and what its preparation did.
pub(crate) fn compile(
    job: &Job,
    d: &Distribution,
    queue: &[u32],
    threads: usize,
    times: &mut DistributedTimes,
) -> Result<Vec<(u32, Vec<u8>, CallOutcome)>, LtoError> {
    times.jobs = queue.len();
    if queue.is_empty() {
        return Ok(Vec::new());
    }
    let start = std::time::Instant::now();
    let pid = std::process::id();
    let dir = d.linker_output.parent().unwrap_or(Path::new(""));
    let stem = d
        .linker_output
        .file_stem()
        .map_or_else(|| "a".into(), |s| s.to_string_lossy().into_owned());
    let in_dir = |name: String| dir.join(name);
    let count = job.partitions.count();
    let files: Vec<JobFiles> = queue
        .iter()
        .map(|&p| {
            let base = format!("{stem}.lto.{p}.{pid}");
            JobFiles {
                partition: p,
                bitcode: in_dir(format!("{base}.bc")),
                options: in_dir(format!("{base}.rldjob")),
                object: in_dir(format!("{base}.native.o")),
                remarks: codegen_settings(job.cfg, count, p).remarks.map(|r| r.path),
            }
        })
        .collect();
    let json = in_dir(format!("{stem}.{pid}.dist-file.json"));
    let mut temporaries = Temporaries {
        files: Vec::new(),
        guards: Vec::new(),
        keep: job.cfg.save_temps.is_some(),
    };
    temporaries.add(&json);
    for f in &files {
        for path in [&f.bitcode, &f.options, &f.object] {
            temporaries.add(path);
        }
    }

    let outcomes = prepare_all(job, &files, threads)?;
    for f in &files {
        let options = JobOptions::new(
            f.partition,
            codegen_settings(job.cfg, count, f.partition),
            job.cfg.llvm_args.clone(),
        );
        write_file(&f.options, &options.encode())?;
    }
    write_file(&json, distributor_json(d, &files).as_bytes())?;
    times.prepare = start.elapsed();
    let start = std::time::Instant::now();
    run_distributor(d, &json)?;
    times.distributor = start.elapsed();

    let mut out = Vec::with_capacity(files.len());
    for (f, outcome) in files.iter().zip(outcomes) {
        let object = read_object(f)?;
        save_object_temp(job.cfg, f.partition, &object)?;
        out.push((f.partition, object, outcome));
    }
    drop(temporaries);
    Ok(out)
}

/// Builds every job's bitcode, `threads` partitions at a time, each in a child process
/// where this process works in children (as the in-process backend compiles them).
fn prepare_all(
    job: &Job,
    files: &[JobFiles],
    threads: usize,
) -> Result<Vec<CallOutcome>, LtoError> {
    let results = in_parallel(files, threads, |f| prepare_isolated(job, f));
    let mut outcomes = Vec::with_capacity(files.len());
    for result in results {
        match result {
            Some(r) => outcomes.push(r?),
            None => continue,
        }
    }
    if outcomes.len() != files.len() {
        return Err(LtoError::Llvm(
            "internal error: a job was not prepared".into(),
        ));
    }
    Ok(outcomes)
}

/// Writes one job's bitcode: in a child process (see `backend::compile_isolated`) when
/// this process works in children.
fn prepare_isolated(job: &Job, f: &JobFiles) -> Result<CallOutcome, LtoError> {
    let prepare = || -> Result<(Vec<u8>, CallOutcome), LtoError> {
        let ctx = inkwell::context::Context::create();
        let (module, outcome) = prepare_partition(&ctx, job, f.partition)?;
        crate::shim::write_bitcode(&module, &f.bitcode).map_err(|e| LtoError::Io {
            path: f.bitcode.display().to_string(),
            source: std::io::Error::other(e),
        })?;
        Ok((Vec::new(), outcome))
    };
    let done = if crate::in_children() {
        let what = format!("preparing the job of partition {}", f.partition);
        isolated(&what, prepare).unwrap_or_else(prepare)
    } else {
        prepare()
    };
    done.map(|(_, outcome)| outcome)
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), LtoError> {
    std::fs::write(path, bytes).map_err(|source| LtoError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// The JSON file lld-22 writes for its distributor, with rld's jobs: `common.args` is the
/// remote compiler, its prepend arguments, `--lto-backend` and its other arguments; a job's
/// `args` are its bitcode, its options file, `-o` its object and, when LLVM's remarks are
/// asked for, their file (the compile command is `common.args` followed by the job's);
/// `inputs` the bitcode and the options file, `outputs` the object (and the remarks). Every
/// path a job reads or writes is an argument of its own, so that a distributor that moves
/// files between hosts can rewrite it. Jobs come largest first, so
/// that a distributor that starts them in order does not start a big one last.
fn distributor_json(d: &Distribution, files: &[JobFiles]) -> String {
    let list = |items: &[String]| {
        let quoted: Vec<String> = items.iter().map(|s| json_string(s)).collect();
        format!("[{}]", quoted.join(","))
    };
    let path = |p: &Path| p.to_string_lossy().into_owned();
    let mut common = vec![d.remote_compiler.clone()];
    common.extend(d.remote_compiler_prepend_args.iter().cloned());
    common.push("--lto-backend".into());
    common.extend(d.remote_compiler_args.iter().cloned());
    let jobs: Vec<String> = files
        .iter()
        .map(|f| {
            let mut args = vec![
                path(&f.bitcode),
                format!("{OPTIONS_FLAG}{}", path(&f.options)),
                "-o".into(),
                path(&f.object),
            ];
            args.extend(
                f.remarks
                    .as_deref()
                    .map(|r| format!("{REMARKS_FLAG}{}", path(r))),
            );
            let inputs = [path(&f.bitcode), path(&f.options)];
            let mut outputs = vec![path(&f.object)];
            outputs.extend(f.remarks.as_deref().map(path));
            format!(
                "{{\"args\":{},\"inputs\":{},\"outputs\":{}}}",
                list(&args),
                list(&inputs),
                list(&outputs)
            )
        })
        .collect();
    format!(
        "{{\"common\":{{\"linker_output\":{},\"args\":{},\"inputs\":[]}},\"jobs\":[{}]}}",
        json_string(&path(&d.linker_output)),
        list(&common),
        jobs.join(",")
    )
}

/// A JSON string as LLVM's writer quotes it: `"` and `\` escaped, tab, newline and carriage
/// return by letter, other control characters as `\u00xx`, everything else as it is.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Runs the distributor on the JSON file, as lld does: its path as given (a bare name is in
/// the current directory), its arguments, then the JSON file's path; the linker's
/// environment, directory and standard streams; the link waits for it (at most `timeout`).
fn run_distributor(d: &Distribution, json: &Path) -> Result<(), LtoError> {
    let failed = |detail: String| {
        LtoError::Llvm(format!(
            "DTLTO backend compilation: distributor execution failed: {detail}"
        ))
    };
    let program = if d.distributor.components().count() > 1 {
        d.distributor.clone()
    } else {
        Path::new(".").join(&d.distributor)
    };
    let shown = d.distributor.display();
    let mut command = std::process::Command::new(&program);
    command.args(&d.distributor_args).arg(json);
    // A group of its own, so that a timeout or an interrupted link stops whatever it
    // started too (its jobs would otherwise go on, holding the linker's standard streams
    // open and writing objects after the link removed its files). Without a timeout, only
    // where this process's signal handler passes interruptions on: else it stays in the
    // linker's group, which a terminal's Ctrl-C reaches.
    let own_group = d.timeout.is_some() || rld_lto_api::interrupt::can_end_child_group();
    if own_group {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = command
        .spawn()
        .map_err(|e| failed(format!("{shown}: {e}")))?;
    let _group = own_group.then(|| rld_lto_api::interrupt::ChildGroup::new(child.id()));
    let status = match d.timeout {
        None => child.wait(),
        Some(limit) => {
            let start = std::time::Instant::now();
            loop {
                match child.try_wait() {
                    Ok(Some(status)) => break Ok(status),
                    Ok(None) if start.elapsed() >= limit => {
                        // SAFETY: kill(2) on the child's process group, which it leads.
                        unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
                        let _ = child.wait();
                        return Err(failed(format!(
                            "{shown} did not finish within {} s (--thinlto-distributor-timeout)",
                            limit.as_secs_f64()
                        )));
                    }
                    Ok(None) => std::thread::sleep(std::time::Duration::from_millis(10)),
                    Err(e) => break Err(e),
                }
            }
        }
    }
    .map_err(|e| failed(format!("{shown}: {e}")))?;
    if status.success() {
        return Ok(());
    }
    use std::os::unix::process::ExitStatusExt;
    Err(failed(match (status.code(), status.signal()) {
        (Some(code), _) => format!("{shown} exited with status {code}"),
        (None, Some(signal)) => format!("{shown} was killed by signal {signal}"),
        _ => format!("{shown} failed"),
    }))
}

/// A job's object, checked to be what a job makes: an x86-64 ELF relocatable object.
fn read_object(f: &JobFiles) -> Result<Vec<u8>, LtoError> {
    let shown = f.object.display();
    let p = f.partition;
    let bytes = std::fs::read(&f.object).map_err(|e| {
        LtoError::Llvm(format!(
            "DTLTO backend compilation: cannot open native object file: {shown}: {e} (the job \
             of partition {p})"
        ))
    })?;
    check_object(&bytes).map_err(|why| {
        LtoError::Llvm(format!(
            "DTLTO backend compilation: {shown} (the job of partition {p}) is not an object \
             a job makes: {why}"
        ))
    })?;
    Ok(bytes)
}

fn check_object(bytes: &[u8]) -> Result<(), String> {
    use object::read::elf::{ElfFile64, FileHeader};
    if bytes.is_empty() {
        return Err("the file is empty".into());
    }
    let file = ElfFile64::<object::Endianness>::parse(bytes).map_err(|e| e.to_string())?;
    let header = file.elf_header();
    let e = file.endian();
    if header.e_machine(e) != object::elf::EM_X86_64 || header.e_type(e) != object::elf::ET_REL {
        return Err("not an x86-64 ELF relocatable object".into());
    }
    // Every section's contents must be in the file: a truncated object fails here.
    for section in object::Object::sections(&file) {
        object::ObjectSection::data(&section).map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_quoted_as_llvm_quotes_them() {
        assert_eq!(json_string("a.o"), "\"a.o\"");
        assert_eq!(
            json_string("q\"ü\\x\tt\u{8}\u{1b}\n\r.o"),
            "\"q\\\"ü\\\\x\\tt\\u0008\\u001b\\n\\r.o\""
        );
    }

    #[test]
    fn the_json_has_lld_s_schema_with_rld_s_jobs() {
        let d = Distribution {
            distributor: "/x/dist.py".into(),
            distributor_args: vec!["--verbose".into()],
            remote_compiler: "/opt/rld/bin/rld".into(),
            remote_compiler_prepend_args: vec!["pre".into()],
            remote_compiler_args: vec!["--threads=1".into()],
            linker_output: "out/prog".into(),
            timeout: None,
        };
        let files = [JobFiles {
            partition: 2,
            bitcode: "out/prog.lto.2.77.bc".into(),
            options: "out/prog.lto.2.77.rldjob".into(),
            object: "out/prog.lto.2.77.native.o".into(),
            remarks: Some("r.yaml.part2".into()),
        }];
        assert_eq!(
            distributor_json(&d, &files),
            "{\"common\":{\"linker_output\":\"out/prog\",\"args\":[\"/opt/rld/bin/rld\",\"pre\",\
             \"--lto-backend\",\"--threads=1\"],\"inputs\":[]},\"jobs\":[{\"args\":[\
             \"out/prog.lto.2.77.bc\",\"--lto-backend-options=out/prog.lto.2.77.rldjob\",\"-o\",\
             \"out/prog.lto.2.77.native.o\",\"--lto-backend-remarks=r.yaml.part2\"],\"inputs\":[\"out/prog.lto.2.77.bc\",\
             \"out/prog.lto.2.77.rldjob\"],\"outputs\":[\"out/prog.lto.2.77.native.o\",\
             \"r.yaml.part2\"]}]}"
        );
    }

    #[test]
    fn only_whole_x86_64_relocatable_objects_are_taken() {
        assert!(check_object(b"").unwrap_err().contains("empty"));
        assert!(check_object(b"\x7fELF garbage").is_err());
        let mut obj = object::write::Object::new(
            object::BinaryFormat::Elf,
            object::Architecture::X86_64,
            object::Endianness::Little,
        );
        let text = obj.section_id(object::write::StandardSection::Text);
        obj.append_section_data(text, &[0x90; 64], 16);
        let bytes = obj.write().unwrap();
        assert!(check_object(&bytes).is_ok());
        assert!(check_object(&bytes[..bytes.len() - 80]).is_err());
    }
}
