//! Rust and C as one program: `cases/rust_c/`, a cargo project whose build script compiles
//! C with the `cc` crate (`clang-22 -flto`), built with
//! `RUSTFLAGS="-Clinker-plugin-lto -Clinker=clang-22 -Clink-arg=--ld-path=<rld>"` (and
//! with `-fuse-ld=rld`). The link sees an rlib with bitcode members and `lib.rmeta`, a C
//! archive of bitcode, rustc's `-plugin-opt=` options, its version script and
//! `--gc-sections`. The program must behave like lld-22's link of the same objects, the C
//! function must be inlined into Rust and the Rust one into C, and called-value
//! propagation must resolve a Rust call through a table of C functions and a C call
//! through a table of Rust callbacks.

use rld_tests::llvm_remarks::remarks;
use rld_tests::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Copies the project to `dst` (its build goes to a target directory of the test's own).
fn copy_project(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let to = dst.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_project(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
}

/// Builds the project with `link_args` (each one `-Clink-arg=`) into `target`; returns
/// the program.
fn cargo_build(project: &Path, target: &Path, link_args: &[String]) -> PathBuf {
    let mut rustflags = vec![
        "-Clinker-plugin-lto".to_string(),
        "-Clinker=clang-22".to_string(),
    ];
    rustflags.extend(link_args.iter().map(|a| format!("-Clink-arg={a}")));
    let mut cmd = Command::new("cargo");
    cmd.args(["build", "--release", "--quiet"])
        .current_dir(project)
        .env("CC", "clang-22")
        .env("AR", "llvm-ar-22")
        .env("RUSTFLAGS", rustflags.join(" "))
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    let out = output_with_timeout(&mut cmd, std::time::Duration::from_secs(600));
    assert!(
        out.status.success(),
        "cargo build failed: {}\n{}",
        command_line(&cmd),
        String::from_utf8_lossy(&out.stderr)
    );
    target.join("release/rust_c")
}

/// The disassembly of the function whose symbol is `name` or, for a Rust path, whose
/// mangled name contains it (`6report`).
fn function_body(exe: &Path, name: &str) -> String {
    let text = tool_stdout("objdump", &["-d", "--no-show-raw-insn"], exe);
    text.split("\n\n")
        .find(|block| {
            let Some(header) = block.lines().find(|l| l.ends_with(">:")) else {
                return false;
            };
            header.contains(&format!("<{name}>:"))
                || (header.contains("_ZN6rust_c") && header.contains(name))
        })
        .unwrap_or_else(|| panic!("no function {name} in {}", exe.display()))
        .to_string()
}

fn calls(body: &str) -> Vec<&str> {
    body.lines().filter(|l| l.contains("call")).collect()
}

#[test]
fn rust_and_c_built_by_cargo_are_optimized_as_one_program() {
    let t = Test::new();
    let project = t.path("rust_c");
    copy_project(&cases_dir().join("rust_c"), &project);
    let yaml = t.path("remarks.yaml");
    let rld = cargo_build(
        &project,
        &t.path("target-rld"),
        &[
            format!("--ld-path={}", rld_path().display()),
            format!("-Wl,--opt-remarks-filename={}", yaml.display()),
            "-Wl,--opt-remarks-passes=cvp".into(),
        ],
    );
    let lld = cargo_build(&project, &t.path("target-lld"), &["-fuse-ld=lld".into()]);
    let expected = "c_add 42\nops -98\ncallback 49\nsquare_plus 101\n";
    assert_same_output(&rld, &lld, &[], &[], Some(expected));

    // C inlined into Rust, Rust into C.
    let report = function_body(&rld, "6report");
    assert!(
        !calls(&report).iter().any(|l| l.contains("<c_add>")),
        "c_add is not inlined into rust_c::report:\n{report}"
    );
    let square_plus = function_body(&rld, "c_square_plus");
    assert!(
        calls(&square_plus).is_empty(),
        "rs_square is not inlined into c_square_plus:\n{square_plus}"
    );

    // Called values across the language boundary, in LLVM's remark format.
    let remarks = remarks(&yaml);
    let find = |function: &dyn Fn(&str) -> bool| {
        remarks
            .iter()
            .find(|r| r.pass == "cvp" && r.kind == "Passed" && function(&r.function))
            .unwrap_or_else(|| panic!("no cvp remark in {}: {remarks:#?}", yaml.display()))
    };
    let from_rust = find(&|f| f.starts_with("_ZN6rust_c7run_ops"));
    assert_eq!(
        from_rust.callees(),
        BTreeSet::from(["c_sub", "c_mul", "c_xor"].map(String::from)),
        "{from_rust:#?}"
    );
    let from_c = find(&|f| f == "c_apply_callback");
    assert_eq!(
        from_c.callees(),
        BTreeSet::from(["rs_square", "rs_negate"].map(String::from)),
        "{from_c:#?}"
    );
    assert_eq!(from_c.name, "promoted", "{from_c:#?}");

    // `rld remarks` names the Rust caller by its path, the C one as it is.
    let summary = run_checked(
        Command::new(rld_path())
            .args(["remarks", "summary", "--top", "50"])
            .arg(&yaml),
    );
    let summary = String::from_utf8_lossy(&summary.stdout);
    assert!(
        summary.contains("rust_c::run_ops") && !summary.contains("_ZN6rust_c7run_ops"),
        "{summary}"
    );
    assert!(summary.contains("c_apply_callback"), "{summary}");
}

#[test]
fn fuse_ld_rld_builds_the_same_program() {
    let t = Test::new();
    let project = t.path("rust_c");
    copy_project(&cases_dir().join("rust_c"), &project);
    // clang's -fuse-ld=rld runs `ld.rld` from its program path (-B).
    let bin = t.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(rld_path(), bin.join("ld.rld")).unwrap();
    let exe = cargo_build(
        &project,
        &t.path("target"),
        &["-fuse-ld=rld".into(), format!("-B{}", bin.display())],
    );
    let out = run(&exe, &[], &[]);
    assert_output_is(
        &exe,
        &out,
        "c_add 42\nops -98\ncallback 49\nsquare_plus 101\n",
        "the -fuse-ld=rld build",
    );
    let square_plus = function_body(&exe, "c_square_plus");
    assert!(calls(&square_plus).is_empty(), "{square_plus}");
}
