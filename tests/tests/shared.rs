//! Shared libraries built by rld (sources in `tests/cases/shared_interpose/`):
//! symbol interposition with LD_PRELOAD, -Bsymbolic and -Bsymbolic-functions
//! (with and without LTO), protected and hidden visibility, --no-undefined /
//! -z defs, DT_SONAME and DT_RUNPATH, dlopen + dlsym, and a non-PIE
//! executable using a library's function and data addresses. Everything is
//! compared with the same build linked by lld-22.

use rld_tests::Compiler::{Clang, Gcc};
use rld_tests::*;
use std::path::PathBuf;

fn src(name: &str) -> String {
    format!("shared_interpose/{name}")
}

/// Every driver, the lld reference first.
const ALL_DRIVERS: [Driver; 3] = [Driver::ClangLld, Driver::ClangRld, Driver::GccRld];

// ---------------------------------------------------------------------------
// Interposition

const NOT_PRELOADED: &str = "main: foo()=1 lib_var=5\nlibrary: foo()*10=10 lib_var=5\n";

/// Builds, with `driver` into `<driver>/`: libinterpose.so from `lib` (plus
/// `lib_flags`), libpreload.so, and main linked against libinterpose.so.
fn build_interpose(t: &Test, driver: Driver, objs: &[PathBuf; 3], lib_flags: &[&str]) -> PathBuf {
    let d = driver.name();
    let [lib, pre, main] = objs;
    t.link(
        driver,
        &[lib],
        &[&["-shared"], lib_flags].concat(),
        &format!("{d}/libinterpose.so"),
    );
    t.link(driver, &[pre], &["-shared"], &format!("{d}/libpreload.so"));
    let l = format!("-L{}", t.path(d).display());
    let link_flags: &[&str] = if lib_flags.contains(&"-flto") {
        &["-flto"]
    } else {
        &[]
    };
    t.link(
        driver,
        &[main],
        &[&[l.as_str(), "-linterpose"], link_flags].concat(),
        &format!("{d}/main"),
    )
}

/// Runs main with and without LD_PRELOAD=./libpreload.so; the library,
/// preload library and executable linked by rld must behave like the ones
/// linked by lld, which must print `NOT_PRELOADED` and `preloaded`.
fn check_interposition(t: &Test, lib_src: &str, lto: bool, lib_flags: &[&str], preloaded: &str) {
    let mut cflags = vec!["-O2", "-fPIC", "-fsemantic-interposition"];
    let mut lib_flags = lib_flags.to_vec();
    if lto {
        cflags.push("-flto");
        lib_flags.push("-flto");
    }
    let main_flags: &[&str] = if lto { &["-O2", "-flto"] } else { &["-O2"] };
    let objs = [
        t.compile(Clang, &src(lib_src), &cflags),
        t.compile(Clang, &src("preload.c"), &["-O2", "-fPIC"]),
        t.compile(Clang, &src("main.c"), main_flags),
    ];
    let lld = build_interpose(t, Driver::ClangLld, &objs, &lib_flags);
    for d in Driver::RLD_DRIVERS {
        let exe = build_interpose(t, d, &objs, &lib_flags);
        let lib_path = [("LD_LIBRARY_PATH", ".")];
        assert_same_output(&exe, &lld, &[], &lib_path, Some(NOT_PRELOADED));
        let preload = [("LD_LIBRARY_PATH", "."), ("LD_PRELOAD", "./libpreload.so")];
        assert_same_output(&exe, &lld, &[], &preload, Some(preloaded));
    }
}

const INTERPOSED: &str = "main: foo()=2 lib_var=7\nlibrary: foo()*10=20 lib_var=7\n";
const BSYMBOLIC: &str = "main: foo()=2 lib_var=7\nlibrary: foo()*10=10 lib_var=5\n";
const BSYMBOLIC_FUNCTIONS: &str = "main: foo()=2 lib_var=7\nlibrary: foo()*10=10 lib_var=7\n";

#[test]
fn interposition_default_preload_wins_inside_library() {
    check_interposition(&Test::new(), "lib.c", false, &[], INTERPOSED);
}

#[test]
fn interposition_bsymbolic_binds_functions_and_data_locally() {
    check_interposition(&Test::new(), "lib.c", false, &["-Wl,-Bsymbolic"], BSYMBOLIC);
}

#[test]
fn interposition_bsymbolic_functions_binds_only_functions() {
    check_interposition(
        &Test::new(),
        "lib.c",
        false,
        &["-Wl,-Bsymbolic-functions"],
        BSYMBOLIC_FUNCTIONS,
    );
}

/// As in lld and GNU ld, the last of -Bsymbolic and its kin decides; -Bno-symbolic undoes
/// them.
#[test]
fn interposition_the_last_bsymbolic_option_wins() {
    let t = Test::new();
    check_interposition(
        &t,
        "lib.c",
        false,
        &["-Wl,-Bsymbolic", "-Wl,-Bno-symbolic"],
        INTERPOSED,
    );
    let t = Test::named("bsymbolic_then_functions");
    let flags = ["-Wl,-Bsymbolic", "-Wl,-Bsymbolic-functions"];
    check_interposition(&t, "lib.c", false, &flags, BSYMBOLIC_FUNCTIONS);
}

/// -Bsymbolic-non-weak-functions and -Bsymbolic-non-weak (lld's) leave weak definitions
/// preemptible.
#[test]
fn interposition_bsymbolic_non_weak_leaves_weak_definitions_preemptible() {
    let t = Test::new();
    let non_weak_functions = ["-Wl,-Bsymbolic-non-weak-functions"];
    check_interposition(&t, "lib.c", false, &non_weak_functions, BSYMBOLIC_FUNCTIONS);
    let t = Test::named("weak_functions");
    check_interposition(&t, "lib_weak.c", false, &non_weak_functions, INTERPOSED);
    let t = Test::named("non_weak");
    check_interposition(&t, "lib.c", false, &["-Wl,-Bsymbolic-non-weak"], BSYMBOLIC);
    let t = Test::named("non_weak_weak_foo");
    let weak_foo_local_var = "main: foo()=2 lib_var=7\nlibrary: foo()*10=20 lib_var=5\n";
    check_interposition(
        &t,
        "lib_weak.c",
        false,
        &["-Wl,-Bsymbolic-non-weak"],
        weak_foo_local_var,
    );
}

/// lld's --export-dynamic-symbol (and -list): in a shared library, the matched symbols stay
/// preemptible even under -Bsymbolic; in an executable they are exported.
#[test]
fn export_dynamic_symbol_keeps_matches_preemptible_and_exports_them() {
    // -Bsymbolic-functions alone binds foo locally (BSYMBOLIC_FUNCTIONS); matched, it stays
    // preemptible. (Under -Bsymbolic the output is DF_SYMBOLIC, and the dynamic loader
    // binds the library's own PLT call to its own foo anyway, in lld's link as in rld's.)
    let t = Test::new();
    let flags = [
        "-Wl,-Bsymbolic-functions",
        "-Wl,--export-dynamic-symbol=fo?",
    ];
    check_interposition(&t, "lib.c", false, &flags, INTERPOSED);
    let t = Test::named("export_list");
    let list = t.write("exports.list", "{ /* lld's format */ foo; };\n");
    let flag = format!("-Wl,--export-dynamic-symbol-list={}", list.display());
    let flags = ["-Wl,-Bsymbolic-functions", flag.as_str()];
    check_interposition(&t, "lib.c", false, &flags, INTERPOSED);

    // An executable exports what matches, as lld does.
    let t = Test::named("export_exe");
    let obj = t.compile(Clang, &src("lib.c"), &["-O2", "-fPIC"]);
    let main = t.write(
        "m.c",
        "int lib_calls_foo(void);\nint main(void) { return lib_calls_foo() != 10; }\n",
    );
    let main = t.compile(Clang, main.to_str().unwrap(), &["-O2"]);
    let names = |d: Driver| {
        let exe = t.link(
            d,
            &[&obj, &main],
            &["-Wl,--export-dynamic-symbol=lib_*"],
            &format!("{}/prog", d.name()),
        );
        let mut n: Vec<String> = exported_names(&exe)
            .into_iter()
            .filter(|n| n.starts_with("lib_"))
            .collect();
        n.sort();
        n
    };
    let lld = names(Driver::ClangLld);
    assert!(lld.contains(&"lib_var".to_string()), "{lld:?}");
    assert_eq!(names(Driver::ClangRld), lld);
}

/// -Bsymbolic marks the library DF_SYMBOLIC, as lld and GNU ld do; its kin do not.
#[test]
fn bsymbolic_sets_df_symbolic() {
    let t = Test::new();
    let obj = t.compile(Clang, &src("lib.c"), &["-O2", "-fPIC"]);
    for flag in [
        "-Wl,-Bsymbolic",
        "-Wl,-Bsymbolic-functions",
        "-Wl,-Bno-symbolic",
    ] {
        let flags = |d: Driver| {
            let so = t.link(
                d,
                &[&obj],
                &["-shared", flag],
                &format!("{}{flag}/lib.so", d.name()),
            );
            dyn_values(&dynamic(&so), "FLAGS")
        };
        let lld = flags(Driver::ClangLld);
        assert_eq!(flags(Driver::ClangRld), lld, "{flag}");
        assert_eq!(
            lld.iter().any(|v| v.contains("SYMBOLIC")),
            flag == "-Wl,-Bsymbolic",
            "{flag}: {lld:?}"
        );
    }
}

#[test]
fn interposition_lto_default() {
    check_interposition(&Test::new(), "lib.c", true, &[], INTERPOSED);
}

#[test]
fn interposition_lto_bsymbolic() {
    check_interposition(&Test::new(), "lib.c", true, &["-Wl,-Bsymbolic"], BSYMBOLIC);
}

#[test]
fn interposition_lto_bsymbolic_functions() {
    check_interposition(
        &Test::new(),
        "lib.c",
        true,
        &["-Wl,-Bsymbolic-functions"],
        BSYMBOLIC_FUNCTIONS,
    );
}

/// A protected foo is exported but the library's own call is never
/// interposed (the executable's call still is).
#[test]
fn interposition_protected_function_not_interposed() {
    let t = Test::new();
    check_interposition(&t, "lib_protected.c", false, &[], BSYMBOLIC_FUNCTIONS);
    let obj = t.compile(Clang, &src("lib_protected.c"), &["-O2", "-fPIC"]);
    for d in ALL_DRIVERS {
        let so = t.link(d, &[&obj], &["-shared"], &format!("{}/lib.so", d.name()));
        let foo = find_symbols(&symbols(&so), ".dynsym", "foo");
        assert!(
            foo.len() == 1 && foo[0].is_defined() && foo[0].vis == "PROTECTED",
            "{}: foo should be exported as PROTECTED: {foo:?}",
            so.display()
        );
    }
}

// ---------------------------------------------------------------------------
// Hidden symbols

#[test]
fn hidden_symbols_not_exported() {
    let t = Test::new();
    let lib = t.compile(Clang, &src("lib_hidden.c"), &["-O2", "-fPIC"]);
    let main = t.compile(Clang, &src("main_hidden.c"), &["-O2"]);
    let mut bindings = Vec::new();
    for d in ALL_DRIVERS {
        let dir = d.name();
        let so = t.link(d, &[&lib], &["-shared"], &format!("{dir}/libhidden.so"));
        let syms = symbols(&so);
        let exported = find_symbols(&syms, ".dynsym", "exported_fn");
        assert!(
            exported.len() == 1 && exported[0].is_defined(),
            "{}: exported_fn not exported: {exported:?}",
            so.display()
        );
        for name in ["hidden_fn", "hidden_var"] {
            assert!(
                find_symbols(&syms, ".dynsym", name).is_empty(),
                "{}: hidden {name} is in .dynsym",
                so.display()
            );
            let in_symtab = find_symbols(&syms, ".symtab", name);
            bindings.push((
                d,
                name,
                in_symtab.iter().map(|s| s.bind.clone()).collect::<Vec<_>>(),
            ));
        }
        // An executable cannot use the hidden symbol.
        let l = format!("-L{}", t.path(dir).display());
        let (res, cmd) = t.try_link(d, &[&main], &[&l, "-lhidden"], &format!("{dir}/main"));
        let stderr = String::from_utf8_lossy(&res.stderr);
        assert!(
            !res.status.success() && stderr.contains("hidden_fn"),
            "linking against a hidden symbol should fail naming hidden_fn\n  command: {cmd}\n--- stderr ---\n{stderr}"
        );
    }
    // The .symtab binding (lld makes hidden symbols LOCAL) must agree.
    let lld: Vec<_> = bindings
        .iter()
        .filter(|b| b.0 == Driver::ClangLld)
        .map(|b| (b.1, &b.2))
        .collect();
    for d in Driver::RLD_DRIVERS {
        let rld: Vec<_> = bindings
            .iter()
            .filter(|b| b.0 == d)
            .map(|b| (b.1, &b.2))
            .collect();
        assert_eq!(
            rld,
            lld,
            "{}: .symtab bindings of the hidden symbols differ from lld's",
            d.name()
        );
    }
}

// ---------------------------------------------------------------------------
// --no-undefined and -z defs

#[test]
fn no_undefined_and_z_defs_reject_undefined_symbol_in_shared() {
    let t = Test::new();
    let lib = t.compile(Clang, &src("lib_undef.c"), &["-O2", "-fPIC"]);
    for d in ALL_DRIVERS {
        // Without the option the undefined reference is fine.
        t.link(d, &[&lib], &["-shared"], &format!("{}/ok.so", d.name()));
        for opt in ["-Wl,--no-undefined", "-Wl,-z,defs"] {
            let out = format!("{}/bad.so", d.name());
            let (res, cmd) = t.try_link(d, &[&lib], &["-shared", opt], &out);
            let stderr = String::from_utf8_lossy(&res.stderr);
            let ctx = format!(
                "\n  command: {cmd}\n  {}\n--- stderr ---\n{stderr}",
                describe_status(&res)
            );
            assert!(
                !res.status.success(),
                "the link accepted an undefined symbol{ctx}"
            );
            assert!(
                stderr.contains("missing_fn_for_rld_test"),
                "the error does not name the symbol{ctx}"
            );
            assert!(!t.path(&out).exists(), "a failed link left {out}{ctx}");
            if d.is_rld() && !is_standin() {
                assert!(
                    stderr.contains("rld: error"),
                    "rld-specific: no \"rld: error\"{ctx}"
                );
                assert!(!stderr.contains("panicked"), "rld panicked{ctx}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// DT_SONAME, DT_RUNPATH / DT_RPATH

/// Links libsoname_test.so with a soname and main with `-rpath $ORIGIN/lib`,
/// moves the library to lib/ under its soname and runs main without
/// LD_LIBRARY_PATH. Returns (library, executable).
fn build_soname_rpath(t: &Test, d: Driver, exe_flags: &[&str]) -> (PathBuf, PathBuf) {
    let dir = d.name();
    let lib = t.compile(Clang, &src("lib_soname.c"), &["-O2", "-fPIC"]);
    let main = t.compile(Clang, &src("main_soname.c"), &["-O2"]);
    let so = t.link(
        d,
        &[&lib],
        &["-shared", "-Wl,-soname,libsoname_test.so.1"],
        &format!("{dir}/libsoname_test.so"),
    );
    let l = format!("-L{}", t.path(dir).display());
    let exe = t.link(
        d,
        &[&main],
        &[
            &[l.as_str(), "-lsoname_test", "-Wl,-rpath,$ORIGIN/lib"],
            exe_flags,
        ]
        .concat(),
        &format!("{dir}/main"),
    );
    std::fs::create_dir_all(t.path(&format!("{dir}/lib"))).unwrap();
    let installed = t.path(&format!("{dir}/lib/libsoname_test.so.1"));
    std::fs::rename(&so, &installed).unwrap();
    (installed, exe)
}

fn check_soname_rpath(exe_flags: &[&str], tag: &str, other_tag: &str) {
    let t = Test::new();
    let (lld_so, lld_exe) = build_soname_rpath(&t, Driver::ClangLld, exe_flags);
    for d in Driver::RLD_DRIVERS {
        let (so, exe) = build_soname_rpath(&t, d, exe_flags);
        assert_same_output(
            &exe,
            &lld_exe,
            &[],
            &[],
            Some("found the library through the runpath: 1234\n"),
        );
        let so_dyn = dynamic(&so);
        assert_eq!(
            dyn_values(&so_dyn, "SONAME"),
            ["Library soname: [libsoname_test.so.1]"],
            "{}",
            so.display()
        );
        assert_eq!(
            dyn_values(&so_dyn, "SONAME"),
            dyn_values(&dynamic(&lld_so), "SONAME")
        );
        let exe_dyn = dynamic(&exe);
        let lld_dyn = dynamic(&lld_exe);
        assert!(
            dyn_values(&exe_dyn, "NEEDED")
                .contains(&"Shared library: [libsoname_test.so.1]".to_string()),
            "{}: DT_NEEDED should be the soname: {:?}",
            exe.display(),
            dyn_values(&exe_dyn, "NEEDED")
        );
        let want = dyn_values(&lld_dyn, tag);
        assert_eq!(want.len(), 1, "lld's {tag}: {lld_dyn:?}");
        assert_eq!(dyn_values(&exe_dyn, tag), want, "{}: {tag}", exe.display());
        assert!(
            dyn_values(&exe_dyn, other_tag).is_empty(),
            "{}: unexpected {other_tag}: {exe_dyn:?}",
            exe.display()
        );
    }
}

#[test]
fn soname_and_runpath() {
    check_soname_rpath(&[], "RUNPATH", "RPATH");
}

#[test]
fn rpath_with_disable_new_dtags() {
    check_soname_rpath(&["-Wl,--disable-new-dtags"], "RPATH", "RUNPATH");
}

// ---------------------------------------------------------------------------
// dlopen + dlsym

#[test]
fn dlopen_dlsym_of_rld_built_library() {
    let t = Test::new();
    let plugin = t.compile(Clang, &src("plugin.c"), &["-O2", "-fPIC"]);
    let host = t.compile(Clang, &src("dl_host.c"), &["-O2"]);
    // One host (linked by lld) loads each driver's plugin: only the library differs.
    let host = t.link(Driver::ClangLld, &[&host], &["-ldl"], "host");
    let want = "ready=1 add(1)=102\n\
                after writing the counter: add(1)=1002\n\
                private through a pointer: 7\n\
                static symbol found: no, dlerror names it: yes\n\
                dladdr(add): plugin_add\n\
                plugin destructor: 2 call(s)\n\
                dlclose: 0\n";
    let lld_so = t.link(
        Driver::ClangLld,
        &[&plugin],
        &["-shared"],
        "clang-lld/plugin.so",
    );
    let reference = run(&host, &[lld_so.to_str().unwrap()], &[]);
    assert_output_is(&host, &reference, want, "the host with lld's plugin");
    for d in Driver::RLD_DRIVERS {
        let so = t.link(
            d,
            &[&plugin],
            &["-shared"],
            &format!("{}/plugin.so", d.name()),
        );
        let got = run(&host, &[so.to_str().unwrap()], &[]);
        assert_output_is(
            &host,
            &got,
            want,
            &format!("the host with {}", so.display()),
        );
        assert_eq!(got.stderr, reference.stderr);
    }
}

// ---------------------------------------------------------------------------
// Non-PIE executable: canonical PLT entry and copy relocation

#[test]
fn no_pie_canonical_plt_and_copy_relocation() {
    let t = Test::new();
    let lib = t.compile(Clang, &src("lib_addr.c"), &["-O2", "-fPIC"]);
    let main = t.compile(Clang, &src("main_addr.c"), &["-O2", "-fno-pic"]);
    let build = |d: Driver| -> PathBuf {
        let dir = d.name();
        t.link(d, &[&lib], &["-shared"], &format!("{dir}/libaddr.so"));
        let l = format!("-L{}", t.path(dir).display());
        t.link(
            d,
            &[&main],
            &[&l, "-laddr", "-no-pie"],
            &format!("{dir}/main"),
        )
    };
    let lld = build(Driver::ClangLld);
    for d in Driver::RLD_DRIVERS {
        let exe = build(d);
        assert_same_output(
            &exe,
            &lld,
            &[],
            &[("LD_LIBRARY_PATH", ".")],
            Some(
                "&lib_fn same in executable and library: yes\n\
                 &lib_data same in executable and library: yes\n\
                 lib_data initially 10\n\
                 library reads 99 after the executable wrote 99\n\
                 library calls through the executable's pointer: 42\n",
            ),
        );
        for exe in [&exe, &lld] {
            assert_eq!(elf_type(exe), "EXEC");
            assert!(
                relocation_types(exe).iter().any(|r| r == "R_X86_64_COPY"),
                "{}: no copy relocation for lib_data",
                exe.display()
            );
            let syms = symbols(exe);
            let data = find_symbols(&syms, ".dynsym", "lib_data");
            assert!(
                data.len() == 1 && data[0].is_defined(),
                "{}: lib_data should be defined in the executable (copied): {data:?}",
                exe.display()
            );
            // A canonical PLT entry: undefined, but with the PLT address as value.
            let f = find_symbols(&syms, ".dynsym", "lib_fn");
            assert!(
                f.len() == 1 && f[0].value != 0,
                "{}: lib_fn should have a canonical PLT address: {f:?}",
                exe.display()
            );
        }
    }
}

/// A non-PIE program copies a library's variables: one the library keeps in read-only
/// memory (`const`) gets its copy in `.bss.rel.ro`, under PT_GNU_RELRO, and a writable
/// one in `.bss`, as lld (and GNU ld, in its `.data.rel.ro`) keep the library's protection.
#[test]
fn copies_of_read_only_library_data_are_relro_as_lld() {
    let t = Test::new();
    let lib = t.compile(
        Clang,
        "const int lib_table[4] = {1, 2, 3, 4};\nint lib_var = 5;\n\
         int lib_sum(void) { return lib_table[0] + lib_table[3] + lib_var; }\n",
        &["-O2", "-fPIC"],
    );
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nextern const int lib_table[4];\nextern int lib_var;\nint lib_sum(void);\n\
         int main(void) { lib_var += 10; printf(\"%d %d %d\\n\", lib_table[2], lib_var, lib_sum()); return 0; }\n",
        &["-O2", "-fno-pic"],
    );
    let mut exes = Vec::new();
    for d in [Driver::ClangRld, Driver::ClangLld] {
        let dir = d.name();
        t.link(d, &[&lib], &["-shared"], &format!("{dir}/libro.so"));
        let l = format!("-L{}", t.path(dir).display());
        let rpath = format!("-Wl,-rpath,{}", t.path(dir).display());
        exes.push(t.link(
            d,
            &[&main],
            &[&l, "-lro", "-no-pie", &rpath],
            &format!("{dir}/main"),
        ));
    }
    assert_same_output(&exes[0], &exes[1], &[], &[], Some("3 15 20\n"));
    for exe in &exes {
        let secs = sections(exe);
        let syms = symbols(exe);
        let section_of = |name: &str| {
            let s = &find_symbols(&syms, ".dynsym", name)[0];
            let ndx: usize = s.ndx.parse().expect("defined in the executable");
            (
                secs.iter().find(|x| x.index == ndx).unwrap().name.clone(),
                s.value,
            )
        };
        let (table_section, table_addr) = section_of("lib_table");
        assert_eq!(table_section, ".bss.rel.ro", "{}", exe.display());
        assert_eq!(section_of("lib_var").0, ".bss", "{}", exe.display());
        let relro = segments(exe)
            .into_iter()
            .find(|s| s.typ == "GNU_RELRO")
            .unwrap();
        assert!(
            (relro.vaddr..relro.vaddr + relro.memsz).contains(&table_addr),
            "{}",
            exe.display()
        );
    }
}

// ---------------------------------------------------------------------------
// STB_GNU_UNIQUE

/// The binding readelf shows for `name` in `table` of `path` (a `UNIQUE` binding reads
/// `<OS specific>: 10` where the ELF header does not say GNU).
fn binding_of(path: &std::path::Path, table: &str, name: &str) -> String {
    let text = tool_stdout("readelf", &["-sW"], path);
    let mut current = "";
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Symbol table '") {
            current = rest.split('\'').next().unwrap_or("");
        } else if current == table && line.split_whitespace().last() == Some(name) {
            let f: Vec<&str> = line.split_whitespace().collect();
            return if line.contains("<OS specific>: 10") {
                "UNIQUE".to_string()
            } else {
                f[4].to_string()
            };
        }
    }
    panic!("no {name} in {table} of {}", path.display());
}

/// g++ gives an inline function's static `STB_GNU_UNIQUE` binding, so that every loaded
/// library with a copy uses one instance, even when loaded `RTLD_LOCAL`. The libraries
/// keep the binding in `.dynsym` and `.symtab` (and `-r` keeps it), as lld's and GNU ld's
/// do; `--no-gnu-unique` makes it global, as lld's option does. (rld made it global: two
/// plugins each had their own counter, and the program printed 1 1 2 instead of 1 2 3.)
#[test]
fn gnu_unique_statics_stay_one_instance_across_rtld_local_libraries() {
    let t = Test::new();
    let plugin = |n: u32| {
        t.compile_cxx(
            Gcc,
            &format!(
                "inline int &counter() {{ static int c = 0; return c; }}\n\
                 extern \"C\" int bump{n}() {{ return ++counter(); }}\n"
            ),
            &["-O2", "-fPIC"],
        )
    };
    let (p1, p2) = (plugin(1), plugin(2));
    let name = "_ZZ7countervE1c";
    assert_eq!(
        binding_of(&p1, ".symtab", name),
        "UNIQUE",
        "g++ no longer writes UNIQUE"
    );
    let main = t.compile(
        Clang,
        "#include <dlfcn.h>\n#include <stdio.h>\n\
         int main(int argc, char **argv) {\n\
           void *h1 = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL), *h2 = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);\n\
           if (!h1 || !h2) { printf(\"%s\\n\", dlerror()); return 1; }\n\
           int (*b1)(void) = (int (*)(void))dlsym(h1, \"bump1\"), (*b2)(void) = (int (*)(void))dlsym(h2, \"bump2\");\n\
           int a = b1(), b = b2(), c = b1(); printf(\"%d %d %d\\n\", a, b, c); return 0; }\n",
        &["-O2"],
    );
    let exe = t.link(Driver::ClangLld, &[&main], &["-ldl"], "main");
    let cases: [(&str, &[&str], &str, &str); 2] = [
        ("unique", &[], "1 2 3\n", "UNIQUE"),
        ("global", &["-Wl,--no-gnu-unique"], "1 1 2\n", "GLOBAL"),
    ];
    for (tag, extra, expected, bind) in cases {
        for driver in [Driver::ClangLld, Driver::ClangRld, Driver::GccRld] {
            let d = driver.name();
            let libs: Vec<PathBuf> = [&p1, &p2]
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let flags = [&["-shared"], extra].concat();
                    t.link_cxx(
                        driver,
                        &[p],
                        &flags,
                        &format!("{d}/{tag}/p{}.so", i + 1),
                        true,
                    )
                })
                .collect();
            for table in [".dynsym", ".symtab"] {
                assert_eq!(binding_of(&libs[0], table, name), bind, "{d} {tag} {table}");
            }
            let args: Vec<String> = libs.iter().map(|l| l.display().to_string()).collect();
            let out = run(&exe, &strs(&args), &[]);
            assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "{d} {tag}");
        }
    }
    let r = t.link(Driver::Rld, &[&p1], &["-r"], "p1-r.o");
    assert_eq!(binding_of(&r, ".symtab", name), "UNIQUE");
}

// ---------------------------------------------------------------------------
// A shared library that is also a program

/// libcap.so and libpsx.so run as programs: their objects carry the loader's name in an
/// `.interp` section and the link names an entry point (`-e __so_start`). lld (and GNU ld)
/// give any output `.interp` a `PT_INTERP`, lld's first after `PT_PHDR` and the section
/// first in the image; without it the kernel starts the library's entry with nothing
/// relocated, and it crashes. The library still loads as a library.
#[test]
fn a_library_with_an_interp_section_runs_as_a_program() {
    let t = Test::new();
    let lib = t.compile(
        Clang,
        "#include <stdio.h>\n#include <stdlib.h>\n\
         const char loader[] __attribute__((section(\".interp\"))) = \"/lib64/ld-linux-x86-64.so.2\";\n\
         int answer(void) { return 42; }\n\
         __attribute__((force_align_arg_pointer)) void so_start(void) {\n\
           printf(\"run as a program: %d\\n\", answer());\n  exit(0);\n}\n",
        &["-O2", "-fPIC"],
    );
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint answer(void);\n\
         int main(void) { printf(\"loaded as a library: %d\\n\", answer()); return 0; }\n",
        &["-O2"],
    );
    let flags = ["-shared", "-Wl,-e,so_start"];
    let headers = |so: &std::path::Path| -> Vec<String> {
        tool_stdout("readelf", &["-lW"], so)
            .lines()
            .skip_while(|l| !l.contains("Type"))
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .filter_map(|l| l.split_whitespace().next().map(String::from))
            .filter(|ty| ty.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
            .collect()
    };
    let lld = t.link(Driver::ClangLld, &[&lib], &flags, "clang-lld/libprog.so");
    let want = "run as a program: 42\n";
    let reference = run(&lld, &[], &[]);
    assert_output_is(&lld, &reference, want, "lld's library run as a program");
    for d in Driver::RLD_DRIVERS {
        let dir = d.name();
        let so = t.link(d, &[&lib], &flags, &format!("{dir}/libprog.so"));
        let got = run(&so, &[], &[]);
        assert_output_is(&so, &got, want, "rld's library run as a program");
        let ours = headers(&so);
        assert_eq!(ours[..2], ["PHDR", "INTERP"], "{ours:?}");
        assert_eq!(ours, headers(&lld), "program headers");
        let l = format!("-L{}", t.path(dir).display());
        let exe = t.link(d, &[&main], &[&l, "-lprog"], &format!("{dir}/main"));
        let got = run(&exe, &[], &[("LD_LIBRARY_PATH", ".")]);
        assert_output_is(
            &exe,
            &got,
            "loaded as a library: 42\n",
            "the library loaded",
        );
    }
}

/// `_end`, `end`, `_edata`, `edata`, `etext`, `_etext` and `__bss_start` are the linker's
/// but keep default visibility, in lld and GNU ld alike: a shared library that uses one
/// exports it and reaches it through the GOT, so the program's own `_end`, which it exports
/// for the library, preempts it; a library that links one exporting `_end` defines its own.
/// rld made them hidden: libgc.so, which finds its data through `_end`, exported it with
/// GNU ld and lld and not with rld, nor did the libraries linked with it.
#[test]
fn end_symbols_a_library_uses_are_exported_and_preemptible() {
    let t = Test::new();
    let lib = t.compile(
        Clang,
        "extern char _end[], end[], _edata[], edata[], etext[], _etext[], __bss_start[];\n\
         char *lib_sym(int i) {\n\
           char *t[] = {_end, end, _edata, edata, etext, _etext, __bss_start};\n\
           return t[i];\n}\n",
        &["-O2", "-fPIC"],
    );
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nextern char _end[];\nchar *lib_sym(int);\n\
         int main(void) {\n  int n = 0;\n  for (int i = 0; i < 7; i++) n += lib_sym(i) != 0;\n\
           printf(\"%d %s\\n\", n, lib_sym(0) == _end ? \"the program's\" : \"its own\");\n\
           return 0;\n}\n",
        &["-O2", "-fPIC"],
    );
    let lld = t.link(
        Driver::ClangLld,
        &[&lib],
        &["-shared"],
        "clang-lld/libend.so",
    );
    let want = exports(&lld);
    for name in [
        "_end@",
        "end@",
        "_edata@",
        "edata@",
        "etext@",
        "_etext@",
        "__bss_start@",
    ] {
        assert!(
            want.iter().any(|e| e == name),
            "lld exports {name}: {want:?}"
        );
    }
    // The program defines `_end` too, and exports it to the library that uses it (lld's
    // and GNU ld's rule for a definition a linked library also has), with `-E` or not.
    for exe_flags in [&[][..], &["-Wl,-E"][..]] {
        for d in ALL_DRIVERS {
            let dir = d.name();
            let so = t.link(d, &[&lib], &["-shared"], &format!("{dir}/libend.so"));
            assert_eq!(exports(&so), want, "{dir}: exports");
            let l = format!("-L{}", t.path(dir).display());
            let flags = [&[l.as_str(), "-lend"], exe_flags].concat();
            let exe = t.link(d, &[&main], &flags, &format!("{dir}/main"));
            let got = run(&exe, &[], &[("LD_LIBRARY_PATH", ".")]);
            assert_output_is(
                &exe,
                &got,
                "7 the program's\n",
                &format!("{dir} {exe_flags:?}"),
            );
        }
    }
    // A library that only links one exporting `_end` (libcord.so with libgc.so) defines
    // and exports its own, as lld and GNU ld do.
    let other = t.compile(Clang, "int other(void) { return 1; }\n", &["-O2", "-fPIC"]);
    let with = |d: Driver| {
        let l = format!("-L{}", t.path(d.name()).display());
        let so = format!("{}/libother.so", d.name());
        exports(&t.link(d, &[&other], &["-shared", &l, "-lend"], &so))
    };
    let want = with(Driver::ClangLld);
    assert!(want.iter().any(|e| e == "_end@"), "{want:?}");
    for d in Driver::RLD_DRIVERS {
        assert_eq!(with(d), want, "{}: libother.so's exports", d.name());
    }
}
