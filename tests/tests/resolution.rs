//! Symbol resolution rules where GNU ld and lld agree: an executable's definitions interpose
//! a shared library's, a library's undefined reference pulls an archive member into the
//! executable, a hidden reference is never satisfied by a library, a real definition in an
//! archive replaces a common symbol, and a protected library symbol cannot be copied into an
//! executable. Every rld build runs like the lld-22 build (or fails where lld-22 fails).

use rld_tests::Compiler::{Clang, Gcc};
use rld_tests::*;
use std::path::{Path, PathBuf};

/// Every driver, the lld reference first.
const ALL_DRIVERS: [Driver; 3] = [Driver::ClangLld, Driver::ClangRld, Driver::GccRld];

const LIB: &str = r#"
int foo(void) { return 1; }
int lib_data = 5;
int call_foo(void) { return foo() * 10; }
int read_data(void) { return lib_data; }
"#;

const MAIN: &str = r#"
#include <stdio.h>
int foo(void) { return 2; }
int lib_data = 7;
int call_foo(void);
int read_data(void);
int main(void) { printf("%d %d\n", call_foo(), read_data()); return 0; }
"#;

/// Links `main` against `lib` (built with `lib_flags` by the same driver) into
/// `<driver>/main`, and returns it.
fn link_with_library(
    t: &Test,
    d: Driver,
    lib: &Path,
    lib_flags: &[&str],
    main: &[&Path],
    main_flags: &[&str],
) -> PathBuf {
    let dir = d.name();
    t.link(
        d,
        &[lib],
        &[&["-shared"], lib_flags].concat(),
        &format!("{dir}/liblib.so"),
    );
    let l = format!("-L{}", t.path(dir).display());
    t.link(
        d,
        main,
        &[&[l.as_str(), "-llib"], main_flags].concat(),
        &format!("{dir}/main"),
    )
}

/// Runs an executable built by [`link_with_library`] with its library directory.
fn run_with_library(exe: &Path) -> std::process::Output {
    let dir = exe.parent().unwrap().to_str().unwrap().to_string();
    run(exe, &[], &[("LD_LIBRARY_PATH", dir.as_str())])
}

/// The executable defines foo and lib_data too: they are exported, so the library's own
/// calls and loads bind to the executable's copies (gcc -fPIC keeps them preemptible).
#[test]
fn executable_definitions_interpose_library_symbols() {
    let t = Test::new();
    let lib = t.compile(Gcc, LIB, &["-O2", "-fPIC"]);
    // With -flto the bitcode's foo and lib_data must stay exported (and alive) too.
    for (cc, lto) in [(Clang, false), (Gcc, false), (Clang, true)] {
        let flags: &[&str] = if lto { &["-O2", "-flto"] } else { &["-O2"] };
        let main = t.compile(cc, MAIN, flags);
        let exes: Vec<PathBuf> = ALL_DRIVERS
            .iter()
            .map(|&d| link_with_library(&t, d, &lib, &[], &[&main], flags))
            .collect();
        let lld_exports = exported_names(&exes[0]);
        for (d, exe) in ALL_DRIVERS.iter().zip(&exes) {
            assert_output_is(exe, &run_with_library(exe), "20 7\n", d.name());
            let names = exported_names(exe);
            assert!(
                names.contains(&"foo".into()) && names.contains(&"lib_data".into()),
                "{names:?}"
            );
            assert_eq!(
                names,
                lld_exports,
                "{}: exported symbols differ from lld's",
                d.name()
            );
        }
    }
}

/// -Bsymbolic-functions binds the library's calls to its own functions but leaves its data
/// interposable: the executable's lib_data (defined there) is the one the library reads.
#[test]
fn bsymbolic_functions_leaves_data_interposable() {
    let t = Test::new();
    let lib = t.compile(Clang, LIB, &["-O2", "-fPIC", "-fsemantic-interposition"]);
    let main = t.compile(Clang, MAIN, &["-O2"]);
    for d in ALL_DRIVERS {
        let exe = link_with_library(&t, d, &lib, &["-Wl,-Bsymbolic-functions"], &[&main], &[]);
        assert_output_is(&exe, &run_with_library(&exe), "10 7\n", d.name());
    }
}

/// A library's undefined reference fetches the archive member that defines it, and the
/// executable exports the definition for the library.
#[test]
fn library_reference_pulls_archive_member() {
    let t = Test::new();
    let lib = t.compile(
        Gcc,
        "int callback(void);\nint run_cb(void) { return callback() + 1; }\n",
        &["-O2", "-fPIC"],
    );
    let member = t.compile(Gcc, "int callback(void) { return 41; }\n", &["-O2"]);
    let archive = t.archive("libcb.a", &[&member]);
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint run_cb(void);\nint main(void) { printf(\"%d\\n\", run_cb()); return 0; }\n",
        &["-O2"],
    );
    for d in ALL_DRIVERS {
        let exe = link_with_library(&t, d, &lib, &[], &[&main, &archive], &[]);
        assert_output_is(&exe, &run_with_library(&exe), "42\n", d.name());
        assert!(
            exported_names(&exe).contains(&"callback".into()),
            "{}: callback not exported",
            d.name()
        );
    }
}

/// A library's reference to a versioned symbol (`callback@V1`, from the library that
/// defines that version) names the version, which no archive member defines: it fetches
/// nothing (lld's rule): the executable does not load the member, and the library keeps
/// calling its dependency's. An executable that defines `callback` itself exports it.
#[test]
fn versioned_library_reference_pulls_no_archive_member() {
    let t = Test::new();
    let dep = t.compile(Gcc, "int callback(void) { return 7; }\n", &["-O2", "-fPIC"]);
    let script = t.write("dep.map", "V1 { global: callback; local: *; };\n");
    let user = t.compile(
        Gcc,
        "int callback(void);\nint run_cb(void) { return callback() + 1; }\n",
        &["-O2", "-fPIC"],
    );
    let member = t.compile(
        Gcc,
        "int member_loaded = 1;\nint callback(void) { return 41; }\n",
        &["-O2"],
    );
    let archive = t.archive("libcb.a", &[&member]);
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint run_cb(void);\nint main(void) { printf(\"%d\\n\", run_cb()); return 0; }\n",
        &["-O2"],
    );
    for d in ALL_DRIVERS {
        let dir = t.path(d.name());
        let version_script = format!("-Wl,--version-script={}", script.display());
        t.link(
            d,
            &[&dep],
            &["-shared", &version_script],
            &format!("{}/libdep.so", d.name()),
        );
        let l = format!("-L{}", dir.display());
        t.link(
            d,
            &[&user],
            &["-shared", &l, "-ldep"],
            &format!("{}/libuser.so", d.name()),
        );
        let archive = archive.to_str().unwrap();
        let exe = t.link(
            d,
            &[&main],
            &[&l, "-luser", archive, "-ldep"],
            &format!("{}/main", d.name()),
        );
        assert_output_is(&exe, &run_with_library(&exe), "8\n", d.name());
        assert!(
            !nm_has(&exe, "member_loaded"),
            "{}: the member was loaded",
            d.name()
        );
        // The executable's own `callback` is exported, and interposes the dependency's.
        let exe = t.link(
            d,
            &[&main, &member],
            &[&l, "-luser", "-ldep"],
            &format!("{}/main-own", d.name()),
        );
        assert_output_is(&exe, &run_with_library(&exe), "42\n", d.name());
    }
}

/// A reference with hidden visibility must be defined inside the output: a library's
/// definition does not count, whatever the order, for executables and shared libraries.
#[test]
fn hidden_undefined_symbol_is_an_error() {
    let t = Test::new();
    let lib = t.compile(Clang, "int helper(void) { return 42; }\n", &["-fPIC"]);
    let user = t.compile(
        Clang,
        "__attribute__((visibility(\"hidden\"))) int helper(void);\nint use(void) { return helper(); }\nint main(void) { return use(); }\n",
        &["-fPIC"],
    );
    for d in ALL_DRIVERS {
        let libso = t.link(d, &[&lib], &["-shared"], &format!("{}/libh.so", d.name()));
        for (objs, flags) in [
            (vec![user.as_path(), libso.as_path()], vec![]),
            (vec![libso.as_path(), user.as_path()], vec![]),
            (vec![user.as_path(), libso.as_path()], vec!["-shared"]),
        ] {
            let out = format!("{}/out", d.name());
            let (res, cmd) = t.try_link(d, &objs, &flags, &out);
            assert!(!res.status.success(), "{cmd} succeeded");
            let stderr = String::from_utf8_lossy(&res.stderr);
            if d.is_rld() && !is_standin() {
                assert!(
                    stderr.contains("undefined hidden symbol: helper"),
                    "{cmd}:\n{stderr}"
                );
            }
            assert!(!t.path(&out).exists(), "{cmd} left an output");
        }
    }
}

/// `int counter;` (a common symbol) and an archive member with `int counter = 42;`: lld
/// since 15 leaves a common symbol to its commons (`--no-fortran-common`, the default), so
/// `counter` stays 0; with `--fortran-common` (lld-14's and GNU ld's way) the member is
/// loaded and its initialized definition wins (native and bitcode).
#[test]
fn archive_definition_replaces_common_symbol() {
    let t = Test::new();
    let main_src = "#include <stdio.h>\nint counter;\nint main(void) { printf(\"%d\\n\", counter); return 0; }\n";
    let def_src = "int counter = 42;\nint unrelated(void) { return 1; }\n";
    for (cc, lto) in [(Gcc, false), (Clang, false), (Clang, true)] {
        let mut flags = vec!["-O2"];
        if lto {
            flags.push("-flto");
        }
        let main = t.compile(cc, main_src, &[&flags[..], &["-fcommon"]].concat());
        let member = t.compile(cc, def_src, &flags);
        let archive = t.archive("libdef.a", &[&member]);
        let lto_flags: &[&str] = if lto { &["-flto"] } else { &[] };
        t.check_program(&[&main, &archive], lto_flags, Some("0\n"));
        let fortran = [lto_flags, &["-Wl,--fortran-common"]].concat();
        t.check_program(&[&main, &archive], &fortran, Some("42\n"));
    }
}

/// `--whole-archive` loads every member: one nothing references runs its constructor, the
/// members resolve each other whatever their order, and the same archive named again
/// without it fetches nothing more; without it, only the members a reference needs are
/// loaded (native and bitcode members).
#[test]
fn whole_archive_loads_every_member() {
    let t = Test::new();
    let main_src =
        "#include <stdio.h>\nint from_a(void);\nint main(void) { printf(\"%d\\n\", from_a()); return 0; }\n";
    let ctor_src = "#include <stdio.h>\n__attribute__((constructor)) static void hello(void) { puts(\"c loaded\"); }\n";
    for (cc, lto) in [(Gcc, false), (Clang, false), (Clang, true)] {
        let mut flags = vec!["-O2"];
        if lto {
            flags.push("-flto");
        }
        let a = t.compile(
            cc,
            "int from_b(void);\nint from_a(void) { return from_b() + 1; }\n",
            &flags,
        );
        let b = t.compile(cc, "int from_b(void) { return 41; }\n", &flags);
        let c = t.compile(cc, ctor_src, &flags);
        let main = t.compile(cc, main_src, &flags);
        // b before a: a's reference to from_b is met by a member added before it.
        let archive = t.archive("libw.a", &[&c, &b, &a]);
        let archive = archive.to_str().unwrap();
        let lto_flags: &[&str] = if lto { &["-flto"] } else { &[] };
        let whole = ["-Wl,--whole-archive", archive, "-Wl,--no-whole-archive"];
        t.check_program(
            &[&main],
            &[lto_flags, &whole].concat(),
            Some("c loaded\n42\n"),
        );
        t.check_program(
            &[&main],
            &[lto_flags, &whole, &[archive]].concat(),
            Some("c loaded\n42\n"),
        );
        t.check_program(&[&main], &[lto_flags, &[archive]].concat(), Some("42\n"));
    }
}

/// A non-PIC executable cannot take a protected library variable's address with a copy
/// relocation, nor a protected function's with a canonical PLT entry (the library keeps
/// using its own): lld says "cannot preempt symbol". `--ignore-data-address-equality` and
/// `--ignore-function-address-equality` (lld's) allow each, and the program then runs as
/// lld's: the library still reads its own copy of the variable.
#[test]
fn copy_relocation_against_protected_symbol_is_an_error() {
    let t = Test::new();
    let lib = t.compile(
        Gcc,
        "__attribute__((visibility(\"protected\"))) int pvar = 5;\nint get_pvar(void) { return pvar; }\n\
         __attribute__((visibility(\"protected\"))) int pfun(void) { return 7; }\n\
         void *pfun_address(void) { return (void *)pfun; }\n",
        &["-fPIC"],
    );
    let main = t.compile(
        Gcc,
        "#include <stdio.h>\nextern int pvar;\nint get_pvar(void);\nint main(void) { pvar = 9; printf(\"%d %d\\n\", pvar, get_pvar()); return 0; }\n",
        &["-fno-pie"],
    );
    let fun = t.compile(
        Gcc,
        "#include <stdio.h>\nint pfun(void);\nvoid *pfun_address(void);\n\
         int main(void) { int (*f)(void) = pfun; printf(\"%d %d\\n\", f(), (void *)f == pfun_address()); return 0; }\n",
        &["-fno-pie"],
    );
    let mut outputs = Vec::new();
    for d in ALL_DRIVERS {
        let libso = t.link(
            d,
            &[&lib],
            &["-shared"],
            &format!("{}/libprot.so", d.name()),
        );
        for (obj, name, option) in [
            (&main, "pvar", "-Wl,--ignore-data-address-equality"),
            (&fun, "pfun", "-Wl,--ignore-function-address-equality"),
        ] {
            let out = format!("{}/{name}", d.name());
            let (res, cmd) = t.try_link(d, &[obj, &libso], &["-no-pie"], &out);
            assert!(!res.status.success(), "{cmd} succeeded");
            let stderr = String::from_utf8_lossy(&res.stderr);
            assert!(
                stderr.contains(&format!("cannot preempt symbol: {name}")),
                "{cmd}:\n{stderr}"
            );
            assert!(!t.path(&out).exists(), "{cmd} left an output");
            if d == Driver::GccLd {
                continue; // GNU ld has neither option.
            }
            let rpath = format!("-Wl,-rpath,{}", t.path(d.name()).display());
            let allowed = format!("{}/{name}-allowed", d.name());
            let exe = t.link(d, &[obj, &libso], &["-no-pie", option, &rpath], &allowed);
            let res = run(&exe, &[], &[]);
            assert!(res.status.success(), "{}", exe.display());
            outputs.push((d, name, String::from_utf8_lossy(&res.stdout).into_owned()));
        }
    }
    for (d, name, out) in &outputs {
        let want = if *name == "pvar" { "9 5\n" } else { "7 0\n" };
        assert_eq!(out, want, "{d:?} {name}");
    }
}

/// Archive members load in lld's order, which decides where their code lands: each
/// archive's members in turn, one loaded the moment a symbol it defines is wanted (before
/// the later members' symbols are known, so a member's reference to a later member's
/// symbol loads that one when the archive reaches it), and a member loaded right away
/// with the members it wants in turn, in the order it names them (depth first), each the
/// moment it is named (`rc`, which `ra` names, before `rb`, which `rf` names after `ra`).
/// Loading all that the first round of an archive wants, then what those want, would put
/// `f2` after `g1` and `x1` before `x2`; loading what an object wants only once all its
/// symbols are in would put `rb` before `rc`.
#[test]
fn archive_members_load_in_lld_order() {
    let t = Test::new();
    let c = |src: &str| t.compile(Clang, src, &["-O1"]);
    let r_a = c("int rc(void);\nint ra(void) { return rc() + 1; }\n");
    let r_b = c("int rb(void) { return 20; }\n");
    let r_c = c("int rc(void) { return 300; }\n");
    let r_f = c("int ra(void), rb(void), rc(void);\n\
                 int rf(void) { return ra() + rb() + rc(); }\n");
    let lib4 = t.archive("lib4.a", &[&r_a, &r_b, &r_c, &r_f]);
    let m1 = c("int f2(void); int h1(void);\nint f1(void) { return f2() + h1(); }\n");
    let m2 = c("int f2(void) { return 2; }\n");
    let m3 = c("int k1(void);\nint g1(void) { return k1() + 3; }\n");
    let p1 = c("int x1(void) { return 5; }\n");
    let p2 = c("int x2(void) { return 7; }\n");
    let p3 = c("int x2(void); int x1(void);\nint top(void) { return x2() * 10 + x1(); }\n");
    let n1 = c("int h1(void) { return 11; }\n");
    let n2 = c("int k1(void) { return 13; }\n");
    let lib1 = t.archive("lib1.a", &[&m1, &m2, &m3]);
    let lib2 = t.archive("lib2.a", &[&p1, &p2, &p3]);
    let lib3 = t.archive("lib3.a", &[&n1, &n2]);
    let main = c("#include <stdio.h>\nint f1(void), g1(void), top(void), rf(void);\n\
                  int main(void) { printf(\"%d %d %d %d\\n\", f1(), g1(), top(), rf()); return 0; }\n");
    let order = |exe: &Path| -> Vec<String> {
        let mut funcs: Vec<(u64, String)> = symbols(exe)
            .into_iter()
            .filter(|s| s.table == ".symtab" && s.typ == "FUNC")
            .filter(|s| {
                ["f1", "f2", "g1", "h1", "k1", "x1", "x2", "top"].contains(&s.name.as_str())
            })
            .map(|s| (s.value, s.name))
            .collect();
        funcs.sort();
        funcs.into_iter().map(|(_, n)| n).collect()
    };
    let inputs: [&Path; 5] = [&main, &lib1, &lib2, &lib3, &lib4];
    let lld = t.link(Driver::ClangLld, &inputs, &[], "lld");
    assert_eq!(
        order(&lld),
        ["f1", "f2", "g1", "top", "x2", "x1", "h1", "k1"],
        "lld"
    );
    for d in [Driver::ClangRld, Driver::GccRld] {
        let exe = t.link(d, &inputs, &[], d.name());
        assert_output_is(&exe, &run(&exe, &[], &[]), "13 16 75 621\n", d.name());
        assert_eq!(order(&exe), order(&lld), "{}", d.name());
    }
}

/// An object's definitions are in place before its references load archive members (lld
/// resolves each object's defined symbols first): `x.o` refers to `foo` before it defines
/// `bar`; the member defining `foo` calls `bar`, which x.o defines, so the member that would
/// define `bar` too (with a constructor) stays out. Loading members for references in
/// symbol order would load it and stop at a duplicate `bar`.
#[test]
fn definitions_come_before_references_within_an_object() {
    let t = Test::new();
    let x = t.assemble(
        "x",
        "\t.text\n\t.globl x_entry\n\t.type x_entry,@function\nx_entry:\n\tjmp foo\n\
         \t.globl bar\n\t.type bar,@function\nbar:\n\tmovl $1, %eax\n\tret\n\
         \t.section .note.GNU-stack,\"\",@progbits\n",
    );
    let m1 = t.compile(
        Clang,
        "int bar(void);\nint foo(void) { return bar() + 10; }\n",
        &["-O1"],
    );
    let m2 = t.compile(
        Clang,
        "#include <stdio.h>\n__attribute__((constructor)) static void loaded(void) { puts(\"m2 loaded\"); }\nint bar(void) { return 2; }\n",
        &["-O1"],
    );
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint x_entry(void);\nint main(void) { printf(\"%d\\n\", x_entry()); return 0; }\n",
        &["-O1"],
    );
    let lib_a = t.archive("libA.a", &[&m1, &m2]);
    let lib_x = t.archive("libX.a", &[&x]);
    let inputs: [&Path; 3] = [&main, &lib_a, &lib_x];
    let lld = t.link(Driver::ClangLld, &inputs, &[], "lld");
    assert_output_is(&lld, &run(&lld, &[], &[]), "11\n", "lld");
    for d in [Driver::ClangRld, Driver::GccRld] {
        let exe = t.link(d, &inputs, &[], d.name());
        assert_output_is(&exe, &run(&exe, &[], &[]), "11\n", d.name());
    }
}

/// `--warn-backrefs` warns where a reference loads an archive member from an earlier group
/// (which GNU ld would not load), as lld-22 does: not for a weak definition, not where a
/// later archive defines the symbol again, not inside `--start-group`, not for members
/// `--warn-backrefs-exclude` names; a `--start-lib` object is a group of its own.
#[test]
fn warn_backrefs_reports_what_lld_reports() {
    let t = Test::new();
    let c = |src: &str| t.compile(Clang, src, &["-O1"]);
    let lib_b = t.archive("libB.a", &[&c("int b(void) { return 2; }\n")]);
    let lib_a = t.archive(
        "libA.a",
        &[&c("int b(void);\nint a(void) { return b() + 1; }\n")],
    );
    let foo = c("int foo(void) { return 40; }\n");
    let lib_foo = t.archive("libfoo.a", &[&foo]);
    let lib_foo2 = t.archive("libfoo2.a", &[&c("int foo(void) { return 41; }\n")]);
    let lib_w = t.archive(
        "libw.a",
        &[&c("__attribute__((weak)) int w(void) { return 1; }\n")],
    );
    let main = c("int a(void), foo(void), w(void);\n\
                  int main(void) { return a() + foo() + w() == 44 ? 0 : 1; }\n");
    let [b, a, f, f2, w, m, fo] =
        [&lib_b, &lib_a, &lib_foo, &lib_foo2, &lib_w, &main, &foo].map(|p| p.to_str().unwrap());
    let warned = |driver: Driver, args: &[&str], out: &str| -> Vec<String> {
        let mut flags = vec!["-Wl,--warn-backrefs"];
        flags.extend_from_slice(args);
        let (res, cmd) = t.try_link(driver, &[], &flags, out);
        assert!(res.status.success(), "{cmd}");
        assert!(run(&t.path(out), &[], &[]).status.success(), "{cmd}");
        let mut lines: Vec<String> = String::from_utf8_lossy(&res.stderr)
            .lines()
            .filter_map(|l| l.split_once("warning: ").map(|(_, w)| w.to_string()))
            .collect();
        lines.sort();
        lines
    };
    let backref = |sym: &str, from: &str, to: String| {
        format!("backward reference detected: {sym} in {from} refers to {to}")
    };
    let cases: [(&[&str], Vec<String>); 5] = [
        (
            &[b, a, f, w, m],
            vec![
                backref("a", m, format!("{a}(inline.3.o)")),
                backref("b", &format!("{a}(inline.3.o)"), format!("{b}(inline.1.o)")),
                backref("foo", m, format!("{f}(inline.5.o)")),
            ],
        ),
        (
            &[b, a, f, w, m, f2],
            vec![
                backref("a", m, format!("{a}(inline.3.o)")),
                backref("b", &format!("{a}(inline.3.o)"), format!("{b}(inline.1.o)")),
            ],
        ),
        (
            &["-Wl,--start-group", b, a, f, m, "-Wl,--end-group", w],
            vec![],
        ),
        (
            &[b, a, f, w, m, "-Wl,--warn-backrefs-exclude=*libA.a(*)"],
            vec![
                backref("b", &format!("{a}(inline.3.o)"), format!("{b}(inline.1.o)")),
                backref("foo", m, format!("{f}(inline.5.o)")),
            ],
        ),
        (
            &[b, a, "-Wl,--start-lib", fo, "-Wl,--end-lib", w, m],
            vec![
                backref("a", m, format!("{a}(inline.3.o)")),
                backref("b", &format!("{a}(inline.3.o)"), format!("{b}(inline.1.o)")),
                backref("foo", m, fo.to_string()),
            ],
        ),
    ];
    for (i, (args, want)) in cases.iter().enumerate() {
        let lld = warned(Driver::ClangLld, args, &format!("lld{i}"));
        let rld = warned(Driver::ClangRld, args, &format!("rld{i}"));
        assert_eq!(&lld, want, "lld, case {i}");
        assert_eq!(rld, lld, "case {i}");
    }
}

/// clang's `#pragma comment(lib, ...)` (a `.deplibs` section, or bitcode's
/// `llvm.dependent-libraries`): the library is linked after the command line's inputs, as
/// lld links it: a shared library by `-l` name (same DT_NEEDED order as lld's), an archive
/// found in the `-L` directories; a name nothing matches is lld's error; and
/// `--no-dependent-libraries` leaves them out.
#[test]
fn dependent_libraries_are_linked_as_lld() {
    let t = Test::new();
    let member = t.compile(Clang, "int twice(int x) { return 2 * x; }\n", &["-O1"]);
    std::fs::create_dir_all(t.path("libs")).unwrap();
    t.archive("libs/libtwice.a", &[&member]);
    let src = "#pragma comment(lib, \"m\")\n#pragma comment(lib, \"twice\")\n\
               #include <math.h>\n#include <stdio.h>\nint twice(int);\n\
               int main(int c, char **v) { (void)v; printf(\"%.3f %d\\n\", cos((double)c), twice(c)); return 0; }\n";
    let libs = format!("-L{}", t.path("libs").display());
    for lto in [false, true] {
        let flags: &[&str] = if lto { &["-O1", "-flto"] } else { &["-O1"] };
        let obj = t.compile(Clang, src, flags);
        let mut outputs = Vec::new();
        for driver in [Driver::ClangLld, Driver::ClangRld] {
            let out = format!("{}-{lto}", driver.name());
            let link_flags: Vec<&str> = [libs.as_str()]
                .into_iter()
                .chain(lto.then_some("-flto"))
                .collect();
            let (res, cmd) = t.try_link(driver, &[&obj], &link_flags, &out);
            assert!(
                res.status.success(),
                "{cmd}\n{}",
                String::from_utf8_lossy(&res.stderr)
            );
            let exe = t.path(&out);
            assert_output_is(&exe, &run(&exe, &[], &[]), "0.540 2\n", &cmd);
            let needed: Vec<String> = tool_stdout("readelf", &["-d"], &exe)
                .lines()
                .filter(|l| l.contains("(NEEDED)"))
                .map(String::from)
                .collect();
            outputs.push(needed);
        }
        assert_eq!(outputs[1], outputs[0], "lto {lto}");
        assert!(
            outputs[1].iter().any(|l| l.contains("libm.so")),
            "{:?}",
            outputs[1]
        );

        // Without the option the references stay undefined, in both linkers.
        for driver in [Driver::ClangLld, Driver::ClangRld] {
            let out = format!("{}-off-{lto}", driver.name());
            let flags = [libs.as_str(), "-Wl,--no-dependent-libraries"];
            let (res, cmd) = t.try_link(driver, &[&obj], &flags, &out);
            assert!(!res.status.success(), "{cmd}");
            assert!(
                String::from_utf8_lossy(&res.stderr).contains("undefined symbol: cos"),
                "{cmd}"
            );
        }
    }

    // `-r` adds no library and keeps `.deplibs`: the final link adds them.
    let obj = t.compile(Clang, src, &["-O1"]);
    let (res, cmd) = t.try_link(Driver::Rld, &[&obj], &["-r"], "partial.o");
    assert!(res.status.success(), "{cmd}");
    let partial = t.path("partial.o");
    assert!(
        sections(&partial).iter().any(|s| s.name == ".deplibs"),
        "{cmd}"
    );
    for driver in [Driver::ClangLld, Driver::ClangRld] {
        let out = format!("{}-partial", driver.name());
        let exe = t.link(driver, &[&partial], &[&libs], &out);
        assert_output_is(&exe, &run(&exe, &[], &[]), "0.540 2\n", driver.name());
    }

    // A name no library or file has: lld's error, naming the object.
    let obj = t.compile(
        Clang,
        "#pragma comment(lib, \"no_such_lib\")\nint main(void) { return 0; }\n",
        &[],
    );
    let errors = [Driver::ClangLld, Driver::ClangRld].map(|driver| {
        let (res, cmd) = t.try_link(driver, &[&obj], &[], &format!("{}-missing", driver.name()));
        assert!(!res.status.success(), "{cmd}");
        first_error(&res.stderr)
    });
    assert_eq!(
        errors[1],
        format!(
            "{}: unable to find library from dependent library specifier: no_such_lib",
            obj.display()
        )
    );
    assert_eq!(errors[1], errors[0]);
}

/// `--remap-inputs=FROM=TO` and `--remap-inputs-file` read an input whose path matches from
/// another file, or leave it out (`/dev/null`), as lld does; a malformed line is lld's
/// error, numbered as lld numbers it (comment lines not counted).
#[test]
fn remap_inputs_replace_or_drop_inputs_as_lld() {
    let t = Test::new();
    let forty = t.compile(Clang, "int foo(void) { return 40; }\n", &["-O1"]);
    let seven = t.compile(Clang, "int foo(void) { return 7; }\n", &["-O1"]);
    let extra = t.compile(Clang, "int bar(void) { return 1; }\n", &["-O1"]);
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint foo(void);\nint main(void) { printf(\"%d\\n\", foo()); return 0; }\n",
        &["-O1"],
    );
    let (forty_s, seven_s) = (forty.display().to_string(), seven.display().to_string());
    let file = t.write(
        "remap.txt",
        format!("# the answer\n  {forty_s}={seven_s}  \n\n*never*=/nowhere\n"),
    );
    let by_glob = format!(
        "-Wl,--remap-inputs=*/{}={seven_s}",
        forty.file_name().unwrap().to_str().unwrap()
    );
    let by_file = format!("-Wl,--remap-inputs-file={}", file.display());
    let dropped = format!("-Wl,--remap-inputs={}=/dev/null", extra.display());
    for driver in [Driver::ClangLld, Driver::ClangRld] {
        for (k, flag) in [&by_glob, &by_file, &dropped].into_iter().enumerate() {
            let out = format!("{}-{k}", driver.name());
            let exe = t.link(driver, &[&main, &forty, &extra], &[flag], &out);
            let want = if k == 2 { "40\n" } else { "7\n" };
            assert_output_is(&exe, &run(&exe, &[], &[]), want, &out);
            if k == 2 {
                let bar = symbols(&exe).into_iter().any(|s| s.name == "bar");
                assert!(!bar, "{out}: the dropped input's symbol is there");
            }
        }
    }
    let bad = t.write("bad.txt", "# comment\nok.o=other.o\nno equals sign\n");
    let bad_file = format!("-Wl,--remap-inputs-file={}", bad.display());
    for flag in ["-Wl,--remap-inputs=nothing", bad_file.as_str()] {
        let errors = [Driver::ClangLld, Driver::ClangRld].map(|driver| {
            let (res, cmd) = t.try_link(driver, &[&main, &forty], &[flag], "bad");
            assert!(!res.status.success(), "{cmd}");
            first_error(&res.stderr)
        });
        assert_eq!(errors[1], errors[0], "{flag}");
    }
}

/// A failed link's first error, without the linker's prefix (`ld.lld: error: `, `rld:
/// error: `); the whole output if no line is an error.
fn first_error(stderr: &[u8]) -> String {
    let stderr = String::from_utf8_lossy(stderr).into_owned();
    stderr
        .lines()
        .find_map(|l| l.split_once("error: ").map(|(_, e)| e.to_string()))
        .unwrap_or(stderr)
}

/// `--error-handling-script` (GNU ld's and lld's): the script runs with `undefined-symbol
/// NAME` for each undefined symbol (its raw, mangled name) and `missing-lib NAME` for a
/// library `-l` does not find, and the error stands; a script that fails or cannot run
/// adds lld's error. Each link's errors are lld-22's, and the script saw what it saw with
/// lld.
#[test]
fn error_handling_script_runs_as_lld() {
    let t = Test::new();
    let obj = t.compile_cxx(
        Clang,
        "int missing_fn(int);\nint main() { return missing_fn(1); }\n",
        &["-O1"],
    );
    let seen = t.path("seen.txt");
    let script = t.write(
        "hint.sh",
        format!(
            "#!/bin/sh\necho \"$@\" >> {}\nexit ${{HINT_EXIT:-0}}\n",
            seen.display()
        ),
    );
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let absent = t.path("absent.sh");
    let errors = |stderr: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(stderr)
            .lines()
            .filter_map(|l| l.split_once("error: ").map(|(_, e)| e.to_string()))
            .filter(|e| !e.starts_with("linker command failed"))
            .collect()
    };
    let mut runs = Vec::new();
    for driver in [Driver::ClangLld, Driver::ClangRld] {
        let _ = std::fs::remove_file(&seen);
        let mut got = Vec::new();
        for (script, extra, exit) in [
            (&script, None, "0"),
            (&script, Some("-lnothere"), "3"),
            (&absent, None, "0"),
        ] {
            let flag = format!("-Wl,--error-handling-script={}", script.display());
            let mut flags = vec![flag.as_str()];
            flags.extend(extra);
            let mut cmd = t.link_command(driver, &[&obj], &flags, &t.path("out"));
            cmd.env("HINT_EXIT", exit);
            let out = output_with_timeout(&mut cmd, std::time::Duration::from_secs(60));
            assert!(!out.status.success(), "{}", command_line(&cmd));
            got.push(errors(&out.stderr));
        }
        runs.push((got, std::fs::read_to_string(&seen).unwrap_or_default()));
    }
    assert_eq!(runs[1], runs[0]);
    let (errors, seen) = &runs[1];
    assert_eq!(
        seen,
        "undefined-symbol _Z10missing_fni\nmissing-lib nothere\n"
    );
    assert_eq!(
        errors[1],
        [
            "unable to find library -lnothere".to_string(),
            format!(
                "error handling script '{}' exited with code 3",
                script.display()
            )
        ]
    );
    assert!(
        errors[2][1].ends_with("absent.sh' failed to execute"),
        "{errors:?}"
    );
}
