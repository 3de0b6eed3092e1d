//! Compiles the C++ shim in `llvm-wrapper/` (see `src/shim.rs`) against LLVM 22's headers,
//! with the compiler flags LLVM was built with (`llvm-config --cxxflags`), as rustc builds its
//! own `rustc_llvm` wrapper. Its LLVM symbols come from the libLLVM that `llvm-sys` links.
//!
//! llvm-config is found as llvm-sys finds it: in `$LLVM_SYS_221_PREFIX/bin` if that is set,
//! else on `PATH`, the first of the usual names that reports version 22.

use std::path::PathBuf;
use std::process::Command;

const PREFIX_VAR: &str = "LLVM_SYS_221_PREFIX";
const NAMES: [&str; 4] = [
    "llvm-config-22",
    "llvm-config",
    "llvm-config22",
    "llvm22-config",
];
const SOURCES: [&str; 1] = ["llvm-wrapper/RldWrapper.cpp"];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed={PREFIX_VAR}");
    for source in SOURCES {
        println!("cargo:rerun-if-changed={source}");
    }

    let llvm_config = find_llvm_config();
    // Cached summaries are LLVM's reading of the bitcode: their key names the LLVM.
    println!(
        "cargo:rustc-env=RLD_LLVM_VERSION={}",
        run(&llvm_config, "--version").trim()
    );
    let cxxflags = run(&llvm_config, "--cxxflags");
    let mut build = cc::Build::new();
    build.cpp(true).warnings(true).extra_warnings(true);
    for flag in cxxflags.split_whitespace() {
        // LLVM's headers are not ours to fix: include them as system headers, so the
        // warnings reported are this crate's own.
        match flag.strip_prefix("-I") {
            Some(dir) => build.flag("-isystem").flag(dir),
            None => build.flag(flag),
        };
    }
    // A release LLVM: compile its inline header code the same way (rustc does the same
    // with LLVM_NDEBUG).
    if run(&llvm_config, "--assertion-mode") == "OFF" {
        build.define("NDEBUG", None);
    }
    for source in SOURCES {
        build.file(source);
    }
    build.compile("rld_llvm_wrapper");
}

fn find_llvm_config() -> PathBuf {
    let dir = std::env::var_os(PREFIX_VAR).map(|p| PathBuf::from(p).join("bin"));
    for name in NAMES {
        let candidate = match &dir {
            Some(dir) => dir.join(name),
            None => PathBuf::from(name),
        };
        let Ok(out) = Command::new(&candidate).arg("--version").output() else {
            continue;
        };
        if out.status.success() && String::from_utf8_lossy(&out.stdout).starts_with("22.") {
            return candidate;
        }
    }
    panic!(
        "rld-lto: no llvm-config for LLVM 22 found (tried {} in {}); install llvm-22-dev or \
         set {PREFIX_VAR}",
        NAMES.join(", "),
        dir.map_or("PATH".to_string(), |d| d.display().to_string()),
    );
}

fn run(llvm_config: &PathBuf, arg: &str) -> String {
    let out = Command::new(llvm_config)
        .arg(arg)
        .output()
        .unwrap_or_else(|e| panic!("rld-lto: running {} {arg}: {e}", llvm_config.display()));
    if !out.status.success() {
        panic!(
            "rld-lto: {} {arg} failed: {}",
            llvm_config.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}
