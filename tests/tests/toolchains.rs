//! Bitcode of several toolchains in one program: clang-14 (LLVM 14, typed pointers,
//! upgraded on read), clang-19, clang-22 (`-flto=thin`, a module with a ThinLTO summary)
//! and rustc (`-Clinker-plugin-lto`, rustc's own LLVM 22). rld's LTO links them into one
//! program that behaves as lld-22's link of the same objects, with the calls between the
//! languages and versions inlined. Bitcode of an LLVM newer than rld's is refused with an
//! error naming the file and both versions.

use rld_tests::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Objects of `cases/toolchains/`, each by its own compiler.
fn objects(t: &Test) -> Vec<PathBuf> {
    let case = |name: &str| cases_dir().join("toolchains").join(name);
    let mut objs = Vec::new();
    for (cc, flags, src) in [
        ("clang-14", &["-flto"][..], "old_step.c"),
        ("clang-19", &["-flto"][..], "mid_step.c"),
        ("clang-22", &["-flto=thin"][..], "main.c"),
    ] {
        let obj = t.path(&format!("{src}.o"));
        run_checked(
            Command::new(cc)
                .arg("-O2")
                .args(flags)
                .arg("-c")
                .arg(case(src))
                .arg("-o")
                .arg(&obj),
        );
        objs.push(obj);
    }
    let rs = t.path("mix.o");
    run_checked(
        Command::new("rustc")
            .args(["--edition=2021", "--crate-type=lib", "--emit=obj", "-O"])
            .args(["-Clinker-plugin-lto", "-Cpanic=abort", "-o"])
            .arg(&rs)
            .arg(case("mix.rs")),
    );
    objs.push(rs);
    for obj in &objs {
        assert!(
            std::fs::read(obj).unwrap().starts_with(b"BC\xC0\xDE"),
            "{} is not LLVM bitcode",
            obj.display()
        );
    }
    objs
}

/// Links `objs` with `clang-22 -flto -O2` and the linker `ld` (`--ld-path`).
fn link(t: &Test, ld: &Path, objs: &[PathBuf], extra: &[&str], out: &str) -> PathBuf {
    let exe = t.path(out);
    run_checked(
        Command::new("clang-22")
            .args(["-flto", "-O2"])
            .arg(format!("--ld-path={}", ld.display()))
            .args(extra)
            .args(objs)
            .arg("-o")
            .arg(&exe),
    );
    exe
}

fn lld() -> PathBuf {
    PathBuf::from("/usr/bin/ld.lld-22")
}

/// The names `main` calls, from the disassembly of the output.
fn calls_in_main(exe: &Path) -> Vec<String> {
    let text = tool_stdout("objdump", &["-d", "--no-show-raw-insn"], exe);
    let body = text
        .split("\n\n")
        .find(|block| block.contains("<main>:"))
        .unwrap_or_else(|| panic!("no main in {}", exe.display()));
    body.lines()
        .filter(|l| l.contains("call"))
        .filter_map(|l| Some(l.split('<').nth(1)?.split(['>', '@']).next()?.to_string()))
        .collect()
}

#[test]
fn clang14_clang19_clang22_thin_and_rustc_bitcode_make_one_program() {
    let t = Test::new();
    let objs = objects(&t);
    let reference = link(&t, &lld(), &objs, &[], "lld");
    for (extra, out) in [
        (&[][..], "rld"),
        (&["-Wl,--lto-partitions=1"][..], "rld-p1"),
        (&["-Wl,--lto-partitions=4"][..], "rld-p4"),
        (&["-Wl,--no-wpa-aa", "-Wl,--no-cvp"][..], "rld-noanalyses"),
    ] {
        let exe = link(&t, &rld_path(), &objs, extra, out);
        assert_same_output(&exe, &reference, &["a", "b"], &[], None);
        if out != "rld-p4" {
            // One partition holds main and its callees: every step across the
            // toolchains is inlined (a cut may leave a call between partitions).
            let calls = calls_in_main(&exe);
            for callee in ["rs_mix", "mid_step", "old_step"] {
                assert!(
                    !calls.iter().any(|c| c == callee),
                    "{out}: main still calls {callee}: {calls:?}"
                );
            }
        }
    }
}

/// Bit `i` of a bitstream (bits are read from each byte's least significant end).
fn bit(bytes: &[u8], i: usize) -> u8 {
    (bytes[i / 8] >> (i % 8)) & 1
}

fn set_bit(bytes: &mut [u8], i: usize, v: u8) {
    bytes[i / 8] = (bytes[i / 8] & !(1 << (i % 8))) | (v << (i % 8));
}

/// LLVM's 6-bit character code (`a`-`z`, `A`-`Z`, `0`-`9`, `.`, `_`).
fn char6(c: u8) -> u8 {
    match c {
        b'a'..=b'z' => c - b'a',
        b'A'..=b'Z' => c - b'A' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'.' => 62,
        _ => 63,
    }
}

/// Rewrites the producer string `from` (as LLVM writes it, in 6-bit characters) to `to`,
/// of the same length, wherever in the stream it starts; returns whether it was found.
fn rewrite_producer(bytes: &mut [u8], from: &str, to: &str) -> bool {
    assert_eq!(from.len(), to.len());
    let want: Vec<u8> = from.bytes().map(char6).collect();
    let width = 6 * want.len();
    let found = (0..bytes.len() * 8 - width).find(|&start| {
        want.iter()
            .enumerate()
            .all(|(k, &c)| (0..6).all(|b| bit(bytes, start + 6 * k + b) == (c >> b) & 1))
    });
    let Some(start) = found else {
        return false;
    };
    for (k, c) in to.bytes().map(char6).enumerate() {
        for b in 0..6 {
            set_bit(bytes, start + 6 * k + b, (c >> b) & 1);
        }
    }
    true
}

#[test]
fn bitcode_of_a_newer_llvm_is_refused_naming_file_producer_and_version() {
    let t = Test::new();
    let src = t.write(
        "f.c",
        "int f(int x) { return x + 1; }\nint main(void) { return f(-1); }\n",
    );
    let obj = t.path("f.o");
    run_checked(
        Command::new("clang-22")
            .args(["-O2", "-flto", "-c"])
            .arg(&src)
            .arg("-o")
            .arg(&obj),
    );
    let version =
        String::from_utf8(run_checked(Command::new("llvm-config-22").arg("--version")).stdout)
            .unwrap();
    let producer = format!("LLVM{}", version.trim());
    let newer = format!("LLVM99{}", &producer[6..]);
    let mut bytes = std::fs::read(&obj).unwrap();
    assert!(
        rewrite_producer(&mut bytes, &producer, &newer),
        "no producer string {producer} in {}",
        obj.display()
    );
    let future = t.write("future.o", &bytes);
    // The same object with its own producer links: only the version differs.
    let ok = link(&t, &rld_path(), &[obj], &[], "today");
    assert!(run(&ok, &[], &[]).status.success());

    let mut cmd = Command::new("clang-22");
    cmd.args(["-flto", "-O2"])
        .arg(format!("--ld-path={}", rld_path().display()))
        .arg(&future)
        .arg("-o")
        .arg(t.path("future"));
    let out = output_with_timeout(&mut cmd, std::time::Duration::from_secs(60));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "linked bitcode of {newer}: {stderr}");
    for part in [
        future.display().to_string(),
        format!("'{newer}'"),
        format!("LLVM {}", version.trim()),
    ] {
        assert!(stderr.contains(&part), "no {part:?} in: {stderr}");
    }
    assert!(
        !t.path("future").exists(),
        "a refused link wrote its output"
    );
}

#[test]
fn every_lto_optimization_level_gives_the_program_lld_gives() {
    // One partition: none of the calls across toolchains is inlined at -O0, all of them
    // from -O2 on. (lld compiles main.c's ThinLTO module on its own, with ThinLTO's
    // pipeline, apart from the other three: it cannot inline them all, so its calls are
    // not the reference here; its output is.)
    let t = Test::new();
    let objs = objects(&t);
    for level in 0..=3 {
        let flag = format!("-Wl,--lto-O{level}");
        let reference = link(&t, &lld(), &objs, &[&flag], &format!("lld-O{level}"));
        let exe = link(
            &t,
            &rld_path(),
            &objs,
            &[&flag, "-Wl,--lto-partitions=1"],
            &format!("rld-O{level}"),
        );
        assert_same_output(&exe, &reference, &["x"], &[], None);
        if level != 1 {
            let calls = calls_in_main(&exe);
            assert_eq!(
                calls.iter().any(|c| c == "rs_mix"),
                level == 0,
                "--lto-O{level}: main's calls {calls:?}"
            );
        }
    }
}

/// A split LTO unit (`-fsplit-lto-unit`: a regular LTO module and a ThinLTO one in one
/// file, as whole-program devirtualization and CFI make it) is refused with the reason and
/// the way out; rld's reader takes one module per file and would lose the other. lld-22
/// links it.
#[test]
fn a_split_lto_unit_is_refused_with_the_way_out() {
    let t = Test::new();
    let src = t.write(
        "v.cpp",
        "struct A { virtual int f(); virtual ~A(); };\nint A::f() { return 1; }\nA::~A() {}\n\
         int call(A *a) { return a->f(); }\nint main() { A a; return call(&a) - 1; }\n",
    );
    let compile = |flags: &[&str], out: &str| {
        let obj = t.path(out);
        run_checked(
            Command::new("clang++-22")
                .args(["-O2", "-flto=thin", "-fwhole-program-vtables"])
                .args(flags)
                .arg("-c")
                .arg(&src)
                .arg("-o")
                .arg(&obj),
        );
        obj
    };
    let split = compile(&["-fsplit-lto-unit"], "split.o");
    let link_cxx = |obj: &Path, ld: &Path, out: &str| {
        let mut cmd = Command::new("clang++-22");
        cmd.args(["-flto=thin", "-O2", "-fwhole-program-vtables"])
            .arg(format!("--ld-path={}", ld.display()))
            .arg(obj)
            .arg("-o")
            .arg(t.path(out));
        output_with_timeout(&mut cmd, std::time::Duration::from_secs(60))
    };
    assert!(link_cxx(&split, &lld(), "lld").status.success());
    let out = link_cxx(&split, &rld_path(), "rld");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "rld linked a split LTO unit: {stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "{}: invalid LLVM bitcode: holds 2 modules",
            split.display()
        )) && stderr.contains("compile without -fsplit-lto-unit"),
        "{stderr}"
    );
    assert!(!t.path("rld").exists());
    // The same code in one module links and runs.
    let whole = compile(&["-fno-split-lto-unit"], "whole.o");
    let out = link_cxx(&whole, &rld_path(), "whole");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(run(&t.path("whole"), &[], &[]).status.success());
}
