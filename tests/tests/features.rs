//! Feature tests: each links C programs from `tests/cases/` with rld through
//! both `clang-22 --ld-path=<rld>` and `gcc -B<dir>`, runs them, and compares
//! them with the same objects linked by lld (see `Test::check_program`).

use rld_tests::Compiler::{Clang, Gcc};
use rld_tests::*;
use std::path::{Path, PathBuf};

const TLS_OUT: &str = "thread 0: ok buf-0 100\n\
                       thread 1: ok buf-1 101\n\
                       thread 2: ok buf-2 102\n\
                       thread 3: ok buf-3 103\n\
                       main: 42 0 initial 100 9\n";

fn tls_objects(t: &Test, cc: Compiler, flags: &[&str]) -> [PathBuf; 2] {
    let flags = [flags, &["-pthread"]].concat();
    [
        t.compile(cc, "tls/tls_main.c", &flags),
        t.compile(cc, "tls/tls_defs.c", &flags),
    ]
}

#[test]
fn tls_threads() {
    let t = Test::new();
    let objs = tls_objects(&t, Clang, &["-O2"]);
    t.check_program(&paths(&objs), &["-pthread"], Some(TLS_OUT));
}

#[test]
fn tls_pic_objects_in_executable() {
    // -fPIC makes the compiler use general- and local-dynamic TLS accesses,
    // which the linker relaxes (or resolves) in an executable.
    let t = Test::new();
    let objs = tls_objects(&t, Clang, &["-O2", "-fPIC"]);
    let relocs = relocation_types(&objs[1]);
    assert!(
        relocs.iter().any(|r| r == "R_X86_64_TLSGD"),
        "no GD access in {relocs:?}"
    );
    assert!(
        relocs.iter().any(|r| r == "R_X86_64_TLSLD"),
        "no LD access in {relocs:?}"
    );
    t.check_program(&paths(&objs), &["-pthread"], Some(TLS_OUT));
}

#[test]
fn tls_gnu2_tlsdesc() {
    let t = Test::new();
    let objs = tls_objects(&t, Gcc, &["-O2", "-fPIC", "-mtls-dialect=gnu2"]);
    let relocs = relocation_types(&objs[1]);
    assert!(
        relocs.iter().any(|r| r == "R_X86_64_GOTPC32_TLSDESC"),
        "no TLSDESC access in {relocs:?}"
    );
    t.check_program(&paths(&objs), &["-pthread"], Some(TLS_OUT));
}

#[test]
fn tls_static_executable() {
    let t = Test::new();
    let objs = tls_objects(&t, Gcc, &["-O1"]);
    for exe in t.check_program(&paths(&objs), &["-static", "-pthread"], Some(TLS_OUT)) {
        assert!(
            has_segment(&segments(&exe), "TLS"),
            "{} has no PT_TLS",
            exe.display()
        );
    }
}

#[test]
fn constructors_destructors_priorities() {
    let t = Test::new();
    let a = t.compile(Clang, "ctors/ctor_a.c", &[]);
    let b = t.compile(Gcc, "ctors/ctor_b.c", &[]);
    let m = t.compile(Clang, "ctors/ctor_main.c", &[]);
    t.check_program(
        &[&a, &b, &m],
        &[],
        Some(
            "ctors: a101 b102 m150 a200 b201 a_plain b_plain m_plain\n\
             main done\n\
             atexit 2\n\
             atexit 1\n\
             atexit from ctor\n\
             dtor b_plain\n\
             dtor a_plain\n\
             dtor b200\n\
             dtor m150\n\
             dtor b102\n\
             dtor a101\n",
        ),
    );
}

#[test]
fn weak_and_common_symbols() {
    let t = Test::new();
    let a = t.compile(Clang, "weak/weak_a.c", &["-fcommon"]);
    let b = t.compile(Gcc, "weak/weak_b.c", &["-fcommon"]);
    let m = t.compile(Clang, "weak/weak_main.c", &[]);
    let in_a = find_symbols(&symbols(&a), ".symtab", "common_counter");
    assert_eq!(
        in_a[0].ndx, "COM",
        "the test needs a common symbol: {in_a:?}"
    );
    for exe in t.check_program(
        &[&a, &b, &m],
        &[],
        Some(
            "who: strong who\n\
             weak_only: weak only\n\
             weak_value: 2\n\
             common_counter: 12\n\
             common_buf: a b\n\
             undefined weak fn is NULL: yes\n\
             undefined weak var is NULL: yes\n",
        ),
    ) {
        let syms = symbols(&exe);
        let buf = find_symbols(&syms, ".symtab", "common_buf");
        assert_eq!(buf.len(), 1, "one common_buf in {}: {buf:?}", exe.display());
        assert_eq!(buf[0].size, 64, "the largest common wins: {buf:?}");
        assert_eq!(buf[0].bind, "GLOBAL");
        assert!(
            buf[0].is_defined() && buf[0].ndx != "COM",
            "common allocated: {buf:?}"
        );
        let who = find_symbols(&syms, ".symtab", "who");
        assert_eq!(who.len(), 1, "{who:?}");
        assert_eq!(who[0].bind, "GLOBAL", "the strong definition wins: {who:?}");
    }
}

#[test]
fn function_pointer_tables_across_objects() {
    let t = Test::new();
    let ops = t.compile(Clang, "funcptr/fp_ops.c", &["-O2"]);
    let tables = t.compile(Gcc, "funcptr/fp_tables.c", &["-O2", "-fPIE"]);
    let main = t.compile(Clang, "funcptr/fp_main.c", &["-O2"]);
    let in_secs = sections(&tables);
    assert!(
        find_section(&in_secs, ".data.rel.ro").is_some(),
        "{:?}",
        section_names(&in_secs)
    );
    for exe in t.check_program(
        &[&ops, &tables, &main],
        &[],
        Some(
            "rw[0](7,3)=10 ro[0](7,3)=21\n\
             rw[1](7,3)=4 ro[1](7,3)=4\n\
             rw[2](7,3)=21 ro[2](7,3)=10\n\
             add(6,2)=8\n\
             sub(6,2)=4\n\
             mul(6,2)=12\n\
             via table_of_tables: 20 20\n\
             secret(1,2)=102\n\
             after store rw[1](3,4)=304\n\
             address equality: ok\n",
        ),
    ) {
        // The constant tables must end up read-only after relocation.
        let relro = segments(&exe).into_iter().find(|s| s.typ == "GNU_RELRO");
        let relro = relro.unwrap_or_else(|| panic!("{} has no PT_GNU_RELRO", exe.display()));
        for name in ["ro_table", "named_ops"] {
            let sym = &find_symbols(&symbols(&exe), ".symtab", name)[0];
            assert!(
                sym.value >= relro.vaddr && sym.value + sym.size <= relro.vaddr + relro.memsz,
                "{name} at {:#x} is outside PT_GNU_RELRO {relro:?} in {}",
                sym.value,
                exe.display()
            );
        }
    }
}

#[test]
fn varargs_setjmp_qsort() {
    let t = Test::new();
    let h = t.compile(Gcc, "libc/lc_helpers.c", &["-O2"]);
    let m = t.compile(Clang, "libc/lc_main.c", &["-O1"]);
    t.check_program(
        &[&m, &h],
        &[],
        Some(
            "sum_ints: 15\n\
             avg_doubles: 2.667\n\
             format_into: fmt-00042-ff-3.14\n\
             longjmp returned 42 after 1 jump(s)\n\
             sorted: -100 -3 0 5 7 8 42 99\n\
             words: apple banana cherry fig pear\n\
             bsearch 42: index 6\n",
        ),
    );
}

#[test]
fn static_archive_pulls_only_needed_members() {
    let t = Test::new();
    let main = t.compile(Clang, "archive/ar_main.c", &[]);
    let members = ["ar_third.c", "ar_alpha.c", "ar_unused.c", "ar_beta.c"]
        .map(|f| t.compile(Clang, &format!("archive/{f}"), &[]));
    t.archive("libstuff.a", &paths(&members));
    let dir = format!("-L{}", t.dir().display());
    for exe in t.check_program(&[&main], &[&dir, "-lstuff"], Some("alpha(5) = 113\n")) {
        for sym in ["alpha", "beta", "third", "third_value"] {
            assert!(nm_has(&exe, sym), "{sym} missing from {}", exe.display());
        }
        assert!(
            !nm_has(&exe, "unused_member_fn"),
            "unneeded member linked into {}",
            exe.display()
        );
    }
}

/// Links libshared.so and an executable using it, both with `driver`, in
/// the directory named after the driver.
fn link_shared_pair(
    t: &Test,
    driver: Driver,
    lib: &Path,
    main: &Path,
    lib_flags: &[&str],
    exe_flags: &[&str],
) -> PathBuf {
    let d = driver.name();
    let so = t.link(
        driver,
        &[lib],
        &[&["-shared", "-Wl,-soname,libshared.so"], lib_flags].concat(),
        &format!("{d}/libshared.so"),
    );
    let dir = format!("-L{}", so.parent().unwrap().display());
    t.link(
        driver,
        &[main],
        &[&[dir.as_str(), "-lshared"], exe_flags].concat(),
        &format!("{d}/main"),
    )
}

const SHARED_OUT: &str = "libshared (ctor ran)\n\
                          lib_add(2,3)=5 lib_twice(21)=42\n\
                          lib_call_exe(4)=4001\n\
                          lib_counter=10\n\
                          lib_read_counter()=77\n\
                          lib_tls=6 lib_read_tls()=6\n\
                          function addresses agree: ok\n";

/// Builds the shared library and executable of `tests/cases/shared` with each
/// driver (each pair in its own directory), runs them with
/// LD_LIBRARY_PATH=. and compares with lld. Returns the rld-linked
/// (library, executable) pairs.
fn check_shared_pair(
    t: &Test,
    main_flags: &[&str],
    lib_flags: &[&str],
    exe_flags: &[&str],
) -> Vec<(PathBuf, PathBuf)> {
    let lib = t.compile(Clang, "shared/libshared.c", &["-fPIC", "-O2"]);
    let main = t.compile(Gcc, "shared/shared_main.c", main_flags);
    let lld = link_shared_pair(t, Driver::ClangLld, &lib, &main, lib_flags, exe_flags);
    Driver::RLD_DRIVERS
        .iter()
        .map(|&d| {
            let exe = link_shared_pair(t, d, &lib, &main, lib_flags, exe_flags);
            // Programs run in their own directory, so "." is the driver's.
            let env = [("LD_LIBRARY_PATH", ".")];
            assert_same_output(&exe, &lld, &[], &env, Some(SHARED_OUT));
            let needed = dyn_values(&dynamic(&exe), "NEEDED");
            assert!(
                needed.iter().any(|n| n.contains("[libshared.so]")),
                "{needed:?}"
            );
            (exe.with_file_name("libshared.so"), exe)
        })
        .collect()
}

#[test]
fn shared_library_and_executable_both_by_rld() {
    let t = Test::new();
    for (so, _exe) in check_shared_pair(&t, &["-O2"], &[], &[]) {
        assert_eq!(elf_type(&so), "DYN");
        let dynamic = dynamic(&so);
        assert_eq!(
            dyn_values(&dynamic, "SONAME"),
            ["Library soname: [libshared.so]"]
        );
        let syms = symbols(&so);
        for name in ["lib_add", "lib_counter", "lib_tls", "lib_name"] {
            let s = find_symbols(&syms, ".dynsym", name);
            assert!(
                s.len() == 1 && s[0].is_defined(),
                "{name} not exported by {}: {s:?}",
                so.display()
            );
        }
        assert!(
            find_symbols(&syms, ".dynsym", "lib_hidden").is_empty(),
            "hidden symbol exported"
        );
        let cb = find_symbols(&syms, ".dynsym", "exe_callback");
        assert!(
            cb.len() == 1 && !cb[0].is_defined(),
            "exe_callback should be undefined in the library: {cb:?}"
        );
    }
}

#[test]
fn shared_library_with_no_pie_executable() {
    // A position-dependent executable uses a copy relocation for lib_counter
    // and a canonical PLT entry for &lib_add.
    let t = Test::new();
    check_shared_pair(&t, &["-O2", "-fno-pic"], &[], &["-no-pie"]);
}

fn basic_objects(t: &Test, flags: &[&str]) -> [PathBuf; 2] {
    [
        t.compile(Clang, "basic/basic_main.c", flags),
        t.compile(Gcc, "basic/basic_util.c", flags),
    ]
}

const BASIC_OUT: &str = "hello from basic, argc=1\n\
                         red=4 green=3 blue=2 yellow=1 \n\
                         zero one two three four five six many \n\
                         ids: 100 101 102\n\
                         scaled(3)=7.50 ctor_value=1234\n\
                         tls: 11 12 14\n\
                         basic ok\n";

#[test]
fn output_default_pie() {
    let t = Test::new();
    let objs = basic_objects(&t, &["-O1"]);
    for exe in t.check_program(&paths(&objs), &[], Some(BASIC_OUT)) {
        assert_eq!(elf_type(&exe), "DYN");
        let segs = segments(&exe);
        assert!(
            has_segment(&segs, "INTERP") && has_segment(&segs, "DYNAMIC"),
            "{segs:?}"
        );
        let flags1 = dyn_values(&dynamic(&exe), "FLAGS_1");
        assert!(
            flags1.iter().any(|f| f.contains("PIE")),
            "DT_FLAGS_1 lacks PIE: {flags1:?}"
        );
    }
}

#[test]
fn output_no_pie() {
    let t = Test::new();
    let objs = basic_objects(&t, &["-O1"]);
    for exe in t.check_program(&paths(&objs), &["-no-pie"], Some(BASIC_OUT)) {
        assert_eq!(elf_type(&exe), "EXEC");
        assert!(has_segment(&segments(&exe), "INTERP"));
    }
}

/// A static program: no interpreter, no dynamic section; glibc's IFUNCs (`strlen`, ...)
/// called through `.iplt`, their IRELATIVE relocations in `.rela.dyn` (lld's names; GNU
/// ld's `.plt` and `.rela.plt`), which the start-up code finds between
/// `__rela_iplt_start` and `__rela_iplt_end`.
#[test]
fn output_static() {
    let t = Test::new();
    let objs = basic_objects(&t, &["-O1"]);
    for exe in t.check_program(&paths(&objs), &["-static"], Some(BASIC_OUT)) {
        assert_eq!(elf_type(&exe), "EXEC");
        let segs = segments(&exe);
        assert!(
            !has_segment(&segs, "INTERP") && !has_segment(&segs, "DYNAMIC"),
            "{segs:?}"
        );
        let secs = sections(&exe);
        let named = |n: &str| secs.iter().find(|s| s.name == n);
        assert!(
            named(".plt").is_none() && named(".rela.plt").is_none(),
            "{secs:?}"
        );
        let (rela, _) = (
            named(".rela.dyn").expect(".rela.dyn"),
            named(".iplt").expect(".iplt"),
        );
        let syms = symbols(&exe);
        let at = |n: &str| find_symbols(&syms, ".symtab", n)[0].value;
        assert_eq!(at("__rela_iplt_start"), rela.addr);
        assert_eq!(at("__rela_iplt_end"), rela.addr + rela.size);
        let relocs = tool_stdout("readelf", &["-rW"], &exe);
        let types: Vec<&str> = relocs
            .lines()
            .filter(|l| l.starts_with('0'))
            .filter_map(|l| l.split_whitespace().nth(2))
            .collect();
        assert!(
            !types.is_empty() && types.iter().all(|t| *t == "R_X86_64_IRELATIVE"),
            "{relocs}"
        );
    }
}

#[test]
fn output_static_pie() {
    let t = Test::new();
    let objs = basic_objects(&t, &["-O1", "-fPIE"]);
    for exe in t.check_program(&paths(&objs), &["-static-pie"], Some(BASIC_OUT)) {
        assert_eq!(elf_type(&exe), "DYN");
        let segs = segments(&exe);
        assert!(
            !has_segment(&segs, "INTERP"),
            "static-pie must not have PT_INTERP: {segs:?}"
        );
        assert!(
            has_segment(&segs, "DYNAMIC"),
            "static-pie needs PT_DYNAMIC: {segs:?}"
        );
        assert!(
            dyn_values(&dynamic(&exe), "NEEDED").is_empty(),
            "static-pie needs no library"
        );
    }
}

#[test]
fn output_shared_loaded_with_dlopen() {
    let t = Test::new();
    let plugin = t.compile(Clang, "dlopen/plugin.c", &["-fPIC", "-O2"]);
    let host = t.compile(Clang, "dlopen/host.c", &[]);
    t.link(
        Driver::ClangLld,
        &[&plugin],
        &["-shared"],
        "clang-lld/plugin.so",
    );
    let lld_host = t.link(Driver::ClangLld, &[&host], &[], "clang-lld/host");
    let want = "state: initialized\n\
                data: 10\n\
                compute: 13 24\n\
                names: alpha beta gamma\n\
                hidden static symbol visible: no\n\
                plugin destructor ran\n\
                closed\n";
    for d in Driver::RLD_DRIVERS {
        let so = t.link(
            d,
            &[&plugin],
            &["-shared"],
            &format!("{}/plugin.so", d.name()),
        );
        let host = t.link(d, &[&host], &[], &format!("{}/host", d.name()));
        // Each host runs in its own directory and loads the plugin next to it.
        assert_same_output(&host, &lld_host, &["./plugin.so"], &[], Some(want));
        assert_eq!(elf_type(&so), "DYN");
        assert!(!has_segment(&segments(&so), "INTERP"));
        let syms = symbols(&so);
        for name in ["plugin_compute", "plugin_data", "plugin_tls"] {
            assert!(
                !find_symbols(&syms, ".dynsym", name).is_empty(),
                "{name} not in .dynsym of {}",
                so.display()
            );
        }
    }
}

#[test]
fn gc_sections_removes_dead_code_keeps_retained_and_init_array() {
    let t = Test::new();
    let split = ["-O2", "-ffunction-sections", "-fdata-sections"];
    let lib_clang = t.compile(Clang, "gc/gc_lib.c", &split);
    let lib_gcc = t.compile(Gcc, "gc/gc_lib.c", &split);
    let main = t.compile(Clang, "gc/gc_main.c", &split);
    for lib in [lib_clang, lib_gcc] {
        let rld_outputs = t.check_program(
            &[&main, &lib],
            &["-Wl,--gc-sections"],
            Some("used: 8\nctor ran: yes (31)\n"),
        );
        // The lld output is checked too: it shows the expectations are right.
        for exe in rld_outputs.into_iter().chain([t.path("clang-lld.out")]) {
            for dead in ["gc_dead_function", "gc_dead_data"] {
                assert!(
                    !nm_has(&exe, dead),
                    "{dead} survived --gc-sections in {}",
                    exe.display()
                );
            }
            for live in [
                "gc_used_function",
                "gc_used_data",
                "gc_retained_function",
                "gc_ctor_helper",
            ] {
                assert!(
                    nm_has(&exe, live),
                    "{live} was collected from {}",
                    exe.display()
                );
            }
        }
    }
}

#[test]
fn gc_sections_keeps_what_defsym_and_scripts_name() {
    // `gc_dead_function` and `gc_dead_data` are referenced by no relocation, only by an
    // alias made with --defsym and by a script's assignment: as in lld, the sections stay
    // and the aliases have their addresses.
    let t = Test::new();
    let split = ["-O2", "-ffunction-sections", "-fdata-sections"];
    let lib = t.compile(Clang, "gc/gc_lib.c", &split);
    let main = t.compile(Clang, "gc/gc_main.c", &split);
    let script = t.write("alias.ld", "data_alias = gc_dead_data;\n");
    let script_flag = format!("-Wl,{}", script.display());
    let flags = [
        "-Wl,--gc-sections",
        "-Wl,--defsym,fn_alias=gc_dead_function",
        &script_flag,
    ];
    for driver in [Driver::ClangRld, Driver::ClangLld] {
        let exe = t.link(driver, &[&main, &lib], &flags, &format!("{driver:?}/prog"));
        let syms = symbols(&exe);
        for (alias, target) in [
            ("fn_alias", "gc_dead_function"),
            ("data_alias", "gc_dead_data"),
        ] {
            let a = find_symbols(&syms, ".symtab", alias);
            let d = find_symbols(&syms, ".symtab", target);
            assert!(
                a.len() == 1 && d.len() == 1 && d[0].is_defined(),
                "{driver:?}: {alias} {a:?}, {target} {d:?}"
            );
            assert_eq!(a[0].value, d[0].value, "{driver:?}: {alias}");
            assert_ne!(a[0].value, 0, "{driver:?}: {alias}");
        }
    }
}

#[test]
fn start_stop_symbols_iterate_custom_section() {
    let t = Test::new();
    let a = t.compile(Clang, "startstop/ss_a.c", &[]);
    let b = t.compile(Gcc, "startstop/ss_b.c", &[]);
    let m = t.compile(Clang, "startstop/ss_main.c", &[]);
    let want = "items: 5\napple=1 banana=20 cherry=300 damson=4000 elder=50000 \nsum: 54321\n";
    for exe in t.check_program(&[&a, &b, &m], &[], Some(want)) {
        let syms = symbols(&exe);
        let start = &find_symbols(&syms, ".symtab", "__start_rld_items");
        let stop = &find_symbols(&syms, ".symtab", "__stop_rld_items");
        assert!(start.len() == 1 && stop.len() == 1, "{start:?} {stop:?}");
        assert_eq!(stop[0].value - start[0].value, 5 * 16, "__stop - __start");
        let sec = find_section(&sections(&exe), "rld_items").expect("output section rld_items");
        assert_eq!(
            (sec.addr, sec.addr + sec.size),
            (start[0].value, stop[0].value)
        );
    }
}

#[test]
fn start_stop_symbols_with_gc_sections() {
    let t = Test::new();
    // lld 14 collects unreferenced sections even when __start_/__stop_ refer
    // to them (-z start-stop-gc), so the items are marked retain here.
    let flags = [
        "-ffunction-sections",
        "-fdata-sections",
        "-O2",
        "-DITEM_RETAIN",
    ];
    let a = t.compile(Clang, "startstop/ss_a.c", &flags);
    let b = t.compile(Gcc, "startstop/ss_b.c", &flags);
    let m = t.compile(Clang, "startstop/ss_main.c", &flags);
    let want = "items: 5\napple=1 banana=20 cherry=300 damson=4000 elder=50000 \nsum: 54321\n";
    t.check_program(&[&a, &b, &m], &["-Wl,--gc-sections"], Some(want));
}

/// A section reached only through `__start_`/`__stop_` (`used`, not `retain`): with
/// `--gc-sections` GNU ld keeps it, and so do rld by default and lld with
/// `-z nostart-stop-gc`; with `-z start-stop-gc` (lld's default) it is collected and the
/// link fails on the undefined `__start_`, in rld as in lld, except for glibc's
/// `__libc_*` sections, which both keep.
#[test]
fn start_stop_gc_keyword_as_lld_and_default_as_gnu_ld() {
    let t = Test::new();
    let src = "#include <stdio.h>\n\
        __attribute__((used, section(\"mysec\"))) static int a = 1;\n\
        __attribute__((used, section(\"mysec\"))) static int b = 2;\n\
        __attribute__((used, section(\"__libc_mine\"))) static int c = 40;\n\
        extern int __start_mysec[], __stop_mysec[];\n\
        extern int __start___libc_mine[], __stop___libc_mine[];\n\
        int main(void) {\n\
          int s = 0;\n\
          for (int *p = __start_mysec; p < __stop_mysec; p++) s += *p;\n\
          for (int *p = __start___libc_mine; p < __stop___libc_mine; p++) s += *p;\n\
          printf(\"%d\\n\", s);\n\
          return 0;\n\
        }\n";
    let obj = t.compile(Clang, src, &["-O2"]);
    let gc = "-Wl,--gc-sections";
    let gnu = t.link(Driver::GccLd, &[&obj], &[gc], "gnu-ld");
    let rld = t.link(Driver::ClangRld, &[&obj], &[gc], "rld-default");
    assert_same_output(&rld, &gnu, &[], &[], Some("43\n"));
    let keep = ["-Wl,-z,nostart-stop-gc", gc];
    let lld = t.link(Driver::ClangLld, &[&obj], &keep, "lld-keep");
    let rld = t.link(Driver::ClangRld, &[&obj], &keep, "rld-keep");
    assert_same_output(&rld, &lld, &[], &[], Some("43\n"));
    let collect = ["-Wl,-z,start-stop-gc", gc];
    for driver in [Driver::ClangLld, Driver::ClangRld] {
        let out = format!("{driver:?}-collect");
        let (res, cmd) = t.try_link(driver, &[&obj], &collect, &out);
        let stderr = String::from_utf8_lossy(&res.stderr);
        assert!(!res.status.success(), "{cmd}: linked");
        assert!(
            stderr.contains("undefined symbol: __start_mysec"),
            "{cmd}: {stderr}"
        );
        assert!(!stderr.contains("__libc_mine"), "{cmd}: {stderr}");
        assert!(!t.path(&out).exists(), "{cmd}: wrote its output");
    }
}

/// SHF_LINK_ORDER metadata about functions (`.llvm_bb_addr_map`, `.stack_sizes`,
/// `__patchable_function_entries`): copied (LLVM's address map too), kept with its function
/// and only then (`--gc-sections` drops a dead function's), ordered like the functions
/// (`--symbol-ordering-file`), linked (sh_link) to the output holding them, and in `-r`
/// output kept apart per function with its link: as lld links it.
#[test]
fn link_order_metadata_lives_and_is_ordered_with_its_function_as_lld() {
    let t = Test::new();
    let src = "#include <stdio.h>\n\
        __attribute__((noinline)) int used_fn(int x) { return x + 1; }\n\
        __attribute__((noinline)) int twin_fn(int x) { return x + 1; }\n\
        __attribute__((noinline)) int dead_fn(int x) { return x * 7; }\n\
        int main(int argc, char **argv) { printf(\"%d\\n\", used_fn(argc) + twin_fn(argc)); return 0; }\n";
    let flags = [
        "-O2",
        "-ffunction-sections",
        "-fpatchable-function-entry=2",
        "-fstack-size-section",
        "-fbasic-block-address-map",
    ];
    let obj = t.compile(Clang, src, &flags);
    let metadata = [
        ".llvm_bb_addr_map",
        ".stack_sizes",
        "__patchable_function_entries",
    ];
    // Each metadata section's type, flags, size and the name of the section it links to.
    let headers = |exe: &Path| {
        let secs = sections(exe);
        metadata
            .iter()
            .map(|name| {
                let s = find_section(&secs, name).unwrap_or_else(|| panic!("{exe:?}: no {name}"));
                let linked = secs
                    .iter()
                    .find(|l| l.index as u64 == s.link)
                    .map(|l| l.name.clone());
                (
                    s.name.clone(),
                    s.typ.clone(),
                    s.flags.clone(),
                    s.size,
                    linked,
                )
            })
            .collect::<Vec<_>>()
    };
    // The functions each table describes, in order, and what it says of them.
    let tables = |exe: &Path| {
        let text = tool_stdout("llvm-readobj-22", &["--stack-sizes", "--bb-addr-map"], exe);
        text.lines()
            .filter(|l| !l.contains("At:") && !l.contains("Address") && !l.contains("File:"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let order = t.write("order.txt", "main\ndead_fn\nused_fn\n");
    let ordering = format!("-Wl,--symbol-ordering-file={}", order.display());
    for (tag, extra) in [
        ("plain", vec![]),
        ("gc", vec!["-Wl,--gc-sections"]),
        ("ordered", vec![ordering.as_str()]),
        // twin_fn folds into used_fn and its metadata goes with it.
        ("icf", vec!["-Wl,--icf=all"]),
    ] {
        let lld = t.link(Driver::ClangLld, &[&obj], &extra, &format!("lld-{tag}"));
        let rld = t.link(Driver::ClangRld, &[&obj], &extra, &format!("rld-{tag}"));
        assert_same_output(&rld, &lld, &[], &[], Some("4\n"));
        assert_eq!(headers(&rld), headers(&lld), "{tag}");
        let ours = tables(&rld);
        assert_eq!(ours, tables(&lld), "{tag}");
        let dead = ours.iter().any(|l| l.contains("dead_fn"));
        assert_eq!(dead, tag != "gc", "{tag}: {ours:?}");
        // Folded, twin_fn is another name of used_fn's one entry.
        let twin_entries = ours.iter().filter(|l| l.contains("twin_fn")).count();
        assert!(tag != "icf" || twin_entries == 1, "{tag}: {ours:?}");
    }
    // `-r`: one metadata section per function, each linked to its function's section.
    let linked_pairs = |o: &Path| {
        let secs = sections(o);
        let mut pairs: Vec<(String, String)> = secs
            .iter()
            .filter(|s| metadata.contains(&s.name.as_str()))
            .map(|s| {
                let l = secs
                    .iter()
                    .find(|l| l.index as u64 == s.link)
                    .map(|l| l.name.clone());
                (s.name.clone(), l.unwrap_or_default())
            })
            .collect();
        pairs.sort();
        pairs
    };
    let rld_r = t.link(Driver::Rld, &[&obj], &["-r"], "rld-r.o");
    let mut lld_cmd = std::process::Command::new("ld.lld-22");
    let reference = t.path("lld-r.o");
    run_checked(lld_cmd.arg("-r").arg(&obj).arg("-o").arg(&reference));
    assert_eq!(linked_pairs(&rld_r), linked_pairs(&reference));
    assert_eq!(linked_pairs(&rld_r).len(), 12, "{:?}", linked_pairs(&rld_r));
    let again = t.link(
        Driver::ClangRld,
        &[&rld_r],
        &["-Wl,--gc-sections"],
        "rld-again",
    );
    assert!(!tables(&again).iter().any(|l| l.contains("dead_fn")));
}

#[test]
fn opt_o0_with_debug_info() {
    let t = Test::new();
    let objs = basic_objects(&t, &["-O0", "-g"]);
    for exe in t.check_program(&paths(&objs), &[], Some(BASIC_OUT)) {
        let secs = sections(&exe);
        assert!(
            find_section(&secs, ".debug_info").is_some(),
            "{:?}",
            section_names(&secs)
        );
    }
}

#[test]
fn opt_o2() {
    let t = Test::new();
    let objs = basic_objects(&t, &["-O2"]);
    t.check_program(&paths(&objs), &[], Some(BASIC_OUT));
}

#[test]
fn fno_pic_no_pie() {
    let t = Test::new();
    let objs = basic_objects(&t, &["-O2", "-fno-pic"]);
    for exe in t.check_program(&paths(&objs), &["-no-pie"], Some(BASIC_OUT)) {
        assert_eq!(elf_type(&exe), "EXEC");
        let relocs = relocation_types(&exe);
        assert!(
            !relocs.iter().any(|r| r == "R_X86_64_RELATIVE"),
            "position-dependent output has RELATIVE relocs: {relocs:?}"
        );
    }
}

#[test]
fn hash_style_sysv() {
    let t = Test::new();
    let hs = ["-Wl,--hash-style=sysv"];
    for (so, exe) in check_shared_pair(&t, &["-O1"], &hs, &hs) {
        for f in [so, exe] {
            let names = section_names(&sections(&f));
            assert!(
                names.iter().any(|n| n == ".hash"),
                "no .hash in {}: {names:?}",
                f.display()
            );
            assert!(
                !names.iter().any(|n| n == ".gnu.hash"),
                ".gnu.hash in {}: {names:?}",
                f.display()
            );
            let dynamic = dynamic(&f);
            assert!(
                !dyn_values(&dynamic, "HASH").is_empty()
                    && dyn_values(&dynamic, "GNU_HASH").is_empty()
            );
        }
    }
}

/// Without `--hash-style`, both tables, as ld.lld-22 and GNU ld write them.
#[test]
fn hash_style_default_is_both_as_lld_and_gnu_ld() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "extern int elsewhere(void);\nint exported(void) { return elsewhere() + 1; }\n",
        &["-fPIC"],
    );
    let hash_tables = |linker: &str| {
        let out = t.path(&format!("lib-{linker}.so"));
        let program = if linker == "rld" {
            rld_path()
        } else {
            linker.into()
        };
        run_checked(
            std::process::Command::new(program)
                .arg("-shared")
                .arg(&obj)
                .arg("-o")
                .arg(&out),
        );
        let names = section_names(&sections(&out));
        let mut tables: Vec<String> = names.into_iter().filter(|n| n.ends_with("hash")).collect();
        tables.sort();
        tables
    };
    let rld = hash_tables("rld");
    assert_eq!(rld, [".gnu.hash", ".hash"]);
    assert_eq!(rld, hash_tables("ld.lld-22"));
    assert_eq!(rld, hash_tables("ld.bfd"));
}

#[test]
fn hash_style_both() {
    let t = Test::new();
    let hs = ["-Wl,--hash-style=both"];
    for (so, exe) in check_shared_pair(&t, &["-O1"], &hs, &hs) {
        for f in [so, exe] {
            let names = section_names(&sections(&f));
            for want in [".hash", ".gnu.hash"] {
                assert!(
                    names.iter().any(|n| n == want),
                    "no {want} in {}: {names:?}",
                    f.display()
                );
            }
            let dynamic = dynamic(&f);
            assert!(
                !dyn_values(&dynamic, "HASH").is_empty()
                    && !dyn_values(&dynamic, "GNU_HASH").is_empty()
            );
        }
    }
}

#[test]
fn build_id_sha1() {
    let t = Test::new();
    let objs = basic_objects(&t, &["-O1"]);
    let flags = ["-Wl,--build-id=sha1"];
    let exes = t.check_program(&paths(&objs), &flags, Some(BASIC_OUT));
    for exe in &exes {
        let id = build_id(exe).unwrap_or_else(|| panic!("no build ID in {}", exe.display()));
        assert_eq!(id.len(), 40, "a SHA-1 build ID is 20 bytes: {id}");
        assert!(
            id.chars().all(|c| c.is_ascii_hexdigit()) && id != "0".repeat(40),
            "{id}"
        );
        let segs = segments(exe);
        assert!(has_segment(&segs, "NOTE"), "{segs:?}");
    }
    let again = t.link(Driver::ClangRld, &paths(&objs), &flags, "again.out");
    assert_eq!(
        build_id(&again),
        build_id(&exes[0]),
        "same inputs, same build ID"
    );
    // The ID hashes the output in parts, each as it is written: the same link written into
    // its file part by part, to standard output whole (`-o -`) or on one thread has the
    // same ID, for both hashes; another output has another.
    for flag in ["-Wl,--build-id=sha1", "-Wl,--build-id=fast"] {
        let file = t.link(Driver::ClangRld, &paths(&objs), &[flag], "parts.out");
        let one = t.link(
            Driver::ClangRld,
            &paths(&objs),
            &[flag, "-Wl,--threads=1"],
            "one-thread.out",
        );
        let mut cmd = t.link_command(
            Driver::ClangRld,
            &paths(&objs),
            &[flag, "-Wl,-o,-"],
            &t.path("unused"),
        );
        let whole = t.write("whole.out", run_checked(&mut cmd).stdout);
        let id = build_id(&file);
        assert!(id.is_some(), "{flag}: no build ID");
        assert_eq!(build_id(&one), id, "{flag}: one thread");
        assert_eq!(build_id(&whole), id, "{flag}: written whole to stdout");
        assert!(
            std::fs::read(&whole).unwrap() == std::fs::read(&file).unwrap(),
            "{flag}: stdout and file differ"
        );
        // The objects the other way round: the same code at other addresses.
        let swapped = [objs[1].as_path(), objs[0].as_path()];
        let other = t.link(Driver::ClangRld, &swapped, &[flag], "other.out");
        assert_ne!(build_id(&other), id, "{flag}: another output, same ID");
    }
    // A bare --build-id (what clang and gcc pass) is SHA-1's 20 bytes, as lld-22's; `fast`
    // is 8.
    for (flag, hex_digits) in [("-Wl,--build-id", 40), ("-Wl,--build-id=fast", 16)] {
        let lld = t.link(Driver::ClangLld, &paths(&objs), &[flag], "lld-bare.out");
        let rld = t.link(Driver::ClangRld, &paths(&objs), &[flag], "rld-bare.out");
        let len = |p: &Path| build_id(p).unwrap().len();
        assert_eq!((len(&rld), len(&lld)), (hex_digits, hex_digits), "{flag}");
    }
}

#[test]
fn z_now_sets_bind_now() {
    let t = Test::new();
    let objs = basic_objects(&t, &["-O1"]);
    for exe in t.check_program(&paths(&objs), &["-Wl,-z,now"], Some(BASIC_OUT)) {
        let dynamic = dynamic(&exe);
        let flags = dyn_values(&dynamic, "FLAGS");
        let flags1 = dyn_values(&dynamic, "FLAGS_1");
        assert!(
            flags.iter().any(|f| f.contains("BIND_NOW"))
                || !dyn_values(&dynamic, "BIND_NOW").is_empty(),
            "no DT_FLAGS BIND_NOW / DT_BIND_NOW: {dynamic:?}"
        );
        assert!(
            flags1
                .iter()
                .any(|f| f.split_whitespace().any(|w| w == "NOW")),
            "DT_FLAGS_1 lacks NOW: {flags1:?}"
        );
    }
}

#[test]
fn export_dynamic_puts_main_in_dynsym() {
    let t = Test::new();
    let m = t.compile(Clang, "export/export_main.c", &[]);
    let want = "dlsym(main): found\ndlsym(exported_double): found\nexported_double(21) = 42\n";
    for exe in t.check_program(&[&m], &["-Wl,-E"], Some(want)) {
        let syms = symbols(&exe);
        for name in ["main", "exported_double"] {
            let s = find_symbols(&syms, ".dynsym", name);
            assert!(
                s.len() == 1 && s[0].is_defined() && s[0].typ == "FUNC",
                "{name} in .dynsym: {s:?}"
            );
        }
    }
}

#[test]
fn merge_identical_string_literals() {
    let t = Test::new();
    let a = t.compile(Gcc, "merge/merge_a.c", &["-O0", "-fmerge-constants"]);
    let b = t.compile(Gcc, "merge/merge_b.c", &["-O0", "-fmerge-constants"]);
    let m = t.compile(Clang, "merge/merge_main.c", &[]);
    let lit = b"rld merge test: this literal appears in two objects";
    let want = "a: rld merge test: this literal appears in two objects\n\
                b: rld merge test: this literal appears in two objects\n\
                same address: yes\n";
    for exe in t.check_program(&[&a, &b, &m], &[], Some(want)) {
        let bytes = std::fs::read(&exe).unwrap();
        assert_eq!(
            count_occurrences(&bytes, lit),
            1,
            "literal not merged in {}",
            exe.display()
        );
        let in_rodata: usize = sections(&exe)
            .iter()
            .filter(|s| s.name.starts_with(".rodata"))
            .map(|s| count_occurrences(&section_data(&exe, &s.name), lit))
            .sum();
        assert_eq!(
            in_rodata,
            1,
            "the literal is not in .rodata of {}",
            exe.display()
        );
    }
}

#[test]
fn thin_archive_members_are_read_from_their_files() {
    let t = Test::new();
    let main = t.compile(Clang, "archive/ar_main.c", &[]);
    let members = ["ar_third.c", "ar_alpha.c", "ar_unused.c", "ar_beta.c"]
        .map(|f| t.compile(Clang, &format!("archive/{f}"), &[]));
    let lib = t.path("libthin.a");
    let mut ar = std::process::Command::new("ar");
    ar.arg("rcsT").arg(&lib).args(&members);
    run_checked(&mut ar);
    assert!(std::fs::read(&lib).unwrap().starts_with(b"!<thin>\n"));
    let dir = format!("-L{}", t.dir().display());
    for exe in t.check_program(&[&main], &[&dir, "-lthin"], Some("alpha(5) = 113\n")) {
        assert!(!nm_has(&exe, "unused_member_fn"), "{}", exe.display());
    }
}

#[test]
fn linker_defined_symbols() {
    let t = Test::new();
    for flags in [&[][..], &["-no-pie", "-fno-pic"][..], &["-static"][..]] {
        let obj = t.compile(Clang, "linkersyms/linkersyms.c", flags);
        t.check_program(&[&obj], flags, Some("linker symbols: ok (0)\n"));
    }
}

#[test]
fn unwinding_finds_fdes_dynamic_and_static() {
    let t = Test::new();
    let want = "unwound 10 extra frames\n";
    let obj = t.compile(Clang, "unwind/unwind.c", &["-O1", "-funwind-tables"]);
    let exes = t.check_program(&[&obj], &[], Some(want));
    assert!(has_segment(&segments(&exes[0]), "GNU_EH_FRAME"));
    // gcc does not pass --eh-frame-hdr for -static: libgcc then walks the
    // registered .eh_frame up to its terminator.
    let obj = t.compile(Gcc, "unwind/unwind.c", &["-O1", "-funwind-tables"]);
    t.check_program(&[&obj], &["-static"], Some(want));
}

/// addr2line maps `main` to the same source line in the rld and lld outputs:
/// .debug_info and .debug_line were copied and relocated.
#[test]
fn debug_info_maps_addresses_to_lines() {
    let t = Test::new();
    let objs = basic_objects(&t, &["-O0", "-g"]);
    let exes = t.check_program(&paths(&objs), &[], Some(BASIC_OUT));
    let line_of_main = |exe: &Path| {
        let addr = symbols(exe)
            .into_iter()
            .find(|s| s.name == "main" && s.table == ".symtab")
            .map(|s| s.value)
            .expect("main in .symtab");
        let out = run_checked(
            std::process::Command::new("addr2line")
                .arg("-e")
                .arg(exe)
                .arg(format!("{addr:#x}")),
        );
        let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let file_line = text.rsplit('/').next().unwrap_or("").to_string();
        assert!(
            !text.contains("??"),
            "addr2line found no line for main in {}: {text}",
            exe.display()
        );
        file_line
    };
    let lld = t.link(Driver::ClangLld, &paths(&objs), &[], "lld-debug.out");
    let want = line_of_main(&lld);
    for exe in &exes {
        assert_eq!(line_of_main(exe), want, "{}", exe.display());
    }
}

/// Objects compiled with `-gz` (clang and gcc: zlib-compressed SHF_COMPRESSED debug
/// sections) link as their uncompressed contents, as lld links them: the output's debug
/// sections are plain, as large as lld's, and hold the same line table.
#[test]
fn compressed_input_debug_sections() {
    let t = Test::new();
    let objs = basic_objects(&t, &["-O0", "-g", "-gz"]);
    let compressed = |p: &Path| {
        sections(p)
            .iter()
            .filter(|s| s.name.starts_with(".debug") && s.flags.contains('C'))
            .count()
    };
    assert!(
        objs.iter().all(|o| compressed(o) > 0),
        "-gz compressed nothing"
    );
    let exes = t.check_program(&paths(&objs), &[], Some(BASIC_OUT));
    let lld = t.link(Driver::ClangLld, &paths(&objs), &[], "lld-gz.out");
    let lines = |exe: &Path| {
        tool_stdout("llvm-dwarfdump-22", &["--debug-line"], exe)
            .lines()
            .filter(|l| l.starts_with("0x"))
            .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
    };
    let size = |exe: &Path, name: &str| find_section(&sections(exe), name).map(|s| s.size);
    let want = lines(&lld);
    assert!(!want.is_empty());
    for exe in &exes {
        assert_eq!(compressed(exe), 0, "{}", exe.display());
        assert_eq!(lines(exe).len(), want.len(), "{}", exe.display());
        for name in [".debug_info", ".debug_line", ".debug_abbrev"] {
            assert_eq!(
                size(exe, name),
                size(&lld, name),
                "{name} of {}",
                exe.display()
            );
        }
    }
}

/// `--compress-debug-sections=zlib|zstd` (lld's and GNU ld's): every `.debug_*` section of
/// the output is SHF_COMPRESSED in the format asked for, and holds, uncompressed, exactly
/// the bytes of the same link without the option; debuggers' view (the line table) is
/// lld's. `=none` compresses nothing. `-r` compresses too, and the final link reads the
/// compressed inputs back.
#[test]
fn compress_debug_sections_zlib_and_zstd() {
    let t = Test::new();
    let objs = basic_objects(&t, &["-O0", "-g"]);
    let none = t.link(
        Driver::ClangRld,
        &paths(&objs),
        &["-Wl,--compress-debug-sections=none"],
        "none.out",
    );
    let debug = |p: &Path| -> Vec<Section> {
        sections(p)
            .into_iter()
            .filter(|s| s.name.starts_with(".debug_"))
            .collect()
    };
    // The format word of a compressed section's header (1 zlib, 2 zstd).
    let ch_type = |p: &Path, name: &str| {
        let bytes = section_data(p, name);
        u32::from_le_bytes(bytes[..4].try_into().unwrap())
    };
    let dump = |p: &Path, name: &str| tool_stdout("readelf", &["-z", "-x", name], p);
    let line_rows = |p: &Path| {
        tool_stdout("llvm-dwarfdump-22", &["--debug-line"], p)
            .lines()
            .filter(|l| l.starts_with("0x"))
            .count()
    };
    assert!(debug(&none).iter().all(|s| !s.flags.contains('C')));
    let plain: Vec<PathBuf> = Driver::RLD_DRIVERS
        .iter()
        .map(|&driver| {
            let out = format!("plain-{}", driver.name());
            t.link(driver, &paths(&objs), &[], &out)
        })
        .collect();
    for (format, word) in [("zlib", 1), ("zstd", 2)] {
        let flag = format!("--compress-debug-sections={format}");
        let wl = format!("-Wl,{flag}");
        let packed = t.check_program(&paths(&objs), &[&wl], Some(BASIC_OUT));
        let lld = t.link(
            Driver::ClangLld,
            &paths(&objs),
            &[&wl],
            &format!("lld-{format}"),
        );
        assert_eq!(packed.len(), Driver::RLD_DRIVERS.len());
        for (exe, plain) in packed.iter().zip(&plain) {
            let sections = debug(exe);
            let compressed: Vec<&Section> =
                sections.iter().filter(|s| s.flags.contains('C')).collect();
            assert!(compressed.len() >= 4, "{format}: {}", exe.display());
            for s in &compressed {
                assert_eq!(ch_type(exe, &s.name), word, "{format}: {}", s.name);
                assert_eq!(ch_type(&lld, &s.name), word, "lld, {format}: {}", s.name);
            }
            let plain_sections = debug(plain);
            for s in &sections {
                // The flags but SHF_COMPRESSED are the uncompressed section's (`.debug_str`
                // is MSC); a section compression would not shrink stays as it is.
                let p = find_section(&plain_sections, &s.name).unwrap();
                assert_eq!(s.flags.replace('C', ""), p.flags, "{}", s.name);
                if !s.flags.contains('C') {
                    assert_eq!(s.size, p.size, "{}", s.name);
                }
                let contents = |p: &Path| {
                    dump(p, &s.name)
                        .lines()
                        .filter(|l| l.starts_with("  0x"))
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                };
                assert_eq!(contents(exe), contents(plain), "{format}: {}", s.name);
            }
            assert_eq!(
                line_rows(exe),
                line_rows(&lld),
                "{format}: {}",
                exe.display()
            );
            let str_flags = |p: &Path| find_section(&debug(p), ".debug_str").unwrap().flags;
            assert_eq!(str_flags(exe), "MSC");
            assert_eq!(str_flags(exe), str_flags(&lld));
        }
        // `-r` compresses too (as lld-22), and the final link reads it back.
        let rel = t.link(
            Driver::Rld,
            &paths(&objs),
            &["-r", &flag],
            &format!("{format}.o"),
        );
        let lld_rel = t.path(&format!("lld-{format}.o"));
        let mut lld_r = std::process::Command::new("ld.lld-22");
        lld_r
            .arg("-r")
            .arg(&flag)
            .args(&objs)
            .arg("-o")
            .arg(&lld_rel);
        run_checked(&mut lld_r);
        for name in [".debug_info", ".debug_str"] {
            let flags = |p: &Path| find_section(&debug(p), name).unwrap().flags;
            assert!(flags(&rel).contains('C'), "{name}: {}", flags(&rel));
            assert_eq!(flags(&rel), flags(&lld_rel), "{name}");
            assert_eq!(ch_type(&rel, name), word, "{format} -r: {name}");
        }
        let from_rel = t.check_program(&[&rel], &[], Some(BASIC_OUT));
        assert_eq!(line_rows(&from_rel[0]), line_rows(&plain[0]), "{format}");
    }
}

/// `--version-script`: `global:` symbols are exported under their version node (with the
/// node's parent recorded), `local: *` hides the rest, and an executable linked against the
/// library records the versions it needs. Compared with lld-22's library.
#[test]
fn version_script_defines_versions_and_hides_locals() {
    let t = Test::new();
    let lib = t.compile(
        Clang,
        "int api_open(void) { return 1; }\nint api_close(void) { return 2; }\n\
         int api_new(void) { return 3; }\nint internal_helper(void) { return 4; }\n",
        &["-fPIC", "-O2"],
    );
    let map = t.write(
        "lib.map",
        "/* two versions */\nLIB_1.0 {\n  global: api_open; api_close;\n  local: *;\n};\n\
         LIB_2.0 {\n  global: api_new;\n} LIB_1.0;\n",
    );
    let script = format!("-Wl,--version-script={}", map.display());
    let flags = ["-shared", script.as_str(), "-Wl,-soname,libv.so"];
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint api_open(void), api_close(void), api_new(void);\n\
         int main(void) { printf(\"%d %d %d\\n\", api_open(), api_close(), api_new()); return 0; }\n",
        &[],
    );
    let mut exported = Vec::new();
    for (driver, dir) in [(Driver::ClangRld, "rld"), (Driver::ClangLld, "lld")] {
        std::fs::create_dir_all(t.path(dir)).unwrap();
        let so = t.link(driver, &[&lib], &flags, &format!("{dir}/libv.so"));
        let syms: Vec<String> = symbols(&so)
            .into_iter()
            .filter(|s| s.table == ".dynsym" && s.ndx != "UND")
            .map(|s| format!("{}@{}", s.name, s.version.unwrap_or_default()))
            .collect();
        assert!(
            !syms.iter().any(|s| s.starts_with("internal_helper")),
            "{syms:?}"
        );
        exported.push(syms);
        let libdir = format!("-L{}", t.path(dir).display());
        let exe = t.link(driver, &[&main], &[&libdir, "-lv"], &format!("{dir}/main"));
        let out = run(
            &exe,
            &[],
            &[("LD_LIBRARY_PATH", t.path(dir).to_str().unwrap())],
        );
        assert_output_is(
            &exe,
            &out,
            "1 2 3\n",
            "the program using the versioned library",
        );
    }
    let (mut rld, mut lld) = (exported[0].clone(), exported[1].clone());
    rld.sort();
    lld.sort();
    assert_eq!(rld, lld, "exported symbols and versions differ from lld's");
    let verdef = run_checked(
        std::process::Command::new("readelf")
            .arg("-V")
            .arg(t.path("rld/libv.so")),
    );
    let text = String::from_utf8_lossy(&verdef.stdout);
    assert!(
        text.contains("Name: LIB_2.0") && text.contains("Parent 1: LIB_1.0"),
        "{text}"
    );
}

/// `--exclude-libs`: a symbol a shared library takes from a static archive is not exported
/// when that archive is excluded (by name or ALL), and is exported otherwise, as with lld.
#[test]
fn exclude_libs_hides_archive_symbols() {
    let t = Test::new();
    let member = t.compile(Clang, "int from_archive(void) { return 7; }\n", &["-fPIC"]);
    t.archive("libar.a", &[&member]);
    let user = t.compile(
        Clang,
        "int from_archive(void);\nint use(void) { return from_archive(); }\n",
        &["-fPIC"],
    );
    let libdir = format!("-L{}", t.dir().display());
    for (driver, tag) in [(Driver::ClangRld, "rld"), (Driver::ClangLld, "lld")] {
        for (extra, exported) in [
            (None, true),
            (Some("-Wl,--exclude-libs,libar.a"), false),
            (Some("-Wl,--exclude-libs,ALL"), false),
        ] {
            let mut flags = vec!["-shared", libdir.as_str(), "-lar"];
            flags.extend(extra);
            let so = t.link(
                driver,
                &[&user],
                &flags,
                &format!(
                    "{tag}-{}.so",
                    exported as u8 + extra.map_or(0, |e| e.len() as u8)
                ),
            );
            let dynsym = find_symbols(&symbols(&so), ".dynsym", "from_archive");
            assert_eq!(!dynsym.is_empty(), exported, "{tag} {extra:?}: {dynsym:?}");
        }
    }
}

/// `.symver`: `foo@VER_1` (a hidden, old version) and `foo@@VER_2` (the default) defined in
/// one library; a program built against the old version keeps calling it, a new one gets the
/// default; the exported versions equal lld's. A version the script lacks is an error.
#[test]
fn symver_definitions_and_versioned_references() {
    let t = Test::new();
    let lib = t.compile(
        Clang,
        "int foo_v1(void) { return 1; }\nint foo_v2(void) { return 2; }\n\
         __asm__(\".symver foo_v1, foo@VER_1\");\n__asm__(\".symver foo_v2, foo@@VER_2\");\n\
         int bar(void) { return 10; }\n",
        &["-fPIC"],
    );
    let map = t.write(
        "lib.map",
        "VER_1 { global: bar; foo; local: *; };\nVER_2 { global: foo; } VER_1;\n",
    );
    let old = t.compile(
        Clang,
        "#include <stdio.h>\n__asm__(\".symver foo, foo@VER_1\");\nint foo(void);\n\
         int main(void) { printf(\"old %d\\n\", foo()); return 0; }\n",
        &[],
    );
    let new = t.compile(
        Clang,
        "#include <stdio.h>\nint foo(void);\nint main(void) { printf(\"new %d\\n\", foo()); return 0; }\n",
        &[],
    );
    let script = format!("-Wl,--version-script={}", map.display());
    let mut exported = Vec::new();
    for (driver, dir) in [(Driver::ClangRld, "rld"), (Driver::ClangLld, "lld")] {
        std::fs::create_dir_all(t.path(dir)).unwrap();
        let so = t.link(
            driver,
            &[&lib],
            &["-shared", &script],
            &format!("{dir}/libsv.so"),
        );
        let mut syms: Vec<String> = symbols(&so)
            .into_iter()
            .filter(|s| s.table == ".dynsym" && s.ndx != "UND")
            .map(|s| format!("{}@{}", s.name, s.version.unwrap_or_default()))
            .collect();
        syms.sort();
        exported.push(syms);
        let libdir = format!("-L{}", t.path(dir).display());
        let env = [("LD_LIBRARY_PATH", t.path(dir).to_str().unwrap().to_string())];
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        for (obj, want) in [(&old, "old 1\n"), (&new, "new 2\n")] {
            let name = format!(
                "{dir}/{}",
                if want.starts_with("old") {
                    "old"
                } else {
                    "new"
                }
            );
            let exe = t.link(driver, &[obj], &[&libdir, "-lsv"], &name);
            assert_output_is(&exe, &run(&exe, &[], &env), want, "versioned call");
        }
    }
    assert_eq!(
        exported[0], exported[1],
        "rld's exported versions differ from lld's"
    );
    if !is_standin() {
        let bad = t.write("bad.map", "V1 { global: bar; };\n");
        let flag = format!("-Wl,--version-script={}", bad.display());
        let (out, _) = t.try_link(Driver::ClangRld, &[&lib], &["-shared", &flag], "bad.so");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains("undefined version VER_1"),
            "{err}"
        );
    }
}

/// `--wrap=malloc`: the program's calls to malloc reach `__wrap_malloc`, whose call to
/// `__real_malloc` reaches the real one; through both drivers and compared with lld.
#[test]
fn wrap_redirects_undefined_references() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "#include <stdio.h>\n#include <stdlib.h>\nvoid *__real_malloc(size_t);\n\
         void *__wrap_malloc(size_t n) { printf(\"wrapped malloc(%zu)\\n\", n); return __real_malloc(n); }\n\
         int main(void) { void *p = malloc(7); printf(\"%s\\n\", p ? \"ok\" : \"null\"); free(p); return 0; }\n",
        &["-O0"],
    );
    t.check_program(
        &[&obj],
        &["-Wl,--wrap=malloc"],
        Some("wrapped malloc(7)\nok\n"),
    );
}

/// `--defsym`: an absolute value and an alias of another symbol, as lld defines them.
#[test]
fn defsym_absolute_and_alias() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "#include <stdio.h>\nextern char magic[], alias_main[];\n\
         int main(void) { printf(\"%#lx %d\\n\", (unsigned long)magic, alias_main == (char *)main); return 0; }\n",
        &["-fno-pic"],
    );
    t.check_program(
        &[&obj],
        &[
            "-no-pie",
            "-Wl,--defsym=magic=0x1234",
            "-Wl,--defsym=alias_main=main",
        ],
        Some("0x1234 1\n"),
    );
}

/// The x86-64 psABI's large code model calls `__tls_get_addr` through
/// `movabsq $__tls_get_addr@pltoff, %rax; addq %rbx, %rax; call *%rax` (gcc
/// `-mcmodel=large`): in an executable, general and local dynamic accesses are relaxed to
/// local exec (or initial exec for a library's variable) as GNU ld rewrites them (lld-22
/// refuses these objects), and the programs run; a shared library keeps the calls.
#[test]
fn tls_large_code_model_relaxed_as_gnu_ld() {
    let t = Test::new();
    let main = t.compile(
        Gcc,
        "#include <stdio.h>\n__thread int tv = 7;\nstatic __thread int ts = 3;\n\
         extern __thread int te;\nint get(void) { return tv + ts + te; }\n\
         int main(void) { tv++; ts++; te++; printf(\"%d\\n\", get()); return 0; }\n",
        &["-O1", "-fPIC", "-mcmodel=large"],
    );
    let other = t.compile(Gcc, "__thread int te = 100;\n", &["-O1", "-fPIC"]);
    // The instructions of `get`, without addresses and displacements.
    let shape = |exe: &Path| -> Vec<String> {
        let text = tool_stdout("objdump", &["-d", "--no-show-raw-insn"], exe);
        text.lines()
            .skip_while(|l| !l.ends_with("<get>:"))
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .map(|l| {
                let insn = l.split('\t').nth(1).unwrap_or("");
                let insn = insn.split('#').next().unwrap_or("");
                insn.split(|c: char| c == ',' || c.is_whitespace())
                    .filter(|w| !w.is_empty() && !w.contains("0x"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    let mut programs = Vec::new();
    for (d, tag) in [(Driver::GccRld, "rld"), (Driver::GccLd, "ld")] {
        let lib = t.link(d, &[&other], &["-shared"], &format!("{tag}/libte.so"));
        let lib_dir = lib.parent().unwrap().display().to_string();
        let le = t.link(d, &[&main, &other], &[], &format!("{tag}/le"));
        let ie = t.link(
            d,
            &[&main],
            &[
                &format!("-L{lib_dir}"),
                "-lte",
                &format!("-Wl,-rpath,{lib_dir}"),
            ],
            &format!("{tag}/ie"),
        );
        let so = t.link(
            d,
            &[&main, &other],
            &["-shared"],
            &format!("{tag}/libmain.so"),
        );
        programs.push((le, ie, so));
    }
    let (rld, gnu) = (&programs[0], &programs[1]);
    for (ours, theirs) in [(&rld.0, &gnu.0), (&rld.1, &gnu.1)] {
        assert_same_output(ours, theirs, &[], &[], Some("113\n"));
        let (a, b) = (shape(ours), shape(theirs));
        assert_eq!(a, b, "{}", ours.display());
        assert!(
            a.len() > 3 && !a.iter().any(|i| i.contains("call")),
            "{a:?}"
        );
    }
    // Left as calls in a shared library.
    assert!(
        shape(&rld.2).iter().any(|i| i == "call *%rax"),
        "{:?}",
        shape(&rld.2)
    );
}

/// `.comment` says what linked the program, as lld's does ("Linker: LLD ..."): rld's line
/// beside the compilers' (which are lld's too), in executables, shared libraries and
/// static programs, and not in `-r` output (nor lld's).
#[test]
fn comment_names_the_linker_as_lld_does() {
    let t = Test::new();
    let obj = t.compile(Clang, "int main(void) { return 0; }\n", &["-O2", "-fPIC"]);
    let lines = |file: &Path| -> Vec<String> {
        let text = tool_stdout("readelf", &["-p", ".comment"], file);
        let mut l: Vec<String> = text
            .lines()
            .filter_map(|l| l.split_once("]  ").map(|(_, s)| s.to_string()))
            .collect();
        l.sort();
        l
    };
    let ours = format!("Linker: rld {}", rld_version());
    for (tag, flags) in [
        ("pie", vec![]),
        ("shared", vec!["-shared"]),
        ("static", vec!["-static"]),
    ] {
        let rld = t.link(Driver::ClangRld, &[&obj], &flags, &format!("rld-{tag}"));
        let lld = t.link(Driver::ClangLld, &[&obj], &flags, &format!("lld-{tag}"));
        let (mine, theirs) = (lines(&rld), lines(&lld));
        assert!(mine.contains(&ours), "{tag}: {mine:?}");
        let others = |l: &[String]| -> Vec<String> {
            l.iter()
                .filter(|s| !s.starts_with("Linker:"))
                .cloned()
                .collect()
        };
        assert_eq!(others(&mine), others(&theirs), "{tag}");
        assert!(theirs
            .iter()
            .any(|s| s.starts_with("Linker:") && s.contains("LLD")));
    }
    let relocatable = t.link(Driver::Rld, &[&obj], &["-r"], "rld-r.o");
    assert!(!lines(&relocatable).iter().any(|s| s.starts_with("Linker:")));
}

/// rld's version as `--version` prints it (`rld vX.Y.Z ...`).
fn rld_version() -> String {
    let out = run_checked(std::process::Command::new(rld_path()).arg("--version"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.split_whitespace()
        .nth(1)
        .and_then(|v| v.strip_prefix('v'))
        .unwrap_or_default()
        .to_string()
}

/// `--compress-sections=GLOB=TYPE[:LEVEL]` (lld's): the non-loaded sections a glob names are
/// compressed in that format (at that level), the last matching rule winning over the
/// ones before it and over `--compress-debug-sections` (`none` leaves a section as it
/// is), in a final link and in `-r` output; which sections and formats are lld's, the
/// debug information reads back, and the program runs. A loaded section, a rule without
/// a format, an unknown format or level are refused in lld's words.
#[test]
fn compress_sections_as_lld() {
    let t = Test::new();
    let [a, b] = basic_objects(&t, &["-O0", "-g"]);
    // A section of no debugger's that is not loaded.
    let notes = t.assemble(
        "notes",
        ".section .rld.notes,\"\",@progbits\n.fill 4096, 1, 0x41\n",
    );
    let objs = [a, b, notes];
    // Each section with its compression format, as `readelf -t` names it.
    let formats = |p: &Path| -> Vec<(String, String)> {
        let text = tool_stdout("readelf", &["-tW"], p);
        let lines: Vec<&str> = text.lines().collect();
        let mut found = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            let Some(name) = l
                .trim_start()
                .strip_prefix('[')
                .and_then(|r| r.split_once("] "))
            else {
                continue;
            };
            let format = lines
                .get(i + 3)
                .filter(|_| lines.get(i + 2).is_some_and(|f| f.contains("COMPRESSED")))
                .and_then(|f| f.split(',').next())
                .map_or("-", |f| f.trim());
            found.push((name.1.trim().to_string(), format.to_string()));
        }
        found
    };
    let settings: [&[&str]; 4] = [
        &["--compress-sections=.debug_*=zstd"],
        &[
            "--compress-debug-sections=zstd",
            "--compress-sections=.debug_str=none",
        ],
        &["--compress-sections=.rld.*=zlib:9"],
        &[
            "--compress-sections=.debug_info=zlib",
            "--compress-sections=.debug_info=zstd:3",
        ],
    ];
    for (n, flags) in settings.iter().enumerate() {
        let wl: Vec<String> = flags.iter().map(|f| format!("-Wl,{f}")).collect();
        let wl: Vec<&str> = wl.iter().map(String::as_str).collect();
        let lld = t.link(Driver::ClangLld, &paths(&objs), &wl, &format!("lld-{n}"));
        for exe in t.check_program(&paths(&objs), &wl, Some(BASIC_OUT)) {
            assert_eq!(formats(&exe), formats(&lld), "{flags:?}: {}", exe.display());
            let verify = tool_stdout("llvm-dwarfdump-22", &["--verify"], &exe);
            assert!(verify.contains("No errors."), "{flags:?}: {verify}");
        }
        let compressed = |want: &str| -> Vec<String> {
            formats(&lld)
                .into_iter()
                .filter(|(_, f)| f == want)
                .map(|(s, _)| s)
                .collect()
        };
        let (zstd, zlib) = (compressed("ZSTD"), compressed("ZLIB"));
        match n {
            0 => assert!(zstd.len() >= 4 && zlib.is_empty(), "{zstd:?}"),
            1 => assert!(!zstd.contains(&".debug_str".to_string()) && zstd.len() >= 3),
            2 => assert_eq!((zstd, zlib), (vec![], vec![".rld.notes".to_string()])),
            _ => assert_eq!((zstd, zlib), (vec![".debug_info".to_string()], vec![])),
        }
    }
    // `-r`: the relocatable output's compressed sections, as lld's.
    let flags = ["-r", "--compress-sections=.debug_*=zstd"];
    let rld = t.link(Driver::Rld, &paths(&objs), &flags, "rld-r.o");
    let lld = t.path("lld-r.o");
    let mut cmd = std::process::Command::new("ld.lld-22");
    cmd.args(flags).args(&objs).arg("-o").arg(&lld);
    run_checked(&mut cmd);
    // (Its other sections' order is rld's own, and it drops `.llvm_addrsig`.)
    let compressed = |p: &Path| -> Vec<(String, String)> {
        formats(p).into_iter().filter(|(_, f)| f != "-").collect()
    };
    assert!(compressed(&rld).len() >= 4);
    assert_eq!(compressed(&rld), compressed(&lld));
    for (flag, message) in [
        (
            "--compress-sections=.text=zlib",
            "--compress-sections: section '.text' with the SHF_ALLOC flag cannot be compressed",
        ),
        (
            "--compress-sections=.comment",
            "--compress-sections: parse error, not 'section-glob=[none|zlib|zstd]'",
        ),
        (
            "--compress-sections=.comment=lz4",
            "unknown --compress-sections value: lz4",
        ),
        (
            "--compress-sections=.comment=zlib:x",
            "--compress-sections: expected a non-negative integer compression level, but got 'x'",
        ),
    ] {
        let wl = format!("-Wl,{flag}");
        let (out, cmd) = t.try_link(Driver::ClangRld, &paths(&objs), &[&wl], "refused");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains(message),
            "{cmd}\n{stderr}"
        );
    }
}

/// gcc's `-fsplit-stack` (gccgo's stacks): a split-stack function that calls one without
/// the check (another object's, or libc's) asks for 16 KiB more stack, as gold and lld
/// make it: `cmp %fs:0x70,%rsp` becomes `stc`, `lea X(%rsp),%r11` gets X - 0x4000, and
/// its `__morestack` calls go to `__morestack_non_split`. Before, rld left them: a thread
/// deep in small stack segments called a function with a 12 KB frame and overran its
/// segment (a crash). The prologues are lld's byte for byte, and the program prints what
/// gold's does.
#[test]
fn split_stack_prologues_are_adjusted_as_gold_and_lld() {
    let t = Test::new();
    let heavy = t.compile(
        Gcc,
        "int heavy(int seed) { volatile char buf[12000];\n\
         for (int i = 0; i < 12000; i++) buf[i] = (char)(seed + i);\n\
         int s = 0; for (int i = 0; i < 12000; i += 97) s += buf[i]; return s; }\n",
        &["-O1"],
    );
    let split = t.compile(
        Gcc,
        "#include <stdio.h>\n#include <pthread.h>\n#include <string.h>\nint heavy(int);\n\
         int big(int n) { volatile char frame[20000];\n\
         for (int i = 0; i < 20000; i += 50) frame[i] = (char)(n + i);\n\
         return heavy(n) + frame[(n % 400) * 50]; }\n\
         static int rec(int n) { volatile char pad[200]; memset((char *)pad, n & 0x7f, sizeof pad);\n\
         if (n == 0) return heavy(3); int r = rec(n - 1); return r + pad[n % 200] - (n & 0x7f); }\n\
         static void *run(void *arg) { long total = 0;\n\
         for (int k = 1; k < 400; k += 7) total += rec(k) + big(k);\n\
         printf(\"%ld\\n\", total); return 0; }\n\
         int main(void) { pthread_t t; pthread_attr_t a; pthread_attr_init(&a);\n\
         pthread_attr_setstacksize(&a, 65536); pthread_create(&t, &a, run, 0);\n\
         pthread_join(t, 0); return 0; }\n",
        &["-O1", "-fsplit-stack"],
    );
    let objs: [&Path; 2] = [&split, &heavy];
    let flags = ["-fsplit-stack", "-pthread"];
    let rld = t.link(Driver::GccRld, &objs, &flags, "rld");
    // gcc with another linker: gold (its own choice for split stacks) and lld-22.
    let with_linker = |ld: &str, out: &str| -> PathBuf {
        let dir = t.path(&format!("{out}-bin"));
        std::fs::create_dir_all(&dir).unwrap();
        let _ = std::os::unix::fs::symlink(ld, dir.join("ld"));
        let exe = t.path(out);
        let mut cmd = std::process::Command::new("gcc");
        cmd.arg(format!("-B{}/", dir.display()))
            .args(objs)
            .args(flags)
            .arg("-o")
            .arg(&exe);
        run_checked(&mut cmd);
        exe
    };
    let gold = with_linker("/usr/bin/ld.gold", "gold");
    let lld = with_linker("/usr/bin/ld.lld-22", "lld");
    let printed = |exe: &Path| {
        let out = run(exe, &[], &[]);
        assert!(out.status.success(), "{}: {out:?}", exe.display());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(printed(&rld), printed(&gold));
    assert_eq!(printed(&rld), printed(&lld));
    // The first nine bytes of each split-stack function, and what its prologue calls.
    let prologues = |exe: &Path| -> Vec<String> {
        let asm = tool_stdout("objdump", &["-d", "--no-show-raw-insn"], exe);
        let mut found = Vec::new();
        for f in ["big", "rec", "run", "main"] {
            let body: Vec<&str> = asm
                .lines()
                .skip_while(|l| !l.ends_with(&format!("<{f}>:")))
                .skip(1)
                .take_while(|l| !l.is_empty())
                .collect();
            let first = body
                .first()
                .map(|l| l.split('\t').nth(1).unwrap_or(""))
                .unwrap_or("");
            let morestack: Vec<&str> = body
                .iter()
                .filter(|l| l.contains("<__morestack"))
                .map(|l| l.rsplit('<').next().unwrap_or(""))
                .collect();
            found.push(format!("{f}: {first} {morestack:?}"));
        }
        found
    };
    let ours = prologues(&rld);
    assert_eq!(ours, prologues(&lld));
    assert!(ours[0].contains("lea    -0x8e28(%rsp),%r11"), "{ours:?}");
    assert!(
        ours[1].contains("stc") && ours[1].contains("__morestack_non_split>"),
        "{ours:?}"
    );
}
