//! rld's remark YAML checked against LLVM 14 itself:
//!
//! - LLVM's own remark parser (llvm-c/Remarks.h, `LLVMRemarkParserCreateYAML`), through a tiny
//!   C program compiled at test time against `llvm-config-14`, reads what `format_yaml`
//!   writes and finds the same remarks, field by field; on LLVM's own files it agrees with
//!   `parse_yaml`. LLVM 14's parser does not unquote: it returns a scalar's raw text with one
//!   leading and one trailing `'` dropped (YAMLRemarkParser::parseStr), so `it''s` stays
//!   doubled and a double-quoted string keeps its quotes and escapes. The comparison applies
//!   the same rule to what rld wrote ([`llvm_view`]).
//! - clang-14 writes remarks for source files with awkward names (quotes, `#`, `:`, spaces,
//!   UTF-8, invisible characters, a line break); rld rewrites them byte for byte.
//! - `llvm-opt-report-14` renders rld's remarks onto the source.
//!
//! Each test prints why and passes when the LLVM tool it needs is not installed.

use rld_remarks::DebugLoc;
use rld_remarks::{format_yaml, parse_yaml, Remark, RemarkArg, RemarkKind};
use std::path::{Path, PathBuf};
use std::process::Command;

fn work_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Output of a command that ran successfully, or `None` if it could not be started.
fn run(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).expect("tool output is UTF-8"))
}

fn installed(tool: &str) -> bool {
    let found = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: {tool} is not installed");
    }
    found
}

const REMARK_DUMPER: &str = r#"
#include <llvm-c/Remarks.h>
#include <stdio.h>
#include <stdlib.h>

static void str(const char *what, LLVMRemarkStringRef s) {
  printf("%s %u:", what, LLVMRemarkStringGetLen(s));
  fwrite(LLVMRemarkStringGetData(s), 1, LLVMRemarkStringGetLen(s), stdout);
  printf("\n");
}

static void loc(LLVMRemarkDebugLocRef l) {
  if (!l) {
    printf("noloc\n");
    return;
  }
  str("file", LLVMRemarkDebugLocGetSourceFilePath(l));
  printf("line %u column %u\n", LLVMRemarkDebugLocGetSourceLine(l),
         LLVMRemarkDebugLocGetSourceColumn(l));
}

int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "rb");
  if (!f) return 2;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc(size + 1);
  if (fread(buf, 1, size, f) != (size_t)size) return 2;
  LLVMRemarkParserRef p = LLVMRemarkParserCreateYAML(buf, size);
  LLVMRemarkEntryRef r;
  while ((r = LLVMRemarkParserGetNext(p))) {
    printf("type %d\n", (int)LLVMRemarkEntryGetType(r));
    str("pass", LLVMRemarkEntryGetPassName(r));
    str("name", LLVMRemarkEntryGetRemarkName(r));
    str("function", LLVMRemarkEntryGetFunctionName(r));
    loc(LLVMRemarkEntryGetDebugLoc(r));
    printf("hotness %llu\n", (unsigned long long)LLVMRemarkEntryGetHotness(r));
    printf("args %u\n", LLVMRemarkEntryGetNumArgs(r));
    for (LLVMRemarkArgRef a = LLVMRemarkEntryGetFirstArg(r); a;
         a = LLVMRemarkEntryGetNextArg(a, r)) {
      str("key", LLVMRemarkArgGetKey(a));
      str("value", LLVMRemarkArgGetValue(a));
      loc(LLVMRemarkArgGetDebugLoc(a));
    }
    LLVMRemarkEntryDispose(r);
  }
  if (LLVMRemarkParserHasError(p)) {
    fprintf(stderr, "LLVM remark parser: %s\n", LLVMRemarkParserGetErrorMessage(p));
    return 1;
  }
  LLVMRemarkParserDispose(p);
  return 0;
}
"#;

/// Builds the C program that prints what LLVM's parser reads from a YAML remark file.
fn build_remark_dumper() -> Option<PathBuf> {
    if !installed("llvm-config-14") {
        return None;
    }
    let config = |arg: &str| {
        run(Command::new("llvm-config-14").arg(arg))
            .unwrap()
            .split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let dir = work_dir("remark-dumper");
    let source = dir.join("dump_remarks.c");
    std::fs::write(&source, REMARK_DUMPER).unwrap();
    let exe = dir.join("dump_remarks");
    let libdir = config("--libdir").join("");
    let built = Command::new("cc")
        .args(config("--cflags"))
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .args(config("--ldflags"))
        .args(config("--libs"))
        .arg(format!("-Wl,-rpath,{libdir}"))
        .output();
    match built {
        Ok(out) if out.status.success() => Some(exe),
        Ok(out) => panic!(
            "compiling the LLVM remark parser check failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => {
            eprintln!("skipped: no C compiler (cc): {e}");
            None
        }
    }
}

/// What LLVM 14's remark parser returns for a string rld wrote: the raw scalar, as
/// `quote` wrote it, with one leading and one trailing single quote dropped.
fn llvm_view(s: &str) -> String {
    let raw = rld_remarks::yaml::quote(s);
    let raw = raw.strip_prefix('\'').unwrap_or(&raw);
    raw.strip_suffix('\'').unwrap_or(raw).to_string()
}

/// What the C program prints for these remarks, if LLVM reads them as rld means them.
fn expected_dump(remarks: &[Remark]) -> String {
    fn str(out: &mut String, what: &str, s: &str) {
        let s = llvm_view(s);
        out.push_str(&format!("{what} {}:{s}\n", s.len()));
    }
    fn loc(out: &mut String, l: &Option<DebugLoc>) {
        match l {
            None => out.push_str("noloc\n"),
            Some(l) => {
                str(out, "file", &l.file);
                out.push_str(&format!("line {} column {}\n", l.line, l.column));
            }
        }
    }
    let mut out = String::new();
    for r in remarks {
        let kind = match r.kind {
            RemarkKind::Passed => 1,
            RemarkKind::Missed => 2,
            RemarkKind::Analysis => 3,
            RemarkKind::AnalysisFPCommute => 4,
            RemarkKind::AnalysisAliasing => 5,
            RemarkKind::Failure => 6,
        };
        out.push_str(&format!("type {kind}\n"));
        str(&mut out, "pass", &r.pass);
        str(&mut out, "name", &r.name);
        str(&mut out, "function", &r.function);
        loc(&mut out, &r.debug_loc);
        // The C API reports a missing hotness as 0.
        out.push_str(&format!("hotness {}\n", r.hotness.unwrap_or(0)));
        out.push_str(&format!("args {}\n", r.args.len()));
        for a in &r.args {
            // Keys are written as they are, never quoted.
            out.push_str(&format!("key {}:{}\n", a.key.len(), a.key));
            str(&mut out, "value", &a.value);
            loc(&mut out, &a.debug_loc);
        }
    }
    out
}

fn llvm_reads(dumper: &Path, yaml: &str, name: &str) -> String {
    let path = dumper.with_file_name(name);
    std::fs::write(&path, yaml).unwrap();
    run(Command::new(dumper).arg(&path)).unwrap()
}

fn loc(file: &str, line: u32, column: u32) -> Option<DebugLoc> {
    Some(DebugLoc {
        file: file.to_string(),
        line,
        column,
    })
}

fn arg(key: &str, value: &str, debug_loc: Option<DebugLoc>) -> RemarkArg {
    RemarkArg {
        key: key.to_string(),
        value: value.to_string(),
        debug_loc,
    }
}

/// Remarks with every kind, every optional field and strings that need each kind of quoting.
fn awkward_remarks() -> Vec<Remark> {
    let strings = [
        "plain",
        "",
        " spaced ",
        "true",
        "123",
        "-30",
        "0x1F",
        ".inf",
        "a:b",
        "a #b",
        "#hash",
        "it's",
        "dir/file.c",
        "/usr/include/stdio.h",
        "caf\u{e9}",
        "\u{1f600}",
        "line\nbreak\r",
        "tab\tinside",
        "\x01\x07\x1b",
        "back\\slash \"quoted\"",
        "zero\u{200b}width",
        "nbsp\u{a0}nel\u{85}",
        "[x]{y}",
        "%@`!&*|>",
    ];
    let kinds = RemarkKind::ALL;
    let long_path = "a/very/long/directory/name/that/makes/llvm/wrap/the/debug/loc/file.c";
    strings
        .iter()
        .enumerate()
        .map(|(i, s)| Remark {
            kind: kinds[i % kinds.len()],
            pass: if s.is_empty() {
                "p".to_string()
            } else {
                s.to_string()
            },
            name: format!("Name{i}"),
            debug_loc: if i % 3 == 0 {
                None
            } else if i % 3 == 1 {
                loc(s, i as u32, 2 * i as u32)
            } else {
                loc(long_path, 4_000_000_000, 7)
            },
            function: if s.is_empty() {
                "f".to_string()
            } else {
                s.to_string()
            },
            hotness: (i % 2 == 0).then_some(i as u64 * 1000),
            args: if i % 5 == 4 {
                vec![]
            } else {
                vec![
                    arg("String", s, None),
                    arg("Callee", "f", loc(long_path, 1, 0)),
                    arg("VectorizationFactor", s, loc(s, 3, 4)),
                ]
            },
        })
        .collect()
}

#[test]
fn llvm_parser_reads_rld_remarks_as_written() {
    let Some(dumper) = build_remark_dumper() else {
        return;
    };
    let remarks = awkward_remarks();
    let yaml = format_yaml(&remarks);
    assert_eq!(
        llvm_reads(&dumper, &yaml, "rld.opt.yaml"),
        expected_dump(&remarks),
        "LLVM read rld's YAML differently:\n{yaml}"
    );
    let dead = rld_remarks::dead_function_remark("unused", loc("tu2.c", 1, 0));
    assert_eq!(
        llvm_reads(
            &dumper,
            &format_yaml(std::slice::from_ref(&dead)),
            "dead.opt.yaml"
        ),
        expected_dump(&[dead])
    );
}

#[test]
fn llvm_parser_and_parse_yaml_agree_on_llvm_files() {
    let Some(dumper) = build_remark_dumper() else {
        return;
    };
    for name in [
        "clang-O2-pgo.opt.yaml",
        "lld-lto.opt.ld.yaml",
        "lld-deadfunction.opt.ld.yaml",
    ] {
        let text =
            std::fs::read_to_string(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR")))
                .unwrap();
        let ours = parse_yaml(&text).unwrap();
        assert_eq!(
            llvm_reads(&dumper, &text, name),
            expected_dump(&ours),
            "{name}"
        );
    }
}

#[test]
fn clang_remarks_for_awkward_file_names_round_trip() {
    if !installed("clang-14") {
        return;
    }
    let dir = work_dir("awkward-names");
    let names = [
        "it's.c",
        "caf\u{e9}.c",
        "a#b.c",
        "x:y.c",
        "true",
        "123",
        "1e5",
        " lead.c",
        "trail.c ",
        "tab\tname.c",
        "new\nline.c",
        "back\\slash.c",
        "quote\".c",
        "zero\u{200b}width.c",
        "nbsp\u{a0}.c",
        "emoji\u{1f600}.c",
        "[brackets]{braces}.c",
        "%percent@at.c",
        // Where LLVM 14's printable-character table decides between raw and escaped.
        "shy\u{ad}.c",
        "cgj\u{34f}.c",
        "mvs\u{180e}.c",
        "private\u{e000}.c",
        "vs\u{fe00}.c",
        "bom\u{feff}.c",
        "filler\u{ffa0}.c",
        "objrepl\u{fffc}.c",
        "nonchar\u{1fffe}.c",
        "vs17\u{e0100}.c",
        "plane15\u{f0000}.c",
        "plane3\u{30000}.c",
        "c1\u{90}.c",
    ];
    let source = "static int sq(int a) { return a * a; }\n\
                  int ext(int);\n\
                  int f(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(p[i]) + ext(i); return s; }\n";
    for name in names {
        std::fs::write(dir.join(name), source).unwrap();
        let yaml = dir.join("out.opt.yaml");
        run(Command::new("clang-14")
            .current_dir(&dir)
            .args(["-x", "c", "-O2", "-g", "-c", "-o", "out.o"])
            .arg("-fsave-optimization-record")
            .arg(format!("-foptimization-record-file={}", yaml.display()))
            .arg(name))
        .expect("clang-14 runs");
        let text = std::fs::read_to_string(&yaml).unwrap();
        let remarks = parse_yaml(&text).unwrap_or_else(|e| panic!("{name:?}: {e}\n{text}"));
        assert!(
            remarks
                .iter()
                .any(|r| r.debug_loc.as_ref().is_some_and(|l| l.file == name)),
            "{name:?}: no remark names the file\n{text}"
        );
        assert_eq!(format_yaml(&remarks), text, "{name:?}");
    }
}

#[test]
fn llvm_opt_report_renders_rld_remarks() {
    if !installed("llvm-opt-report-14") {
        return;
    }
    let dir = work_dir("opt-report");
    std::fs::write(
        dir.join("tu.c"),
        "int helper(int x) { return x + 1; }\n\
         int main(void) {\n\
         \x20 return helper(41);\n\
         }\n",
    )
    .unwrap();
    let remarks = vec![
        Remark {
            kind: RemarkKind::Passed,
            pass: "inline".to_string(),
            name: "Inlined".to_string(),
            debug_loc: loc("tu.c", 3, 10),
            function: "main".to_string(),
            hotness: None,
            args: vec![
                arg("Callee", "helper", loc("tu.c", 1, 0)),
                arg("String", " inlined into ", None),
                arg("Caller", "main", loc("tu.c", 2, 0)),
            ],
        },
        rld_remarks::dead_function_remark("helper", loc("tu.c", 1, 0)),
    ];
    let yaml = dir.join("rld.opt.yaml");
    std::fs::write(&yaml, format_yaml(&remarks)).unwrap();
    let report = run(Command::new("llvm-opt-report-14")
        .arg("-r")
        .arg(&dir)
        .arg(&yaml))
    .unwrap();
    // The inlined call is marked `I` on line 3 (`3 I |   return helper(41);`).
    assert!(
        report
            .lines()
            .any(|l| l.starts_with("3 I ") && l.ends_with("return helper(41);")),
        "{report}"
    );
}
