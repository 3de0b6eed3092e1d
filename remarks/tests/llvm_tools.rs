//! rld's remark YAML checked against LLVM 14 itself:
//!
//! - LLVM's own remark parser (llvm-c/Remarks.h, `LLVMRemarkParserCreateYAML`), through a tiny
//!   C program compiled at test time against `llvm-config-14` (support/dump_remarks.c),
//!   reads what `format_yaml` writes and finds the same remarks, field by field; on LLVM's
//!   own files it agrees with `parse_yaml`. LLVM 14's parser does not unquote: it returns a
//!   scalar's raw text with one leading and one trailing `'` dropped
//!   (YAMLRemarkParser::parseStr), so `it''s` stays doubled and a double-quoted string keeps
//!   its quotes and escapes. The comparison applies the same rule to what rld wrote
//!   ([`llvm_view`]).
//! - clang-14 writes remarks for source files with awkward names (quotes, `#`, `:`, spaces,
//!   UTF-8, invisible characters, a line break); rld rewrites them byte for byte.
//! - `llvm-opt-report-14` renders rld's remarks onto the source.
//!
//! Each test prints why and passes when the LLVM tool it needs is not installed.

mod support;

use rld_remarks::{format_yaml, parse_yaml, Remark, RemarkKind};
use std::process::Command;
use support::{
    arg, data, expected_dump, installed, llvm_reads, loc, remark_dumper, run, work_dir, DATA_FILES,
};

/// What LLVM 14's remark parser returns for a string rld wrote: the raw scalar, as
/// `quote` wrote it, with one leading and one trailing single quote dropped.
fn llvm_view(s: &str) -> String {
    let raw = rld_remarks::yaml::quote(s);
    let raw = raw.strip_prefix('\'').unwrap_or(&raw);
    raw.strip_suffix('\'').unwrap_or(raw).to_string()
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
    let Some(dumper) = remark_dumper() else {
        return;
    };
    let remarks = awkward_remarks();
    let yaml = format_yaml(&remarks);
    assert_eq!(
        llvm_reads(&dumper, "rld.opt.yaml", &yaml),
        expected_dump(&remarks, llvm_view),
        "LLVM read rld's YAML differently:\n{yaml}"
    );
    let dead = rld_remarks::dead_function_remark("unused", loc("tu2.c", 1, 0));
    assert_eq!(
        llvm_reads(
            &dumper,
            "dead.opt.yaml",
            format_yaml(std::slice::from_ref(&dead))
        ),
        expected_dump(&[dead], llvm_view)
    );
}

#[test]
fn llvm_parser_and_parse_yaml_agree_on_llvm_files() {
    let Some(dumper) = remark_dumper() else {
        return;
    };
    for name in DATA_FILES {
        let text = data(name);
        let ours = parse_yaml(&text).unwrap();
        assert_eq!(
            llvm_reads(&dumper, name, &text),
            expected_dump(&ours, llvm_view),
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
            .arg(name));
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
        .arg(&yaml));
    // The inlined call is marked `I` on line 3 (`3 I |   return helper(41);`).
    assert!(
        report
            .lines()
            .any(|l| l.starts_with("3 I ") && l.ends_with("return helper(41);")),
        "{report}"
    );
}
