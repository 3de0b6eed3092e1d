//! Real-program tests: bzip2 1.0.8, Lua 5.4 and SQLite, built from the C
//! sources that crates.io packages ship, linked by rld and by lld-22 (the
//! reference), and run.
//!
//! For each program and each compiler (clang-22 -O2, gcc -O2, and clang-22
//! -flto -O2, whose objects are LLVM bitcode) the objects are compiled once and
//! linked with rld through the compiler driver (`clang-22 --ld-path=<rld>`,
//! `gcc -B<dir with ld -> rld>`) and with lld-22 through the same driver; the
//! `*_clang_lto` tests run the same checks on the LTO builds, and the `*_gcc_lto`
//! ones on gcc -flto builds (GCC's IR, compiled by gcc's linker plugin that rld
//! hosts), compared with GNU ld's build; `plugin::{bfd,gold,mold}::*` link the clang
//! -flto objects with those linkers running rld's LTO plugin (`librld_plugin.so`). Then:
//! - `bzip2_samples_*`: bzip2's own `make test`: sample1-3.bz2 decompress
//!   byte-exactly to sample1-3.ref, and compressing the .ref files at levels
//!   1-3 gives the .bz2 files back.
//! - `bzip2_roundtrip_*`: generated data compresses to the same bytes as with
//!   the lld build and decompresses back (also with the system's bzip2 if
//!   there is one); file mode (`-k`, `-t`, `-d`); a corrupted stream fails the
//!   same way as with the lld build.
//! - `lua_scripts_*`: every `corpus/lua/*.lua` gives the same stdout, stderr
//!   and exit status as with the lld build and as `corpus/lua/*.expected`.
//! - `sqlite_queries_*`: likewise for `corpus/sqlite/*.sql`.
//! - `*_elf_tools_*`: `readelf -a -W` and `objdump -d` accept the rld output
//!   without warnings.
//! - `*_size_clang_lto`: rld's LTO output is at most 5% larger than lld's
//!   (both sizes are printed; run with `--nocapture` to see them).
//!
//! How the programs are built is in `corpus/programs.conf` (shared with
//! `bench/run.sh`); where their sources are comes from `corpus/fetch.sh`, which
//! runs `cargo fetch` on `corpus/fetch/Cargo.toml`.
//!
//! Environment:
//! - `RLD`: the linker under test (see `rld_tests::rld_path`).
//! - `RLD_CORPUS_BLESS=1`: (re)write the `.expected` files from the lld build;
//!   review the diff by eye before committing.
//! - `RLD_CORPUS_JOBS=N`: at most N compilers at once (default: CPU count).
//! - `RLD_CORPUS_DIR`: where the object cache and the outputs go (default below).
//!
//! Compiled objects are cached in `<target>/tmp/rld-corpus/obj/`, keyed by the
//! compiler's version, the flags and the source contents, so only the first
//! run compiles (about a minute on 2 cores, most of it sqlite3.c; the bitcode
//! of the LTO variant as long again, and each LTO link of SQLite takes most of
//! a minute, lld's and rld's alike). The linked
//! programs of the last run are kept in `<target>/tmp/rld-corpus/out/` for
//! debugging.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::thread;
use std::time::Duration;

use rld_tests::{
    assert_objdump_clean, assert_readelf_clean, build_id, command_line, describe_status, gcc_b_dir,
    output_with_timeout, rld_path, rld_plugin_path, PluginHost,
};

/// `tests/corpus/`: drivers, scripts, expected outputs, programs.conf.
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus");

/// Optimisation level of every corpus build.
const OPT: &str = "-O2";

/// Time limit for one compiler or linker run.
const BUILD_TIMEOUT: Duration = Duration::from_secs(600);

/// Time limit for one run of a corpus program.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Program {
    Bzip2,
    Lua,
    Sqlite,
}

impl Program {
    /// The name in programs.conf and of the linked executable.
    fn name(self) -> &'static str {
        match self {
            Program::Bzip2 => "bzip2",
            Program::Lua => "lua",
            Program::Sqlite => "sqlite",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Cc {
    Clang,
    Gcc,
    /// clang-22 -flto: the objects are LLVM bitcode, the link does LTO.
    ClangLto,
    /// clang-14 -flto: bitcode of LLVM 14 (typed pointers, old attributes), which rld's
    /// LLVM upgrades on read; linked through clang-22, so the reference is lld-22.
    ClangLto14,
    /// gcc -flto: the objects hold GCC's IR, which gcc's linker plugin compiles at link
    /// time (rld hosts it); the reference is GNU ld, as lld cannot host it.
    GccLto,
}

impl Cc {
    /// The compiler.
    fn command(self) -> &'static str {
        match self {
            Cc::Clang | Cc::ClangLto => "clang-22",
            Cc::ClangLto14 => "clang-14",
            Cc::Gcc | Cc::GccLto => "gcc",
        }
    }

    /// The driver that links.
    fn link_command(self) -> &'static str {
        match self {
            Cc::ClangLto14 => "clang-22",
            cc => cc.command(),
        }
    }

    fn is_clang(self) -> bool {
        matches!(self, Cc::Clang | Cc::ClangLto | Cc::ClangLto14)
    }

    /// Flags for both compiling and linking (besides -O2).
    fn mode_flags(self) -> &'static [&'static str] {
        match self {
            Cc::ClangLto | Cc::ClangLto14 | Cc::GccLto => &["-flto"],
            Cc::Clang | Cc::Gcc => &[],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Linker {
    Rld,
    Lld,
    /// rld with `--lto-partitions=N`.
    RldPartitions(u32),
    /// rld with `--lto-partitions=N`, the partitions compiled as distributed jobs
    /// (`--thinlto-distributor=scripts/dtlto-local`).
    RldDistributed(u32),
    /// The same through the Dask cluster [`DASK_SCHEDULER`] names (scripts/dtlto-dask.py).
    RldDask(u32),
    /// rld with `--threads=N` and `--build-id`.
    RldThreads(u32),
    /// rld with one LTO option more (`--no-wpa-aa`, `--no-cvp`).
    RldOption(&'static str),
    /// GNU ld (gcc's own linker): the reference for gcc -flto.
    GnuLd,
    /// Another linker running rld's LTO plugin (clang -flto objects).
    Plugin(PluginHost),
}

impl Linker {
    /// The linker rld's build of `cc`'s objects is compared with.
    fn reference(cc: Cc) -> Linker {
        if cc == Cc::GccLto {
            Linker::GnuLd
        } else {
            Linker::Lld
        }
    }

    fn name(self) -> String {
        match self {
            Linker::Rld => "rld".into(),
            Linker::Lld => "lld".into(),
            Linker::GnuLd => "gnu-ld".into(),
            Linker::Plugin(host) => format!("plugin-{host:?}"),
            Linker::RldPartitions(n) => format!("rld-partitions{n}"),
            Linker::RldDistributed(n) => format!("rld-distributed{n}"),
            Linker::RldDask(n) => format!("rld-dask{n}"),
            Linker::RldThreads(n) => format!("rld-threads{n}"),
            Linker::RldOption(o) => format!("rld{}", o.trim_start_matches('-')),
        }
    }

    /// Link flags the variant adds.
    fn flags(self) -> Vec<String> {
        match self {
            Linker::Rld | Linker::Lld | Linker::GnuLd | Linker::Plugin(_) => vec![],
            Linker::RldPartitions(n) => vec![format!("-Wl,--lto-partitions={n}")],
            Linker::RldDistributed(n) => vec![
                format!("-Wl,--lto-partitions={n}"),
                format!(
                    "-Wl,--thinlto-distributor={}",
                    rld_tests::workspace_dir()
                        .join("scripts/dtlto-local")
                        .display()
                ),
            ],
            Linker::RldDask(n) => vec![
                format!("-Wl,--lto-partitions={n}"),
                format!("-Wl,--thinlto-distributor={}", dask_python().display()),
                format!(
                    "-Wl,--thinlto-distributor-arg={}",
                    rld_tests::workspace_dir()
                        .join("scripts/dtlto-dask.py")
                        .display()
                ),
                format!(
                    "-Wl,--thinlto-distributor-arg=--scheduler={}",
                    DASK_SCHEDULER.get().expect("no Dask cluster started")
                ),
            ],
            Linker::RldThreads(n) => vec![format!("-Wl,--threads={n}"), "-Wl,--build-id".into()],
            Linker::RldOption(o) => vec![format!("-Wl,{o}")],
        }
    }
}

// ---------------------------------------------------------------------------
// Tests

#[test]
fn bzip2_elf_tools_clang() {
    elf_tools(Program::Bzip2, Cc::Clang);
}

#[test]
fn bzip2_elf_tools_gcc() {
    elf_tools(Program::Bzip2, Cc::Gcc);
}

#[test]
fn bzip2_roundtrip_clang() {
    bzip2_roundtrip(Cc::Clang);
}

#[test]
fn bzip2_roundtrip_gcc() {
    bzip2_roundtrip(Cc::Gcc);
}

#[test]
fn bzip2_samples_clang() {
    bzip2_samples(Cc::Clang);
}

#[test]
fn bzip2_samples_gcc() {
    bzip2_samples(Cc::Gcc);
}

#[test]
fn lua_elf_tools_clang() {
    elf_tools(Program::Lua, Cc::Clang);
}

#[test]
fn lua_elf_tools_gcc() {
    elf_tools(Program::Lua, Cc::Gcc);
}

#[test]
fn lua_scripts_clang() {
    scripts(Program::Lua, Cc::Clang);
}

#[test]
fn lua_scripts_gcc() {
    scripts(Program::Lua, Cc::Gcc);
}

#[test]
fn sqlite_elf_tools_clang() {
    elf_tools(Program::Sqlite, Cc::Clang);
}

#[test]
fn sqlite_elf_tools_gcc() {
    elf_tools(Program::Sqlite, Cc::Gcc);
}

#[test]
fn sqlite_queries_clang() {
    scripts(Program::Sqlite, Cc::Clang);
}

#[test]
fn sqlite_queries_gcc() {
    scripts(Program::Sqlite, Cc::Gcc);
}

#[test]
fn bzip2_elf_tools_clang_lto() {
    elf_tools(Program::Bzip2, Cc::ClangLto);
}

#[test]
fn bzip2_roundtrip_clang_lto() {
    bzip2_roundtrip(Cc::ClangLto);
}

#[test]
fn bzip2_samples_clang_lto() {
    bzip2_samples(Cc::ClangLto);
}

#[test]
fn bzip2_size_clang_lto() {
    lto_size(Program::Bzip2);
}

#[test]
fn lua_elf_tools_clang_lto() {
    elf_tools(Program::Lua, Cc::ClangLto);
}

#[test]
fn lua_scripts_clang_lto() {
    scripts(Program::Lua, Cc::ClangLto);
}

#[test]
fn lua_size_clang_lto() {
    lto_size(Program::Lua);
}

#[test]
fn sqlite_elf_tools_clang_lto() {
    elf_tools(Program::Sqlite, Cc::ClangLto);
}

#[test]
fn sqlite_queries_clang_lto() {
    scripts(Program::Sqlite, Cc::ClangLto);
}

#[test]
fn sqlite_size_clang_lto() {
    lto_size(Program::Sqlite);
}

// Bitcode of LLVM 14, upgraded on read by rld's LLVM.

#[test]
fn bzip2_roundtrip_clang14_lto() {
    bzip2_roundtrip(Cc::ClangLto14);
}

#[test]
fn lua_scripts_clang14_lto() {
    scripts(Program::Lua, Cc::ClangLto14);
}

#[test]
fn lua_scripts_clang14_lto_partitions4() {
    scripts_with(Program::Lua, Cc::ClangLto14, Linker::RldPartitions(4));
}

#[test]
fn sqlite_queries_clang14_lto() {
    scripts(Program::Sqlite, Cc::ClangLto14);
}

// LTO split into a given number of partitions (the default above is chosen from the
// program's size): the same behaviour from every split.

#[test]
fn bzip2_samples_gcc_lto() {
    bzip2_samples(Cc::GccLto);
}

#[test]
fn bzip2_roundtrip_gcc_lto() {
    bzip2_roundtrip(Cc::GccLto);
}

#[test]
fn lua_scripts_gcc_lto() {
    scripts(Program::Lua, Cc::GccLto);
}

#[test]
fn lua_elf_tools_gcc_lto() {
    elf_tools(Program::Lua, Cc::GccLto);
}

#[test]
fn sqlite_queries_gcc_lto() {
    scripts(Program::Sqlite, Cc::GccLto);
}

/// clang -flto objects linked by GNU ld, gold and mold running rld's LTO plugin.
macro_rules! plugin_hosts {
    ($($name:ident: $host:expr,)*) => {
        mod plugin {
            use super::*;
            $(
                mod $name {
                    use super::*;
                    #[test]
                    fn bzip2_roundtrip() {
                        bzip2_roundtrip_with(Cc::ClangLto, Linker::Plugin($host));
                    }
                    #[test]
                    fn lua_scripts() {
                        scripts_with(Program::Lua, Cc::ClangLto, Linker::Plugin($host));
                    }
                    #[test]
                    fn sqlite_queries() {
                        scripts_with(Program::Sqlite, Cc::ClangLto, Linker::Plugin($host));
                    }
                }
            )*
        }
    };
}
plugin_hosts! {
    bfd: PluginHost::Bfd,
    gold: PluginHost::Gold,
    mold: PluginHost::Mold,
}

#[test]
fn bzip2_roundtrip_clang_lto_1_partition() {
    bzip2_roundtrip_with(Cc::ClangLto, Linker::RldPartitions(1));
}

#[test]
fn bzip2_roundtrip_clang_lto_2_partitions() {
    bzip2_roundtrip_with(Cc::ClangLto, Linker::RldPartitions(2));
}

#[test]
fn bzip2_roundtrip_clang_lto_4_partitions() {
    bzip2_roundtrip_with(Cc::ClangLto, Linker::RldPartitions(4));
}

#[test]
fn lua_scripts_clang_lto_1_partition() {
    scripts_with(Program::Lua, Cc::ClangLto, Linker::RldPartitions(1));
}

#[test]
fn lua_scripts_clang_lto_2_partitions() {
    scripts_with(Program::Lua, Cc::ClangLto, Linker::RldPartitions(2));
}

#[test]
fn lua_scripts_clang_lto_4_partitions() {
    scripts_with(Program::Lua, Cc::ClangLto, Linker::RldPartitions(4));
}

#[test]
fn sqlite_queries_clang_lto_1_partition() {
    scripts_with(Program::Sqlite, Cc::ClangLto, Linker::RldPartitions(1));
}

#[test]
fn sqlite_queries_clang_lto_4_partitions() {
    scripts_with(Program::Sqlite, Cc::ClangLto, Linker::RldPartitions(4));
}

/// Distributed LTO (`--thinlto-distributor=`): the program is byte for byte the in-process
/// link's, and runs as lld's build.
fn distributed_with(program: Program, n: u32) {
    let local = link(program, Cc::ClangLto, Linker::RldPartitions(n));
    let dist = link(program, Cc::ClangLto, Linker::RldDistributed(n));
    assert!(
        fs::read(&local).unwrap() == fs::read(&dist).unwrap(),
        "{} with {n} partitions: the distributed link {} differs from the in-process {}",
        program.name(),
        dist.display(),
        local.display()
    );
    scripts_with(program, Cc::ClangLto, Linker::RldDistributed(n));
}

#[test]
fn lua_scripts_clang_lto_distributed_1_partition() {
    distributed_with(Program::Lua, 1);
}

#[test]
fn lua_scripts_clang_lto_distributed_4_partitions() {
    distributed_with(Program::Lua, 4);
}

#[test]
fn sqlite_queries_clang_lto_distributed_4_partitions() {
    distributed_with(Program::Sqlite, 4);
}

/// The scheduler address of the Dask cluster the test process started.
static DASK_SCHEDULER: OnceLock<String> = OnceLock::new();

/// The Python of scripts/setup-dask's venv.
fn dask_python() -> PathBuf {
    std::env::var_os("RLD_DASK_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| rld_tests::workspace_dir().join("target/dask-venv"))
        .join("bin/python")
}

/// A Dask cluster of worker hosts in network namespaces (scripts/dask-cluster), stopped
/// when dropped.
struct DaskCluster {
    dir: PathBuf,
}

impl DaskCluster {
    fn start(workers: u32) -> DaskCluster {
        assert!(
            dask_python().is_file(),
            "no {}: run scripts/setup-dask (CI does)",
            dask_python().display()
        );
        let dir = root().join("dask-cluster");
        let script = rld_tests::workspace_dir().join("scripts/dask-cluster");
        let out = output_with_timeout(
            Command::new(&script)
                .arg("start")
                .arg(&dir)
                .arg(workers.to_string()),
            Duration::from_secs(120),
        );
        let cluster = DaskCluster { dir };
        assert!(
            out.status.success(),
            "{}",
            report(
                "starting the Dask cluster",
                Command::new(&script).arg("start"),
                &out
            )
        );
        cluster
    }

    fn address(&self) -> String {
        fs::read_to_string(self.dir.join("address"))
            .unwrap()
            .trim()
            .to_string()
    }

    /// Each worker's own log: (worker number, text).
    fn logs(&self, workers: u32) -> Vec<(u32, String)> {
        (1..=workers)
            .map(|i| {
                let log = self.dir.join(format!("worker-{i}.log"));
                (i, fs::read_to_string(log).unwrap_or_default())
            })
            .collect()
    }
}

impl Drop for DaskCluster {
    fn drop(&mut self) {
        let _ = Command::new(rld_tests::workspace_dir().join("scripts/dask-cluster"))
            .arg("stop")
            .arg(&self.dir)
            .status();
    }
}

/// The job outputs (`...native.o`) a worker's log says it finished with status 0.
fn finished_jobs(log: &str) -> Vec<String> {
    log.lines()
        .filter(|l| l.contains("dtlto-dask:") && l.contains(": end ") && l.contains("status=0"))
        .filter_map(|l| Some(l.split(": end ").nth(1)?.split(' ').next()?.to_string()))
        .collect()
}

/// Lua and SQLite linked through a Dask cluster of three worker hosts, each in a network
/// namespace of its own: the programs are byte for byte the in-process links', the
/// workers' own logs show the jobs ran there, and a worker host killed in the middle of a
/// job costs nothing but time (Dask runs the job again elsewhere).
#[test]
fn lua_and_sqlite_through_a_dask_cluster_of_three_hosts() {
    let cluster = DaskCluster::start(3);
    DASK_SCHEDULER.set(cluster.address()).unwrap();
    for program in [Program::Lua, Program::Sqlite] {
        let local = link(program, Cc::ClangLto, Linker::RldPartitions(4));
        let dask = link(program, Cc::ClangLto, Linker::RldDask(4));
        assert!(
            fs::read(&local).unwrap() == fs::read(&dask).unwrap(),
            "{}: the link through Dask differs from the in-process one",
            program.name()
        );
        scripts_with(program, Cc::ClangLto, Linker::RldDask(4));
    }
    // Every job ran on a worker host (10.231.77.11-13), not the linker's, and the work was
    // shared.
    let logs = cluster.logs(3);
    let mut hosts_used = 0;
    for (i, log) in &logs {
        let jobs = finished_jobs(log);
        if !jobs.is_empty() {
            hosts_used += 1;
            let address = format!("tcp://10.231.77.{}:", 10 + i);
            assert!(
                log.contains(&address),
                "worker {i} is not at {address}:\n{log}"
            );
        }
    }
    let all: Vec<String> = logs.iter().flat_map(|(_, l)| finished_jobs(l)).collect();
    assert!(
        all.iter().filter(|j| j.contains("/lua.lto.")).count() >= 4,
        "{all:?}"
    );
    assert!(
        all.iter().filter(|j| j.contains("/sqlite.lto.")).count() >= 4,
        "{all:?}"
    );
    assert!(hosts_used >= 2, "one host did all the work: {logs:?}");

    // A worker host dies in the middle of a job.
    let objects = objects(Program::Lua, Cc::ClangLto).unwrap();
    let spec = spec(Program::Lua);
    let dir = root().join("out").join("lua-dask-killed");
    fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("lua");
    let _ = fs::remove_file(&exe);
    let mut cmd = Command::new(Cc::ClangLto.link_command());
    cmd.arg(format!("--ld-path={}", rld_path().display()))
        .args(Linker::RldDask(4).flags())
        .args(Cc::ClangLto.mode_flags())
        .arg(OPT)
        .args(&spec.ldflags)
        .args(objects.iter())
        .args(&spec.libs)
        .arg("-o")
        .arg(&exe);
    let before: Vec<usize> = logs.iter().map(|(_, l)| l.len()).collect();
    let mut child = cmd.spawn().unwrap();
    let started = std::time::Instant::now();
    let mut killed = None;
    while killed.is_none() && started.elapsed() < Duration::from_secs(60) {
        for (i, log) in cluster.logs(3) {
            let new = &log[before[i as usize - 1].min(log.len())..];
            if new.contains(": start ") {
                let ns = format!("rlddask{i}");
                let pids = Command::new("ip")
                    .args(["netns", "pids", &ns])
                    .output()
                    .unwrap();
                for pid in String::from_utf8_lossy(&pids.stdout).split_whitespace() {
                    let _ = Command::new("kill").args(["-KILL", pid]).status();
                }
                killed = Some((i, new.to_string()));
                break;
            }
        }
        thread::sleep(Duration::from_millis(5));
    }
    let status = child.wait().unwrap();
    let (victim, seen) = killed.expect("no job started within 60 s");
    assert!(
        status.success(),
        "the link failed after worker {victim} died: {}",
        command_line(&cmd)
    );
    let local = link(Program::Lua, Cc::ClangLto, Linker::RldPartitions(4));
    assert!(
        fs::read(&local).unwrap() == fs::read(&exe).unwrap(),
        "the relinked Lua differs"
    );
    // The job the dead host had started was finished by another one.
    let job = seen
        .lines()
        .find_map(|l| Some(l.split(": start ").nth(1)?.trim().to_string()))
        .unwrap();
    let finished_by: Vec<u32> = cluster
        .logs(3)
        .iter()
        .filter(|(_, l)| finished_jobs(l).contains(&job))
        .map(|(i, _)| *i)
        .collect();
    assert!(
        !finished_by.is_empty() && !finished_by.contains(&victim),
        "{job}: started on worker {victim}, finished by {finished_by:?}"
    );
    drop(cluster);
}

/// rld's other LTO configurations (as the differential runs of scripts/difftest use them):
/// 16 partitions, the alias metadata or called-value propagation off, one thread. Each
/// program behaves the same. SQLite (most of a minute per LTO link) runs with the analyses
/// off only; with 16 partitions and one thread it is left to scripts/difftest, to keep CI
/// within its time (bzip2 and Lua run in every configuration).
macro_rules! lto_configurations {
    ($($name:ident: $linker:expr $(, $sqlite:ident)?;)*) => {
        mod configurations {
            use super::*;
            $(
                mod $name {
                    use super::*;
                    #[test]
                    fn bzip2_roundtrip() {
                        bzip2_roundtrip_with(Cc::ClangLto, $linker);
                    }
                    #[test]
                    fn lua_scripts() {
                        scripts_with(Program::Lua, Cc::ClangLto, $linker);
                    }
                    $(
                        #[test]
                        fn $sqlite() {
                            scripts_with(Program::Sqlite, Cc::ClangLto, $linker);
                        }
                    )?
                }
            )*
        }
    };
}
lto_configurations! {
    partitions16: Linker::RldPartitions(16);
    no_wpa_aa: Linker::RldOption("--no-wpa-aa"), sqlite_queries;
    no_cvp: Linker::RldOption("--no-cvp"), sqlite_queries;
    threads1: Linker::RldThreads(1);
}

/// The output does not depend on how many threads link it (or compile its LTO partitions):
/// one thread and more threads than this machine has cores give the same bytes, build id
/// included, with and without LTO.
#[test]
fn lua_output_does_not_depend_on_threads() {
    for cc in [Cc::Clang, Cc::ClangLto] {
        let one = link(Program::Lua, cc, Linker::RldThreads(1));
        let many = link(Program::Lua, cc, Linker::RldThreads(5));
        assert!(build_id(&one).is_some(), "{}: no build id", one.display());
        assert!(
            read(&one) == read(&many),
            "{} and {} differ",
            one.display(),
            many.display()
        );
    }
}

/// Bit flips in real bitcode (Lua's lstrlib.c, clang-22 -flto): LLVM's reader crashes on
/// some of them (a segfault, "out of memory"), which rld, reading new bitcode in child
/// processes, turns into an error naming the file. Never a signal, never a panic.
#[test]
fn flipped_bits_in_lua_bitcode_never_crash_rld() {
    let objects = objects(Program::Lua, Cc::ClangLto).unwrap_or_else(|e| panic!("{e}"));
    let base = objects
        .iter()
        .find(|o| {
            o.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("lstrlib-"))
        })
        .expect("lstrlib.o");
    let bytes = fs::read(base).unwrap();
    let dir = root().join("out").join("bitcode-flips");
    fs::create_dir_all(&dir).unwrap();
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |bound: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as usize % bound
    };
    let mut rejected = 0;
    for n in 0..160 {
        let mut flipped = bytes.clone();
        for _ in 0..1 + next(4) {
            let at = next(flipped.len());
            flipped[at] ^= 1 << next(8);
        }
        let name = format!("flip{n}.o");
        let input = dir.join(&name);
        fs::write(&input, &flipped).unwrap();
        let mut cmd = Command::new(rld_path());
        cmd.arg(&input)
            .args(["-shared", "-o"])
            .arg(dir.join("out.so"));
        let out = output_with_timeout(&mut cmd, Duration::from_secs(60));
        let stderr = String::from_utf8_lossy(&out.stderr);
        let ctx = format!(
            "{}: {}\n{stderr}",
            command_line(&cmd),
            describe_status(&out)
        );
        assert!(matches!(out.status.code(), Some(0 | 1)), "{ctx}");
        assert!(!stderr.contains("panicked"), "{ctx}");
        // A flip may also leave valid bitcode that fails later (a text relocation, an
        // undefined symbol): any error, but one that says so.
        if out.status.code() == Some(1) {
            assert!(stderr.contains("rld: error"), "{ctx}");
            rejected += usize::from(stderr.contains(&name));
        }
        let _ = fs::remove_file(&input);
    }
    assert!(rejected > 40, "only {rejected} of 160 rejected");
}

/// Lua's whole remark set from an rld -flto link (every pass), as `rld remarks summary`
/// counts it, equals what LLVM's own parser reads; and a diff of the file with itself finds
/// nothing.
#[test]
fn lua_lto_remarks_are_counted_like_llvm_reads_them() {
    let objects = objects(Program::Lua, Cc::ClangLto).unwrap_or_else(|e| panic!("{e}"));
    let spec = spec(Program::Lua);
    let dir = root().join("out").join("lua-remarks");
    fs::create_dir_all(&dir).unwrap();
    let yaml = dir.join("lua.remarks.yaml");
    let mut cmd = Command::new(Cc::ClangLto.command());
    cmd.arg(format!("--ld-path={}", rld_path().display()))
        .args(Cc::ClangLto.mode_flags())
        .arg(OPT)
        .arg(format!("-Wl,--opt-remarks-filename,{}", yaml.display()))
        .args(&spec.ldflags)
        .args(objects.iter())
        .args(&spec.libs)
        .arg("-o")
        .arg(dir.join("lua"));
    let out = output_with_timeout(&mut cmd, BUILD_TIMEOUT);
    assert!(out.status.success(), "{}", describe_status(&out));

    let llvm = rld_tests::llvm_remarks::remarks(&yaml);
    let mut by_kind: BTreeMap<String, u64> = BTreeMap::new();
    for r in &llvm {
        *by_kind.entry(r.kind.clone()).or_default() += 1;
    }
    assert!(llvm.len() > 10_000, "{} remarks", llvm.len());
    let summary = run(Command::new(rld_path())
        .args(["remarks", "summary", "--format", "json"])
        .arg(&yaml));
    let v: serde_json::Value = serde_json::from_slice(&summary.stdout).unwrap();
    assert_eq!(v["total"].as_u64(), Some(llvm.len() as u64));
    for (kind, n) in by_kind {
        assert_eq!(v["kinds"][&kind].as_u64(), Some(n), "{kind}");
    }
    let diff = run(Command::new(rld_path())
        .args([
            "remarks",
            "diff",
            "--fail-on-regression",
            "--format",
            "json",
        ])
        .arg(&yaml)
        .arg(&yaml));
    let v: serde_json::Value = serde_json::from_slice(&diff.stdout).unwrap();
    assert_eq!(v["unchanged"].as_u64(), Some(llvm.len() as u64), "{v:#}");
}

// ---------------------------------------------------------------------------
// Checks

/// readelf and objdump accept the rld output without complaint.
fn elf_tools(program: Program, cc: Cc) {
    let exe = link(program, cc, Linker::Rld);
    assert_readelf_clean(&exe);
    assert_objdump_clean(&exe);
}

/// LTO should not cost size: rld's output is at most 5% larger than lld's.
/// Prints both sizes, for the README.
fn lto_size(program: Program) {
    let rld = link(program, Cc::ClangLto, Linker::Rld);
    let lld = link(program, Cc::ClangLto, Linker::Lld);
    let size = |p: &Path| {
        fs::metadata(p)
            .unwrap_or_else(|e| panic!("cannot stat {}: {e}", p.display()))
            .len()
    };
    let (rld_size, lld_size) = (size(&rld), size(&lld));
    eprintln!(
        "{} (clang-22 -flto {OPT}): rld {rld_size} bytes, lld {lld_size} bytes ({:.3}x)",
        program.name(),
        rld_size as f64 / lld_size as f64
    );
    assert!(
        rld_size as f64 <= lld_size as f64 * 1.05,
        "{}: rld's LTO output {} ({rld_size} bytes) is more than 5% larger than lld's {} ({lld_size} bytes)",
        program.name(),
        rld.display(),
        lld.display()
    );
}

/// bzip2's `make test`, on the samples shipped with its sources.
fn bzip2_samples(cc: Cc) {
    let exe = link(Program::Bzip2, cc, Linker::Rld);
    let samples = source_dir("bzip2");
    let mut failures = Vec::new();
    for n in 1..=3 {
        let bz2 = samples.join(format!("sample{n}.bz2"));
        let reference = samples.join(format!("sample{n}.ref"));
        let bz2_bytes = read(&bz2);
        let ref_bytes = read(&reference);

        // Decompress (sample3 with -s, the small-memory algorithm, as the
        // Makefile does).
        let mut args = vec!["-d", "-c"];
        if n == 3 {
            args.push("-s");
        }
        let mut cmd = Command::new(&exe);
        cmd.args(&args).arg(&bz2);
        expect_output(&mut cmd, &ref_bytes, &mut failures);

        // Compress at level n: the samples were made that way.
        let mut cmd = Command::new(&exe);
        cmd.arg(format!("-{n}")).arg("-c").arg(&reference);
        expect_output(&mut cmd, &bz2_bytes, &mut failures);
    }
    assert_no_failures("bzip2 samples", cc, &failures);
}

/// Generated data through compression and decompression, compared with the
/// lld build and the system's bzip2.
fn bzip2_roundtrip(cc: Cc) {
    bzip2_roundtrip_with(cc, Linker::Rld);
}

fn bzip2_roundtrip_with(cc: Cc, linker: Linker) {
    let rld = link(Program::Bzip2, cc, linker);
    let lld = link(Program::Bzip2, cc, Linker::reference(cc));
    let work = fresh_dir(
        &root()
            .join("work")
            .join(format!("bzip2-{cc:?}-{}", linker.name()).to_lowercase()),
    );
    let system_bzip2 = find_in_path("bzip2");
    let mut failures = Vec::new();

    let mixed = mixed_data(700_000, 1);
    let inputs: [(&str, Vec<u8>); 4] = [
        ("empty", Vec::new()),
        ("one", b"x".to_vec()),
        ("mixed", mixed.clone()),
        ("random", random_data(150_000, 2)),
    ];
    let mut mixed_9 = Vec::new();
    for (name, data) in &inputs {
        write(&work.join(name), data);
        for level in ["-1", "-9"] {
            let mut cmd = Command::new(&rld);
            cmd.args([level, "-c", name]).current_dir(&work);
            let out = run(&mut cmd);
            if !out.status.success() {
                failures.push(report("compression failed", &cmd, &out));
                continue;
            }
            let compressed = out.stdout;
            let mut cmd = Command::new(&lld);
            cmd.args([level, "-c", name]).current_dir(&work);
            expect_same(&mut cmd, &compressed, "the rld build's", &mut failures);

            let file = format!("{name}{level}.bz2");
            write(&work.join(&file), &compressed);
            let mut cmd = Command::new(&rld);
            cmd.args(["-d", "-c", &file]).current_dir(&work);
            expect_output(&mut cmd, data, &mut failures);
            let mut cmd = Command::new(&lld);
            cmd.args(["-d", "-c", &file]).current_dir(&work);
            expect_output(&mut cmd, data, &mut failures);
            if let Some(system) = &system_bzip2 {
                let mut cmd = Command::new(system);
                cmd.args(["-d", "-c", &file]).current_dir(&work);
                expect_output(&mut cmd, data, &mut failures);
            }
            if *name == "mixed" && level == "-9" {
                mixed_9 = compressed;
            }
        }
    }

    if mixed_9.is_empty() {
        // Compressing failed (reported above); nothing to go on with.
        assert_no_failures("bzip2 round trips", cc, &failures);
    }

    // File mode: compress keeping the input, test, decompress in place.
    write(&work.join("file.dat"), &mixed);
    let steps: [&[&str]; 2] = [&["-9", "-k", "-f", "file.dat"], &["-t", "file.dat.bz2"]];
    for args in steps {
        let mut cmd = Command::new(&rld);
        cmd.args(args).current_dir(&work);
        expect_output(&mut cmd, b"", &mut failures);
    }
    if fs::read(work.join("file.dat.bz2")).ok() != Some(mixed_9.clone()) {
        failures.push(format!(
            "`bzip2 -9 -k -f file.dat` did not write what `bzip2 -9 -c` printed to file.dat.bz2\n{}",
            listing(&work)
        ));
    }
    let _ = fs::remove_file(work.join("file.dat"));
    let mut cmd = Command::new(&rld);
    cmd.args(["-d", "file.dat.bz2"]).current_dir(&work);
    expect_output(&mut cmd, b"", &mut failures);
    if fs::read(work.join("file.dat")).ok().as_deref() != Some(&mixed[..]) {
        failures.push(format!(
            "`bzip2 -d file.dat.bz2` did not restore file.dat\n{}",
            listing(&work)
        ));
    } else if work.join("file.dat.bz2").exists() {
        failures.push("`bzip2 -d file.dat.bz2` did not remove file.dat.bz2".into());
    }

    // A corrupted stream fails the same way in both builds.
    let mut corrupt = mixed_9;
    let mid = corrupt.len() / 2;
    corrupt[mid] ^= 0x55;
    write(&work.join("corrupt.bz2"), &corrupt);
    let mut cmd = Command::new(&lld);
    cmd.args(["-d", "-c", "corrupt.bz2"]).current_dir(&work);
    let want = run(&mut cmd);
    if want.status.success() {
        failures.push(report(
            "the lld build accepted a corrupted stream",
            &cmd,
            &want,
        ));
    }
    let mut cmd = Command::new(&rld);
    cmd.args(["-d", "-c", "corrupt.bz2"]).current_dir(&work);
    let got = run(&mut cmd);
    if transcript(&got) != transcript(&want) {
        failures.push(format!(
            "corrupted stream: the rld build behaves differently from the lld build\n  command: {}\n{}",
            command_line(&cmd),
            first_difference(&transcript(&want), &transcript(&got))
        ));
    }
    assert_no_failures("bzip2 round trips", cc, &failures);
}

/// Runs every script of a program (`corpus/lua/*.lua`, `corpus/sqlite/*.sql`)
/// with the rld and the lld build, and compares with each other and with the
/// checked-in `.expected` file.
fn scripts(program: Program, cc: Cc) {
    scripts_with(program, cc, Linker::Rld);
}

fn scripts_with(program: Program, cc: Cc, linker: Linker) {
    let rld = link(program, cc, linker);
    let lld = link(program, cc, Linker::reference(cc));
    let (dir, ext) = match program {
        Program::Lua => (Path::new(CORPUS).join("lua"), "lua"),
        Program::Sqlite => (Path::new(CORPUS).join("sqlite"), "sql"),
        Program::Bzip2 => unreachable!("bzip2 has no scripts"),
    };
    let scripts = files_with_extension(&dir, ext);
    assert!(!scripts.is_empty(), "no *.{ext} in {}", dir.display());
    let bless = std::env::var("RLD_CORPUS_BLESS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    for script in &scripts {
        let name = script.file_name().unwrap().to_str().unwrap();
        let expected_path = script.with_extension("expected");

        let mut cmd = Command::new(&lld);
        cmd.arg(name).current_dir(&dir);
        let want = transcript(&run(&mut cmd));
        if bless {
            write(&expected_path, &want);
        }
        match fs::read(&expected_path) {
            Ok(expected) if expected != want => failures.push(format!(
                "{name}: the lld build's output differs from {} (a compiler or \
                 harness problem, not rld's; RLD_CORPUS_BLESS=1 rewrites it)\n{}",
                expected_path.display(),
                first_difference(&expected, &want)
            )),
            Ok(_) => {}
            Err(e) => failures.push(format!(
                "{name}: cannot read {}: {e} (RLD_CORPUS_BLESS=1 writes it)",
                expected_path.display()
            )),
        }

        let mut cmd = Command::new(&rld);
        cmd.arg(name).current_dir(&dir);
        let got = transcript(&run(&mut cmd));
        if got != want {
            failures.push(format!(
                "{name}: the rld build's output differs from the lld build's\n  command: {}\n{}",
                command_line(&cmd),
                first_difference(&want, &got)
            ));
        }
    }
    assert_no_failures(&format!("{} scripts", program.name()), cc, &failures);
}

// ---------------------------------------------------------------------------
// Running programs and comparing output

fn run(cmd: &mut Command) -> Output {
    output_with_timeout(cmd, RUN_TIMEOUT)
}

/// Runs `cmd`; records a failure unless it exits 0 with exactly `expected` on
/// stdout and nothing on stderr.
fn expect_output(cmd: &mut Command, expected: &[u8], failures: &mut Vec<String>) {
    let out = run(cmd);
    if !out.status.success() || !out.stderr.is_empty() {
        failures.push(report("command failed", cmd, &out));
    } else if out.stdout != expected {
        failures.push(format!(
            "wrong output ({} bytes, expected {})\n  command: {}\n  first difference at byte {}",
            out.stdout.len(),
            expected.len(),
            command_line(cmd),
            first_differing_byte(&out.stdout, expected)
        ));
    }
}

/// Runs `cmd`; records a failure unless it exits 0 and prints `expected`,
/// which is `whose` output.
fn expect_same(cmd: &mut Command, expected: &[u8], whose: &str, failures: &mut Vec<String>) {
    let out = run(cmd);
    if !out.status.success() {
        failures.push(report("command failed", cmd, &out));
    } else if out.stdout != expected {
        failures.push(format!(
            "output differs from {whose} ({} bytes vs {})\n  command: {}\n  first difference at byte {}",
            out.stdout.len(),
            expected.len(),
            command_line(cmd),
            first_differing_byte(&out.stdout, expected)
        ));
    }
}

fn report(what: &str, cmd: &Command, out: &Output) -> String {
    format!(
        "{what}\n  command: {}\n  {}\n--- stderr ---\n{}",
        command_line(cmd),
        describe_status(out),
        truncate(&String::from_utf8_lossy(&out.stderr), 4000)
    )
}

fn assert_no_failures(what: &str, cc: Cc, failures: &[String]) {
    if !failures.is_empty() {
        panic!(
            "{what} ({cc:?} build linked by rld): {} failure(s)\n\n{}",
            failures.len(),
            failures.join("\n\n")
        );
    }
}

/// Everything a run printed, in one comparable blob: stdout, then stderr
/// after a `[stderr]` line, then `[exit status N]` unless it was 0.
fn transcript(out: &Output) -> Vec<u8> {
    fn end_line(t: &mut Vec<u8>) {
        if !t.is_empty() && !t.ends_with(b"\n") {
            t.push(b'\n');
        }
    }
    let mut t = out.stdout.clone();
    if !out.stderr.is_empty() {
        end_line(&mut t);
        t.extend_from_slice(b"[stderr]\n");
        t.extend_from_slice(&out.stderr);
    }
    if !out.status.success() {
        end_line(&mut t);
        t.extend_from_slice(format!("[{}]\n", describe_status(out)).as_bytes());
    }
    t
}

/// The first differing line of two outputs, with some context.
fn first_difference(want: &[u8], got: &[u8]) -> String {
    let want = String::from_utf8_lossy(want);
    let got = String::from_utf8_lossy(got);
    let w: Vec<&str> = want.lines().collect();
    let g: Vec<&str> = got.lines().collect();
    let i = w
        .iter()
        .zip(&g)
        .position(|(a, b)| a != b)
        .unwrap_or(w.len().min(g.len()));
    let mut s = format!(
        "  first difference at line {} ({} lines expected, {} got)\n",
        i + 1,
        w.len(),
        g.len()
    );
    let from = i.saturating_sub(3);
    for (label, lines) in [("expected", &w), ("got", &g)] {
        let _ = writeln!(s, "  --- {label} ---");
        for (n, line) in lines.iter().enumerate().skip(from).take(i + 4 - from) {
            let mark = if n == i { '>' } else { ' ' };
            let _ = writeln!(s, "  {mark}{:5} | {}", n + 1, truncate(line, 300));
        }
    }
    s
}

fn first_differing_byte(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} more bytes)", &s[..end], s.len() - end)
}

// ---------------------------------------------------------------------------
// Test data for bzip2

/// xorshift64*: deterministic pseudo-random numbers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn random_data(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ seed);
    (0..len).map(|_| rng.next() as u8).collect()
}

/// Text-like words, random bytes, long runs of one byte (bzip2's run-length
/// stage) and counting sequences, mixed.
fn mixed_data(len: usize, seed: u64) -> Vec<u8> {
    const WORDS: [&str; 12] = [
        "the",
        "linker",
        "resolves",
        "symbols",
        "and",
        "relocations",
        "in",
        "sections",
        "of",
        "object",
        "files",
        "\n",
    ];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d ^ seed);
    let mut out = Vec::with_capacity(len + 1000);
    while out.len() < len {
        match rng.below(4) {
            0 => {
                for _ in 0..rng.below(200) {
                    out.extend_from_slice(WORDS[rng.below(WORDS.len())].as_bytes());
                    out.push(b' ');
                }
            }
            1 => {
                for _ in 0..rng.below(100) {
                    out.push(rng.next() as u8);
                }
            }
            2 => {
                let byte = rng.next() as u8;
                out.resize(out.len() + rng.below(1000) + 1, byte);
            }
            _ => {
                let start = rng.next() as u8;
                for i in 0..rng.below(600) {
                    out.push(start.wrapping_add(i as u8));
                }
            }
        }
    }
    out.truncate(len);
    out
}

// ---------------------------------------------------------------------------
// Building: sources, objects (cached across runs), links (once per run)

/// `<target>/tmp/rld-corpus`, or `$RLD_CORPUS_DIR`: object cache, outputs, scratch files.
/// (scripts/self-link points its own build of these tests at the first build's directory,
/// so that the sources are not compiled a second time.)
fn root() -> PathBuf {
    match std::env::var_os("RLD_CORPUS_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_TARGET_TMPDIR")).join("rld-corpus"),
    }
}

/// A source directory printed by fetch.sh: "bzip2", "lua" or "sqlite".
fn source_dir(key: &str) -> PathBuf {
    static DIRS: OnceLock<Result<BTreeMap<String, PathBuf>, String>> = OnceLock::new();
    let dirs = DIRS
        .get_or_init(|| {
            let script = Path::new(CORPUS).join("fetch.sh");
            let mut cmd = Command::new("bash");
            cmd.arg(&script);
            let out = output_with_timeout(&mut cmd, BUILD_TIMEOUT);
            if !out.status.success() {
                return Err(report("fetching the corpus sources failed", &cmd, &out));
            }
            Ok(String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| l.split_once('='))
                .map(|(k, v)| (k.to_string(), PathBuf::from(v)))
                .collect())
        })
        .as_ref()
        .unwrap_or_else(|e| panic!("{e}"));
    dirs.get(key)
        .unwrap_or_else(|| panic!("fetch.sh printed no {key}= line"))
        .clone()
}

/// `corpus/programs.conf` as `program.key` -> value.
fn config() -> &'static BTreeMap<String, String> {
    static CONFIG: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    CONFIG.get_or_init(|| {
        let path = Path::new(CORPUS).join("programs.conf");
        let text = fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| {
                let (k, v) = l
                    .split_once('=')
                    .unwrap_or_else(|| panic!("{}: bad line {l:?}", path.display()));
                (k.trim().to_string(), v.trim().to_string())
            })
            .collect()
    })
}

fn config_words(program: Program, key: &str) -> Vec<String> {
    config()
        .get(&format!("{}.{key}", program.name()))
        .map(|v| v.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

/// How to build one program.
struct Spec {
    /// C files: the program's sources, then our driver(s).
    sources: Vec<PathBuf>,
    /// Compiler flags after -O2 (includes -I<source dir>).
    cflags: Vec<String>,
    /// Link flags before the objects.
    ldflags: Vec<String>,
    /// Libraries after the objects.
    libs: Vec<String>,
}

fn spec(program: Program) -> Spec {
    let dir_key = config_words(program, "dir");
    let dir = source_dir(dir_key.first().map_or(program.name(), String::as_str));
    let exclude = config_words(program, "exclude");
    let mut sources = Vec::new();
    for pattern in config_words(program, "sources") {
        if let Some(suffix) = pattern.strip_prefix('*') {
            let mut found: Vec<PathBuf> = files_with_extension(&dir, "")
                .into_iter()
                .filter(|p| {
                    let name = p.file_name().unwrap().to_string_lossy();
                    name.ends_with(suffix) && !exclude.iter().any(|e| *e == name)
                })
                .collect();
            assert!(
                !found.is_empty(),
                "{pattern} matches nothing in {}",
                dir.display()
            );
            sources.append(&mut found);
        } else {
            let path = dir.join(&pattern);
            assert!(path.is_file(), "{} is missing", path.display());
            sources.push(path);
        }
    }
    for driver in config_words(program, "driver") {
        sources.push(Path::new(CORPUS).join(driver));
    }
    let mut cflags = config_words(program, "cflags");
    cflags.push(format!("-I{}", dir.display()));
    Spec {
        sources,
        cflags,
        ldflags: config_words(program, "ldflags"),
        libs: config_words(program, "libs"),
    }
}

/// Files in `dir` whose name ends with `.ext` (any file if `ext` is empty),
/// sorted.
fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let entries =
        fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .filter(|p| ext.is_empty() || p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    files
}

/// A memo table whose values are computed once per test process, even when
/// several tests ask at the same time.
struct Memo<K, V>(Mutex<BTreeMap<K, Arc<OnceLock<V>>>>);

impl<K: Ord, V: Clone> Memo<K, V> {
    const fn new() -> Self {
        Memo(Mutex::new(BTreeMap::new()))
    }

    fn get(&self, key: K, init: impl FnOnce() -> V) -> V {
        let cell = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key)
            .or_default()
            .clone();
        cell.get_or_init(init).clone()
    }
}

/// The executable `program`, compiled by `cc` and linked by `linker` through
/// `cc`'s driver. Linked once per test process; panics with the linker's
/// messages if the link fails.
fn link(program: Program, cc: Cc, linker: Linker) -> PathBuf {
    static LINKS: Memo<(Program, Cc, Linker), Result<PathBuf, String>> = Memo::new();
    LINKS
        .get((program, cc, linker), || try_link(program, cc, linker))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn try_link(program: Program, cc: Cc, linker: Linker) -> Result<PathBuf, String> {
    let objects = objects(program, cc)?;
    let spec = spec(program);
    let dir = root()
        .join("out")
        .join(format!("{program:?}-{cc:?}-{}", linker.name()).to_lowercase());
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let exe = dir.join(program.name());
    let _ = fs::remove_file(&exe);

    let mut cmd = Command::new(cc.link_command());
    match (cc, linker) {
        (_, Linker::Lld) if cc.is_clang() => cmd.arg(format!("--ld-path={}", lld_path().display())),
        (_, Linker::GnuLd) => cmd.arg("-fuse-ld=bfd"),
        (_, Linker::Plugin(host)) => cmd
            .arg(format!("--ld-path={}", host.wrapper().display()))
            .env("RLD_PLUGIN", rld_plugin_path()),
        (Cc::Gcc | Cc::GccLto, Linker::Lld) => cmd.arg(format!("-B{}/", lld_b_dir().display())),
        (Cc::Gcc | Cc::GccLto, _) => cmd.arg(format!("-B{}/", gcc_b_dir().display())),
        (_, _) => cmd.arg(format!("--ld-path={}", rld_path().display())),
    };
    cmd.args(linker.flags());
    if matches!(cc, Cc::ClangLto | Cc::ClangLto14 | Cc::GccLto) {
        // With -O2 on the link line clang passes -plugin-opt=O2 (LTO's default
        // level anyway).
        cmd.args(cc.mode_flags()).arg(OPT);
    }
    cmd.args(&spec.ldflags)
        .args(objects.iter())
        .args(&spec.libs)
        .arg("-o")
        .arg(&exe);
    let out = output_with_timeout(&mut cmd, BUILD_TIMEOUT);
    if !out.status.success() {
        return Err(report(
            &format!(
                "linking {} ({cc:?} objects) with {} failed",
                program.name(),
                linker.name()
            ),
            &cmd,
            &out,
        ));
    }
    if !exe.is_file() {
        return Err(format!(
            "linking {} with {} exited 0 but wrote no {}\n  command: {}",
            program.name(),
            linker.name(),
            exe.display(),
            command_line(&cmd)
        ));
    }
    Ok(exe)
}

/// lld-22, the reference linker.
fn lld_path() -> PathBuf {
    find_in_path("ld.lld-22").expect("ld.lld-22 is not installed (apt-get install lld-22)")
}

/// A directory holding only `ld`, a symlink to lld-22, for `gcc -B<dir>`.
fn lld_b_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = root().join("gcc-B-lld");
        fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        // Replace atomically: another test process may be using it.
        let tmp = dir.join(format!("ld.tmp{}", std::process::id()));
        let _ = fs::remove_file(&tmp);
        std::os::unix::fs::symlink(lld_path(), &tmp)
            .unwrap_or_else(|e| panic!("cannot create symlink {}: {e}", tmp.display()));
        fs::rename(&tmp, dir.join("ld"))
            .unwrap_or_else(|e| panic!("cannot rename {}: {e}", tmp.display()));
        dir
    })
    .clone()
}

fn find_in_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// Object files, or why they could not be compiled.
type Objects = Result<Arc<Vec<PathBuf>>, String>;

/// The objects of `program` compiled by `cc`, from the cache or compiled now
/// (in parallel). Computed once per test process.
fn objects(program: Program, cc: Cc) -> Objects {
    static OBJECTS: Memo<(Program, Cc), Objects> = Memo::new();
    OBJECTS.get((program, cc), || compile_all(program, cc).map(Arc::new))
}

fn compile_all(program: Program, cc: Cc) -> Result<Vec<PathBuf>, String> {
    let spec = spec(program);
    let dir = root()
        .join("obj")
        .join(format!("{}{}{OPT}", cc.command(), cc.mode_flags().concat()))
        .join(program.name());
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let version = compiler_version(cc);

    // Largest first: sqlite3.c alone takes most of the time.
    let mut order: Vec<usize> = (0..spec.sources.len()).collect();
    order
        .sort_by_key(|&i| std::cmp::Reverse(fs::metadata(&spec.sources[i]).map_or(0, |m| m.len())));
    let results: Vec<(usize, Result<PathBuf, String>)> = thread::scope(|s| {
        let handles: Vec<_> = order
            .iter()
            .map(|&i| {
                let (spec, dir, version) = (&spec, &dir, &version);
                (
                    i,
                    s.spawn(move || compile_one(cc, version, &spec.sources[i], &spec.cflags, dir)),
                )
            })
            .collect();
        handles
            .into_iter()
            .map(|(i, h)| (i, h.join().expect("compile thread panicked")))
            .collect()
    });
    let mut objects = vec![PathBuf::new(); spec.sources.len()];
    let mut errors = Vec::new();
    for (i, result) in results {
        match result {
            Ok(obj) => objects[i] = obj,
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(objects)
    } else {
        Err(errors.join("\n\n"))
    }
}

/// Compiles one file unless the cache has it. The object's name carries a
/// hash of everything that affects it.
fn compile_one(
    cc: Cc,
    version: &str,
    source: &Path,
    cflags: &[String],
    dir: &Path,
) -> Result<PathBuf, String> {
    let contents =
        fs::read(source).map_err(|e| format!("cannot read {}: {e}", source.display()))?;
    let mut hash = Fnv::new();
    hash.add(b"rld-corpus-v1\0");
    hash.add(version.as_bytes());
    hash.add(OPT.as_bytes());
    for flag in cc
        .mode_flags()
        .iter()
        .copied()
        .chain(cflags.iter().map(String::as_str))
    {
        hash.add(b"\0");
        hash.add(flag.as_bytes());
    }
    hash.add(b"\0");
    hash.add(source.as_os_str().as_encoded_bytes());
    hash.add(b"\0");
    hash.add(&contents);
    let stem = source.file_stem().unwrap().to_string_lossy();
    let object = dir.join(format!("{stem}-{:016x}.o", hash.0));
    if object.is_file() {
        return Ok(object);
    }

    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let tmp = dir.join(format!(
        "{stem}.tmp{}-{}.o",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let mut cmd = Command::new(cc.command());
    cmd.arg(OPT)
        .args(cc.mode_flags())
        .args(cflags)
        .arg("-c")
        .arg(source)
        .arg("-o")
        .arg(&tmp);
    let out = {
        let _slot = job_slot();
        output_with_timeout(&mut cmd, BUILD_TIMEOUT)
    };
    if !out.status.success() {
        let _ = fs::remove_file(&tmp);
        return Err(report(
            &format!("compiling {} failed", source.display()),
            &cmd,
            &out,
        ));
    }
    fs::rename(&tmp, &object).map_err(|e| format!("cannot rename {}: {e}", tmp.display()))?;
    Ok(object)
}

/// `cc --version`, part of the cache key.
fn compiler_version(cc: Cc) -> String {
    static VERSIONS: Memo<Cc, String> = Memo::new();
    VERSIONS.get(cc, || {
        let mut cmd = Command::new(cc.command());
        cmd.arg("--version");
        let out = output_with_timeout(&mut cmd, BUILD_TIMEOUT);
        assert!(
            out.status.success(),
            "{}",
            report("the compiler does not run", &cmd, &out)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    })
}

struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// Limits the number of compilers running at once across all tests of this
/// process to `RLD_CORPUS_JOBS` (default: the number of CPUs).
struct JobSlot;

static FREE_SLOTS: Mutex<Option<usize>> = Mutex::new(None);
static SLOT_FREED: Condvar = Condvar::new();

fn job_slot() -> JobSlot {
    let mut free = FREE_SLOTS.lock().unwrap_or_else(PoisonError::into_inner);
    if free.is_none() {
        let jobs = std::env::var("RLD_CORPUS_JOBS")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&n: &usize| n > 0)
            .unwrap_or_else(|| thread::available_parallelism().map_or(2, |n| n.get()));
        *free = Some(jobs);
    }
    while *free == Some(0) {
        free = SLOT_FREED
            .wait(free)
            .unwrap_or_else(PoisonError::into_inner);
    }
    *free = free.map(|n| n - 1);
    JobSlot
}

impl Drop for JobSlot {
    fn drop(&mut self) {
        let mut free = FREE_SLOTS.lock().unwrap_or_else(PoisonError::into_inner);
        *free = free.map(|n| n + 1);
        SLOT_FREED.notify_one();
    }
}

// ---------------------------------------------------------------------------
// Files

fn read(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn write(path: &Path, data: &[u8]) {
    fs::write(path, data).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

/// The names and sizes of the files in `dir`, for failure messages.
fn listing(dir: &Path) -> String {
    let mut s = format!("  {} now holds:", dir.display());
    for path in files_with_extension(dir, "") {
        let size = fs::metadata(&path).map_or(0, |m| m.len());
        let _ = write!(s, "\n    {:?} ({size} bytes)", path.file_name().unwrap());
    }
    s
}

/// An empty directory at `path` (whatever was there is removed).
fn fresh_dir(path: &Path) -> PathBuf {
    let _ = fs::remove_dir_all(path);
    fs::create_dir_all(path).unwrap_or_else(|e| panic!("cannot create {}: {e}", path.display()));
    path.to_path_buf()
}
