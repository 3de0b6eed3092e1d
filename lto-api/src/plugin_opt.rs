//! LLVMgold's `-plugin-opt=` spellings, parsed in one place for both of the driver's
//! clients: rld reads them from its own command line (clang passes them to whatever linker
//! does its LTO), and rld's gold plugin gets them from its host linker. One parser gives
//! each spelling one meaning; what to do with an option the parser does not know (a
//! warning, an error) is the caller's choice.

use crate::options::LtoOptions;
use std::num::NonZeroUsize;

/// What became of one `-plugin-opt=` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginOpt {
    /// It set an LTO option, or asks for what the driver does anyway (`thinlto`).
    Applied,
    /// An option for LLVM itself (`-foo`), appended to [`LtoOptions::llvm_args`].
    LlvmOption,
    /// An LLVMgold option that the driver knows but cannot honour; the text says why, for
    /// the caller's warning.
    Ignored(&'static str),
    /// Not an LLVMgold option the driver knows.
    Unknown,
}

/// A known `-plugin-opt=NAME=VALUE` whose value is out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid argument to -plugin-opt={option}: {value}")]
pub struct PluginOptError {
    /// The option's name (`jobs`, `lto-partitions`, ...).
    pub option: String,
    /// The value as given.
    pub value: String,
}

/// Why `thinlto-index-only` has no effect: it asks for the index files of distributed
/// ThinLTO and no link, and the driver always compiles.
const NO_INDEX_FILES: &str = "rld compiles the bitcode itself and writes no ThinLTO index files";

/// Applies one `-plugin-opt=` value (without the `-plugin-opt=`) to `opts`.
pub fn apply_plugin_opt(opts: &mut LtoOptions, v: &str) -> Result<PluginOpt, PluginOptError> {
    if v.starts_with('-') {
        opts.llvm_args.push(v.into());
        return Ok(PluginOpt::LlvmOption);
    }
    let invalid = |option: &str, value: &str| PluginOptError {
        option: option.into(),
        value: value.into(),
    };
    let count = |option: &str, n: &str| parse_count(n).ok_or_else(|| invalid(option, n));
    match v.split_once('=') {
        Some(("jobs", n)) => opts.jobs = Some(count("jobs", n)?),
        Some(("thinlto-jobs", n)) => {
            opts.jobs = parse_jobs(n).ok_or_else(|| invalid("thinlto-jobs", n))?
        }
        Some(("lto-partitions", n)) => opts.partitions = Some(count("lto-partitions", n)?),
        Some(("cvp-max-targets", n)) => opts.cvp_max_targets = count("cvp-max-targets", n)?,
        Some(("icp-max-targets", n)) => opts.icp_max_targets = count("icp-max-targets", n)?,
        Some(("mcpu", cpu)) => opts.mcpu = Some(cpu.into()),
        Some(("cache-dir", dir)) => opts.cache_dir = Some(dir.into()),
        Some(("cache-policy", policy)) => {
            opts.cache_policy =
                crate::CachePolicy::parse(policy).map_err(|_| invalid("cache-policy", policy))?
        }
        Some(("obj-path", path)) => opts.obj_path = Some(path.into()),
        Some(("opt-remarks-filename", f)) => opts.remarks_filename = Some(f.into()),
        Some(("opt-remarks-passes", re)) => opts.remarks_passes = Some(re.into()),
        Some(("opt-remarks-format", f)) => opts.remarks_format = Some(f.into()),
        Some(("sample-profile", f)) => opts.profile.sample = Some(f.into()),
        Some(("opt-remarks-hotness-threshold", n)) => {
            opts.remarks_hotness_threshold = parse_hotness_threshold(n)
                .ok_or_else(|| invalid("opt-remarks-hotness-threshold", n))?
        }
        Some(("cs-profile-path", f)) => opts.profile.cs_file = Some(f.into()),
        Some(("dwo_dir", dir)) => opts.dwo_dir = Some(dir.into()),
        // LLVMgold's `=FILE` form also lists the objects whose index it wrote.
        Some(("thinlto-index-only", _)) => return Ok(PluginOpt::Ignored(NO_INDEX_FILES)),
        _ => match v {
            "O0" | "O1" | "O2" | "O3" => opts.opt_level = v.as_bytes()[1] - b'0',
            "save-temps" => opts.save_temps = true,
            "no-cvp" => opts.cvp = false,
            "no-wpa-aa" => opts.wpa_aa = false,
            "no-wpa-aa-metadata" => opts.wpa_aa_metadata = false,
            "opt-remarks-with-hotness" => opts.remarks_with_hotness = true,
            "cs-profile-generate" => opts.profile.cs_generate = true,
            "debug-pass-manager" => opts.debug_pass_manager = true,
            "emit-llvm" => opts.emit = crate::Emit::Bitcode,
            "emit-asm" => opts.emit = crate::Emit::Assembly,
            // Full or thin LTO is decided per module by whether it carries a summary.
            "thinlto" => {}
            "thinlto-index-only" => return Ok(PluginOpt::Ignored(NO_INDEX_FILES)),
            _ => return Ok(PluginOpt::Unknown),
        },
    }
    Ok(PluginOpt::Applied)
}

/// A remarks hotness threshold as LLVM's `parseHotnessThresholdOption` reads it: a count,
/// or `auto` (`Some(None)`: from the profile summary).
pub fn parse_hotness_threshold(v: &str) -> Option<Option<u64>> {
    if v == "auto" {
        Some(None)
    } else {
        v.parse().ok().map(Some)
    }
}

/// An LTO optimization level, 0 to 3 (`--lto-O<n>`, `-plugin-opt=O<n>`).
pub fn parse_opt_level(v: &str) -> Option<u8> {
    v.parse().ok().filter(|level| *level <= 3)
}

/// How many LTO backends run at once: a positive count, or `all` (lld's and LLVMgold's
/// word for every core, the default), which is `Some(None)`.
pub fn parse_jobs(v: &str) -> Option<Option<usize>> {
    if v == "all" {
        Some(None)
    } else {
        parse_count(v).map(Some)
    }
}

/// A positive count (jobs, partitions, targets).
fn parse_count(v: &str) -> Option<usize> {
    v.parse::<NonZeroUsize>().ok().map(NonZeroUsize::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The options after applying each of `values`, and what became of the last one.
    fn apply(values: &[&str]) -> (LtoOptions, Result<PluginOpt, PluginOptError>) {
        let mut opts = LtoOptions::default();
        let mut last = Ok(PluginOpt::Applied);
        for v in values {
            last = apply_plugin_opt(&mut opts, v);
        }
        (opts, last)
    }

    #[test]
    fn llvmgold_spellings_set_the_options() {
        let (o, last) = apply(&[
            "O3",
            "mcpu=znver2",
            "jobs=8",
            "lto-partitions=4",
            "cvp-max-targets=5",
            "icp-max-targets=1",
            "cache-dir=/c",
            "obj-path=/tmp/out.o",
            "opt-remarks-filename=r.yaml",
            "opt-remarks-passes=inline",
            "opt-remarks-format=bitstream",
            "opt-remarks-with-hotness",
            "sample-profile=a.prof",
            "opt-remarks-hotness-threshold=250",
            "cs-profile-generate",
            "cs-profile-path=cs_%m.profraw",
            "dwo_dir=out-dwo",
            "save-temps",
            "no-cvp",
            "no-wpa-aa",
            "no-wpa-aa-metadata",
            "thinlto",
        ]);
        assert_eq!(last, Ok(PluginOpt::Applied));
        assert_eq!(
            (o.opt_level, o.mcpu.as_deref(), o.jobs, o.partitions),
            (3, Some("znver2"), Some(8), Some(4))
        );
        assert_eq!((o.cvp_max_targets, o.icp_max_targets), (5, 1));
        assert_eq!(o.cache_dir, Some("/c".into()));
        assert_eq!(o.obj_path, Some("/tmp/out.o".into()));
        assert_eq!(o.remarks_filename, Some("r.yaml".into()));
        assert_eq!(o.remarks_passes.as_deref(), Some("inline"));
        assert_eq!(o.remarks_format.as_deref(), Some("bitstream"));
        assert!(o.remarks_with_hotness && o.save_temps);
        assert!(!o.cvp && !o.wpa_aa && !o.wpa_aa_metadata);
        assert_eq!(o.profile.sample, Some("a.prof".into()));
        assert_eq!(o.profile.cs_file, Some("cs_%m.profraw".into()));
        assert!(o.profile.cs_generate);
        assert_eq!(o.profile.inputs(), [std::path::Path::new("a.prof")]);
        assert_eq!(o.dwo_dir, Some("out-dwo".into()));
        assert_eq!(o.remarks_hotness_threshold, Some(250));
        let auto = apply(&["opt-remarks-hotness-threshold=auto"]).0;
        assert_eq!(auto.remarks_hotness_threshold, None);
    }

    #[test]
    fn thinlto_jobs_takes_a_count_or_all() {
        assert_eq!(apply(&["thinlto-jobs=3"]).0.jobs, Some(3));
        assert_eq!(apply(&["jobs=3", "thinlto-jobs=all"]).0.jobs, None);
    }

    #[test]
    fn llvm_options_are_collected() {
        let (o, last) = apply(&["-debugger-tune=gdb", "-x86-foo"]);
        assert_eq!(last, Ok(PluginOpt::LlvmOption));
        assert_eq!(o.llvm_args, ["-debugger-tune=gdb", "-x86-foo"]);
    }

    #[test]
    fn index_only_is_ignored_and_says_why() {
        for v in ["thinlto-index-only", "thinlto-index-only=list.txt"] {
            let (o, last) = apply(&[v]);
            assert!(matches!(last, Ok(PluginOpt::Ignored(why)) if why.contains("index")));
            assert_eq!(o, LtoOptions::default());
        }
    }

    #[test]
    fn unknown_values_change_nothing() {
        for v in ["O4", "frobnicate", "frob=1"] {
            let (o, last) = apply(&[v]);
            assert_eq!((o, last), (LtoOptions::default(), Ok(PluginOpt::Unknown)));
        }
    }

    #[test]
    fn bad_counts_name_the_option_and_value() {
        for (v, option, value) in [
            ("jobs=0", "jobs", "0"),
            ("thinlto-jobs=many", "thinlto-jobs", "many"),
            ("lto-partitions=-1", "lto-partitions", "-1"),
            ("icp-max-targets=", "icp-max-targets", ""),
        ] {
            let err = apply(&[v]).1.unwrap_err();
            assert_eq!((err.option.as_str(), err.value.as_str()), (option, value));
        }
        assert_eq!(
            apply(&["jobs=x"]).1.unwrap_err().to_string(),
            "invalid argument to -plugin-opt=jobs: x"
        );
    }

    #[test]
    fn levels_and_jobs() {
        assert_eq!(parse_opt_level("3"), Some(3));
        assert_eq!(parse_opt_level("4"), None);
        assert_eq!(parse_jobs("all"), Some(None));
        assert_eq!(parse_jobs("0"), None);
    }
}
