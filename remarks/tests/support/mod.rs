//! What the tests that check rld's remarks against LLVM itself (bitstream.rs, llvm_tools.rs,
//! rust_names.rs, view.rs) share: LLVM's data files, running tools (a missing one fails the
//! test, naming its Debian package), programs compiled at test time against `llvm-config-14`
//! or `-22`, LLVM's remark parser (llvm-c/Remarks.h) as such a program, `dump_remarks.c`,
//! which prints what it reads from a YAML or bitstream file field by field, LLVM's bitstream
//! serializer as another, `write_remarks.cpp`, which writes given remarks, remark files
//! that rustc + opt-22 and clang write for small programs, and `rld remarks` run in-process.

// Each test file uses some of these.
#![allow(dead_code)]

use rld_remarks::{DebugLoc, Remark, RemarkArg, RemarkKind};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// LLVM's own remark files in tests/data.
pub const DATA_FILES: [&str; 3] = [
    "clang-O2-pgo.opt.yaml",
    "lld-lto.opt.ld.yaml",
    "lld-deadfunction.opt.ld.yaml",
];

pub fn data(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub fn loc(file: &str, line: u32, column: u32) -> Option<DebugLoc> {
    Some(DebugLoc {
        file: file.to_string(),
        line,
        column,
    })
}

pub fn arg(key: &str, value: &str, debug_loc: Option<DebugLoc>) -> RemarkArg {
    RemarkArg {
        key: key.to_string(),
        value: value.to_string(),
        debug_loc,
    }
}

/// An empty directory of this name under the test binaries' scratch directory.
pub fn work_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The Debian package that installs `tool`.
fn package_of(tool: &str) -> String {
    let version = tool.rsplit('-').next().filter(|v| v.parse::<u32>().is_ok());
    match (tool, version) {
        ("rustc", _) => "rustc (or a rustup toolchain)".into(),
        ("c++filt", _) => "binutils".into(),
        ("cc", _) => "gcc".into(),
        ("c++", _) => "g++".into(),
        (t, Some(v)) if t.starts_with("clang-") => format!("clang-{v}"),
        (t, Some(v)) if t.starts_with("llvm-config-") => format!("llvm-{v}-dev"),
        (_, Some(v)) => format!("llvm-{v}"),
        (t, None) => t.into(),
    }
}

/// Fails the test unless `tool` runs (`tool --version`), naming the Debian package to
/// install: a test that cannot check what it is about must not pass.
pub fn require(tool: &str) {
    let found = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "{tool} is not installed: this test needs Debian's {} package",
        package_of(tool)
    );
}

/// Output of a command that must succeed.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?} did not start: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("tool output is UTF-8")
}

fn llvm_config(llvm: u32, arg: &str) -> Vec<String> {
    run(Command::new(format!("llvm-config-{llvm}")).arg(arg))
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Compiles `source` against libLLVM-`llvm` (14 or 22) with `compiler` (`cc` or `c++`,
/// given `--cflags` or `--cxxflags`), once per test binary.
pub fn build_against_llvm(
    cell: &'static OnceLock<PathBuf>,
    llvm: u32,
    name: &str,
    compiler: &str,
    flags: &str,
    source: &str,
) -> PathBuf {
    cell.get_or_init(|| {
        require(&format!("llvm-config-{llvm}"));
        require(compiler);
        // Each test binary builds in its own directory.
        let dir = work_dir(&format!("{}-{name}-{llvm}", env!("CARGO_CRATE_NAME")));
        let ext = if compiler == "cc" { "c" } else { "cpp" };
        let src = dir.join(format!("{name}.{ext}"));
        std::fs::write(&src, source).unwrap();
        let exe = dir.join(name);
        let libdir = llvm_config(llvm, "--libdir").join("");
        run(Command::new(compiler)
            .args(llvm_config(llvm, flags))
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .args(llvm_config(llvm, "--ldflags"))
            .args(llvm_config(llvm, "--libs"))
            .arg(format!("-Wl,-rpath,{libdir}")));
        exe
    })
    .clone()
}

/// LLVM's remark parser as a program: `dump_remarks FILE [bitstream|yaml]`, the parser
/// chosen by the file's magic when not named. `llvm`: 14 or 22.
pub fn remark_dumper(llvm: u32) -> PathBuf {
    static CELLS: [OnceLock<PathBuf>; 2] = [OnceLock::new(), OnceLock::new()];
    let cell = match llvm {
        14 => &CELLS[0],
        22 => &CELLS[1],
        _ => panic!("no remark dumper for LLVM {llvm}"),
    };
    build_against_llvm(
        cell,
        llvm,
        "dump_remarks",
        "cc",
        "--cflags",
        include_str!("dump_remarks.c"),
    )
}

/// LLVM's bitstream serializer as a program: `write_remarks IN OUT`, see write_remarks.cpp.
/// `llvm`: 22 (a remarks file, container version 1) or 14 (a standalone container, version
/// 0).
pub fn remark_writer(llvm: u32) -> PathBuf {
    static CELLS: [OnceLock<PathBuf>; 2] = [OnceLock::new(), OnceLock::new()];
    let cell = match llvm {
        14 => &CELLS[0],
        22 => &CELLS[1],
        _ => panic!("no remark writer for LLVM {llvm}"),
    };
    build_against_llvm(
        cell,
        llvm,
        "write_remarks",
        "c++",
        "--cxxflags",
        include_str!("write_remarks.cpp"),
    )
}

/// The bytes LLVM's serializer (`writer`, from [`remark_writer`]) writes for `remarks`;
/// its input and output are kept next to it as `name.in` and `name`.
pub fn llvm_writes(writer: &Path, name: &str, remarks: &[Remark]) -> Vec<u8> {
    fn string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(format!(" {}:", s.len()).as_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    fn location(out: &mut Vec<u8>, l: &Option<DebugLoc>) {
        match l {
            None => out.extend_from_slice(b" -"),
            Some(l) => {
                out.extend_from_slice(b" +");
                string(out, &l.file);
                out.extend_from_slice(format!(" {} {}", l.line, l.column).as_bytes());
            }
        }
    }
    let mut input = Vec::new();
    for r in remarks {
        // `remarks::Type`: 0 is `Unknown`, then the kinds in LLVM's order.
        let kind = RemarkKind::ALL.iter().position(|&k| k == r.kind).unwrap() + 1;
        input.extend_from_slice(format!("R {kind}").as_bytes());
        string(&mut input, &r.name);
        string(&mut input, &r.pass);
        string(&mut input, &r.function);
        location(&mut input, &r.debug_loc);
        match r.hotness {
            None => input.extend_from_slice(b" -"),
            Some(h) => input.extend_from_slice(format!(" + {h}").as_bytes()),
        }
        input.extend_from_slice(format!(" {}\n", r.args.len()).as_bytes());
        for a in &r.args {
            string(&mut input, &a.key);
            string(&mut input, &a.value);
            location(&mut input, &a.debug_loc);
            input.push(b'\n');
        }
    }
    let path = writer.with_file_name(format!("{name}.in"));
    let out = writer.with_file_name(name);
    std::fs::write(&path, input).unwrap();
    run(Command::new(writer).arg(&path).arg(&out));
    std::fs::read(&out).unwrap()
}

/// What the dumper prints for a remark file with these contents, written next to it as `name`.
pub fn llvm_reads(dumper: &Path, name: &str, contents: impl AsRef<[u8]>) -> String {
    let path = dumper.with_file_name(name);
    std::fs::write(&path, contents).unwrap();
    run(Command::new(dumper).arg(&path))
}

/// What the dumper prints for these remarks when LLVM reads them as rld means them, each
/// string (but an argument's key, which YAML never quotes) as `view` says LLVM returns it.
pub fn expected_dump(remarks: &[Remark], view: fn(&str) -> String) -> String {
    let string = |out: &mut String, what: &str, s: &str| {
        let s = view(s);
        out.push_str(&format!("{what} {}:{s}\n", s.len()));
    };
    let location = |out: &mut String, l: &Option<DebugLoc>| match l {
        None => out.push_str("noloc\n"),
        Some(l) => {
            string(out, "file", &l.file);
            out.push_str(&format!("line {} column {}\n", l.line, l.column));
        }
    };
    let mut out = String::new();
    for r in remarks {
        // `LLVMRemarkType`: 0 is `Unknown`, then the kinds in LLVM's order.
        let kind = RemarkKind::ALL.iter().position(|&k| k == r.kind).unwrap() + 1;
        out.push_str(&format!("type {kind}\n"));
        string(&mut out, "pass", &r.pass);
        string(&mut out, "name", &r.name);
        string(&mut out, "function", &r.function);
        location(&mut out, &r.debug_loc);
        // The C API reports a missing hotness as 0.
        out.push_str(&format!("hotness {}\n", r.hotness.unwrap_or(0)));
        out.push_str(&format!("args {}\n", r.args.len()));
        for a in &r.args {
            out.push_str(&format!("key {}:{}\n", a.key.len(), a.key));
            string(&mut out, "value", &a.value);
            location(&mut out, &a.debug_loc);
        }
    }
    out
}

/// `rld remarks ARGS...`, run in-process: the exit status and what it printed on standard
/// output.
pub fn remarks_cli<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> (i32, String) {
    let mut out = Vec::new();
    let status = rld_remarks::cli::run_to(
        args.into_iter().map(|a| a.as_ref().to_os_string()),
        &mut out,
    );
    (
        status,
        String::from_utf8(out).expect("rld remarks prints UTF-8"),
    )
}

/// A small crate, `remarks_rs`, whose remarks name Rust functions: `compute` is inlined
/// into `run` (unless built with `--cfg keep_compute`), `opaque` never is, and the
/// overflow checks and ranges of an unoptimized build call into `core` (v0-mangled in
/// rustc's standard library, where this crate's own symbols are legacy-mangled).
/// `c_entry` keeps a C name.
pub const REMARKS_RS: &str = r#"#[inline(never)]
pub fn opaque(x: u64) -> u64 {
    x.rotate_left(7) ^ 0x9e37_79b9
}

#[cfg_attr(keep_compute, inline(never))]
fn compute(x: u64) -> u64 {
    let mut s = x;
    for i in 0..4 {
        s = s.wrapping_mul(31).wrapping_add(i);
    }
    s
}

pub fn run(x: u64) -> u64 {
    compute(x) + opaque(x)
}

#[no_mangle]
pub extern "C" fn c_entry(x: u64) -> u64 {
    run(x) ^ 1
}
"#;

/// The remarks LLVM 22's O2 pipeline writes for [`REMARKS_RS`] (with `cfgs`), in `format`
/// (`yaml` or `bitstream`): rustc emits the crate's bitcode unoptimized (its `opt-level=0`,
/// unlike clang's `-O0`, leaves the functions optimizable) with debug info, and `opt-22`
/// optimizes it. The file is `dir/NAME.opt.yaml` (or `.opt.bitstream`); the source,
/// `dir/remarks_rs.rs`, is what the remarks' `DebugLoc`s name.
pub fn rust_remarks(dir: &Path, name: &str, cfgs: &[&str], format: &str) -> PathBuf {
    require("rustc");
    require("opt-22");
    std::fs::write(dir.join("remarks_rs.rs"), REMARKS_RS).unwrap();
    let bitcode = format!("{name}.bc");
    let mut rustc = Command::new("rustc");
    rustc
        .current_dir(dir)
        .args([
            "--crate-type=lib",
            "--crate-name=remarks_rs",
            "--emit=llvm-bc",
        ])
        .args(["-C", "opt-level=0", "-g", "-A", "warnings", "-o", &bitcode]);
    for cfg in cfgs {
        rustc.args(["--cfg", cfg]);
    }
    run(rustc.arg("remarks_rs.rs"));
    let remarks = dir.join(format!("{name}.opt.{format}"));
    // rustc's LLVM must not be newer than opt-22 for this; rustc 1.95 has LLVM 22.
    run(Command::new("opt-22")
        .current_dir(dir)
        .args(["-passes=default<O2>", "-o", "/dev/null", &bitcode])
        .arg(format!("-pass-remarks-output={}", remarks.display()))
        .arg(format!("-pass-remarks-format={format}")));
    remarks
}

/// A C file whose remarks name C functions: `square` inlined into `sum_squares`, `opaque`
/// not inlined into `call_each`.
pub const KERNELS_C: &str = "static int square(int x) { return x * x; }\n\
    int sum_squares(const int *a, int n) {\n\
    \x20 int s = 0;\n\
    \x20 for (int i = 0; i < n; i++) s += square(a[i]);\n\
    \x20 return s;\n\
    }\n\
    extern int opaque(int);\n\
    int call_each(int *a, int n) {\n\
    \x20 int s = 0;\n\
    \x20 for (int i = 0; i < n; i++) s += opaque(a[i]);\n\
    \x20 return s;\n\
    }\n";

/// The remarks `clang` (`clang-14`, `clang-22`) writes for [`KERNELS_C`] (`dir/kernels.c`)
/// at -O2 with debug info, in `format` (`yaml` or `bitstream`), as `dir/NAME.opt.FORMAT`.
pub fn clang_remarks(clang: &str, dir: &Path, name: &str, format: &str) -> PathBuf {
    require(clang);
    std::fs::write(dir.join("kernels.c"), KERNELS_C).unwrap();
    let remarks = dir.join(format!("{name}.opt.{format}"));
    run(Command::new(clang)
        .current_dir(dir)
        .args(["-O2", "-g", "-c", "kernels.c", "-o"])
        .arg(format!("{name}.o"))
        .arg(format!("-fsave-optimization-record={format}"))
        .arg(format!("-foptimization-record-file={}", remarks.display()))
        // clang-14 crashes writing the remarks section (the bitstream's strings, or the
        // link to the remarks file) into an ELF object; the remarks file is the same either
        // way.
        .args(["-mllvm", "-remarks-section=false"]));
    remarks
}
