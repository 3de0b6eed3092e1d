//! rld as a plugin host, against a plugin made for the test (`cases/plugin_host/
//! fake_plugin.c`, built with binutils' `plugin-api.h`): it claims objects with a
//! `.gnu.lto_.fake` section, reads them through the descriptor and `get_view`, reports a
//! definition and a reference, writes the resolutions it gets, and at all-symbols-read adds
//! an object, a library directory and a library. Each run is compared with GNU ld hosting
//! the same plugin: the same resolutions, the same program, the same errors. gcc's own
//! plugin is exercised by `gcc_lto.rs`.

use rld_tests::Compiler::Gcc;
use rld_tests::*;
use std::path::{Path, PathBuf};
use std::process::Command;

struct Setup {
    plugin: PathBuf,
    main: PathBuf,
    ir: PathBuf,
    compiled: PathBuf,
    lib_dir: PathBuf,
}

fn setup(t: &Test) -> Setup {
    let plugin = t.path("fake_plugin.so");
    run_checked(
        Command::new("gcc")
            .args(["-shared", "-fPIC", "-O2", "-o"])
            .arg(&plugin)
            .arg(cases_dir().join("plugin_host/fake_plugin.c")),
    );
    let main = t.compile(Gcc, "plugin_host/main.c", &["-O2"]);
    let stub = t.compile(Gcc, "plugin_host/ir_stub.c", &["-O2"]);
    let section = t.write("fake-section.txt", "fake IR\n");
    let ir = t.path("ir.o");
    run_checked(
        Command::new("objcopy")
            .arg(format!(
                "--add-section=.gnu.lto_.fake={}",
                section.display()
            ))
            .arg(&stub)
            .arg(&ir),
    );
    let compiled = t.compile(Gcc, "plugin_host/compiled.c", &["-O2"]);
    let helper = t.compile(Gcc, "plugin_host/helper.c", &["-O2"]);
    let lib_dir = t.path("libdir");
    std::fs::create_dir_all(&lib_dir).unwrap();
    let archive = t.archive("libfakehelper.a", &[&helper]);
    std::fs::rename(&archive, lib_dir.join("libfakehelper.a")).unwrap();
    Setup {
        plugin,
        main,
        ir,
        compiled,
        lib_dir,
    }
}

/// The plugin and its options, through the compiler driver; the resolutions go to `res`.
fn plugin_flags(s: &Setup, res: &Path, extra: &[&str]) -> Vec<String> {
    let mut flags = vec![
        format!("-Wl,-plugin,{}", s.plugin.display()),
        format!("-Wl,-plugin-opt=res={}", res.display()),
        format!("-Wl,-plugin-opt=obj={}", s.compiled.display()),
        format!("-Wl,-plugin-opt=libdir={}", s.lib_dir.display()),
    ];
    flags.extend(extra.iter().map(|e| format!("-Wl,-plugin-opt={e}")));
    flags
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_plugins_objects_and_libraries_replace_what_it_claimed() {
    let t = Test::new();
    let s = setup(&t);
    let mut res = Vec::new();
    let mut exes = Vec::new();
    for driver in [Driver::GccLd, Driver::GccRld] {
        let r = t.path(&format!("{}.res", driver.name()));
        let flags = plugin_flags(&s, &r, &[]);
        let exe = t.link(driver, &[&s.main, &s.ir], &strs(&flags), driver.name());
        assert_output_is(
            &exe,
            &run(&exe, &[], &[]),
            "fake_fn(2) = 30\n",
            driver.name(),
        );
        res.push(read(&r));
        exes.push(exe);
    }
    // main.o (a regular object) calls fake_fn: PREVAILING_DEF (2); helper_from_lib is not
    // defined before the plugin adds its library: UNDEF (1); then the cleanup hook ran.
    assert_eq!(res[0], "fake_fn 2\nhelper_from_lib 1\ncleanup\n", "GNU ld");
    assert_eq!(
        res[1], res[0],
        "rld gave the plugin other resolutions than GNU ld"
    );
}

#[test]
fn a_plugin_error_fails_the_link_with_its_message() {
    let t = Test::new();
    let s = setup(&t);
    for (mode, message) in [
        ("fail=error", "all-symbols-read failed on purpose"),
        ("fail=fatal", "fatal on purpose"),
    ] {
        let r = t.path("fail.res");
        let flags = plugin_flags(&s, &r, &[mode]);
        let (out, cmd) = t.try_link(Driver::GccRld, &[&s.main, &s.ir], &strs(&flags), "failed");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let ctx = format!("{mode}\n  command: {cmd}\n{stderr}");
        assert_eq!(out.status.code(), Some(1), "{ctx}");
        assert!(
            stderr.contains(message) && !stderr.contains("panicked"),
            "{ctx}"
        );
        assert!(
            !t.path("failed").exists(),
            "a failed link left its output\n{ctx}"
        );
        // The cleanup hook runs on failure too (gcc's removes its temporary files there).
        assert!(read(&r).ends_with("cleanup\n"), "{ctx}");
    }
}

#[test]
fn a_plugin_is_loaded_only_when_a_file_could_be_its() {
    let t = Test::new();
    let s = setup(&t);
    let r = t.path("unused.res");
    let flags = plugin_flags(&s, &r, &[]);
    // main.o alone never reaches the plugin: fake_fn stays undefined, and the plugin's
    // hooks never run (no resolution file, not even from cleanup).
    let (out, _) = t.try_link(Driver::GccRld, &[&s.main], &strs(&flags), "unused");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("fake_fn"));
    assert!(!r.exists(), "the plugin ran without a file to claim");
    // A plugin that does not exist is an error at once.
    let missing = ["-Wl,-plugin,/nonexistent/plugin.so".to_string()];
    let (out, _) = t.try_link(Driver::GccRld, &[&s.main], &strs(&missing), "missing");
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("cannot load plugin /nonexistent/plugin.so: no such file"));
}

/// rld tunes glibc's allocator in its own process (`mallopt`, no restart): what it runs
/// (here, a plugin in its process) sees the caller's environment unchanged, the caller's
/// tunables win over rld's, and everything printed before the link is printed once.
#[test]
fn malloc_is_tuned_in_process_and_the_callers_environment_kept() {
    if is_standin() {
        eprintln!("skipped: the tuning is rld's own");
        return;
    }
    let t = Test::new();
    let s = setup(&t);
    let asm = t.write(
        "data.s",
        ".data\n.globl big\nbig:\n.fill 4096, 1, 1\n.text\n.globl _start\n_start:\nret\n",
    );
    let data = t.path("data.o");
    run_checked(Command::new("as").arg(&asm).arg("-o").arg(&data));
    let link = |name: &str, caller: Option<&str>| {
        let env_file = t.path(&format!("{name}.env"));
        let mut cmd = Command::new(rld_path());
        cmd.arg(&data)
            .arg(&s.ir)
            .arg(format!("-plugin={}", s.plugin.display()))
            .arg(format!("-plugin-opt=res={}", t.path("res").display()))
            .arg(format!("-plugin-opt=obj={}", s.compiled.display()))
            .arg(format!("-plugin-opt=libdir={}", s.lib_dir.display()))
            .arg(format!("-plugin-opt=env={}", env_file.display()))
            .args(["-e", "_start", "--time", "-v", "--color-diagnostics", "-o"])
            .arg(t.path(name))
            .env_remove("GLIBC_TUNABLES");
        if let Some(value) = caller {
            cmd.env("GLIBC_TUNABLES", value);
        }
        let res = run_checked(&mut cmd);
        let stderr = String::from_utf8_lossy(&res.stderr).into_owned();
        let stdout = String::from_utf8_lossy(&res.stdout);
        assert_eq!(
            stdout.matches("(compatible with GNU linkers)").count(),
            1,
            "{stdout}"
        );
        assert_eq!(
            stderr.matches("--color-diagnostics is ignored").count(),
            1,
            "{stderr}"
        );
        (stderr, read(&env_file))
    };
    let (stderr, env) = link("plain", None);
    assert!(
        stderr.contains(
            "rld: malloc tuned: glibc.malloc.top_pad=16777216:glibc.malloc.mmap_threshold=33554432\n"
        ),
        "{stderr}"
    );
    assert_eq!(
        env,
        "GLIBC_TUNABLES=(unset)\nRLD_RESTARTED_WITH_TUNABLES=(unset)\n"
    );
    let (stderr, env) = link("callers", Some("glibc.malloc.top_pad=65536"));
    assert!(
        stderr.contains("rld: malloc tuned: glibc.malloc.mmap_threshold=33554432\n"),
        "{stderr}"
    );
    assert_eq!(
        env,
        "GLIBC_TUNABLES=glibc.malloc.top_pad=65536\nRLD_RESTARTED_WITH_TUNABLES=(unset)\n"
    );
    // Both set by the caller: nothing is tuned, and nothing said.
    let both = "glibc.malloc.mmap_threshold=65536:glibc.malloc.top_pad=0";
    let (stderr, env) = link("both", Some(both));
    assert!(!stderr.contains("malloc tuned"), "{stderr}");
    assert_eq!(
        env,
        format!("GLIBC_TUNABLES={both}\nRLD_RESTARTED_WITH_TUNABLES=(unset)\n")
    );
}
