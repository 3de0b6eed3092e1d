//! `--reproduce FILE`: the tar it writes replays the link on its own. Each test links a
//! program through clang (crt files, `libc.so`'s GNU ld script, an archive, a version
//! script), unpacks the tar elsewhere, deletes the test's own inputs, replays the link with
//! `rld @response.txt` inside the unpacked directory and requires the very same bytes.

use rld_tests::Compiler::Clang;
use rld_tests::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const MAIN: &str = "#include <stdio.h>\n#include <math.h>\nint twice(int);\nint thrice(int);\n\
    int main(int argc, char **argv) { (void)argv;\n\
    printf(\"%d %d %.1f\\n\", twice(argc + 1), thrice(argc), sqrt(16.0 * argc)); return 0; }\n";
const TWICE: &str = "int twice(int x) { return 2 * x; }\n";
const THRICE: &str = "int thrice(int x) { return 3 * x; }\n";
const EXPECTED: &str = "4 3 4.0\n";

/// The program's objects: main, and an archive of the two helpers.
fn inputs(t: &Test, flags: &[&str]) -> (PathBuf, PathBuf) {
    let main = t.compile(Clang, MAIN, flags);
    let twice = t.compile(Clang, TWICE, flags);
    let thrice = t.compile(Clang, THRICE, flags);
    let lib = t.archive("libhelpers.a", &[&twice, &thrice]);
    for obj in [&twice, &thrice] {
        std::fs::remove_file(obj).unwrap();
    }
    (main, lib)
}

/// The names in the tar, as `tar tf` lists them.
fn listing(tar: &Path) -> Vec<String> {
    let out = run_checked(Command::new("tar").arg("tf").arg(tar));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// Unpacks `tar` into `into` and replays the link there; returns the replayed output.
fn replay(tar: &Path, into: &Path, output: &str) -> PathBuf {
    std::fs::create_dir_all(into).unwrap();
    run_checked(Command::new("tar").arg("xf").arg(tar).arg("-C").arg(into));
    let top = into.join("repro");
    let out = output_with_timeout(
        Command::new(rld_path())
            .arg("@response.txt")
            .current_dir(&top),
        std::time::Duration::from_secs(300),
    );
    assert!(
        out.status.success(),
        "the replay failed ({}): {}\nresponse.txt:\n{}",
        describe_status(&out),
        String::from_utf8_lossy(&out.stderr),
        std::fs::read_to_string(top.join("response.txt")).unwrap_or_default()
    );
    top.join(output)
}

/// Links with `--reproduce`, checks the archive's contents, removes the inputs and replays.
fn reproduce(t: &Test, objs: &[&Path], flags: &[&str]) {
    let tar = t.path("repro.tar");
    let repro = format!("-Wl,--reproduce={}", tar.display());
    let mut all = vec!["-Wl,--build-id", "-lm", repro.as_str()];
    all.extend(flags);
    let exe = t.link(Driver::ClangRld, objs, &all, "out/prog");
    assert_same_output(&exe, &exe, &[], &[], Some(EXPECTED));
    let names = listing(&tar);
    for want in ["repro/response.txt", "repro/version.txt"] {
        assert!(names.iter().any(|n| n == want), "{want} missing: {names:?}");
    }
    // The inputs at their absolute paths, those the library search and libc.so found too.
    for obj in objs {
        let inside = format!("repro{}", obj.display());
        assert!(names.contains(&inside), "{inside} missing: {names:?}");
    }
    for file in ["crti.o", "libc.so", "libc.so.6", "libm.so"] {
        assert!(
            names.iter().any(|n| n.ends_with(&format!("/{file}"))),
            "{file} missing: {names:?}"
        );
    }
    let original = std::fs::read(&exe).unwrap();
    for obj in objs {
        std::fs::remove_file(obj).unwrap();
    }
    let replayed = replay(&tar, &t.path("unpacked"), "prog");
    assert!(
        std::fs::read(&replayed).unwrap() == original,
        "the replay's output differs from the link's: {} and {}",
        replayed.display(),
        exe.display()
    );
    assert!(build_id(&replayed).is_some(), "no build id");
}

#[test]
fn replays_a_native_link() {
    let t = Test::new();
    let (main, lib) = inputs(&t, &["-O2"]);
    let script = t.write("exports.map", "{ global: main; local: *; };\n");
    let version = format!("-Wl,--version-script={}", script.display());
    reproduce(&t, &[&main, &lib], &[&version, "-Wl,--gc-sections"]);
}

#[test]
fn replays_an_lto_link() {
    if is_standin() {
        eprintln!("skipped: --reproduce of an LTO link needs rld's LTO");
        return;
    }
    let t = Test::new();
    let (main, lib) = inputs(&t, &["-O2", "-flto"]);
    assert!(std::fs::read(&main).unwrap().starts_with(b"BC\xC0\xDE"));
    let flags = lto_flags(None, &["-Wl,--lto-partitions=2"]);
    reproduce(&t, &[&main, &lib], &strs(&flags));
}

/// A link that fails (an undefined symbol) still leaves the archive, which replays the
/// same failure.
#[test]
fn a_failed_link_leaves_its_archive() {
    let t = Test::new();
    let main = t.compile(Clang, MAIN, &["-O2"]);
    let tar = t.path("repro.tar");
    let repro = format!("-Wl,--reproduce={}", tar.display());
    let (out, cmd) = t.try_link(Driver::ClangRld, &[&main], &["-lm", &repro], "prog");
    assert!(!out.status.success(), "{cmd} succeeded");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("undefined symbol: twice"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names = listing(&tar);
    assert!(
        names.contains(&format!("repro{}", main.display())),
        "{names:?}"
    );
    let into = t.path("unpacked");
    std::fs::create_dir_all(&into).unwrap();
    run_checked(Command::new("tar").arg("xf").arg(&tar).arg("-C").arg(&into));
    let replay = Command::new(rld_path())
        .arg("@response.txt")
        .current_dir(into.join("repro"))
        .output()
        .unwrap();
    assert!(!replay.status.success());
    assert!(
        String::from_utf8_lossy(&replay.stderr).contains("undefined symbol: twice"),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
}
