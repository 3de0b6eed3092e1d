//! The LTO settings: what the linker's `--lto-*`/`--opt-remarks-*` flags and LLVMgold's
//! `-plugin-opt=` spellings set. They live here, beside the driver that reads them, so that
//! rld's command line and a host linker's plugin options fill the same struct.

use std::path::PathBuf;

/// Settings for the LTO code generator, from `--lto-*`/`--thinlto-*`/`--opt-remarks-*`
/// and their `-plugin-opt=` spellings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LtoOptions {
    /// `--lto-O<n>` / `-plugin-opt=O<n>` (default 2).
    pub opt_level: u8,
    /// `--lto-CGO<n>`: the code generator's level, 0..=3 (None: lld's, 3 at `--lto-O3`,
    /// else 2).
    pub cg_opt_level: Option<u8>,
    /// `--lto-partitions=N` (None: chosen from the program's size).
    pub partitions: Option<usize>,
    /// `--thinlto-jobs=N` / `-plugin-opt=jobs=N` (None = all cores).
    pub jobs: Option<usize>,
    /// `--save-temps`: keep the intermediate bitcode and objects.
    pub save_temps: bool,
    pub remarks_filename: Option<PathBuf>,
    pub remarks_passes: Option<String>,
    pub remarks_format: Option<String>,
    pub remarks_with_hotness: bool,
    /// `--opt-remarks-hotness-threshold=` / `-plugin-opt=opt-remarks-hotness-threshold=`
    /// (clang's `-fdiagnostics-hotness-threshold=`): LLVM's remarks of code run fewer times
    /// are left out. None is `auto`: the threshold the profile summary gives (default 0).
    pub remarks_hotness_threshold: Option<u64>,
    /// `--lto-cache-dir=D` / `--thinlto-cache-dir=D`.
    pub cache_dir: Option<PathBuf>,
    /// `--thinlto-cache-policy=` / `-plugin-opt=cache-policy=`: how the cache is pruned
    /// after the link (LLVM's defaults if not given).
    pub cache_policy: crate::CachePolicy,
    /// `-plugin-opt=mcpu=CPU`.
    pub mcpu: Option<String>,
    /// Options for LLVM itself (`-plugin-opt=-foo`, `-mllvm -foo`).
    pub llvm_args: Vec<String>,
    /// `-plugin-opt=obj-path=PATH`: where a plugin writes the objects LTO produces for its
    /// host linker to read. The driver returns objects in memory; writing them is the
    /// plugin's part, and rld itself never needs the files.
    pub obj_path: Option<PathBuf>,
    /// Run whole-program called-value propagation (`--no-cvp` turns it off).
    pub cvp: bool,
    /// `--no-wpa-aa`: skip the whole-program points-to analysis.
    pub wpa_aa: bool,
    /// `--no-wpa-aa-metadata`: its answers reach CVP but not LLVM's alias analysis.
    pub wpa_aa_metadata: bool,
    /// `--cvp-max-targets`: larger callee sets are Overdefined.
    pub cvp_max_targets: usize,
    /// `--icp-max-targets`: indirect calls with at most this many targets become direct.
    pub icp_max_targets: usize,
    /// `--thinlto-distributor=` and its companions: the partitions as jobs of a distributor.
    pub distribution: DistributionOptions,
    /// Profiles for LLVM's pipeline (AutoFDO, context-sensitive PGO).
    pub profile: ProfileOptions,
    /// `--lto-newpm-passes=`: LLVM's pass pipeline in its textual form, instead of
    /// `lto<On>`.
    pub pipeline: Option<String>,
    /// `--lto-aa-pipeline=`: the alias analyses, instead of LLVM's default set.
    pub aa_pipeline: Option<String>,
    /// `--load-pass-plugin=`: LLVM pass plugins (shared libraries) loaded into the LTO
    /// pipeline, in order.
    pub pass_plugins: Vec<std::path::PathBuf>,
    /// `--lto-debug-pass-manager`: LLVM prints each pass as it runs.
    pub debug_pass_manager: bool,
    /// `--lto-pgo-warn-mismatch` (default) / `--no-lto-pgo-warn-mismatch`: whether LLVM
    /// warns about functions whose context-sensitive profile does not match them.
    pub pgo_warn_mismatch: bool,
    /// `--lto-emit-llvm` / `--lto-emit-asm` (`-plugin-opt=emit-llvm`, `emit-asm`): the
    /// output is the optimized program as bitcode or assembly, one module, and nothing is
    /// linked.
    pub emit: Emit,
    /// `-plugin-opt=dwo_dir=DIR` (clang passes it for `-gsplit-dwarf -flto`): each
    /// partition's split DWARF goes to `DIR/<partition>.dwo`, as lld names its tasks'.
    pub dwo_dir: Option<PathBuf>,
}

/// What the LTO step makes of the optimized program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Emit {
    /// Objects, one per partition, to link (the normal case).
    #[default]
    Object,
    /// LLVM bitcode of the whole program, as the output.
    Bitcode,
    /// Assembly of the whole program, as the output.
    Assembly,
}

/// Profile-guided optimization in the LTO pipeline: the profiles lld's LTO hands LLVM's
/// pass builder (`PGOOptions`, llvm/lib/LTO/LTOBackend.cpp). Profiles applied when the
/// bitcode was compiled (`-fprofile-use`) are in the bitcode already and need none of this.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ProfileOptions {
    /// `--lto-sample-profile=` / `-plugin-opt=sample-profile=` (clang's
    /// `-fprofile-sample-use` with `-flto`): an AutoFDO sample profile, read again after
    /// cross-module inlining.
    pub sample: Option<PathBuf>,
    /// `--lto-cs-profile-file=` / `-plugin-opt=cs-profile-path=`: the context-sensitive
    /// profile to use, or with `cs_generate` the name the instrumented program writes its
    /// counts to.
    pub cs_file: Option<PathBuf>,
    /// `--lto-cs-profile-generate` / `-plugin-opt=cs-profile-generate`
    /// (`-fcs-profile-generate`): instrument after inlining, for a context-sensitive profile.
    pub cs_generate: bool,
}

impl ProfileOptions {
    /// The profiles LLVM reads (not the one `cs_generate` makes the program write).
    pub fn inputs(&self) -> Vec<&std::path::Path> {
        let cs_use = self.cs_file.as_deref().filter(|_| !self.cs_generate);
        self.sample.as_deref().into_iter().chain(cs_use).collect()
    }
}

/// lld-22's options for distributed ThinLTO ("DTLTO"), which rld's partitions use.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DistributionOptions {
    /// `--thinlto-distributor=PATH` (the last one; empty: none).
    pub distributor: String,
    /// `--thinlto-distributor-arg=ARG`, in order.
    pub distributor_args: Vec<String>,
    /// `--thinlto-remote-compiler=PATH` (the last one).
    pub remote_compiler: Option<String>,
    /// `--thinlto-remote-compiler-prepend-arg=ARG`, in order.
    pub remote_compiler_prepend_args: Vec<String>,
    /// `--thinlto-remote-compiler-arg=ARG`, in order.
    pub remote_compiler_args: Vec<String>,
    /// `--thinlto-distributor-timeout=SECONDS` (rld's): the distributor is stopped and the
    /// link fails after this long.
    pub timeout_seconds: Option<u64>,
}

impl Default for LtoOptions {
    fn default() -> Self {
        LtoOptions {
            opt_level: 2,
            cg_opt_level: None,
            partitions: None,
            jobs: None,
            save_temps: false,
            remarks_filename: None,
            remarks_passes: None,
            remarks_format: None,
            remarks_with_hotness: false,
            remarks_hotness_threshold: Some(0),
            cache_dir: None,
            cache_policy: crate::CachePolicy::default(),
            mcpu: None,
            llvm_args: Vec::new(),
            obj_path: None,
            cvp: true,
            wpa_aa: true,
            wpa_aa_metadata: true,
            cvp_max_targets: rld_summaries::cvp::DEFAULT_MAX_TARGETS,
            icp_max_targets: 2,
            distribution: DistributionOptions::default(),
            profile: ProfileOptions::default(),
            pipeline: None,
            aa_pipeline: None,
            pass_plugins: Vec::new(),
            debug_pass_manager: false,
            pgo_warn_mismatch: true,
            dwo_dir: None,
            emit: Emit::Object,
        }
    }
}
