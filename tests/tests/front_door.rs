//! `rld` typed by a person: `rld a.o b.o -o main` and `rld -flto a.o b.o -o main` link a
//! program that runs like `clang-22 [-flto] a.o b.o -o main` (crt files, libc, libgcc, the
//! dynamic linker, PIE, and libstdc++ with libm for C++), while under the GNU ld names and
//! behind a compiler driver nothing is added (GNU ld's behaviour).

use rld_tests::Compiler::Clang;
use rld_tests::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const C_MAIN: &str = "#include <stdio.h>\nint twice(int);\nint main(int argc, char **argv) { (void)argv; printf(\"twice %d\\n\", twice(argc)); return 0; }\n";
const C_LIB: &str = "int twice(int x) { return 2 * x; }\n";
const CXX_MAIN: &str = "#include <cstdio>\n#include <stdexcept>\n#include <vector>\nint thrower(int);\nint main(int argc, char **) { std::vector<int> v(argc, 7); try { return thrower(v[0]); } catch (const std::exception &e) { std::printf(\"caught %s\\n\", e.what()); } return 0; }\n";
const CXX_LIB: &str = "#include <stdexcept>\n#include <string>\nint thrower(int x) { if (x == 7) throw std::runtime_error(std::string(\"seven\")); return x; }\n";

/// `rld ARGS... -o out` run directly, in the test directory.
fn rld(t: &Test, args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(rld_path());
    cmd.args(args).current_dir(t.dir());
    cmd.output().unwrap()
}

/// The two objects of a program, compiled with `flags`.
fn program(t: &Test, cxx: bool, flags: &[&str]) -> Vec<PathBuf> {
    let (main, lib) = if cxx {
        (CXX_MAIN, CXX_LIB)
    } else {
        (C_MAIN, C_LIB)
    };
    if cxx {
        vec![
            t.compile_cxx(Clang, main, flags),
            t.compile_cxx(Clang, lib, flags),
        ]
    } else {
        vec![t.compile(Clang, main, flags), t.compile(Clang, lib, flags)]
    }
}

fn names(objs: &[PathBuf]) -> Vec<String> {
    objs.iter()
        .map(|o| o.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

fn needed(exe: &Path) -> Vec<String> {
    dyn_values(&dynamic(exe), "NEEDED")
}

#[test]
fn rld_alone_links_programs_like_clang() {
    let t = Test::new();
    for cxx in [false, true] {
        for lto in [false, true] {
            let flags: &[&str] = if lto { &["-flto", "-O2"] } else { &["-O2"] };
            let objs = program(&t, cxx, flags);
            let tag = format!(
                "{}{}",
                if cxx { "cxx" } else { "c" },
                if lto { "-lto" } else { "" }
            );
            // The reference: clang-22 with lld, objects only (clang, not clang++: the C++
            // runtime must be found from the objects, as rld does).
            let reference = t.path(&format!("clang-{tag}"));
            let mut clang = Command::new(if cxx { "clang++-22" } else { "clang-22" });
            clang
                .arg("-fuse-ld=lld")
                .args(flags)
                .args(&objs)
                .arg("-o")
                .arg(&reference);
            run_checked(&mut clang);
            let out = format!("rld-{tag}");
            let mut args: Vec<String> = if lto { vec!["-flto".into()] } else { vec![] };
            args.extend(names(&objs));
            args.extend(["-o".into(), out.clone()]);
            let res = rld(&t, &strs(&args));
            assert!(
                res.status.success(),
                "{tag}: {}",
                String::from_utf8_lossy(&res.stderr)
            );
            let exe = t.path(&out);
            assert_same_output(&exe, &reference, &[], &[], None);
            assert_eq!(
                elf_type(&exe),
                elf_type(&reference),
                "{tag}: PIE like clang's"
            );
            let (mut ours, mut theirs) = (needed(&exe), needed(&reference));
            ours.sort();
            theirs.sort();
            assert_eq!(ours, theirs, "{tag}");
        }
    }
}

#[test]
fn print_driver_shows_what_rld_adds() {
    let t = Test::new();
    let objs = program(&t, false, &["-O2"]);
    let objs = names(&objs);
    let mut args = strs(&objs);
    args.extend(["-o", "main", "--print-driver"]);
    let line = String::from_utf8_lossy(&rld(&t, &args).stdout).into_owned();
    for part in [
        "-pie",
        "Scrt1.o",
        "crti.o",
        "crtbeginS.o",
        "-lc",
        "-lgcc",
        "crtendS.o",
        "crtn.o",
        "-dynamic-linker /lib64/ld-linux-x86-64.so.2",
    ] {
        assert!(line.contains(part), "{part} missing: {line}");
    }
    assert!(!line.contains("-lstdc++"), "{line}");
    assert!(!t.path("main").exists(), "--print-driver links nothing");
    // -static: the static start files and libraries, no dynamic linker.
    args.push("-static");
    let line = String::from_utf8_lossy(&rld(&t, &args).stdout).into_owned();
    for part in ["/crt1.o", "crtbeginT.o", "-lgcc_eh", "--start-group"] {
        assert!(line.contains(part), "{part} missing: {line}");
    }
    assert!(
        !line.contains("-dynamic-linker") && !line.contains("-pie"),
        "{line}"
    );
    // A driver's command line (start files, emulation) is linked as it is.
    let driver = [
        "/lib/x86_64-linux-gnu/crt1.o",
        "-m",
        "elf_x86_64",
        &objs[0],
        "-o",
        "x",
        "--print-driver",
    ];
    let line = String::from_utf8_lossy(&rld(&t, &driver).stdout).into_owned();
    assert!(!line.contains("crti.o") && !line.contains("-lc"), "{line}");
    // Nor is a program that brings its own `_start`.
    let own = t.compile(Clang, "void _start(void) { for (;;) {} }\n", &["-O2"]);
    let own = own.file_name().unwrap().to_str().unwrap().to_owned();
    let line =
        String::from_utf8_lossy(&rld(&t, &[&own, "-o", "x", "--print-driver"]).stdout).into_owned();
    assert!(!line.contains("crti.o") && !line.contains("-lc"), "{line}");
}

#[test]
fn under_gnu_ld_names_nothing_is_added() {
    // GNU ld links what it is given: without libc, `puts` is undefined. So is it for rld
    // called `ld.rld` or `ld`.
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "#include <stdio.h>\nint main(void) { puts(\"x\"); return 0; }\n",
        &["-O2"],
    );
    let name = obj.file_name().unwrap().to_str().unwrap().to_owned();
    let gnu = Command::new("ld")
        .args([&name, "-o", "gnu.out"])
        .current_dir(t.dir())
        .output()
        .unwrap();
    assert!(!gnu.status.success());
    for alias in ["ld.rld", "ld"] {
        let dir = t.path(&format!("bin-{alias}"));
        std::fs::create_dir_all(&dir).unwrap();
        let link = dir.join(alias);
        std::os::unix::fs::symlink(rld_path(), &link).unwrap();
        let res = Command::new(&link)
            .args([&name, "-o", "out"])
            .current_dir(t.dir())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&res.stderr);
        assert!(
            !res.status.success() && stderr.contains("puts"),
            "{alias}: {stderr}"
        );
    }
}

/// What rld prints on standard output (`--help`, `--print-driver`, `--version`) may go to a
/// reader that stops early (`rld --help | head -1`): rld ends quietly and successfully, not
/// with an internal error.
/// libtool's tests of the linker (libtool.m4, as `configure` scripts run them with
/// `LD=rld`): a GNU-compatible linker, one that builds shared libraries (its `--help` names
/// an ELF target), and one recent enough for anonymous version scripts (its `-v` is no
/// GNU ld before 2.11). rld failed the second (libraries came out static only) and the
/// third (`-export-symbols-regex` was ignored: jq's libjq exported 272 symbols, not 172).
#[test]
fn libtool_takes_rld_for_a_gnu_ld_with_shared_libraries_and_version_scripts() {
    let script = r#"
case `"$LD" -v 2>&1 </dev/null` in
*GNU* | *'with BFD'*) echo gnu_ld=yes ;;
*) echo gnu_ld=no ;;
esac
if "$LD" --help 2>&1 | grep ': supported targets:.* elf' > /dev/null; then
  echo shared=yes
else
  echo shared=no
fi
case `"$LD" -v 2>&1 | sed -e 's/([^)]\+)\s\+//'` in
  *GNU\ gold*) echo anon=yes ;;
  *\ [01].* | *\ 2.[0-9].* | *\ 2.10.*) echo anon=no ;;
  *\ 2.11.93.0.2\ *) echo anon=yes ;;
  *\ 2.11.92.0.12\ *) echo anon=yes ;;
  *\ 2.11.*) echo anon=no ;;
  *) echo anon=yes ;;
esac
"#;
    let out = run_checked(
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .env("LD", rld_path()),
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "gnu_ld=yes\nshared=yes\nanon=yes\n"
    );
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    for args in [&["--help"][..], &["--print-driver", "a.o"], &["--version"]] {
        let mut child = Command::new(rld_path())
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes before rld writes anything.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {:?} {stderr}", out.status);
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}
