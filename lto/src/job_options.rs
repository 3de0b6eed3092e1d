//! The options file of a distributed LTO job (`--lto-backend-options=FILE`): what
//! `rld --lto-backend` needs besides the partition's bitcode to make the object the linking
//! rld would have made. Records `key=value` separated by NUL bytes (a NUL occurs in no
//! path or option), values as raw bytes, the first record naming the format.

use crate::codegen::{CodegenSettings, RemarkSettings};
use std::os::unix::ffi::OsStrExt as _;
use std::path::PathBuf;

const FORMAT: &str = "rld-lto-job 1";

/// One job's options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobOptions {
    /// Which build of rld made the job ([`rld_lto_api::FINGERPRINT`]) and on which LLVM:
    /// another build may compile the same bitcode to other bytes, so it refuses the job.
    pub fingerprint: String,
    pub llvm_version: String,
    /// The partition, for messages.
    pub partition: u32,
    /// With LLVM's remarks, their path is the command line's, not the file's: empty here.
    pub codegen: CodegenSettings,
    /// `-mllvm` options, in order.
    pub llvm_args: Vec<String>,
}

impl JobOptions {
    /// A job for this build of rld.
    pub fn new(partition: u32, codegen: CodegenSettings, llvm_args: Vec<String>) -> JobOptions {
        JobOptions {
            fingerprint: rld_lto_api::FINGERPRINT.to_string(),
            llvm_version: env!("RLD_LLVM_VERSION").to_string(),
            partition,
            codegen,
            llvm_args,
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut put = |key: &str, value: &[u8]| {
            out.extend_from_slice(key.as_bytes());
            out.push(b'=');
            out.extend_from_slice(value);
            out.push(0);
        };
        put("format", FORMAT.as_bytes());
        put("fingerprint", self.fingerprint.as_bytes());
        put("llvm", self.llvm_version.as_bytes());
        put("partition", self.partition.to_string().as_bytes());
        let c = &self.codegen;
        put("opt-level", c.opt_level.to_string().as_bytes());
        if let Some(level) = c.cg_opt_level {
            put("cg-opt-level", level.to_string().as_bytes());
        }
        put("cpu", c.cpu.as_bytes());
        put("pic", if c.pic { b"1" } else { b"0" });
        // The remark file's path is on the job's command line (`--lto-backend-remarks=`),
        // where a distributor that moves files can rewrite it, as it rewrites `-o`.
        if let Some(r) = &c.remarks {
            put("remarks", b"1");
            if let Some(passes) = &r.passes {
                put("remarks-passes", passes.as_bytes());
            }
            put("remarks-hotness", if r.with_hotness { b"1" } else { b"0" });
            let threshold = r.hotness_threshold.map_or("auto".into(), |n| n.to_string());
            put("remarks-hotness-threshold", threshold.as_bytes());
        }
        let path = |p: &std::path::Path| p.as_os_str().as_bytes().to_vec();
        if let Some(f) = &c.profile.sample {
            put("sample-profile", &path(f));
        }
        if let Some(f) = &c.profile.cs_file {
            put("cs-profile", &path(f));
        }
        if c.profile.cs_generate {
            put("cs-profile-generate", b"1");
        }
        if let Some(f) = &c.dwo {
            put("dwo", &path(f));
        }
        if let Some(p) = &c.pipeline.passes {
            put("passes", p.as_bytes());
        }
        if let Some(p) = &c.pipeline.aa {
            put("aa-pipeline", p.as_bytes());
        }
        for p in &c.pipeline.plugins {
            put("pass-plugin", &path(p));
        }
        if c.pipeline.debug {
            put("debug-pass-manager", b"1");
        }
        for a in &self.llvm_args {
            put("mllvm", a.as_bytes());
        }
        // A file cut short lacks it.
        put("end", b"");
        out
    }

    /// Reads an options file's bytes; the error says what is wrong.
    pub fn decode(bytes: &[u8]) -> Result<JobOptions, String> {
        let mut records = bytes.split(|&b| b == 0);
        let mut next = || -> Option<(&str, &[u8])> {
            let record = records.next().filter(|r| !r.is_empty())?;
            let eq = record.iter().position(|&b| b == b'=')?;
            Some((std::str::from_utf8(&record[..eq]).ok()?, &record[eq + 1..]))
        };
        match next() {
            Some(("format", f)) if f == FORMAT.as_bytes() => {}
            _ => return Err(format!("not an rld LTO job options file ({FORMAT})")),
        }
        let text = |key: &str, v: &[u8]| {
            String::from_utf8(v.to_vec()).map_err(|_| format!("{key}: not UTF-8"))
        };
        let number = |key: &str, v: &[u8]| -> Result<u32, String> {
            text(key, v)?
                .parse()
                .map_err(|_| format!("{key}: not a number"))
        };
        let file = |v: &[u8]| PathBuf::from(std::ffi::OsStr::from_bytes(v));
        let mut o = JobOptions {
            fingerprint: String::new(),
            llvm_version: String::new(),
            partition: 0,
            codegen: CodegenSettings {
                opt_level: 2,
                cg_opt_level: None,
                cpu: "x86-64".to_string(),
                pic: false,
                remarks: None,
                profile: Default::default(),
                pipeline: Default::default(),
                // Distributed jobs make objects only.
                emit: rld_lto_api::Emit::Object,
                dwo: None,
            },
            llvm_args: Vec::new(),
        };
        let mut ended = false;
        while let Some((key, v)) = next() {
            if ended {
                return Err(format!("record {key:?} after the end"));
            }
            match key {
                "end" => ended = true,
                "fingerprint" => o.fingerprint = text(key, v)?,
                "llvm" => o.llvm_version = text(key, v)?,
                "partition" => o.partition = number(key, v)?,
                "opt-level" => match number(key, v)? {
                    level @ 0..=3 => o.codegen.opt_level = level as u8,
                    _ => return Err("opt-level: not 0 to 3".into()),
                },
                "cg-opt-level" => match number(key, v)? {
                    level @ 0..=3 => o.codegen.cg_opt_level = Some(level as u8),
                    _ => return Err("cg-opt-level: not 0 to 3".into()),
                },
                "cpu" => o.codegen.cpu = text(key, v)?,
                "pic" => o.codegen.pic = v == b"1",
                "remarks" if v == b"1" => {
                    o.remarks();
                }
                "remarks-passes" => o.remarks().passes = Some(text(key, v)?),
                "remarks-hotness" => o.remarks().with_hotness = v == b"1",
                "remarks-hotness-threshold" => {
                    o.remarks().hotness_threshold =
                        rld_lto_api::parse_hotness_threshold(&text(key, v)?)
                            .ok_or("remarks-hotness-threshold: not a count nor auto")?
                }
                "sample-profile" => o.codegen.profile.sample = Some(file(v)),
                "cs-profile" => o.codegen.profile.cs_file = Some(file(v)),
                "cs-profile-generate" => o.codegen.profile.cs_generate = v == b"1",
                "dwo" => o.codegen.dwo = Some(file(v)),
                "passes" => o.codegen.pipeline.passes = Some(text(key, v)?),
                "aa-pipeline" => o.codegen.pipeline.aa = Some(text(key, v)?),
                "pass-plugin" => o.codegen.pipeline.plugins.push(file(v)),
                "debug-pass-manager" => o.codegen.pipeline.debug = v == b"1",
                "mllvm" => o.llvm_args.push(text(key, v)?),
                _ => return Err(format!("unknown record {key:?}")),
            }
        }
        if !ended {
            return Err("cut short (no end record)".into());
        }
        if o.fingerprint.is_empty() || o.llvm_version.is_empty() {
            return Err("the records naming the rld that made it are missing".into());
        }
        Ok(o)
    }

    fn remarks(&mut self) -> &mut RemarkSettings {
        self.codegen.remarks.get_or_insert_with(|| RemarkSettings {
            path: PathBuf::new(),
            passes: None,
            with_hotness: false,
            hotness_threshold: Some(0),
        })
    }

    /// Refuses a job another build of rld made: its object could differ from what the
    /// linking rld would make, and the program with it.
    pub fn check_same_build(&self) -> Result<(), String> {
        let ours = (rld_lto_api::FINGERPRINT, env!("RLD_LLVM_VERSION"));
        if (self.fingerprint.as_str(), self.llvm_version.as_str()) == ours {
            return Ok(());
        }
        Err(format!(
            "made by another build of rld (build {}, LLVM {}; this one is build {}, LLVM {}): \
             the hosts that compile the jobs need the rld that links",
            self.fingerprint, self.llvm_version, ours.0, ours.1
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> JobOptions {
        JobOptions::new(
            3,
            CodegenSettings {
                opt_level: 3,
                cg_opt_level: Some(1),
                cpu: "znver3".into(),
                pic: true,
                remarks: Some(RemarkSettings {
                    path: PathBuf::from("out dir/r=1.yaml.part3"),
                    passes: Some("inline|licm".into()),
                    with_hotness: true,
                    hotness_threshold: None,
                }),
                profile: rld_lto_api::ProfileOptions {
                    sample: Some("prof/app.afdo".into()),
                    cs_file: Some("cs_%m.profraw".into()),
                    cs_generate: true,
                },
                pipeline: crate::codegen::Pipeline {
                    passes: Some("default<O1>".into()),
                    aa: Some("basic-aa,scoped-noalias-aa".into()),
                    plugins: vec!["plugins/a.so".into(), "/opt/b.so".into()],
                    debug: true,
                },
                emit: rld_lto_api::Emit::Object,
                dwo: Some("out-dwo/3.dwo".into()),
            },
            vec!["-inline-threshold=5".into(), "-debugger-tune=gdb".into()],
        )
    }

    #[test]
    fn options_read_back_as_written() {
        let mut o = sample();
        let back = JobOptions::decode(&o.encode()).unwrap();
        // The remark file's path stays on the command line.
        o.codegen.remarks.as_mut().unwrap().path = PathBuf::new();
        assert_eq!(back, o);
        let plain = JobOptions::new(
            0,
            CodegenSettings {
                remarks: None,
                ..o.codegen
            },
            vec![],
        );
        assert_eq!(JobOptions::decode(&plain.encode()).unwrap(), plain);
        assert!(plain.check_same_build().is_ok());
    }

    #[test]
    fn damaged_or_foreign_files_are_refused_with_the_reason() {
        let bytes = sample().encode();
        assert!(JobOptions::decode(b"{\"json\": 1}")
            .unwrap_err()
            .contains("not an rld LTO job options file"));
        let truncated = &bytes[..bytes.len() / 3];
        assert!(JobOptions::decode(truncated).is_err());
        assert!(JobOptions::decode(&bytes[..bytes.len() - 5])
            .unwrap_err()
            .contains("cut short"));
        let odd = String::from_utf8(bytes.clone())
            .unwrap()
            .replace("pic=1", "colour=blue");
        assert!(JobOptions::decode(odd.as_bytes())
            .unwrap_err()
            .contains("colour"));
        let mut level = String::from_utf8(sample().encode()).unwrap();
        level = level.replace("opt-level=3", "opt-level=9");
        assert!(JobOptions::decode(level.as_bytes())
            .unwrap_err()
            .contains("opt-level"));
        let mut other = sample();
        other.fingerprint = "0000".into();
        let e = other.check_same_build().unwrap_err();
        assert!(
            e.contains("another build of rld") && e.contains("0000"),
            "{e}"
        );
    }
}
