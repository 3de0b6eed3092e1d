//! rld's remark files checked against LLVM itself, LLVM 22 and, for old files, LLVM 14:
//!
//! - LLVM 22's remark parser (llvm-c/Remarks.h, `LLVMRemarkParserCreateYAML`), through a tiny
//!   C program compiled at test time against `llvm-config-22` (support/dump_remarks.c),
//!   reads what `format_yaml` writes and finds the same remarks, field by field; on LLVM 14's
//!   files (tests/data) it agrees with `parse_yaml`. LLVM's parser (14 as 22) does not
//!   unquote: it returns a scalar's raw text with one leading and one trailing `'` dropped
//!   (YAMLRemarkParser::parseStr), so `it''s` stays doubled and a double-quoted string keeps
//!   its quotes and escapes. The comparison applies the same rule to what rld wrote
//!   ([`llvm_view`]).
//! - clang-14 and clang-22 write remarks for source files with awkward names (quotes, `#`,
//!   `:`, spaces, UTF-8, invisible characters, a line break); rld reads both, and rewrites
//!   clang-14's byte for byte (it writes LLVM 14's YAML).
//! - The remark files of clang-14 and clang-22, YAML and bitstream, are read as LLVM reads
//!   them (clang-14's separate bitstream file is refused: its strings are in the object).
//! - `llvm-opt-report-22` renders rld's remarks onto the source.
//!
//! A test whose LLVM tool is not installed fails, naming the Debian package.

mod support;

use rld_remarks::{format_yaml, parse_yaml, Remark, RemarkKind};
use std::process::Command;
use support::{
    arg, clang_remarks, data, expected_dump, llvm_reads, loc, remark_dumper, require, run,
    work_dir, DATA_FILES,
};

/// What LLVM's remark parser returns for a string rld wrote: the raw scalar, as
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
    let dumper = remark_dumper(22);
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
    let dumper = remark_dumper(22);
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
    let compilers = ["clang-14", "clang-22"];
    compilers.iter().for_each(|c| require(c));
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
        // Where LLVM's printable-character table decides between raw and escaped (LLVM 22's
        // writes U+034F raw, where LLVM 14's escapes it).
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
        for clang in compilers {
            let yaml = dir.join("out.opt.yaml");
            run(Command::new(clang)
                .current_dir(&dir)
                .args(["-x", "c", "-O2", "-g", "-c", "-o", "out.o"])
                .arg("-fsave-optimization-record")
                .arg(format!("-foptimization-record-file={}", yaml.display()))
                .arg(name));
            let text = std::fs::read_to_string(&yaml).unwrap();
            let remarks =
                parse_yaml(&text).unwrap_or_else(|e| panic!("{clang} {name:?}: {e}\n{text}"));
            assert!(
                remarks
                    .iter()
                    .any(|r| r.debug_loc.as_ref().is_some_and(|l| l.file == name)),
                "{clang} {name:?}: no remark names the file\n{text}"
            );
            let rewritten = format_yaml(&remarks);
            if clang == "clang-14" {
                assert_eq!(rewritten, text, "{name:?}");
            } else {
                assert_eq!(parse_yaml(&rewritten).unwrap(), remarks, "{clang} {name:?}");
            }
        }
    }
}

/// The remark files clang-14 and clang-22 write for the same C file, YAML and bitstream, read
/// by rld as LLVM 22's own parser reads them: clang-14's YAML, clang-22's YAML and clang-22's
/// bitstream (container version 1, its string table after the remarks), which holds the same
/// remarks as its YAML. clang-14's bitstream file is the separate kind whose strings are in
/// the object, which rld refuses, saying so (as LLVM 22 refuses its container version).
#[test]
fn clang_14_and_clang_22_remark_files_are_read() {
    let dir = work_dir("clang-versions");
    let dumper = remark_dumper(22);
    for (clang, llvm) in [("clang-14", 14), ("clang-22", 22)] {
        let yaml = clang_remarks(clang, &dir, clang, "yaml");
        let text = std::fs::read_to_string(&yaml).unwrap();
        let from_yaml = parse_yaml(&text).unwrap_or_else(|e| panic!("{clang}: {e}"));
        assert!(
            from_yaml.iter().any(|r| r.pass == "inline"
                && r.function == "sum_squares"
                && r.args.iter().any(|a| a.value == "square")),
            "{clang}: no inlining of square\n{text}"
        );
        assert_eq!(
            run(Command::new(&dumper).arg(&yaml)),
            expected_dump(&from_yaml, llvm_view),
            "{clang}: LLVM reads its YAML differently"
        );
        let path = clang_remarks(clang, &dir, clang, "bitstream");
        let bitstream = std::fs::read(&path).unwrap();
        assert!(rld_remarks::is_bitstream(&bitstream), "{clang}");
        match (llvm, rld_remarks::read_bitstream(&bitstream)) {
            (14, Err(e)) => assert!(e.message.contains("string table is missing"), "{e}"),
            (14, Ok(_)) => panic!("clang-14's separate bitstream file was read"),
            (_, read) => {
                let from_bitstream: Vec<Remark> = read
                    .and_then(|remarks| remarks.collect())
                    .unwrap_or_else(|e| panic!("{clang}'s bitstream: {e}"));
                assert_eq!(
                    from_bitstream, from_yaml,
                    "{clang}: bitstream and YAML differ"
                );
                assert_eq!(
                    run(Command::new(&dumper).arg(&path)),
                    expected_dump(&from_bitstream, str::to_string),
                    "{clang}: LLVM reads its bitstream differently"
                );
            }
        }
    }
}

#[test]
fn llvm_opt_report_renders_rld_remarks() {
    require("llvm-opt-report-22");
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
    let report = run(Command::new("llvm-opt-report-22")
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
