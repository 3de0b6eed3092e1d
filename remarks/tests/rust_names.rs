//! Rust function names in `rld remarks`, on the remarks LLVM really writes for a Rust crate
//! (rustc 1.95 emits `remarks_rs`'s bitcode, opt-22 optimizes it; support::REMARKS_RS) and
//! for a C file (clang-22):
//!
//! - what people read (summary, diff, check, their markdown) shows `remarks_rs::compute`,
//!   demangled as binutils' `c++filt` does (less the hashes), and C names as they are;
//! - what tools read keeps the symbols: `filter` writes the remarks byte for byte as they
//!   were (llvm-opt-report-22 still reads them), JSON and SARIF keep the symbol where they
//!   had it and add the path;
//! - patterns (`filter --function`, `--arg`, a policy's fields) match either form;
//! - opt-22's bitstream file (LLVM 22's container) holds the same remarks as its YAML.
//!
//! view.rs checks the HTML report on the same remarks. A missing tool fails the test, naming
//! its Debian package.

mod support;

use rld_remarks::{display_name, parse_yaml, Remark};
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{clang_remarks, remarks_cli, require, run, rust_remarks, work_dir, REMARKS_RS};

/// Whether rustc could have written `name` (its legacy or v0 mangling).
fn is_rust(name: &str) -> bool {
    name.starts_with("_ZN") || name.starts_with("_R")
}

fn read(path: &Path) -> Vec<Remark> {
    parse_yaml(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The symbol of the crate's function `name` (`_ZN10remarks_rs3run17h...E`), from the
/// remarks' `Function` fields.
fn symbol_of(remarks: &[Remark], name: &str) -> String {
    let prefix = format!("_ZN10remarks_rs{}{name}17h", name.len());
    remarks
        .iter()
        .map(|r| &r.function)
        .find(|f| f.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no remark in remarks_rs::{name}"))
        .clone()
}

/// The Rust remarks (YAML) and clang-22's remarks for a C file, in a fresh directory.
fn rust_and_c(dir: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = work_dir(dir);
    let rust = rust_remarks(&dir, "rust", &[], "yaml");
    let c = clang_remarks("clang-22", &dir, "c", "yaml");
    (dir, rust, c)
}

#[test]
fn rust_symbols_are_demangled_as_cxxfilt_demangles_them() {
    require("c++filt");
    let (_dir, rust, _) = rust_and_c("names-cxxfilt");
    let remarks = read(&rust);
    let mut symbols: Vec<&str> = remarks
        .iter()
        .flat_map(|r| std::iter::once(&r.function).chain(r.args.iter().map(|a| &a.value)))
        .map(String::as_str)
        .filter(|s| is_rust(s))
        .collect();
    symbols.sort_unstable();
    symbols.dedup();
    // The crate's own (legacy) symbols, the standard library's v0 ones.
    assert!(symbols.iter().any(|s| s.starts_with("_ZN10remarks_rs")));
    assert!(symbols.iter().any(|s| s.starts_with("_RNv")));
    let mut input = symbols.join("\n");
    input.push('\n');
    let demangled = {
        use std::io::Write;
        let mut child = Command::new("c++filt")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    // c++filt keeps what rld's display leaves out: legacy symbols' `::h<16 hex>` and v0's
    // crate disambiguators, `core[c1f1a4ba060b9bfa]`.
    let hash = regex::Regex::new(r"::h[0-9a-f]{16}$").unwrap();
    let disambiguator = regex::Regex::new(r"\[[0-9a-f]+\]").unwrap();
    assert_eq!(demangled.lines().count(), symbols.len());
    for (symbol, theirs) in symbols.iter().zip(demangled.lines()) {
        let theirs = disambiguator
            .replace_all(&hash.replace(theirs, ""), "")
            .into_owned();
        assert_ne!(theirs, *symbol, "c++filt did not demangle {symbol}");
        assert_eq!(display_name(symbol), theirs, "{symbol}");
    }
    // C names, here and in C's remarks, stay.
    assert!(remarks.iter().any(|r| r.function == "c_entry"));
    assert_eq!(display_name("c_entry"), "c_entry");
}

/// The function column of `summary`'s text: (remarks, missed, function) per line.
fn summary_functions(text: &str) -> Vec<(u64, u64, String)> {
    let section = text
        .split("functions (remarks, missed):\n")
        .nth(1)
        .expect("a functions section");
    section
        .lines()
        .map(|l| {
            let mut words = l.split_whitespace();
            let count = words.next().unwrap().parse().unwrap();
            let missed = words.next().unwrap().parse().unwrap();
            (count, missed, words.collect::<Vec<_>>().join(" "))
        })
        .collect()
}

#[test]
fn summary_shows_rust_paths_and_c_names() {
    let (_dir, rust, c) = rust_and_c("names-summary");
    let remarks: Vec<Remark> = [&rust, &c].iter().flat_map(|p| read(p)).collect();
    let (status, text) = remarks_cli([
        "summary".as_ref(),
        "--top".as_ref(),
        "100".as_ref(),
        rust.as_os_str(),
        c.as_os_str(),
    ]);
    assert_eq!(status, 0);
    let functions = summary_functions(&text);
    for name in [
        "remarks_rs::compute",
        "remarks_rs::run",
        "c_entry",
        "sum_squares",
        "call_each",
    ] {
        // Counted from the remarks themselves, under their symbols.
        let count = remarks
            .iter()
            .filter(|r| display_name(&r.function) == name)
            .count() as u64;
        assert!(count > 0, "{name}");
        assert!(
            functions.iter().any(|(c, _, f)| f == name && *c == count),
            "{name}: {count} remarks\n{text}"
        );
    }
    assert_eq!(functions.len(), {
        let mut all: Vec<&str> = remarks.iter().map(|r| r.function.as_str()).collect();
        all.sort_unstable();
        all.dedup();
        all.len()
    });
    assert!(
        !text.contains("_ZN") && !text.contains("_RNv"),
        "a symbol is shown mangled:\n{text}"
    );

    let (_, markdown) = remarks_cli(["summary", "--format", "markdown", rust.to_str().unwrap()]);
    assert!(markdown.contains("| `remarks_rs::run` |"), "{markdown}");
    assert!(!markdown.contains("_ZN"), "{markdown}");

    // JSON keeps the symbol as `function` and adds the path for Rust's only.
    let (_, json) = remarks_cli(
        ["summary", "--format", "json", "--top", "100"]
            .into_iter()
            .map(String::from)
            .chain([rust.display().to_string(), c.display().to_string()]),
    );
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let run_symbol = symbol_of(&remarks, "run");
    for f in json["functions"].as_array().unwrap() {
        let symbol = f["function"].as_str().unwrap();
        if is_rust(symbol) {
            assert_eq!(f["demangled"], display_name(symbol).as_ref(), "{f}");
        } else {
            assert!(f.get("demangled").is_none(), "{f}");
        }
    }
    assert!(json["functions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["function"] == run_symbol.as_str() && f["demangled"] == "remarks_rs::run"));
}

#[test]
fn diff_names_rust_functions_and_callees_by_path() {
    let dir = work_dir("names-diff");
    let base = rust_remarks(&dir, "base", &[], "yaml");
    // The change: `compute` is no longer inlined into `run`.
    let new = rust_remarks(&dir, "new", &["keep_compute"], "yaml");
    let (status, text) = remarks_cli([
        "diff".as_ref(),
        base.as_os_str(),
        new.as_os_str(),
        "--fail-on-regression".as_ref(),
    ]);
    assert_eq!(status, 1, "{text}");
    let regressions = text
        .split("\nregressions:\n")
        .nth(1)
        .expect("a regression")
        .split("\n\n")
        .next()
        .unwrap();
    assert!(
        regressions.lines().any(|l| l
            .trim_start()
            .starts_with("1 call no longer inlined into `remarks_rs::run`")
            && l.ends_with(": Callee=remarks_rs::compute Caller=remarks_rs::run")),
        "{text}"
    );
    assert!(!text.contains("_ZN") && !text.contains("_RNv"), "{text}");
    let (_, markdown) = remarks_cli([
        "diff".as_ref(),
        base.as_os_str(),
        new.as_os_str(),
        "--format".as_ref(),
        "markdown".as_ref(),
    ]);
    assert!(
        markdown.contains(":x: 1 call no longer inlined into `remarks_rs::run`"),
        "{markdown}"
    );

    // JSON: the symbols, the path beside the function, the sentence as people read it.
    let remarks = read(&base);
    let (run_symbol, compute_symbol) = (symbol_of(&remarks, "run"), symbol_of(&remarks, "compute"));
    let (_, json) = remarks_cli([
        "diff".as_ref(),
        base.as_os_str(),
        new.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let change = json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["direction"] == "regression" && c["pass"] == "inline")
        .expect("the lost inlining");
    assert_eq!(change["function"], run_symbol.as_str());
    assert_eq!(change["demangled"], "remarks_rs::run");
    assert_eq!(
        change["items"],
        serde_json::json!([format!("Callee={compute_symbol} Caller={run_symbol}")])
    );
    assert!(change["summary"]
        .as_str()
        .unwrap()
        .ends_with("Callee=remarks_rs::compute Caller=remarks_rs::run"));
}

#[test]
fn filter_keeps_symbols_and_matches_either_form() {
    require("llvm-opt-report-22");
    let (dir, rust, _) = rust_and_c("names-filter");
    let remarks = read(&rust);
    let by_path = dir.join("by-path.opt.yaml");
    let by_symbol = dir.join("by-symbol.opt.yaml");
    for (pattern, out) in [
        ("remarks_rs::*", &by_path),
        ("_ZN10remarks_rs*", &by_symbol),
    ] {
        let (status, _) = remarks_cli([
            "filter".as_ref(),
            "--function".as_ref(),
            pattern.as_ref(),
            rust.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        assert_eq!(status, 0, "{pattern}");
    }
    let written = std::fs::read_to_string(&by_path).unwrap();
    assert_eq!(written, std::fs::read_to_string(&by_symbol).unwrap());
    // The crate's remarks, exactly as opt-22 wrote them: symbols and all.
    let selected: Vec<Remark> = remarks
        .iter()
        .filter(|r| display_name(&r.function).starts_with("remarks_rs::"))
        .cloned()
        .collect();
    assert!(selected.len() >= 3, "{selected:#?}");
    assert_eq!(written, rld_remarks::format_yaml(&selected));
    let original = std::fs::read_to_string(&rust).unwrap();
    for document in written.split_inclusive("...\n") {
        assert!(original.contains(document), "not as written:\n{document}");
    }

    // An argument by its path: the inlining of compute (into run), under its symbol.
    let (_, jsonl) = remarks_cli([
        "filter".as_ref(),
        "--arg".as_ref(),
        "Callee=remarks_rs::compute".as_ref(),
        "--format".as_ref(),
        "jsonl".as_ref(),
        rust.as_os_str(),
    ]);
    let lines: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{jsonl}");
    assert_eq!(lines[0]["name"], "Inlined");
    assert_eq!(lines[0]["function"], symbol_of(&remarks, "run").as_str());
    assert_eq!(lines[0]["demangled"], "remarks_rs::run");
    let callee = &lines[0]["args"].as_array().unwrap()[1];
    assert_eq!(callee["value"], symbol_of(&remarks, "compute").as_str());

    // llvm-opt-report-22 renders the crate's remarks at its own lines (it needs every file a
    // remark names; some are in `core`, inlined): the call to compute is marked inlined.
    let in_crate = dir.join("in-crate.opt.yaml");
    let (status, _) = remarks_cli([
        "filter".as_ref(),
        "--function".as_ref(),
        "remarks_rs::*".as_ref(),
        "--file".as_ref(),
        "remarks_rs.rs".as_ref(),
        rust.as_os_str(),
        "-o".as_ref(),
        in_crate.as_os_str(),
    ]);
    assert_eq!(status, 0);
    let call_line = REMARKS_RS
        .lines()
        .position(|l| l.contains("compute(x) + opaque(x)"))
        .unwrap()
        + 1;
    let report = run(Command::new("llvm-opt-report-22")
        .arg("-r")
        .arg(&dir)
        .arg(&in_crate));
    // The line, then a line per column with remarks: `I` under `compute` (column 5).
    let lines: Vec<&str> = report.lines().collect();
    let at = lines
        .iter()
        .position(|l| {
            l.starts_with(&format!("{call_line} ")) && l.ends_with("compute(x) + opaque(x)")
        })
        .unwrap_or_else(|| panic!("line {call_line} not rendered:\n{report}"));
    let column = REMARKS_RS
        .lines()
        .nth(call_line - 1)
        .unwrap()
        .find("compute")
        .unwrap();
    assert!(
        lines[at + 1..]
            .iter()
            .take_while(|l| !l.starts_with(&format!("{} ", call_line + 1)))
            .any(|l| l.split_once('|').is_some_and(|(marks, caret)| {
                marks.contains('I') && caret.find('^') == Some(column + 1)
            })),
        "{report}"
    );
}

#[test]
fn check_reports_rust_paths_and_matches_either_form() {
    let (dir, rust, _) = rust_and_c("names-check");
    let remarks = read(&rust);
    let opaque_symbol = symbol_of(&remarks, "opaque");
    let run_symbol = symbol_of(&remarks, "run");
    // opt-22 does not inline `opaque` (#[inline(never)]) into `run`.
    let expected = remarks
        .iter()
        .filter(|r| {
            r.kind == rld_remarks::RemarkKind::Missed
                && r.function == run_symbol
                && r.args
                    .iter()
                    .any(|a| a.key == "Callee" && a.value == opaque_symbol)
        })
        .count();
    assert_eq!(expected, 1);
    let mut outputs = Vec::new();
    for (function, callee) in [
        ("remarks_rs::run", "remarks_rs::opaque"),
        (run_symbol.as_str(), "_ZN10remarks_rs6opaque*"),
    ] {
        let policy = dir.join("policy.toml");
        std::fs::write(
            &policy,
            format!(
                "[[deny]]\nmessage = \"run inlines its helpers\"\nkind = \"Missed\"\n\
                 function = \"{function}\"\nargs = {{ Callee = \"{callee}\" }}\n"
            ),
        )
        .unwrap();
        let sarif = dir.join("check.sarif");
        let (status, text) = remarks_cli([
            "check".as_ref(),
            "--policy".as_ref(),
            policy.as_os_str(),
            "--github".as_ref(),
            "--sarif".as_ref(),
            sarif.as_os_str(),
            rust.as_os_str(),
        ]);
        assert_eq!(status, 1, "{text}");
        assert!(text.contains("FAILED, 1 violation "), "{text}");
        let sarif: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
        outputs.push((text, sarif));
    }
    // The same violation, whichever form the policy named the functions in.
    let violation = |text: &str| {
        let line = text.lines().next().unwrap().to_string();
        let (at, rest) = line.split_once(" [deny-1 ").unwrap();
        (at.to_string(), rest.split_once("] ").unwrap().1.to_string())
    };
    let (text, sarif) = &outputs[0];
    assert_eq!(violation(text), violation(&outputs[1].0));
    let line = text.lines().next().unwrap();
    assert!(
        line.starts_with("remarks_rs.rs:") && line.contains(": remarks_rs::run: run inlines"),
        "{line}"
    );
    assert!(line.contains("'remarks_rs::opaque'"), "{line}");
    let annotation = text.lines().find(|l| l.starts_with("::error ")).unwrap();
    assert!(
        annotation.contains("::remarks_rs::run: run inlines"),
        "{annotation}"
    );
    assert!(!text.contains("_ZN"), "{text}");
    // SARIF: the symbol as the logical location's name, the path as its qualified name.
    let result = &sarif["runs"][0]["results"][0];
    let function = &result["locations"][0]["logicalLocations"][0];
    assert_eq!(function["name"], run_symbol.as_str());
    assert_eq!(function["fullyQualifiedName"], "remarks_rs::run");
    let message = result["message"]["text"].as_str().unwrap();
    assert!(message.starts_with("remarks_rs::run: "), "{message}");
    assert!(!message.contains("_ZN"), "{message}");
}

#[test]
fn opt_22_bitstream_holds_the_remarks_of_its_yaml() {
    require("llvm-bcanalyzer-22");
    let dir = work_dir("names-bitstream");
    let yaml = rust_remarks(&dir, "rust", &[], "yaml");
    let bitstream = rust_remarks(&dir, "rust", &[], "bitstream");
    // LLVM 22's container: version 1, a remarks file (its string table after the remarks).
    let dump = run(Command::new("llvm-bcanalyzer-22")
        .arg("-dump")
        .arg(&bitstream));
    assert!(
        dump.contains("<Container info abbrevid=4 op0=1 op1=1/>"),
        "{dump}"
    );
    let bytes = std::fs::read(&bitstream).unwrap();
    let from_bitstream: Vec<Remark> = rld_remarks::read_bitstream(&bytes)
        .and_then(|remarks| remarks.collect())
        .unwrap();
    assert_eq!(from_bitstream, read(&yaml));
    let summary = |path: &Path| remarks_cli(["summary".as_ref(), path.as_os_str()]).1;
    assert_eq!(summary(&bitstream), summary(&yaml));
    assert!(summary(&bitstream).contains("  remarks_rs::run\n"));
}
