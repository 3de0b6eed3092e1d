//! rld's LTO as a plugin (`librld_plugin.so`) in GNU ld, gold and mold, through
//! `clang-22 -flto --ld-path=<scripts/rld-plugin-ld as the host>`: the host's resolution
//! decides what survives LTO, the remark file holds rld's own remarks, `save-temps` keeps
//! the intermediate files, bad input is the host's error and never a crash, and files that
//! are not bitcode are left to the host. The corpus (`corpus.rs`, `plugin::*`) and the C++
//! matrix (`cxx.rs`, `::plugin_*`) run real programs the same way. Sources:
//! `tests/cases/plugin/`.

use rld_tests::Compiler::{Clang, Gcc};
use rld_tests::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const LTO: [&str; 2] = ["-O2", "-flto"];

fn host_name(host: PluginHost) -> &'static str {
    Driver::Plugin(host).name()
}

#[test]
fn native_and_shared_library_references_keep_definitions_alive() {
    let t = Test::new();
    let ir = t.compile(Clang, "plugin/live_ir.c", &LTO);
    let native = t.compile(Clang, "plugin/live_native.c", &["-O2"]);
    let dso_obj = t.compile(Clang, "plugin/live_dso.c", &["-O2", "-fPIC"]);
    let dso = t.link(Driver::ClangLld, &[&dso_obj], &["-shared"], "libplug.so");
    let rpath = format!("-Wl,-rpath,{}", t.dir().display());
    for host in PluginHost::ALL {
        let exe = t.check_plugin_program(
            false,
            host,
            &[&ir, &native, &dso],
            &["-flto", "-O2", &rpath],
            Some("20 104\n"),
        );
        let syms = symbols(&exe);
        let defined = |table: &str, name: &str| {
            syms.iter()
                .any(|s| s.table == table && s.name == name && s.is_defined())
        };
        let name = host_name(host);
        assert!(
            defined(".symtab", "used_by_native"),
            "{name}: used_by_native is gone"
        );
        assert!(
            defined(".dynsym", "used_by_dso"),
            "{name}: used_by_dso is not exported"
        );
        assert!(
            !syms.iter().any(|s| s.name == "unused_anywhere"),
            "{name}: unused_anywhere survived LTO"
        );
    }
}

/// The remark test program (`cases/remarks/`) and a dead function.
fn remark_objects(t: &Test) -> Vec<PathBuf> {
    ["remarks/engine.c", "remarks/scale.c", "plugin/unused.c"]
        .iter()
        .map(|s| t.compile(Clang, s, &["-O2", "-flto", "-g"]))
        .collect()
}

/// (pass, name, function) of the remarks rld itself writes (not LLVM's passes').
fn rld_remarks_in(path: &Path) -> BTreeSet<(String, String, String)> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("no remark file {}: {e}", path.display()));
    rld_remarks::parse_yaml(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .into_iter()
        .filter(|r| matches!(r.pass.as_str(), "lto" | "cvp"))
        .map(|r| (r.pass, r.name, r.function))
        .collect()
}

#[test]
fn the_remark_file_holds_rlds_own_remarks() {
    let t = Test::new();
    let objs = remark_objects(&t);
    let yaml = t.path("rld.yaml");
    let remarks_flag = |p: &Path| format!("-Wl,--opt-remarks-filename={}", p.display());
    t.link(
        Driver::ClangRld,
        &paths(&objs),
        &["-flto", "-O2", &remarks_flag(&yaml)],
        "rld.out",
    );
    let want = rld_remarks_in(&yaml);
    let dead = (
        "lto".to_string(),
        "deadfunction".to_string(),
        "never_called".to_string(),
    );
    assert!(
        want.contains(&dead),
        "rld wrote no deadfunction remark: {want:?}"
    );
    assert!(
        want.iter().any(|(p, _, f)| p == "cvp" && f == "run"),
        "rld wrote no cvp remark for run: {want:?}"
    );
    for host in PluginHost::ALL {
        let name = host_name(host);
        let yaml = t.path(&format!("{name}.yaml"));
        let flag = format!("-Wl,-plugin-opt=opt-remarks-filename={}", yaml.display());
        let exe = t.link(
            Driver::Plugin(host),
            &paths(&objs),
            &["-flto", "-O2", &flag],
            &format!("{name}.out"),
        );
        assert_output_is(&exe, &run(&exe, &["5"], &[]), "run(5) = 70\n", name);
        assert_eq!(
            rld_remarks_in(&yaml),
            want,
            "{name}: other rld remarks than rld's own link"
        );
        let text = std::fs::read_to_string(&yaml).unwrap();
        assert!(
            text.contains("Pass:            inline"),
            "{name}: LLVM's remarks are missing from {}",
            yaml.display()
        );
    }
}

#[test]
fn bitcode_archive_members_are_claimed_at_their_offset() {
    let t = Test::new();
    let main = t.compile(Clang, "plugin/arc_main.c", &LTO);
    // The used member second, so that it starts at an offset into the archive.
    let unused = t.compile(Clang, "plugin/arc_unused.c", &LTO);
    let member = t.compile(Clang, "plugin/arc_member.c", &LTO);
    let archive = t.archive("libbc.a", &[&unused, &member]);
    for host in PluginHost::ALL {
        let exe = t.check_plugin_program(
            false,
            host,
            &[&main, &archive],
            &["-flto", "-O2"],
            Some("55\n"),
        );
        assert!(
            !symbols(&exe).iter().any(|s| s.name == "never_needed"),
            "{}: the unused member was linked",
            host_name(host)
        );
    }
}

/// A name only a module's inline asm defines is reported to the host like LLVMgold
/// reports it: mold, which reads the symbols the plugin reports, took the member for it
/// and then failed the link with the name undefined.
#[test]
fn what_only_inline_asm_defines_resolves_references() {
    let t = Test::new();
    let member = t.compile(
        Clang,
        "__asm__(\".globl asm_only\\n.type asm_only,@function\\n\"\n\
         \"asm_only:\\n movl $7, %eax\\n ret\\n\");\n\
         int beside_the_asm(void) { return 1; }\n",
        &LTO,
    );
    let archive = t.archive("libasm.a", &[&member]);
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint asm_only(void);\n\
         int main(void) { printf(\"%d\\n\", asm_only()); return 0; }\n",
        &["-O2"],
    );
    for host in PluginHost::ALL {
        t.check_plugin_program(
            false,
            host,
            &[&main, &archive],
            &["-flto", "-O2"],
            Some("7\n"),
        );
    }
}

#[test]
fn save_temps_keeps_the_intermediate_files() {
    let t = Test::new();
    let objs = remark_objects(&t);
    for host in PluginHost::ALL {
        let out = format!("{}-temps", host_name(host));
        t.link(
            Driver::Plugin(host),
            &paths(&objs),
            &["-flto", "-O2", "-Wl,-plugin-opt=save-temps"],
            &out,
        );
        let object = t.path(&format!("{out}.lto.o"));
        let bytes = std::fs::read(&object)
            .unwrap_or_else(|e| panic!("save-temps kept no {}: {e}", object.display()));
        assert!(
            bytes.starts_with(b"\x7fELF"),
            "{} is not ELF",
            object.display()
        );
        let bitcode = t.files_starting_with(&format!("{out}."));
        assert!(
            bitcode.iter().any(|f| f.ends_with(".preopt.bc")),
            "save-temps kept no bitcode: {bitcode:?}"
        );

        // obj-path=PATH: the object goes there, and stays.
        let obj = t.path(&format!("{out}-obj.o"));
        let flag = format!("-Wl,-plugin-opt=obj-path={}", obj.display());
        let exe = t.link(
            Driver::Plugin(host),
            &paths(&objs),
            &["-flto", "-O2", &flag],
            &format!("{out}-obj"),
        );
        assert_output_is(&exe, &run(&exe, &["5"], &[]), "run(5) = 70\n", &out);
        assert!(
            std::fs::read(&obj).is_ok_and(|b| b.starts_with(b"\x7fELF")),
            "obj-path kept no object at {}",
            obj.display()
        );
    }
}

/// A failed link through each host: the host's error naming `mentions`, no crash, no
/// output.
fn assert_each_host_fails(t: &Test, objs: &[&Path], flags: &[&str], mentions: &[&str]) {
    for host in PluginHost::ALL {
        let out = format!("{}-failed", host_name(host));
        let (res, cmd) = t.try_link(Driver::Plugin(host), objs, flags, &out);
        let stderr = String::from_utf8_lossy(&res.stderr);
        let ctx = format!(
            "\n  command: {cmd}\n  {}\n--- stderr ---\n{stderr}",
            describe_status(&res)
        );
        assert!(!res.status.success(), "the link succeeded{ctx}");
        assert!(
            !stderr.contains("signal") && !stderr.contains("panicked"),
            "the host crashed{ctx}"
        );
        for m in mentions {
            assert!(stderr.contains(m), "the error does not mention {m:?}{ctx}");
        }
        assert!(!t.path(&out).exists(), "a failed link left {out}{ctx}");
    }
}

#[test]
fn corrupt_bitcode_is_the_hosts_error_naming_the_file() {
    let t = Test::new();
    let good = t.compile(Clang, "plugin/unused.c", &LTO);
    let bytes = std::fs::read(&good).unwrap();
    let bad = t.write("truncated.o", &bytes[..bytes.len() / 2]);
    let main = t.compile(Clang, "int main(void) { return 0; }\n", &LTO);
    assert_each_host_fails(&t, &[&main, &bad], &["-flto"], &["truncated.o"]);
}

#[test]
fn unknown_plugin_options_are_errors_naming_them() {
    let t = Test::new();
    let main = t.compile(Clang, "int main(void) { return 0; }\n", &LTO);
    assert_each_host_fails(
        &t,
        &[&main],
        &["-flto", "-Wl,-plugin-opt=no-such-option"],
        &["no-such-option"],
    );
}

#[test]
fn files_that_are_not_bitcode_are_left_to_the_host() {
    let t = Test::new();
    let clang = t.compile(Clang, "plugin/clang_side.c", &LTO);
    let plain = t.compile(Gcc, "plugin/gcc_side.c", &["-O2"]);
    // gcc's IR with machine code beside it: GNU ld and gold link the machine code; mold
    // refuses any LTO object no plugin claims (with LLVMgold.so too), so it gets gcc's
    // plain object.
    let fat = t.compile(
        Gcc,
        "plugin/gcc_fat.c",
        &["-O2", "-flto", "-ffat-lto-objects"],
    );
    let fat_plain = t.compile(Gcc, "plugin/gcc_fat.c", &["-O2"]);
    for host in PluginHost::ALL {
        let third = if host == PluginHost::Mold {
            &fat_plain
        } else {
            &fat
        };
        t.check_plugin_program(
            false,
            host,
            &[&clang, &plain, third],
            &["-flto", "-O2"],
            Some("42 300\n"),
        );
    }
}

/// In a shared library, what every module that needs it has its own copy of
/// (`linkonce_odr` with `unnamed_addr`) is not exported, as with LLVMgold.so: LTO
/// internalizes it. A writable inline variable stays exported.
#[test]
fn omittable_inline_definitions_leave_a_shared_library_as_with_llvmgold() {
    let t = Test::new();
    let lib = t.compile_cxx(
        Clang,
        "struct Acc { int v = 0;\n\
         __attribute__((noinline)) int add(int x) { v += x * 3; return v; } };\n\
         inline int shared_counter = 0;\n\
         int lib_entry(int n) { Acc a; for (int i = 0; i < n; i++) a.add(i);\n\
         return a.v + shared_counter++; }\n",
        &["-O2", "-flto", "-fPIC"],
    );
    for host in PluginHost::ALL {
        let name = host_name(host);
        let so = t.link_cxx(
            Driver::Plugin(host),
            &[&lib],
            &["-O2", "-flto", "-shared"],
            &format!("{name}/libacc.so"),
            true,
        );
        let exported = exported_names(&so);
        assert!(
            exported.iter().any(|n| n == "_Z9lib_entryi")
                && exported.iter().any(|n| n == "shared_counter"),
            "{name}: {exported:?}"
        );
        assert!(
            !exported.iter().any(|n| n == "_ZN3Acc3addEi"),
            "{name}: the inline member is exported: {exported:?}"
        );
    }
}

/// A C++ constructor alias one partition owns and the other calls: every host links and
/// runs it. The plugin read the alias's name after replacing it with a declaration, from
/// freed memory, which mold's allocator had reused (a crash in 8 of the LLVM test-suite's
/// C++ programs).
#[test]
fn a_constructor_alias_across_partitions_links_in_every_host() {
    let t = Test::new();
    let objs: Vec<PathBuf> = [
        "partitions/ctor_alias.cpp",
        "partitions/ctor_alias_main.cpp",
    ]
    .iter()
    .map(|src| t.compile_cxx(Clang, src, &["-O2", "-flto"]))
    .collect();
    for host in PluginHost::ALL {
        t.check_plugin_program(
            true,
            host,
            &paths(&objs),
            &["-flto", "-O2", "-Wl,-plugin-opt=lto-partitions=2"],
            Some("42\n"),
        );
    }
}
