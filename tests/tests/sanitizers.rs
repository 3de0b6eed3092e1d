//! Sanitizer runtimes (clang-22's compiler-rt, Debian's libclang-rt-14-dev)
//! linked by rld through `clang-22 --ld-path`: each program has one planted
//! bug (sources in `tests/cases/sanitizers/`); the rld-linked build must
//! report it like the lld-linked one: same kind of report, same function in
//! the first stack frame, same stdout and exit status.
//!
//! The sanitizer links pass `--whole-archive` runtimes and `--dynamic-list`.

use rld_tests::Compiler::Clang;
use rld_tests::*;
use std::path::Path;
use std::process::Output;

/// The function of the first stack frame (`#0`) after the first line
/// containing `header`: `#0 0x... in NAME file:line` (ASan, UBSan) or
/// `#0 NAME file:line (...)` (TSan).
fn first_frame_function(report: &str, header: &str) -> Option<String> {
    let start = report.find(header)?;
    let frame = report[start..]
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("#0 "))?;
    let mut words = frame.split_whitespace().skip(1).peekable();
    if words.peek().is_some_and(|w| w.starts_with("0x")) {
        words.next();
        if words.peek() == Some(&"in") {
            words.next();
        }
    }
    words
        .next()
        .map(|w| w.split('(').next().unwrap_or(w).to_string())
}

fn symbolizer_env() -> Vec<(&'static str, &'static str)> {
    let mut env = vec![
        // LeakSanitizer needs ptrace, which containers often refuse; the
        // tests are about the planted bug only.
        ("ASAN_OPTIONS", "detect_leaks=0"),
        ("UBSAN_OPTIONS", "print_stacktrace=1"),
    ];
    let symbolizer = "/usr/bin/llvm-symbolizer-22";
    if Path::new(symbolizer).exists() {
        env.extend([
            ("ASAN_SYMBOLIZER_PATH", symbolizer),
            ("UBSAN_SYMBOLIZER_PATH", symbolizer),
            ("TSAN_SYMBOLIZER_PATH", symbolizer),
        ]);
    }
    env
}

fn describe(exe: &Path, out: &Output) -> String {
    format!(
        "{} ({})\n--- stdout ---\n{}\n--- stderr ---\n{}",
        exe.display(),
        describe_status(out),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Builds `source` with `-fsanitize=<sanitizer>`, links it with lld and with
/// rld, runs both and compares the reports: both must contain `header` and
/// name `function` in their first stack frame.
fn check_sanitizer(sanitizer: &str, source: &str, header: &str, function: &str, stdout: &str) {
    let t = Test::new();
    let fsan = format!("-fsanitize={sanitizer}");
    let obj = t.compile(
        Clang,
        &format!("sanitizers/{source}"),
        &[
            "-g",
            "-O1",
            &fsan,
            "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer",
        ],
    );
    let flags = [fsan.as_str()];
    let lld = t.link(Driver::ClangLld, &[&obj], &flags, "clang-lld.out");
    let rld = t.link(Driver::ClangRld, &[&obj], &flags, "clang-rld.out");
    let env = symbolizer_env();
    let want = run(&lld, &[], &env);
    let got = run(&rld, &[], &env);
    for (exe, out) in [(&lld, &want), (&rld, &got)] {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "no failure exit: {}",
            describe(exe, out)
        );
        assert!(
            stderr.contains(header),
            "no {header:?} report: {}",
            describe(exe, out)
        );
        assert!(
            stderr.contains(function),
            "the report does not name {function}: {}",
            describe(exe, out)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            stdout,
            "stdout of {}",
            describe(exe, out)
        );
    }
    let want_fn = first_frame_function(&String::from_utf8_lossy(&want.stderr), header);
    assert_eq!(
        want_fn.as_deref(),
        Some(function),
        "lld build's first frame: {}",
        describe(&lld, &want)
    );
    let got_fn = first_frame_function(&String::from_utf8_lossy(&got.stderr), header);
    assert_eq!(
        got_fn,
        want_fn,
        "first stack frame differs from the lld build's\n  rld: {}\n  lld: {}",
        describe(&rld, &got),
        describe(&lld, &want)
    );
    assert_eq!(
        got.status.code(),
        want.status.code(),
        "exit status differs\n  rld: {}\n  lld: {}",
        describe(&rld, &got),
        describe(&lld, &want)
    );
}

#[test]
fn asan_reports_heap_buffer_overflow() {
    check_sanitizer(
        "address",
        "asan_heap_overflow.c",
        "ERROR: AddressSanitizer: heap-buffer-overflow",
        "read_past_end",
        "before the overflow\n",
    );
}

#[test]
fn ubsan_reports_signed_overflow() {
    check_sanitizer(
        "undefined",
        "ubsan_signed_overflow.c",
        "runtime error: signed integer overflow",
        "add_checked",
        "1 + 2 = 3\n",
    );
}

#[test]
fn tsan_reports_data_race() {
    check_sanitizer(
        "thread",
        "tsan_data_race.c",
        "WARNING: ThreadSanitizer: data race",
        "racy_increment",
        "threads joined\n",
    );
}
