//! GNU ld options whose whole effect is in the output's headers or on the console, each
//! checked against lld-22 given the same option: `-z origin|nodelete|nodlopen` (dynamic
//! flags), `-z shstk` (the x86 feature property), `-z max-page-size`/`-z common-page-size`
//! (segment alignment), `-z stack-size`, `-x` (no local symbols), `--print-gc-sections`, and
//! the policy for undefined symbols (`--unresolved-symbols`, `--warn-unresolved-symbols`,
//! `-z defs`/`undefs`).

use rld_tests::Compiler::{Clang, Gcc};
use rld_tests::*;
use std::path::{Path, PathBuf};

const LIB: &str = "static int counter;\nstatic int bump(void) { return ++counter; }\n\
    int used(void) { return bump(); }\n\
    __attribute__((section(\".text.unused\"))) int unused(void) { return 42; }\n";
const MAIN: &str = "#include <stdio.h>\nint used(void);\n\
    int main(void) { used(); printf(\"%d\\n\", used()); return 0; }\n";

/// main and the library object, compiled with a section per function.
fn objects(t: &Test) -> (PathBuf, PathBuf) {
    let flags = ["-O1", "-ffunction-sections", "-fPIC"];
    (
        t.compile(Clang, MAIN, &flags),
        t.compile(Clang, LIB, &flags),
    )
}

/// The same link by lld (`lld/OUT`) and rld (`rld/OUT`).
fn both(t: &Test, objs: &[&Path], flags: &[&str], out: &str) -> (PathBuf, PathBuf) {
    (
        t.link(Driver::ClangLld, objs, flags, &format!("lld/{out}")),
        t.link(Driver::ClangRld, objs, flags, &format!("rld/{out}")),
    )
}

/// One link through a driver: whether it succeeded, its command line and output, and where
/// the output went.
struct Run {
    ok: bool,
    cmd: String,
    stdout: String,
    stderr: String,
    output: PathBuf,
}

/// The same link by lld and by rld (into `clang-lld/OUT` and `clang-rld/OUT`), succeeding
/// or not: `[lld, rld]`.
fn run_both(t: &Test, objs: &[&Path], flags: &[&str], out: &str) -> [Run; 2] {
    [Driver::ClangLld, Driver::ClangRld].map(|driver| {
        std::fs::create_dir_all(t.path(driver.name())).unwrap();
        let output = format!("{}/{out}", driver.name());
        let (res, cmd) = t.try_link(driver, objs, flags, &output);
        Run {
            ok: res.status.success(),
            cmd,
            stdout: String::from_utf8_lossy(&res.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&res.stderr).into_owned(),
            output: t.path(&output),
        }
    })
}

#[test]
fn dynamic_flags_from_z_keywords() {
    let t = Test::new();
    let (_, lib) = objects(&t);
    for (keyword, flags, flags_1) in [
        ("origin", Some("ORIGIN"), "ORIGIN"),
        ("nodelete", None, "NODELETE"),
        ("nodlopen", None, "NOOPEN"),
        ("initfirst", None, "INITFIRST"),
        ("interpose", None, "INTERPOSE"),
        ("nodefaultlib", None, "NODEFLIB"),
        ("global", None, "GLOBAL"),
    ] {
        let z = format!("-Wl,-z,{keyword}");
        let (lld, rld) = both(&t, &[&lib], &["-shared", &z], &format!("{keyword}.so"));
        for (tag, want) in [("FLAGS", flags), ("FLAGS_1", Some(flags_1))] {
            let ours = dyn_values(&dynamic(&rld), tag);
            assert_eq!(
                ours,
                dyn_values(&dynamic(&lld), tag),
                "-z {keyword}: DT_{tag}"
            );
            match want {
                Some(w) => assert!(
                    ours.iter().any(|v| v.split_whitespace().any(|f| f == w)),
                    "-z {keyword}: no {w} in DT_{tag}: {ours:?}"
                ),
                None => assert!(ours.is_empty(), "-z {keyword}: DT_{tag} {ours:?}"),
            }
        }
    }
}

/// `readelf -n`'s x86 feature line of the `.note.gnu.property`, if any.
fn x86_features(path: &Path) -> Option<String> {
    tool_stdout("readelf", &["-nW"], path)
        .lines()
        .find(|l| l.contains("x86 feature"))
        .map(|l| l.trim().to_string())
}

#[test]
fn z_shstk_marks_the_output() {
    let t = Test::new();
    // Objects without a property note: only the option can mark the output.
    let (main, lib) = objects(&t);
    let (lld, rld) = both(&t, &[&main, &lib], &["-Wl,-z,shstk"], "prog");
    let ours = x86_features(&rld);
    assert_eq!(ours, x86_features(&lld));
    assert!(
        ours.as_deref().is_some_and(|l| l.contains("SHSTK")),
        "{ours:?}"
    );
    assert!(has_segment(&segments(&rld), "GNU_PROPERTY"));
    assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
    let (_, plain) = both(&t, &[&main, &lib], &[], "plain");
    assert_eq!(x86_features(&plain), None);
}

#[test]
fn max_page_size_aligns_the_segments() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    for kind in ["-pie", "-no-pie"] {
        let flags = [
            kind,
            "-Wl,-z,max-page-size=0x200000",
            "-Wl,-z,common-page-size=0x1000",
        ];
        let (lld, rld) = both(&t, &[&main, &lib], &flags, &format!("prog{kind}"));
        assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
        let loads = |p: &Path| -> Vec<Segment> {
            segments(p)
                .into_iter()
                .filter(|s| s.typ == "LOAD")
                .collect()
        };
        let (ours, theirs) = (loads(&rld), loads(&lld));
        assert_eq!(ours.len(), theirs.len(), "{kind}");
        for (s, l) in ours.iter().zip(&theirs) {
            assert_eq!(
                (s.align, s.flags.as_str()),
                (l.align, l.flags.as_str()),
                "{kind}"
            );
            assert_eq!(s.vaddr % 0x20_0000, s.offset % 0x20_0000, "{kind}: {s:?}");
            // Each segment on its own 2 MiB page, as lld places them.
            assert_eq!(
                s.vaddr / 0x20_0000,
                l.vaddr / 0x20_0000,
                "{kind}: {s:?} {l:?}"
            );
        }
    }
}

/// The `.symtab` symbols with local binding, but the null and section symbols.
fn locals(path: &Path) -> Vec<String> {
    symbols(path)
        .into_iter()
        .filter(|s| s.table == ".symtab" && s.bind == "LOCAL" && s.typ != "SECTION")
        .filter(|s| !s.name.is_empty())
        .map(|s| format!("{} {}", s.typ, s.name))
        .collect()
}

#[test]
fn discard_all_drops_the_objects_local_symbols() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let (_, with) = both(&t, &[&main, &lib], &[], "with");
    assert!(
        locals(&with).iter().any(|s| s.ends_with(" counter")),
        "{:?}",
        locals(&with)
    );
    let (lld, rld) = both(&t, &[&main, &lib], &["-Wl,-x"], "without");
    assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
    let ours = locals(&rld);
    assert!(
        !ours
            .iter()
            .any(|s| s.ends_with(" counter") || s.ends_with(" bump") || s.starts_with("FILE")),
        "{ours:?}"
    );
    // What stays local is what the link itself makes local (hidden symbols, _DYNAMIC, ...),
    // as in lld's output.
    let mut theirs = locals(&lld);
    let mut ours = ours;
    theirs.sort();
    ours.sort();
    for s in &ours {
        assert!(
            theirs.contains(s),
            "{s} is local in rld's output only: {theirs:?}"
        );
    }
}

/// `.L` temporaries (kept by the assembler with `-save-temp-labels`): kept by default, as GNU
/// ld and lld keep them, but not in a mergeable section (lld's rule, for the `.LCPI0_0` an
/// LTO object has); `-X` drops them, `--discard-none` keeps them all.
#[test]
fn discard_locals_drops_temporary_labels() {
    let t = Test::new();
    let asm = t.write(
        "labels.s",
        ".globl _start\n_start:\n.Ltemp:\nplain_local:\n  movq .Lconst(%rip), %rdi\n  xor %edi, %edi\n  mov $60, %eax\n  syscall\n\
         .section .rodata.cst8,\"aM\",@progbits,8\n.Lconst:\n  .quad 7\n",
    );
    let obj = t.path("labels.o");
    run_checked(
        std::process::Command::new("llvm-mc-22")
            .args(["-filetype=obj", "-triple=x86_64", "-save-temp-labels"])
            .arg(&asm)
            .arg("-o")
            .arg(&obj),
    );
    for (flags, temp_kept, const_kept) in [
        (&[][..], true, false),
        (&["-X"][..], false, false),
        (&["-X", "--discard-none"][..], true, true),
    ] {
        let tag = flags.join("");
        let rld = t.link(Driver::Rld, &[&obj], flags, &format!("rld{tag}"));
        // GNU ld makes up an STT_FILE symbol for an object without one; lld and rld do not.
        let labels = |p: &Path| -> Vec<String> {
            locals(p)
                .into_iter()
                .filter(|s| !s.starts_with("FILE"))
                .collect()
        };
        let mut names = vec![labels(&rld)];
        // GNU ld and lld agree here.
        for reference in ["ld", "ld.lld-22"] {
            let exe = t.path(&format!("{reference}{tag}"));
            run_checked(
                std::process::Command::new(reference)
                    .args(flags)
                    .arg(&obj)
                    .arg("-o")
                    .arg(&exe),
            );
            names.push(labels(&exe));
        }
        // GNU ld keeps `.L` labels in mergeable sections: compared without them.
        let unmerged = |v: &[String]| -> Vec<String> {
            v.iter()
                .filter(|s| !s.ends_with(".Lconst"))
                .cloned()
                .collect()
        };
        assert_eq!(
            unmerged(&names[0]),
            unmerged(&names[1]),
            "{flags:?}: rld and GNU ld differ"
        );
        assert_eq!(names[0], names[2], "{flags:?}: rld and lld differ");
        assert_eq!(
            names[0].iter().any(|s| s.ends_with(" .Lconst")),
            const_kept,
            "{flags:?}: {:?}",
            names[0]
        );
        assert_eq!(
            names[0].iter().any(|s| s.ends_with(" .Ltemp")),
            temp_kept,
            "{flags:?}: {:?}",
            names[0]
        );
        assert!(names[0].iter().any(|s| s.ends_with(" plain_local")));
    }
}

#[test]
fn print_gc_sections_lists_what_gc_removes() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let flags = ["-Wl,--gc-sections", "-Wl,--print-gc-sections"];
    let lines = run_both(&t, &[&main, &lib], &flags, "prog").map(|r| {
        assert!(r.ok, "{}", r.cmd);
        let mut printed: Vec<String> = r
            .stdout
            .lines()
            .chain(r.stderr.lines())
            .filter(|l| l.contains("removing unused section"))
            .map(|l| l.trim_start_matches("ld.lld: ").to_string())
            .collect();
        printed.sort();
        printed
    });
    let want = format!("removing unused section {}:(.text.unused)", lib.display());
    assert!(lines[1].contains(&want), "{want} not in {:?}", lines[1]);
    // The same list as lld's, the C runtime's sections included.
    assert_eq!(lines[1], lines[0]);

    // `--print-gc-sections=FILE` (lld-22's): the same lines, into the file.
    let files = [Driver::ClangLld, Driver::ClangRld].map(|d| {
        let file = t.path(&format!("{}-gc.txt", d.name()));
        let flags = [
            "-Wl,--gc-sections",
            &format!("-Wl,--print-gc-sections={}", file.display()),
        ];
        t.link(d, &[&main, &lib], &flags, &format!("{}-to-file", d.name()));
        let mut lines: Vec<String> = std::fs::read_to_string(&file)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        lines.sort();
        lines
    });
    assert_eq!(files[1], lines[1]);
    assert_eq!(files[1], files[0]);
}

#[test]
fn z_stack_size_sets_the_stack_segment() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let (lld, rld) = both(&t, &[&main, &lib], &["-Wl,-z,stack-size=0x180000"], "prog");
    assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
    let stack = |p: &Path| {
        segments(p)
            .into_iter()
            .find(|s| s.typ == "GNU_STACK")
            .map(|s| (s.memsz, s.flags))
    };
    assert_eq!(stack(&rld), Some((0x18_0000, "RW".to_string())));
    assert_eq!(stack(&rld), stack(&lld));
    // lld's `-z nognustack`: no PT_GNU_STACK; `-z rela` (x86-64's kind anyway) changes nothing.
    let flags = ["-Wl,-z,nognustack", "-Wl,-z,rela"];
    let (lld, rld) = both(&t, &[&main, &lib], &flags, "nognustack");
    assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
    assert_eq!((stack(&rld), stack(&lld)), (None, None));
}

const CALLS_MISSING: &str = "#include <stdio.h>\nvoid missing(void);\n\
    int main(int c, char **v) { (void)v; if (c > 5) missing(); puts(\"ok\"); return 0; }\n";

/// Whether `missing` is an undefined dynamic symbol of `path`.
fn imports_missing(path: &Path) -> bool {
    find_symbols(&symbols(path), ".dynsym", "missing")
        .iter()
        .any(|s| s.ndx == "UND")
}

#[test]
fn unresolved_symbols_policy() {
    let t = Test::new();
    let obj = t.compile(Clang, CALLS_MISSING, &["-O1"]);
    // Ignored or warned about, the reference is left to the dynamic loader (or to 0 in a
    // static link), and the program runs while it does not call it.
    for (flags, warns) in [
        (&["-Wl,--unresolved-symbols=ignore-all"][..], false),
        (
            &["-Wl,--unresolved-symbols=ignore-in-object-files", "-no-pie"][..],
            false,
        ),
        (&["-Wl,--warn-unresolved-symbols"][..], true),
        (&["-Wl,-z,undefs"][..], false),
        (
            &["-Wl,--unresolved-symbols=ignore-all", "-static"][..],
            false,
        ),
    ] {
        let name = flags.join("").replace(['-', ',', '='], "");
        let outputs = run_both(&t, &[&obj], flags, &name).map(|r| {
            assert!(r.ok, "{}: {}", r.cmd, r.stderr);
            assert_eq!(
                r.stderr.contains("warning: undefined symbol: missing"),
                warns,
                "{}: {}",
                r.cmd,
                r.stderr
            );
            r.output
        });
        assert_same_output(&outputs[1], &outputs[0], &[], &[], Some("ok\n"));
        assert_eq!(
            imports_missing(&outputs[1]),
            imports_missing(&outputs[0]),
            "{flags:?}"
        );
    }
    // Reported: the default for executables, and in -shared output when asked; the last
    // option wins.
    let pic = t.compile(Clang, CALLS_MISSING, &["-O1", "-fPIC"]);
    for (objs, flags) in [
        (&obj, &[][..]),
        (
            &obj,
            &[
                "-Wl,--unresolved-symbols=ignore-all",
                "-Wl,--error-unresolved-symbols",
                "-Wl,-z,defs",
            ][..],
        ),
        (
            &pic,
            &["-shared", "-Wl,--unresolved-symbols=report-all"][..],
        ),
        (
            &pic,
            &["-shared", "-Wl,--unresolved-symbols=ignore-in-shared-libs"][..],
        ),
        (
            &pic,
            &["-shared", "-Wl,-z,undefs", "-Wl,--no-undefined"][..],
        ),
    ] {
        for r in run_both(&t, &[objs], flags, "bad") {
            assert!(!r.ok, "{} succeeded", r.cmd);
            assert!(
                r.stderr.contains("error: undefined symbol: missing"),
                "{}: {}",
                r.cmd,
                r.stderr
            );
        }
    }
    // The -shared default: left to the dynamic loader.
    let (lld, rld) = both(&t, &[&pic], &["-shared"], "lib.so");
    assert!(imports_missing(&rld) && imports_missing(&lld));
}

/// `--image-base`: the first segment's address for every output kind, as lld places it
/// (a base that is not page-aligned warns, as in lld).
#[test]
fn image_base_moves_the_output() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let first_load = |p: &Path| {
        segments(p)
            .into_iter()
            .find(|s| s.typ == "LOAD")
            .map(|s| s.vaddr)
    };
    for kind in ["-pie", "-no-pie"] {
        let flags = [kind, "-Wl,--image-base=0x10000000"];
        let (lld, rld) = both(&t, &[&main, &lib], &flags, &format!("prog{kind}"));
        assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
        assert_eq!(first_load(&rld), Some(0x1000_0000), "{kind}");
        assert_eq!(first_load(&rld), first_load(&lld), "{kind}");
    }
    let (lld, rld) = both(
        &t,
        &[&lib],
        &["-shared", "-Wl,--image-base=0x20000000"],
        "lib.so",
    );
    assert_eq!(first_load(&rld), Some(0x2000_0000));
    assert_eq!(first_load(&rld), first_load(&lld));
    // The library still loads and runs where the loader puts it.
    let so_dir = rld.parent().unwrap().display().to_string();
    let exe = t.link(
        Driver::ClangRld,
        &[&main, &rld],
        &[&format!("-Wl,-rpath,{so_dir}")],
        "rld/uses-lib",
    );
    assert_output_is(
        &exe,
        &run(&exe, &[], &[]),
        "2\n",
        "a program using the moved library",
    );
    std::fs::create_dir_all(t.path("odd")).unwrap();
    let (out, cmd) = t.try_link(
        Driver::ClangRld,
        &[&main, &lib],
        &["-Wl,--image-base=0x10000800"],
        "odd/prog",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: --image-base: address isn't multiple of page size"),
        "{cmd}: {stderr}"
    );
}

/// `--require-defined` (GNU ld's): pulls the symbol from an archive like `-u`, and is an
/// error, worded as GNU ld words it, when nothing defines it.
#[test]
fn require_defined_pulls_and_checks() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let extra = t.compile(Clang, "int extra_symbol(void) { return 7; }\n", &["-fPIC"]);
    let archive = t.archive("libextra.a", &[&extra]);
    for driver in [Driver::GccLd, Driver::ClangRld] {
        let out = format!("{}/prog", driver.name());
        let exe = t.link(
            driver,
            &[&main, &lib, &archive],
            &["-Wl,--require-defined=extra_symbol"],
            &out,
        );
        assert!(
            nm_has(&exe, "extra_symbol"),
            "{}: the member was not pulled",
            driver.name()
        );
        let (res, cmd) = t.try_link(
            driver,
            &[&main, &lib],
            &["-Wl,--require-defined=no_such_symbol"],
            &format!("{}/bad", driver.name()),
        );
        assert!(!res.status.success(), "{cmd} succeeded");
        assert!(
            String::from_utf8_lossy(&res.stderr)
                .contains("required symbol `no_such_symbol' not defined"),
            "{cmd}: {}",
            String::from_utf8_lossy(&res.stderr)
        );
    }
}

/// The standard output of a link through `driver` with `flags`.
fn stdout_of(t: &Test, objs: &[&Path], flags: &[&str], out: &str) -> [String; 2] {
    run_both(t, objs, flags, out).map(|r| {
        assert!(r.ok, "{}: {}", r.cmd, r.stderr);
        r.stdout
    })
}

/// `-t` lists the files loaded (archive members as `lib.a(member.o)`, the libraries
/// `libc.so`'s script names) and `-y` the files defining or referencing a symbol, both in
/// lld's words and order.
#[test]
fn trace_and_trace_symbol() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let archive = t.archive("libused.a", &[&lib]);
    let flags = [
        "-Wl,-t",
        "-Wl,-y,used",
        "-Wl,-y,printf",
        "-Wl,-y,__libc_start_main",
        "-Wl,-y,main",
    ];
    let [lld, rld] = stdout_of(&t, &[&main, &archive], &flags, "prog");
    assert_eq!(rld, lld);
    for want in [
        format!("{}(", archive.display()),
        ": definition of used".to_string(),
        ": reference to used".to_string(),
        "libc.so.6: shared definition of printf".to_string(),
    ] {
        assert!(rld.contains(&want), "{want} missing:\n{rld}");
    }
    // Bitcode files are traced like objects (LTO's own output is not an input: lld also
    // lists it, rld does not).
    let bitcode = t.compile(Clang, LIB, &["-O1", "-flto", "-fPIC"]);
    let flags = ["-flto", "-Wl,-t", "-Wl,-y,used"];
    let [lld, rld] = stdout_of(&t, &[&main, &bitcode], &flags, "lto");
    assert!(
        lld.starts_with(&rld),
        "rld's lines are not lld's first ones:\n{rld}\nlld:\n{lld}"
    );
    assert!(
        rld.contains(&format!("{}: definition of used", bitcode.display())),
        "{rld}"
    );
}

/// An undefined symbol is reported as lld reports it: the C++ name demangled (unless
/// `--no-demangle`), the source file and the function that refers to it.
#[test]
fn undefined_symbol_diagnostics_match_lld() {
    let t = Test::new();
    let c = t.compile(Clang, CALLS_MISSING, &["-O1"]);
    let cxx = t.compile_cxx(
        Clang,
        "void missing_fn(int);\nnamespace ns { int caller() { missing_fn(3); return 0; } }\n\
         int main() { return ns::caller(); }\n",
        &["-O0"],
    );
    let errors = |driver: Driver, obj: &Path, flags: &[&str], out: &str| -> Vec<String> {
        std::fs::create_dir_all(t.path(driver.name())).unwrap();
        let (res, _) = t.try_link(driver, &[obj], flags, &format!("{}/{out}", driver.name()));
        assert!(!res.status.success());
        String::from_utf8_lossy(&res.stderr)
            .lines()
            .filter(|l| l.contains("error: undefined") || l.starts_with(">>>"))
            .map(|l| {
                l.split_once("error: ")
                    .map_or(l, |(_, rest)| rest)
                    .to_string()
            })
            .collect()
    };
    for (obj, flags, want) in [
        (&c, &[][..], "undefined symbol: missing"),
        (&cxx, &[][..], "undefined symbol: missing_fn(int)"),
        (
            &cxx,
            &["-Wl,--no-demangle"][..],
            "undefined symbol: _Z10missing_fni",
        ),
    ] {
        let name = format!("bad{}", flags.len());
        let ours = errors(Driver::ClangRld, obj, flags, &name);
        assert_eq!(ours.first().map(String::as_str), Some(want), "{ours:?}");
        assert!(
            ours.iter()
                .any(|l| l.contains(":(main)") || l.contains("caller")),
            "{ours:?}"
        );
        assert_eq!(ours, errors(Driver::ClangLld, obj, flags, &name));
    }
}

/// With debug info, an undefined symbol's references name the source line, as lld names
/// them (`>>> referenced by main.c:7 (/dir/main.c:7)`): from clang's and gcc's line
/// tables, DWARF 5 and 4, a source file in a subdirectory included.
#[test]
fn undefined_symbol_source_lines_match_lld() {
    let t = Test::new();
    for (cc, flags) in [
        (Clang, &["-g", "-O0"][..]),
        (Gcc, &["-g", "-O2"][..]),
        (Gcc, &["-gdwarf-4", "-O0"][..]),
        (Clang, &["-gdwarf-4", "-O1"][..]),
    ] {
        let objs = [
            t.compile(cc, "diag/refs_main.c", flags),
            t.compile(cc, "diag/sub/refs_helper.c", flags),
        ];
        let out = format!("refs-{}", flags.join(""));
        // One thread: lld-22 scans relocations in parallel and reports the undefined
        // symbols in the order its threads finish.
        let [lld, ours] = run_both(&t, &paths(&objs), &["-Wl,--threads=1"], &out);
        assert!(!lld.ok && !ours.ok);
        let refs = |stderr: &str| -> Vec<String> {
            stderr
                .lines()
                .filter(|l| l.starts_with(">>>"))
                .map(str::to_string)
                .collect()
        };
        let want = refs(&lld.stderr);
        assert!(
            want.iter().any(|l| l.contains("refs_main.c:7")),
            "{}",
            lld.stderr
        );
        assert_eq!(refs(&ours.stderr), want, "{}", ours.cmd);
    }
}

/// Which pattern of a version script wins, as lld decides (exact names, then globs of the
/// last node first, `global:` before `local:`, then `*` of the first node), and
/// `extern "C++"` patterns matching demangled names, quoted ones exactly.
#[test]
fn version_script_precedence_matches_lld() {
    let t = Test::new();
    let c = t.compile(
        Clang,
        "int foo_bar(void) { return 1; }\nint foo_baz(void) { return 2; }\nint zed(void) { return 3; }\n",
        &["-fPIC"],
    );
    let cxx = t.compile_cxx(
        Clang,
        "namespace ns { int f(int x) { return x; } int g(int x) { return x; }\n\
         int g2(int x) { return x; } }\nextern \"C\" int h(void) { return 1; }\n",
        &["-fPIC"],
    );
    let cases: [(&Path, &str); 7] = [
        (
            &c,
            "V1 { global: foo_*; local: *; };\nV2 { global: *_bar; } V1;\n",
        ),
        (&c, "V1 { local: foo_*; };\nV2 { global: *; } V1;\n"),
        (&c, "V1 { global: foo_*; };\nV2 { local: foo_b*; } V1;\n"),
        (&c, "V1 { local: *; };\nV2 { global: *; } V1;\n"),
        (&c, "V1 { global: foo_*; local: foo_bar*; };\n"),
        (
            &cxx,
            "V1 { global: extern \"C++\" { \"ns::f(int)\"; ns::g*; }; local: *; };\n",
        ),
        (
            &cxx,
            "V1 { global: h; extern \"C++\" { \"ns::g*\"; }; local: *; };\n",
        ),
    ];
    for (i, (obj, script)) in cases.iter().enumerate() {
        let map = t.write(&format!("v{i}.map"), script);
        let flag = format!("-Wl,--version-script={}", map.display());
        // The precedence alone: a quoted C++ name that matches nothing is allowed.
        let flags = ["-shared", &flag, "-Wl,--undefined-version"];
        let [lld, rld] = run_both(&t, &[obj], &flags, &format!("lib{i}.so"));
        assert!(
            lld.ok && rld.ok,
            "{}\n{}\n{}",
            rld.cmd,
            lld.stderr,
            rld.stderr
        );
        // `*` both local and global: one is ignored, and lld-22 warns; so does rld.
        let warnings = |r: &Run| -> Vec<String> {
            r.stderr
                .lines()
                .filter_map(|l| l.split_once("warning: ").map(|(_, w)| w.to_string()))
                .collect()
        };
        assert_eq!(warnings(&rld), warnings(&lld), "{script}");
        assert_eq!(exports(&rld.output), exports(&lld.output), "{script}");
    }
    // The C++ patterns matched what they name (not nothing).
    let (_, rld) = both(
        &t,
        &[&cxx],
        &[
            "-shared",
            &format!("-Wl,--version-script={}", t.path("v5.map").display()),
        ],
        "again.so",
    );
    assert_eq!(
        exports(&rld),
        ["_ZN2ns1fEi@V1", "_ZN2ns1gEi@V1", "_ZN2ns2g2Ei@V1"]
    );
}

/// lld's check of input shared libraries' undefined symbols (the default for executables,
/// for a library whose dependencies are all linked): the same outcome and message as lld.
#[test]
fn shared_library_undefined_symbols() {
    let t = Test::new();
    let lib_obj = t.compile(
        Clang,
        "int nowhere(void);\nint uses(void) { return nowhere(); }\n",
        &["-fPIC"],
    );
    let so = t.link(Driver::ClangLld, &[&lib_obj], &["-shared"], "lib/libsl.so");
    let main = t.compile(
        Clang,
        "int uses(void);\nint main(void) { return uses() * 0; }\n",
        &[],
    );
    let dir = format!("-L{}", so.parent().unwrap().display());
    for (flags, fails, warns) in [
        (&[][..], true, false),
        (&["-Wl,--allow-shlib-undefined"][..], false, false),
        (
            &[
                "-Wl,--no-allow-shlib-undefined",
                "-Wl,--warn-unresolved-symbols",
            ][..],
            false,
            true,
        ),
        (
            &["-Wl,--unresolved-symbols=ignore-in-shared-libs"][..],
            false,
            false,
        ),
        (
            &["-Wl,--unresolved-symbols=ignore-in-object-files"][..],
            true,
            false,
        ),
    ] {
        let mut all = vec![dir.as_str(), "-lsl"];
        all.extend(flags);
        let messages = run_both(&t, &[&main], &all, "prog").map(|r| {
            assert_eq!(!r.ok, fails, "{}", r.cmd);
            // lld-22's two lines: "...: undefined reference: nowhere", then
            // ">>> referenced by DSO (disallowed by --no-allow-shlib-undefined)".
            let lines: Vec<&str> = r.stderr.lines().collect();
            let line = lines
                .iter()
                .position(|l| l.contains("(disallowed by --no-allow-shlib-undefined)"))
                .filter(|&i| i > 0)
                .map(|i| {
                    let first = lines[i - 1];
                    let first = first.split_once(": ").map_or(first, |(_, rest)| rest);
                    format!("{first}\n{}", lines[i])
                });
            assert_eq!(line.is_some(), fails || warns, "{}: {}", r.cmd, r.stderr);
            line
        });
        assert_eq!(messages[0], messages[1], "{flags:?}");
    }
    // -shared output: the library's needs are its users' business.
    let (lld, rld) = both(&t, &[&main, &so], &["-shared"], "lib2.so");
    assert!(lld.exists() && rld.exists());
}

/// `--filter` and `--auxiliary`: DT_FILTER and DT_AUXILIARY name the filtered
/// libraries, as lld writes them.
#[test]
fn filter_and_auxiliary_entries() {
    let t = Test::new();
    let (_, lib) = objects(&t);
    let flags = [
        "-shared",
        "-Wl,--filter=libfiltered.so.1",
        "-Wl,--filter,libother.so.2",
        "-Wl,--auxiliary=libaux.so.3",
        // GNU ld's and lld's short name.
        "-Wl,-F,libshort.so.4",
    ];
    let (lld, rld) = both(&t, &[&lib], &flags, "filter.so");
    for tag in ["FILTER", "AUXILIARY"] {
        let ours = dyn_values(&dynamic(&rld), tag);
        assert!(!ours.is_empty(), "no DT_{tag}");
        assert_eq!(ours, dyn_values(&dynamic(&lld), tag), "DT_{tag}");
    }
    assert!(dyn_values(&dynamic(&rld), "FILTER")
        .iter()
        .any(|v| v.contains("libshort.so.4")));
}

/// `-push-state`/`-pop-state` with one dash (as lld takes them): the state after the pair
/// is the one before, so `-lm` inside is as-needed and dropped, as in lld's link.
#[test]
fn one_dash_push_and_pop_state() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let flags = [
        "-Wl,-push-state,--as-needed",
        "-lm",
        "-Wl,-pop-state",
        "-lz",
    ];
    let (lld, rld) = both(&t, &[&main, &lib], &flags, "prog");
    let needed = |p: &Path| dyn_values(&dynamic(p), "NEEDED");
    assert_eq!(needed(&rld), needed(&lld));
    assert!(
        !needed(&rld).iter().any(|n| n.contains("libm.")),
        "{:?}",
        needed(&rld)
    );
    assert!(
        needed(&rld).iter().any(|n| n.contains("libz.")),
        "{:?}",
        needed(&rld)
    );
}

/// The PT_LOADs of an output: (file offset, address, flags).
fn loads(p: &Path) -> Vec<(u64, u64, String)> {
    segments(p)
        .into_iter()
        .filter(|s| s.typ == "LOAD")
        .map(|s| (s.offset, s.vaddr, s.flags))
        .collect()
}

/// `-z separate-code`: the code segment and the one after it start on page boundaries of
/// the file, as lld lays them out; the program runs.
#[test]
fn separate_code_layout() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let (lld, rld) = both(&t, &[&main, &lib], &["-Wl,-z,separate-code"], "prog");
    assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
    let ours = loads(&rld);
    let exec = ours
        .iter()
        .position(|s| s.2.contains('E'))
        .expect("a code segment");
    for s in &ours[exec..exec + 2] {
        assert_eq!(s.0 % 4096, 0, "{ours:?}");
    }
    assert_eq!(
        ours.iter()
            .map(|s| (s.0 % 4096, s.2.clone()))
            .collect::<Vec<_>>(),
        loads(&lld)
            .iter()
            .map(|s| (s.0 % 4096, s.2.clone()))
            .collect::<Vec<_>>()
    );
}

/// `-z separate-loadable-segments` (lld's): every loadable segment starts on a page of its
/// own in the file and in memory, as lld lays them out (executable, PIE and shared
/// library); `-z noseparate-code` after it turns it off; the programs run.
#[test]
fn separate_loadable_segments_layout() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let flag = "-Wl,-z,separate-loadable-segments";
    for kind in ["-no-pie", "-pie"] {
        let (lld, rld) = both(&t, &[&main, &lib], &[kind, flag], &format!("prog{kind}"));
        assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
        let ours = loads(&rld);
        assert!(ours.len() >= 3, "{ours:?}");
        assert!(
            ours.iter().all(|s| s.0 % 4096 == 0 && s.1 % 4096 == 0),
            "{ours:?}"
        );
        assert_eq!(ours, loads(&lld));
    }
    let (lld_so, rld_so) = both(&t, &[&lib], &["-shared", flag], "lib.so");
    assert_eq!(loads(&rld_so), loads(&lld_so));
    let off = t.link(
        Driver::ClangRld,
        &[&main, &lib],
        &[flag, "-Wl,-z,noseparate-code"],
        "off",
    );
    assert!(loads(&off).iter().any(|s| s.0 % 4096 != 0));
}

/// `-Ttext`, `-Tdata`, `-Tbss` and `--section-start=NAME=ADDR` place those output sections
/// at their addresses, first in the image as lld orders them (in any spelling GNU ld
/// takes: `-Ttext=A`, `-Ttext A`); every segment's file offset stays congruent to its
/// address; the programs run as lld's. An address is hexadecimal with or without `0x`, as
/// GNU ld and lld read it. `-Ttext-segment` (GNU ld's) is `--image-base`.
#[test]
fn section_start_addresses_as_lld() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let addr = |p: &Path, name: &str| find_section(&sections(p), name).map(|s| s.addr);
    // (flags, the sections they place and where)
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, u64)]);
    let cases: [Case; 5] = [
        (&["-no-pie", "-Wl,-Ttext=0x500000"], &[(".text", 0x500000)]),
        (
            &[
                "-no-pie",
                "-Wl,-Ttext=501000",
                "-Wl,--section-start=.data=60a000",
            ],
            &[(".text", 0x501000), (".data", 0x60a000)],
        ),
        (&["-pie", "-Wl,-Ttext,0x300000"], &[(".text", 0x300000)]),
        (
            &[
                "-no-pie",
                "-Wl,--section-start=.data=0x800000",
                "-Wl,-Tbss=0x900000",
            ],
            &[(".data", 0x800000), (".bss", 0x900000)],
        ),
        (
            &[
                "-no-pie",
                "-Wl,--section-start,.rodata=0x700000",
                "-Wl,-Tdata",
                "-Wl,0x710000",
            ],
            &[(".rodata", 0x700000), (".data", 0x710000)],
        ),
    ];
    for (n, (flags, placed)) in cases.into_iter().enumerate() {
        let (lld, rld) = both(&t, &[&main, &lib], flags, &format!("prog{n}"));
        assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
        for &(name, at) in placed {
            assert_eq!(addr(&rld, name), Some(at), "{name} {flags:?}");
            assert_eq!(addr(&rld, name), addr(&lld, name));
        }
        for s in segments(&rld).iter().filter(|s| s.typ == "LOAD") {
            assert_eq!(s.offset % 4096, s.vaddr % 4096, "{flags:?}");
        }
    }
    let segment = t.link(
        Driver::ClangRld,
        &[&main, &lib],
        &["-Wl,-Ttext-segment=0x1000000"],
        "seg",
    );
    let base = t.link(
        Driver::ClangRld,
        &[&main, &lib],
        &["-Wl,--image-base=0x1000000"],
        "base",
    );
    assert_eq!(
        std::fs::read(&segment).unwrap(),
        std::fs::read(&base).unwrap()
    );
}

/// `--undefined-glob` (lld's): archive members that define matching symbols are loaded
/// although nothing refers to them.
#[test]
fn undefined_glob_loads_members() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let a = t.compile(Clang, "int plugin_alpha(void) { return 1; }\n", &["-fPIC"]);
    let b = t.compile(Clang, "int plugin_beta(void) { return 2; }\n", &["-fPIC"]);
    let c = t.compile(Clang, "int other_gamma(void) { return 3; }\n", &["-fPIC"]);
    let archive = t.archive("libplugins.a", &[&a, &b, &c]);
    let (lld, rld) = both(
        &t,
        &[&main, &lib, &archive],
        &["-Wl,--undefined-glob=plugin_*"],
        "prog",
    );
    assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
    for name in ["plugin_alpha", "plugin_beta", "other_gamma"] {
        assert_eq!(nm_has(&rld, name), nm_has(&lld, name), "{name}");
    }
    assert!(nm_has(&rld, "plugin_alpha") && nm_has(&rld, "plugin_beta"));
    assert!(!nm_has(&rld, "other_gamma"));
}

/// `--why-extract` (lld's): which reference loaded each archive member, in lld's format
/// and order (a `-u` symbol's reference is `<internal>`, `--undefined-glob`'s is the option).
#[test]
fn why_extract_matches_lld() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let lib_archive = t.archive("libused.a", &[&lib]);
    let extra = t.compile(Clang, "int extra_u(void) { return 1; }\n", &[]);
    let glob = t.compile(Clang, "int glob_me(void) { return 2; }\n", &[]);
    let archive = t.archive("libmore.a", &[&extra, &glob]);
    let flags = [
        "-Wl,--why-extract=-",
        "-Wl,-u,extra_u",
        "-Wl,--undefined-glob=glob_*",
    ];
    let [lld, rld] = stdout_of(&t, &[&main, &lib_archive, &archive], &flags, "why");
    assert_eq!(rld, lld);
    assert!(rld.starts_with("reference\textracted\tsymbol\n"), "{rld}");
    for want in ["\tused\n", "<internal>\t", "--undefined-glob\t"] {
        assert!(rld.contains(want), "{want:?} missing:\n{rld}");
    }
    // Into a file.
    let file = t.path("why.txt");
    let flag = format!("-Wl,--why-extract={}", file.display());
    t.link(
        Driver::ClangRld,
        &[&main, &lib_archive],
        &[&flag],
        "rld/why2",
    );
    assert!(std::fs::read_to_string(&file).unwrap().contains("\tused\n"));
}

/// `--dependency-file` (lld's): a Makefile rule with every file the link read (the C
/// runtime, what `libc.so`'s script names, archives, a version script), as lld writes it.
#[test]
fn dependency_file_matches_lld() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let archive = t.archive("libused.a", &[&lib]);
    let script = t.write("exports.map", "{ global: main; local: *; };\n");
    let mut rules = Vec::new();
    for driver in [Driver::ClangLld, Driver::ClangRld] {
        let deps = t.path(&format!("{}.d", driver.name()));
        let flags = [
            format!("-Wl,--dependency-file={}", deps.display()),
            format!("-Wl,--version-script={}", script.display()),
        ];
        t.link(driver, &[&main, &archive], &strs(&flags), "prog");
        rules.push(std::fs::read_to_string(&deps).unwrap());
    }
    assert_eq!(rules[1], rules[0]);
    for want in ["libused.a", "exports.map", "libc.so.6", "crti.o"] {
        assert!(rules[1].contains(want), "{want} missing:\n{}", rules[1]);
    }
}

/// `--verbose`: each file named as it is opened, the same files in the same order as lld.
#[test]
fn verbose_names_the_files_read() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let archive = t.archive("libused.a", &[&lib]);
    let lists = run_both(&t, &[&main, &archive], &["-Wl,--verbose"], "prog").map(|r| {
        assert!(r.ok, "{}", r.cmd);
        r.stderr
            .lines()
            .filter_map(|l| l.split_once(": ").map(|(_, f)| f.to_string()))
            .collect::<Vec<String>>()
    });
    assert_eq!(lists[1], lists[0]);
    assert!(
        lists[1].iter().any(|f| f.ends_with("libused.a")),
        "{:?}",
        lists[1]
    );
}

/// `--retain-symbols-file` (lld's meaning): only the listed symbols stay global, in the
/// dynamic symbol table and the symbol table alike.
#[test]
fn retain_symbols_file_keeps_only_the_listed() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "int foo_bar(void) { return 1; }\nint foo_baz(void) { return 2; }\nint zed(void) { return 3; }\n",
        &["-fPIC"],
    );
    let list = t.write("keep.txt", "foo_bar\n");
    let flag = format!("-Wl,--retain-symbols-file={}", list.display());
    let (lld, rld) = both(&t, &[&obj], &["-shared", &flag], "keep.so");
    assert_eq!(exports(&rld), exports(&lld));
    assert_eq!(exports(&rld), ["foo_bar@"]);
    let globals = |p: &Path| -> Vec<String> {
        let mut v: Vec<String> = symbols(p)
            .into_iter()
            .filter(|s| s.table == ".symtab" && s.bind == "GLOBAL" && s.ndx != "UND")
            .map(|s| s.name)
            .collect();
        v.sort();
        v.dedup();
        v
    };
    assert_eq!(globals(&rld), globals(&lld));
}

/// `--start-lib`/`--end-lib` (lld's lazy objects): the objects between them are linked only
/// when something needs them, as archive members; `-t` lists the same files as lld.
#[test]
fn start_lib_objects_are_lazy() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let unused = t.compile(Clang, "int never_needed(void) { return 9; }\n", &[]);
    let lib_s = lib.display().to_string();
    let unused_s = unused.display().to_string();
    let flags = [
        "-Wl,-t",
        "-Wl,--start-lib",
        &lib_s,
        &unused_s,
        "-Wl,--end-lib",
    ];
    let outputs = run_both(&t, &[&main], &flags, "prog").map(|r| {
        assert!(r.ok, "{}: {}", r.cmd, r.stderr);
        (r.output, r.stdout)
    });
    let (rld, lld) = (&outputs[1], &outputs[0]);
    assert_eq!(rld.1, lld.1, "-t");
    assert_same_output(&rld.0, &lld.0, &[], &[], Some("2\n"));
    assert!(nm_has(&rld.0, "used") && !nm_has(&rld.0, "never_needed"));
}

/// `-z nocopyreloc`: a non-PIC executable's reference to a library's variable, which would
/// need a copy relocation, is an error worded as lld words it; without it, the copy works.
#[test]
fn nocopyreloc_refuses_copy_relocations() {
    let t = Test::new();
    let var = t.compile(Clang, "int shared_var = 5;\n", &["-fPIC"]);
    let so = t.link(Driver::ClangLld, &[&var], &["-shared"], "lib/libsv.so");
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nextern int shared_var;\nint main(void) { printf(\"%d\\n\", shared_var); return 0; }\n",
        &["-fno-pic"],
    );
    let dir = so.parent().unwrap().display().to_string();
    let libs = [
        "-no-pie".to_string(),
        format!("-L{dir}"),
        "-lsv".to_string(),
        format!("-Wl,-rpath,{dir}"),
    ];
    let (lld, rld) = both(&t, &[&main], &strs(&libs), "copy");
    assert_same_output(&rld, &lld, &[], &[], Some("5\n"));
    let mut flags = strs(&libs);
    flags.push("-Wl,-z,nocopyreloc");
    let errors = run_both(&t, &[&main], &flags, "nocopy").map(|r| {
        assert!(!r.ok, "{}", r.cmd);
        r.stderr
            .lines()
            .filter(|l| l.contains("unresolvable relocation") || l.starts_with(">>>"))
            .map(|l| l.split_once("error: ").map_or(l, |(_, r)| r).to_string())
            .collect::<Vec<String>>()
    });
    assert!(!errors[1].is_empty());
    assert_eq!(errors[1], errors[0]);
}

/// `--warn-common`: lld's warnings when a common symbol meets another common or a
/// definition, in either order.
#[test]
fn warn_common_matches_lld() {
    let t = Test::new();
    let c1 = t.compile(
        Clang,
        "int cc;\nint main(void) { return cc; }\n",
        &["-fcommon"],
    );
    let c2 = t.compile(Clang, "int cc;\n", &["-fcommon"]);
    let c3 = t.compile(Clang, "int cc = 4;\n", &[]);
    for (i, objs) in [[&c1, &c2], [&c1, &c3], [&c3, &c1]].iter().enumerate() {
        let objs: Vec<&Path> = objs.iter().map(|p| p.as_path()).collect();
        let warnings = run_both(&t, &objs, &["-Wl,--warn-common"], &format!("p{i}")).map(|r| {
            assert!(r.ok, "{}", r.cmd);
            r.stderr
                .lines()
                .filter_map(|l| l.split_once("warning: ").map(|(_, w)| w.to_string()))
                .collect::<Vec<String>>()
        });
        assert!(!warnings[1].is_empty(), "case {i}");
        assert_eq!(warnings[1], warnings[0], "case {i}");
    }
}

/// `--print-archive-stats` (lld's): every archive named on the command line (as often as
/// it is named), its member count and how many members the link loaded.
#[test]
fn print_archive_stats_matches_lld() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let extra = t.compile(Clang, "int not_needed(void) { return 1; }\n", &[]);
    let archive = t.archive("libused.a", &[&lib, &extra]);
    let [lld, rld] = stdout_of(
        &t,
        &[&main, &archive],
        &["-Wl,--print-archive-stats=-"],
        "stats",
    );
    assert_eq!(rld, lld);
    assert!(
        rld.lines()
            .any(|l| l.starts_with("2\t1\t") && l.ends_with("libused.a")),
        "{rld}"
    );
}

/// `--audit LIB`, `--depaudit LIB`/`-P LIB` and `-z globalaudit` (GNU ld's; lld-22 has
/// none of them): each kind's libraries joined with `:` into one DT_AUDIT or DT_DEPAUDIT
/// entry, and DF_1_GLOBAUDIT, as GNU ld writes them.
#[test]
fn audit_libraries_as_gnu_ld_writes_them() {
    let t = Test::new();
    let lib = t.compile(Clang, "int f(void) { return 1; }\n", &["-O2", "-fPIC"]);
    let flags = [
        "-shared",
        "-Wl,--audit,a.so",
        "-Wl,--audit=b.so",
        "-Wl,-P,c.so",
        "-Wl,--depaudit,d.so",
        "-Wl,-z,globalaudit",
    ];
    let gnu = t.link(Driver::GccLd, &[&lib], &flags, "gnu.so");
    let ours = t.link(Driver::GccRld, &[&lib], &flags, "rld.so");
    let entries = |so: &Path| {
        let d = dynamic(so);
        ["AUDIT", "DEPAUDIT", "FLAGS_1"].map(|tag| dyn_values(&d, tag))
    };
    assert_eq!(
        entries(&ours),
        entries(&gnu),
        "{} vs {}",
        ours.display(),
        gnu.display()
    );
    assert_eq!(entries(&ours)[0], ["Audit library: [a.so:b.so]"]);
}

/// `-z rodynamic` (lld's): `.dynamic` is read-only (in a read-only segment, PT_DYNAMIC
/// without W) and has no DT_DEBUG, in an executable and a shared library alike; the program
/// still runs.
#[test]
fn rodynamic_as_lld() {
    let t = Test::new();
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n",
        &["-O2"],
    );
    let lib = t.compile(Clang, "int f(void) { return 1; }\n", &["-O2", "-fPIC"]);
    let facts = |path: &Path| {
        let secs = sections(path);
        let section = find_section(&secs, ".dynamic").expect(".dynamic");
        let segs = segments(path);
        let phdr = segs
            .iter()
            .find(|s| s.typ == "DYNAMIC")
            .expect("PT_DYNAMIC");
        let debug = dyn_values(&dynamic(path), "DEBUG").len();
        (section.flags, phdr.flags.clone(), debug)
    };
    for (objs, flags, out) in [
        (&main, &["-Wl,-z,rodynamic"][..], "exe"),
        (&lib, &["-shared", "-Wl,-z,rodynamic"][..], "lib.so"),
    ] {
        let (lld, rld) = both(&t, &[objs], flags, out);
        assert_eq!(
            facts(&rld),
            facts(&lld),
            "{} vs {}",
            rld.display(),
            lld.display()
        );
        assert_eq!(facts(&rld).0, "A", "{}", rld.display());
        if out == "exe" {
            assert_output_is(&rld, &run(&rld, &[], &[]), "hello\n", "-z rodynamic");
        }
    }
}

/// `-z keep-text-section-prefix` (lld's): `.text.hot`, `.text.unknown`, `.text.unlikely`,
/// `.text.startup`, `.text.exit` and `.text.split` inputs keep output sections of their own
/// (a name that only starts the same, `.text.hotter`, does not); without it all is `.text`.
#[test]
fn keep_text_section_prefix_as_lld() {
    let t = Test::new();
    let mut src = String::from("#include <stdio.h>\n");
    for (i, sec) in [
        ".text.hot.a",
        ".text.hot",
        ".text.unknown.b",
        ".text.unlikely.c",
        ".text.startup.d",
        ".text.exit.e",
        ".text.split.f",
        ".text.hotter",
    ]
    .iter()
    .enumerate()
    {
        src.push_str(&format!(
            "__attribute__((noinline, section(\"{sec}\"))) int f{i}(int x) {{ return x + {i}; }}\n"
        ));
    }
    src.push_str(
        "int main(int argc, char **argv) { printf(\"%d\\n\", f0(argc) + f1(argc) + f2(argc) + \
         f3(argc) + f4(argc) + f5(argc) + f6(argc) + f7(argc)); return 0; }\n",
    );
    let obj = t.compile(Clang, &src, &["-O2"]);
    let text_sections = |path: &Path| -> Vec<String> {
        sections(path)
            .into_iter()
            .map(|s| s.name)
            .filter(|n| n.starts_with(".text"))
            .collect()
    };
    let (lld, rld) = both(&t, &[&obj], &["-Wl,-z,keep-text-section-prefix"], "kept");
    assert_eq!(text_sections(&rld), text_sections(&lld));
    assert_eq!(
        text_sections(&rld),
        [
            ".text",
            ".text.hot",
            ".text.unknown",
            ".text.unlikely",
            ".text.startup",
            ".text.exit",
            ".text.split"
        ]
    );
    assert_output_is(
        &rld,
        &run(&rld, &[], &[]),
        "36\n",
        "-z keep-text-section-prefix",
    );
    let (lld, rld) = both(&t, &[&obj], &[], "folded");
    assert_eq!(text_sections(&rld), text_sections(&lld));
    assert_eq!(text_sections(&rld), [".text"]);
}

/// An undefined symbol referenced more often than the report shows: three places and
/// ">>> referenced N more times", in lld's words; `--warn-once` (GNU ld's: once per symbol)
/// names one place.
#[test]
fn undefined_symbol_reports_count_the_other_references() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "void u(void);\nvoid a(void) { u(); }\nvoid b(void) { u(); }\nvoid c(void) { u(); }\n\
         void d(void) { u(); }\nint main(void) { a(); b(); c(); d(); return 0; }\n",
        &["-O0"],
    );
    let report = |r: &Run| -> Vec<String> {
        assert!(!r.ok, "{}: linked", r.cmd);
        r.stderr
            .lines()
            .filter(|l| l.starts_with(">>> referenced"))
            .map(str::to_string)
            .collect()
    };
    let [lld, rld] = run_both(&t, &[&obj], &[], "default");
    assert_eq!(report(&rld), report(&lld));
    assert_eq!(report(&rld).last().unwrap(), ">>> referenced 1 more times");
    let [_, once] = run_both(&t, &[&obj], &["-Wl,--warn-once"], "once");
    assert_eq!(
        report(&once),
        [
            ">>> referenced by inline.0.c",
            ">>> referenced 3 more times"
        ],
        "{}",
        once.stderr
    );
}

/// How `name` appears in each symbol table of `path`: (table, type, binding, visibility,
/// absolute or not).
fn symbol_shape(path: &Path, name: &str) -> Vec<(String, String, String, String, bool)> {
    let syms = symbols(path);
    [".dynsym", ".symtab"]
        .iter()
        .flat_map(|table| find_symbols(&syms, table, name))
        .map(|s| (s.table, s.typ, s.bind, s.vis, s.ndx == "ABS"))
        .collect()
}

/// `__start_SEC`/`__stop_SEC` are protected by default and exported from a shared library;
/// `-z start-stop-visibility=V` sets their visibility (hidden and internal ones are local);
/// `--defsym` names are exported like definitions, an alias of a function typed as one. All
/// as lld-22 writes them.
#[test]
fn start_stop_visibility_and_defsym_exports_as_lld() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "__attribute__((section(\"mysec\"), used)) int x = 1;\n\
         extern int __start_mysec[], __stop_mysec[];\n\
         int *first(void) { return __start_mysec; }\nint *last(void) { return __stop_mysec; }\n",
        &["-O2", "-fPIC"],
    );
    for (i, vis) in ["", "default", "protected", "hidden", "internal"]
        .iter()
        .enumerate()
    {
        let mut flags = vec!["-shared".to_string()];
        if !vis.is_empty() {
            flags.push(format!("-Wl,-z,start-stop-visibility={vis}"));
        }
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let (lld, rld) = both(&t, &[&obj], &flags, &format!("ss{i}.so"));
        for name in ["__start_mysec", "__stop_mysec"] {
            assert_eq!(
                symbol_shape(&rld, name),
                symbol_shape(&lld, name),
                "{name} with {vis:?}: {} vs {}",
                rld.display(),
                lld.display()
            );
        }
    }
    let (lld, rld) = both(
        &t,
        &[&obj],
        &[
            "-shared",
            "-Wl,--defsym,magic=0x1234",
            "-Wl,--defsym,alias=first",
        ],
        "defsym.so",
    );
    for name in ["magic", "alias"] {
        assert_eq!(symbol_shape(&rld, name), symbol_shape(&lld, name), "{name}");
        assert_eq!(
            symbol_shape(&rld, name).len(),
            2,
            "{name} is not in both tables"
        );
    }
}

/// A version script named without a directory that is not in the current directory is
/// looked for in the `-L` directories (GNU ld and lld both do).
#[test]
fn version_script_found_in_library_directories() {
    let t = Test::new();
    let lib = t.compile(
        Clang,
        "int kept(void) { return 1; }\nint hidden_by_script(void) { return 2; }\n",
        &["-O2", "-fPIC"],
    );
    t.write("scripts/only-kept.map", "{ global: kept; local: *; };\n");
    let dir = t.path("scripts");
    let flags = [
        "-shared".to_string(),
        format!("-L{}", dir.display()),
        "-Wl,--version-script,only-kept.map".to_string(),
    ];
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let (lld, rld) = both(&t, &[&lib], &flags, "lib.so");
    for name in ["kept", "hidden_by_script"] {
        assert_eq!(symbol_shape(&rld, name), symbol_shape(&lld, name), "{name}");
    }
    assert!(exported_names(&rld).contains(&"kept".to_string()));
    assert!(!exported_names(&rld).contains(&"hidden_by_script".to_string()));
}

/// `-z cet-report=warning|error` (lld's): each input object without the IBT or SHSTK
/// property is named, in lld's words; an object built with `-fcf-protection` is not.
#[test]
fn cet_report_as_lld() {
    let t = Test::new();
    let src = "int f(void) { return 1; }\n";
    let plain = t.compile(Clang, src, &["-O2", "-fPIC"]);
    let cet = t.compile(
        Clang,
        "int g(void) { return 2; }\n",
        &["-O2", "-fPIC", "-fcf-protection=full"],
    );
    // Without the linker's own prefix ("ld.lld: ", "rld: ").
    let findings = |r: &Run| -> Vec<String> {
        r.stderr
            .lines()
            .filter(|l| l.contains("-z cet-report"))
            .map(|l| l.split_once(": ").map_or(l, |(_, rest)| rest).to_string())
            .collect()
    };
    for level in ["warning", "error"] {
        let flag = format!("-Wl,-z,cet-report={level}");
        let flags = ["-shared", "-nostdlib", flag.as_str()];
        let [lld, rld] = run_both(&t, &[&plain, &cet], &flags, &format!("{level}.so"));
        assert_eq!(findings(&rld), findings(&lld), "{}", rld.stderr);
        assert_eq!(findings(&rld).len(), 2, "{}", rld.stderr);
        assert_eq!(rld.ok, lld.ok, "{level}: {}", rld.stderr);
        assert_eq!(rld.ok, level == "warning");
        let [_, clean] = run_both(&t, &[&cet], &flags, &format!("cet-{level}.so"));
        assert!(clean.ok && findings(&clean).is_empty(), "{}", clean.stderr);
    }
}

/// `-z force-ibt` (lld's): the output gets the IBT property and the IBT PLT whatever the
/// inputs say, and each object lacking the property is warned about in lld's words (not
/// under `-z cet-report`, which reports them itself).
#[test]
fn z_force_ibt_as_lld() {
    let t = Test::new();
    let plain = t.compile(Clang, "int f(void) { return 1; }\n", &["-O2", "-fPIC"]);
    let cet = t.compile(
        Clang,
        "int f(void); int puts(const char *);\nint g(void) { puts(\"g\"); return f() + 1; }\n",
        &["-O2", "-fPIC", "-fcf-protection=full"],
    );
    let findings = |r: &Run| -> Vec<String> {
        r.stderr
            .lines()
            .filter(|l| l.contains("-z force-ibt"))
            .map(|l| l.split_once(": ").map_or(l, |(_, rest)| rest).to_string())
            .collect()
    };
    let flags = ["-shared", "-Wl,-z,force-ibt"];
    let [lld, rld] = run_both(&t, &[&plain, &cet], &flags, "forced.so");
    assert!(lld.ok && rld.ok, "{}", rld.stderr);
    assert_eq!(findings(&rld), findings(&lld));
    let names = |obj: &Path| {
        let obj = obj.display().to_string();
        findings(&rld).iter().any(|l| l.contains(&obj))
    };
    assert!(names(&plain) && !names(&cet), "{}", rld.stderr);
    for r in [&lld, &rld] {
        let notes = tool_stdout("readelf", &["-n"], &r.output);
        assert!(notes.contains("x86 feature: IBT"), "{notes}");
        assert!(find_section(&sections(&r.output), ".plt.sec").is_some());
    }
    let flags = ["-shared", "-Wl,-z,force-ibt", "-Wl,-z,cet-report=warning"];
    let [_, rld] = run_both(&t, &[&plain, &cet], &flags, "reported.so");
    assert!(rld.ok && findings(&rld).is_empty(), "{}", rld.stderr);
}

/// `-z nodynamic-undefined-weak` (GNU ld's): an undefined weak symbol is resolved to 0 by
/// the linker instead of being left in `.dynsym` for the dynamic loader; by default (and
/// with `-z dynamic-undefined-weak`) it is left, as GNU ld and lld do.
#[test]
fn nodynamic_undefined_weak_as_gnu_ld() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "#include <stdio.h>\n__attribute__((weak)) void maybe(void);\n\
         int main(void) { if (maybe) maybe(); else puts(\"no maybe\"); return 0; }\n",
        &["-O2", "-fPIE"],
    );
    for (i, (flags, in_dynsym)) in [
        (&["-Wl,-z,nodynamic-undefined-weak"][..], false),
        (&["-Wl,-z,dynamic-undefined-weak"][..], true),
        (&[][..], true),
    ]
    .into_iter()
    .enumerate()
    {
        let out = format!("weak{i}");
        let gnu = t.link(Driver::GccLd, &[&obj], flags, &format!("gnu-{out}"));
        let ours = t.link(Driver::GccRld, &[&obj], flags, &format!("rld-{out}"));
        for exe in [&gnu, &ours] {
            let dynsym = find_symbols(&symbols(exe), ".dynsym", "maybe");
            assert_eq!(
                !dynsym.is_empty(),
                in_dynsym,
                "{} with {flags:?}",
                exe.display()
            );
            assert_output_is(exe, &run(exe, &[], &[]), "no maybe\n", "weak undefined");
        }
    }
}

/// `--default-symver` (GNU ld's; lld-22 lacks it): a shared library's exported symbols get
/// its soname as their version, with the version definitions GNU ld writes.
#[test]
fn default_symver_as_gnu_ld() {
    let t = Test::new();
    let lib = t.compile(
        Clang,
        "int f(void) { return 1; }\nint g(void) { return 2; }\n",
        &["-O2", "-fPIC"],
    );
    let flags = ["-shared", "-Wl,-soname,libx.so.1", "-Wl,--default-symver"];
    let gnu = t.link(Driver::GccLd, &[&lib], &flags, "gnu.so");
    let ours = t.link(Driver::GccRld, &[&lib], &flags, "rld.so");
    let versions = |so: &Path| -> Vec<(String, Option<String>)> {
        let syms = symbols(so);
        ["f", "g"]
            .iter()
            .flat_map(|n| find_symbols(&syms, ".dynsym", n))
            .map(|s| (s.name, s.version))
            .collect()
    };
    let definitions = |so: &Path| -> Vec<String> {
        tool_stdout("readelf", &["-V"], so)
            .lines()
            .filter(|l| l.contains("Flags:") && l.contains("Name:"))
            .map(|l| {
                let flags = l
                    .split("Flags:")
                    .nth(1)
                    .unwrap()
                    .split_whitespace()
                    .next()
                    .unwrap();
                let name = l.split("Name:").nth(1).unwrap().trim();
                format!("{flags} {name}")
            })
            .collect()
    };
    assert_eq!(versions(&ours), versions(&gnu));
    assert_eq!(
        versions(&ours),
        [
            ("f".to_string(), Some("libx.so.1".to_string())),
            ("g".to_string(), Some("libx.so.1".to_string()))
        ]
    );
    assert_eq!(definitions(&ours), definitions(&gnu));
    // Nothing is needed from other libraries: no empty `.gnu.version_r` (GNU ld, lld).
    let has_verneed = |so: &Path| find_section(&sections(so), ".gnu.version_r").is_some();
    assert_eq!(has_verneed(&ours), has_verneed(&gnu));
    assert!(!has_verneed(&ours));
}

/// One line of a link map in lld's format: addresses, size, alignment, depth (0 output
/// section, 1 input section, 2 symbol) and name.
struct MapLine {
    vma: u64,
    size: u64,
    align: u64,
    depth: usize,
    name: String,
}

fn parse_map(text: &str) -> Vec<MapLine> {
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let rest = &l[49..];
            let indent = rest.len() - rest.trim_start().len();
            MapLine {
                vma: u64::from_str_radix(f[0], 16).unwrap(),
                size: u64::from_str_radix(f[2], 16).unwrap(),
                align: f[3].parse().unwrap(),
                depth: indent / 8,
                name: rest.trim_start().to_string(),
            }
        })
        .collect()
}

/// `-Map FILE` writes lld's link map: its header and columns, each output section with the
/// address, size and alignment the section headers give it, the input sections inside
/// their output section, and the symbols at the addresses `.symtab` gives them.
#[test]
fn map_file_in_lld_format_matches_the_output() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "#include <stdio.h>\nint counter = 3;\nint main(void) { printf(\"%d\\n\", counter); return 0; }\n",
        &["-O2"],
    );
    let map_of = |dir: &str| t.path(&format!("{dir}.map"));
    let lld_flag = format!("-Wl,-Map,{}", map_of("lld").display());
    let rld_flag = format!("-Wl,-Map,{}", map_of("rld").display());
    t.link(Driver::ClangLld, &[&obj], &[&lld_flag], "lld.out");
    let exe = t.link(Driver::ClangRld, &[&obj], &[&rld_flag], "rld.out");
    assert_output_is(&exe, &run(&exe, &[], &[]), "3\n", "-Map");
    let lld_text = std::fs::read_to_string(map_of("lld")).unwrap();
    let text = std::fs::read_to_string(map_of("rld")).unwrap();
    assert_eq!(text.lines().next(), lld_text.lines().next(), "header");
    let lines = parse_map(&text);
    let secs = sections(&exe);
    let syms = symbols(&exe);
    let mut current: Option<&MapLine> = None;
    let mut checked_symbols = 0;
    for line in &lines {
        match line.depth {
            0 => {
                current = Some(line);
                if line.vma == 0 {
                    continue;
                }
                let sec = find_section(&secs, &line.name)
                    .unwrap_or_else(|| panic!("{} is not in the output", line.name));
                assert_eq!(
                    (sec.addr, sec.size, sec.align),
                    (line.vma, line.size, line.align),
                    "{}",
                    line.name
                );
            }
            1 => {
                let out = current.expect("an input section under an output section");
                assert!(
                    line.vma >= out.vma && line.vma + line.size <= out.vma + out.size,
                    "{} outside {}",
                    line.name,
                    out.name
                );
            }
            _ => {
                if let Some(sym) = find_symbols(&syms, ".symtab", &line.name).first() {
                    assert_eq!(sym.value, line.vma, "{}", line.name);
                    checked_symbols += 1;
                }
            }
        }
    }
    for name in ["main", "counter", "_start"] {
        assert!(
            lines.iter().any(|l| l.depth == 2 && l.name == name),
            "{name} is not in the map"
        );
    }
    assert!(checked_symbols >= 3);
}

/// `-z x86-64-baseline|v2|v3|v4` (GNU ld's; lld-22 lacks them): the ISA level needed, in
/// `.note.gnu.property` beside the x86 features, as GNU ld writes it.
#[test]
fn isa_level_property_as_gnu_ld() {
    let t = Test::new();
    let lib = t.compile(Clang, "int f(void) { return 1; }\n", &["-O2", "-fPIC"]);
    let properties = |so: &Path| -> Vec<String> {
        tool_stdout("readelf", &["-n"], so)
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("Properties:") || l.starts_with("x86 "))
            .map(str::to_string)
            .collect()
    };
    for (i, flags) in [
        &["-Wl,-z,x86-64-v2"][..],
        &["-Wl,-z,x86-64-v3", "-Wl,-z,shstk"][..],
        &["-Wl,-z,x86-64-baseline"][..],
        &["-Wl,-z,x86-64-v4"][..],
    ]
    .iter()
    .enumerate()
    {
        let flags = [&["-shared", "-nostdlib"][..], flags].concat();
        let gnu = t.link(Driver::GccLd, &[&lib], &flags, &format!("gnu{i}.so"));
        let ours = t.link(Driver::GccRld, &[&lib], &flags, &format!("rld{i}.so"));
        assert_eq!(properties(&ours), properties(&gnu), "{flags:?}");
        assert!(
            properties(&ours).iter().any(|p| p.contains("ISA needed")),
            "{flags:?}: {:?}",
            properties(&ours)
        );
    }
    // A program: the C runtime's objects need the baseline; GNU ld adds the option's level.
    let main = t.compile(Clang, "int main(void) { return 0; }\n", &["-O2"]);
    let gnu = t.link(Driver::GccLd, &[&main], &["-Wl,-z,x86-64-v2"], "gnu-prog");
    let ours = t.link(Driver::GccRld, &[&main], &["-Wl,-z,x86-64-v2"], "rld-prog");
    assert_eq!(properties(&ours), properties(&gnu));
    assert!(run(&ours, &[], &[]).status.success());
}

const RELR_LIB: &str = "static int values[8] = {10, 11, 12, 13, 14, 15, 16, 17};\n\
    int *lib_table[] = {&values[0], &values[2], &values[4], &values[6], &values[7]};\n\
    int lib_pick(int i) { return *lib_table[i]; }\n";
const RELR_MAIN: &str = "#include <stdio.h>\nint lib_pick(int);\nstatic int x[40];\n\
    int *table[] = {&x[0], &x[1], &x[2], &x[3], &x[5], &x[30], 0, &x[7]};\n\
    struct odd { char c; int *p; } __attribute__((packed)) odd = {1, &x[9]};\n\
    const char *names[] = {\"a\", \"b\", \"c\"};\n\
    int main(void) { x[5] = 42; x[30] = 7; x[9] = 9;\n\
    printf(\"%d %d %d %s %s %d\\n\", *table[4], *table[5], *odd.p, names[2], names[0], lib_pick(3));\n\
    return 0; }\n";

/// The places `.relr.dyn` relocates (readelf decodes the bitmaps), and how many
/// R_X86_64_RELATIVE entries `.rela.dyn` still has.
fn relative_places(path: &Path) -> (Vec<u64>, usize) {
    let text = tool_stdout("readelf", &["-rW"], path);
    let (mut packed, mut explicit, mut in_relr) = (Vec::new(), 0, false);
    for line in text.lines() {
        if line.starts_with("Relocation section") {
            in_relr = line.contains("'.relr.dyn'");
        } else if in_relr {
            packed.extend(u64::from_str_radix(line.trim(), 16));
        } else if line.contains("R_X86_64_RELATIVE") {
            explicit += 1;
        }
    }
    (packed, explicit)
}

/// `-z pack-relative-relocs` (GNU ld 2.38+, lld 15+) and lld's `--pack-dyn-relocs=relr`:
/// a PIE's and a shared library's relative relocations become a `.relr.dyn` bitmap with
/// DT_RELR/DT_RELRSZ/DT_RELRENT and, where the C library is needed, a dependency on its
/// GLIBC_ABI_DT_RELR version, as GNU ld writes them: as many places packed, the unaligned pointer of a packed struct left in
/// `.rela.dyn`, and the programs run alike. Without the option (or after
/// `-z nopack-relative-relocs`, or in a position-dependent executable) nothing is packed.
#[test]
fn pack_relative_relocs_as_gnu_ld() {
    let t = Test::new();
    let lib = t.compile(Clang, RELR_LIB, &["-O1", "-fPIC"]);
    let main = t.compile(Clang, RELR_MAIN, &["-O1", "-fPIE"]);
    let pack = "-Wl,-z,pack-relative-relocs";
    let gnu_lib = t.link(Driver::GccLd, &[&lib], &["-shared", pack], "gnu/librelr.so");
    let rld_lib = t.link(
        Driver::GccRld,
        &[&lib],
        &["-shared", pack],
        "rld/librelr.so",
    );
    let with_lib = |so: &Path| {
        let dir = so.parent().unwrap().display().to_string();
        [
            format!("-L{dir}"),
            format!("-Wl,-rpath,{dir}"),
            "-lrelr".into(),
        ]
    };
    let (gnu_uses, rld_uses) = (with_lib(&gnu_lib), with_lib(&rld_lib));
    let (gnu_uses, rld_uses) = (strs(&gnu_uses), strs(&rld_uses));
    let gnu_flags = [vec!["-pie", pack], gnu_uses].concat();
    let rld_flags = [vec!["-pie", pack], rld_uses.clone()].concat();
    let gnu = t.link(Driver::GccLd, &[&main], &gnu_flags, "gnu/prog");
    let ours = t.link(Driver::GccRld, &[&main], &rld_flags, "rld/prog");
    assert_same_output(&ours, &gnu, &[], &[], Some("42 7 9 c a 16\n"));
    for (ours, gnu) in [(&ours, &gnu), (&rld_lib, &gnu_lib)] {
        let (packed, explicit) = relative_places(ours);
        let (gnu_packed, gnu_explicit) = relative_places(gnu);
        assert_eq!(
            (packed.len(), explicit),
            (gnu_packed.len(), gnu_explicit),
            "{} vs {}",
            ours.display(),
            gnu.display()
        );
        assert!(!packed.is_empty());
        let d = dynamic(ours);
        assert_eq!(
            dyn_values(&d, "RELRENT"),
            ["8 (bytes)"],
            "{}",
            ours.display()
        );
        assert_eq!(dyn_values(&d, "RELR").len(), 1);
        // The dependency goes on the C library where it is needed (not by this library).
        let relr_version =
            |p: &Path| tool_stdout("readelf", &["-V"], p).contains("Name: GLIBC_ABI_DT_RELR");
        assert_eq!(relr_version(ours), relr_version(gnu), "{}", ours.display());
    }
    assert!(tool_stdout("readelf", &["-V"], &ours).contains("Name: GLIBC_ABI_DT_RELR"));
    // The program's unaligned pointer stays explicit.
    assert_eq!(relative_places(&ours).1, 1);

    // lld's spelling writes the same file.
    let lld_spelling = [vec!["-pie", "-Wl,--pack-dyn-relocs=relr"], rld_uses.clone()].concat();
    let same = t.link(Driver::GccRld, &[&main], &lld_spelling, "rld/prog-relr");
    assert_eq!(std::fs::read(&same).unwrap(), std::fs::read(&ours).unwrap());

    // Not packed: by default, after the `no` form, and in a position-dependent program.
    let plain = t.link(
        Driver::GccRld,
        &[&main],
        &[vec!["-pie"], rld_uses.clone()].concat(),
        "rld/plain",
    );
    let undone = [
        vec!["-pie", pack, "-Wl,-z,nopack-relative-relocs"],
        rld_uses.clone(),
    ]
    .concat();
    let undone = t.link(Driver::GccRld, &[&main], &undone, "rld/undone");
    let nopie_obj = t.compile(Clang, RELR_MAIN, &["-O1", "-fno-pic"]);
    let nopie = [vec!["-no-pie", pack], rld_uses.clone()].concat();
    let nopie = t.link(Driver::GccRld, &[&nopie_obj], &nopie, "rld/nopie");
    let (packed, _) = relative_places(&ours);
    for exe in [&plain, &undone, &nopie] {
        assert!(relative_places(exe).0.is_empty(), "{}", exe.display());
        assert!(dyn_values(&dynamic(exe), "RELR").is_empty());
        assert_same_output(exe, &gnu, &[], &[], None);
    }
    // Everything packed was an explicit relocation before.
    assert_eq!(relative_places(&plain).1, packed.len() + 1);
}

/// `--print-icf-sections` as a set of groups: each kept section with the ones folded
/// into it.
fn icf_groups(report: &str) -> std::collections::BTreeSet<(String, Vec<String>)> {
    let mut groups = Vec::new();
    for line in report.lines() {
        if let Some(kept) = line.strip_prefix("selected section ") {
            groups.push((kept.to_string(), Vec::new()));
        } else if let Some(gone) = line.strip_prefix("  removing identical section ") {
            groups.last_mut().expect("a group").1.push(gone.to_string());
        }
    }
    groups
        .into_iter()
        .map(|(k, mut g)| {
            g.sort();
            (k, g)
        })
        .collect()
}

/// `--icf=all` and `--icf=safe` fold the sections lld-22 folds (twins, identical recursion,
/// identical template instantiations and virtual functions, code naming equal merged
/// strings; under `safe` nothing whose address `.llvm_addrsig` lists), keep the same one of
/// each group, and the programs behave alike; a folded function's symbol (global or local)
/// has its twin's address, and the code shrinks. Functions whose constants differ are not folded.
#[test]
fn icf_folds_what_lld_folds() {
    let t = Test::new();
    let flags = ["-O1", "-ffunction-sections", "-fdata-sections"];
    let c = [
        t.compile(Clang, "icf/fold_main.c", &flags),
        t.compile(Clang, "icf/fold_other.c", &flags),
    ];
    let cxx = [t.compile_cxx(Clang, "icf/fold_templates.cpp", &flags)];
    for (objs, extra, expected) in [
        (&c[..], None, "5 5 5 5 same same 9 8\n0\n"),
        (&cxx[..], Some("-lstdc++"), "6 15 2 2 0\n"),
    ] {
        for mode in ["all", "safe"] {
            let icf = format!("-Wl,--icf={mode}");
            let flags: Vec<&str> = [&icf, "-Wl,--print-icf-sections"]
                .into_iter()
                .chain(extra)
                .collect();
            let out = format!("{mode}-{}", objs.len());
            let [lld, ours] = run_both(&t, &paths(objs), &flags, &out);
            assert!(lld.ok && ours.ok, "{}\n{}", lld.stderr, ours.stderr);
            let groups = icf_groups(&ours.stdout);
            assert!(!groups.is_empty(), "{}", ours.cmd);
            assert_eq!(groups, icf_groups(&lld.stdout), "{}", ours.cmd);
            assert_same_output(&ours.output, &lld.output, &[], &[], Some(expected));
        }
    }
    // `--keep-unique` (lld's): the named symbol's section stays apart, and a name no
    // symbol has is warned about, in lld's words.
    let flags = [
        "-Wl,--icf=all",
        "-Wl,--print-icf-sections",
        "-Wl,--keep-unique=add_b",
        "-Wl,--keep-unique=no_such_symbol",
    ];
    let [lld, ours] = run_both(&t, &paths(&c), &flags, "unique");
    assert!(lld.ok && ours.ok, "{}\n{}", lld.stderr, ours.stderr);
    assert_eq!(
        icf_groups(&ours.stdout),
        icf_groups(&lld.stdout),
        "{}",
        ours.cmd
    );
    assert!(!ours.stdout.contains(".text.add_b"), "{}", ours.stdout);
    assert!(ours.stdout.contains(".text.add_c"), "{}", ours.stdout);
    for res in [&lld, &ours] {
        let warning = "could not find symbol no_such_symbol to keep unique";
        assert!(res.stderr.contains(warning), "{}\n{}", res.cmd, res.stderr);
    }
    // In the output: add_b is add_a, the function with other constants is not.
    let plain = t.link(Driver::ClangRld, &paths(&c), &[], "plain");
    let map = t.path("folded.map");
    let map_flag = format!("-Wl,-Map,{}", map.display());
    let folded = t.link(
        Driver::ClangRld,
        &paths(&c),
        &["-Wl,--icf=all", &map_flag],
        "folded",
    );
    // The link map lists a folded function with the copy kept, at its address (as lld).
    let text = std::fs::read_to_string(&map).unwrap();
    let mapped = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().last() == Some(name))
            .and_then(|l| l.split_whitespace().next())
            .map(str::to_string)
    };
    assert!(mapped("rec_b").is_some(), "{text}");
    assert_eq!(mapped("rec_b"), mapped("rec_a"));
    assert_eq!(mapped("add_c"), mapped("add_a"));
    let address = |exe: &Path, name: &str| {
        tool_stdout("nm", &[], exe)
            .lines()
            .find(|l| l.ends_with(&format!(" {name}")))
            .map(|l| l.split(' ').next().unwrap().to_string())
            .unwrap_or_else(|| panic!("{name} not in {}", exe.display()))
    };
    assert_eq!(address(&folded, "add_b"), address(&folded, "add_a"));
    assert_eq!(address(&folded, "add_c"), address(&folded, "add_a"));
    // Local symbols of a folded section stay in .symtab, at the kept copy (as lld).
    assert_eq!(address(&folded, "rec_b"), address(&folded, "rec_a"));
    assert_ne!(address(&folded, "differs"), address(&folded, "add_a"));
    assert_ne!(address(&plain, "add_b"), address(&plain, "add_a"));
    let text = |exe: &Path| find_section(&sections(exe), ".text").expect(".text").size;
    assert!(text(&folded) < text(&plain));
}

/// `-z execstack-if-needed` (mold's): the stack is executable only if an input object's
/// `.note.GNU-stack` asks for it (what GNU ld does by default, its output compared);
/// `-z noexecstack` after it, or an object that does not ask, keeps it non-executable,
/// as without the option.
#[test]
fn execstack_if_needed_as_gnu_ld_decides() {
    let t = Test::new();
    let asks = t.write(
        "asks.s",
        ".section .note.GNU-stack,\"x\",@progbits\n.text\n.globl helper\nhelper:\n  ret\n",
    );
    let plain = t.write(
        "plain.s",
        ".section .note.GNU-stack,\"\",@progbits\n.text\n.globl helper\nhelper:\n  ret\n",
    );
    let main = t.compile(
        Gcc,
        "void helper(void);\nint main(void) { helper(); return 0; }\n",
        &["-O1"],
    );
    let stack = |exe: &Path| {
        segments(exe)
            .into_iter()
            .find(|s| s.typ == "GNU_STACK")
            .map(|s| s.flags)
            .expect("PT_GNU_STACK")
    };
    let needed = "-Wl,-z,execstack-if-needed";
    for (helper, want) in [(&asks, "RWE"), (&plain, "RW")] {
        let obj = t.compile(Gcc, &helper.display().to_string(), &[]);
        let gnu = t.try_link(Driver::GccLd, &[&main, &obj], &[], "gnu.out");
        assert!(gnu.0.status.success());
        assert_eq!(stack(&t.path("gnu.out")), want);
        let ours = t.link(Driver::GccRld, &[&main, &obj], &[needed], "rld.out");
        assert_eq!(stack(&ours), want, "{}", helper.display());
        for flags in [&[][..], &[needed, "-Wl,-z,noexecstack"][..]] {
            let off = t.link(Driver::GccRld, &[&main, &obj], flags, "off.out");
            assert_eq!(stack(&off), "RW", "{flags:?}");
        }
    }
}

/// Text relocations (an absolute address in code that is not position-independent) in a
/// PIE or a shared library: allowed, as GNU ld allows them, with its two warnings (the
/// section, then "creating DT_TEXTREL"), DT_TEXTREL and DF_TEXTREL as GNU ld sets them,
/// and the program runs as GNU ld's; `-z notext` allows them silently; `-z text` refuses.
#[test]
fn text_relocations_as_gnu_ld() {
    let t = Test::new();
    let asm = t.write(
        "abs.s",
        ".section .note.GNU-stack,\"\",@progbits\n.text\n.globl get\nget:\n\
         movabsq $value, %rax\n  movl (%rax), %eax\n  ret\n.data\nvalue: .long 42\n",
    );
    let code = t.compile(Gcc, &asm.display().to_string(), &[]);
    let main = t.compile(
        Gcc,
        "#include <stdio.h>\nint get(void);\nint main(void) { printf(\"%d\\n\", get()); return 0; }\n",
        &["-fPIE"],
    );
    let textrel = |p: &Path| {
        let d = dynamic(p);
        (dyn_values(&d, "TEXTREL").len(), dyn_values(&d, "FLAGS"))
    };
    for (objs, kind, what) in [
        (vec![main.as_path(), code.as_path()], "-pie", "a PIE"),
        (vec![code.as_path()], "-shared", "a shared object"),
    ] {
        let (gnu, _) = t.try_link(Driver::GccLd, &objs, &[kind], &format!("gnu{kind}"));
        let (ours, cmd) = t.try_link(Driver::GccRld, &objs, &[kind], &format!("rld{kind}"));
        assert!(gnu.status.success() && ours.status.success(), "{cmd}");
        let stderr = String::from_utf8_lossy(&ours.stderr);
        assert!(
            stderr.contains("relocation in read-only section `.text'"),
            "{stderr}"
        );
        assert!(
            stderr.contains(&format!("creating DT_TEXTREL in {what}")),
            "{stderr}"
        );
        let (gnu, ours) = (t.path(&format!("gnu{kind}")), t.path(&format!("rld{kind}")));
        assert_eq!(textrel(&ours), textrel(&gnu));
        assert_eq!(textrel(&ours).0, 1);
        if kind == "-pie" {
            assert_same_output(&ours, &gnu, &[], &[], Some("42\n"));
        }
        let quiet = t.link(
            Driver::GccRld,
            &objs,
            &[kind, "-Wl,-z,notext"],
            &format!("q{kind}"),
        );
        assert_eq!(textrel(&quiet).0, 1);
        let (refused, _) = t.try_link(Driver::GccRld, &objs, &[kind, "-Wl,-z,text"], "no");
        assert!(!refused.status.success());
        assert!(String::from_utf8_lossy(&refused.stderr).contains("readonly section .text"));
        // GNU ld's `--warn-textrel` is the default's knob: the last of it, `-z text` and
        // `-z notext` wins.
        for flags in [
            ["-Wl,-z,text", "-Wl,--warn-textrel"],
            ["-Wl,-z,notext", "-Wl,--warn-textrel"],
        ] {
            let mut all = vec![kind];
            all.extend(flags);
            let [gnu, ours] = [Driver::GccLd, Driver::GccRld].map(|d| {
                let (res, cmd) = t.try_link(d, &objs, &all, &format!("w{}{kind}", d.name()));
                assert!(res.status.success(), "{cmd}");
                String::from_utf8_lossy(&res.stderr).contains("creating DT_TEXTREL")
            });
            assert!(gnu && ours, "{flags:?}");
        }
    }
    // Against an exported function: GNU ld's warning names the symbol, and the library
    // gets an R_X86_64_64 against it, as GNU ld's does.
    let asm = t.write(
        "sym.s",
        ".section .note.GNU-stack,\"\",@progbits\n.text\n.globl get2, target\n\
         target:\n  movl $7, %eax\n  ret\nget2:\n  movabsq $target, %rax\n  jmp *%rax\n",
    );
    let code = t.compile(Gcc, &asm.display().to_string(), &[]);
    let (ours, _) = t.try_link(Driver::GccRld, &[&code], &["-shared"], "sym.so");
    let stderr = String::from_utf8_lossy(&ours.stderr);
    assert!(
        stderr.contains("relocation against `target' in read-only section `.text'"),
        "{stderr}"
    );
    let relocs = tool_stdout("readelf", &["-rW"], &t.path("sym.so"));
    assert!(
        relocs
            .lines()
            .any(|l| l.contains("R_X86_64_64") && l.contains("target")),
        "{relocs}"
    );
}

/// `-z ibt` (GNU ld's; lld's `-z force-ibt`): the PLT gets IBT landing pads, laid out as
/// lld lays them out: `.plt` with PLT0 and per function `endbr64; push; jmp PLT0` (where
/// lazy binding starts), `.plt.sec` with `endbr64; jmp *slot` (where calls land); the
/// output is marked IBT; the program runs, lazily bound and with `-z now`. Without it
/// (and with inputs not all IBT-marked), the PLT is the plain one.
#[test]
fn ibt_plt_as_lld() {
    let t = Test::new();
    let obj = t.compile(
        Gcc,
        "#include <stdio.h>\n#include <string.h>\nint main(int c, char **v) {\n\
         printf(\"%zu\\n\", strlen(v[0]) > 0 ? (size_t)42 : 0); puts(\"ok\"); return c - 1; }\n",
        &["-O1", "-fcf-protection"],
    );
    // The instructions of a section, without their addresses and operands' targets.
    let code = |exe: &Path, section: &str| -> Vec<String> {
        tool_stdout("objdump", &["-d", "--no-show-raw-insn", "-j", section], exe)
            .lines()
            .filter_map(|l| l.split_once(":\t").map(|(_, insn)| insn))
            .map(|insn| insn.split_whitespace().next().unwrap_or("").to_string())
            .collect()
    };
    let (lld, _) = t.try_link(Driver::ClangLld, &[&obj], &["-Wl,-z,force-ibt"], "lld.out");
    assert!(lld.status.success());
    let lld = t.path("lld.out");
    for flags in [&["-Wl,-z,ibt"][..], &["-Wl,-z,ibt", "-Wl,-z,now"][..]] {
        let ours = t.link(Driver::ClangRld, &[&obj], flags, "rld.out");
        assert_same_output(&ours, &lld, &[], &[], Some("42\nok\n"));
        for section in [".plt", ".plt.sec"] {
            let insns = code(&ours, section);
            assert_eq!(insns, code(&lld, section), "{section} {flags:?}");
            assert!(
                insns.iter().filter(|i| *i == "endbr64").count() >= 2,
                "{insns:?}"
            );
        }
        assert!(tool_stdout("readelf", &["-n"], &ours).contains("x86 feature: IBT"));
    }
    let plain = t.link(Driver::ClangRld, &[&obj], &[], "plain.out");
    assert!(find_section(&sections(&plain), ".plt.sec").is_none());
    assert!(!code(&plain, ".plt").iter().any(|i| i == "endbr64"));
}

/// `-N`/`--omagic` and `-n`/`--nmagic` (GNU ld's and lld's): a static image whose segments
/// are not page-aligned, each aligned as its most aligned section (as lld aligns them);
/// with `-N` all sections are in one writable, executable segment, and the program runs as
/// lld's; neither has RELRO; `--no-omagic` restores the usual layout.
#[test]
fn omagic_and_nmagic_as_lld() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let loads = |p: &Path| -> Vec<(String, u64)> {
        let text = tool_stdout("readelf", &["-lW"], p);
        text.lines()
            .filter(|l| l.trim_start().starts_with("LOAD"))
            .map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                let align = u64::from_str_radix(f[f.len() - 1].trim_start_matches("0x"), 16);
                (f[6..f.len() - 1].join(" "), align.unwrap())
            })
            .collect()
    };
    let relro = |p: &Path| segments(p).iter().any(|s| s.typ == "GNU_RELRO");
    let (lld, rld) = both(&t, &[&main, &lib], &["-static", "-Wl,-N"], "omagic");
    assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
    let ours = loads(&rld);
    // Everything in one segment, which does not map the headers (lld's choice).
    assert_eq!(ours, loads(&lld));
    assert_eq!(ours.len(), 1, "{ours:?}");
    assert_eq!(ours[0].0, "RWE");
    let first_offset = |p: &Path| {
        segments(p)
            .into_iter()
            .find(|s| s.typ == "LOAD")
            .unwrap()
            .offset
    };
    assert_eq!(first_offset(&rld), first_offset(&lld));
    assert!(!relro(&rld) && !relro(&lld));
    let (lld, rld) = both(&t, &[&main, &lib], &["-static", "-Wl,-n"], "nmagic");
    let (ours, theirs) = (loads(&rld), loads(&lld));
    assert_eq!(ours, theirs);
    assert!(ours.iter().all(|l| l.1 < 4096));
    assert_eq!(first_offset(&rld), first_offset(&lld));
    assert!(!relro(&rld) && !relro(&lld));
    let undone = t.link(
        Driver::ClangRld,
        &[&main, &lib],
        &["-static", "-Wl,-N", "-Wl,--no-omagic"],
        "undone",
    );
    assert!(loads(&undone).iter().all(|l| l.1 == 4096));
    assert!(relro(&undone));
}

/// A definition whose `.symver` gives its default version (`foo@@VER_2`) stays exported
/// under it although the version script says `local: *`: the explicit version wins, as in
/// lld-22 (a non-default `foo@VER_1` is made local, as lld-22 does).
#[test]
fn symver_default_version_beats_local_star() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "int foo_v1(void) { return 1; }\nint foo_v2(void) { return 2; }\n\
         int bar(void) { return 3; }\nint helper(void) { return 4; }\n\
         __asm__(\".symver foo_v1, foo@VER_1\");\n__asm__(\".symver foo_v2, foo@@VER_2\");\n",
        &["-fPIC", "-O1"],
    );
    let map = t.write(
        "v.map",
        "VER_1 { global: bar; local: *; };\nVER_2 { } VER_1;\n",
    );
    let script = format!("-Wl,--version-script={}", map.display());
    let (lld, rld) = both(&t, &[&obj], &["-shared", &script], "libv.so");
    let ours = exports(&rld);
    assert!(ours.iter().any(|e| e == "foo@VER_2"), "{ours:?}");
    assert!(!ours.iter().any(|e| e.starts_with("helper")), "{ours:?}");
    assert_eq!(ours, exports(&lld));
}

/// A hidden version `foo@V1` answers to the patterns of node V1 alone, as in lld-22 and GNU
/// ld: V1's `local: *` hides it although V2 names foo (rld exported it, by foo's entry in
/// V2), naming foo in V1 keeps it, and a `local: *` of another node leaves it exported.
#[test]
fn a_hidden_version_answers_to_its_own_node() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "int foo_1(void) { return 1; }\nint foo_2(void) { return 2; }\n\
         int bar(void) { return 3; }\n\
         __asm__(\".symver foo_1, foo@V1\");\n__asm__(\".symver foo_2, foo@@V2\");\n",
        &["-fPIC", "-O1"],
    );
    for (name, text, want) in [
        (
            "named-elsewhere",
            "V1 { global: bar; local: *; };\nV2 { global: foo; } V1;\n",
            &["bar@V1", "foo@V2"][..],
        ),
        (
            "named-in-its-node",
            "V1 { global: bar; foo; local: *; };\nV2 { global: foo; } V1;\n",
            &["bar@V1", "foo@V1", "foo@V2"][..],
        ),
        (
            "local-elsewhere",
            "V1 { global: bar; };\nV2 { global: foo; local: *; } V1;\n",
            &["bar@V1", "foo@V1", "foo@V2"][..],
        ),
    ] {
        let map = t.write(&format!("{name}.map"), text);
        let script = format!("-Wl,--version-script={}", map.display());
        let (lld, rld) = both(&t, &[&obj], &["-shared", &script], &format!("{name}.so"));
        let ours = exports(&rld);
        assert_eq!(ours, want, "{name}");
        assert_eq!(ours, exports(&lld), "{name}");
    }
}

/// A version script may name a symbol that only a hidden version defines: libxcrypt's map
/// lists `encrypt` under GLIBC_2.2.5, and only `.symver _crypt_encrypt, encrypt@GLIBC_2.2.5`
/// defines it. lld (with its default `--no-undefined-version`) and GNU ld take `name@NODE`
/// as the definition; a name that nothing defines, in any version, is still refused.
#[test]
fn a_name_only_a_hidden_version_defines_satisfies_its_node() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "int enc_impl(void) { return 1; }\nint crypt(void) { return 2; }\n\
         int xc_impl(void) { return 3; }\n\
         __asm__(\".symver enc_impl, encrypt@GLIBC_2.2.5\");\n\
         __asm__(\".symver xc_impl, xcrypt@XCRYPT_2.0\");\n",
        &["-fPIC", "-O1"],
    );
    let map = t.write(
        "xcrypt.map",
        "GLIBC_2.2.5 { global: encrypt; crypt; local: *; };\n\
         XCRYPT_2.0 { global: xcrypt; } GLIBC_2.2.5;\n",
    );
    let script = format!("-Wl,--version-script={}", map.display());
    let (lld, rld) = both(&t, &[&obj], &["-shared", &script], "xcrypt.so");
    let ours = exports(&rld);
    assert_eq!(
        ours,
        [
            "crypt@GLIBC_2.2.5",
            "encrypt@GLIBC_2.2.5",
            "xcrypt@XCRYPT_2.0"
        ]
    );
    assert_eq!(ours, exports(&lld));
    // `xcrypt` under the wrong node: `xcrypt@GLIBC_2.2.5` is not defined.
    let map = t.write(
        "wrong.map",
        "GLIBC_2.2.5 { global: encrypt; xcrypt; local: *; };\nXCRYPT_2.0 { } GLIBC_2.2.5;\n",
    );
    let script = format!("-Wl,--version-script={}", map.display());
    let [lld, rld] = run_both(&t, &[&obj], &["-shared", &script], "wrong.so");
    let refusal = "version script assignment of 'GLIBC_2.2.5' to symbol 'xcrypt' failed";
    assert!(!lld.ok && lld.stderr.contains(refusal), "{}", lld.stderr);
    assert!(!rld.ok && rld.stderr.contains(refusal), "{}", rld.stderr);
}

/// A `.symver` version no version script defines: an error in a shared library, whose
/// versions are its own to define, and nothing in a program (lld's rule). rld refused the
/// program too, and libxcrypt's configure, probing gcc's `symver` attribute on a program,
/// took it for a compiler without one.
#[test]
fn a_program_may_give_a_symbol_a_version_no_script_defines() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "void bar(void) {}\n__asm__(\".symver bar, foo@2.0\");\nint main(void) { return 0; }\n",
        &["-O1", "-fPIC"],
    );
    let [lld, rld] = run_both(&t, &[&obj], &[], "program");
    assert!(lld.ok, "{}", lld.stderr);
    assert!(rld.ok, "{}", rld.stderr);
    let [lld, rld] = run_both(&t, &[&obj], &["-shared"], "library.so");
    let refusal = "symbol foo@2.0 has undefined version 2.0";
    assert!(!lld.ok && lld.stderr.contains(refusal), "{}", lld.stderr);
    assert!(!rld.ok && rld.stderr.contains(refusal), "{}", rld.stderr);
}

/// `-z rewrite-endbr` (mold's): a function only called directly starts with a NOP instead of
/// its `endbr64`; one whose address is taken, `main` (called through a pointer by libc) and
/// anything a shared library exports keep theirs; the program runs unchanged. clang and gcc
/// objects (`-fcf-protection`).
#[test]
fn rewrite_endbr_keeps_only_indirect_targets() {
    let t = Test::new();
    let first_bytes = |exe: &Path, name: &str| -> String {
        let text = tool_stdout(
            "objdump",
            &["-d", "--no-show-raw-insn", "-M", "suffix"],
            exe,
        );
        let mut lines = text
            .lines()
            .skip_while(|l| !l.ends_with(&format!("<{name}>:")));
        lines
            .nth(1)
            .unwrap_or("")
            .split(":\t")
            .nth(1)
            .unwrap_or("")
            .to_string()
    };
    for cc in [Clang, Gcc] {
        let flags = ["-O2", "-fcf-protection", "-ffunction-sections"];
        let objs = [
            t.compile(cc, "endbr/endbr_main.c", &flags),
            t.compile(cc, "endbr/endbr_funcs.c", &flags),
        ];
        let plain = t.link(Driver::ClangRld, &paths(&objs), &[], "plain");
        let rewritten = t.link(
            Driver::ClangRld,
            &paths(&objs),
            &["-Wl,-z,rewrite-endbr"],
            "rewritten",
        );
        assert_same_output(&rewritten, &plain, &[], &[], Some("6 8\n"));
        assert!(first_bytes(&plain, "helper").starts_with("endbr64"));
        assert!(
            first_bytes(&rewritten, "helper").starts_with("nopl"),
            "{cc:?}"
        );
        for kept in ["via_ptr", "main"] {
            assert!(
                first_bytes(&rewritten, kept).starts_with("endbr64"),
                "{kept}"
            );
        }
        let lib = t.link(
            Driver::ClangRld,
            &[&objs[1]],
            &["-shared", "-Wl,-z,rewrite-endbr"],
            "lib.so",
        );
        assert!(first_bytes(&lib, "helper").starts_with("endbr64"));
    }
}

/// A path with `.` and `..` resolved lexically (mold prints its inputs' paths so).
fn lexical(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            ".." => {
                parts.pop();
            }
            "." => {}
            _ => parts.push(p),
        }
    }
    parts.join("/")
}

/// `--print-dependencies` (mold's report): each input section with the file (and section)
/// that defines each symbol it uses, then each shared library's own uses, line for line as
/// mold writes it for the same C++ link (paths compared as mold normalizes them).
#[test]
fn print_dependencies_as_mold() {
    let t = Test::new();
    let main = t.compile_cxx(
        Clang,
        "#include <cstdio>\n#include <stdexcept>\nextern \"C\" int helper(int);\nextern __thread int tv;\n\
         int main() { try { throw std::runtime_error(\"x\"); } catch (const std::exception &e) \
         { std::printf(\"%s %d %d\\n\", e.what(), helper(2), tv); } }\n",
        &["-O1"],
    );
    let helper = t.compile(
        Clang,
        "__thread int tv = 4;\nint helper(int x) { return x * 3; }\n",
        &["-O1", "-fPIC"],
    );
    // Linked through clang++-22 with `linker_flag` choosing the linker.
    let report = |linker_flag: &str, out: &str| -> Vec<String> {
        let mut cmd = std::process::Command::new("clang++-22");
        cmd.arg(linker_flag)
            .args([&main, &helper])
            .arg("-Wl,--print-dependencies")
            .arg("-o")
            .arg(t.path(out));
        let res = run_checked(&mut cmd);
        String::from_utf8_lossy(&res.stdout)
            .lines()
            .map(|l| {
                l.split('\t')
                    .map(|field| match field.split_once(":(") {
                        Some((path, rest)) => format!("{}:({rest}", lexical(path)),
                        None => lexical(field),
                    })
                    .collect::<Vec<_>>()
                    .join("\t")
            })
            .collect()
    };
    let ours = report(&format!("--ld-path={}", rld_path().display()), "rld.out");
    let mold = report("-fuse-ld=mold", "mold.out");
    assert!(
        ours.iter()
            .any(|l| l.contains("helper") && l.ends_with("\tu\thelper")),
        "{ours:#?}"
    );
    assert_eq!(ours, mold);
}

/// `--no-undefined-version` (the default, as lld-22's): a name a version script lists but
/// nothing defines is an error, in lld's words; with `--undefined-version` (GNU ld's default)
/// it is not.
#[test]
fn no_undefined_version_as_lld() {
    let t = Test::new();
    let lib = t.compile(
        Clang,
        "int lib_value(void) { return 1; }\n",
        &["-O1", "-fPIC"],
    );
    let map = t.write("v.map", "{ global: lib_value; missing_fn; local: *; };\n");
    let script = format!("-Wl,--version-script={}", map.display());
    let drivers = [Driver::ClangRld, Driver::ClangLld];
    for (driver, extra) in drivers.into_iter().flat_map(|d| {
        // By default, and asked for.
        [(d, None), (d, Some("-Wl,--no-undefined-version"))]
    }) {
        let mut flags = vec!["-shared", script.as_str()];
        flags.extend(extra);
        let (res, cmd) = t.try_link(
            driver,
            &[&lib],
            &flags,
            &format!("strict-{}.so", driver.name()),
        );
        let err = String::from_utf8_lossy(&res.stderr);
        assert!(!res.status.success(), "{cmd}");
        assert!(
            err.contains(
                "version script assignment of 'global' to symbol 'missing_fn' failed: symbol not defined"
            ),
            "{cmd}\n{err}"
        );
    }
    for driver in [Driver::ClangRld, Driver::ClangLld] {
        t.link(
            driver,
            &[&lib],
            &["-shared", &script, "-Wl,--undefined-version"],
            &format!("lenient-{}.so", driver.name()),
        );
    }
}

/// `-warn-common -fatal-warnings` (one dash, as build systems pass them to GNU ld and
/// lld): two common definitions of one name are reported as an error, the link fails and
/// leaves no output, as in lld; without `-fatal-warnings` it is a warning and the link
/// succeeds.
#[test]
fn fatal_warnings_make_warn_common_an_error() {
    let t = Test::new();
    let a = t.compile(Clang, "int c1;\n", &["-fcommon"]);
    let b = t.compile(
        Clang,
        "int c1;\nint main(void) { return c1; }\n",
        &["-fcommon"],
    );
    let fatal = ["-Wl,-warn-common", "-Wl,-fatal-warnings"];
    let [lld, rld] = run_both(&t, &[&a, &b], &fatal, "fatal");
    assert!(
        !lld.ok && lld.stderr.contains("error: multiple common of c1"),
        "{}",
        lld.stderr
    );
    assert!(!rld.ok, "{}: linked", rld.cmd);
    assert!(
        rld.stderr.contains("rld: error: multiple common of c1"),
        "{}",
        rld.stderr
    );
    assert!(!rld.output.exists() && !lld.output.exists());
    let [lld, rld] = run_both(&t, &[&a, &b], &fatal[..1], "warned");
    assert!(lld.ok && rld.ok, "{}\n{}", lld.stderr, rld.stderr);
    assert!(
        rld.stderr.contains("rld: warning: multiple common of c1"),
        "{}",
        rld.stderr
    );
}

/// The permissions and alignments of the PT_LOADs, in order.
fn load_shapes(p: &Path) -> Vec<(String, u64)> {
    segments(p)
        .into_iter()
        .filter(|s| s.typ == "LOAD")
        .map(|s| (s.flags, s.align))
        .collect()
}

/// Sections of one name with different flags (`.foobar` as "a", "aw" and "ax" in three
/// objects) are one output section with the union of their flags, WAX, in an RWX segment
/// of its own between the code and the data, as lld and GNU ld give it; `-r` too.
#[test]
fn section_flags_are_the_union_as_lld() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let parts: Vec<PathBuf> = [("a", 1), ("aw", 2), ("ax", 3)]
        .iter()
        .map(|(flags, byte)| {
            let s = t.write(
                &format!("foobar_{flags}.s"),
                format!(".section .foobar,\"{flags}\"\n.byte {byte}\n"),
            );
            t.compile(Clang, s.to_str().unwrap(), &[])
        })
        .collect();
    let mut objs: Vec<&Path> = vec![&main, &lib];
    objs.extend(parts.iter().map(PathBuf::as_path));
    let (lld, rld) = both(&t, &objs, &[], "union");
    assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
    for p in [&lld, &rld] {
        let foobar: Vec<Section> = sections(p)
            .into_iter()
            .filter(|s| s.name == ".foobar")
            .collect();
        assert_eq!(foobar.len(), 1, "{}: {foobar:?}", p.display());
        assert_eq!((foobar[0].flags.as_str(), foobar[0].size), ("WAX", 3));
    }
    assert_eq!(load_shapes(&rld), load_shapes(&lld));
    assert!(load_shapes(&rld).iter().any(|(f, _)| f == "RWE"));
    // The same with `-z separate-code`: code and writable code share a page.
    let (lld, rld) = both(&t, &objs, &["-Wl,-z,separate-code"], "union-separate");
    assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
    let offsets = |p: &Path| -> Vec<u64> {
        segments(p)
            .into_iter()
            .filter(|s| s.typ == "LOAD")
            .map(|s| s.offset % 4096)
            .collect()
    };
    assert_eq!(load_shapes(&rld), load_shapes(&lld));
    assert_eq!(
        offsets(&rld).iter().map(|&o| o == 0).collect::<Vec<_>>(),
        offsets(&lld).iter().map(|&o| o == 0).collect::<Vec<_>>()
    );
    // `-r`: one `.foobar`, as GNU ld makes it.
    let ours = t.link(
        Driver::Rld,
        &parts.iter().map(PathBuf::as_path).collect::<Vec<_>>(),
        &["-r"],
        "union.o",
    );
    let theirs = t.path("union-bfd.o");
    let mut ld = std::process::Command::new("ld.bfd");
    ld.arg("-r").args(&parts).arg("-o").arg(&theirs);
    run_checked(&mut ld);
    for p in [&ours, &theirs] {
        let foobar: Vec<Section> = sections(p)
            .into_iter()
            .filter(|s| s.name == ".foobar")
            .collect();
        assert_eq!(foobar.len(), 1, "{}: {foobar:?}", p.display());
        assert_eq!((foobar[0].flags.as_str(), foobar[0].size), ("WAX", 3));
    }
}

/// `--no-rosegment`: the headers, read-only data and code share one R E segment, as lld
/// makes it; `--rosegment` after it restores the default.
#[test]
fn no_rosegment_as_lld() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let (lld, rld) = both(&t, &[&main, &lib], &["-Wl,--no-rosegment"], "no-rosegment");
    let [ours, theirs] = [&rld, &lld].map(|p| load_shapes(p));
    assert_eq!(ours, theirs);
    assert_eq!(ours[0].0, "R E", "{ours:?}");
    assert!(ours.iter().all(|(f, _)| f != "R"), "{ours:?}");
    let first = |p: &Path| segments(p).into_iter().find(|s| s.typ == "LOAD").unwrap();
    assert_eq!(first(&rld).offset, 0);
    let secs = sections(&rld);
    let in_first = |name: &str| {
        let s = find_section(&secs, name).unwrap();
        let l = first(&rld);
        s.addr >= l.vaddr && s.addr + s.size <= l.vaddr + l.filesz
    };
    assert!(in_first(".rodata") && in_first(".text") && in_first(".dynsym"));
    assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
    let undone = t.link(
        Driver::ClangRld,
        &[&main, &lib],
        &["-Wl,--no-rosegment", "-Wl,--rosegment"],
        "rosegment",
    );
    let default = t.link(Driver::ClangRld, &[&main, &lib], &[], "default");
    assert_eq!(load_shapes(&undone), load_shapes(&default));
    assert_eq!(load_shapes(&default)[0].0, "R");
}

/// The DT_NEEDED entries, in order.
fn needed_libraries(p: &Path) -> Vec<String> {
    dyn_values(&dynamic(p), "NEEDED")
}

/// `--as-needed` with `--gc-sections`: a library only collected code refers to is not
/// needed (lld's rule: what decides is the references of the sections that stay), one the
/// kept code calls is; without `--as-needed` both are.
#[test]
fn as_needed_counts_only_kept_code_as_lld() {
    let t = Test::new();
    let lib = |name: &str, value: i32| {
        let obj = t.compile(
            Clang,
            &format!("int {name}(void) {{ return {value}; }}\n"),
            &["-fPIC"],
        );
        let so = t.path(&format!("lib{name}.so"));
        let mut cc = std::process::Command::new("clang-22");
        cc.arg("-shared").arg(&obj).arg("-o").arg(&so);
        run_checked(&mut cc);
    };
    lib("only_dead", 7);
    lib("live", 2);
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint only_dead(void), live(void);\n\
         int unused(void) { return only_dead(); }\n\
         int main(void) { printf(\"%d\\n\", live()); return 0; }\n",
        &["-ffunction-sections"],
    );
    let dir = format!("-L{}", t.path("").display());
    let rpath = format!("-Wl,-rpath,{}", t.path("").display());
    let flags = [
        "-Wl,--gc-sections",
        "-Wl,--as-needed",
        &dir,
        "-lonly_dead",
        "-llive",
        &rpath,
    ];
    let (lld, rld) = both(&t, &[&main], &flags, "gc-as-needed");
    assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
    let ours = needed_libraries(&rld);
    assert_eq!(ours, needed_libraries(&lld));
    assert!(ours.iter().any(|n| n.contains("liblive.so")), "{ours:?}");
    assert!(
        !ours.iter().any(|n| n.contains("libonly_dead.so")),
        "{ours:?}"
    );
    // Without --as-needed, both are needed; without --gc-sections, the dead code's library
    // is needed too.
    for (flags, out) in [
        (
            vec!["-Wl,--gc-sections", &dir, "-lonly_dead", "-llive", &rpath],
            "gc",
        ),
        (
            vec!["-Wl,--as-needed", &dir, "-lonly_dead", "-llive", &rpath],
            "as-needed",
        ),
    ] {
        let (lld, rld) = both(&t, &[&main], &flags, out);
        let ours = needed_libraries(&rld);
        assert_eq!(ours, needed_libraries(&lld), "{out}");
        assert!(
            ours.iter().any(|n| n.contains("libonly_dead.so")),
            "{out}: {ours:?}"
        );
    }
}

/// Runs rld and ld.lld-22 directly with the same arguments (and `-o DIR/rld|lld/OUT`):
/// `[lld, rld]` as (succeeded, stderr, output).
fn direct_both(t: &Test, args: &[&str], out: &str) -> [(bool, String, PathBuf); 2] {
    let rld = rld_path();
    [Path::new("ld.lld-22"), rld.as_path()].map(|linker| {
        let which = if linker == rld.as_path() {
            "rld"
        } else {
            "lld"
        };
        std::fs::create_dir_all(t.path(which)).unwrap();
        let output = t.path(&format!("{which}/{out}"));
        let res = std::process::Command::new(linker)
            .args(args)
            .arg("-o")
            .arg(&output)
            .current_dir(t.path(""))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&res.stderr).into_owned();
        (res.status.success(), stderr, output)
    })
}

/// Symbol versions as lld-22 handles them: a `.symver` definition of a version no script
/// defines is an error naming the file and the versioned name (also for a COMDAT group
/// whose signature is the versioned name); `.symver foo, foo@V` with a script putting
/// `foo` in V exports `foo@V` and no `foo@@V`; `extern "C++"` patterns match C names;
/// a name with a glob character in it is matched by the same glob.
#[test]
fn symbol_versions_as_lld() {
    let t = Test::new();
    let asm = |name: &str, text: &str| -> PathBuf {
        let s = t.write(&format!("{name}.s"), text);
        t.compile(Clang, s.to_str().unwrap(), &[])
    };
    let comdat = asm(
        "comdat",
        ".section .text.versig,\"axG\",@progbits,versig@V1,comdat\n\
         .globl versig@V1\nversig@V1:\n  ret\n",
    );
    let undefined_versions = asm(
        "undefined_versions",
        ".text\n.globl foo\nfoo: ret\n.symver foo, foo@@V2\n.globl bar\nbar: ret\n.symver bar, bar@V3\n",
    );
    for (obj, out) in [
        (&comdat, "comdat.so"),
        (&undefined_versions, "undefined.so"),
    ] {
        let [lld, rld] = direct_both(&t, &["-shared", obj.to_str().unwrap()], out);
        assert!(!lld.0 && !rld.0);
        let errors = |stderr: &str| -> Vec<String> {
            stderr
                .lines()
                .filter_map(|l| l.split_once("error: ").map(|(_, m)| m.to_string()))
                .collect()
        };
        assert_eq!(errors(&rld.1), errors(&lld.1), "{out}");
        assert!(
            errors(&rld.1)[0].contains("has undefined version"),
            "{}",
            rld.1
        );
    }

    let symver = asm(
        "symver",
        ".text\n.globl foo\nfoo: ret\n.symver foo, foo@TEST\n.globl bar\nbar: ret\n",
    );
    let elsewhere = asm(
        "elsewhere",
        ".text\n.globl foo\nfoo: ret\n.globl foo_v1\nfoo_v1: nop\nret\n.symver foo_v1, foo@TEST\n\
         .globl bar\nbar: ret\n",
    );
    let map = t.write("test.map", "TEST { global: foo; bar; local: *; };\n");
    // A shared library from `obj` with version script `map`, by both linkers: its exports.
    let exported = |map: &Path, obj: &Path, out: &str| -> Vec<String> {
        let args = [
            "-shared",
            "--version-script",
            map.to_str().unwrap(),
            obj.to_str().unwrap(),
        ];
        let [lld, rld] = direct_both(&t, &args, out);
        assert!(lld.0 && rld.0, "{}{}", lld.1, rld.1);
        assert_eq!(exports(&rld.2), exports(&lld.2));
        let dynsym = tool_stdout("readelf", &["--dyn-syms", "-W"], &rld.2);
        assert!(!dynsym.contains("foo@@TEST"), "{dynsym}");
        exports(&rld.2)
    };
    for obj in [&symver, &elsewhere] {
        assert_eq!(exported(&map, obj, "symver.so"), ["bar@TEST", "foo@TEST"]);
    }

    let names = asm(
        "names",
        ".text\n.globl foobar\nfoobar: ret\n.globl \"foo?\"\n\"foo?\": ret\n.globl other\nother: ret\n",
    );
    let cxx = t.write(
        "cxx.map",
        "{ local: *; global: extern \"C++\" { *foo*; }; };\n",
    );
    let glob = t.write("glob.map", "VER1 { global: foo?; local: *; };\n");
    assert_eq!(exported(&cxx, &names, "cxx.so"), ["foo?@", "foobar@"]);
    assert_eq!(exported(&glob, &names, "glob.so"), ["foo?@VER1"]);
}

/// `--no-allow-shlib-undefined` checks the version a library needs a symbol in: `vfun@V1`
/// with only `vfun@@V2` linked is an undefined reference (lld-22's error), with `vfun@V1`
/// linked (a non-default version) it is satisfied.
#[test]
fn shlib_undefined_checks_versions_as_lld() {
    let t = Test::new();
    let shared = |name: &str, src: &str, map: &str| {
        let obj = t.compile(Clang, src, &["-fPIC"]);
        let script = t.write(&format!("{name}.map"), map);
        let mut cc = std::process::Command::new("clang-22");
        cc.arg("-shared")
            .arg(&obj)
            .arg(format!("-Wl,--version-script={}", script.display()))
            .arg(format!("-Wl,-soname,lib{name}.so"))
            .arg("-o")
            .arg(t.path(&format!("lib{name}.so")));
        run_checked(&mut cc);
    };
    // The provider as the user was linked against it: vfun in V1.
    shared(
        "pv",
        "int vfun(void) { return 3; }\n",
        "V1 { global: vfun; local: *; };\n",
    );
    let user = t.compile(
        Clang,
        "int vfun(void);\nint usev(void) { return vfun(); }\n",
        &["-fPIC"],
    );
    let mut cc = std::process::Command::new("clang-22");
    cc.arg("-shared")
        .arg(&user)
        .arg(format!("-L{}", t.path("").display()))
        .arg("-lpv")
        .arg("-Wl,-soname,libuv.so")
        .arg("-o")
        .arg(t.path("libuv.so"));
    run_checked(&mut cc);
    let main = t.compile(Clang, "#include <stdio.h>\nint usev(void);\nint main(void) { printf(\"%d\\n\", usev()); return 0; }\n", &[]);
    let dir = format!("-L{}", t.path("").display());
    let rpath = format!("-Wl,-rpath,{}", t.path("").display());
    let flags = [
        dir.as_str(),
        "-luv",
        "-lpv",
        "-Wl,--no-allow-shlib-undefined",
        &rpath,
    ];
    // A newer provider keeping V1 as a non-default version: links and runs.
    shared(
        "pv",
        "int vfun_old(void) { return 3; }\nint vfun_new(void) { return 4; }\n\
         __asm__(\".symver vfun_old, vfun@V1\");\n__asm__(\".symver vfun_new, vfun@@V2\");\n",
        "V1 { };\nV2 { } V1;\n",
    );
    let (lld, rld) = both(&t, &[&main], &flags, "kept-v1");
    assert_same_output(&rld, &lld, &[], &[], Some("3\n"));
    // A provider with only V2: both refuse, with the same words.
    shared(
        "pv",
        "int vfun(void) { return 4; }\n",
        "V1 { };\nV2 { global: vfun; local: *; } V1;\n",
    );
    let [lld, rld] = run_both(&t, &[&main], &flags, "only-v2");
    assert!(!lld.ok && !rld.ok, "{}\n{}", lld.cmd, rld.cmd);
    let report = |stderr: &str| -> Vec<String> {
        stderr
            .lines()
            .filter(|l| l.contains("undefined reference") || l.starts_with(">>>"))
            .map(|l| l.split_once("error: ").map_or(l, |(_, m)| m).to_string())
            .collect()
    };
    assert_eq!(report(&rld.stderr), report(&lld.stderr));
    assert!(
        rld.stderr.contains("undefined reference: vfun@V1"),
        "{}",
        rld.stderr
    );
}

/// `ld -r -o d.o c.script`: a relocatable link whose only input is a script naming the
/// objects (`INPUT(...)`) combines them, as lld and GNU ld do.
#[test]
fn relocatable_link_of_a_script_input() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let script = t.write(
        "c.script",
        format!("INPUT({} {})\n", main.display(), lib.display()),
    );
    let [lld, rld] = direct_both(&t, &["-r", script.to_str().unwrap()], "d.o");
    assert!(lld.0 && rld.0, "{}{}", lld.1, rld.1);
    let defined = |p: &Path| -> Vec<String> {
        nm(p)
            .into_iter()
            .filter(|s| s.kind.is_ascii_uppercase() && s.kind != 'U')
            .map(|s| s.name)
            .collect()
    };
    assert_eq!(defined(&rld.2), defined(&lld.2));
    assert!(defined(&rld.2).contains(&"used".to_string()));
    let exe = t.link(Driver::ClangRld, &[&rld.2], &[], "from-script");
    assert_output_is(
        &exe,
        &run(&exe, &[], &[]),
        "2\n",
        "the program linked from d.o",
    );
}

/// `-b binary` (`--format=binary`), as lld-22 and GNU ld: a file linked as raw data is a
/// `.data` section with `_binary_NAME_start`, `_end` and the absolute `_size`, NAME the
/// path as given with other characters than letters and digits made `_`; `-b default`
/// goes back to objects. `-r` makes the object (the same symbols as lld's and GNU ld's),
/// and a program reads the bytes through the symbols.
#[test]
fn binary_inputs_become_data_with_their_symbols() {
    let t = Test::new();
    let blob = t.write("res/blob-1.bin", b"rld\0binary\n\0\x01\x02");
    let rel = |linker: &str, out: &str| {
        let out = t.path(out);
        run_checked(
            std::process::Command::new(linker)
                .current_dir(t.path(""))
                .args([
                    "-m",
                    "elf_x86_64",
                    "-r",
                    "-b",
                    "binary",
                    "res/blob-1.bin",
                    "-o",
                ])
                .arg(&out),
        );
        out
    };
    // (name, value, absolute), and the type, which lld and GNU ld disagree on (OBJECT and
    // NOTYPE): rld's is lld's.
    let globals = |p: &Path| -> Vec<(String, u64, bool, String)> {
        let mut g: Vec<_> = symbols(p)
            .into_iter()
            .filter(|s| s.table == ".symtab" && s.bind == "GLOBAL")
            .map(|s| (s.name, s.value, s.ndx == "ABS", s.typ))
            .collect();
        g.sort();
        g
    };
    let untyped = |g: Vec<(String, u64, bool, String)>| -> Vec<(String, u64, bool)> {
        g.into_iter().map(|(n, v, a, _)| (n, v, a)).collect()
    };
    let ours = rel(&rld_path().display().to_string(), "rld.o");
    let (lld, gnu) = (rel("ld.lld-22", "lld.o"), rel("ld", "gnu.o"));
    assert_eq!(globals(&ours), globals(&lld));
    assert_eq!(untyped(globals(&ours)), untyped(globals(&gnu)));
    assert!(
        globals(&ours).contains(&(
            "_binary_res_blob_1_bin_size".into(),
            14,
            true,
            "OBJECT".into()
        )),
        "{:?}",
        globals(&ours)
    );
    assert_eq!(section_data(&ours, ".data"), std::fs::read(&blob).unwrap());
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nextern const char _binary_res_blob_1_bin_start[], _binary_res_blob_1_bin_end[];\n\
         extern const char _binary_res_blob_1_bin_size[];\n\
         int main(void) { long n = _binary_res_blob_1_bin_end - _binary_res_blob_1_bin_start;\n\
         printf(\"%ld %ld %s\\n\", n, (long)_binary_res_blob_1_bin_size, _binary_res_blob_1_bin_start + 4); return 0; }\n",
        &["-O1", "-fno-pie"],
    );
    let expected = "14 14 binary\n\n";
    t.check_program(&[&main, &ours], &["-no-pie"], Some(expected));
    // On the command line, between -b binary and -b default (the driver's files after it
    // are objects again).
    let exe = t.link(
        Driver::ClangRld,
        &[&main],
        &["-no-pie", "-Wl,-b,binary,res/blob-1.bin,-b,default"],
        "direct",
    );
    assert_output_is(
        &exe,
        &run(&exe, &[], &[]),
        expected,
        "-b binary on the command line",
    );
    let (res, _) = t.try_link(Driver::Rld, &[&main], &["-b", "pdf"], "bad");
    assert!(String::from_utf8_lossy(&res.stderr).contains("pdf"));
}

/// `--symbol-ordering-file` (lld's): the sections defining the listed symbols, global or
/// local, code or data, go first in their output sections in the file's order; lld's
/// warnings name the symbols that cannot be ordered (absolute, shared, in a section
/// `--gc-sections` removed), the names no symbol has and the names listed twice, and
/// `--no-warn-symbol-ordering` silences them. Addresses and warnings as lld-22's; with a
/// linker script, each description is ordered on its own.
#[test]
fn symbol_ordering_file_as_lld() {
    let t = Test::new();
    let a = t.assemble(
        "a",
        ".section .text.fa,\"ax\",@progbits\n.globl fa\nfa: ret\n\
         .section .text.fb,\"ax\",@progbits\n.globl fb\nfb: call fa\nret\n\
         .section .text.lc,\"ax\",@progbits\nlc: ret\n\
         .section .text.fd,\"ax\",@progbits\n.globl fd\nfd: ret\n\
         .section .text.gone,\"ax\",@progbits\n.globl gone\ngone: ret\n\
         .section .data.da,\"aw\",@progbits\n.globl da\nda: .quad 1\n\
         .section .data.db,\"aw\",@progbits\n.globl db\ndb: .quad 2\n\
         .globl absolute\nabsolute = 0x1234\n\
         .text\n.globl _start\n_start: call fb\ncall fd\ncall lc\ncall shared_fn\n\
         mov da(%rip), %rax\nmov db(%rip), %rax\nmov $60, %eax\nxor %edi, %edi\nsyscall\n",
    );
    let lib = t.assemble(
        "lib",
        ".globl shared_fn\n.type shared_fn,@function\nshared_fn: ret\n",
    );
    let so = t.path("lib.so");
    run_checked(
        std::process::Command::new("ld.lld-22")
            .args(["-shared", "-o"])
            .arg(&so)
            .arg(&lib),
    );
    let order = t.write(
        "order.txt",
        "fd\n# a comment\n\nlc\ndb\nfd\nshared_fn\nabsolute\ngone\nmissing_sym\nda\nfb\n",
    );
    let script = t.write(
        "two.ld",
        "SECTIONS {\n  . = 0x10000;\n  .text : { *(.text.f*) *(.text .text.*) }\n  \
         .data : { *(.data.*) }\n}\n",
    );
    let sorted_symbols = |p: &Path| -> Vec<String> {
        let mut s: Vec<(u64, String)> = symbols(p)
            .into_iter()
            .filter(|s| s.table == ".symtab" && !s.name.is_empty() && s.typ != "FILE")
            .filter(|s| s.ndx != "ABS" && s.ndx != "UND" && !s.name.starts_with('_'))
            .map(|s| (s.value, s.name))
            .collect();
        s.sort();
        s.into_iter().map(|(_, n)| n).collect()
    };
    let warnings = |stderr: &str| -> Vec<String> {
        let mut w: Vec<String> = stderr
            .lines()
            .filter_map(|l| l.split_once("warning: ").map(|(_, w)| w.to_string()))
            .collect();
        w.sort();
        w
    };
    let objs = [a.to_str().unwrap(), so.to_str().unwrap()];
    let cases: [(&str, Vec<&str>); 3] = [
        ("plain", vec!["--gc-sections"]),
        ("quiet", vec!["--gc-sections", "--no-warn-symbol-ordering"]),
        ("script", vec!["-T", script.to_str().unwrap()]),
    ];
    for (name, extra) in cases {
        let mut args = vec![
            "-e",
            "_start",
            "--symbol-ordering-file",
            order.to_str().unwrap(),
        ];
        args.extend(extra);
        args.extend(objs);
        let [lld, rld] = direct_both(&t, &args, &format!("{name}.out"));
        assert!(lld.0 && rld.0, "{name}: {}{}", lld.1, rld.1);
        assert_eq!(sorted_symbols(&rld.2), sorted_symbols(&lld.2), "{name}");
        assert_eq!(warnings(&rld.1), warnings(&lld.1), "{name}");
        match name {
            "plain" => {
                assert_eq!(sorted_symbols(&rld.2), ["fd", "lc", "fb", "fa", "db", "da"]);
                assert!(
                    rld.1.contains("unable to order discarded symbol: gone"),
                    "{}",
                    rld.1
                );
                assert!(rld.1.contains("duplicate ordered symbol: fd"), "{}", rld.1);
            }
            "quiet" => assert!(!rld.1.contains("warning"), "{}", rld.1),
            _ => {}
        }
    }
    // Through the compiler drivers, a program whose functions the file reorders runs as
    // lld's, with them where it put them.
    let obj = t.compile(
        Clang,
        "#include <stdio.h>\nint alpha(int x) { return x + 1; }\nint zeta(int x) { return x * 2; }\n\
         int main(void) { printf(\"%d\\n\", zeta(alpha(20))); return 0; }\n",
        &["-O1", "-ffunction-sections", "-fno-inline"],
    );
    let order = t.write("c-order.txt", "zeta\nmain\n");
    let flag = format!("-Wl,--symbol-ordering-file={}", order.display());
    for exe in t.check_program(&[&obj], &[&flag], Some("42\n")) {
        let at = |name: &str| {
            symbols(&exe)
                .into_iter()
                .find(|s| s.table == ".symtab" && s.name == name)
                .map(|s| s.value)
                .unwrap()
        };
        assert!(
            at("zeta") < at("main") && at("main") < at("alpha"),
            "{}",
            exe.display()
        );
    }
}

/// `-r` keeps SHF_EXCLUDE sections (gcc's and clang's IR in fat LTO objects), as lld-22
/// and GNU ld do: same-named ones are concatenated with their relocations, a losing
/// COMDAT copy's is dropped with its group, and the final link leaves them all out; and
/// `.eh_frame` keeps its input type.
#[test]
fn relocatable_links_keep_excluded_sections_as_lld() {
    let t = Test::new();
    let source = |n: u32| {
        format!(
            ".text\n.globl f{n}\nf{n}: .cfi_startproc\nret\n.cfi_endproc\n\
             .section .keepme,\"e\",@progbits\n.quad f{n}\n.quad {n}\n\
             .section .grouped,\"eG\",@progbits,sig,comdat\n.quad {n}\n"
        )
    };
    let a = t.assemble("a", &source(1));
    let b = t.assemble("b", &source(2));
    let args = ["-r", a.to_str().unwrap(), b.to_str().unwrap()];
    let [lld, rld] = direct_both(&t, &args, "ab.o");
    assert!(lld.0 && rld.0, "{}{}", lld.1, rld.1);
    // `.eh_frame` keeps the input's type (clang's SHT_X86_64_UNWIND), as in lld's.
    let eh_type = |p: &Path| find_section(&sections(p), ".eh_frame").map(|s| s.typ);
    assert_eq!(eh_type(&rld.2), eh_type(&lld.2));
    assert_eq!(eh_type(&rld.2).as_deref(), Some("X86_64_UNWIND"));
    for name in [".keepme", ".grouped"] {
        let (want, got) = (sections(&lld.2), sections(&rld.2));
        let (want, got) = (find_section(&want, name), find_section(&got, name));
        let got = got.unwrap_or_else(|| panic!("rld's -r output has no {name}"));
        let want = want.expect("lld keeps it");
        assert_eq!((&got.flags, got.size), (&want.flags, want.size), "{name}");
        assert!(got.flags.contains('E'), "{name}: {}", got.flags);
        assert_eq!(
            section_data(&rld.2, name),
            section_data(&lld.2, name),
            "{name}"
        );
    }
    // Both copies' relocations, against each file's function.
    let relocs = |p: &Path| {
        tool_stdout("readelf", &["-rW"], p)
            .lines()
            .filter(|l| l.contains("R_X86_64_64"))
            .map(|l| l.split_whitespace().last().unwrap_or_default().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(relocs(&rld.2), relocs(&lld.2));
    assert_eq!(relocs(&rld.2).len(), 2, "{:?}", relocs(&rld.2));
    // The final link leaves them out.
    let main = t.compile(Clang, "int main(void) { return 0; }\n", &["-O2"]);
    let exe = t.link(Driver::ClangRld, &[&main, &rld.2], &[], "exe");
    let names = section_names(&sections(&exe));
    assert!(
        !names.iter().any(|n| n == ".keepme" || n == ".grouped"),
        "{names:?}"
    );
}

/// Undefined Rust symbols are shown demangled as lld-22 shows them: v0 names (`_R...`,
/// `-C symbol-mangling-version=v0`) without the crates' hashes, legacy ones with theirs.
#[test]
fn rust_names_in_undefined_symbol_errors_as_lld() {
    let t = Test::new();
    let src = t.write(
        "r.rs",
        "pub fn find(v: &[u8]) -> Option<usize> { v.iter().rposition(|&b| b == 7) }\n",
    );
    let rlib_obj = t.path("r.o");
    let mut rustc = std::process::Command::new("rustc");
    rustc
        .args([
            "--crate-type=rlib",
            "-Copt-level=0",
            "-Csymbol-mangling-version=v0",
            "--emit=obj",
        ])
        .arg(&src)
        .arg("-o")
        .arg(&rlib_obj);
    run_checked(&mut rustc);
    // Every function the object defines, called from an object that lacks them.
    let names: Vec<String> = nm(&rlib_obj)
        .into_iter()
        .filter(|s| s.kind == 'T' && s.name.starts_with("_R"))
        .map(|s| s.name)
        .collect();
    assert!(names.len() >= 2, "{names:?}");
    let mut asm = String::from(".text\n.globl _start\n_start:\n");
    for n in &names {
        asm += &format!("call {n}\n");
    }
    asm += "call _ZN4core3fmt5write17h0123456789abcdefE\n";
    let s = t.write("calls.s", asm);
    let obj = t.compile(Clang, s.to_str().unwrap(), &[]);
    let [lld, rld] = direct_both(&t, &[obj.to_str().unwrap()], "calls");
    assert!(!lld.0 && !rld.0);
    let reports = |stderr: &str| -> Vec<String> {
        let mut v: Vec<String> = stderr
            .lines()
            .filter_map(|l| {
                l.split_once("undefined symbol: ")
                    .map(|(_, n)| n.to_string())
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(reports(&rld.1), reports(&lld.1));
    assert!(
        rld.1.contains("rposition::<r::find::{closure#0}>"),
        "{}",
        rld.1
    );
}

/// The dynamic relocations of `.rela.dyn` as LLVM's reader decodes them (it reads
/// Android's packed format too), each address as (section, offset in it), so that two
/// layouts compare: (type, place, symbol, addend).
fn dynamic_relocations(p: &Path) -> Vec<(String, String, String, String)> {
    let secs = sections(p);
    let place = |addr: u64| -> String {
        secs.iter()
            .filter(|s| s.flags.contains('A') && s.addr <= addr && addr < s.addr + s.size.max(1))
            .map(|s| format!("{}+{:#x}", s.name, addr - s.addr))
            .next()
            .unwrap_or_else(|| format!("{addr:#x}"))
    };
    let text = tool_stdout("llvm-readelf-22", &["-r", "-W"], p);
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("Relocation section") {
            inside = line.contains("'.rela.dyn'");
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if !inside || f.len() < 3 || u64::from_str_radix(f[0], 16).is_err() {
            continue;
        }
        let offset = u64::from_str_radix(f[0], 16).unwrap();
        let (symbol, addend) = if f[2] == "R_X86_64_RELATIVE" {
            (String::new(), place(u64::from_str_radix(f[3], 16).unwrap()))
        } else {
            (
                f.get(4).unwrap_or(&"").to_string(),
                f[f.len() - 1].to_string(),
            )
        };
        out.push((f[2].to_string(), place(offset), symbol, addend));
    }
    out.sort();
    out
}

/// `--pack-dyn-relocs=android` (lld's, for Android's loader): `.rela.dyn` becomes an
/// ANDROID_RELA section in the packed "APS2" format with DT_ANDROID_RELA/RELASZ, as lld
/// makes it, holding exactly the relocations of the unpacked link (decoded by LLVM's
/// reader); `android+relr` moves the relative ones to `.relr.dyn`, and
/// `--use-android-relr-tags` names that table as Android does. (glibc reads neither, so
/// these outputs are checked, not run.)
#[test]
fn android_packed_relocations_as_lld() {
    let t = Test::new();
    let lib = t.compile(Clang, "int e1, e2;\n", &["-fPIC"]);
    let so = t.path("libre.so");
    let mut cc = std::process::Command::new("clang-22");
    cc.arg("-shared").arg(&lib).arg("-o").arg(&so);
    run_checked(&mut cc);
    let main = t.compile(
        Clang,
        "extern int e1, e2;\nint x = 1; int *p = &x; int *q = &x + 1;\n\
         int *table[40] = {&x, &x, &x, &x, &x, &x, &x, &x, [20] = &x, &x, &x};\n\
         int *ext[3] = {&e1, &e2, &e1};\nint main(void) { return *p - 1; }\n",
        &["-fPIE"],
    );
    let dir = format!("-L{}", t.path("").display());
    let base = ["-pie", dir.as_str(), "-lre"];
    let plain = t.link(Driver::ClangRld, &[&main], &base, "plain");
    let with = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = base.iter().map(|s| s.to_string()).collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let android = with(&["-Wl,--pack-dyn-relocs=android"]);
    let (lld, rld) = both(&t, &[&main], &strs(&android), "android");
    for p in [&lld, &rld] {
        let rela = find_section(&sections(p), ".rela.dyn").unwrap();
        assert_eq!(
            (rela.typ.as_str(), rela.entsize),
            ("LOOS+0x2", 1),
            "{}",
            p.display()
        );
        let tags = tool_stdout("llvm-readelf-22", &["-d"], p);
        assert!(
            tags.contains("(ANDROID_RELA)") && tags.contains("(ANDROID_RELASZ)"),
            "{tags}"
        );
        assert!(
            !tags.contains("(RELA) ") && !tags.contains("(RELACOUNT)"),
            "{tags}"
        );
    }
    let packed = dynamic_relocations(&rld);
    assert_eq!(packed, dynamic_relocations(&plain));
    assert!(packed.len() >= 15, "{packed:?}");
    let types = |v: &[(String, String, String, String)]| -> Vec<String> {
        v.iter().map(|r| r.0.clone()).collect()
    };
    assert_eq!(types(&packed), types(&dynamic_relocations(&lld)));
    // Smaller than the RELA entries it replaces.
    let size = |p: &Path| find_section(&sections(p), ".rela.dyn").unwrap().size;
    assert!(
        size(&rld) * 3 < size(&plain),
        "{} vs {}",
        size(&rld),
        size(&plain)
    );

    let both_packed = with(&[
        "-Wl,--pack-dyn-relocs=android+relr",
        "-Wl,--use-android-relr-tags",
    ]);
    let (lld, rld) = both(&t, &[&main], &strs(&both_packed), "android-relr");
    for p in [&lld, &rld] {
        let tags = tool_stdout("llvm-readelf-22", &["-d"], p);
        assert!(
            tags.contains("(ANDROID_RELR)") && tags.contains("(ANDROID_RELA)"),
            "{tags}"
        );
        let relr = find_section(&sections(p), ".relr.dyn").unwrap();
        assert_eq!(relr.typ, "LOOS+0xfffff00");
        assert!(!dynamic_relocations(p)
            .iter()
            .any(|r| r.0 == "R_X86_64_RELATIVE"));
    }
    let vers = tool_stdout("readelf", &["-V", "-W"], &rld);
    assert!(!vers.contains("GLIBC_ABI_DT_RELR"), "{vers}");
}

/// Options GNU ld and lld share that rld parsed as unsupported before, each with lld-22's
/// (or GNU ld's) effect: `-M`/`--print-map`, `--no-warnings`/`-w`, `--error-limit=N`,
/// `-e NUMBER`, `--package-metadata=JSON`, `--default-script`/`-dT`, `-rpath-link`,
/// `--rsp-quoting=posix`, the `--no-` forms of `--allow-multiple-definition` and
/// `--print-gc-sections`, and GNU ld's `--warn-rwx-segments`/`--warn-execstack`.
#[test]
fn shared_gnu_and_lld_options_as_they_behave() {
    let t = Test::new();
    let asm = |name: &str, text: &str| -> String {
        let s = t.write(&format!("{name}.s"), text);
        t.compile(Clang, s.to_str().unwrap(), &[])
            .to_str()
            .unwrap()
            .to_string()
    };
    let start = asm(
        "start",
        ".text\n.globl _start\n_start: ret\n.data\n.quad 1\n",
    );
    let errors = |stderr: &str| -> Vec<String> {
        stderr
            .lines()
            .filter_map(|l| l.split_once("error: ").map(|(_, m)| m.to_string()))
            .collect()
    };
    let warnings = |stderr: &str| -> Vec<String> {
        stderr
            .lines()
            .filter_map(|l| l.split_once("warning: ").map(|(_, m)| m.to_string()))
            .collect()
    };
    let run_rld = |args: &[&str]| -> std::process::Output {
        std::process::Command::new(rld_path())
            .args(args)
            .current_dir(t.path(""))
            .output()
            .unwrap()
    };

    // -M and --print-map: the map on standard output, as -Map - writes it.
    let map = |flag: &[&str], out: &str| {
        let mut args = flag.to_vec();
        args.extend([start.as_str(), "-o", out]);
        String::from_utf8(run_rld(&args).stdout).unwrap()
    };
    let reference = map(&["-Map", "-"], "m0");
    assert!(reference.contains("_start"), "{reference}");
    assert_eq!(map(&["-M"], "m0"), reference);
    assert_eq!(map(&["--print-map"], "m0"), reference);

    // -e with a number that names no symbol: that address, no warning (lld's reading).
    for (e, entry) in [("0x1234", "0x1234"), ("1234", "0x4d2")] {
        let [lld, rld] = direct_both(&t, &["-e", e, &start], &format!("entry-{e}"));
        assert!(lld.0 && rld.0 && warnings(&rld.1).is_empty(), "{}", rld.1);
        let header = |p: &Path| tool_stdout("readelf", &["-h"], p);
        assert!(header(&rld.2).contains(&format!("Entry point address:               {entry}")));
        assert_eq!(
            header(&rld.2).lines().find(|l| l.contains("Entry")),
            header(&lld.2).lines().find(|l| l.contains("Entry"))
        );
    }

    // --no-warnings and -w: the warning goes, and --fatal-warnings with it.
    for quiet in ["--no-warnings", "-w"] {
        let args = [quiet, "--fatal-warnings", "-e", "nosuch", &start];
        let [lld, rld] = direct_both(&t, &args, "quiet");
        assert!(rld.0 && warnings(&rld.1).is_empty(), "{quiet}: {}", rld.1);
        assert_eq!(lld.0, rld.0, "{quiet}: {}", lld.1);
    }
    let [_, loud] = direct_both(&t, &["-e", "nosuch", &start], "loud");
    assert_eq!(warnings(&loud.1).len(), 1, "{}", loud.1);

    // --error-limit: as many errors, and lld's closing line.
    let calls = asm(
        "calls",
        ".text\n.globl _start\n_start:\ncall a\ncall b\ncall c\ncall d\n",
    );
    for limit in ["--error-limit=2", "--error-limit=0"] {
        let [lld, rld] = direct_both(&t, &[limit, &calls], "limited");
        assert!(!lld.0 && !rld.0);
        assert_eq!(errors(&rld.1), errors(&lld.1), "{limit}");
    }

    // --package-metadata: lld's note, byte for byte.
    let json = "--package-metadata={\"type\":\"deb\",\"name\":\"rld\"}";
    let [lld, rld] = direct_both(&t, &[json, &start], "package");
    assert!(lld.0 && rld.0);
    assert_eq!(
        section_data(&rld.2, ".note.package"),
        section_data(&lld.2, ".note.package")
    );
    assert!(tool_stdout("readelf", &["-n"], &rld.2).contains("{\"type\":\"deb\",\"name\":\"rld\"}"));

    // --default-script/-dT: used when no -T names a script; a -T wins.
    let default = t.write(
        "default.lds",
        "SECTIONS { . = 0x500000; .text : { *(.text) } .data : { *(.data) } }\n",
    );
    let other = t.write(
        "other.lds",
        "SECTIONS { . = 0x600000; .text : { *(.text) } .data : { *(.data) } }\n",
    );
    let text_addr = |p: &Path| find_section(&sections(p), ".text").unwrap().addr;
    for dt in ["-dT", "--default-script"] {
        let [lld, rld] = direct_both(
            &t,
            &[dt, default.to_str().unwrap(), &start],
            "default-script",
        );
        assert!(lld.0 && rld.0, "{}", rld.1);
        assert_eq!((text_addr(&rld.2), text_addr(&lld.2)), (0x500000, 0x500000));
        let [lld, rld] = direct_both(
            &t,
            &[
                dt,
                default.to_str().unwrap(),
                "-T",
                other.to_str().unwrap(),
                &start,
            ],
            "script-wins",
        );
        assert!(lld.0 && rld.0, "{}", rld.1);
        assert_eq!((text_addr(&rld.2), text_addr(&lld.2)), (0x600000, 0x600000));
    }

    // Accepted as lld accepts them.
    for args in [
        vec!["-rpath-link", "/nonexistent", start.as_str()],
        vec!["--rsp-quoting=posix", start.as_str()],
        vec![
            "--allow-multiple-definition",
            "--no-allow-multiple-definition",
            start.as_str(),
        ],
        vec![
            "--gc-sections",
            "--print-gc-sections",
            "--no-print-gc-sections",
            start.as_str(),
        ],
    ] {
        let [lld, rld] = direct_both(&t, &args, "accepted");
        assert!(lld.0 && rld.0, "{args:?}: {}", rld.1);
        assert_eq!(warnings(&rld.1), warnings(&lld.1), "{args:?}");
    }
    let gc = run_rld(&[
        "--gc-sections",
        "--print-gc-sections",
        "--no-print-gc-sections",
        &start,
        "-o",
        "gc",
    ]);
    assert!(gc.stdout.is_empty());

    // GNU ld's --warn-rwx-segments and --warn-execstack, in its words.
    let rwx = asm("rwx", ".section .foobar,\"awx\"\n.byte 1\n");
    let stack = asm("stack", ".section .note.GNU-stack,\"x\"\n");
    let bfd = |args: &[&str], out: &str| -> String {
        let res = std::process::Command::new("ld.bfd")
            .args(args)
            .arg("-o")
            .arg(out)
            .current_dir(t.path(""))
            .output()
            .unwrap();
        String::from_utf8_lossy(&res.stderr).into_owned()
    };
    for (args, out) in [
        (
            vec!["--warn-rwx-segments", "--no-warn-execstack", &start, &rwx],
            "rwx",
        ),
        (
            vec![
                "--warn-execstack",
                "--no-warn-rwx-segments",
                "-z",
                "execstack-if-needed",
                &start,
                &stack,
            ],
            "stack",
        ),
    ] {
        let theirs = warnings(&bfd(
            &args
                .iter()
                .filter(|a| **a != "execstack-if-needed" && **a != "-z")
                .copied()
                .collect::<Vec<_>>(),
            out,
        ));
        let mut full = args.clone();
        full.extend(["-o", out]);
        let ours = warnings(&String::from_utf8_lossy(&run_rld(&full).stderr));
        assert_eq!(ours, theirs, "{args:?}");
        assert_eq!(ours.len(), 1, "{args:?}");
    }
    // Off by default (as lld).
    let quiet = run_rld(&[
        &start,
        &rwx,
        &stack,
        "-z",
        "execstack-if-needed",
        "-o",
        "default",
    ]);
    assert!(warnings(&String::from_utf8_lossy(&quiet.stderr)).is_empty());
}

/// The sections `PT_GNU_RELRO` covers, from `readelf -lW`'s mapping.
fn relro_mapping(p: &Path) -> Vec<String> {
    let text = tool_stdout("readelf", &["-lW"], p);
    let headers: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("Type"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| !l.trim_start().starts_with('['))
        .collect();
    let index = headers
        .iter()
        .position(|l| l.trim_start().starts_with("GNU_RELRO"))
        .unwrap();
    let mapping = text
        .lines()
        .skip_while(|l| !l.contains("Section to Segment mapping"))
        .find(|l| l.trim_start().starts_with(&format!("{index:02} ")))
        .unwrap_or_default();
    mapping
        .split_whitespace()
        .skip(1)
        .map(str::to_string)
        .collect()
}

/// lld-22 ends the RELRO region with `.relro_padding`, NOBITS to the end of the page, so
/// that the section headers account for what PT_GNU_RELRO protects; rld lays it out the
/// same way, and `__bss_start` stays the start of `.bss`, after it.
#[test]
fn relro_padding_as_lld() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    for (flags, out) in [
        (&[][..], "pie"),
        (&["-no-pie"][..], "no-pie"),
        (&["-shared"][..], "libx.so"),
    ] {
        let objs: Vec<&Path> = if out == "libx.so" {
            vec![&lib]
        } else {
            vec![&main, &lib]
        };
        let (lld, rld) = both(&t, &objs, flags, out);
        if out != "libx.so" {
            assert_same_output(&rld, &lld, &[], &[], Some("2\n"));
        }
        let [ours, theirs] = [&rld, &lld].map(|p| relro_mapping(p));
        assert_eq!(
            ours.last().map(String::as_str),
            Some(".relro_padding"),
            "{out}: {ours:?}"
        );
        let sorted = |v: &[String]| {
            let mut v = v.to_vec();
            v.sort();
            v
        };
        assert_eq!(sorted(&ours), sorted(&theirs), "{out}");
        let pad = find_section(&sections(&rld), ".relro_padding").unwrap();
        assert_eq!(pad.typ, "NOBITS");
        assert_eq!((pad.addr + pad.size) % 4096, 0, "{out}: {pad:?}");
    }
}

/// `--version` prints the version and links nothing, inputs or not; `-v` prints it and
/// links: GNU ld and lld agree, and so does rld.
#[test]
fn version_links_nothing_and_v_links() {
    let t = Test::new();
    let (_, lib) = objects(&t);
    for (ld, name) in [
        (PathBuf::from("/usr/bin/ld.lld-22"), "lld"),
        (rld_path(), "rld"),
    ] {
        for (flag, links) in [("--version", false), ("-v", true)] {
            let out = t.path(&format!("{name}{flag}"));
            let mut cmd = std::process::Command::new(&ld);
            cmd.arg(flag).arg(&lib).args(["-shared", "-o"]).arg(&out);
            let result = cmd.output().unwrap();
            let said = String::from_utf8_lossy(&result.stdout);
            assert!(result.status.success(), "{name} {flag}: {result:?}");
            assert!(
                said.contains("compatible with GNU linkers"),
                "{name} {flag}: {said}"
            );
            assert_eq!(out.exists(), links, "{name} {flag}: output written?");
        }
    }
}

/// `--noinhibit-exec`: an undefined symbol and a duplicate definition are warnings (the
/// first definition wins) and the program is written, as lld writes it; without the
/// option both are errors and nothing is written.
#[test]
fn noinhibit_exec_writes_the_program_despite_undefined_and_duplicate_symbols() {
    let t = Test::new();
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint missing(void);\nint dup = 1;\n\
         int unused(void) { return missing(); }\n\
         int main(void) { printf(\"%d\\n\", dup); return 0; }\n",
        &["-O2", "-ffunction-sections"],
    );
    let other = t.compile(Clang, "int dup = 2;\n", &["-O2"]);
    let flags = ["-Wl,--noinhibit-exec"];
    let mut said = Vec::new();
    for (driver, out) in [(Driver::ClangLld, "lld"), (Driver::ClangRld, "rld")] {
        let (res, cmd) = t.try_link(driver, &[&main, &other], &flags, out);
        let stderr = String::from_utf8_lossy(&res.stderr).into_owned();
        assert!(res.status.success(), "{cmd}: {stderr}");
        for what in [
            "warning: duplicate symbol: dup",
            "warning: undefined symbol: missing",
        ] {
            assert!(stderr.contains(what), "{cmd}: {stderr}");
        }
        said.push(run(&t.path(out), &[], &[]));
    }
    assert_output_is(&t.path("rld"), &said[1], "1\n", "rld");
    assert_eq!(said[0].stdout, said[1].stdout);
    let (res, cmd) = t.try_link(Driver::ClangRld, &[&main, &other], &[], "refused");
    assert!(
        !res.status.success() && !t.path("refused").exists(),
        "{cmd}"
    );
}

/// `--just-symbols FILE` (and GNU ld's `-R FILE`; `-R DIR` stays an rpath): the global
/// symbols an image defines are absolute symbols of the link at their addresses, nothing of
/// the image is linked. lld (`--just-symbols`) and GNU ld (`-R`) give the same program.
#[test]
fn just_symbols_defines_an_images_symbols_at_their_addresses() {
    let t = Test::new();
    let rom_obj = t.compile(
        Clang,
        "int rom_value = 7;\nint rom_func(void) { return 3; }\nstatic int rom_hidden(void) { return 1; }\n\
         int (*keep)(void) = rom_hidden;\n",
        &["-O2"],
    );
    let rom = t.path("rom.elf");
    run_checked(
        std::process::Command::new("ld.lld-22")
            .args(["-e", "0", "-Ttext=0x300000"])
            .arg(&rom_obj)
            .arg("-o")
            .arg(&rom),
    );
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nextern int rom_value;\nint rom_func(void);\n\
         int main(void) { printf(\"%p %p\\n\", (void *)&rom_value, (void *)rom_func); return 0; }\n",
        &["-O2", "-fno-pic"],
    );
    let just = format!("-Wl,--just-symbols={}", rom.display());
    let lld = t.link(Driver::ClangLld, &[&main], &["-no-pie", &just], "lld");
    let addresses = String::from_utf8(run(&lld, &[], &[]).stdout).unwrap();
    let rom_symbols = symbols(&rom);
    let at = |name: &str| rom_symbols.iter().find(|s| s.name == name).unwrap().value;
    assert_eq!(
        addresses,
        format!("{:#x} {:#x}\n", at("rom_value"), at("rom_func"))
    );
    let gnu_r = format!("-Wl,-R,{}", rom.display());
    let gnu = t.link(Driver::GccLd, &[&main], &["-no-pie", &gnu_r], "gnu");
    for (flags, out) in [([just.as_str()], "rld-just"), ([gnu_r.as_str()], "rld-R")] {
        let rld = t.link(
            Driver::ClangRld,
            &[&main],
            &[&["-no-pie"][..], &flags].concat(),
            out,
        );
        assert_same_output(&rld, &lld, &[], &[], Some(&addresses));
        assert_same_output(&rld, &gnu, &[], &[], Some(&addresses));
        // Nothing of the image is linked, and its local symbol stays out.
        assert!(find_section(&sections(&rld), ".text").unwrap().size < 0x1000);
        assert!(!nm_has(&rld, "rom_hidden"));
    }
    let dir = t.path("libs");
    std::fs::create_dir_all(&dir).unwrap();
    // A directory, or a path that does not exist yet, is an rpath (GNU ld's test).
    let with_dir = format!("-Wl,-R,{}", dir.display());
    let not_yet = t.path("not-installed-yet");
    let with_missing = format!("-Wl,-R,{}", not_yet.display());
    let flags = ["-no-pie", &just, &with_dir, &with_missing];
    let rld = t.link(Driver::ClangRld, &[&main], &flags, "rld-dir");
    let gnu_flags = ["-no-pie", &gnu_r, &with_dir, &with_missing];
    let gnu = t.link(Driver::GccLd, &[&main], &gnu_flags, "gnu-dir");
    let runpath = dyn_values(&dynamic(&rld), "RUNPATH");
    let both = format!("{}:{}", dir.display(), not_yet.display());
    assert_eq!(runpath, [format!("Library runpath: [{both}]")]);
    assert_eq!(runpath, dyn_values(&dynamic(&gnu), "RUNPATH"));
}

/// `--cref`: the cross reference table of the global symbols (who defines each, who else
/// names it) is lld's, line for line, on standard output without a map and after the map
/// with one; C++ names read as lld's demangler reads them (`vtable for ...`, `<a<b>>`).
#[test]
fn cref_lists_what_lld_lists() {
    let t = Test::new();
    let lib = t.compile_cxx(
        Clang,
        "#include <vector>\nstruct Shape { virtual int area() const = 0; virtual ~Shape() {} };\n\
         struct Sq : Shape { int s = 3; int area() const override { return s * s; } };\n\
         Shape *make() { return new Sq; }\n\
         std::vector<std::pair<int, int>> pairs() { return {{1, 2}}; }\n\
         template class std::vector<std::pair<int, int>>;\n",
        &["-O1"],
    );
    let main = t.compile_cxx(
        Clang,
        "#include <cstdio>\n#include <vector>\nstruct Shape { virtual int area() const = 0; virtual ~Shape() {} };\n\
         Shape *make();\nstd::vector<std::pair<int, int>> pairs();\n\
         int main() { Shape *s = make(); std::printf(\"%d %zu\\n\", s->area(), pairs().size()); delete s; }\n",
        &["-O1"],
    );
    let objs = [main.as_path(), lib.as_path()];
    let table = |driver: Driver, out: &str, extra: &[&str]| -> String {
        let mut flags = vec!["-Wl,--cref"];
        flags.extend(extra);
        let (res, cmd) = t.try_link_cxx(driver, &objs, &flags, out);
        assert!(
            res.status.success(),
            "{cmd}: {}",
            String::from_utf8_lossy(&res.stderr)
        );
        String::from_utf8_lossy(&res.stdout).into_owned()
    };
    let ours = table(Driver::ClangRld, "rld", &[]);
    assert_eq!(ours, table(Driver::ClangLld, "lld", &[]));
    assert!(
        ours.starts_with("\nCross Reference Table\n\nSymbol"),
        "{ours}"
    );
    assert!(ours.contains("\nvtable for Sq "), "{ours}");
    assert!(ours.contains("std::pair<int, int>>>"), "{ours}");
    let map = t.path("rld.map");
    let map_flag = format!("-Wl,-Map,{}", map.display());
    assert_eq!(table(Driver::ClangRld, "rld-map", &[&map_flag]), "");
    assert!(std::fs::read_to_string(&map).unwrap().ends_with(&ours));
}

/// A C++ program whose kept code lives for every kind of reason: the entry point, `-u`, a
/// retained variable, a constructor table, an exception's LSDA and personality routine,
/// vtables, a string reached through a section symbol.
const WHY_LIVE_CXX: &str = r#"#include <cstdio>
#include <stdexcept>
struct Base { virtual ~Base() {} virtual int f() { return 1; } };
struct Derived : Base { int f() override { return 2; } };
__attribute__((noinline)) static int thrower(int x) {
  if (x > 3) throw std::runtime_error("big");
  return x;
}
int never_called(int x) { return x * 3; }
extern "C" int asked_for(void) { return 7; }
__attribute__((used, retain)) int kept_var = 5;
static volatile int ctor_ran;
__attribute__((constructor, noinline)) static void at_start(void) { ctor_ran = 1; }
int main(int argc, char **) {
  Base *b = argc > 5 ? new Base : new Derived;
  try { thrower(argc + 4); } catch (const std::exception &e) { std::puts(e.what()); }
  std::printf("%d %d\n", b->f(), ctor_ran);
  delete b;
}
"#;

/// `--why-live=GLOB` prints, for each live symbol the pattern matches, its chain of
/// reasons as lld-22 does. Both linkers print each symbol their table holds without a
/// section (undefined, absolute, in a shared library) as one `(no section)` line, and
/// lld's table also holds each shared library symbol's versioned name and the symbols of
/// archive members never loaded: those single lines are left out of the comparison.
#[test]
fn why_live_explains_what_gc_keeps_as_lld() {
    let t = Test::new();
    let obj = t.compile_cxx(
        Clang,
        WHY_LIVE_CXX,
        &["-O1", "-ffunction-sections", "-fdata-sections"],
    );
    let flags = ["-Wl,--gc-sections", "-Wl,-u,asked_for", "-Wl,--why-live=*"];
    let runs = [Driver::ClangLld, Driver::ClangRld].map(|driver| {
        let out = format!("{}/why", driver.name());
        std::fs::create_dir_all(t.path(driver.name())).unwrap();
        let (res, cmd) = t.try_link_cxx(driver, &[&obj], &flags, &out);
        assert!(
            res.status.success(),
            "{cmd}\n{}",
            String::from_utf8_lossy(&res.stderr)
        );
        let out = run(&t.path(&out), &[], &[]);
        assert_eq!(String::from_utf8_lossy(&out.stdout), "big\n2 1\n");
        String::from_utf8_lossy(&res.stdout).into_owned()
    });
    let chains = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !(l.starts_with("live symbol: ") && l.ends_with(" (no section)")))
            .map(String::from)
            .collect()
    };
    let [lld, rld] = [chains(&runs[0]), chains(&runs[1])];
    let name = obj.display();
    for want in [
        format!("live symbol: {name}:(main)\n>>> referenced by: "),
        format!("live symbol: {name}:(asked_for) (undefined command line flag)"),
        format!("live symbol: {name}:(kept_var)\n>>> in live section: {name}:(.data.kept_var) (retained)"),
        format!("live symbol: {name}:(at_start())\n>>> referenced by: {name}:(.init_array) (reserved)"),
        // A call through the section symbol (addend -4) names no symbol: lld's rule.
        format!(
            "live symbol: {name}:(thrower(int))\n>>> in live section: \
             {name}:(.text._ZL7throweri)\n>>> referenced by: {name}:(main)"
        ),
        format!("live symbol: {name}:(Derived::f())\n>>> referenced by: {name}:(vtable for Derived)"),
        format!(">>> referenced by: {name}:(.eh_frame) (exception handling frame)"),
    ] {
        assert!(runs[1].contains(&want), "{want:?} not in\n{}", runs[1]);
    }
    assert!(!runs[1].contains("never_called"), "{}", runs[1]);
    assert!(rld.len() > 100, "{rld:?}");
    assert_eq!(rld, lld);

    // Explaining marks on one thread, in lld's order; what it keeps is the same.
    let plain = t.link_cxx(
        Driver::ClangRld,
        &[&obj],
        &flags[..2],
        "clang-rld/plain",
        true,
    );
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(t.path("clang-rld/why")).unwrap()
    );

    // Without --gc-sections nothing is collected, and lld prints nothing.
    let (res, cmd) = t.try_link_cxx(
        Driver::ClangRld,
        &[&obj],
        &["-Wl,--why-live=main"],
        "clang-rld/nogc",
    );
    assert!(res.status.success(), "{cmd}");
    assert_eq!(String::from_utf8_lossy(&res.stdout), "");
}

/// `--gc-sections` keeps or drops a COMDAT group whole, as lld and GNU ld do: a call to
/// one member keeps its unreferenced sibling (here a variable beside the function).
#[test]
fn gc_keeps_comdat_groups_whole_as_lld_and_gnu_ld() {
    let t = Test::new();
    let obj = t.assemble(
        "group",
        ".section .text.a,\"axG\",@progbits,grp,comdat\n.globl a\n.type a,@function\na: ret\n\
         .section .data.b,\"awG\",@progbits,grp,comdat\n.globl bvar\nbvar: .quad 1\n\
         .section .text.c,\"axG\",@progbits,unused_grp,comdat\n.globl c\nc: ret\n\
         .section .data.d,\"awG\",@progbits,unused_grp,comdat\n.globl dvar\ndvar: .quad 2\n\
         .section .text.main,\"ax\",@progbits\n.globl main\nmain: call a\n xor %eax,%eax\n ret\n\
         .section .note.GNU-stack,\"\",@progbits\n",
    );
    for driver in [Driver::ClangRld, Driver::ClangLld, Driver::GccLd] {
        let out = t.link(
            driver,
            &[&obj],
            &["-Wl,--gc-sections"],
            &format!("{}.out", driver.name()),
        );
        let names: Vec<String> = symbols(&out)
            .into_iter()
            .filter(|s| s.table == ".symtab")
            .map(|s| s.name)
            .filter(|n| ["a", "bvar", "c", "dvar"].contains(&n.as_str()))
            .collect();
        assert_eq!(names, ["a", "bvar"], "{}", driver.name());
    }
}

/// `--time-trace` writes the link's phases as a Chrome trace beside the output (or to the
/// file given), as lld writes its own: JSON with complete events laid end to end inside
/// the whole link's; `--time-trace-granularity` leaves out the shorter ones.
#[test]
fn time_trace_writes_the_phases_as_a_chrome_trace() {
    let t = Test::new();
    let (main, lib) = objects(&t);
    let events = |path: &Path| -> Vec<(String, u64, u64)> {
        let text = std::fs::read_to_string(path).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(json["beginningOfTime"].as_u64().unwrap() > 1_700_000_000_000_000);
        json["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "X")
            .map(|e| {
                let n = |k: &str| e[k].as_u64().unwrap();
                (e["name"].as_str().unwrap().to_string(), n("ts"), n("dur"))
            })
            .collect()
    };
    let flags = ["-Wl,--time-trace", "-Wl,--time-trace-granularity=0"];
    let exe = t.link(Driver::ClangRld, &[&main, &lib], &flags, "traced");
    assert_output_is(&exe, &run(&exe, &[], &[]), "2\n", "traced");
    let all = events(&t.path("traced.time-trace"));
    let names: Vec<&str> = all.iter().map(|(n, _, _)| n.as_str()).collect();
    for phase in [
        "collect inputs",
        "resolve symbols",
        "write output",
        "Total link",
    ] {
        assert!(names.contains(&phase), "{names:?}");
    }
    let (_, _, total) = all.iter().find(|(n, ..)| n == "Total link").unwrap();
    let phases: Vec<&(String, u64, u64)> = all.iter().filter(|(n, ..)| n != "Total link").collect();
    for pair in phases.windows(2) {
        assert!(pair[0].1 + pair[0].2 <= pair[1].1 + 1, "{pair:?}");
    }
    let last = phases.last().unwrap();
    assert!(last.1 + last.2 <= total + 1, "{last:?} past {total}");

    // A file named; phases under an hour of microseconds left out: only the total stays.
    let file = t.path("trace.json");
    let flags = [
        format!("-Wl,--time-trace={}", file.display()),
        "-Wl,--time-trace-granularity=3600000000".to_string(),
    ];
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    t.link(Driver::ClangRld, &[&main, &lib], &flags, "named");
    let names: Vec<String> = events(&file).into_iter().map(|(n, ..)| n).collect();
    assert_eq!(names, ["Total link"]);
}

/// `-z dead-reloc-in-nonalloc=GLOB=VALUE` (lld's): debug info's references to code
/// `--gc-sections` dropped get VALUE in the sections GLOB matches (the last match wins),
/// else lld's default; `.debug_addr` comes out as lld's, entry for entry.
#[test]
fn dead_reloc_in_nonalloc_as_lld() {
    let t = Test::new();
    let live = t.compile(
        Clang,
        "int used(int x) { return x + 1; }\nint main(void) { return used(0) - 1; }\n",
        &["-g", "-O0", "-ffunction-sections"],
    );
    let dead = t.compile(
        Clang,
        "int dead_fn(int x) { return x * 7; }\n",
        &["-g", "-O0", "-ffunction-sections"],
    );
    let cases: [(&[&str], &str); 3] = [
        (&[], "0x0000000000000000"),
        (
            &["-Wl,-z,dead-reloc-in-nonalloc=.debug_a*=7"],
            "0x0000000000000007",
        ),
        (
            &[
                "-Wl,-z,dead-reloc-in-nonalloc=.debug_addr=5",
                "-Wl,-z,dead-reloc-in-nonalloc=.debug_*=0x9",
            ],
            "0x0000000000000009",
        ),
    ];
    for (k, (rules, tombstone)) in cases.into_iter().enumerate() {
        let mut flags = vec!["-Wl,--gc-sections"];
        flags.extend_from_slice(rules);
        let [lld, rld] = [Driver::ClangLld, Driver::ClangRld]
            .map(|d| t.link(d, &[&live, &dead], &flags, &format!("{}-{k}", d.name())));
        let addrs = |p: &Path| tool_stdout("llvm-dwarfdump-22", &["--debug-addr"], p);
        let ours = addrs(&rld);
        assert!(
            ours.lines().any(|l| l.trim() == tombstone),
            "{rules:?}: {ours}"
        );
        assert_eq!(
            ours.replace(&rld.display().to_string(), ""),
            addrs(&lld).replace(&lld.display().to_string(), ""),
            "{rules:?}"
        );
    }
}

/// `-z nosectionheader` (lld's): no section header table (`e_shoff`, `e_shnum` and
/// `e_shstrndx` 0), nor the sections only it finds (symbol tables, debug information); the
/// program's segments are lld's and it runs. With `-r` it is refused, as lld refuses it.
#[test]
fn z_nosectionheader_leaves_out_the_section_headers_as_lld() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "#include <stdio.h>\nint main(void) { puts(\"headless\"); return 0; }\n",
        &["-g", "-O1"],
    );
    let flags = ["-Wl,-z,nosectionheader"];
    let [lld, rld] =
        [Driver::ClangLld, Driver::ClangRld].map(|d| t.link(d, &[&obj], &flags, d.name()));
    let header = |p: &Path| -> Vec<String> {
        tool_stdout("readelf", &["-hW"], p)
            .lines()
            .filter(|l| l.contains("section header") || l.contains("Number of section"))
            .map(String::from)
            .collect()
    };
    let segments = |p: &Path| -> Vec<String> {
        tool_stdout("readelf", &["-lW"], p)
            .lines()
            .filter(|l| l.starts_with("  ") && l.contains("0x"))
            .map(String::from)
            .collect()
    };
    for exe in [&lld, &rld] {
        assert_output_is(
            exe,
            &run(exe, &[], &[]),
            "headless\n",
            &exe.display().to_string(),
        );
    }
    let ours = header(&rld);
    assert!(
        ours.iter()
            .any(|l| l.contains("Start of section headers:") && l.contains(" 0 ")),
        "{ours:?}"
    );
    assert_eq!(ours, header(&lld));
    assert_eq!(segments(&rld), segments(&lld));
    let bytes = std::fs::read(&rld).unwrap();
    let has = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    assert!(
        !has(b".debug_info") && !has(b".symtab"),
        "section names left in the file"
    );
    // Without a build ID (rld's digests are its own), the file is lld's byte for byte:
    // lld leaves zeros where the table would have been, and so does rld.
    let flags = ["-Wl,-z,nosectionheader", "-Wl,--build-id=none"];
    let [lld, rld] = [Driver::ClangLld, Driver::ClangRld]
        .map(|d| t.link(d, &[&obj], &flags, &format!("{}-no-id", d.name())));
    assert!(
        std::fs::read(&rld).unwrap() == std::fs::read(&lld).unwrap(),
        "differs from lld's"
    );

    let (res, cmd) = t.try_link(
        Driver::Rld,
        &[&obj],
        &["-r", "-z", "nosectionheader"],
        "partial.o",
    );
    assert!(!res.status.success(), "{cmd}");
    assert!(
        String::from_utf8_lossy(&res.stderr)
            .contains("-r and -z nosectionheader may not be used together"),
        "{cmd}"
    );
}

/// `-z retpolineplt` (lld's): calls through the PLT reach their target by a retpoline.
/// `.plt` and `.got.plt` are lld-22's byte for byte, with lazy binding and with `-z now`,
/// in a PIE and a shared library, and the programs run. A static program's IFUNC entries
/// (lld's `.iplt` beside a header-only `.plt`) are refused with a clear error.
#[test]
fn z_retpolineplt_writes_lld_s_plt() {
    let t = Test::new();
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint main(void) { puts(\"a\"); printf(\"%d\\n\", 3); return 0; }\n",
        &["-O1", "-fPIE"],
    );
    let lib = t.compile(
        Clang,
        "int puts(const char *);\nint lib(void) { puts(\"lib\"); return 4; }\n",
        &["-O1", "-fPIC"],
    );
    let dump = |p: &Path, section: &str| tool_stdout("readelf", &["-x", section], p);
    for now in [false, true] {
        let mut flags = vec!["-Wl,-z,retpolineplt"];
        if now {
            flags.push("-Wl,-z,now");
        }
        let [lld, rld] = [Driver::ClangLld, Driver::ClangRld]
            .map(|d| t.link(d, &[&main], &flags, &format!("{}-{now}", d.name())));
        assert_output_is(&rld, &run(&rld, &[], &[]), "a\n3\n", "retpoline");
        for section in [".plt", ".got.plt"] {
            assert_eq!(
                dump(&rld, section),
                dump(&lld, section).replace("lld", "rld"),
                "{section} now={now}"
            );
        }
        // The retpoline itself: `pause; lfence` in a loop.
        let plt: String = dump(&rld, ".plt")
            .lines()
            .filter(|l| l.trim_start().starts_with("0x"))
            .flat_map(|l| l.split_whitespace().skip(1).take(4))
            .collect();
        assert!(plt.contains("f3900faee8"), "{plt}");
        let mut shared = flags.clone();
        shared.push("-shared");
        let [lld, rld] = [Driver::ClangLld, Driver::ClangRld]
            .map(|d| t.link(d, &[&lib], &shared, &format!("{}-{now}.so", d.name())));
        assert_eq!(
            dump(&rld, ".plt"),
            dump(&lld, ".plt").replace("lld", "rld"),
            "shared now={now}"
        );
    }
    let ifunc = t.compile(
        Clang,
        "static int impl(void) { return 7; }\nstatic void *resolve(void) { return (void *)impl; }\n\
         int f(void) __attribute__((ifunc(\"resolve\")));\nint main(void) { return f() - 7; }\n",
        &["-O1"],
    );
    let (res, cmd) = t.try_link(
        Driver::ClangRld,
        &[&ifunc],
        &["-static", "-Wl,-z,retpolineplt"],
        "static",
    );
    assert!(!res.status.success(), "{cmd}");
    assert!(
        String::from_utf8_lossy(&res.stderr)
            .contains("-z retpolineplt: PLT entries for IFUNC symbols are not supported"),
        "{cmd}"
    );
}

/// lld's branch-to-branch optimization (`--branch-to-branch`, on at `-O2`): calls and jumps
/// to a `jmp` go straight to where it leads, through chains, local labels (section
/// symbols), a PC32 jump, and PLT32 addends kept as lld keeps them; not to a jump without
/// a relocation, nor in a shared library to what can be preempted (there through the PLT
/// entry of the jump's target). The code and the `--emit-relocs` relocations are lld's at
/// each setting, and the program runs the same.
#[test]
fn branch_to_branch_as_lld() {
    let t = Test::new();
    let obj = t.assemble(
        "b2b",
        r#"
	.section .text._start,"ax",@progbits
	.globl _start
_start:
	xorl %ebx, %ebx
	call f1
	call f2
	call f1@plt+8
	call local1
	call pre
	call tail
	movl %ebx, %edi
	movl $60, %eax
	syscall

	.section .text.f1,"ax",@progbits
	.globl f1
f1:
	jmp f2
	.fill 3, 1, 0x90
	ret

	.section .text.f2,"ax",@progbits
	.globl f2
f2:
	jmp f3

	.section .text.f3,"ax",@progbits
	.globl f3, f3_here
	.hidden f3_here
f3:
f3_here:
	incl %ebx
	ret
	.fill 5, 1, 0xcc
	ret

	.section .text.l,"ax",@progbits
local1:
	jmp f3

	.section .text.pre,"ax",@progbits
	.globl pre
pre:
	jmp pre2
pre2:
	incl %ebx
	ret

	.section .text.tail,"ax",@progbits
	.globl tail
tail:
	.byte 0xe9
	.long f3_here - . - 4
"#,
    );
    let code = |exe: &Path| -> Vec<String> {
        tool_stdout("objdump", &["-dr", "--no-show-raw-insn"], exe)
            .lines()
            .skip(2)
            .map(str::to_string)
            .collect()
    };
    let settings: [&[&str]; 5] = [
        &[],
        &["-Wl,-O2"],
        &["-Wl,--branch-to-branch"],
        &["-Wl,-O2", "-Wl,--no-branch-to-branch"],
        &["-Wl,-O2", "-shared"],
    ];
    let mut first_call = Vec::new();
    for (n, flags) in settings.iter().enumerate() {
        let mut flags = flags.to_vec();
        flags.extend(["-nostdlib", "-Wl,--emit-relocs"]);
        let shared = flags.contains(&"-shared");
        if !shared {
            flags.push("-static");
        }
        let [lld, rld] = [Driver::ClangLld, Driver::ClangRld]
            .map(|d| t.link(d, &[&obj], &flags, &format!("{}-{n}", d.name())));
        assert_eq!(code(&rld), code(&lld), "{flags:?}");
        if !shared {
            // Five calls reach an `incl`, redirected or not.
            assert_eq!(run(&rld, &[], &[]).status.code(), Some(5), "{flags:?}");
            let text = code(&rld);
            let start = text.iter().position(|l| l.ends_with("<_start>:")).unwrap();
            let call = text[start..].iter().find(|l| l.contains("call")).unwrap();
            first_call.push(call.clone());
        }
    }
    // `call f1` goes to f3 with the optimization, to f1 without.
    let to = |l: &String| l.rsplit('<').next().unwrap_or_default().to_string();
    assert_eq!(
        first_call.iter().map(to).collect::<Vec<_>>(),
        ["f1>", "f3>", "f3>", "f1>"],
        "{first_call:?}"
    );

    // A C program's call to a function that only tail-calls another goes to that one.
    let c = t.compile(
        Clang,
        "#include <stdio.h>\n__attribute__((noinline)) int add(int a, int b) { return a + b; }\n\
         __attribute__((noinline)) int wrap(int a, int b) { return add(a, b); }\n\
         int main(void) { printf(\"%d\\n\", wrap(2, 3)); return 0; }\n",
        &["-O2", "-ffunction-sections"],
    );
    let lld = t.link(Driver::ClangLld, &[&c], &["-Wl,-O2"], "lld-c");
    for exe in t.check_program(&[&c], &["-Wl,-O2"], Some("5\n")) {
        let main: Vec<String> = code(&exe)
            .into_iter()
            .skip_while(|l| !l.ends_with("<main>:"))
            .take_while(|l| !l.is_empty())
            .filter(|l| l.contains("call"))
            .collect();
        assert!(main.iter().any(|l| l.ends_with("<add>")), "{main:?}");
        if exe.to_string_lossy().contains("clang") {
            assert_eq!(
                section_data(&exe, ".text"),
                section_data(&lld, ".text"),
                "{}",
                exe.display()
            );
        }
    }
}

/// `-z keep-data-section-prefix` (lld-22's): a linker script's `.data.rel.ro.hot` output
/// section before `.data.rel.ro` is RELRO with it, so the program links, with lld's
/// segments, and runs; without it the section splits RELRO, which rld refuses as lld does.
#[test]
fn keep_data_section_prefix_as_lld() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "#include <stdio.h>\n\
         __attribute__((section(\".data.rel.ro.hot.t\"))) const char *const hot[] = {\"hot\"};\n\
         const char *const cold[] = {\"cold\"};\n\
         int main(void) { printf(\"%s %s\\n\", hot[0], cold[0]); return 0; }\n",
        &["-O1", "-fPIE"],
    );
    let script = t.write(
        "hot.lds",
        "SECTIONS { .data.rel.ro.hot : { *(.data.rel.ro.hot.*) } } INSERT BEFORE .data.rel.ro;\n",
    );
    let script = format!("-Wl,-T,{}", script.display());
    for d in [Driver::ClangLld, Driver::ClangRld] {
        let (out, cmd) = t.try_link(d, &[&obj], &[&script], &format!("{}-split", d.name()));
        assert!(!out.status.success(), "{cmd}");
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains("section .data.rel.ro is not contiguous with other relro sections")
                || String::from_utf8_lossy(&out.stderr)
                    .contains("section: .data.rel.ro is not contiguous with other relro sections"),
            "{cmd}"
        );
    }
    let flags = [script.as_str(), "-Wl,-z,keep-data-section-prefix"];
    let [lld, rld] =
        [Driver::ClangLld, Driver::ClangRld].map(|d| t.link(d, &[&obj], &flags, d.name()));
    assert_output_is(&rld, &run(&rld, &[], &[]), "hot cold\n", "keep-data");
    let mapping = |exe: &Path| -> Vec<String> {
        tool_stdout("readelf", &["-lW"], exe)
            .lines()
            .skip_while(|l| !l.contains("Section to Segment"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(mapping(&rld), mapping(&lld));
    assert!(
        mapping(&rld)
            .iter()
            .any(|l| l.contains(".data.rel.ro.hot .data.rel.ro .dynamic")),
        "{:?}",
        mapping(&rld)
    );
}

/// `--oformat binary`: the flat memory image, as lld writes it (sections placed as under
/// `-N` without room for headers, from the image base, `-Ttext` or a script's address,
/// `.bss` taking no bytes); with a script's `AT`, each section at its load address as GNU
/// ld writes it (lld-22 writes the run address there: a ROM image needs the load address).
/// `--oformat` naming an ELF format writes the ELF file, and an unknown one is refused.
#[test]
fn oformat_binary_as_lld() {
    let t = Test::new();
    let obj = t.assemble(
        "boot",
        "\t.text\n\t.globl _start\n_start:\n\tmovl $msg, %esi\n\tmovl $buf, %edi\n\tjmp _start\n\
         \t.section .rodata,\"a\"\n\t.byte 1\n\t.data\nmsg:\n\t.asciz \"hi\"\n\
         \t.bss\n\t.balign 64\nbuf:\n\t.zero 64\n",
    );
    let scripted = t.write(
        "boot.lds",
        "SECTIONS { . = 0x7c00; .text : { *(.text) } .rodata : { *(.rodata) }\n\
         .data : { *(.data) } .bss : { *(.bss) } }\n",
    );
    let rom = t.write(
        "rom.lds",
        "SECTIONS { . = 0x1000; .text : { *(.text) } .rodata : { *(.rodata) }\n\
         . = 0x80000; .data : AT(0x2000) { *(.data) } .bss : { *(.bss) } }\n",
    );
    // A flat image is no ELF file: linked without `Test::link`'s readelf check.
    let flat = |flags: &[&str], out: &str| -> Vec<u8> {
        let (res, cmd) = t.try_link(Driver::Rld, &[&obj], flags, out);
        assert!(
            res.status.success(),
            "{cmd}\n{}",
            String::from_utf8_lossy(&res.stderr)
        );
        std::fs::read(t.path(out)).unwrap()
    };
    let reference = |linker: &str, flags: &[&str], out: &str| -> Vec<u8> {
        let path = t.path(out);
        run_checked(
            std::process::Command::new(linker)
                .args(flags)
                .arg(&obj)
                .arg("-o")
                .arg(&path),
        );
        std::fs::read(&path).unwrap()
    };
    let (script, rom) = (script_arg(&scripted), script_arg(&rom));
    for (n, flags) in [
        vec!["--oformat=binary"],
        vec![
            "--oformat",
            "binary",
            "-Ttext=0x7c00",
            "--image-base=0x7000",
        ],
        vec!["--oformat=binary", script.as_str()],
    ]
    .iter()
    .enumerate()
    {
        let got = flat(flags, &format!("rld-{n}.bin"));
        let want = reference("ld.lld-22", flags, &format!("lld-{n}.bin"));
        assert_eq!(got, want, "{flags:?}");
        // The code refers to the data where the image puts it: no ELF header in front.
        assert_ne!(&got[..4], b"\x7fELF");
    }
    let flags = ["--oformat=binary", rom.as_str()];
    let got = flat(&flags, "rld-rom.bin");
    assert_eq!(got, reference("ld", &flags, "ld-rom.bin"));
    assert_eq!((got.len(), &got[0x1000..]), (0x1003, &b"hi\0"[..]));

    let elf = t.link(Driver::Rld, &[&obj], &["--oformat=elf64-x86-64"], "rld.elf");
    assert_eq!(elf_type(&elf), "EXEC");
    let (out, cmd) = t.try_link(Driver::Rld, &[&obj], &["--oformat=srec"], "rld.srec");
    assert!(
        !out.status.success()
            && String::from_utf8_lossy(&out.stderr).contains("unknown --oformat value: srec"),
        "{cmd}"
    );
}

/// `-T FILE` as one argument.
fn script_arg(path: &Path) -> String {
    format!("-T{}", path.display())
}

/// `--force-group-allocation` (GNU ld's and lld's): `-r` resolves COMDAT groups as a final
/// link does, one copy of each, and writes no group sections, the members staying
/// sections of their own names; its sections, global symbols and relocations are lld's,
/// and a program linked from it runs. Without the option the group stays for the final
/// link.
#[test]
fn force_group_allocation_resolves_groups_in_r_as_lld() {
    let t = Test::new();
    let source = |tag: &str, value: u32| {
        format!(
            ".text\n.globl f{tag}\nf{tag}:\n\tcall foo\n\tret\n\
             .section .text.foo,\"axG\",@progbits,foo,comdat\n.weak foo\nfoo:\n\
             \tmovl ${value}, %eax\n\tret\n\
             .section .data.foo,\"awG\",@progbits,foo,comdat\n.quad {value}\n"
        )
    };
    let a = t.assemble("a", &source("a", 1));
    let b = t.assemble("b", &source("b", 2));
    let headers = |o: &Path| -> Vec<(String, String)> {
        sections(o)
            .into_iter()
            .map(|s| (s.name, s.typ))
            // (The string tables come in an order of rld's own in `-r` output.)
            .filter(|(n, _)| !n.is_empty() && !n.ends_with("strtab"))
            .collect()
    };
    let globals = |o: &Path| -> Vec<String> {
        tool_stdout("readelf", &["-sW"], o)
            .lines()
            .filter(|l| l.contains(" GLOBAL ") || l.contains(" WEAK "))
            .map(|l| l.split_whitespace().skip(3).collect::<Vec<_>>().join(" "))
            .collect()
    };
    let relocs = |o: &Path| -> Vec<String> {
        tool_stdout("readelf", &["-rW"], o)
            .lines()
            .filter(|l| l.contains("R_X86_64"))
            .map(str::to_string)
            .collect()
    };
    let rld = t.link(
        Driver::Rld,
        &[&a, &b],
        &["-r", "--force-group-allocation"],
        "rld.o",
    );
    let lld = t.path("lld.o");
    run_checked(
        std::process::Command::new("ld.lld-22")
            .args(["-r", "--force-group-allocation"])
            .args([&a, &b])
            .arg("-o")
            .arg(&lld),
    );
    let ours = headers(&rld);
    assert!(!ours.iter().any(|(_, t)| t == "GROUP"), "{ours:?}");
    assert_eq!(ours, headers(&lld));
    assert_eq!(globals(&rld), globals(&lld));
    assert_eq!(relocs(&rld), relocs(&lld));
    assert_eq!(
        section_data(&rld, ".text.foo"),
        section_data(&lld, ".text.foo")
    );
    let kept = t.link(Driver::Rld, &[&a, &b], &["-r"], "rld-groups.o");
    assert!(headers(&kept).iter().any(|(_, t)| t == "GROUP"));
    let main = t.compile(
        Clang,
        "int fa(void), fb(void);\nint main(void) { return fa() + fb() == 2 ? 0 : 1; }\n",
        &["-O1"],
    );
    t.check_program(&[&main, &rld], &[], Some(""));
}

/// GNU ld's `--print-output-format` (what build scripts write in `OUTPUT_FORMAT`): the
/// format's name, then the link if there are inputs; `--print-sysroot`: the sysroot (nothing
/// without one), and no link. Each prints what GNU ld prints.
#[test]
fn print_output_format_and_sysroot_as_gnu_ld() {
    let t = Test::new();
    let obj = t.assemble("p", ".globl _start\n_start:\n\tret\n");
    let printed = |program: &str, args: &[&str]| -> (String, bool) {
        let out = run_checked(std::process::Command::new(program).args(args));
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            out.status.success(),
        )
    };
    let rld = rld_path();
    let rld = rld.to_str().unwrap();
    for args in [
        vec!["--print-output-format"],
        vec!["--print-sysroot"],
        vec!["--print-sysroot", "--sysroot=/opt/sysroot"],
    ] {
        assert_eq!(printed(rld, &args), printed("ld", &args), "{args:?}");
    }
    let out = t.path("linked");
    let obj_arg = obj.to_str().unwrap();
    let out_arg = out.to_str().unwrap();
    let (text, ok) = printed(rld, &["--print-output-format", obj_arg, "-o", out_arg]);
    assert!(ok && text == "elf64-x86-64\n" && out.is_file());
    let not_linked = t.path("not-linked");
    printed(
        rld,
        &[
            "--print-sysroot",
            obj_arg,
            "-o",
            not_linked.to_str().unwrap(),
        ],
    );
    assert!(!not_linked.exists());
}

/// GNU ld's `--spare-dynamic-tags=N`: `.dynamic` ends with N empty entries, the terminator
/// among them, as many as GNU ld writes (its default is 5; lld writes the terminator
/// alone, and so does rld by default); with 0, where GNU ld writes no terminator, rld
/// keeps it. The library still loads.
#[test]
fn spare_dynamic_tags_as_gnu_ld() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "int lib_value(void) { return 7; }\n",
        &["-O1", "-fPIC"],
    );
    // The empty (DT_NULL) entries `.dynamic` ends with.
    let nulls = |so: &Path| -> usize {
        section_data(so, ".dynamic")
            .chunks_exact(16)
            .rev()
            .take_while(|e| e.iter().all(|&b| b == 0))
            .count()
    };
    let lld = t.link(Driver::ClangLld, &[&obj], &["-shared"], "lld.so");
    let plain = t.link(Driver::ClangRld, &[&obj], &["-shared"], "rld.so");
    assert_eq!(nulls(&plain), nulls(&lld));
    for n in [0, 1, 2, 5] {
        let flag = format!("-Wl,--spare-dynamic-tags={n}");
        let [gnu, rld] = [Driver::GccLd, Driver::ClangRld].map(|d| {
            t.link(
                d,
                &[&obj],
                &["-shared", &flag],
                &format!("{}-{n}.so", d.name()),
            )
        });
        assert_eq!(nulls(&rld), n.max(1));
        assert_eq!(nulls(&rld), nulls(&gnu).max(1), "{n}");
        let main = t.compile(
            Clang,
            "int lib_value(void);\nint main(void) { return lib_value() - 7; }\n",
            &["-O1"],
        );
        let dir = rld.parent().unwrap().display().to_string();
        let linked = format!("-Wl,{}", rld.display());
        let rpath = format!("-Wl,-rpath,{dir}");
        let exe = t.link(
            Driver::ClangRld,
            &[&main],
            &[&linked, &rpath],
            &format!("main-{n}"),
        );
        assert!(run(&exe, &[], &[]).status.success());
    }
}
