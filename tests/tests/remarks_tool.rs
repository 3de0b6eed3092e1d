//! `rld remarks`: the remark tools run as users run them, on remark files made for real
//! (rld's own LTO remarks, clang-22's `-fsave-optimization-record` files), with counts
//! checked against LLVM's own remark parser (`cases/lto/remarks_dump.c`).

use rld_tests::llvm_remarks::{remarks, Loc, Remark};
use rld_tests::Compiler::Clang;
use rld_tests::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `rld remarks ARGS...`.
fn tool(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let mut cmd = Command::new(rld_path());
    cmd.arg("remarks");
    for a in args {
        cmd.arg(a);
    }
    let out = cmd.output().expect("running rld remarks");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("internal error") && !stderr.contains("panicked"),
        "{}: {stderr}",
        command_line(&cmd)
    );
    out
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The test program (`cases/remarks/`), as it is and with `-DCHANGED`, linked by rld with
/// LTO and remarks; returns the remark file.
fn build(t: &Test, version: &str, extra: &[&str]) -> PathBuf {
    let mut flags = vec!["-flto", "-O2", "-g"];
    if version == "changed" {
        flags.push("-DCHANGED");
    }
    let objs: Vec<PathBuf> = ["remarks/engine.c", "remarks/scale.c"]
        .iter()
        .map(|s| t.compile(Clang, s, &flags))
        .collect();
    let yaml = t.path(&format!("{version}.yaml"));
    let mut link = lto_flags(Some(&yaml), &["-Wl,-E"]);
    link.extend(extra.iter().map(|s| s.to_string()));
    let exe = t.link(Driver::ClangRld, &paths(&objs), &strs(&link), version);
    assert_output_is(&exe, &run(&exe, &["5"], &[]), "run(5) = 70\n", version);
    yaml
}

#[test]
fn diff_and_policy_name_the_lost_inlining_and_devirtualization() {
    let t = Test::new();
    let base = build(&t, "base", &[]);
    let changed = build(&t, "changed", &[]);

    // Nothing changed between a build and itself.
    let same = tool(&[&"diff", &base, &base, &"--fail-on-regression"]);
    assert!(same.status.success(), "{}", stdout(&same));
    assert!(
        stdout(&same).contains(" 0 regressions"),
        "{}",
        stdout(&same)
    );

    let diff = tool(&[&"diff", &base, &changed, &"--fail-on-regression"]);
    let text = stdout(&diff);
    assert_eq!(diff.status.code(), Some(1), "{text}");
    assert!(
        text.contains("1 call no longer inlined into `run` (Passed Inlined → Missed NeverInline): Callee=scale Caller=run"),
        "{text}"
    );
    assert!(
        text.contains("cvp: 1 indirect call site in `run` no longer resolved (Passed promoted → Missed unresolved)"),
        "{text}"
    );
    // Without the option, a regression is reported but the status is 0; JSON says the same.
    let json = tool(&[&"diff", &base, &changed, &"--format", &"json"]);
    assert!(json.status.success());
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let changes = v["changes"].as_array().unwrap();
    let regression = |pass: &str, from: &str, to: &str| {
        changes.iter().any(|c| {
            c["direction"] == "regression"
                && c["pass"] == pass
                && c["function"] == "run"
                && c["from"]["name"] == from
                && c["to"]["name"] == to
        })
    };
    assert!(regression("inline", "Inlined", "NeverInline"), "{v:#}");
    assert!(regression("cvp", "promoted", "unresolved"), "{v:#}");
    assert!(v["regressions"].as_u64().unwrap() >= 2, "{v:#}");

    let policy = t.write(
        "policy.toml",
        r#"
[[deny]]
message = "scale must be inlined into its callers"
kind = "Missed"
pass = "inline"
args = { Callee = "scale" }

[[keep]]
message = "indirect calls that were promoted stay promoted"
pass = "cvp"
name = "promoted"

[[require]]
message = "the whole-program alias analysis ran"
pass = "wpa-aa"
name = "AliasScopes"
"#,
    );
    let sarif = t.path("check.sarif");
    let ok = tool(&[&"check", &"--policy", &policy, &"--baseline", &base, &base]);
    assert!(ok.status.success(), "{}", stdout(&ok));
    let check = tool(&[
        &"check",
        &"--policy",
        &policy,
        &"--baseline",
        &base,
        &changed,
        &"--github",
        &"--sarif",
        &sarif,
    ]);
    let text = stdout(&check);
    assert_eq!(check.status.code(), Some(1), "{text}");
    assert!(
        text.contains("scale must be inlined into its callers"),
        "{text}"
    );
    assert!(
        text.contains("indirect calls that were promoted stay promoted"),
        "{text}"
    );
    assert!(text.contains("engine.c:"), "{text}");
    assert!(text.contains("::error file="), "{text}");
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{sarif:#}");
    for r in results {
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        assert!(uri.ends_with("engine.c"), "{r:#}");
        assert!(
            r["locations"][0]["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .unwrap()
                > 0
        );
    }
}

/// The remarks of a YAML file as rld's parser reads them, in the form LLVM's parser gives.
/// (LLVM 14's YAML remark parser returns quoted scalars raw, `''` for `'`, while its
/// bitstream parser returns the strings themselves, as rld's YAML parser does.)
fn ours(path: &Path) -> Vec<Remark> {
    let loc = |l: &Option<rld_remarks::DebugLoc>| {
        l.as_ref().map(|l| Loc {
            file: l.file.clone(),
            line: l.line,
            column: l.column,
        })
    };
    rld_remarks::parse_yaml(&std::fs::read_to_string(path).unwrap())
        .unwrap()
        .into_iter()
        .map(|r| Remark {
            kind: r.kind.tag()[1..].to_string(),
            pass: r.pass,
            name: r.name,
            function: r.function,
            debug_loc: loc(&r.debug_loc),
            hotness: r.hotness,
            args: r
                .args
                .into_iter()
                .map(|a| (a.key, a.value, loc(&a.debug_loc)))
                .collect(),
        })
        .collect()
}

/// The totals of `summary --format json`: (total, {kind: count}).
fn summary_counts(inputs: &[&dyn AsRef<std::ffi::OsStr>]) -> (u64, serde_json::Value) {
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"summary", &"--format", &"json"];
    args.extend_from_slice(inputs);
    let out = tool(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (v["total"].as_u64().unwrap(), v["kinds"].clone())
}

fn llvm_kind_counts(files: &[&Path]) -> (u64, std::collections::BTreeMap<String, u64>) {
    let mut kinds = std::collections::BTreeMap::new();
    let mut total = 0;
    for f in files {
        for r in remarks(f) {
            *kinds.entry(r.kind).or_default() += 1;
            total += 1;
        }
    }
    (total, kinds)
}

#[test]
fn summary_counts_what_llvm_reads_in_a_build_directory() {
    let t = Test::new();
    let link = build(&t, "base", &[]);
    // A build directory of clang's records, one level down, beside other files.
    let dir = t.path("build");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("README.txt"), "not remarks").unwrap();
    // Other YAML of a project is passed over in a directory (and refused when named).
    let ci = dir.join("sub/ci.yml");
    std::fs::write(&ci, "jobs:\n  build:\n    runs-on: ubuntu-latest\n").unwrap();
    let named = tool(&[&"summary", &ci]);
    assert_eq!(named.status.code(), Some(2));
    let mut records = Vec::new();
    for (src, out) in [
        ("remarks/engine.c", "engine"),
        ("remarks/scale.c", "sub/scale"),
    ] {
        let record = dir.join(format!("{out}.opt.yaml"));
        t.compile(
            Clang,
            src,
            &[
                "-O2",
                "-g",
                "-fsave-optimization-record",
                &format!("-foptimization-record-file={}", record.display()),
            ],
        );
        records.push(record);
    }
    // And lld-22's remark file of the same program.
    let objs: Vec<PathBuf> = ["remarks/engine.c", "remarks/scale.c"]
        .iter()
        .map(|s| t.compile(Clang, s, &["-flto", "-O2", "-g"]))
        .collect();
    let lld = t.path("lld.yaml");
    t.link(
        Driver::ClangLld,
        &paths(&objs),
        &strs(&lto_flags(Some(&lld), &[])),
        "lld",
    );
    let (total, kinds) = summary_counts(&[&dir, &link, &lld]);
    let mut all: Vec<&Path> = records.iter().map(PathBuf::as_path).collect();
    all.push(&link);
    all.push(&lld);
    let (llvm_total, llvm_kinds) = llvm_kind_counts(&all);
    assert!(llvm_total > 20, "{llvm_total}");
    assert_eq!(total, llvm_total);
    for (kind, n) in llvm_kinds {
        assert_eq!(kinds[&kind], n, "{kind}: {kinds:#}");
    }
    // The text form starts with the total.
    let text = stdout(&tool(&[&"summary", &dir]));
    let dir_total: u64 = records.iter().map(|r| remarks(r).len() as u64).sum();
    assert!(
        text.starts_with(&format!("{dir_total} remarks in 2 file(s)")),
        "{text}"
    );
}

#[test]
fn filter_writes_what_llvm_reads() {
    let t = Test::new();
    let all = build(&t, "base", &[]);
    let selected = |all: Vec<Remark>| -> Vec<Remark> {
        all.into_iter()
            .filter(|r| r.kind == "Passed" && r.pass == "inline" && r.function == "run")
            .collect()
    };
    for format in ["yaml", "bitstream"] {
        let expected = selected(if format == "yaml" {
            remarks(&all)
        } else {
            ours(&all)
        });
        assert!(!expected.is_empty());
        let out = t.path(&format!("inline.{format}"));
        let status = tool(&[
            &"filter",
            &"--kind",
            &"Passed",
            &"--pass",
            &"inl*",
            &"--function",
            &"run",
            &"--format",
            &format,
            &all,
            &"-o",
            &out,
        ]);
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        assert_eq!(remarks(&out), expected, "{format}");
        if format == "yaml" {
            // llvm-opt-report-22 annotates engine.c with the inlinings (an `I` line under
            // line 31, one per column inlined at).
            let report = t.path("inline.lst");
            // clang writes a source path relative to the directory it shares with the
            // compilation's (`/tmp` for a checkout under /tmp): find where it resolves.
            let file = expected[0]
                .debug_loc
                .as_ref()
                .expect("a DebugLoc")
                .file
                .clone();
            let root = t
                .dir()
                .ancestors()
                .find(|d| d.join(&file).exists())
                .unwrap_or_else(|| panic!("{file} is found from no parent of the test directory"))
                .to_path_buf();
            let ran = Command::new("llvm-opt-report-22")
                .arg("-r")
                .arg(&root)
                .arg(&out)
                .arg("-o")
                .arg(&report)
                .output()
                .expect("llvm-opt-report-22 (package llvm-22)");
            assert!(
                ran.status.success(),
                "{}",
                String::from_utf8_lossy(&ran.stderr)
            );
            let listing = std::fs::read_to_string(&report).unwrap();
            let lines: Vec<&str> = listing.lines().collect();
            let at = lines
                .iter()
                .position(|l| l.starts_with("31 ") && l.contains("current_op(scale(i))"))
                .unwrap_or_else(|| panic!("{listing}"));
            assert!(
                lines[at + 1].trim_start().starts_with("I ") && lines[at + 1].contains('^'),
                "{listing}"
            );
        }
    }
    // By argument value and by file; JSON lines.
    let out = tool(&[
        &"filter",
        &"--arg",
        &"Callee=sc?le",
        &"--file",
        &"*/remarks/engine.c",
        &"--format",
        &"jsonl",
        &all,
    ]);
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let expected = remarks(&all)
        .into_iter()
        .filter(|r| {
            r.arg("Callee") == Some("scale")
                && r.debug_loc
                    .as_ref()
                    .is_some_and(|l| l.file.ends_with("remarks/engine.c"))
        })
        .count();
    assert_eq!(lines.len(), expected);
    assert!(lines.iter().all(|l| l["args"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["value"] == "scale")));
}

#[test]
fn bitstream_remark_files_from_the_link_hold_the_same_remarks() {
    let t = Test::new();
    let yaml = build(&t, "base", &["-Wl,--lto-partitions=1"]);
    let bits = t.path("base.bitstream");
    let flag = format!("-Wl,--opt-remarks-filename,{}", bits.display());
    build(
        &t,
        "again",
        &[
            "-Wl,--lto-partitions=1",
            &flag,
            "-Wl,--opt-remarks-format,bitstream",
        ],
    );
    let data = std::fs::read(&bits).unwrap();
    assert!(data.starts_with(b"RMRK"));
    assert!(data.len() * 3 < std::fs::metadata(&yaml).unwrap().len() as usize);
    assert_eq!(remarks(&bits), ours(&yaml));
    // And the tools read both alike.
    assert_eq!(summary_counts(&[&bits]), summary_counts(&[&yaml]));
}

#[test]
fn broken_remark_files_get_a_clear_error_with_the_position() {
    let t = Test::new();
    let good = build(&t, "base", &[]);
    let text = std::fs::read(&good).unwrap();
    // Cut short right after a remark's first line, past the middle: whatever the remarks,
    // the last one then lacks its fields. (A cut at any line break could leave a whole
    // remark: `...` may end a document or not, as in LLVM's parser.)
    let header = text[text.len() / 2..]
        .windows(5)
        .position(|w| w == b"--- !")
        .map(|at| text.len() / 2 + at)
        .expect("a remark after the middle");
    let line_end = header + text[header..].iter().position(|&b| b == b'\n').unwrap() + 1;
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated.yaml", text[..line_end].to_vec(), ": line "),
        (
            "garbage.yaml",
            [&text[..200], b"\n--- !Passed\nPass: [x\n".as_slice()].concat(),
            ": line ",
        ),
        (
            "latin1.yaml",
            b"--- !Passed\nPass: inline\nName: a\nFunction: caf\xe9\n...\n".to_vec(),
            "line 4: the file is not UTF-8",
        ),
        ("cut.bitstream", b"RMRK\x35\x08\x00\x00".to_vec(), ": byte "),
    ];
    for (name, bytes, says) in cases {
        let path = t.write(name, &bytes);
        for cmd in ["summary", "view"] {
            let html = t.path("out.html");
            let out = if cmd == "view" {
                tool(&[&cmd, &path, &"-o", &html])
            } else {
                tool(&[&cmd, &path])
            };
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{name} {cmd}: {err}");
            assert!(
                err.contains(&path.display().to_string()) && err.contains(says),
                "{name} {cmd}: {err}"
            );
            assert!(!html.exists(), "{cmd} left an output behind");
        }
    }
    // Usage errors are errors too.
    assert_eq!(tool(&[&"summary"]).status.code(), Some(2));
    assert_eq!(tool(&[&"frobnicate"]).status.code(), Some(2));
}

#[test]
fn the_example_policy_is_valid() {
    let t = Test::new();
    let base = build(&t, "base", &[]);
    let policy = workspace_dir().join("examples/remarks/policy.toml");
    let out = tool(&[&"check", &"--policy", &policy, &"--baseline", &base, &base]);
    let text = stdout(&out);
    // The test program drops no dead functions: exactly the `require` rule fails.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("LTO drops at least 10 dead functions"),
        "{text}"
    );
    assert!(text.contains("1 violation"), "{text}");
}

/// `rld remarks filter big.yaml | head`: the reader goes away after a few lines, and the
/// tool ends quietly with a closed pipe's status (141, as a Unix tool ended by SIGPIPE),
/// not with "error: ... Broken pipe".
#[test]
fn a_closed_pipe_ends_the_tool_quietly() {
    use std::io::Read;
    let t = Test::new();
    let mut yaml = String::new();
    for i in 0..20_000 {
        yaml.push_str(&format!(
            "--- !Passed\nPass:            inline\nName:            Inlined\nFunction:        \
             caller_{i}\nArgs:\n  - Callee:          callee_{i}\n  - String:          ' inlined'\n...\n"
        ));
    }
    let big = t.write("big.yaml", yaml);
    for command in ["filter", "summary"] {
        let mut child = Command::new(rld_path())
            .args(["remarks", command])
            .arg(&big)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The pipe's reading end is closed here.
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.is_empty(), "{command}: {stderr}");
        let status = out.status.code();
        if command == "filter" {
            // 1.6 MB of YAML cannot fit in the pipe: the write meets the closed end.
            assert_eq!(status, Some(141), "{command}");
        } else {
            assert!(
                matches!(status, Some(0) | Some(141)),
                "{command}: {status:?}"
            );
        }
    }
}
