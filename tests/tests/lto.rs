//! LTO tests: C compiled by `clang-22 -flto` into LLVM bitcode, linked by rld
//! through `clang-22 -flto --ld-path=<rld>` and by lld-22 (`-fuse-ld=lld`), run
//! and compared. The liveness tests check one root each: the symbol survives
//! and no remark says it was dropped, while an unreferenced hidden function in
//! the same file is dropped (so a linker that kept everything would fail).
//!
//! Remarks files are read with LLVM's own YAML remark parser
//! (`cases/lto/remarks_dump.c`, built against libLLVM-22 through
//! `llvm-c/Remarks.h`), so a file rld writes must be one LLVM accepts.
//! Assertions about rld's own behaviour that lld does not share (the exact
//! remark text, `internalized` and `deadglobal` remarks, `--dump-summary`, the
//! summary cache, clean failure on bitcode that makes LLVM abort) are skipped
//! with `RLD_IS_STANDIN=1`.

use rld_tests::llvm_remarks::{remarks, Remark};
use rld_tests::Compiler::Clang;
use rld_tests::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Compiles `srcs` (under `cases/lto/`) to bitcode with `clang-22 -flto -O2`.
fn bitcode(t: &Test, srcs: &[&str], extra: &[&str]) -> Vec<PathBuf> {
    let flags = [&["-flto", "-O2"], extra].concat();
    srcs.iter()
        .map(|s| {
            let obj = t.compile(Clang, &format!("lto/{s}"), &flags);
            assert!(
                std::fs::read(&obj).unwrap().starts_with(b"BC\xC0\xDE"),
                "{} is not LLVM bitcode",
                obj.display()
            );
            obj
        })
        .collect()
}

/// What one LTO link through rld produced.
struct LtoLink {
    exe: PathBuf,
    remarks: Vec<Remark>,
}

/// Links `objs` with LTO through rld (`rld/<out>`) and lld (`lld/<out>`),
/// runs both with `env` and requires the same behaviour (and `expected` on
/// stdout). Returns rld's output and remarks.
fn link_and_compare(
    t: &Test,
    objs: &[&Path],
    flags: &[&str],
    env: &[(&str, &str)],
    expected: &str,
) -> LtoLink {
    let lld_flags = lto_flags(Some(&t.path("lld.yaml")), flags);
    let lld = t.link(Driver::ClangLld, objs, &strs(&lld_flags), "lld/prog");
    let rld_yaml = t.path("rld.yaml");
    let rld_flags = lto_flags(Some(&rld_yaml), flags);
    let exe = t.link(Driver::ClangRld, objs, &strs(&rld_flags), "rld/prog");
    assert_same_output(&exe, &lld, &[], env, Some(expected));
    LtoLink {
        remarks: remarks(&rld_yaml),
        exe,
    }
}

// ---------------------------------------------------------------------------
// Remarks, through LLVM's parser

/// LTO's remarks saying `name` was dropped (`deadfunction` or `deadglobal`).
fn dropped_remarks<'a>(remarks: &'a [Remark], name: &str) -> Vec<&'a Remark> {
    remarks
        .iter()
        .filter(|r| r.pass == "lto" && (r.name == "deadfunction" || r.name == "deadglobal"))
        .filter(|r| r.function == name)
        .collect()
}

/// `name` is defined in `table` of `exe` and no remark says LTO dropped it.
fn assert_kept(link: &LtoLink, table: &str, name: &str) {
    let found = find_symbols(&symbols(&link.exe), table, name);
    assert!(
        found.iter().any(Symbol::is_defined),
        "{name} is not defined in {table} of {}: {found:?}",
        link.exe.display()
    );
    let dead = dropped_remarks(&link.remarks, name);
    assert!(
        dead.is_empty(),
        "a remark says {name} was dropped: {dead:?}"
    );
}

/// `name` is in neither symbol table of `exe`, and (rld-specific for
/// variables, which lld drops silently) one remark says it was dropped.
fn assert_dropped(link: &LtoLink, name: &str, remark_name: &str) {
    let found: Vec<Symbol> = symbols(&link.exe)
        .into_iter()
        .filter(|s| s.name == name)
        .collect();
    assert!(
        found.is_empty(),
        "{name} survived LTO in {}: {found:?}",
        link.exe.display()
    );
    if remark_name == "deadglobal" && is_standin() {
        return;
    }
    let dead = dropped_remarks(&link.remarks, name);
    assert!(
        dead.len() == 1 && dead[0].name == remark_name,
        "expected one {remark_name} remark for {name}, got {dead:?}\nall remarks: {:#?}",
        link.remarks
    );
}

/// Whether `text` (a remark's String argument) is LLVM's message for a dropped global, with
/// the space on each side that lld-22 writes (and rld too).
fn is_not_added_message(text: &str) -> bool {
    text == " not added to the combined module "
}

// ---------------------------------------------------------------------------
// The classic example

const CLASSIC_OUT: &str = "probably_inlined(3) = 50\n";

/// With `-g`, rld's `deadfunction` remarks are lld-22's, field by field (locations on the
/// remark and on its `Function` argument included), as LLVM's parser reads both files.
#[test]
fn dead_function_remarks_are_the_ones_lld_writes() {
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &["-g"]);
    let link = link_and_compare(&t, &paths(&objs), &[], &[], CLASSIC_OUT);
    let lld = remarks(&t.path("lld.yaml"));
    let dead = |all: &[Remark]| -> Vec<Remark> {
        all.iter()
            .filter(|r| r.pass == "lto" && r.name == "deadfunction")
            .cloned()
            .collect()
    };
    let (ours, theirs) = (dead(&link.remarks), dead(&lld));
    assert_eq!(theirs.len(), 1, "lld's remarks: {lld:#?}");
    assert!(
        theirs[0].debug_loc.is_some() && theirs[0].args[0].2.is_some(),
        "{theirs:#?}"
    );
    assert_eq!(ours, theirs);
}

#[test]
fn classic_example_drops_unused() {
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &[]);
    let link = link_and_compare(&t, &paths(&objs), &[], &[], CLASSIC_OUT);
    assert!(
        find_symbols(&symbols(&link.exe), ".symtab", "unused").is_empty(),
        "unused survived LTO in {}",
        link.exe.display()
    );

    let dead: Vec<&Remark> = link
        .remarks
        .iter()
        .filter(|r| r.name == "deadfunction")
        .collect();
    assert_eq!(dead.len(), 1, "one deadfunction remark: {dead:#?}");
    let r = dead[0];
    assert_eq!(
        (r.kind.as_str(), r.pass.as_str(), r.function.as_str()),
        ("Passed", "lto", "unused"),
        "{r:#?}"
    );
    assert_eq!(r.args.len(), 2, "{r:#?}");
    assert_eq!(
        (r.args[0].0.as_str(), r.args[0].1.as_str()),
        ("Function", "unused")
    );
    assert_eq!(r.args[1].0, "String", "{r:#?}");
    assert!(is_not_added_message(&r.args[1].1), "{r:#?}");
    for name in ["main", "probably_inlined"] {
        assert!(
            dropped_remarks(&link.remarks, name).is_empty(),
            "{name}: {:#?}",
            link.remarks
        );
    }

    // rld-specific: what nothing outside the LTO unit sees is internalized,
    // and main (called from crt1.o) is not.
    if !is_standin() {
        let internalized = |name: &str| {
            link.remarks
                .iter()
                .filter(|r| r.pass == "lto" && r.name == "internalized" && r.function == name)
                .count()
        };
        assert_eq!(internalized("probably_inlined"), 1, "{:#?}", link.remarks);
        assert_eq!(internalized("main"), 0, "{:#?}", link.remarks);
    }
}

#[test]
fn a_dead_function_body_is_never_read() {
    if is_standin() {
        eprintln!("skipped: --time's counts are rld's own");
        return;
    }
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &[]);
    // Three bodies in the bitcode (main, unused, probably_inlined); `unused` is dead, so
    // LLVM deletes it from the lazily read module without reading it.
    let flags = lto_flags(None, &["-Wl,--time"]);
    let (res, cmd) = t.try_link(Driver::ClangRld, &paths(&objs), &strs(&flags), "prog");
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(res.status.success(), "{cmd}: {stderr}");
    assert_eq!(bodies_read(&stderr), (2, 3), "{stderr}");
}

#[test]
fn gcc_driver_links_bitcode() {
    // gcc passes `-plugin .../liblto_plugin.so -plugin-opt=...` on every link;
    // the linker ignores gcc's plugin and does LTO itself.
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &[]);
    let exe = t.link(Driver::GccRld, &paths(&objs), &["-O2"], "gcc-rld.out");
    assert_output_is(&exe, &run(&exe, &[], &[]), CLASSIC_OUT, "the gcc -B build");
    assert!(find_symbols(&symbols(&exe), ".symtab", "unused").is_empty());
}

#[test]
fn classic_example_remarks_accepted_by_llvm_opt_report() {
    let t = Test::new();
    // Remarks name source files relative to the compilation directory (as LLVM's do), and
    // clang-22 picks that directory from the common prefix of the source path and the
    // working directory: compile copies inside the test directory so both are known.
    let objs: Vec<PathBuf> = ["tu1.c", "tu2.c"]
        .iter()
        .map(|name| {
            let src = std::fs::read(cases_dir().join("lto").join(name)).unwrap();
            let copy = t.write(name, src);
            t.compile(Clang, copy.to_str().unwrap(), &["-flto", "-O2", "-g"])
        })
        .collect();
    let link = link_and_compare(&t, &paths(&objs), &[], &[], CLASSIC_OUT);
    assert!(!link.remarks.is_empty());
    let mut cmd = Command::new("llvm-opt-report-22");
    cmd.arg(t.path("rld.yaml"))
        .arg("-r")
        .arg(t.dir())
        .arg("-o")
        .arg(t.path("report.txt"));
    let out = run_checked(&mut cmd);
    assert!(
        out.stderr.is_empty(),
        "llvm-opt-report-22 complains: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn classic_example_debug_loc() {
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &["-g"]);
    let link = link_and_compare(&t, &paths(&objs), &[], &[], CLASSIC_OUT);
    let source = std::fs::read_to_string(cases_dir().join("lto/tu2.c")).unwrap();
    let line = 1 + source
        .lines()
        .position(|l| l.starts_with("int unused("))
        .unwrap() as u32;
    let dead = dropped_remarks(&link.remarks, "unused");
    assert_eq!(dead.len(), 1, "{:#?}", link.remarks);
    let loc = dead[0]
        .debug_loc
        .as_ref()
        .unwrap_or_else(|| panic!("no DebugLoc: {:#?}", dead[0]));
    assert!(loc.file.ends_with("tu2.c"), "{loc:?}");
    assert_eq!((loc.line, loc.column), (line, 0), "{loc:?}");
}

// ---------------------------------------------------------------------------
// Liveness roots

#[test]
fn root_native_object_reference() {
    let t = Test::new();
    let objs = bitcode(&t, &["native_root.c"], &[]);
    let native = t.compile(Clang, "lto/native.c", &["-O2"]);
    let link = link_and_compare(
        &t,
        &[&objs[0], &native],
        &[],
        &[],
        "native_entry(4) = 408\n",
    );
    assert_kept(&link, ".symtab", "from_native");
    assert_dropped(&link, "hidden_unreferenced", "deadfunction");
}

#[test]
fn root_undefined_option() {
    let t = Test::new();
    let objs = bitcode(&t, &["undefined_root.c"], &[]);
    let link = link_and_compare(&t, &paths(&objs), &["-Wl,-u,kept_by_u"], &[], "main\n");
    assert_kept(&link, ".symtab", "kept_by_u");
    assert_dropped(&link, "hidden_unreferenced", "deadfunction");
}

#[test]
fn root_shared_library_reference() {
    let t = Test::new();
    let lib_obj = t.compile(Clang, "lto/callback_lib.c", &["-O2", "-fPIC"]);
    let so = t.link(
        Driver::ClangLld,
        &[&lib_obj],
        &["-shared", "-Wl,-soname,libcallback.so"],
        "lib/libcallback.so",
    );
    let lib_dir = so.parent().unwrap().display().to_string();
    let objs = bitcode(&t, &["callback_main.c"], &[]);
    let link = link_and_compare(
        &t,
        &paths(&objs),
        &[&format!("-L{lib_dir}"), "-lcallback"],
        &[("LD_LIBRARY_PATH", &lib_dir)],
        "call_back(5) = 2010\n",
    );
    assert_kept(&link, ".dynsym", "callback");
    assert_dropped(&link, "hidden_unreferenced", "deadfunction");
}

#[test]
fn root_used_attribute() {
    let t = Test::new();
    let objs = bitcode(&t, &["used_root.c"], &[]);
    let link = link_and_compare(&t, &paths(&objs), &[], &[], "main\n");
    assert_kept(&link, ".symtab", "keep_me");
    assert_dropped(&link, "hidden_unreferenced", "deadfunction");
}

#[test]
fn root_constructor() {
    let t = Test::new();
    let objs = bitcode(&t, &["ctor_root.c"], &[]);
    let link = link_and_compare(&t, &paths(&objs), &[], &[], "ctor_hook ran\nmain\n");
    assert!(
        dropped_remarks(&link.remarks, "ctor_hook").is_empty(),
        "{:#?}",
        link.remarks
    );
    assert_dropped(&link, "hidden_unreferenced", "deadfunction");
}

#[test]
fn root_export_dynamic() {
    let t = Test::new();
    let objs = bitcode(&t, &["export_root.c"], &[]);
    let link = link_and_compare(
        &t,
        &paths(&objs),
        &["-Wl,-E"],
        &[],
        "exported_fn(14) = 42\n",
    );
    assert_kept(&link, ".dynsym", "exported_fn");
    assert_dropped(&link, "hidden_unreferenced", "deadfunction");
}

#[test]
fn root_shared_lto_library_exports() {
    let t = Test::new();
    let objs = bitcode(&t, &["shlib_api.c"], &["-fPIC"]);
    let main = t.compile(Clang, "lto/shlib_main.c", &["-O2"]);
    let mut exes = Vec::new();
    let mut rld_lib = None;
    for driver in [Driver::ClangLld, Driver::ClangRld] {
        let dir = driver.name();
        let yaml = t.path(&format!("{dir}.yaml"));
        let flags = lto_flags(Some(&yaml), &["-shared", "-Wl,-soname,libapi.so"]);
        let so = t.link(
            driver,
            &paths(&objs),
            &strs(&flags),
            &format!("{dir}/libapi.so"),
        );
        let lib_dir = so.parent().unwrap().display().to_string();
        // The program is native and linked by lld: only the library differs.
        exes.push(t.link(
            Driver::ClangLld,
            &[&main],
            &[
                &format!("-L{lib_dir}"),
                "-lapi",
                &format!("-Wl,-rpath,{lib_dir}"),
            ],
            &format!("{dir}/main"),
        ));
        rld_lib = Some(LtoLink {
            exe: so,
            remarks: remarks(&yaml),
        });
    }
    assert_same_output(
        &exes[1],
        &exes[0],
        &[],
        &[],
        Some("lib_api(6) = 37\ndlsym lib_api(7) = 50\n"),
    );
    let lib = rld_lib.unwrap();
    assert_kept(&lib, ".dynsym", "lib_api");
    assert_dropped(&lib, "hidden_unreferenced", "deadfunction");
}

#[test]
fn unreferenced_external_definitions_are_dropped() {
    let t = Test::new();
    let objs = bitcode(&t, &["control.c"], &[]);
    let link = link_and_compare(&t, &paths(&objs), &[], &[], "control\n");
    assert_dropped(&link, "never_called", "deadfunction");
    assert_dropped(&link, "never_read", "deadglobal");
    assert!(dropped_remarks(&link.remarks, "main").is_empty());
}

// ---------------------------------------------------------------------------
// Options

#[test]
fn remarks_passes_filter() {
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &[]);
    for (filter, want_lto) in [("lto", true), ("inline", false)] {
        let yaml = t.path(&format!("{filter}.yaml"));
        // rld also takes lld's `--opt=value` spelling, which lld-22 refuses here.
        let filter_flag = if is_standin() {
            format!("-Wl,--opt-remarks-passes,{filter}")
        } else {
            format!("-Wl,--opt-remarks-passes={filter}")
        };
        let flags = lto_flags(Some(&yaml), &[&filter_flag]);
        t.link(
            Driver::ClangRld,
            &paths(&objs),
            &strs(&flags),
            &format!("{filter}.out"),
        );
        let all = remarks(&yaml);
        let lto: Vec<&Remark> = all.iter().filter(|r| r.pass == "lto").collect();
        if want_lto {
            assert!(
                lto.iter()
                    .any(|r| r.name == "deadfunction" && r.function == "unused"),
                "--opt-remarks-passes lto lost the deadfunction remark: {all:#?}"
            );
            assert!(
                all.iter().all(|r| r.pass.contains("lto")),
                "--opt-remarks-passes lto let other passes through: {all:#?}"
            );
        } else {
            assert!(
                lto.is_empty(),
                "--opt-remarks-passes inline let lto remarks through: {lto:#?}"
            );
        }
    }
}

#[test]
fn save_optimization_record_through_plugin_opt() {
    // clang-22 -fsave-optimization-record passes
    // -plugin-opt=opt-remarks-filename=<out>-opt.ld.yaml and
    // -plugin-opt=opt-remarks-format=yaml.
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &[]);
    let flags = lto_flags(None, &["-fsave-optimization-record"]);
    t.link(Driver::ClangRld, &paths(&objs), &strs(&flags), "prog");
    let all = remarks(&t.path("prog-opt.ld.yaml"));
    let dead = dropped_remarks(&all, "unused");
    assert_eq!(dead.len(), 1, "{all:#?}");
}

#[test]
fn save_temps_writes_intermediates() {
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &[]);
    let exe = t.link(
        Driver::ClangRld,
        &paths(&objs),
        &strs(&lto_flags(None, &["-Wl,--save-temps"])),
        "prog",
    );
    assert_output_is(
        &exe,
        &run(&exe, &[], &[]),
        CLASSIC_OUT,
        "the -save-temps build",
    );
    for bc in ["prog.0.0.preopt.bc", "prog.0.4.opt.bc"] {
        let path = t.path(bc);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("no {bc}: {e}"));
        assert!(bytes.starts_with(b"BC\xC0\xDE"), "{bc} is not bitcode");
        run_checked(
            Command::new("llvm-dis-22")
                .arg(&path)
                .arg("-o")
                .arg("/dev/null"),
        );
    }
    let obj = t.path("prog.lto.o");
    assert!(obj.is_file(), "no prog.lto.o");
    assert_eq!(elf_type(&obj), "REL");
    assert_readelf_clean(&obj);
    let main = find_symbols(&symbols(&obj), ".symtab", "main");
    assert!(main.iter().any(Symbol::is_defined), "{main:?}");
}

/// `-mllvm OPT` and `-plugin-opt=-OPT` reach LLVM: `-use-ctors` puts the constructor in
/// `.ctors` instead of `.init_array` (seen in the LTO object `--save-temps` keeps), and the
/// program still runs it. A bad option is an error with LLVM's words, not an exit inside
/// LLVM.
#[test]
fn llvm_options_reach_llvm() {
    let t = Test::new();
    let objs = bitcode(&t, &["ctor_root.c"], &[]);
    for (flag, out) in [
        ("-Wl,-mllvm,-use-ctors", "mllvm"),
        ("-Wl,-plugin-opt=-use-ctors", "plugin-opt"),
    ] {
        let exe = t.link(
            Driver::ClangRld,
            &paths(&objs),
            &strs(&lto_flags(None, &["-Wl,--save-temps", flag])),
            out,
        );
        assert!(
            String::from_utf8_lossy(&run(&exe, &[], &[]).stdout).contains("ctor_hook ran"),
            "{flag}: the constructor did not run"
        );
        let sections: Vec<String> = sections(&t.path(&format!("{out}.lto.o")))
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert!(
            sections.iter().any(|s| s.starts_with(".ctors")),
            "{flag}: no .ctors in the LTO object: {sections:?}"
        );
        assert!(
            !sections.iter().any(|s| s.starts_with(".init_array")),
            "{sections:?}"
        );
    }
    let (res, cmd) = t.try_link(
        Driver::ClangRld,
        &paths(&objs),
        &strs(&lto_flags(None, &["-Wl,-mllvm,-no-such-llvm-option"])),
        "bad",
    );
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(
        !res.status.success()
            && stderr.contains("LLVM option")
            && stderr.contains("-no-such-llvm-option"),
        "command: {cmd}\n{stderr}"
    );
}

#[test]
fn relocatable_output_from_bitcode() {
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &[]);
    let combined = t.link(Driver::Rld, &paths(&objs), &["-r"], "combined.o");
    assert_eq!(elf_type(&combined), "REL");
    let syms = symbols(&combined);
    for name in ["main", "probably_inlined"] {
        let s = find_symbols(&syms, ".symtab", name);
        assert!(
            s.iter().any(|s| s.is_defined() && s.bind == "GLOBAL"),
            "{name} in combined.o: {s:?}"
        );
    }
    // An ordinary, non-LTO link of the result.
    let exe = t.link(Driver::ClangLld, &[&combined], &[], "prog");
    assert_output_is(
        &exe,
        &run(&exe, &[], &[]),
        CLASSIC_OUT,
        "the program from -r",
    );
}

#[test]
fn lto_optimization_levels() {
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &[]);
    for level in ["0", "3"] {
        let flag = format!("-Wl,--lto-O{level}");
        let exe = t.link(
            Driver::ClangRld,
            &paths(&objs),
            &strs(&lto_flags(None, &[&flag])),
            &format!("O{level}.out"),
        );
        assert_output_is(&exe, &run(&exe, &[], &[]), CLASSIC_OUT, &flag);
    }
}

#[test]
fn dump_summary_names_globals() {
    if is_standin() {
        eprintln!("skipped: --dump-summary is rld's own");
        return;
    }
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &[]);
    let dump = |obj: &Path| {
        let out = run_checked(Command::new(rld_path()).arg("--dump-summary").arg(obj));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let tu2 = dump(&objs[1]);
    for name in ["unused", "probably_inlined"] {
        let header = format!("global {name}\n  function, external, default\n");
        assert!(tu2.contains(&header), "no {header:?} in\n{tu2}");
    }
    let tu1 = dump(&objs[0]);
    let main_block = tu1
        .split("\n\n")
        .find(|b| b.starts_with("global main\n"))
        .unwrap_or_else(|| panic!("no main in\n{tu1}"));
    assert!(
        main_block
            .lines()
            .any(|l| l.starts_with("  calls:") && l.contains("probably_inlined")),
        "main does not call probably_inlined in\n{tu1}"
    );
}

/// What the analyses read of a C library function is what LLVM 22 knows of it: clang-14
/// declares `fwrite(ptr nocapture, ...)`, and LLVM 22's `inferattrs`, which its LTO
/// pipeline runs on the merged module, adds that `fwrite` only reads its buffer and
/// `fread` only writes its own. The summary of clang-14 bitcode says so too.
#[test]
fn library_declarations_carry_what_llvm_infers() {
    if is_standin() {
        eprintln!("skipped: --dump-summary is rld's own");
        return;
    }
    let t = Test::new();
    let obj = t.compile(
        Compiler::Clang14,
        "#include <stdio.h>\n\
         size_t put(const char *b, size_t n, FILE *f) { return fwrite(b, 1, n, f); }\n\
         size_t get(char *b, size_t n, FILE *f) { return fread(b, 1, n, f); }\n",
        &["-flto", "-O2"],
    );
    let ir = llvm_dis(&obj);
    assert!(
        ir.lines()
            .any(|l| l.starts_with("declare") && l.contains("@fwrite(") && !l.contains("readonly")),
        "clang-14 already declares fwrite readonly: the test shows nothing\n{ir}"
    );
    let out = run_checked(Command::new(rld_path()).arg("--dump-summary").arg(&obj));
    let dump = String::from_utf8_lossy(&out.stdout);
    let declared = |name: &str| {
        let block = dump
            .split("\n\n")
            .find(|b| b.starts_with(&format!("global {name}\n")))
            .unwrap_or_else(|| panic!("no {name} in\n{dump}"));
        let line = block
            .lines()
            .find(|l| l.trim_start().starts_with("declared:"));
        line.unwrap_or_else(|| panic!("{name} declares nothing\n{block}"))
            .to_string()
    };
    assert!(
        declared("fwrite").contains("params(nocapture readonly, -, -, nocapture)"),
        "{}",
        declared("fwrite")
    );
    assert!(
        declared("fread").contains("params(nocapture writeonly, -, -, nocapture)"),
        "{}",
        declared("fread")
    );
}

// ---------------------------------------------------------------------------
// Bad input

/// rld on `inputs` + `flags` fails cleanly: non-zero exit (not a signal, not a
/// panic), an error mentioning each of `mentions`, and no output file.
fn assert_rejected(t: &Test, driver: Driver, inputs: &[&Path], flags: &[&str], mentions: &[&str]) {
    let (res, cmd) = t.try_link(driver, inputs, flags, "fresh.out");
    let stderr = String::from_utf8_lossy(&res.stderr).into_owned();
    let ctx = format!(
        "\n  command: {cmd}\n  {}\n--- stderr ---\n{stderr}",
        describe_status(&res)
    );
    assert!(!res.status.success(), "the link accepted bad input{ctx}");
    let leftovers = t.files_starting_with("fresh.out");
    assert!(
        leftovers.is_empty(),
        "a failed link left {leftovers:?}{ctx}"
    );
    if is_standin() {
        return; // lld aborts inside LLVM on some corrupt bitcode.
    }
    assert!(
        res.status.code().is_some(),
        "rld was killed by a signal{ctx}"
    );
    assert!(!stderr.contains("panicked"), "rld panicked{ctx}");
    assert!(
        stderr.contains("rld: error"),
        "rld-specific: no \"rld: error\"{ctx}"
    );
    for m in mentions {
        assert!(stderr.contains(m), "the error does not mention {m:?}{ctx}");
    }
}

#[test]
fn rejects_corrupt_bitcode() {
    // The bitcode magic, then pseudo-random bytes. Some of these make LLVM's
    // bitcode reader call report_fatal_error (lld-22 aborts on them), so
    // several are tried.
    let t = Test::new();
    for seed in 1..=12u64 {
        let mut bytes = b"BC\xC0\xDE".to_vec();
        let mut x = 0x9e37_79b9_7f4a_7c15_u64 ^ seed.wrapping_mul(0x2545_f491_4f6c_dd1d);
        for _ in 0..300 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            bytes.push((x >> 32) as u8);
        }
        let name = format!("corrupt{seed}.o");
        let bad = t.write(&name, bytes);
        assert_rejected(&t, Driver::Rld, &[&bad], &["-flto"], &[&name]);
    }
}

/// LLVM refuses the program only while compiling it (inline assembly it cannot assemble):
/// the link fails with LLVM's message and rld's error naming the partition, leaves no
/// output, and the linker itself is neither killed nor aborted.
#[test]
fn an_llvm_error_while_compiling_fails_the_link_cleanly() {
    let t = Test::new();
    let objs = bitcode(&t, &["bad_asm.c"], &[]);
    assert_rejected(
        &t,
        Driver::ClangRld,
        &paths(&objs),
        &strs(&lto_flags(None, &[])),
        &[
            "invalid instruction mnemonic 'bogusinsn'",
            "compiling partition 0",
        ],
    );
}

/// LLVM stops with a fatal error while compiling (no instruction for an intrinsic): an
/// error in rld's words, not an abort, and no output.
#[test]
fn an_llvm_fatal_error_while_compiling_fails_the_link_cleanly() {
    let t = Test::new();
    let bitcode = t.path("isel_failure.o");
    run_checked(
        Command::new("llvm-as-22")
            .arg(cases_dir().join("lto/isel_failure.ll"))
            .arg("-o")
            .arg(&bitcode),
    );
    assert_rejected(
        &t,
        Driver::Rld,
        &[&bitcode],
        &["-flto", "-e", "main"],
        &["LTO: LLVM failed: Do not know how to split"],
    );
}

#[test]
fn rejects_truncated_bitcode() {
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &[]);
    let bytes = std::fs::read(&objs[1]).unwrap();
    let cut = t.write("truncated.o", &bytes[..bytes.len() / 2]);
    assert_rejected(
        &t,
        Driver::ClangRld,
        &[&objs[0], &cut],
        &strs(&lto_flags(None, &[])),
        &["truncated.o"],
    );
}

#[test]
fn a_corrupt_summary_cache_entry_is_redone_with_a_warning() {
    if is_standin() {
        eprintln!("skipped: the summary cache is rld's own");
        return;
    }
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &[]);
    let cache = t.path("cache");
    let cache_flag = format!("-Wl,--lto-cache-dir={}", cache.display());
    let flags = lto_flags(None, &[&cache_flag]);
    let flags = strs(&flags);
    t.link(Driver::ClangRld, &paths(&objs), &flags, "first.out");
    let entries = || -> Vec<PathBuf> {
        std::fs::read_dir(&cache)
            .unwrap_or_else(|e| panic!("no cache directory {}: {e}", cache.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "rldsum"))
            .collect()
    };
    let first = entries();
    assert_eq!(first.len(), 2, "one summary per module: {first:?}");
    // A cached link works too.
    let again = t.link(Driver::ClangRld, &paths(&objs), &flags, "second.out");
    assert_output_is(
        &again,
        &run(&again, &[], &[]),
        CLASSIC_OUT,
        "the cached link",
    );

    // A damaged entry: a warning naming it, the module summarized again, the entry
    // replaced, and the same program.
    std::fs::write(&first[0], b"this is not a summary\n\x00\xff\xfe garbage").unwrap();
    let name = first[0].file_name().unwrap().to_string_lossy().into_owned();
    let (res, cmd) = t.try_link(Driver::ClangRld, &paths(&objs), &flags, "third.out");
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(res.status.success(), "{cmd}: {stderr}");
    assert!(
        stderr.contains("warning") && stderr.contains(&name) && stderr.contains("corrupt"),
        "{stderr}"
    );
    let third = t.path("third.out");
    assert_eq!(
        std::fs::read(&third).unwrap(),
        std::fs::read(&again).unwrap()
    );
    assert_ne!(
        std::fs::read(&first[0]).unwrap(),
        b"this is not a summary\n\x00\xff\xfe garbage"
    );
    let (res, _) = t.try_link(Driver::ClangRld, &paths(&objs), &flags, "fourth.out");
    assert!(!String::from_utf8_lossy(&res.stderr).contains("warning"));
}

#[test]
fn links_sharing_a_cache_directory_at_once_agree() {
    // Four links of one program at the same time, one empty cache directory: every link
    // succeeds with the same bytes, and no half-written entry is ever read (a warning
    // would say so).
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &[]);
    let cache = t.path("cache");
    let mut children = Vec::new();
    for i in 0..4 {
        let flags = lto_flags(None, &[&format!("-Wl,--lto-cache-dir={}", cache.display())]);
        let mut cmd = t.link_command(
            Driver::ClangRld,
            &paths(&objs),
            &strs(&flags),
            &t.path(&format!("out{i}")),
        );
        children.push(cmd.stderr(std::process::Stdio::piped()).spawn().unwrap());
    }
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && !stderr.contains("warning"),
            "{stderr}"
        );
    }
    let first = std::fs::read(t.path("out0")).unwrap();
    for i in 1..4 {
        assert_eq!(
            std::fs::read(t.path(&format!("out{i}"))).unwrap(),
            first,
            "out{i}"
        );
    }
    let leftovers: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// C++ under LTO: dropping a dead function's body must also drop what hangs off it (its
/// personality routine), or LLVM rejects the module; exceptions, RTTI and thread_local must
/// then behave as in the lld build.
#[test]
fn cxx_exceptions_rtti_threads_under_lto() {
    let t = Test::new();
    let objs = bitcode(&t, &["cxx_main.cpp", "cxx_throw.cpp"], &[]);
    let flags = ["-flto", "-O2", "-pthread", "-lstdc++", "-lm"];
    let rld = t.link(Driver::ClangRld, &paths(&objs), &flags, "cxx-rld.out");
    let lld = t.link(Driver::ClangLld, &paths(&objs), &flags, "cxx-lld.out");
    assert_same_output(
        &rld,
        &lld,
        &[],
        &[],
        Some("base 0\nderived 1\ncaught boom 3\n16 tls\n"),
    );
}

/// `--opt-remarks-with-hotness` with a profile (`-fprofile-instr-use`): LLVM's remarks carry
/// the `Hotness` lld's carry, and none without the option.
#[test]
fn remarks_with_hotness_from_a_profile() {
    let t = Test::new();
    let src = t.write(
        "hot.c",
        "#include <stdio.h>\nstatic int sq(int x) { return x * x; }\n\
         int main(int c, char **v) { (void)v; long s = 0;\n\
         for (int i = 0; i < 100000; i++) s += sq(i + c);\n\
         printf(\"%ld\\n\", s); return 0; }\n",
    );
    let src = src.to_str().unwrap();
    let gen = t.compile(Clang, src, &["-O2", "-fprofile-instr-generate"]);
    let gen_exe = t.link(
        Driver::ClangLld,
        &[&gen],
        &["-fprofile-instr-generate"],
        "gen",
    );
    let raw = t.path("hot.profraw");
    let out = run(
        &gen_exe,
        &[],
        &[("LLVM_PROFILE_FILE", raw.to_str().unwrap())],
    );
    assert!(out.status.success());
    let profile = t.path("hot.profdata");
    run_checked(
        Command::new("llvm-profdata-22")
            .args(["merge", "-o"])
            .arg(&profile)
            .arg(&raw),
    );
    let use_flag = format!("-fprofile-instr-use={}", profile.display());
    let obj = t.compile(Clang, src, &["-O2", "-flto", &use_flag]);
    let hot = |driver: Driver, out: &str, with: bool| -> Vec<(String, String, Option<u64>)> {
        let yaml = t.path(&format!("{out}.yaml"));
        let mut flags = vec![
            "-flto".to_string(),
            "-Wl,--opt-remarks-filename".into(),
            format!("-Wl,{}", yaml.display()),
        ];
        if with {
            flags.push("-Wl,--opt-remarks-with-hotness".into());
        }
        t.link(driver, &[&obj], &strs(&flags), out);
        let mut list: Vec<_> = remarks(&yaml)
            .into_iter()
            .filter(|r| r.pass != "lto")
            .map(|r| (r.pass, r.name, r.hotness))
            .collect();
        list.sort();
        list
    };
    let ours = hot(Driver::ClangRld, "rld", true);
    assert!(
        ours.iter().any(|r| r.2.is_some_and(|h| h > 1000)),
        "no hot remark: {ours:?}"
    );
    if !is_standin() {
        assert_eq!(ours, hot(Driver::ClangLld, "lld", true));
    }
    let cold = hot(Driver::ClangRld, "rld-plain", false);
    assert!(cold.iter().all(|r| r.2.is_none()), "{cold:?}");
}

#[test]
fn llvm_is_loaded_only_for_bitcode() {
    if is_standin() {
        return;
    }
    // The rld binary does not depend on libLLVM: a link without bitcode never loads it.
    let needed = dyn_values(&dynamic(&rld_path()), "NEEDED");
    assert!(
        !needed.iter().any(|n| n.contains("LLVM")),
        "{} needs {needed:?}",
        rld_path().display()
    );
    // A link with bitcode loads rld's LTO library from beside the binary...
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &[]);
    let exe = t.link(Driver::ClangRld, &paths(&objs), &["-flto"], "found.out");
    assert_output_is(&exe, &run(&exe, &[], &[]), CLASSIC_OUT, "LTO link");
    // ... or from where RLD_LTO_LIBRARY says; a missing or foreign library is a clear
    // error, and no output is left.
    let not_there = t.path("nowhere/librld_plugin.so");
    let foreign = PathBuf::from("/lib/x86_64-linux-gnu/libz.so.1");
    for (library, expected) in [
        (&not_there, "linking LLVM bitcode needs rld's LTO library"),
        (&foreign, "not rld's LTO library"),
    ] {
        let out = run_checked_status(
            Command::new(rld_path())
                .env("RLD_LTO_LIBRARY", library)
                .args(objs.iter())
                .args(["-e", "main", "-o"])
                .arg(t.path("failed.out")),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{}: {stderr}", library.display());
        assert!(stderr.contains(expected), "{}: {stderr}", library.display());
        assert!(stderr.contains(&library.display().to_string()), "{stderr}");
        assert!(!t.path("failed.out").exists());
    }
}

/// Runs `cmd` and returns its output whatever its status.
fn run_checked_status(cmd: &mut Command) -> std::process::Output {
    cmd.output().expect("the command runs")
}

/// An explicitly instantiated class's complete-object constructor (`C1`) is a `weak_odr`
/// alias of its base-object one (`C2`), and a static initializer calls it through the
/// alias: the call keeps the alias and its constructor alive (once both were dropped as
/// dead, and the link failed). After LLVM's test-suite (tramp3d-v4), with clang-22.
#[test]
fn a_constructor_called_through_its_alias_is_kept() {
    let t = Test::new();
    let src = "#include <cstdio>\n\
               template <int N> struct Counter { int n; Counter(); };\n\
               template <int N> Counter<N>::Counter() : n(N * 10) { std::printf(\"ctor %d\\n\", N); }\n\
               template struct Counter<1>;\n\
               Counter<1> g;\n\
               int main() { std::printf(\"%d\\n\", g.n); }\n";
    let obj = t.compile_cxx(Clang, src, &["-O2", "-flto"]);
    let ir = String::from_utf8_lossy(
        &run_checked(Command::new("llvm-dis-22").arg(&obj).arg("-o").arg("-")).stdout,
    )
    .into_owned();
    assert!(
        ir.contains("@_ZN7CounterILi1EEC1Ev = weak_odr") && ir.contains(" alias "),
        "the constructor is no longer an alias: the test no longer tests that\n{ir}"
    );
    for partitions in ["1", "2"] {
        t.check_cxx_program(
            &[&obj],
            &[
                "-flto",
                "-O2",
                &format!("-Wl,--lto-partitions={partitions}"),
            ],
            Some("ctor 1\n10\n"),
        );
    }
}

/// `.symver` in bitcode, as xz's liblzma builds with `-flto`: the module's inline asm
/// defines `foo@@V2` and `foo@V1` for functions the version script makes local. rld takes
/// the asm's symbols as lld does (from LLVM's IR symbol table), so the script's versions
/// find foo, and LTO keeps the functions the asm names, beside the asm in any partition
/// (before, the link failed: "version script assignment of 'V2' to symbol 'foo' failed:
/// symbol not defined", and LLVM could not assemble a `.symver` of a dropped function).
/// The library exports what lld's exports, and a program calling `foo` gets version V2.
/// (lld-22 cannot link it with 16 partitions: "default version symbol foo@@V2 must be
/// defined", its asm and foo_2 in different partitions.)
#[test]
fn symver_in_bitcode_versions_a_shared_library_as_lld() {
    let t = Test::new();
    let fillers: String = (0..120)
        .map(|i| format!("int filler{i}(int x) {{ int s = 0; for (int k = 0; k < x; k++) s += k * {i} ^ (s >> 3); return s; }}\n"))
        .collect();
    let src = format!(
        "{fillers}int foo_2(void) {{ return 2; }}\nint foo_1(void) {{ return 1; }}\n\
         __asm__(\".symver foo_2,foo@@V2\");\n__asm__(\".symver foo_1,foo@V1\");\n\
         int bar(void) {{ return filler7(3) + 3; }}\n"
    );
    let lib = t.compile(Clang, &src, &["-O2", "-flto", "-fPIC"]);
    let map = t.write(
        "v.map",
        "V1 { global: bar; foo; filler*; local: *; };\nV2 { global: foo; } V1;\n",
    );
    let script = format!("-Wl,--version-script={}", map.display());
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint foo(void); int bar(void);\n\
         int main(void) { printf(\"%d %d\\n\", foo(), bar()); return 0; }\n",
        &["-O2"],
    );
    let lld = t.link(
        Driver::ClangLld,
        &[&lib],
        &["-shared", "-flto", &script],
        "lld/libsv.so",
    );
    let theirs = exports(&lld);
    for want in ["foo@V1", "foo@V2", "bar@V1"] {
        assert!(
            theirs.iter().any(|e| e == want),
            "{want} missing: {theirs:?}"
        );
    }
    for partitions in ["1", "16"] {
        let cut = format!("-Wl,--lto-partitions={partitions}");
        let flags = ["-shared", "-flto", &script, &cut];
        let name = format!("libsv{partitions}.so");
        let rld = t.link(Driver::ClangRld, &[&lib], &flags, &format!("rld/{name}"));
        assert_eq!(exports(&rld), theirs, "{partitions} partitions");
        let dir = rld.parent().unwrap().display().to_string();
        let flags = [
            format!("-L{dir}"),
            format!("-l:{name}"),
            format!("-Wl,-rpath,{dir}"),
        ];
        let exe = t.link(
            Driver::ClangRld,
            &[&main],
            &strs(&flags),
            &format!("main{partitions}"),
        );
        let out = run(&exe, &[], &[]);
        assert_eq!(String::from_utf8_lossy(&out.stdout), "2 24\n");
    }
}

/// An inline function or a constant that every module using it has its own copy of
/// (`linkonce_odr` with `unnamed_addr`: LLVM's `canBeOmittedFromSymbolTable`) is not
/// exported by `-shared` or `-E` alone, as lld leaves it out: LTO internalizes it. A
/// native object that also has it, `-u`, or a shared library's reference keeps it
/// exported; so does a writable variable (one object across libraries). Exports are
/// lld's in each case. (rld exported all of them: snappy's library had 14 more dynamic
/// symbols than lld's.)
#[test]
fn omittable_inline_definitions_are_exported_as_lld_exports_them() {
    let t = Test::new();
    let src = "struct Acc { int v = 0;\n\
               __attribute__((noinline)) int add(int x) { v += x * 3; return v; } };\n\
               inline int shared_counter = 0;\n\
               inline const int table[4] = {1, 2, 3, 4};\n\
               __attribute__((noinline)) inline int in_native_too(int x) { return x * 7; }\n\
               int lib_entry(int n) { Acc a; for (int i = 0; i < n; i++) a.add(i);\n\
               shared_counter += table[n & 3]; return a.v + in_native_too(n); }\n";
    let lib = t.compile_cxx(Clang, src, &["-O2", "-flto", "-fPIC"]);
    // A native object with its own copy of one of them.
    let native = t.compile_cxx(
        Clang,
        "__attribute__((noinline)) inline int in_native_too(int x) { return x * 7; }\n\
         int native_user(int x) { return in_native_too(x + 1); }\n",
        &["-O2", "-fPIC"],
    );
    let add = "_ZN3Acc3addEi";
    let counter = "shared_counter";
    let cases: [(&str, Vec<&Path>, Vec<String>); 3] = [
        ("plain", vec![&lib], vec![]),
        ("native", vec![&lib, &native], vec![]),
        ("u", vec![&lib], vec![format!("-Wl,-u,{add}")]),
    ];
    for (name, objs, extra) in cases {
        let mut flags = vec!["-O2", "-flto", "-shared"];
        flags.extend(extra.iter().map(String::as_str));
        let lld = t.link_cxx(
            Driver::ClangLld,
            &objs,
            &flags,
            &format!("lld/{name}.so"),
            true,
        );
        let rld = t.link_cxx(
            Driver::ClangRld,
            &objs,
            &flags,
            &format!("rld/{name}.so"),
            true,
        );
        let ours = exported_names(&rld);
        assert_eq!(ours, exported_names(&lld), "{name}");
        assert!(ours.iter().any(|n| n.contains(counter)), "{name}: {ours:?}");
        let has_add = ours.iter().any(|n| n == add);
        assert_eq!(has_add, name == "u", "{name}: {ours:?}");
        let has_native = ours.iter().any(|n| n.contains("in_native_too"));
        assert_eq!(has_native, name == "native", "{name}: {ours:?}");
    }

    // Executables with -E: the inline function stays out, unless a shared library the
    // program links calls it.
    let dso_obj = t.compile_cxx(
        Clang,
        "struct Acc { int v = 0; int add(int x); };\n\
         int from_lib(int n) { Acc a; return a.add(n); }\n",
        &["-O2", "-fPIC"],
    );
    let dso = t.link_cxx(
        Driver::ClangLld,
        &[&dso_obj],
        &["-shared"],
        "libcb.so",
        true,
    );
    let alone = t.compile_cxx(
        Clang,
        "#include <cstdio>\nint lib_entry(int n);\n\
         int main() { std::printf(\"%d\\n\", lib_entry(5)); return 0; }\n",
        &["-O2", "-flto"],
    );
    let calls_back = t.compile_cxx(
        Clang,
        "#include <cstdio>\nint lib_entry(int n); int from_lib(int n);\n\
         int main() { std::printf(\"%d %d\\n\", lib_entry(5), from_lib(4)); return 0; }\n",
        &["-O2", "-flto"],
    );
    let rpath = format!("-Wl,-rpath,{}", t.dir().display());
    let dso_path = dso.display().to_string();
    let programs: [(&str, &Path, Vec<&str>, &str); 2] = [
        ("alone", &alone, vec![], "65\n"),
        (
            "calls-back",
            &calls_back,
            vec![&dso_path, &rpath],
            "65 12\n",
        ),
    ];
    for (tag, main, extra, expected) in programs {
        let mut flags = vec!["-O2", "-flto", "-Wl,-E"];
        flags.extend(extra);
        let objs = [main, lib.as_path()];
        let lld = t.link_cxx(Driver::ClangLld, &objs, &flags, &format!("lld/{tag}"), true);
        let rld = t.link_cxx(Driver::ClangRld, &objs, &flags, &format!("rld/{tag}"), true);
        assert_same_output(&rld, &lld, &[], &[], Some(expected));
        let ours = exported_names(&rld);
        assert_eq!(ours, exported_names(&lld), "{tag}");
        let has_add = ours.iter().any(|n| n == add);
        assert_eq!(has_add, tag == "calls-back", "{tag}: {ours:?}");
    }
}

/// A personality function the LTO unit defines and only a function's `personality` names
/// (Rust's `rust_eh_personality` when the standard library's bitcode is linked in, as
/// Cargo's `lto = true` with `-Clinker-plugin-lto` does): it is a reference, as in LLVM's
/// summary, so the definition stays and the unwind table's reference to it resolves.
#[test]
fn a_personality_defined_in_bitcode_is_kept() {
    let t = Test::new();
    let ir = t.compile(Clang, "lto/own_personality.ll", &["-O2", "-flto"]);
    let native = t.compile(Clang, "lto/step.c", &["-O2"]);
    for partitions in ["1", "2"] {
        t.check_program(
            &[&ir, &native],
            &[
                "-flto",
                "-O2",
                &format!("-Wl,--lto-partitions={partitions}"),
            ],
            Some("42\n"),
        );
    }
}

/// `clang -flto -ffat-lto-objects` objects carry bitcode (`.llvm.lto`) beside their machine
/// code, and clang's link passes lld `--fat-lto-objects`: the bitcode is linked, from
/// command-line objects and archive members alike (LTO inlines across them), as lld links
/// it; `--no-fat-lto-objects` (the default) links the machine code.
#[test]
fn fat_lto_objects_link_through_their_bitcode_as_lld() {
    let t = Test::new();
    let fat = ["-O2", "-flto", "-ffat-lto-objects"];
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint twice(int); int add_one(int);\n\
         int main(int argc, char **argv) { printf(\"%d\\n\", add_one(twice(argc))); return 0; }\n",
        &fat,
    );
    let one = t.compile(Clang, "int add_one(int x) { return x + 1; }\n", &fat);
    let two = t.compile(Clang, "int twice(int x) { return x * 2; }\n", &fat);
    assert!(
        !std::fs::read(&two).unwrap().starts_with(b"BC"),
        "not an ELF object"
    );
    let lib = t.archive("libtwice.a", &[&two]);
    for linked_as in ["fat", "native"] {
        let mut flags = [&fat[..], &["-fuse-ld=lld"]].concat();
        if linked_as == "native" {
            flags.push("-Wl,--no-fat-lto-objects");
        }
        let link = |ld: &Path, out: &str| {
            let exe = t.path(&format!("{out}-{linked_as}"));
            let mut cmd = Command::new("clang-22");
            cmd.args(&flags)
                .arg(format!("--ld-path={}", ld.display()))
                .args([&main, &one, &lib])
                .arg("-o")
                .arg(&exe);
            let shown = command_line(&cmd);
            let out = run_checked(&mut cmd);
            assert!(
                out.stderr.is_empty(),
                "{shown}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            exe
        };
        let lld = link(Path::new("/usr/bin/ld.lld-22"), "lld");
        let rld = link(&rld_path(), "rld");
        assert_same_output(&rld, &lld, &["x"], &[], Some("5\n"));
        for callee in ["twice", "add_one"] {
            // Inlined and gone only when the bitcode was linked.
            assert_eq!(
                nm_has(&lld, callee),
                linked_as == "native",
                "lld {linked_as}"
            );
            assert_eq!(
                nm_has(&rld, callee),
                linked_as == "native",
                "rld {linked_as}"
            );
        }
    }
}

/// Links `objs` with `clang-22 -fuse-ld=lld --ld-path=<ld> <flags>` into `<dir>/x`, in
/// `<dir>` (where `--save-temps` and `.dwo` files land), clang passing its LTO options
/// (`-plugin-opt=...`) as it does to lld. Panics on failure or a warning.
fn link_as_lld_in(t: &Test, dir: &str, ld: &Path, objs: &[&Path], flags: &[&str]) -> PathBuf {
    let dir = t.path(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut cmd = Command::new("clang-22");
    cmd.args(flags)
        .args(["-fuse-ld=lld", &format!("--ld-path={}", ld.display())])
        .args(objs)
        .args(["-o", "x"])
        .current_dir(&dir);
    let shown = command_line(&cmd);
    let out = run_checked(&mut cmd);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{shown}: {stderr}");
    dir.join("x")
}

/// Links `objs` with `flags` as [`link_as_lld_in`] does, by lld-22 in `lld<tag>` and by rld
/// in `rld<tag>`, and requires the same behaviour (printing `expected`); returns (lld's,
/// rld's).
fn lld_and_rld(
    t: &Test,
    tag: &str,
    objs: &[&Path],
    flags: &[&str],
    expected: &str,
) -> (PathBuf, PathBuf) {
    let lld = link_as_lld_in(t, &format!("lld{tag}"), lld_22(), objs, flags);
    let rld = link_as_lld_in(t, &format!("rld{tag}"), &rld_path(), objs, flags);
    assert_same_output(&rld, &lld, &[], &[], Some(expected));
    (lld, rld)
}

fn lld_22() -> &'static Path {
    Path::new("/usr/bin/ld.lld-22")
}

/// `function`'s entry count (`!prof !{"function_entry_count", N}`) in textual IR.
fn entry_count(ir: &str, function: &str) -> Option<u64> {
    let define = ir_function(ir, function).into_iter().next()?;
    let node = define.split("!prof ").nth(1)?.split_whitespace().next()?;
    let line = ir.lines().find(|l| l.starts_with(&format!("{node} = ")))?;
    line.split("i64 ")
        .nth(1)?
        .trim_end_matches('}')
        .trim()
        .parse()
        .ok()
}

const PROFILED: &str = "#include <stdio.h>\n\
    __attribute__((noinline)) int hot(int x) { return x * 3 + 1; }\n\
    int main(int argc, char **argv) {\n\
      int s = 0;\n\
      for (int i = 0; i < 1000; i++)\n\
        s += hot(i + argc);\n\
      printf(\"%d\\n\", s);\n\
      return 0;\n\
    }\n";

/// AutoFDO with LTO: clang passes `-fprofile-sample-use=FILE` on as
/// `-plugin-opt=sample-profile=FILE`, and LLVM's LTO pipeline reads the profile again after
/// cross-module inlining. Compiled with one profile and linked with another, the entry
/// counts of the optimized module are the link-time profile's, as in lld's. A profile that
/// cannot be read is refused, naming it.
#[test]
fn a_sample_profile_reaches_the_lto_pipeline_as_in_lld() {
    let t = Test::new();
    let compile_time = t.write(
        "a.prof",
        "main:1000:1\n 3: 100\n 4: 100 hot:100\nhot:100:100\n 0: 100\n",
    );
    let link_time = t.write(
        "b.prof",
        "main:900000:1\n 3: 90000\n 4: 90000 hot:777777\nhot:777777:777777\n 0: 777777\n",
    );
    let use_profile = |p: &Path| format!("-fprofile-sample-use={}", p.display());
    let obj = t.compile(
        Clang,
        PROFILED,
        &[
            "-O2",
            "-flto",
            "-gline-tables-only",
            &use_profile(&compile_time),
        ],
    );
    let before = entry_count(&llvm_dis(&obj), "hot").expect("the compile-time profile's count");
    let flags = ["-O2", "-flto", &use_profile(&link_time), "-Wl,--save-temps"];
    let (lld, rld) = lld_and_rld(&t, "", &[&obj], &flags, "1502500\n");
    let count = |exe: &Path| entry_count(&llvm_dis(&exe.with_file_name("x.0.4.opt.bc")), "hot");
    let (ours, theirs) = (count(&rld), count(&lld));
    assert_eq!(ours, theirs, "hot's entry count after LTO");
    assert_ne!(ours, Some(before), "the link-time profile was not read");

    let missing = t.path("missing.prof");
    let mut cmd = Command::new("clang-22");
    // clang checks its own option's file: rld's spelling of it reaches the linker.
    let lto_profile = format!("-Wl,--lto-sample-profile={}", missing.display());
    cmd.args(["-O2", "-flto", "-fuse-ld=lld", &lto_profile])
        .arg(format!("--ld-path={}", rld_path().display()))
        .arg(&obj)
        .arg("-o")
        .arg(t.path("refused"));
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && !t.path("refused").exists(),
        "{stderr}"
    );
    assert!(
        stderr.contains("rld: error") && stderr.contains(&missing.display().to_string()),
        "{stderr}"
    );
}

/// Context-sensitive PGO: `-fcs-profile-generate` instruments the program after LTO's
/// inlining (`-plugin-opt=cs-profile-generate`, `cs-profile-path=`); the profile it writes
/// has the context-sensitive counters lld's build writes, and linking with it
/// (`-fprofile-use`, which passes `cs-profile-path=`) puts its counts on the optimized
/// module as lld's link does.
#[test]
fn context_sensitive_pgo_instruments_and_uses_as_lld() {
    let t = Test::new();
    let src = t.write("p.c", PROFILED);
    let src = src.to_str().unwrap();
    let profdata = |out: &Path, inputs: &[&Path]| {
        run_checked(
            Command::new("llvm-profdata-22")
                .arg("merge")
                .arg("-o")
                .arg(out)
                .args(inputs),
        );
    };
    let raw_profiles = |dir: &Path| -> Vec<PathBuf> {
        let list = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        list.map(|e| e.unwrap().path()).collect()
    };
    // The IR profile CS-PGO starts from.
    let gen = t.compile(Clang, src, &["-O2", "-flto", "-fprofile-generate=gen"]);
    let exe = link_as_lld_in(
        &t,
        "ir",
        lld_22(),
        &[&gen],
        &["-O2", "-flto", "-fprofile-generate=gen"],
    );
    run_checked(Command::new(&exe).current_dir(t.dir()));
    let ir = t.path("ir.profdata");
    profdata(&ir, &strs_paths(&raw_profiles(&t.path("gen"))));

    let use_ir = format!("-fprofile-use={}", ir.display());
    let cs_flags = ["-O2", "-flto", &use_ir, "-fcs-profile-generate=csgen"];
    let obj = t.compile(Clang, src, &cs_flags);
    let mut merged = Vec::new();
    for (name, ld) in [("lld", lld_22()), ("rld", rld_path().as_path())] {
        let exe = link_as_lld_in(&t, name, ld, &[&obj], &cs_flags);
        run_checked(Command::new(&exe).current_dir(exe.parent().unwrap()));
        let raw = raw_profiles(&exe.with_file_name("csgen"));
        let cs = t.path(&format!("{name}.profdata"));
        profdata(&cs, &[&strs_paths(&raw)[..], &[ir.as_path()]].concat());
        let shown = run_checked(
            Command::new("llvm-profdata-22")
                .args(["show", "--showcs", "--all-functions"])
                .arg(&cs),
        );
        let shown = String::from_utf8_lossy(&shown.stdout).into_owned();
        merged.push((cs, shown));
    }
    let functions = |shown: &str| {
        shown
            .lines()
            .find(|l| l.starts_with("Total functions:"))
            .map(str::to_string)
    };
    assert_eq!(
        functions(&merged[1].1),
        functions(&merged[0].1),
        "{}",
        merged[1].1
    );
    assert!(
        merged[1].1.contains("main:"),
        "no context-sensitive counters: {}",
        merged[1].1
    );

    let mut counts = Vec::new();
    for (name, ld) in [("lld-use", lld_22()), ("rld-use", rld_path().as_path())] {
        // Each linker's own profile: internal functions are named after the module.
        let profile = &merged[usize::from(name == "rld-use")].0;
        let use_cs = format!("-fprofile-use={}", profile.display());
        let exe = link_as_lld_in(
            &t,
            name,
            ld,
            &[&obj],
            &["-O2", "-flto", &use_cs, "-Wl,--save-temps"],
        );
        let out = run(&exe, &[], &[]);
        assert_output_is(&exe, &out, "1502500\n", name);
        counts.push(entry_count(
            &llvm_dis(&exe.with_file_name("x.0.4.opt.bc")),
            "hot",
        ));
    }
    assert_eq!(
        counts[1], counts[0],
        "hot's entry count with the CS profile"
    );
    assert!(counts[1].is_some());
}

/// Strings of paths, for `Command::args`.
fn strs_paths(v: &[PathBuf]) -> Vec<&Path> {
    v.iter().map(PathBuf::as_path).collect()
}

/// `-gsplit-dwarf -flto`: clang passes `-plugin-opt=dwo_dir=x-dwo`; the DWARF goes to
/// `x-dwo/0.dwo` and the program keeps a skeleton unit naming it, as in lld's link; gdb
/// finds the lines through it.
#[test]
fn split_dwarf_goes_to_dwo_files_as_lld() {
    let t = Test::new();
    let flags = ["-O2", "-flto", "-g", "-gsplit-dwarf"];
    let obj = t.compile(Clang, PROFILED, &flags);
    let (lld, rld) = lld_and_rld(&t, "", &[&obj], &flags, "1502500\n");
    let skeleton = |exe: &Path| {
        let info = tool_stdout("readelf", &["--debug-dump=info", "--dwarf-depth=1"], exe);
        info.lines()
            .filter(|l| l.contains("DW_AT_dwo_name") || l.contains("DW_TAG_"))
            .map(|l| {
                l.split_once(')')
                    .map_or(l, |(_, rest)| rest)
                    .trim()
                    .to_string()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(skeleton(&rld), skeleton(&lld));
    assert!(
        skeleton(&rld).iter().any(|l| l.ends_with("x-dwo/0.dwo")),
        "{:?}",
        skeleton(&rld)
    );
    let dwo = rld.with_file_name("x-dwo/0.dwo");
    let subprograms = |dwo: &Path| {
        tool_stdout("llvm-dwarfdump-22", &[], dwo)
            .matches("DW_TAG_subprogram")
            .count()
    };
    assert_eq!(
        subprograms(&dwo),
        subprograms(&lld.with_file_name("x-dwo/0.dwo"))
    );
    assert!(subprograms(&dwo) >= 2);
    let gdb = run_checked(
        Command::new("gdb")
            .args(["-batch", "-nx", "-ex", "info line hot"])
            .arg(&rld)
            .current_dir(rld.parent().unwrap()),
    );
    let said = String::from_utf8_lossy(&gdb.stdout);
    assert!(said.contains("Line 2 of"), "gdb: {said}");
}

/// lld's code generator options for basic blocks: `--lto-basic-block-address-map` (the
/// `SHT_LLVM_BB_ADDR_MAP` profilers read, copied to the output) and
/// `--lto-basic-block-sections=all` with `--lto-unique-basic-block-section-names` (a
/// section per block in LTO's object), as lld's LTO compiles them.
#[test]
fn basic_block_options_reach_the_code_generator_as_lld() {
    let t = Test::new();
    let obj = t.compile(Clang, PROFILED, &["-O2", "-flto"]);
    let map = ["-O2", "-flto", "-Wl,--lto-basic-block-address-map"];
    let (lld, rld) = lld_and_rld(&t, "-map", &[&obj], &map, "1502500\n");
    let functions = |exe: &Path| {
        let text = tool_stdout("llvm-readobj-22", &["--bb-addr-map"], exe);
        text.lines()
            .filter(|l| l.trim_start().starts_with("Name:"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(functions(&rld), functions(&lld));
    assert!(
        functions(&rld).iter().any(|l| l.ends_with("main")),
        "{:?}",
        functions(&rld)
    );

    let sections_flags = [
        "-O2",
        "-flto",
        "-Wl,--lto-basic-block-sections=all",
        "-Wl,--lto-unique-basic-block-section-names",
        "-Wl,--save-temps",
    ];
    let (lld, rld) = lld_and_rld(&t, "-bbs", &[&obj], &sections_flags, "1502500\n");
    let main_parts = |exe: &Path| {
        let mut names: Vec<String> = section_names(&sections(&exe.with_file_name("x.lto.o")))
            .into_iter()
            .filter(|n| n.starts_with(".text.main"))
            .collect();
        names.sort();
        names
    };
    assert_eq!(main_parts(&rld), main_parts(&lld));
    assert!(main_parts(&rld).len() > 1, "{:?}", main_parts(&rld));
}

/// `-fdiagnostics-hotness-threshold=N` with `-fsave-optimization-record` and a profile:
/// clang passes `-plugin-opt=opt-remarks-hotness-threshold=N`, and LLVM's remarks of code
/// run fewer than N times are left out, the same ones as in lld's file.
#[test]
fn remarks_hotness_threshold_filters_llvm_s_remarks_as_lld() {
    let t = Test::new();
    let profile = t.write(
        "b.prof",
        "main:900000:1\n 3: 90000\n 4: 90000 hot:777777\nhot:777777:777777\n 0: 777777\n",
    );
    let use_profile = format!("-fprofile-sample-use={}", profile.display());
    let obj = t.compile(
        Clang,
        PROFILED,
        &["-O2", "-flto", "-gline-tables-only", &use_profile],
    );
    let mut kept = Vec::new();
    for threshold in [0, 100_000] {
        let flags = [
            "-O2",
            "-flto",
            &use_profile,
            "-fsave-optimization-record",
            "-fdiagnostics-show-hotness",
            &format!("-fdiagnostics-hotness-threshold={threshold}"),
        ];
        let mut hot = Vec::new();
        for (dir, ld) in [("lld", lld_22()), ("rld", rld_path().as_path())] {
            let dir = format!("{dir}-{threshold}");
            let exe = link_as_lld_in(&t, &dir, ld, &[&obj], &flags);
            let file = exe.with_file_name("x-opt.ld.yaml");
            let llvm: Vec<(String, String, String, Option<u64>)> = remarks(&file)
                .into_iter()
                .filter(|r| r.hotness.is_some())
                .map(|r| (r.pass, r.name, r.function, r.hotness))
                .collect();
            assert!(
                llvm.iter().all(|r| r.3 >= Some(threshold)),
                "{dir}: {llvm:?}"
            );
            hot.push(llvm);
        }
        assert_eq!(hot[1], hot[0], "threshold {threshold}");
        kept.push(hot[1].len());
    }
    assert!(kept[1] < kept[0] && kept[1] > 0, "{kept:?}");
}

/// lld's options for LLVM's pipeline: `--lto-newpm-passes` runs the given pipeline
/// instead of `lto<On>` (here `default<O0>`: nothing is inlined, as in lld's module),
/// `--lto-debug-pass-manager` prints the passes as they run, `--lto-aa-pipeline` picks the
/// alias analyses (an unknown one is an error naming the option, where lld-22 aborts), and
/// `--no-lto-pgo-warn-mismatch` is taken.
#[test]
fn pipeline_options_reach_llvm_as_lld() {
    let t = Test::new();
    let obj = t.compile(Clang, PROFILED, &["-O2", "-flto"]);
    let flags = [
        "-O2",
        "-flto",
        "-Wl,--lto-newpm-passes=default<O0>",
        "-Wl,--save-temps",
    ];
    let (lld, rld) = lld_and_rld(&t, "", &[&obj], &flags, "1502500\n");
    let defined = |exe: &Path| {
        let ir = llvm_dis(&exe.with_file_name("x.0.4.opt.bc"));
        ir.lines().filter(|l| l.starts_with("define")).count()
    };
    assert_eq!(defined(&rld), defined(&lld));
    assert!(
        ir_function(&llvm_dis(&rld.with_file_name("x.0.4.opt.bc")), "main")
            .iter()
            .any(|l| l.contains("@hot("))
    );

    let logged = t.path("logged");
    let mut cmd = Command::new("clang-22");
    cmd.args([
        "-O2",
        "-flto",
        "-fuse-ld=lld",
        "-Wl,--lto-debug-pass-manager",
    ])
    .args([
        "-Wl,--lto-aa-pipeline=basic-aa",
        "-Wl,--no-lto-pgo-warn-mismatch",
    ])
    .arg(format!("--ld-path={}", rld_path().display()))
    .arg(&obj)
    .arg("-o")
    .arg(&logged);
    let out = run_checked(&mut cmd);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Running pass: InlinerPass"), "{stderr}");
    assert_output_is(&logged, &run(&logged, &[], &[]), "1502500\n", "logged");

    let refused = t.path("refused");
    let out = Command::new("clang-22")
        .args([
            "-O2",
            "-flto",
            "-fuse-ld=lld",
            "-Wl,--lto-aa-pipeline=no-such-aa",
        ])
        .arg(format!("--ld-path={}", rld_path().display()))
        .arg(&obj)
        .arg("-o")
        .arg(&refused)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && !refused.exists(), "{stderr}");
    assert!(
        stderr.contains("--lto-aa-pipeline: unknown alias analysis name 'no-such-aa'"),
        "{stderr}"
    );
}

/// The LTO cache is pruned after the link, as lld prunes its own: with LLVM's default
/// policy an entry unused for over a week goes (one a link reused stays), and
/// `--thinlto-cache-policy` sets the limits (here one entry); files that are not rld's
/// entries are left alone, and a policy LLVM would not take is refused.
#[test]
fn the_lto_cache_is_pruned_by_lld_s_policy() {
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &[]);
    let objs: Vec<&Path> = objs.iter().map(PathBuf::as_path).collect();
    let cache = t.path("cache");
    let cache_flag = format!("-Wl,--lto-cache-dir={}", cache.display());
    let entries = || -> Vec<PathBuf> {
        let mut e: Vec<PathBuf> = std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.extension()
                    .is_some_and(|x| x == "rldpart" || x == "rldsum")
            })
            .collect();
        e.sort();
        e
    };
    t.link(
        Driver::ClangRld,
        &objs,
        &["-flto", "-O2", &cache_flag],
        "first",
    );
    let first = entries();
    assert!(first.len() >= 3, "{first:?}");
    // A stale entry of another program, and a file of the user's.
    let stale = cache.join("0123456789abcdef0123456789abcdef.rldpart");
    std::fs::write(&stale, b"old").unwrap();
    let eight_days = std::time::Duration::from_secs(8 * 24 * 3600);
    let old = std::time::SystemTime::now() - eight_days;
    // One of the link's own entries is as old: the next link reuses it, so it stays.
    for p in [&stale, &first[0]] {
        std::fs::File::options()
            .append(true)
            .open(p)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let notes = cache.join("notes.txt");
    std::fs::write(&notes, b"mine").unwrap();
    // The first link pruned (and stamped) the cache: within LLVM's default interval of 20
    // minutes the next prunes only with a shorter one.
    let policy = "-Wl,--thinlto-cache-policy=prune_interval=0s";
    t.link(
        Driver::ClangRld,
        &objs,
        &["-flto", "-O2", &cache_flag, policy],
        "second",
    );
    assert!(!stale.exists(), "the stale entry stays");
    assert_eq!(entries(), first, "a reused entry went");
    assert!(notes.exists());
    let one = "-Wl,--thinlto-cache-policy=prune_interval=0s:cache_size_files=1";
    t.link(
        Driver::ClangRld,
        &objs,
        &["-flto", "-O2", &cache_flag, one],
        "third",
    );
    assert_eq!(entries().len(), 1, "{:?}", entries());
    let (res, cmd) = t.try_link(
        Driver::ClangRld,
        &objs,
        &["-flto", "-Wl,--thinlto-cache-policy=prune_after=1d"],
        "refused",
    );
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(!res.status.success(), "{cmd}");
    assert!(stderr.contains("--thinlto-cache-policy"), "{stderr}");
}

/// `--lto-emit-llvm` and `--lto-emit-asm` (`-plugin-opt=emit-llvm`, `emit-asm`): the
/// optimized program is written as one module, bitcode as the output and assembly as
/// OUT.lto.s, and nothing is linked, as lld does.
#[test]
fn lto_emit_llvm_and_asm_write_the_program_as_lld() {
    let t = Test::new();
    let objs = bitcode(&t, &["tu1.c", "tu2.c"], &[]);
    for (flag, tag) in [
        ("-Wl,--lto-emit-llvm", "llvm"),
        ("-Wl,-plugin-opt=emit-llvm", "opt"),
    ] {
        let flags = ["-O2", "-flto", flag];
        let lld = link_as_lld_in(&t, &format!("lld-{tag}"), lld_22(), &paths(&objs), &flags);
        let rld = link_as_lld_in(
            &t,
            &format!("rld-{tag}"),
            &rld_path(),
            &paths(&objs),
            &flags,
        );
        let defined = |bc: &Path| -> Vec<String> {
            let ir = llvm_dis(bc);
            let mut d: Vec<String> = ir
                .lines()
                .filter(|l| l.starts_with("define"))
                .filter_map(|l| l.split('@').nth(1)?.split('(').next().map(str::to_string))
                .collect();
            d.sort();
            d
        };
        assert!(
            std::fs::read(&rld).unwrap().starts_with(b"BC\xC0\xDE"),
            "{tag}"
        );
        assert_eq!(defined(&rld), defined(&lld), "{tag}");
        assert!(defined(&rld).iter().any(|f| f == "main"));
    }
    let flags = ["-O2", "-flto", "-Wl,--lto-emit-asm"];
    let lld = link_as_lld_in(&t, "lld-asm", lld_22(), &paths(&objs), &flags);
    let rld = link_as_lld_in(&t, "rld-asm", &rld_path(), &paths(&objs), &flags);
    for exe in [&lld, &rld] {
        assert!(!exe.exists(), "{} was linked", exe.display());
        let asm = std::fs::read_to_string(exe.with_file_name("x.lto.s")).unwrap();
        assert!(
            asm.lines().any(|l| l.starts_with("main:")),
            "{}",
            exe.display()
        );
    }
}

/// `--lto-CGO<n>` (lld's): the code generator's level, apart from the optimizer's. At 0
/// (LLVM's fast instruction selection, no scheduling) `main` is other code than at the
/// default, and at each level the same instructions as lld-22's LTO makes.
#[test]
fn lto_cgo_sets_the_code_generator_level_as_lld() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "#include <stdio.h>\nstatic int sq(int x) { return x * x; }\n\
         int acc(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i) ^ (s >> 3); return s; }\n\
         int main(int c, char **v) { (void)v; printf(\"%d\\n\", acc(c * 1000)); return 0; }\n",
        &["-O2", "-flto"],
    );
    let main_code = |exe: &Path| -> String {
        tool_stdout("objdump", &["-d", "--no-show-raw-insn", "-j", ".text"], exe)
            .lines()
            .skip_while(|l| !l.ends_with("<main>:"))
            .take_while(|l| !l.is_empty())
            .map(|l| {
                l.split_once(':')
                    .map_or(l, |(_, insn)| insn)
                    .trim()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut by_level = Vec::new();
    for (tag, flags) in [
        ("default", &["-flto"][..]),
        ("cgo0", &["-flto", "-Wl,--lto-CGO0"][..]),
    ] {
        let (lld, rld) = lld_and_rld(&t, tag, &[&obj], flags, "1882423873\n");
        let code = main_code(&rld);
        assert_eq!(code, main_code(&lld), "{tag}");
        by_level.push(code);
    }
    assert_ne!(by_level[0], by_level[1]);

    // The level is part of a cached object's key: a cache filled at the default gives no
    // object to a link at another level.
    let cache = format!("-Wl,--thinlto-cache-dir={}", t.path("cache").display());
    for (tag, level) in [
        ("cached-default", None),
        ("cached-cgo0", Some("-Wl,--lto-CGO0")),
    ] {
        let mut flags = vec!["-flto", cache.as_str()];
        flags.extend(level);
        let exe = link_as_lld_in(&t, tag, &rld_path(), &[&obj], &flags);
        let want = if level.is_some() {
            &by_level[1]
        } else {
            &by_level[0]
        };
        assert_eq!(&main_code(&exe), want, "{tag}");
    }
}

/// `--load-pass-plugin` (lld's): an LLVM pass plugin built the usual way (LLVM's symbols
/// left for the host to provide) is loaded into the LTO pipeline, and its pass runs where
/// it registers itself (here, first in the full-LTO pipeline, setting a variable to 42),
/// in one partition, in several, and in distributed jobs, as with lld; a plugin that
/// cannot be loaded is an error naming it.
#[test]
fn load_pass_plugin_runs_in_the_lto_pipeline_as_lld() {
    let t = Test::new();
    let source = t.write(
        "mark.cpp",
        r#"#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
using namespace llvm;
namespace {
struct Mark : PassInfoMixin<Mark> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    GlobalVariable *G = M.getGlobalVariable("plugin_mark", true);
    if (!G || !G->hasInitializer())
      return PreservedAnalyses::all();
    G->setInitializer(ConstantInt::get(G->getValueType(), 42));
    return PreservedAnalyses::none();
  }
};
} // namespace
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "mark", "1", [](PassBuilder &PB) {
            PB.registerFullLinkTimeOptimizationEarlyEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel) { MPM.addPass(Mark()); });
          }};
}
"#,
    );
    let cxxflags = String::from_utf8_lossy(
        &run_checked(Command::new("llvm-config-22").arg("--cxxflags")).stdout,
    )
    .into_owned();
    let plugin = t.path("mark.so");
    run_checked(
        Command::new("clang++-22")
            .args(["-shared", "-fPIC"])
            .args(cxxflags.split_whitespace())
            .arg(&source)
            .arg("-o")
            .arg(&plugin),
    );
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint plugin_mark = 0;\nint other(void);\n\
         int main(void) { printf(\"%d %d\\n\", plugin_mark, other()); return 0; }\n",
        &["-O2", "-flto"],
    );
    let other = t.compile(Clang, "int other(void) { return 1; }\n", &["-O2", "-flto"]);
    let objs: [&Path; 2] = [&main, &other];
    let load = format!("-Wl,--load-pass-plugin={}", plugin.display());
    let distributor = format!(
        "-Wl,--thinlto-distributor={}",
        workspace_dir().join("scripts/dtlto-local").display()
    );
    let lld = t.link(Driver::ClangLld, &objs, &[&load], "lld");
    assert_output_is(&lld, &run(&lld, &[], &[]), "42 1\n", "lld with the plugin");
    for (n, extra) in [
        vec![],
        vec!["-Wl,--lto-partitions=4"],
        vec![distributor.as_str()],
    ]
    .into_iter()
    .enumerate()
    {
        let mut flags = vec![load.as_str()];
        flags.extend(extra);
        let rld = t.link(Driver::ClangRld, &objs, &flags, &format!("rld-{n}"));
        assert_output_is(&rld, &run(&rld, &[], &[]), "42 1\n", &format!("{flags:?}"));
    }
    let plain = t.link(Driver::ClangRld, &objs, &[], "rld-plain");
    assert_output_is(
        &plain,
        &run(&plain, &[], &[]),
        "0 1\n",
        "without the plugin",
    );
    let (out, cmd) = t.try_link(
        Driver::ClangRld,
        &objs,
        &["-Wl,--load-pass-plugin=/nonexistent/plugin.so"],
        "rld-bad",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success()
            && stderr
                .contains("--load-pass-plugin: Could not load library '/nonexistent/plugin.so'"),
        "{cmd}\n{stderr}"
    );
}

/// Type tests (`-fsanitize=cfi`, `-fwhole-program-vtables`) are lowered from every module's
/// type metadata at once, so such a program is one partition (as lld's full LTO is one
/// module). Split, each partition saw only its own vtables: a valid virtual call through
/// another partition's class failed its CFI check (SIGILL). Now the valid calls run with
/// any partition count and distributed, a bad cast still traps as with lld, and the
/// whole-program devirtualization lld does (a call through a pure virtual with one
/// implementation made a load of a constant) is rld's too.
#[test]
fn type_tests_keep_the_program_in_one_partition() {
    let t = Test::new();
    let header = t.write(
        "base.h",
        "struct Base { virtual int f() = 0; virtual ~Base() {} };\n\
         Base *make_a(); Base *make_b(); Base *make_bad(); int call(Base *b);\n",
    );
    let include = format!("-I{}", header.parent().unwrap().display());
    let cfi = [
        "-O2",
        "-flto",
        "-fsanitize=cfi",
        "-fvisibility=hidden",
        include.as_str(),
    ];
    let units = [
        "#include \"base.h\"\nstruct A : Base { int f() override { return 10; } };\n\
         Base *make_a() { return new A; }\n",
        "#include \"base.h\"\nstruct B : Base { int f() override { return 100; } };\n\
         Base *make_b() { return new B; }\n\
         struct Other { virtual int g() { return 5; } virtual ~Other() {} };\n\
         Base *make_bad() { return reinterpret_cast<Base *>(new Other); }\n",
        "#include \"base.h\"\n__attribute__((noinline)) int call(Base *b) { return b->f(); }\n",
        "#include <cstdio>\n#include <cstring>\n#include \"base.h\"\n\
         int main(int argc, char **argv) {\n\
         if (argc > 1) return call(make_bad());\n\
         printf(\"%d %d\\n\", call(make_a()), call(make_b())); return 0; }\n",
    ];
    let objs: Vec<PathBuf> = units
        .iter()
        .map(|u| t.compile_cxx(Clang, u, &cfi))
        .collect();
    let objs = paths(&objs);
    let sanitize = ["-flto", "-fsanitize=cfi"];
    let lld = t.link_cxx(Driver::ClangLld, &objs, &sanitize, "lld", false);
    let distributor = format!(
        "-Wl,--thinlto-distributor={}",
        workspace_dir().join("scripts/dtlto-local").display()
    );
    let mut runs = vec![lld];
    for (n, extra) in [
        None,
        Some("-Wl,--lto-partitions=4"),
        Some(distributor.as_str()),
    ]
    .into_iter()
    .enumerate()
    {
        let mut flags = sanitize.to_vec();
        flags.extend(extra);
        runs.push(t.link_cxx(Driver::ClangRld, &objs, &flags, &format!("rld-{n}"), false));
    }
    for exe in &runs {
        assert_output_is(exe, &run(exe, &[], &[]), "10 100\n", "valid calls");
        // The bad cast traps (ud2: SIGILL).
        let bad = run(exe, &["bad"], &[]);
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(bad.status.signal(), Some(4), "{}: {bad:?}", exe.display());
    }

    // Whole-program vtables: one implementation of a pure virtual in the program.
    let wpd = [
        "-O2",
        "-flto",
        "-fwhole-program-vtables",
        "-fvisibility=hidden",
    ];
    let lib = t.compile_cxx(
        Clang,
        "struct Shape { virtual int sides() = 0; virtual ~Shape() {} };\n\
         struct Square : Shape { int sides() override { return 4; } };\n\
         Shape *make() { return new Square; }\n\
         __attribute__((noinline)) int count(Shape *s) { return s->sides(); }\n",
        &wpd,
    );
    let main = t.compile_cxx(
        Clang,
        "#include <cstdio>\nstruct Shape;\nShape *make(); int count(Shape *);\n\
         int main() { printf(\"%d\\n\", count(make())); return 0; }\n",
        &wpd,
    );
    let indirect = |exe: &Path| -> bool {
        tool_stdout("objdump", &["-d", "--no-show-raw-insn"], exe)
            .lines()
            .skip_while(|l| !l.contains("<_Z5countP5Shape>:"))
            .skip(1)
            .take_while(|l| !l.is_empty())
            .any(|l| l.contains("call   *") || l.contains("jmp    *"))
    };
    let lld = t.link_cxx(
        Driver::ClangLld,
        &[&lib, &main],
        &["-flto"],
        "wpd-lld",
        false,
    );
    let rld = t.link_cxx(
        Driver::ClangRld,
        &[&lib, &main],
        &["-flto", "-Wl,--lto-partitions=4"],
        "wpd-rld",
        false,
    );
    for exe in [&lld, &rld] {
        assert_output_is(exe, &run(exe, &[], &[]), "4\n", "devirtualized");
    }
    assert!(!indirect(&lld), "lld devirtualizes");
    assert!(!indirect(&rld), "rld devirtualizes as lld does");
}
