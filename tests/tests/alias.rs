//! The whole-program alias analysis as LLVM sees it: C programs compiled by
//! `clang-22 -flto -O2 -g` (sources in `cases/alias/`), linked by rld with
//! `--save-temps`, and LLVM 14's own evaluator (`opt-14 -passes=aa-eval
//! -evaluate-aa-metadata -print-all-alias-modref-info`) run on the bitcode rld
//! hands to LLVM's pipeline (`*.0.0.preopt.bc`).
//!
//! Each kernel in `kernels.c` makes one pair of memory accesses (a load through
//! `y`, a store through `x`); only its callers in `main.c` decide whether the two
//! can touch the same memory, so only the linker's whole-program view can tell.
//! The evaluator runs with `-aa-pipeline=scoped-noalias-aa` alone, so every NoAlias
//! it reports comes from rld's `!alias.scope`/`!noalias` metadata; the same link
//! with `--no-wpa-aa-metadata` must answer MayAlias for every pair, and the program
//! must print what the lld-22 build prints.

use rld_tests::llvm_remarks::remarks;
use rld_tests::Compiler::{Clang, Clang14};
use rld_tests::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const EXPECTED: &str = "3 3 21 4 5 8 8\n3 8 7\n";

/// What LLVM's evaluator answers for each function's pairs of accesses: function →
/// (NoAlias pairs, other pairs).
fn aa_eval(bitcode: &Path) -> BTreeMap<String, (usize, usize)> {
    let out = run_checked(
        Command::new("opt-22")
            .args([
                "-passes=aa-eval",
                "-aa-pipeline=scoped-noalias-aa",
                "-evaluate-aa-metadata",
                "-print-all-alias-modref-info",
                "-disable-output",
            ])
            .arg(bitcode),
    );
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    let mut answers: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut function = String::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Function: ") {
            function = rest.split(':').next().unwrap_or_default().to_string();
            continue;
        }
        // Alias answers for pairs of instructions (the metadata evaluation), not for
        // bare pointers nor mod/ref answers for calls.
        let answer = line.trim_start().split(':').next().unwrap_or_default();
        if !line.contains(" <-> ")
            || !["NoAlias", "MayAlias", "PartialAlias", "MustAlias"].contains(&answer)
        {
            continue;
        }
        let entry = answers.entry(function.clone()).or_default();
        if answer == "NoAlias" {
            entry.0 += 1;
        } else {
            entry.1 += 1;
        }
    }
    answers
}

fn build(t: &Test) -> (Vec<PathBuf>, PathBuf) {
    let flags = ["-flto", "-O2", "-g"];
    let objs = vec![
        t.compile(Clang, "alias/main.c", &flags),
        t.compile(Clang, "alias/kernels.c", &flags),
        // Native code the analysis cannot see into.
        t.compile(Clang, "alias/outside.c", &["-O2"]),
    ];
    let lld = t.link(
        Driver::ClangLld,
        &objs.iter().map(PathBuf::as_path).collect::<Vec<_>>(),
        &strs(&lto_flags(None, &[])),
        "lld/prog",
    );
    (objs, lld)
}

#[test]
fn llvm_sees_what_the_callers_pass() {
    let t = Test::new();
    let (objs, lld) = build(&t);
    let objs: Vec<&Path> = objs.iter().map(PathBuf::as_path).collect();
    let yaml = t.path("rld/prog.yaml");
    let exe = t.link(
        Driver::ClangRld,
        &objs,
        &strs(&lto_flags(Some(&yaml), &["-Wl,--save-temps"])),
        "rld/prog",
    );
    assert_same_output(&exe, &lld, &[], &[], Some(EXPECTED));
    if is_standin() {
        eprintln!("skipped: the alias metadata and its remarks are rld's own");
        return;
    }
    let answers = aa_eval(&t.path("rld/prog.0.0.preopt.bc"));
    let verdict = |f: &str| -> &'static str {
        match answers.get(f) {
            Some(&(1, 0)) => "NoAlias",
            Some(&(0, 1)) => "MayAlias",
            other => panic!("{f}: expected one pair of accesses, got {other:?} in {answers:?}"),
        }
    };
    // Disjoint objects: two globals, two blocks from two calls of an allocation wrapper,
    // a stack slot and a global, memory outside the program and a global it never saw.
    assert_eq!(verdict("distinct_globals"), "NoAlias");
    assert_eq!(verdict("wrapper_blocks"), "NoAlias");
    assert_eq!(verdict("stack_and_global"), "NoAlias");
    assert_eq!(verdict("outside_and_private"), "NoAlias");
    // The same global in one call; and outside code that was given the global (it
    // really returns it: the program's output depends on the store reaching it).
    assert_eq!(verdict("same_object"), "MayAlias");
    assert_eq!(verdict("outside_and_escaped"), "MayAlias");
    // Fields: the two ints of one global apart (both `int`: type-based analysis cannot
    // tell them apart); an array indexed at run time not apart from the field after it
    // (an index past its declared length, the "struct hack", reaches it).
    assert_eq!(verdict("distinct_fields"), "NoAlias");
    assert_eq!(verdict("array_and_later_field"), "MayAlias");

    // One remark per annotated function, counting its accesses and objects.
    let remarks = remarks(&yaml);
    let kernel = remarks
        .iter()
        .find(|r| r.pass == "wpa-aa" && r.function == "distinct_globals")
        .expect("a wpa-aa remark for distinct_globals");
    assert_eq!(kernel.kind, "Analysis");
    assert_eq!(kernel.name, "AliasScopes");
    let arg = |k: &str| {
        kernel
            .args
            .iter()
            .find(|a| a.0 == k)
            .map(|a| a.1.clone())
            .unwrap_or_default()
    };
    assert_eq!(arg("Accesses"), "2");
    // g1, g3 (written) and g2 (read).
    assert_eq!(arg("Objects"), "3");
    assert_eq!(arg("NoAliasPairs"), "1");
}

#[test]
fn without_the_metadata_every_pair_may_alias() {
    if is_standin() {
        eprintln!("skipped: --no-wpa-aa-metadata is rld's own");
        return;
    }
    let t = Test::new();
    let (objs, lld) = build(&t);
    let objs: Vec<&Path> = objs.iter().map(PathBuf::as_path).collect();
    let exe = t.link(
        Driver::ClangRld,
        &objs,
        &strs(&lto_flags(
            None,
            &["-Wl,--save-temps", "-Wl,--no-wpa-aa-metadata"],
        )),
        "rld/prog",
    );
    assert_same_output(&exe, &lld, &[], &[], Some(EXPECTED));
    let answers = aa_eval(&t.path("rld/prog.0.0.preopt.bc"));
    assert!(!answers.is_empty(), "aa-eval evaluated nothing");
    for (f, &(no_alias, _)) in &answers {
        assert_eq!(no_alias, 0, "{f}: NoAlias without rld's metadata");
    }
}

/// A summary that does not describe the bitcode (a stale cache entry) must not place
/// metadata on the wrong instructions: rld checks each function's instruction count and
/// opcodes, warns, and leaves the module unannotated.
#[test]
fn a_summary_that_does_not_match_its_module_is_not_used() {
    if is_standin() {
        eprintln!("skipped: the summary cache and its checks are rld's own");
        return;
    }
    let t = Test::new();
    let (objs, lld) = build(&t);
    // The same functions with one instruction more each.
    let source = std::fs::read_to_string(cases_dir().join("alias/kernels.c")).unwrap();
    let changed_source = source.replace(
        "{ *x = *y + 1; }",
        "{ *x = *y + 1; __asm__ volatile(\"\" ::: \"memory\"); }",
    );
    assert_ne!(source, changed_source);
    let changed_path = t.write("kernels_changed.c", changed_source);
    let changed = t.compile(
        Clang,
        changed_path.to_str().unwrap(),
        &["-flto", "-O2", "-g"],
    );
    let cache = t.path("cache");
    let cache_flag = format!("-Wl,--lto-cache-dir={}", cache.display());
    // The summaries' entries (the cache also holds compiled partitions).
    let entries = || summary_cache_entries(&cache);
    // Cache the summaries of the real program, then of the changed kernels alone.
    let real: Vec<&Path> = objs.iter().map(PathBuf::as_path).collect();
    t.link(
        Driver::ClangRld,
        &real,
        &strs(&lto_flags(None, &[&cache_flag])),
        "warm/prog",
    );
    let before = entries();
    let with_changed = [real[0], changed.as_path(), real[2]];
    t.link(
        Driver::ClangRld,
        &with_changed,
        &strs(&lto_flags(None, &[&cache_flag])),
        "warm2/prog",
    );
    let after = entries();
    plant_stale_summary(&before, &after, "kernels");

    std::fs::create_dir_all(t.path("rld")).unwrap();
    let (out, _) = t.try_link(
        Driver::ClangRld,
        &real,
        &strs(&lto_flags(None, &[&cache_flag, "-Wl,--save-temps"])),
        "rld/prog",
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "link failed: {stderr}");
    assert!(
        stderr.contains("no alias information written: function")
            && stderr.contains("does not match its summary"),
        "no warning about the stale summary: {stderr}"
    );
    let exe = t.path("rld/prog");
    assert_same_output(&exe, &lld, &[], &[], Some(EXPECTED));
    let answers = aa_eval(&t.path("rld/prog.0.0.preopt.bc"));
    for f in ["distinct_globals", "wrapper_blocks", "stack_and_global"] {
        assert_eq!(
            answers.get(f).map(|a| a.0),
            Some(0),
            "{f} annotated: {answers:?}"
        );
    }
}

/// What LLVM does with it (`bench/programs/mix_*.c`): `mix` adds ten arrays into an
/// eleventh. Without knowing that the output overlaps none of the inputs, the loop
/// vectorizer guards the vector loop with run-time overlap checks (`vector.memcheck`);
/// with rld's metadata it needs none. Compiled by clang-14, whose pre-link pipeline leaves
/// loops to the link (clang-22 vectorizes `mix` before the link, checks included, where
/// no whole-program fact can reach it).
#[test]
fn the_loop_vectorizer_uses_it() {
    if is_standin() {
        eprintln!("skipped: the metadata is rld's own");
        return;
    }
    let t = Test::new();
    let flags = ["-flto", "-O2", "-g"];
    let program = |f: &str| {
        let path = workspace_dir().join("bench/programs").join(f);
        t.compile(Clang14, path.to_str().unwrap(), &flags)
    };
    let objs = [program("mix_main.c"), program("mix_kernel.c")];
    let objs: Vec<&Path> = objs.iter().map(PathBuf::as_path).collect();
    let lld = t.link(
        Driver::ClangLld,
        &objs,
        &strs(&lto_flags(None, &[])),
        "lld/mix",
    );
    // (vectorized, run-time overlap checks in mix)
    let vectorized = |out: &str, extra: &[&str]| -> (bool, usize) {
        let flags = [
            "-Wl,--opt-remarks-passes=loop-vectorize",
            "-Wl,--save-temps",
        ];
        let flags = [&flags[..], extra].concat();
        let (_, yaml) = link_lto_like_lld(&t, &objs, &lld, out, &flags, &["512", "3"], None);
        let vectorized = remarks(&yaml)
            .iter()
            .any(|r| r.kind == "Passed" && r.name == "Vectorized" && r.function == "mix");
        let opt = llvm_dis(&t.path(&format!("{out}.0.4.opt.bc")));
        let body = ir_function(&opt, "mix");
        assert!(!body.is_empty(), "no mix in {out}.0.4.opt.bc");
        let checks = body
            .iter()
            .filter(|l| l.starts_with("vector.memcheck"))
            .count();
        (vectorized, checks)
    };
    assert_eq!(
        vectorized("rld/mix", &[]),
        (true, 0),
        "mix not vectorized without run-time checks with rld's alias metadata"
    );
    let (_, checks) = vectorized("off/mix", &["-Wl,--no-wpa-aa-metadata"]);
    assert!(
        checks > 0,
        "mix needs no run-time checks without rld's metadata: the test no longer shows its effect"
    );
}

/// Calls: the whole-program mod/ref tells LLVM what a call through a function pointer may
/// touch (`cases/alias/calls.c`: no hook writes `scale` or `table`, so LICM and GVN need not
/// reload them after each call), and which functions only read memory (`peek_through`
/// calls whichever reader it is given: `readonly`).
#[test]
fn calls_get_scopes_and_functions_attributes() {
    if is_standin() {
        eprintln!("skipped: the alias metadata and its remarks are rld's own");
        return;
    }
    let t = Test::new();
    let obj = t.compile(Clang, "alias/calls.c", &["-flto", "-O2", "-g"]);
    let objs = [obj.as_path()];
    let lld = t.link(
        Driver::ClangLld,
        &objs,
        &strs(&lto_flags(None, &[])),
        "lld/calls",
    );
    // Whether LICM hoists the load of `scale` out of sum_with_hook's loop.
    let hoists_load = |out: &str, extra: &[&str]| -> bool {
        let flags = ["-Wl,--save-temps", "-Wl,--opt-remarks-passes=licm|wpa-aa"];
        let flags = [&flags[..], extra].concat();
        let (_, yaml) = link_lto_like_lld(
            &t,
            &objs,
            &lld,
            out,
            &flags,
            &[],
            Some("5292 0 200 0 201\n"),
        );
        remarks(&yaml).iter().any(|r| {
            r.pass == "licm"
                && r.kind == "Passed"
                && r.name == "Hoisted"
                && r.function == "sum_with_hook"
                && r.args.iter().any(|a| a.0 == "Inst" && a.1 == "load")
        })
    };
    assert!(
        hoists_load("rld/calls", &[]),
        "the load of scale stays in the loop with rld's metadata"
    );
    assert!(
        !hoists_load("off/calls", &["-Wl,--no-wpa-aa-metadata"]),
        "the load of scale is hoisted without rld's metadata: the test shows nothing"
    );

    // The remarks: sum_with_hook's call is annotated; peek_through got readonly.
    let remarks = remarks(&t.path("rld/calls.yaml"));
    let scopes = remarks
        .iter()
        .find(|r| r.pass == "wpa-aa" && r.name == "AliasScopes" && r.function == "sum_with_hook")
        .expect("a wpa-aa remark for sum_with_hook");
    let arg = |r: &rld_tests::llvm_remarks::Remark, k: &str| {
        r.args
            .iter()
            .find(|a| a.0 == k)
            .map(|a| a.1.clone())
            .unwrap_or_default()
    };
    assert_eq!(arg(scopes, "Calls"), "1");
    assert_ne!(arg(scopes, "NoModRefPairs"), "0");
    let attrs = remarks
        .iter()
        .find(|r| {
            r.pass == "wpa-aa" && r.name == "MemoryAttributes" && r.function == "peek_through"
        })
        .expect("a MemoryAttributes remark for peek_through");
    assert_eq!(attrs.kind, "Passed");
    assert_eq!(arg(attrs, "Attributes"), "memory(read) nofree");
    // Built with -g: the remark is at the function, like the function's other remarks.
    let at = attrs
        .debug_loc
        .as_ref()
        .expect("a DebugLoc on the MemoryAttributes remark");
    assert!(at.file.ends_with("alias/calls.c") && at.line > 0, "{at:?}");
    let preopt = llvm_dis(&t.path("rld/calls.0.0.preopt.bc"));
    let attributes = function_attributes(&preopt, "peek_through");
    assert!(
        attributes.contains("memory(read)") && attributes.contains("nofree"),
        "peek_through's attributes: {attributes}"
    );
}

/// Functions that touch only what their arguments point to, through a call whose targets
/// only the whole program knows (`cases/alias/argmem.c`): `fill_through` gets
/// `memory(argmem: ...)`, which LLVM cannot infer through the indirect call;
/// `count_through`, one of whose targets also writes a global, does not.
#[test]
fn functions_keeping_to_their_arguments_get_argmem() {
    if is_standin() {
        eprintln!("skipped: the attributes and their remarks are rld's own");
        return;
    }
    let t = Test::new();
    let obj = t.compile(Clang, "alias/argmem.c", &["-flto", "-O2"]);
    let objs = [obj.as_path()];
    let lld = t.link(
        Driver::ClangLld,
        &objs,
        &strs(&lto_flags(None, &[])),
        "lld/argmem",
    );
    let flags = ["-Wl,--save-temps", "-Wl,--opt-remarks-passes=wpa-aa"];
    let (_, yaml) = link_lto_like_lld(
        &t,
        &objs,
        &lld,
        "rld/argmem",
        &flags,
        &[],
        Some("1 2 1 0 1\n"),
    );
    let remarks = remarks(&yaml);
    let added = |function: &str| {
        remarks
            .iter()
            .find(|r| r.pass == "wpa-aa" && r.name == "MemoryAttributes" && r.function == function)
            .and_then(|r| r.args.iter().find(|a| a.0 == "Attributes"))
            .map(|a| a.1.clone())
            .unwrap_or_default()
    };
    assert_eq!(
        added("fill_through"),
        "memory(argmem: readwrite, inaccessiblemem: readwrite, target_mem0: readwrite, \
         target_mem1: readwrite) nofree"
    );
    assert_eq!(added("count_through"), "nofree");
    let preopt = llvm_dis(&t.path("rld/argmem.0.0.preopt.bc"));
    let fill = function_attributes(&preopt, "fill_through");
    assert!(
        fill.contains("memory(argmem: readwrite, inaccessiblemem"),
        "{fill}"
    );
    let count = function_attributes(&preopt, "count_through");
    assert!(!count.contains("memory("), "{count}");
}

/// An indirect call with a known, complete set of targets carries what all of them say
/// (`cases/alias/call_attrs.c`: every setter writes only through its argument and keeps
/// no copy): `x`, whose address only that call is given, is then not captured, and LLVM
/// does not read it again after a call to code outside LTO. Without the attributes (no
/// called-value propagation, so no known targets) it does. Both links without rld's alias
/// metadata, which would tell LLVM the same through scopes.
#[test]
fn indirect_calls_carry_their_targets_attributes() {
    if is_standin() {
        eprintln!("skipped: the attributes and their remarks are rld's own");
        return;
    }
    let t = Test::new();
    let objs = [
        t.compile(Clang, "alias/call_attrs.c", &["-flto", "-O2"]),
        t.compile(Clang, "alias/call_attrs_opaque.c", &["-O2"]),
    ];
    let objs: Vec<&Path> = objs.iter().map(PathBuf::as_path).collect();
    let lld = t.link(
        Driver::ClangLld,
        &objs,
        &strs(&lto_flags(None, &[])),
        "lld/call_attrs",
    );
    // The loads of `twice`'s local after linking with `extra`.
    let loads = |out: &str, extra: &[&str]| -> (usize, Vec<rld_tests::llvm_remarks::Remark>) {
        let flags = [
            "-Wl,--save-temps",
            "-Wl,--no-wpa-aa-metadata",
            "-Wl,--opt-remarks-passes=cvp",
        ];
        let flags = [&flags[..], extra].concat();
        let (_, yaml) = link_lto_like_lld(&t, &objs, &lld, out, &flags, &[], Some("4 6 2\n"));
        let ir = llvm_dis(&t.path(&format!("{out}.0.4.opt.bc")));
        let body = ir_function(&ir, "twice");
        assert!(!body.is_empty(), "twice in the optimized IR");
        let n = body
            .iter()
            .filter(|l| l.contains("= load i32, ptr %"))
            .count();
        let remarks = if yaml.exists() {
            remarks(&yaml)
        } else {
            Vec::new()
        };
        (n, remarks)
    };
    let (with, remarks) = loads("rld/call_attrs", &[]);
    assert_eq!(
        with, 1,
        "x read again after opaque() with the call's attributes"
    );
    let site = remarks
        .iter()
        .find(|r| r.pass == "cvp" && r.name == "callees" && r.function == "twice")
        .expect("a callees remark for twice's call");
    let attributes = site
        .args
        .iter()
        .find(|a| a.0 == "Attributes")
        .map(|a| a.1.as_str());
    assert_eq!(
        attributes,
        Some("memory(argmem: write) 0:captures(none) 0:writeonly")
    );
    let (without, _) = loads("nocvp/call_attrs", &["-Wl,--no-cvp"]);
    assert_eq!(
        without, 2,
        "x not read again without the attributes: the test shows nothing"
    );
}

/// The attribute group line of `function`'s definition in disassembled IR.
fn function_attributes(ir: &str, function: &str) -> String {
    let define = ir_function(ir, function)
        .first()
        .copied()
        .unwrap_or_else(|| panic!("{function} in the IR"));
    let group = define
        .split_whitespace()
        .find_map(|w| w.strip_prefix('#'))
        .expect("an attribute group");
    ir.lines()
        .find(|l| l.starts_with(&format!("attributes #{group} ")))
        .unwrap_or_default()
        .to_string()
}

/// Memory only the callees touch (a block one allocates and another reads, a local one
/// fills and another reads) is named by no access of the caller: the calls must still
/// share a scope, or LLVM drops the first call's stores (ALAC, McCat 08-main).
#[test]
fn calls_touching_what_the_caller_never_names_may_alias() {
    let t = Test::new();
    for (name, expected) in [("callee_local", "11 9\n"), ("callee_heap", "3 2\n")] {
        let objs = [
            t.compile(Clang, &format!("alias/{name}.c"), &["-flto", "-O2"]),
            t.compile(Clang, &format!("alias/{name}_lib.c"), &["-flto", "-O2"]),
        ];
        let objs: Vec<&Path> = objs.iter().map(PathBuf::as_path).collect();
        let lld = t.link(
            Driver::ClangLld,
            &objs,
            &strs(&lto_flags(None, &[])),
            &format!("lld/{name}"),
        );
        let rld = t.link(
            Driver::ClangRld,
            &objs,
            &strs(&lto_flags(None, &[])),
            &format!("rld/{name}"),
        );
        assert_same_output(&rld, &lld, &[], &[], Some(expected));
    }
}
