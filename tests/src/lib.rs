//! End-to-end test harness for rld.
//!
//! Each test creates a [`Test`] (a private temporary directory), compiles C
//! sources from `tests/cases/` (or inline snippets) with [`Test::compile`],
//! links them with one of the [`Driver`]s and runs the result. Most feature
//! tests call [`Test::check_program`], which links the same objects with rld
//! through both `clang-22 --ld-path=<rld>` and `gcc -B<dir>` and with lld as the
//! reference, runs all of them and requires identical stdout, stderr and exit
//! status.
//!
//! Every output that rld produces through [`Test::link`] is also checked with
//! [`assert_readelf_clean`] and [`assert_objdump_clean`].
//!
//! Environment:
//! - `RLD`: the linker under test; default `<workspace>/target/release/rld`
//!   (or `$CARGO_TARGET_DIR/release/rld` when that variable is set).
//! - `RLD_IS_STANDIN=1`: `RLD` is a stand-in (e.g. a script running lld); the
//!   assertions about rld's own error-message format are skipped.
//!
//! Every failing assertion names the command that failed and shows its stderr.

pub mod llvm_remarks;

use std::cell::Cell;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The compiler for [`Test::compile`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compiler {
    /// `clang-22`
    Clang,
    /// `clang-14`: with `-flto`, LLVM 14's bitcode (typed pointers, the old attributes),
    /// which rld's LLVM upgrades on read.
    Clang14,
    /// `gcc` (gcc-12)
    Gcc,
}

/// The source language, which picks the compiler driver: C (`clang-22`,
/// `gcc`) or C++ (`clang++-22`, `g++`, which also link libstdc++).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    C,
    Cxx,
}

impl Lang {
    fn compiler(self, cc: Compiler) -> &'static str {
        match (self, cc) {
            (Lang::C, Compiler::Clang) => "clang-22",
            (Lang::C, Compiler::Clang14) => "clang-14",
            (Lang::C, Compiler::Gcc) => "gcc",
            (Lang::Cxx, Compiler::Clang) => "clang++-22",
            (Lang::Cxx, Compiler::Clang14) => "clang++-14",
            (Lang::Cxx, Compiler::Gcc) => "g++",
        }
    }

    fn ext(self) -> &'static str {
        match self {
            Lang::C => "c",
            Lang::Cxx => "cpp",
        }
    }
}

/// How [`Test::link`] invokes a linker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driver {
    /// `clang-22 --ld-path=<rld>`
    ClangRld,
    /// `gcc -B<dir>` where `<dir>/ld` is a symlink to rld.
    GccRld,
    /// `clang-22 -fuse-ld=lld`: the reference linker.
    ClangLld,
    /// `gcc` with its own GNU ld: the reference where lld-22 lacks a behaviour
    /// (e.g. folding `.ctors` into `.init_array`).
    GccLd,
    /// rld called directly; the flags are its whole command line (plus `-o`).
    Rld,
    /// `clang-22 --ld-path=<scripts/rld-plugin-ld as HOST>`: the host linker with rld's LTO
    /// plugin in place of LLVMgold.so.
    Plugin(PluginHost),
}

/// A linker that loads rld's plugin (`librld_plugin.so`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PluginHost {
    Bfd,
    Gold,
    Mold,
}

impl PluginHost {
    pub const ALL: [PluginHost; 3] = [PluginHost::Bfd, PluginHost::Gold, PluginHost::Mold];

    /// The name `scripts/rld-plugin-ld` is installed under to run this host.
    pub fn wrapper_name(self) -> &'static str {
        match self {
            PluginHost::Bfd => "rld-plugin-ld.bfd",
            PluginHost::Gold => "rld-plugin-ld.gold",
            PluginHost::Mold => "rld-plugin-mold",
        }
    }

    /// The wrapper that runs this host with rld's plugin, for `clang --ld-path=`.
    pub fn wrapper(self) -> PathBuf {
        let dir = plugin_wrapper_dir();
        dir.join(self.wrapper_name())
    }
}

/// rld's plugin under test: `$RLD_PLUGIN`, else `librld_plugin.so` beside rld.
pub fn rld_plugin_path() -> PathBuf {
    let path = match std::env::var_os("RLD_PLUGIN").filter(|v| !v.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => rld_path().with_file_name("librld_plugin.so"),
    };
    assert!(
        path.is_file(),
        "rld's plugin not found at {}: run `cargo build --release -p rld-plugin` or set RLD_PLUGIN",
        path.display()
    );
    path
}

/// A directory of `scripts/rld-plugin-ld` under each host's wrapper name.
fn plugin_wrapper_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let script = workspace_dir().join("scripts/rld-plugin-ld");
        let dir = std::env::temp_dir().join("rld-tests").join(format!(
            "plugin-ld-{:016x}",
            fnv1a(script.as_os_str().as_encoded_bytes())
        ));
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        for host in PluginHost::ALL {
            // Replace atomically: other test processes may be using it right now.
            let tmp = dir.join(format!("{}.tmp{}", host.wrapper_name(), std::process::id()));
            let _ = std::fs::remove_file(&tmp);
            std::os::unix::fs::symlink(&script, &tmp)
                .unwrap_or_else(|e| panic!("cannot create symlink {}: {e}", tmp.display()));
            std::fs::rename(&tmp, dir.join(host.wrapper_name()))
                .unwrap_or_else(|e| panic!("cannot rename {}: {e}", tmp.display()));
        }
        dir
    })
    .clone()
}

impl Driver {
    /// The two compiler drivers that run rld; feature tests link through both.
    pub const RLD_DRIVERS: [Driver; 2] = [Driver::ClangRld, Driver::GccRld];

    /// Whether this driver links with rld (as opposed to the lld reference).
    pub fn is_rld(self) -> bool {
        !matches!(self, Driver::ClangLld | Driver::GccLd | Driver::Plugin(_))
    }

    /// A short name, usable as a file or directory name.
    pub fn name(self) -> &'static str {
        match self {
            Driver::ClangRld => "clang-rld",
            Driver::GccRld => "gcc-rld",
            Driver::ClangLld => "clang-lld",
            Driver::GccLd => "gcc-ld",
            Driver::Rld => "rld",
            Driver::Plugin(PluginHost::Bfd) => "plugin-bfd",
            Driver::Plugin(PluginHost::Gold) => "plugin-gold",
            Driver::Plugin(PluginHost::Mold) => "plugin-mold",
        }
    }
}

// ---------------------------------------------------------------------------
// Locations

/// The workspace root (the parent of the `tests` crate).
pub fn workspace_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests crate has a parent directory")
        .to_path_buf()
}

/// `tests/cases/`, where the C sources of the feature tests live.
pub fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cases")
}

/// The linker under test: `$RLD`, else `$CARGO_TARGET_DIR/release/rld`, else
/// `<workspace>/target/release/rld`. Always absolute. Panics if it does not exist.
pub fn rld_path() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let path = match std::env::var_os("RLD").filter(|v| !v.is_empty()) {
            Some(p) => PathBuf::from(p),
            None => match std::env::var_os("CARGO_TARGET_DIR").filter(|v| !v.is_empty()) {
                Some(dir) => PathBuf::from(dir).join("release/rld"),
                None => workspace_dir().join("target/release/rld"),
            },
        };
        let path = if path.is_relative() {
            std::env::current_dir().unwrap().join(path)
        } else {
            path
        };
        assert!(
            path.is_file(),
            "linker under test not found at {}: run `cargo build --release -p rld` or set RLD=/path/to/rld",
            path.display()
        );
        if std::env::var_os("RLD").is_none() {
            assert_fresh(&path, &RLD_CRATES);
            // rld's LTO library, which rld loads beside itself when a link has bitcode.
            let library = path.with_file_name("librld_plugin.so");
            if library.is_file() {
                assert_fresh(&library, &LTO_LIBRARY_CRATES);
            }
        }
        path
    })
    .clone()
}

/// The crates the `rld` binary is built from.
const RLD_CRATES: [&str; 5] = ["linker", "lto-api", "summaries", "remarks", "plugin-api"];

/// The crates of rld's LTO library (`librld_plugin.so`: the gold plugin, and the LLVM side
/// of rld's own LTO).
const LTO_LIBRARY_CRATES: [&str; 7] = [
    "plugin",
    "driver",
    "lto",
    "lto-api",
    "summaries",
    "remarks",
    "plugin-api",
];

/// Fails when a source file of rld is newer than the binary under test: the tests must test
/// the rld that was just built, not an older one left in the target directory.
fn assert_fresh(binary: &Path, crates: &[&str]) {
    fn newest(dir: &Path) -> Option<(std::time::SystemTime, PathBuf)> {
        let mut best: Option<(std::time::SystemTime, PathBuf)> = None;
        for e in std::fs::read_dir(dir).ok()?.flatten() {
            let p = e.path();
            let found = if p.is_dir() {
                newest(&p)
            } else {
                e.metadata().ok()?.modified().ok().map(|t| (t, p))
            };
            if let Some(f) = found {
                if best.as_ref().is_none_or(|b| f.0 > b.0) {
                    best = Some(f);
                }
            }
        }
        best
    }
    let built = std::fs::metadata(binary)
        .and_then(|m| m.modified())
        .unwrap();
    let root = workspace_dir();
    for krate in crates {
        for part in ["src", "Cargo.toml", "build.rs", "llvm-wrapper"] {
            let p = root.join(krate).join(part);
            let newest = if p.is_dir() {
                newest(&p)
            } else {
                std::fs::metadata(&p)
                    .and_then(|m| m.modified())
                    .ok()
                    .map(|t| (t, p.clone()))
            };
            if let Some((t, file)) = newest {
                assert!(
                    t <= built,
                    "{} is older than {}: run `cargo build --release -p rld -p rld-plugin` (or set RLD=...)",
                    binary.display(),
                    file.display()
                );
            }
        }
    }
}

/// Whether `RLD_IS_STANDIN=1`: the linker under test is a stand-in (lld behind
/// a script), so rld-specific assertions are skipped.
pub fn is_standin() -> bool {
    std::env::var("RLD_IS_STANDIN").is_ok_and(|v| v == "1")
}

/// A directory holding only `ld`, a symlink to rld, for `gcc -B<dir>`.
/// Created once per test process (and reused across runs for the same rld).
pub fn gcc_b_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let rld = rld_path();
        let dir = std::env::temp_dir().join("rld-tests").join(format!(
            "gcc-B-{:016x}",
            fnv1a(rld.as_os_str().as_encoded_bytes())
        ));
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        // Replace atomically: other test processes may be using it right now.
        let tmp = dir.join(format!("ld.tmp{}", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&rld, &tmp)
            .unwrap_or_else(|e| panic!("cannot create symlink {}: {e}", tmp.display()));
        std::fs::rename(&tmp, dir.join("ld"))
            .unwrap_or_else(|e| panic!("cannot rename {} to ld: {e}", tmp.display()));
        dir
    })
    .clone()
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

// ---------------------------------------------------------------------------
// Running commands

/// A printable rendering of a command line, for failure messages.
pub fn command_line(cmd: &Command) -> String {
    let mut s = String::new();
    for (k, v) in cmd.get_envs() {
        let _ = write!(
            s,
            "{}={} ",
            k.to_string_lossy(),
            v.map(OsStr::to_string_lossy).unwrap_or_default()
        );
    }
    s.push_str(&shell_quote(cmd.get_program()));
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&shell_quote(a));
    }
    s
}

fn shell_quote(s: &OsStr) -> String {
    let s = s.to_string_lossy();
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=,:+@%".contains(c))
    {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// How a process ended, for messages: "exit status 0", "signal 11".
pub fn describe_status(out: &Output) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (out.status.code(), out.status.signal()) {
        (Some(c), _) => format!("exit status {c}"),
        (None, Some(s)) => format!("killed by signal {s}"),
        _ => format!("{:?}", out.status),
    }
}

fn failure_report(what: &str, cmd_line: &str, out: &Output) -> String {
    format!(
        "{what}\n  command: {cmd_line}\n  {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        describe_status(out),
        truncate(&String::from_utf8_lossy(&out.stdout), 4000),
        truncate(&String::from_utf8_lossy(&out.stderr), 8000),
    )
}

fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        s.to_string()
    } else {
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}\n... ({} more bytes)", &s[..end], s.len() - end)
    }
}

/// Default time limit for any command the harness runs.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `cmd` to completion (killing it after `timeout`), capturing its output.
/// Panics only if it cannot be started or times out.
pub fn output_with_timeout(cmd: &mut Command, timeout: Duration) -> Output {
    let line = command_line(cmd);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // A program the test just wrote may still be open for writing in a process another
    // test thread forked meanwhile (until that child execs): "text file busy" then
    // passes in a moment.
    let mut attempts = 0;
    let mut child = loop {
        match cmd.spawn() {
            Ok(child) => break child,
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && attempts < 50 => {
                attempts += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => panic!("cannot start command: {line}\n  error: {e}"),
        }
    };
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = so.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = se.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().expect("try_wait") {
            break st;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!("command timed out after {timeout:?}: {line}");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    Output {
        status,
        stdout: t_out.join().unwrap(),
        stderr: t_err.join().unwrap(),
    }
}

/// Runs `cmd` and panics, naming the command and showing its stderr, unless it
/// exits with status 0.
pub fn run_checked(cmd: &mut Command) -> Output {
    let out = output_with_timeout(cmd, TIMEOUT);
    if !out.status.success() {
        panic!(
            "{}",
            failure_report("command failed", &command_line(cmd), &out)
        );
    }
    out
}

/// Runs a program (with its own directory as working directory and `env`
/// added to the environment) and returns what it did. Never panics on a
/// non-zero exit: compare the result with [`assert_same_output`].
pub fn run(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(exe);
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    if let Some(dir) = exe.parent() {
        cmd.current_dir(dir);
    }
    output_with_timeout(&mut cmd, Duration::from_secs(20))
}

/// Runs the rld-linked `rld_exe` and the lld-linked `lld_exe` with the same
/// arguments and environment and asserts their stdout, stderr and exit status
/// are equal; if `expected` is given, the stdout must be exactly that and the
/// exit status 0.
pub fn assert_same_output(
    rld_exe: &Path,
    lld_exe: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    expected: Option<&str>,
) {
    let want = run(lld_exe, args, env);
    if let Some(exp) = expected {
        // Checks the test itself: the reference must behave as the test says.
        assert_output_is(lld_exe, &want, exp, "the lld-linked reference");
    }
    let got = run(rld_exe, args, env);
    if got.stdout != want.stdout || got.stderr != want.stderr || got.status != want.status {
        panic!(
            "rld-linked program behaves differently from the lld-linked one\n  rld: {} ({})\n  lld: {} ({})\n--- rld stdout ---\n{}\n--- lld stdout ---\n{}\n--- rld stderr ---\n{}\n--- lld stderr ---\n{}",
            rld_exe.display(),
            describe_status(&got),
            lld_exe.display(),
            describe_status(&want),
            truncate(&String::from_utf8_lossy(&got.stdout), 4000),
            truncate(&String::from_utf8_lossy(&want.stdout), 4000),
            truncate(&String::from_utf8_lossy(&got.stderr), 4000),
            truncate(&String::from_utf8_lossy(&want.stderr), 4000),
        );
    }
    if let Some(exp) = expected {
        assert_output_is(rld_exe, &got, exp, "the rld-linked program");
    }
}

/// Asserts `out` (from running `exe`) exited 0 with exactly `expected` on stdout.
pub fn assert_output_is(exe: &Path, out: &Output, expected: &str, what: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || stdout != expected {
        panic!(
            "{}\n--- expected stdout ---\n{expected}",
            failure_report(
                &format!("{what} did not print the expected output"),
                &exe.display().to_string(),
                out
            )
        );
    }
}

// ---------------------------------------------------------------------------
// The per-test directory and building

/// One test: a private temporary directory
/// (`$TMPDIR/rld-tests/<test-name>-<pid>`) that is removed when the test
/// passes and kept (its path printed) when it fails.
pub struct Test {
    name: String,
    dir: PathBuf,
    counter: Cell<u32>,
}

impl Test {
    /// Creates the test directory, named after the running test (libtest
    /// names each test's thread after the test).
    #[allow(clippy::new_without_default)]
    pub fn new() -> Test {
        let thread = std::thread::current();
        let raw = match thread.name() {
            Some(n) if n != "main" => n.to_string(),
            _ => "test".to_string(),
        };
        Test::named(&raw)
    }

    /// Like [`Test::new`] with an explicit name.
    pub fn named(name: &str) -> Test {
        let name: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let root = std::env::temp_dir().join("rld-tests");
        remove_stale_dirs(&root, &name);
        let dir = root.join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create test dir {}: {e}", dir.display()));
        Test {
            name,
            dir,
            counter: Cell::new(0),
        }
    }

    /// The test's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The test's temporary directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `rel` inside the test directory.
    /// Names of the files in the test directory starting with `prefix` (a failed link must
    /// leave no `out*` file, temporary or final).
    pub fn files_starting_with(&self, prefix: &str) -> Vec<String> {
        std::fs::read_dir(&self.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(prefix))
            .collect()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }

    /// Assembles `source` (x86-64 assembly, clang-22's integrated assembler) into
    /// `<stem>.o`, written beside it as `<stem>.s`.
    pub fn assemble(&self, stem: &str, source: &str) -> PathBuf {
        let src = self.write(&format!("{stem}.s"), source);
        let obj = self.path(&format!("{stem}.o"));
        run_checked(
            Command::new("clang-22")
                .arg("-c")
                .arg(&src)
                .arg("-o")
                .arg(&obj),
        );
        obj
    }

    /// Writes a file in the test directory (creating parent directories).
    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, contents)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", p.display()));
        p
    }

    fn unique(&self, stem: &str, ext: &str) -> PathBuf {
        let n = self.counter.get();
        self.counter.set(n + 1);
        self.dir.join(format!("{stem}.{n}.{ext}"))
    }

    /// Compiles one C file to an object in the test directory and returns its
    /// path. `src` is either a path (relative paths are under `tests/cases/`)
    /// ending in `.c`, or inline C source (anything containing a newline).
    pub fn compile(&self, cc: Compiler, src: &str, flags: &[&str]) -> PathBuf {
        self.compile_lang(cc, Lang::C, src, flags)
    }

    /// Like [`Test::compile`] for C++: compiles with `clang++-22` or `g++`;
    /// inline source is written to a `.cpp` file.
    pub fn compile_cxx(&self, cc: Compiler, src: &str, flags: &[&str]) -> PathBuf {
        self.compile_lang(cc, Lang::Cxx, src, flags)
    }

    fn compile_lang(&self, cc: Compiler, lang: Lang, src: &str, flags: &[&str]) -> PathBuf {
        let (src_path, stem) = if src.contains('\n') {
            let p = self.unique("inline", lang.ext());
            std::fs::write(&p, src).unwrap();
            (p, "inline".to_string())
        } else {
            let p = Path::new(src);
            let p = if p.is_absolute() {
                p.to_path_buf()
            } else {
                cases_dir().join(p)
            };
            assert!(p.is_file(), "no such source file: {}", p.display());
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            (p, stem)
        };
        let obj = self.unique(&stem, "o");
        let mut cmd = Command::new(lang.compiler(cc));
        cmd.arg("-c")
            .arg(&src_path)
            .arg("-o")
            .arg(&obj)
            .args(flags)
            .current_dir(&self.dir);
        run_checked(&mut cmd);
        obj
    }

    /// Builds a static archive `name` with `ar rcs` from `members`, in order.
    pub fn archive(&self, name: &str, members: &[&Path]) -> PathBuf {
        let out = self.path(name);
        let _ = std::fs::remove_file(&out);
        run_checked(
            Command::new("ar")
                .arg("rcs")
                .arg(&out)
                .args(members)
                .current_dir(&self.dir),
        );
        out
    }

    /// The command [`Test::link`] runs: `objs` then `flags` then `-o out`.
    pub fn link_command(
        &self,
        driver: Driver,
        objs: &[&Path],
        flags: &[&str],
        out: &Path,
    ) -> Command {
        self.link_command_lang(driver, Lang::C, objs, flags, out)
    }

    fn link_command_lang(
        &self,
        driver: Driver,
        lang: Lang,
        objs: &[&Path],
        flags: &[&str],
        out: &Path,
    ) -> Command {
        let mut cmd = match driver {
            Driver::ClangRld => {
                let mut c = Command::new(lang.compiler(Compiler::Clang));
                c.arg(format!("--ld-path={}", rld_path().display()));
                c
            }
            Driver::GccRld => {
                let mut c = Command::new(lang.compiler(Compiler::Gcc));
                c.arg(format!("-B{}", gcc_b_dir().display()));
                c
            }
            Driver::ClangLld => {
                let mut c = Command::new(lang.compiler(Compiler::Clang));
                c.arg("-fuse-ld=lld");
                c
            }
            Driver::GccLd => Command::new(lang.compiler(Compiler::Gcc)),
            Driver::Rld => Command::new(rld_path()),
            Driver::Plugin(host) => {
                let mut c = Command::new(lang.compiler(Compiler::Clang));
                c.arg(format!("--ld-path={}", host.wrapper().display()));
                c.env("RLD_PLUGIN", rld_plugin_path());
                c
            }
        };
        cmd.args(objs).args(flags).arg("-o").arg(out);
        cmd.current_dir(&self.dir);
        cmd
    }

    /// Links `objs` (then `flags`) into `out` (relative to the test directory;
    /// parent directories are created) and returns its path. Panics, naming
    /// the command and showing its stderr, if the link fails or prints a
    /// warning. Outputs of rld are checked with [`assert_readelf_clean`] and
    /// [`assert_objdump_clean`].
    pub fn link(&self, driver: Driver, objs: &[&Path], flags: &[&str], out: &str) -> PathBuf {
        self.link_lang(driver, Lang::C, objs, flags, out, true)
    }

    /// Like [`Test::link`] through the C++ drivers (`clang++-22`, `g++`), so
    /// that libstdc++ is linked. With `objdump: false` rld's output is only
    /// checked with `readelf -a` (for very large outputs).
    pub fn link_cxx(
        &self,
        driver: Driver,
        objs: &[&Path],
        flags: &[&str],
        out: &str,
        objdump: bool,
    ) -> PathBuf {
        self.link_lang(driver, Lang::Cxx, objs, flags, out, objdump)
    }

    fn link_lang(
        &self,
        driver: Driver,
        lang: Lang,
        objs: &[&Path],
        flags: &[&str],
        out: &str,
        objdump: bool,
    ) -> PathBuf {
        let out = self.path(out);
        if let Some(parent) = out.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        let mut cmd = self.link_command_lang(driver, lang, objs, flags, &out);
        let res = run_checked(&mut cmd);
        let stderr = String::from_utf8_lossy(&res.stderr);
        if stderr.to_lowercase().contains("warning") {
            panic!(
                "{}",
                failure_report("link printed a warning", &command_line(&cmd), &res)
            );
        }
        assert!(
            out.is_file(),
            "link succeeded but wrote no output file {}\n  command: {}",
            out.display(),
            command_line(&cmd)
        );
        if driver.is_rld() {
            assert_readelf_clean(&out);
            if objdump {
                assert_objdump_clean(&out);
            }
        }
        out
    }

    /// [`Test::try_link`] through the C++ drivers (`clang++-22`, `g++`).
    pub fn try_link_cxx(
        &self,
        driver: Driver,
        objs: &[&Path],
        flags: &[&str],
        out: &str,
    ) -> (Output, String) {
        self.try_link_lang(driver, Lang::Cxx, objs, flags, out)
    }

    /// Runs the link command like [`Test::link`] but returns its result
    /// instead of checking it (for tests that expect a link to fail).
    pub fn try_link(
        &self,
        driver: Driver,
        objs: &[&Path],
        flags: &[&str],
        out: &str,
    ) -> (Output, String) {
        self.try_link_lang(driver, Lang::C, objs, flags, out)
    }

    fn try_link_lang(
        &self,
        driver: Driver,
        lang: Lang,
        objs: &[&Path],
        flags: &[&str],
        out: &str,
    ) -> (Output, String) {
        let out = self.path(out);
        let mut cmd = self.link_command_lang(driver, lang, objs, flags, &out);
        let res = output_with_timeout(&mut cmd, TIMEOUT);
        (res, command_line(&cmd))
    }

    /// The feature-test workhorse: links `objs` with `flags` through
    /// `clang-22 --ld-path=<rld>` (`clang-rld.out`), `gcc -B<dir>`
    /// (`gcc-rld.out`) and the lld reference (`clang-lld.out`), runs all three
    /// with no arguments, and asserts the rld-linked programs behave exactly
    /// like the lld-linked one (and print `expected`, if given). Returns the
    /// rld outputs, for further assertions on their contents.
    pub fn check_program(
        &self,
        objs: &[&Path],
        flags: &[&str],
        expected: Option<&str>,
    ) -> Vec<PathBuf> {
        self.check_program_lang(Lang::C, objs, flags, expected)
    }

    /// [`Test::check_program`] through the C++ drivers (`clang++-22
    /// --ld-path=<rld>`, `g++ -B<dir>`, `clang++-22 -fuse-ld=lld`).
    pub fn check_cxx_program(
        &self,
        objs: &[&Path],
        flags: &[&str],
        expected: Option<&str>,
    ) -> Vec<PathBuf> {
        self.check_program_lang(Lang::Cxx, objs, flags, expected)
    }

    /// [`Test::check_cxx_program`] for `g++ -flto` objects (GCC's IR): only gcc's LTO
    /// plugin compiles them, so the reference is GNU ld (`gcc-ld.out`) and rld is run
    /// through `g++ -B<dir>` (`gcc-rld.out`), the driver that passes the plugin.
    pub fn check_gcc_lto_cxx_program(
        &self,
        objs: &[&Path],
        flags: &[&str],
        expected: Option<&str>,
    ) -> Vec<PathBuf> {
        self.check_against(
            Lang::Cxx,
            Driver::GccLd,
            &[Driver::GccRld],
            objs,
            flags,
            expected,
        )
    }

    /// [`Test::check_cxx_program`] with a host linker running rld's plugin, compared with
    /// lld-22's link (`clang-lld.out`).
    pub fn check_plugin_program(
        &self,
        lang_cxx: bool,
        host: PluginHost,
        objs: &[&Path],
        flags: &[&str],
        expected: Option<&str>,
    ) -> PathBuf {
        let lang = if lang_cxx { Lang::Cxx } else { Lang::C };
        let drivers = [Driver::Plugin(host)];
        self.check_against(lang, Driver::ClangLld, &drivers, objs, flags, expected)
            .remove(0)
    }

    fn check_program_lang(
        &self,
        lang: Lang,
        objs: &[&Path],
        flags: &[&str],
        expected: Option<&str>,
    ) -> Vec<PathBuf> {
        let drivers = Driver::RLD_DRIVERS;
        self.check_against(lang, Driver::ClangLld, &drivers, objs, flags, expected)
    }

    fn check_against(
        &self,
        lang: Lang,
        reference: Driver,
        drivers: &[Driver],
        objs: &[&Path],
        flags: &[&str],
        expected: Option<&str>,
    ) -> Vec<PathBuf> {
        let out = format!("{}.out", reference.name());
        let reference = self.link_lang(reference, lang, objs, flags, &out, true);
        drivers
            .iter()
            .map(|&d| {
                let exe = self.link_lang(d, lang, objs, flags, &format!("{}.out", d.name()), true);
                assert_same_output(&exe, &reference, &[], &[], expected);
                exe
            })
            .collect()
    }
}

/// Removes `root/<name>-<pid>` directories kept by earlier failed runs whose
/// process is gone, so only the latest failure of a test stays on disk.
fn remove_stale_dirs(root: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for e in entries.flatten() {
        let file_name = e.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(name)) else {
            continue;
        };
        let Some(pid) = rest.strip_prefix('-').and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

impl Drop for Test {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("test files kept in {}", self.dir.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

// ---------------------------------------------------------------------------
// Inspecting outputs

fn tool(program: &str, args: &[&str], path: &Path) -> Output {
    run_checked(Command::new(program).args(args).arg(path))
}

/// What `program ARGS... path` prints (it must succeed).
pub fn tool_stdout(program: &str, args: &[&str], path: &Path) -> String {
    String::from_utf8_lossy(&tool(program, args, path).stdout).into_owned()
}

fn assert_tool_clean(program: &str, args: &[&str], path: &Path) {
    let mut cmd = Command::new(program);
    cmd.args(args).arg(path);
    let out = output_with_timeout(&mut cmd, TIMEOUT);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let bad: Vec<&str> = stderr
        .lines()
        .filter(|l| {
            let l = l.to_lowercase();
            l.contains("warning") || l.contains("error")
        })
        .collect();
    if !out.status.success() || !bad.is_empty() {
        let mut o = out.clone();
        o.stdout.truncate(2000);
        panic!(
            "{}",
            failure_report(
                &format!("{program} does not accept {}", path.display()),
                &command_line(&cmd),
                &o
            )
        );
    }
}

/// `readelf -a -W path` exits 0 and prints no warning or error.
pub fn assert_readelf_clean(path: &Path) {
    assert_tool_clean("readelf", &["-a", "-W"], path);
}

/// `objdump -d path` exits 0 and prints no warning or error.
pub fn assert_objdump_clean(path: &Path) {
    assert_tool_clean("objdump", &["-d"], path);
}

/// One row of `readelf -sW`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// The table it came from: ".dynsym" or ".symtab".
    pub table: String,
    /// Name without any `@VERSION` suffix.
    pub name: String,
    /// The version suffix (`GLIBC_2.2.5`), if readelf showed one.
    pub version: Option<String>,
    pub value: u64,
    pub size: u64,
    /// FUNC, OBJECT, TLS, NOTYPE, SECTION, FILE, ...
    pub typ: String,
    /// LOCAL, GLOBAL, WEAK, ...
    pub bind: String,
    /// DEFAULT, HIDDEN, PROTECTED, INTERNAL
    pub vis: String,
    /// Section index as readelf prints it: UND, ABS, COM or a number.
    pub ndx: String,
}

impl Symbol {
    /// Defined (not UND).
    pub fn is_defined(&self) -> bool {
        self.ndx != "UND"
    }
}

/// The names `.dynsym` defines (what the output exports), sorted.
pub fn exported_names(path: &Path) -> Vec<String> {
    let mut names: Vec<String> = symbols(path)
        .into_iter()
        .filter(|s| s.table == ".dynsym" && s.is_defined())
        .map(|s| s.name)
        .collect();
    names.sort();
    names
}

/// The exported names of a shared library with their versions (`name@@V`), sorted.
pub fn exports(path: &Path) -> Vec<String> {
    let mut v: Vec<String> = symbols(path)
        .into_iter()
        .filter(|s| s.table == ".dynsym" && s.ndx != "UND" && !s.name.is_empty())
        .map(|s| format!("{}@{}", s.name, s.version.unwrap_or_default()))
        .collect();
    v.sort();
    v
}

/// The symbols of both `.dynsym` and `.symtab`, from `readelf -sW`.
pub fn symbols(path: &Path) -> Vec<Symbol> {
    let text = tool_stdout("readelf", &["-sW"], path);
    let mut table = String::new();
    let mut syms = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Symbol table '") {
            table = rest.split('\'').next().unwrap_or("").to_string();
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 7 || !f[0].ends_with(':') || f[0][..f[0].len() - 1].parse::<u32>().is_err() {
            continue;
        }
        // "Num: Value Size Type Bind Vis Ndx Name [(version index)]"; Vis may
        // be followed by "[<other>: N]" for unusual st_other values.
        let mut i = 6;
        while i < f.len() && f[i].starts_with('[') {
            i += 1;
            while i < f.len() && !f[i - 1].ends_with(']') {
                i += 1;
            }
        }
        let ndx = f.get(i).copied().unwrap_or("").to_string();
        let full = f.get(i + 1).copied().unwrap_or("");
        let (name, version) = match full.find('@') {
            Some(at) => (
                full[..at].to_string(),
                Some(full[at..].trim_start_matches('@').to_string()),
            ),
            None => (full.to_string(), None),
        };
        syms.push(Symbol {
            table: table.clone(),
            name,
            version,
            value: u64::from_str_radix(f[1], 16).unwrap_or(0),
            size: parse_num(f[2]),
            typ: f[3].to_string(),
            bind: f[4].to_string(),
            vis: f[5].to_string(),
            ndx,
        });
    }
    syms
}

/// The symbols named `name` in `table` (".dynsym" or ".symtab").
pub fn find_symbols(syms: &[Symbol], table: &str, name: &str) -> Vec<Symbol> {
    syms.iter()
        .filter(|s| s.table == table && s.name == name)
        .cloned()
        .collect()
}

fn parse_num(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap_or(0),
        None => s.parse().unwrap_or(0),
    }
}

fn parse_hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap_or(0)
}

/// One program header from `readelf -lW`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// LOAD, DYNAMIC, INTERP, TLS, GNU_RELRO, GNU_STACK, NOTE, PHDR, ...
    pub typ: String,
    pub offset: u64,
    pub vaddr: u64,
    pub filesz: u64,
    pub memsz: u64,
    /// "R", "R E", "RW", "RWE", ...
    pub flags: String,
    pub align: u64,
}

/// The program headers, from `readelf -lW`.
pub fn segments(path: &Path) -> Vec<Segment> {
    let text = tool_stdout("readelf", &["-lW"], path);
    let mut segs = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("Type") && t.contains("Offset") {
            in_table = true;
            continue;
        }
        if !in_table || t.starts_with('[') {
            continue;
        }
        if t.is_empty() {
            if !segs.is_empty() {
                break;
            }
            continue;
        }
        let f: Vec<&str> = t.split_whitespace().collect();
        if f.len() < 8 || !f[1].starts_with("0x") {
            continue;
        }
        segs.push(Segment {
            typ: f[0].to_string(),
            offset: parse_hex(f[1]),
            vaddr: parse_hex(f[2]),
            filesz: parse_hex(f[4]),
            memsz: parse_hex(f[5]),
            flags: f[6..f.len() - 1].join(" "),
            align: parse_hex(f[f.len() - 1]),
        });
    }
    segs
}

/// Whether `segs` has a segment of type `typ`.
pub fn has_segment(segs: &[Segment], typ: &str) -> bool {
    segs.iter().any(|s| s.typ == typ)
}

/// One section header from `readelf -SW`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub index: usize,
    pub name: String,
    /// PROGBITS, NOBITS, NOTE, RELA, DYNSYM, GNU_HASH, HASH, INIT_ARRAY, ...
    pub typ: String,
    pub addr: u64,
    pub offset: u64,
    pub size: u64,
    pub entsize: u64,
    /// readelf's flag letters, e.g. "AX", "WA", "AMS", "WAT".
    pub flags: String,
    pub link: u64,
    pub info: u64,
    pub align: u64,
}

/// The section headers, from `readelf -SW`.
pub fn sections(path: &Path) -> Vec<Section> {
    let text = tool_stdout("readelf", &["-SW"], path);
    let mut secs = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('[') else {
            continue;
        };
        let Some(close) = rest.find(']') else {
            continue;
        };
        let Ok(index) = rest[..close].trim().parse::<usize>() else {
            continue;
        };
        let mut f: Vec<&str> = rest[close + 1..].split_whitespace().collect();
        // The null section has no name; otherwise the name comes first.
        let looks_like_addr = |s: &str| s.len() >= 8 && s.chars().all(|c| c.is_ascii_hexdigit());
        if f.len() >= 2 && looks_like_addr(f[1]) {
            f.insert(0, "");
        }
        if f.len() < 9 {
            continue;
        }
        // name type addr off size es [flags] lk inf al
        let flags = if f.len() >= 10 { f[6] } else { "" };
        let n = f.len();
        secs.push(Section {
            index,
            name: f[0].to_string(),
            typ: f[1].to_string(),
            addr: parse_hex(f[2]),
            offset: parse_hex(f[3]),
            size: parse_hex(f[4]),
            entsize: parse_hex(f[5]),
            flags: flags.to_string(),
            link: f[n - 3].parse().unwrap_or(0),
            info: f[n - 2].parse().unwrap_or(0),
            align: f[n - 1].parse().unwrap_or(0),
        });
    }
    secs
}

/// The section named `name`, if any.
pub fn find_section(secs: &[Section], name: &str) -> Option<Section> {
    secs.iter().find(|s| s.name == name).cloned()
}

/// One entry of the dynamic section, from `readelf -dW`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynEntry {
    /// The tag without DT_: NEEDED, SONAME, FLAGS, FLAGS_1, BIND_NOW, GNU_HASH, ...
    pub tag: String,
    /// Everything readelf prints after the tag, e.g. "Shared library: [libc.so.6]",
    /// "BIND_NOW", "Flags: NOW PIE", "0x1234".
    pub value: String,
}

/// The dynamic section entries, from `readelf -dW` (empty if none).
pub fn dynamic(path: &Path) -> Vec<DynEntry> {
    let text = tool_stdout("readelf", &["-dW"], path);
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if !t.starts_with("0x") {
            continue;
        }
        let Some(open) = t.find('(') else { continue };
        let Some(close) = t[open..].find(')') else {
            continue;
        };
        out.push(DynEntry {
            tag: t[open + 1..open + close].to_string(),
            value: t[open + close + 1..].trim().to_string(),
        });
    }
    out
}

/// The values of all dynamic entries with tag `tag`.
pub fn dyn_values(entries: &[DynEntry], tag: &str) -> Vec<String> {
    entries
        .iter()
        .filter(|e| e.tag == tag)
        .map(|e| e.value.clone())
        .collect()
}

/// The ELF file type from `readelf -hW`: "EXEC", "DYN", "REL", ...
pub fn elf_type(path: &Path) -> String {
    let text = tool_stdout("readelf", &["-hW"], path);
    text.lines()
        .find_map(|l| l.trim().strip_prefix("Type:"))
        .and_then(|v| v.split_whitespace().next())
        .unwrap_or("")
        .to_string()
}

/// The GNU build ID as lowercase hex, from `readelf -n`.
pub fn build_id(path: &Path) -> Option<String> {
    let text = tool_stdout("readelf", &["-nW"], path);
    text.lines()
        .find_map(|l| l.split_once("Build ID:"))
        .map(|(_, id)| id.trim().to_lowercase())
}

/// The relocation type names in all relocation sections, from `readelf -rW`
/// (e.g. "R_X86_64_RELATIVE"), one per relocation.
pub fn relocation_types(path: &Path) -> Vec<String> {
    let text = tool_stdout("readelf", &["-rW"], path);
    text.lines()
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("R_X86_64_")))
        .map(str::to_string)
        .collect()
}

/// One line of `nm` output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NmSymbol {
    pub name: String,
    /// nm's type letter: T, t, D, d, B, b, R, r, U, W, w, V, C, ...
    pub kind: char,
}

/// The symbols `nm` lists (it reads .symtab, or .dynsym if stripped).
pub fn nm(path: &Path) -> Vec<NmSymbol> {
    let text = tool_stdout("nm", &[], path);
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            match f.as_slice() {
                [_, kind, name] | [kind, name] if kind.len() == 1 => Some(NmSymbol {
                    name: name.to_string(),
                    kind: kind.chars().next().unwrap(),
                }),
                _ => None,
            }
        })
        .collect()
}

/// Whether `nm` lists a symbol called `name`.
pub fn nm_has(path: &Path, name: &str) -> bool {
    nm(path).iter().any(|s| s.name == name)
}

/// The file bytes of section `name` (empty for NOBITS). Panics if absent.
pub fn section_data(path: &Path, name: &str) -> Vec<u8> {
    let secs = sections(path);
    let sec = find_section(&secs, name).unwrap_or_else(|| {
        panic!(
            "{} has no section {name}; it has {:?}",
            path.display(),
            section_names(&secs)
        )
    });
    if sec.typ == "NOBITS" {
        return Vec::new();
    }
    let bytes = std::fs::read(path).unwrap();
    let start = sec.offset as usize;
    let end = start + sec.size as usize;
    assert!(
        end <= bytes.len(),
        "section {name} of {} lies past the end of the file",
        path.display()
    );
    bytes[start..end].to_vec()
}

/// The names of `secs`, for messages.
pub fn section_names(secs: &[Section]) -> Vec<String> {
    secs.iter().map(|s| s.name.clone()).collect()
}

/// Borrows a list of paths, for [`Test::link`] and [`Test::check_program`].
/// The summary cache entries (`*.rldsum`) in `dir`, sorted (none if it does not exist).
pub fn summary_cache_entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "rldsum"));
    v.sort();
    v
}

/// Makes a summary cache lie: the entry among `before` that mentions `module` (its source
/// file's name) gets the contents of the one entry `after` added (a changed module's
/// summary), as a stale or damaged cache would.
pub fn plant_stale_summary(before: &[PathBuf], after: &[PathBuf], module: &str) {
    let added: Vec<&PathBuf> = after.iter().filter(|p| !before.contains(p)).collect();
    assert_eq!(added.len(), 1, "one new cache entry: {after:?}");
    let target = before
        .iter()
        .find(|p| {
            let bytes = std::fs::read(p).unwrap();
            bytes.windows(module.len()).any(|w| w == module.as_bytes())
        })
        .unwrap_or_else(|| panic!("no cache entry of {module}"));
    std::fs::copy(added[0], target).unwrap();
}

pub fn paths(v: &[PathBuf]) -> Vec<&Path> {
    v.iter().map(PathBuf::as_path).collect()
}

/// How many times `needle` occurs in `haystack` (overlaps counted).
pub fn count_occurrences(haystack: &[u8], needle: &[u8]) -> usize {
    if needle.is_empty() || haystack.len() < needle.len() {
        return 0;
    }
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

/// The compiler-driver flags of an LTO link (`-flto -O2`), writing its optimization remarks
/// to `remarks` if given (the two-argument spelling, which lld-22 accepts too), then `extra`.
pub fn lto_flags(remarks: Option<&Path>, extra: &[&str]) -> Vec<String> {
    let mut flags = vec!["-flto".to_string(), "-O2".to_string()];
    if let Some(file) = remarks {
        flags.push(format!("-Wl,--opt-remarks-filename,{}", file.display()));
    }
    flags.extend(extra.iter().map(|s| s.to_string()));
    flags
}

/// Links `objs` by rld with LTO and `flags` into `out` (its remarks into `<out>.yaml`) and
/// requires the program to behave like the reference `lld`'s, run with `args` (and to
/// print `expected`, if given). Returns the program and its remarks' path.
pub fn link_lto_like_lld(
    t: &Test,
    objs: &[&Path],
    lld: &Path,
    out: &str,
    flags: &[&str],
    args: &[&str],
    expected: Option<&str>,
) -> (PathBuf, PathBuf) {
    let yaml = t.path(&format!("{out}.yaml"));
    let exe = t.link(
        Driver::ClangRld,
        objs,
        &strs(&lto_flags(Some(&yaml), flags)),
        out,
    );
    assert_same_output(&exe, lld, args, &[], expected);
    (exe, yaml)
}

/// LLVM 22's textual IR of a bitcode file.
pub fn llvm_dis(bitcode: &Path) -> String {
    let out = run_checked(Command::new("llvm-dis-22").arg(bitcode).arg("-o").arg("-"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The lines of `function`'s definition in textual IR, from `define` to before its closing
/// brace (none if it is not defined there).
pub fn ir_function<'a>(ir: &'a str, function: &str) -> Vec<&'a str> {
    let head = format!("@{function}(");
    ir.lines()
        .skip_while(|l| !(l.starts_with("define ") && l.contains(&head)))
        .take_while(|l| *l != "}")
        .collect()
}

/// "N of M function bodies read" from an LTO link's `--time` report: the bodies LLVM read
/// of those in the modules the partitions loaded.
pub fn bodies_read(stderr: &str) -> (u64, u64) {
    let line = stderr
        .lines()
        .find(|l| l.contains("function bodies read"))
        .unwrap_or_else(|| panic!("no bodies in --time: {stderr}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let of = words.iter().rposition(|w| *w == "of").expect("N of M");
    (
        words[of - 1].parse().unwrap(),
        words[of + 1].parse().unwrap(),
    )
}

/// Borrows a list of strings, for [`Test::link`].
pub fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Offsets into an ELF64 little-endian object's bytes, for tests that damage one field.
pub mod elf_offsets {
    fn u16_at(elf: &[u8], o: usize) -> usize {
        u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize
    }
    fn u32_at(elf: &[u8], o: usize) -> usize {
        u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) as usize
    }
    fn u64_at(elf: &[u8], o: usize) -> usize {
        u64::from_le_bytes(elf[o..o + 8].try_into().unwrap()) as usize
    }

    /// The offsets of every section header.
    fn headers(elf: &[u8]) -> impl Iterator<Item = usize> + '_ {
        let (shoff, shentsize, shnum) = (u64_at(elf, 0x28), u16_at(elf, 0x3a), u16_at(elf, 0x3c));
        (0..shnum).map(move |i| shoff + i * shentsize)
    }

    fn header(elf: &[u8], index: usize) -> usize {
        headers(elf).nth(index).unwrap()
    }

    /// The NUL-terminated string at `at`.
    fn c_str(elf: &[u8], at: usize) -> &[u8] {
        elf[at..].split(|&b| b == 0).next().unwrap()
    }

    /// The offset of section `name`'s header.
    pub fn section_header(elf: &[u8], name: &str) -> usize {
        let names = u64_at(elf, header(elf, u16_at(elf, 0x3e)) + 24);
        headers(elf)
            .find(|&h| c_str(elf, names + u32_at(elf, h)) == name.as_bytes())
            .unwrap_or_else(|| panic!("no section {name}"))
    }

    /// Where section `name`'s bytes are in the file: (offset, size).
    pub fn section_bytes(elf: &[u8], name: &str) -> (usize, usize) {
        let h = section_header(elf, name);
        (u64_at(elf, h + 24), u64_at(elf, h + 32))
    }

    /// The offset of symbol `name`'s entry in `.symtab`.
    pub fn symbol_entry(elf: &[u8], name: &str) -> usize {
        let symtab = headers(elf).find(|&h| u32_at(elf, h + 4) == 2).unwrap();
        let strtab = u64_at(elf, header(elf, u32_at(elf, symtab + 40)) + 24);
        let (offset, size) = (u64_at(elf, symtab + 24), u64_at(elf, symtab + 32));
        (offset..offset + size)
            .step_by(24)
            .find(|&e| c_str(elf, strtab + u32_at(elf, e)) == name.as_bytes())
            .unwrap_or_else(|| panic!("no symbol {name}"))
    }
}
