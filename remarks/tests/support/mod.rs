//! What the tests that check rld's remarks against LLVM 14 itself (bitstream.rs,
//! llvm_tools.rs) share: LLVM's data files, running tools, programs compiled at test time
//! against `llvm-config-14`, and LLVM's remark parser (llvm-c/Remarks.h) as such a program,
//! `dump_remarks.c`, which prints what it reads from a YAML or bitstream file field by field.

use rld_remarks::{DebugLoc, Remark, RemarkArg, RemarkKind};
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

pub fn installed(tool: &str) -> bool {
    let found = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: {tool} is not installed");
    }
    found
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

fn llvm_config(arg: &str) -> Vec<String> {
    run(Command::new("llvm-config-14").arg(arg))
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Compiles `source` against libLLVM-14 with `compiler` (`cc` or `c++`, given `--cflags` or
/// `--cxxflags`), once per test binary; `None` (and why, printed) when LLVM or the compiler
/// is not installed.
pub fn build_against_llvm(
    cell: &'static OnceLock<Option<PathBuf>>,
    name: &str,
    compiler: &str,
    flags: &str,
    source: &str,
) -> Option<PathBuf> {
    cell.get_or_init(|| {
        if !installed("llvm-config-14") {
            return None;
        }
        // Each test binary builds in its own directory.
        let dir = work_dir(&format!("{}-{name}", env!("CARGO_CRATE_NAME")));
        let ext = if compiler == "cc" { "c" } else { "cpp" };
        let src = dir.join(format!("{name}.{ext}"));
        std::fs::write(&src, source).unwrap();
        let exe = dir.join(name);
        let libdir = llvm_config("--libdir").join("");
        let built = Command::new(compiler)
            .args(llvm_config(flags))
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .args(llvm_config("--ldflags"))
            .args(llvm_config("--libs"))
            .arg(format!("-Wl,-rpath,{libdir}"))
            .output();
        match built {
            Ok(out) if out.status.success() => Some(exe),
            Ok(out) => panic!(
                "compiling {name} against LLVM failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(e) => {
                eprintln!("skipped: no compiler ({compiler}): {e}");
                None
            }
        }
    })
    .clone()
}

/// LLVM's remark parser as a program: `dump_remarks FILE [bitstream|yaml]`, the parser
/// chosen by the file's magic when not named.
pub fn remark_dumper() -> Option<PathBuf> {
    static CELL: OnceLock<Option<PathBuf>> = OnceLock::new();
    build_against_llvm(
        &CELL,
        "dump_remarks",
        "cc",
        "--cflags",
        include_str!("dump_remarks.c"),
    )
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
