//! `gcc -flto` through rld: gcc passes its LTO plugin (`-plugin liblto_plugin.so`) on every
//! link, and rld hosts it. The plugin writes the resolutions it was given into a `.res`
//! file (`-save-temps` keeps it), so rld's answers are compared with GNU ld's symbol by
//! symbol, and the programs must behave alike. Sources: `tests/cases/gcc_lto/`. The
//! corpus (`corpus.rs`, `*_gcc_lto`) and the C++ matrix (`cxx.rs`, `::gcc_lto`) run real
//! programs the same way.

use rld_tests::Compiler::Gcc;
use rld_tests::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A resolution file without the plugin's random symbol ids: `slot RESOLUTION name` per
/// symbol, under `file count` per claimed file.
fn resolutions(t: &Test, output: &str) -> String {
    let path = t.path(&format!("{output}.res"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the plugin wrote no {}: {e}", path.display()));
    text.lines()
        .map(|line| {
            let f: Vec<&str> = line.split(' ').collect();
            match f.as_slice() {
                [slot, _id, resolution, name] => format!("{slot} {resolution} {name}"),
                _ => line.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The resolution kinds a `.res` file (as [`resolutions`] prints it) uses.
fn kinds(res: &str) -> BTreeSet<String> {
    res.lines()
        .filter_map(|l| l.split(' ').nth(1))
        .filter(|k| k.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        .map(str::to_string)
        .collect()
}

struct Program {
    objects: Vec<PathBuf>,
}

fn program(t: &Test) -> Program {
    let lto = ["-O2", "-flto"];
    let main = t.compile(Gcc, "gcc_lto/main.c", &lto);
    let lib = t.compile(Gcc, "gcc_lto/lib.c", &lto);
    let native = t.compile(Gcc, "gcc_lto/native.c", &["-O2"]);
    let arc = t.compile(Gcc, "gcc_lto/arc.c", &lto);
    let archive = t.archive("libarc.a", &[&arc]);
    Program {
        objects: vec![main, lib, native, archive],
    }
}

/// Links with GNU ld and with rld (both through gcc, which passes its plugin), and
/// returns both outputs after checking that the plugin got the same resolutions.
fn link_both(t: &Test, objs: &[&Path], flags: &[&str], name: &str) -> (PathBuf, PathBuf, String) {
    let flags = [&["-O2", "-flto", "-save-temps"], flags].concat();
    let gnu = t.link(Driver::GccLd, objs, &flags, &format!("{name}-gnu"));
    let rld = t.link(Driver::GccRld, objs, &flags, &format!("{name}-rld"));
    let (want, got) = (
        resolutions(t, &format!("{name}-gnu")),
        resolutions(t, &format!("{name}-rld")),
    );
    assert_eq!(
        got, want,
        "{name}: gcc's plugin got other resolutions from rld (left) than from GNU ld (right)"
    );
    (gnu, rld, got)
}

#[test]
fn resolutions_are_the_ones_gnu_ld_gives() {
    let t = Test::new();
    let p = program(&t);
    let objs = paths(&p.objects);
    let (gnu, rld, res) = link_both(&t, &objs, &[], "exec");
    let expected = "sum=1515 weak=1 strong=-1 var=7 undef=null pid=yes\n";
    assert_same_output(&rld, &gnu, &[], &[], Some(expected));
    let all = [
        "PREVAILING_DEF",
        "PREVAILING_DEF_IRONLY",
        "PREEMPTED_REG",
        "PREEMPTED_IR",
        "RESOLVED_IR",
        "RESOLVED_EXEC",
        "RESOLVED_DYN",
        "UNDEF",
    ];
    let seen = kinds(&res);
    for kind in all {
        assert!(seen.contains(kind), "no {kind} in the resolutions:\n{res}");
    }
    // The archive member is named as GNU ld names it: the archive and the member's offset.
    assert!(res.contains("libarc.a@0x"), "{res}");

    // -rdynamic exports what only IR uses.
    let (gnu, rld, res) = link_both(&t, &objs, &["-rdynamic"], "rdynamic");
    assert_same_output(&rld, &gnu, &[], &[], Some(expected));
    assert!(res.contains("PREVAILING_DEF_IRONLY_EXP ir_only"), "{res}");
}

#[test]
fn a_shared_library_from_gcc_ir_exports_what_gnu_ld_exports() {
    let t = Test::new();
    let dso = t.compile(Gcc, "gcc_lto/dso.c", &["-O2", "-flto", "-fPIC"]);
    let (gnu, rld, res) = link_both(&t, &[&dso], &["-shared"], "libdso.so");
    assert!(res.contains("PREVAILING_DEF_IRONLY_EXP api"), "{res}");
    assert!(res.contains("PREVAILING_DEF_IRONLY helper"), "{res}");
    assert_eq!(exported_names(&rld), exported_names(&gnu));
    assert!(exported_names(&rld).contains(&"api".to_string()));
    assert!(!exported_names(&rld).contains(&"helper".to_string()));
}

/// A shared library that defines or references a name the IR defines makes it visible
/// from outside, not used by regular objects: GNU ld resolves it PREVAILING_DEF_IRONLY_EXP
/// (`non_ir_ref_dynamic`), and gcc may then drop a COMDAT copy the library also has. rld
/// said PREVAILING_DEF, and gcc kept and exported `std::ctype<char>::do_widen` and
/// `basic_string::_M_construct` from programs and libraries that libstdc++.so also
/// defines them for (snappy's libraries; GNU ld's export neither).
#[test]
fn what_a_shared_library_also_defines_or_calls_is_visible_not_used() {
    let t = Test::new();
    let dso_obj = t.compile(
        Gcc,
        "int from_exe(void);\nint in_both(void) { return 1; }\n\
         int call_back(void) { return from_exe() + 10; }\n",
        &["-O2", "-fPIC"],
    );
    let dso = t.link(Driver::GccLd, &[&dso_obj], &["-shared"], "libboth.so");
    let main = t.compile(
        Gcc,
        "#include <stdio.h>\nint call_back(void);\n\
         __attribute__((noinline)) int from_exe(void) { return 5; }\n\
         __attribute__((noinline)) int in_both(void) { return 2; }\n\
         int main(void) { printf(\"%d %d\\n\", call_back(), in_both()); return 0; }\n",
        &["-O2", "-flto"],
    );
    let rpath = format!("-Wl,-rpath,{}", t.dir().display());
    let (gnu, rld, res) = link_both(&t, &[&main, &dso], &[&rpath], "both");
    assert_same_output(&rld, &gnu, &[], &[], Some("15 2\n"));
    for name in ["from_exe", "in_both"] {
        assert!(
            res.contains(&format!("PREVAILING_DEF_IRONLY_EXP {name}")),
            "{res}"
        );
    }
    assert_eq!(exported_names(&rld), exported_names(&gnu));

    // The same with C++: inline members of libstdc++'s templates, in a library.
    let lib = t.compile_cxx(
        Gcc,
        "#include <iostream>\n#include <string>\n\
         int lib_entry(const char *s) { std::string str(s); std::cout << str << std::endl;\n\
         return (int)str.size(); }\n",
        &["-O2", "-flto", "-fPIC"],
    );
    let flags = ["-O2", "-flto", "-shared"];
    let gnu = t.link_cxx(Driver::GccLd, &[&lib], &flags, "libcxx-gnu.so", true);
    let rld = t.link_cxx(Driver::GccRld, &[&lib], &flags, "libcxx-rld.so", true);
    assert_eq!(exported_names(&rld), exported_names(&gnu));
}

/// `--as-needed` is decided by the objects gcc's LTO returns, as GNU ld decides it: the IR
/// of `ceil(k * c)` names `ceil`, which gcc then expands inline, so libm is not needed
/// (rld kept `NEEDED libm.so.6`: double-conversion's library). A call that stays keeps it.
#[test]
fn as_needed_libraries_are_the_ones_the_lto_output_uses() {
    let t = Test::new();
    let folded = t.compile(
        Gcc,
        "#include <math.h>\nstatic double scale = 0.30102999566398114;\n\
         int lib_digits(int k) { return (int)ceil(k * scale); }\n",
        &["-O2", "-flto", "-fPIC"],
    );
    let called = t.compile(
        Gcc,
        "#include <math.h>\ndouble lib_cbrt(double x) { return cbrt(x) + 1; }\n",
        &["-O2", "-flto", "-fPIC"],
    );
    // Two objects of IR naming it, as in a library of several files.
    let folded_too = t.compile(
        Gcc,
        "#include <math.h>\nint lib_tens(int k) { return (int)ceil(k / 10.0) + k; }\n",
        &["-O2", "-flto", "-fPIC"],
    );
    let needs_libm = |path: &Path| {
        tool_stdout("readelf", &["-dW"], path).contains("Shared library: [libm.so.6]")
    };
    let cases: [(&str, Vec<&Path>, bool); 2] = [
        ("folded", vec![&folded, &folded_too], false),
        ("called", vec![&called], true),
    ];
    for (name, objs, libm) in cases {
        let flags = ["-shared", "-Wl,--as-needed", "-lm"];
        let (gnu, rld, _) = link_both(&t, &objs, &flags, &format!("lib{name}.so"));
        assert_eq!(needs_libm(&gnu), libm, "{name}: GNU ld");
        assert_eq!(needs_libm(&rld), libm, "{name}: rld");
    }
}

/// Calls gcc's code generation adds (`__addtf3` for `__float128` arithmetic) bind as GNU
/// ld binds them: `--as-needed` libgcc_s.so, which nothing needed when it was read, is not
/// loaded, and libgcc.a (before it on gcc's command line) gives the function. rld bound
/// them to libgcc_s.so and added `NEEDED libgcc_s.so.1` (Debian mpfr4's libmpfr.so). A
/// library function the output does call keeps its library.
#[test]
fn calls_gcc_s_code_generation_adds_come_from_libgcc_as_with_gnu_ld() {
    let t = Test::new();
    let lib = t.compile(
        Gcc,
        "__float128 lib_add(__float128 a, __float128 b) { return a + b; }\n\
         double lib_run(double x) { return (double)lib_add((__float128)x, (__float128)2.5); }\n",
        &["-O2", "-flto", "-fPIC"],
    );
    let main = t.compile(
        Gcc,
        "#include <stdio.h>\n#include <stdlib.h>\ndouble lib_run(double);\n\
         int main(int argc, char **argv) {\n\
           printf(\"%g\\n\", lib_run(atof(argc > 1 ? argv[1] : \"1\")));\n  return 0;\n}\n",
        &["-O2"],
    );
    let facts = |so: &Path| {
        let dynamic = tool_stdout("readelf", &["-dW"], so);
        let dynsym = tool_stdout("readelf", &["--dyn-syms", "-W"], so);
        (
            dynamic.contains("[libgcc_s.so.1]"),
            dynsym.contains("UND __addtf3"),
        )
    };
    let (gnu, rld, _) = link_both(&t, &[&lib], &["-shared"], "libf128.so");
    assert_eq!(facts(&gnu), (false, false), "GNU ld's library");
    assert_eq!(
        facts(&rld),
        facts(&gnu),
        "rld's library (NEEDED libgcc_s, __addtf3 imported)"
    );
    for (so, dir) in [(&gnu, "gnu"), (&rld, "rld")] {
        let dir = t.path(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(so, dir.join("libf128.so")).unwrap();
        let l = format!("-L{}", dir.display());
        let exe = t.link(
            Driver::GccLd,
            &[&main],
            &[&l, "-lf128"],
            &format!("{}/main", dir.display()),
        );
        let out = run(&exe, &["4"], &[("LD_LIBRARY_PATH", dir.to_str().unwrap())]);
        assert_output_is(&exe, &out, "6.5\n", "a program using the library");
    }
}

/// gcc's IR lists no symbol its top-level asm defines: libxcrypt's compatibility alias
/// `.symver _crypt_encrypt, encrypt@GLIBC_2.2.5` is invisible until gcc's LTO returns the
/// object, and rld (lld's default `--no-undefined-version`) refused the version script that
/// names `encrypt`. A name is defined if the IR or the objects gcc returns define it: the
/// library exports what GNU ld's does, a program whose unused `show` gcc drops still links
/// (libxcrypt's configure probe, which then left libcrypt.so without versions), and a name
/// nothing defines is still refused.
#[test]
fn version_script_names_defined_by_asm_in_gcc_ir_are_checked_after_lto() {
    let t = Test::new();
    let lib = t.compile(
        Gcc,
        "__attribute__((used)) int enc_impl(void) { return 1; }\n\
         int crypt(void) { return 2; }\n\
         __asm__(\".symver enc_impl, encrypt@GLIBC_2.2.5\");\n",
        &["-O2", "-flto", "-fPIC"],
    );
    let map = t.write(
        "a.map",
        "GLIBC_2.2.5 { global: encrypt; crypt; local: *; };\n",
    );
    let script = format!("-Wl,--version-script={}", map.display());
    let (gnu, rld, _) = link_both(&t, &[&lib], &["-shared", &script], "libxc.so");
    let ours = exports(&rld);
    assert_eq!(ours, ["crypt@GLIBC_2.2.5", "encrypt@GLIBC_2.2.5"]);
    // GNU ld also exports the version's name as an absolute symbol; lld and rld do not.
    assert_eq!(
        ours,
        exports(&gnu)
            .into_iter()
            .filter(|e| !e.starts_with("GLIBC_2.2.5@"))
            .collect::<Vec<_>>()
    );
    let probe = t.compile(
        Gcc,
        "int show, hide;\nint main(void) { return 0; }\n",
        &["-O2", "-flto"],
    );
    let map = t.write("probe.map", "V1 { global: show; local: *; };\n");
    let script = format!("-Wl,--version-script={}", map.display());
    let (res, _) = t.try_link(
        Driver::GccRld,
        &[&probe],
        &["-O2", "-flto", &script],
        "probe",
    );
    assert!(
        res.status.success(),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    let map = t.write(
        "b.map",
        "GLIBC_2.2.5 { global: encrypt; crypt; nothere; local: *; };\n",
    );
    let script = format!("-Wl,--version-script={}", map.display());
    let flags = ["-O2", "-flto", "-shared", &script];
    let (res, _) = t.try_link(Driver::GccRld, &[&lib], &flags, "libnothere.so");
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(
        !res.status.success(),
        "a name nothing defines must be refused"
    );
    assert!(
        stderr.contains("version script assignment of 'GLIBC_2.2.5' to symbol 'nothere' failed")
            && !stderr.contains("'encrypt'"),
        "{stderr}"
    );
}

/// gcc's `symver` attribute under `-flto` (xz's liblzma): gcc's IR names the aliases
/// `foo@@V2` and `foo@V1`, and rld resolves them as versioned names, as GNU ld does, so
/// the version script finds foo (before, the link failed: "version script assignment of
/// 'V2' to symbol 'foo' failed: symbol not defined"). The plugin gets GNU ld's
/// resolutions, and the library exports what GNU ld's exports.
#[test]
fn symver_attributes_in_gcc_ir_version_a_shared_library_as_gnu_ld() {
    let t = Test::new();
    let src = "__attribute__((__symver__(\"foo@@V2\"))) int foo_2(void) { return 2; }\n\
               __attribute__((__symver__(\"foo@V1\"))) int foo_1(void) { return 1; }\n\
               int bar(void) { return 3; }\n";
    let lib = t.compile(Gcc, src, &["-O2", "-flto", "-fPIC"]);
    let map = t.write(
        "v.map",
        "V1 { global: bar; foo; local: *; };\nV2 { global: foo; } V1;\n",
    );
    let script = format!("-Wl,--version-script={}", map.display());
    let (gnu, rld, _) = link_both(&t, &[&lib], &["-shared", &script], "libsv.so");
    let ours = exports(&rld);
    for want in ["foo@V1", "foo@V2", "bar@V1"] {
        assert!(ours.iter().any(|e| e == want), "{want} missing: {ours:?}");
    }
    // (GNU ld also exports each version's own name, `V1@`, absolute.)
    let mut theirs = exports(&gnu);
    theirs.retain(|e| !e.ends_with('@'));
    assert_eq!(ours, theirs);
}

/// Checks a failed link through `gcc -B<rld>`: an error naming `mentions`, no crash, no
/// output file.
fn assert_link_fails(t: &Test, objs: &[&Path], flags: &[&str], mentions: &[&str]) {
    let (res, cmd) = t.try_link(Driver::GccRld, objs, flags, "failed.out");
    let stderr = String::from_utf8_lossy(&res.stderr);
    let ctx = format!("\n  command: {cmd}\n--- stderr ---\n{stderr}");
    assert!(!res.status.success(), "the link succeeded{ctx}");
    assert!(!stderr.contains("panicked"), "rld panicked{ctx}");
    assert!(!stderr.contains("signal"), "something crashed{ctx}");
    for m in mentions {
        assert!(stderr.contains(m), "the error does not mention {m:?}{ctx}");
    }
    assert!(
        t.files_starting_with("failed.out").is_empty(),
        "a failed link left its output behind{ctx}"
    );
}

#[test]
fn a_corrupt_gcc_lto_object_is_the_plugins_error_naming_the_file() {
    let t = Test::new();
    let obj = t.compile(Gcc, "gcc_lto/lib.c", &["-O2", "-flto"]);
    // Point the plugin's symbol table section past the end of the file.
    let mut bytes = std::fs::read(&obj).unwrap();
    let (offset, _) = section_header(&bytes, ".gnu.lto_.symtab");
    bytes[offset + 24..offset + 32].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let bad = t.write("corrupt.o", &bytes);
    let main = t.compile(Gcc, "int main(void) { return 0; }\n", &["-O2", "-flto"]);
    assert_link_fails(&t, &[&main, &bad], &[], &["corrupt.o", "corrupt"]);
}

#[test]
fn a_plugin_that_cannot_be_loaded_is_named() {
    let t = Test::new();
    let obj = t.compile(Gcc, "int main(void) { return 0; }\n", &["-O2", "-flto"]);
    for plugin in ["/nonexistent/liblto_plugin.so", "/bin/true"] {
        let (res, cmd) = t.try_link(
            Driver::Rld,
            &[&obj],
            &["-plugin", plugin, "-e", "main"],
            "failed.out",
        );
        let stderr = String::from_utf8_lossy(&res.stderr);
        assert!(
            !res.status.success() && stderr.contains(&format!("cannot load plugin {plugin}")),
            "command: {cmd}\n{stderr}"
        );
    }
}

/// `gcc -flto -r` (kbuild's `built-in.o`, busybox's among them), as with GNU ld: of IR
/// only, the plugin gets the resolutions of a relocatable output (every definition may
/// be used by a later link) and returns the IR merged into one object, which the output
/// carries; with a native object among the inputs (every object is offered to the
/// plugin, as GNU ld offers them), it returns machine code and says so. The final links
/// of either, by rld or GNU ld, run as GNU ld's.
#[test]
fn relocatable_links_of_gcc_ir_keep_the_ir_as_gnu_ld() {
    let t = Test::new();
    let p = program(&t);
    let (ir, native, archive) = (&p.objects[..2], &p.objects[2], &p.objects[3]);
    let (gnu, rld, res) = link_both(&t, &paths(ir), &["-r", "-nostdlib"], "partial");
    assert!(res.contains("PREVAILING_DEF_IRONLY_EXP "), "{res}");
    let ir_sections = |p: &Path| {
        section_names(&sections(p))
            .into_iter()
            .filter(|n| n.starts_with(".gnu.lto_"))
            .map(|n| {
                n.rsplit_once('.')
                    .map_or(n.clone(), |(stem, _hash)| stem.to_string())
            })
            .collect::<BTreeSet<_>>()
    };
    let merged = ir_sections(&rld);
    assert!(merged.contains(".gnu.lto_.symtab"), "{merged:?}");
    assert_eq!(merged, ir_sections(&gnu));
    let expected = "sum=1515 weak=1 strong=-1 var=7 undef=null pid=yes\n";
    let flags = ["-O2", "-flto"];
    let from_gnu = t.link(Driver::GccLd, &[&gnu, native, archive], &flags, "from-gnu");
    for (linker, name) in [
        (Driver::GccRld, "from-rld"),
        (Driver::GccLd, "from-rld-gnu"),
    ] {
        let exe = t.link(linker, &[&rld, native, archive], &flags, name);
        assert_same_output(&exe, &from_gnu, &[], &[], Some(expected));
    }

    let mixed = paths(&p.objects[..3]);
    let flags_r = ["-O2", "-flto", "-r", "-nostdlib"];
    let [gnu, rld] = [
        (Driver::GccLd, "mixed-gnu.o"),
        (Driver::GccRld, "mixed-rld.o"),
    ]
    .map(|(linker, out)| {
        let (res, cmd) = t.try_link(linker, &mixed, &flags_r, out);
        // GNU ld prints the plugin's warning on stdout, rld on stderr.
        let said = [res.stdout, res.stderr].concat();
        let said = String::from_utf8_lossy(&said);
        assert!(res.status.success(), "{cmd}\n{said}");
        assert!(said.contains("-flinker-output=nolto-rel"), "{cmd}\n{said}");
        let out = t.path(out);
        assert_eq!(ir_sections(&out), BTreeSet::new(), "{cmd}");
        out
    });
    let from_gnu = t.link(Driver::GccLd, &[&gnu, archive], &flags, "mixed-from-gnu");
    let exe = t.link(Driver::GccRld, &[&rld, archive], &flags, "mixed-from-rld");
    assert_same_output(&exe, &from_gnu, &[], &[], Some(expected));
}

/// The section header (its offset in the file, its index) of the first section whose name
/// starts with `prefix`.
fn section_header(elf: &[u8], prefix: &str) -> (usize, usize) {
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) as usize;
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let (shoff, shnum, shstrndx) = (u64_at(0x28), u16_at(0x3c), u16_at(0x3e));
    let header = |i: usize| shoff + i * 64;
    let strtab = u64_at(header(shstrndx) + 24);
    (0..shnum)
        .map(|i| (header(i), i))
        .find(|&(h, _)| {
            let name = &elf[strtab + u32_at(h)..];
            name.starts_with(prefix.as_bytes())
        })
        .unwrap_or_else(|| panic!("no section {prefix}*"))
}
