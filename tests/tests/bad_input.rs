//! Bad inputs: rld, called directly, must fail cleanly: a non-zero exit, a
//! short error naming the culprit, no panic, and no output file written (a
//! pre-existing output file is left as it was).

use rld_tests::Compiler::Clang;
use rld_tests::*;
use std::path::Path;

/// Runs rld on `inputs` + `flags` twice, once with a fresh output path and
/// once over an existing file, and checks it fails cleanly and its stderr
/// contains every string in `mentions`. Returns the stderr.
fn assert_rejected(t: &Test, inputs: &[&Path], flags: &[&str], mentions: &[&str]) -> String {
    let (res, cmd) = t.try_link(Driver::Rld, inputs, flags, "fresh.out");
    let stderr = String::from_utf8_lossy(&res.stderr).into_owned();
    let ctx = format!(
        "\n  command: {cmd}\n  {}\n--- stderr ---\n{stderr}",
        describe_status(&res)
    );
    assert!(
        res.status.code().is_some(),
        "rld was killed by a signal{ctx}"
    );
    assert!(!res.status.success(), "rld accepted bad input{ctx}");
    assert!(!stderr.contains("panicked"), "rld panicked{ctx}");
    for m in mentions {
        assert!(stderr.contains(m), "the error does not mention {m:?}{ctx}");
    }
    let leftovers: Vec<String> = std::fs::read_dir(t.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("fresh.out"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "a failed link left {leftovers:?} behind{ctx}"
    );

    let existing = t.write("existing.out", "precious contents\n");
    let (res2, cmd2) = t.try_link(Driver::Rld, inputs, flags, "existing.out");
    assert!(
        !res2.status.success(),
        "rld accepted bad input on the second run: {cmd2}"
    );
    match std::fs::read_to_string(&existing) {
        Ok(s) => assert_eq!(
            s, "precious contents\n",
            "a failed link changed the existing output file: {cmd2}"
        ),
        Err(e) => panic!("a failed link removed the existing output file ({e}): {cmd2}"),
    }

    // rld-specific: the exact shape of the message (skipped for a stand-in).
    if !is_standin() {
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert!(
            lines.len() <= 4,
            "rld-specific: the error should be one line-ish, got {} lines{ctx}",
            lines.len()
        );
        assert!(
            lines[0].starts_with("rld: "),
            "rld-specific: errors start with \"rld: \"{ctx}"
        );
        assert!(
            lines[0].contains("error"),
            "rld-specific: the first line says \"error\"{ctx}"
        );
    }
    stderr
}

const START: &str = "void _start(void) {}\n";

fn file_name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn rejects_truncated_object() {
    let t = Test::new();
    let obj = t.compile(Clang, "int f(void) { return 1; }\nint g = 2;\n", &[]);
    let bytes = std::fs::read(&obj).unwrap();
    let truncated = t.write("truncated.o", &bytes[..200.min(bytes.len() / 2)]);
    assert_rejected(&t, &[&truncated], &[], &["truncated.o"]);
}

#[test]
fn rejects_corrupt_archive() {
    let t = Test::new();
    let start = t.compile(Clang, START, &[]);
    let mut ar = b"!<arch>\n".to_vec();
    ar.extend_from_slice(b"member.o/       0           0     0     644     99999999  `\n");
    ar.extend_from_slice(b"\x7fELF this is not really an object");
    let corrupt = t.write("corrupt.a", ar);
    assert_rejected(&t, &[&start, &corrupt], &[], &["corrupt.a"]);
}

#[test]
fn rejects_missing_library() {
    let t = Test::new();
    let start = t.compile(Clang, START, &[]);
    assert_rejected(&t, &[&start], &["-lnosuchlib"], &["nosuchlib"]);
}

#[test]
fn rejects_undefined_symbol() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "int missing_function_xyz(void);\nvoid _start(void) { missing_function_xyz(); }\n",
        &[],
    );
    assert_rejected(
        &t,
        &[&obj],
        &[],
        &["missing_function_xyz", &file_name(&obj)],
    );
}

#[test]
fn rejects_unknown_option() {
    let t = Test::new();
    let start = t.compile(Clang, START, &[]);
    assert_rejected(
        &t,
        &[&start],
        &["--no-such-option-xyz"],
        &["--no-such-option-xyz"],
    );
}

#[test]
fn rejects_duplicate_definition() {
    let t = Test::new();
    let a = t.compile(
        Clang,
        "int duplicate_symbol_xyz(void) { return 1; }\nvoid _start(void) {}\n",
        &[],
    );
    let b = t.compile(Clang, "int duplicate_symbol_xyz(void) { return 2; }\n", &[]);
    assert_rejected(
        &t,
        &[&a, &b],
        &[],
        &["duplicate_symbol_xyz", &file_name(&a), &file_name(&b)],
    );
}
