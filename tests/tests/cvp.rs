//! Whole-program called-value propagation (CVP): C programs compiled by
//! `clang-22 -flto -O2 -g` (sources in `cases/cvp/`), linked by rld with
//! `--opt-remarks-filename`, run and compared with the same bitcode linked by
//! lld-22 (`-fuse-ld=lld -flto`).
//!
//! In every program the function pointer is produced in one translation unit
//! and called in another, so only the linker's whole-program view can resolve
//! the call; each test first checks that the call really is still indirect in
//! the bitcode (`llvm-dis-22`), so it cannot pass vacuously.
//!
//! The call sites are marked in the sources with a `/* site:NAME */` comment on
//! their line; rld's remarks are read with LLVM's own YAML remark parser
//! (`cases/lto/remarks_dump.c`) and matched to the site by their `DebugLoc`.
//! Callees are compared in any order (a name appears twice only for two
//! static functions of that name). What rld writes (see
//! `driver/src/remarks.rs`, `call_remarks`), one remark per indirect call
//! site of live code:
//!
//! - `Passed cvp promoted`: at most `--icp-max-targets` (default 2) callees;
//!   the call became guarded direct calls;
//! - `Passed cvp callees`: more than that, at most `--cvp-max-targets`
//!   (default 4);
//! - `Missed cvp unresolved` with a `Reason`: the set is unknown or too large.
//!
//! The `pointer*_copied_*`, `*_stored_as_integer` and `*_byte_by_byte` tests
//! move function pointers through memory as integers, vectors or bytes (as
//! clang -O2 compiles struct assignments, field copies and generic swaps): the
//! program must still behave, and rld must either give up on the site or name
//! the function really called there.
//!
//! With `RLD_IS_STANDIN=1` (lld behind a script) only the programs' behaviour
//! is checked: the remarks and options are rld's own.

use rld_tests::llvm_remarks::{remarks, Remark};
use rld_tests::Compiler::Clang;
use rld_tests::*;
use std::path::{Path, PathBuf};
use std::process::Command;

// ---------------------------------------------------------------------------
// Building and linking

/// Compiles `srcs` (under `cases/cvp/`, or absolute) to bitcode with
/// `clang-22 -flto -O2 -g` plus `extra`.
fn bitcode(t: &Test, srcs: &[&str], extra: &[&str]) -> Vec<PathBuf> {
    let flags = [&["-flto", "-O2", "-g"], extra].concat();
    srcs.iter()
        .map(|s| {
            let src = if Path::new(s).is_absolute() {
                s.to_string()
            } else {
                format!("cvp/{s}")
            };
            let obj = t.compile(Clang, &src, &flags);
            assert!(
                std::fs::read(&obj).unwrap().starts_with(b"BC\xC0\xDE"),
                "{} is not LLVM bitcode",
                obj.display()
            );
            obj
        })
        .collect()
}

/// Builds `cases/cvp/<src>` into a native shared library `lib/<soname>` with
/// lld, and returns the link flags that use it (`-L`, `-l`, `-rpath`).
fn shared_lib(t: &Test, src: &str, soname: &str) -> Vec<String> {
    let obj = t.compile(Clang, &format!("cvp/{src}"), &["-O2", "-fPIC"]);
    let so = t.link(
        Driver::ClangLld,
        &[&obj],
        &["-shared", &format!("-Wl,-soname,{soname}")],
        &format!("lib/{soname}"),
    );
    let dir = so.parent().unwrap().display().to_string();
    let name = soname
        .strip_prefix("lib")
        .and_then(|n| n.strip_suffix(".so"))
        .unwrap();
    vec![
        format!("-L{dir}"),
        format!("-l{name}"),
        format!("-Wl,-rpath,{dir}"),
    ]
}

/// What one LTO link through rld produced.
struct LtoLink {
    exe: PathBuf,
    remarks: Vec<Remark>,
}

/// Links `objs` with LTO through lld (`lld/<out>`) and rld (`rld/<out>`, with
/// remarks), runs both with `args` and requires the same behaviour and
/// `expected` on stdout. Returns rld's output and remarks.
fn link_and_compare(
    t: &Test,
    objs: &[&Path],
    flags: &[&str],
    args: &[&str],
    expected: &str,
) -> LtoLink {
    let lld = t.link(
        Driver::ClangLld,
        objs,
        &strs(&lto_flags(None, flags)),
        "lld/prog",
    );
    rld_link(t, objs, flags, "rld/prog", &lld, args, expected)
}

/// Links `objs` with LTO through rld into `out` (remarks in `<out>.yaml`) and
/// requires it to behave like the reference `lld` (run with `args`), printing
/// `expected`.
fn rld_link(
    t: &Test,
    objs: &[&Path],
    flags: &[&str],
    out: &str,
    lld: &Path,
    args: &[&str],
    expected: &str,
) -> LtoLink {
    let (exe, yaml) = link_lto_like_lld(t, objs, lld, out, flags, args, Some(expected));
    LtoLink {
        remarks: remarks(&yaml),
        exe,
    }
}

// ---------------------------------------------------------------------------
// The bitcode: the calls must still be indirect before the link

/// The lines of `function`'s definition in `obj`'s disassembly.
fn function_body(obj: &Path, function: &str) -> Vec<String> {
    let ir = llvm_dis(obj);
    let lines = ir_function(&ir, function);
    assert!(
        !lines.is_empty(),
        "no definition of {function} in {}",
        obj.display()
    );
    lines.into_iter().map(str::to_string).collect()
}

/// Whether an IR line is a call through a register (`call i32 %5(i32 1)`), as
/// opposed to a direct call (`call i32 @f(i32 1)`, `call i32 (i8*, ...) @printf(`).
fn is_indirect_call(line: &str) -> bool {
    let mut words = line.split_whitespace();
    if !words.any(|w| w == "call" || w == "invoke") {
        return false;
    }
    // The callee is the first operand naming a value and followed by its arguments.
    words
        .find(|w| (w.starts_with('%') || w.starts_with('@')) && w.contains('('))
        .is_some_and(|w| w.starts_with('%'))
}

/// The number of indirect calls in `function` of the bitcode `obj`; asserts
/// there is at least one.
fn indirect_calls(obj: &Path, function: &str) -> usize {
    let body = function_body(obj, function);
    let n = body.iter().filter(|l| is_indirect_call(l)).count();
    assert!(
        n > 0,
        "clang resolved the call before the link: no indirect call in {function} of {}:\n{}",
        obj.display(),
        body.join("\n")
    );
    n
}

// ---------------------------------------------------------------------------
// Remarks, through LLVM's parser

/// The remarks of the cvp pass.
fn cvp_remarks(remarks: &[Remark]) -> Vec<&Remark> {
    remarks.iter().filter(|r| r.pass == "cvp").collect()
}

// ---------------------------------------------------------------------------
// Call sites and what rld must say about them

/// A call site marked `/* site:NAME */` in a source file.
#[derive(Debug, Clone)]
struct Site {
    /// The source's file name (`global_main.c`).
    file: String,
    line: u32,
    marker: String,
}

/// The site marked `/* site:<name> */` in `cases/cvp/<src>` (or the line of an
/// absolute path's source containing `name`, for sources without markers).
fn site(src: &str, name: &str) -> Site {
    let path = if Path::new(src).is_absolute() {
        PathBuf::from(src)
    } else {
        cases_dir().join("cvp").join(src)
    };
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let marker = if Path::new(src).is_absolute() {
        name.to_string()
    } else {
        format!("/* site:{name} */")
    };
    let lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(&marker))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "{marker:?} must be on exactly one line of {}",
        path.display()
    );
    Site {
        file: path.file_name().unwrap().to_string_lossy().into_owned(),
        line: lines[0] as u32,
        marker,
    }
}

/// What rld must report at a site.
#[derive(Debug, Clone, Copy)]
enum Want<'a> {
    /// `Passed promoted` with exactly these callees.
    Promoted(&'a [&'a str]),
    /// `Passed callees` with exactly these callees.
    Callees(&'a [&'a str]),
    /// `Missed unresolved` with a reason.
    Unresolved,
}

/// The cvp remarks whose DebugLoc is `site`.
fn remarks_at<'a>(remarks: &'a [Remark], site: &Site) -> Vec<&'a Remark> {
    cvp_remarks(remarks)
        .into_iter()
        .filter(|r| {
            r.debug_loc.as_ref().is_some_and(|l| {
                l.line == site.line
                    && Path::new(&l.file)
                        .file_name()
                        .is_some_and(|f| f.to_string_lossy() == site.file)
            })
        })
        .collect()
}

/// Every cvp remark at `site` (at least one: clang may have unrolled a loop
/// into several calls on that line) is in `caller` and says `want`.
fn assert_site(link: &LtoLink, site: &Site, caller: &str, want: Want) {
    if is_standin() {
        return;
    }
    let at = remarks_at(&link.remarks, site);
    let all = || format!("all cvp remarks: {:#?}", cvp_remarks(&link.remarks));
    assert!(
        !at.is_empty(),
        "no cvp remark at {}:{} ({}); {}",
        site.file,
        site.line,
        site.marker,
        all()
    );
    for r in at {
        assert_remark(r, caller, want, &format!("{}:{}", site.file, site.line));
    }
}

/// `r` is a cvp remark about a site in `caller` that says `want`.
fn assert_remark(r: &Remark, caller: &str, want: Want, where_: &str) {
    assert_eq!(r.function, caller, "the caller at {where_}: {r:#?}");
    let (kind, name, callees) = match want {
        Want::Promoted(c) => ("Passed", "promoted", Some(c)),
        Want::Callees(c) => ("Passed", "callees", Some(c)),
        Want::Unresolved => ("Missed", "unresolved", None),
    };
    assert_eq!(
        (r.kind.as_str(), r.name.as_str()),
        (kind, name),
        "wrong remark at {where_} (want {want:?}): {r:#?}"
    );
    assert!(
        r.arg("String").is_some_and(|s| !s.is_empty()),
        "no message at {where_}: {r:#?}"
    );
    match callees {
        Some(c) => {
            // In any order; a name twice only for two functions of that name.
            let mut want_list: Vec<String> = c.iter().map(|s| s.to_string()).collect();
            want_list.sort();
            let mut got: Vec<String> = r
                .args
                .iter()
                .filter(|(k, _, _)| k == "Callee")
                .map(|(_, v, _)| v.clone())
                .collect();
            got.sort();
            assert_eq!(got, want_list, "wrong callee set at {where_}: {r:#?}");
        }
        None => {
            assert!(
                r.arg("Reason").is_some_and(|s| !s.trim().is_empty()),
                "an unresolved remark without a reason at {where_}: {r:#?}"
            );
            assert!(r.callees().is_empty(), "{r:#?}");
        }
    }
}

/// One cvp remark per indirect call of `caller` in its bitcode `obj`, and no
/// more: every site of live code is reported.
fn assert_every_site_reported(link: &LtoLink, obj: &Path, caller: &str) {
    let calls = indirect_calls(obj, caller);
    if is_standin() {
        return;
    }
    let reported = cvp_remarks(&link.remarks)
        .into_iter()
        .filter(|r| r.function == caller)
        .count();
    assert_eq!(
        reported,
        calls,
        "{caller} has {calls} indirect calls in {}, but {reported} cvp remarks: {:#?}",
        obj.display(),
        cvp_remarks(&link.remarks)
    );
}

// ---------------------------------------------------------------------------
// Where a function pointer comes from

#[test]
fn through_global_variable() {
    let t = Test::new();
    let objs = bitcode(&t, &["global_main.c", "global_def.c"], &[]);
    let link = link_and_compare(&t, &paths(&objs), &[], &[], "fp(10) = 20\nfp(10) = 11\n");
    assert_every_site_reported(&link, &objs[0], "main");
    let s = site("global_main.c", "global");
    assert_site(&link, &s, "main", Want::Promoted(&["f1", "f2"]));
}

#[test]
fn through_struct_fields() {
    let t = Test::new();
    let objs = bitcode(&t, &["struct_main.c", "struct_def.c"], &[]);
    let link = link_and_compare(
        &t,
        &paths(&objs),
        &[],
        &[],
        "mode 0: first 100 second 0\nmode 1: first 201 second 3\n\
         mode 2: first 202 second 14\nmode 6: first 203 second 15\n",
    );
    assert_every_site_reported(&link, &objs[0], "main");
    // `first` at offset 0: the initializer's a0 and the stored a1; `second` at
    // offset 8: b0, b1 and b2. Mixing the fields would give 5 (> 4) callees.
    let first = site("struct_main.c", "first");
    assert_site(&link, &first, "main", Want::Promoted(&["a0", "a1"]));
    let second = site("struct_main.c", "second");
    assert_site(&link, &second, "main", Want::Callees(&["b0", "b1", "b2"]));
}

/// With the program split into LTO partitions, a call whose callees are defined in a
/// module the caller's partition does not load (its code never names them; only
/// called-value propagation does) is still promoted: the partition declares them.
#[test]
fn promoted_across_partitions() {
    let t = Test::new();
    let objs = bitcode(&t, &["across_main.c", "across_steps.c"], &[]);
    let link = link_and_compare(&t, &paths(&objs), &["-Wl,--lto-partitions=2"], &[], "137\n");
    let across = site("across_main.c", "across");
    assert_site(
        &link,
        &across,
        "main",
        Want::Promoted(&["step_up", "step_down"]),
    );
}

/// A table's address turned into numbers that only get compared, masked or subtracted
/// (an alignment test, a range check, a field's offset) lets nothing escape, and a
/// pointer to a table element in a constant initializer is followed: both calls are
/// promoted. Kept in memory as a number, the address may become a pointer anywhere:
/// the table escapes and its call stays unresolved.
#[test]
fn addresses_used_as_numbers() {
    let t = Test::new();
    let objs = bitcode(&t, &["address_main.c", "address_def.c"], &[]);
    let link = link_and_compare(&t, &paths(&objs), &[], &[], "43 8 halve 21\n");
    assert_every_site_reported(&link, &objs[0], "main");
    let aligned = site("address_main.c", "aligned");
    assert_site(&link, &aligned, "main", Want::Promoted(&["bump"]));
    let interior = site("address_main.c", "interior");
    assert_site(
        &link,
        &interior,
        "main",
        Want::Promoted(&["twice", "halve"]),
    );

    let kept = bitcode(&t, &["address_kept.c", "address_def.c"], &[]);
    let lld = t.link(
        Driver::ClangLld,
        &paths(&kept),
        &strs(&lto_flags(None, &[])),
        "lld/kept",
    );
    let link = rld_link(
        &t,
        &paths(&kept),
        &[],
        "rld/kept",
        &lld,
        &[],
        "43 8 halve 21\n",
    );
    assert_site(&link, &aligned, "main", Want::Unresolved);
}

/// Function pointers in a malloc'd table and in a stack table, each a different
/// object of the points-to analysis: every site gets its own field's function. With
/// `--no-wpa-aa` (global variables only) the same sites stay unresolved.
#[test]
fn through_heap_and_stack_objects() {
    let t = Test::new();
    let objs = bitcode(&t, &["memory_main.c", "memory_def.c"], &[]);
    let link = link_and_compare(&t, &paths(&objs), &[], &[], "42 43 40\n");
    assert_every_site_reported(&link, &objs[0], "main");
    assert_site(
        &link,
        &site("memory_main.c", "heap"),
        "main",
        Want::Promoted(&["twice"]),
    );
    assert_site(
        &link,
        &site("memory_main.c", "stack"),
        "main",
        Want::Promoted(&["plus"]),
    );
    let other = site("memory_main.c", "heap_other");
    assert_site(&link, &other, "main", Want::Promoted(&["minus"]));
    let lld = t.path("lld/prog");
    let without = rld_link(
        &t,
        &paths(&objs),
        &["-Wl,--no-wpa-aa"],
        "no-aa/prog",
        &lld,
        &[],
        "42 43 40\n",
    );
    for name in ["heap", "stack", "heap_other"] {
        assert_site(
            &without,
            &site("memory_main.c", name),
            "main",
            Want::Unresolved,
        );
    }
}

const TABLE_OUT: &str = "6 12 -12 -11 -12 -24 24 25 24 48 \n";
const TABLE_CALLEES: &[&str] = &["t_inc", "t_dec", "t_dbl", "t_neg"];

#[test]
fn through_constant_table() {
    let t = Test::new();
    let objs = bitcode(&t, &["table_main.c", "table_def.c"], &[]);
    let link = link_and_compare(&t, &paths(&objs), &[], &[], TABLE_OUT);
    assert_every_site_reported(&link, &objs[0], "main");
    let s = site("table_main.c", "table");
    assert_site(&link, &s, "main", Want::Callees(TABLE_CALLEES));
}

#[test]
fn through_argument() {
    let t = Test::new();
    let objs = bitcode(&t, &["arg_main.c", "arg_other.c", "arg_apply.c"], &[]);
    let link = link_and_compare(
        &t,
        &paths(&objs),
        &[],
        &[],
        "apply(g1, 4) = 41\nother(4) = -10\n",
    );
    assert_every_site_reported(&link, &objs[2], "apply");
    let s = site("arg_apply.c", "apply");
    assert_site(&link, &s, "apply", Want::Promoted(&["g1", "g2"]));
}

#[test]
fn through_return_value() {
    let t = Test::new();
    let objs = bitcode(&t, &["ret_main.c", "ret_pick.c"], &[]);
    let link = link_and_compare(
        &t,
        &paths(&objs),
        &[],
        &[],
        "pick(0)(3) = 39\npick(1)(3) = 14\n",
    );
    assert_every_site_reported(&link, &objs[0], "main");
    let s = site("ret_main.c", "ret");
    assert_site(&link, &s, "main", Want::Promoted(&["h1", "h2"]));
}

#[test]
fn through_select() {
    let t = Test::new();
    let objs = bitcode(&t, &["select_main.c", "select_fns.c"], &[]);
    let body = function_body(&objs[0], "run");
    assert!(
        body.iter().any(|l| l.contains(" select ")),
        "no select in run:\n{}",
        body.join("\n")
    );
    let link = link_and_compare(&t, &paths(&objs), &[], &[], "-995 1005\n");
    assert_every_site_reported(&link, &objs[0], "run");
    let s = site("select_main.c", "select");
    assert_site(&link, &s, "run", Want::Promoted(&["sel_a", "sel_b"]));
}

#[test]
fn through_indirect_call_result() {
    // getter() may be get1 or get2; what it returns, r1 or (from get2) r2, r3.
    let t = Test::new();
    let objs = bitcode(&t, &["getter_main.c", "getter_def.c"], &[]);
    let link = link_and_compare(&t, &paths(&objs), &[], &[], "31\n11\n21\n");
    assert_every_site_reported(&link, &objs[0], "main");
    let s = site("getter_main.c", "getter");
    assert_site(&link, &s, "main", Want::Promoted(&["get1", "get2"]));
    let s = site("getter_main.c", "got");
    assert_site(&link, &s, "main", Want::Callees(&["r1", "r2", "r3"]));
}

#[test]
fn same_named_static_functions() {
    // Two static `helper`s: promotion names each by its own module (rld renames
    // local targets for linking); calling the wrong one shows in the output.
    let t = Test::new();
    let objs = bitcode(
        &t,
        &["samename_main.c", "samename_a.c", "samename_b.c"],
        &[],
    );
    let link = link_and_compare(&t, &paths(&objs), &[], &[], "201\n101\n");
    assert_every_site_reported(&link, &objs[0], "call_chosen");
    let s = site("samename_main.c", "chosen");
    assert_site(
        &link,
        &s,
        "call_chosen",
        Want::Promoted(&["helper", "helper"]),
    );
    // The output's symbol table shows each `helper` by its source name, as lld's does,
    // though rld renamed them for linking.
    let local_functions = |exe: &Path| {
        let mut names: Vec<String> = symbols(exe)
            .into_iter()
            .filter(|s| s.table == ".symtab" && s.typ == "FUNC" && s.bind == "LOCAL")
            .map(|s| s.name)
            .collect();
        names.sort();
        names
    };
    let ours = local_functions(&link.exe);
    assert_eq!(
        ours.iter().filter(|n| n.as_str() == "helper").count(),
        2,
        "{ours:?}"
    );
    if !is_standin() {
        assert!(!ours.iter().any(|n| n.contains(".rld.")), "{ours:?}");
    }
}

#[test]
fn target_outside_the_lto_unit() {
    // libc's puts is a possible callee like any other; promotion calls it directly.
    let t = Test::new();
    let objs = bitcode(&t, &["extern_target_main.c", "extern_target_def.c"], &[]);
    let link = link_and_compare(&t, &paths(&objs), &[], &[], "[hello]\nhello\n");
    assert_every_site_reported(&link, &objs[0], "main");
    let s = site("extern_target_main.c", "puts");
    assert_site(&link, &s, "main", Want::Promoted(&["my_puts", "puts"]));
}

// ---------------------------------------------------------------------------
// What must stay unresolved

#[test]
fn escaping_pointer_stays_unresolved() {
    // esc_fp's address goes to a shared library, which overwrites it: a
    // promotion to esc_a (its only value inside the program) would print 5.
    let t = Test::new();
    let lib = shared_lib(&t, "escape_lib.c", "libescape.so");
    let objs = bitcode(&t, &["escape_main.c", "escape_def.c"], &[]);
    let link = link_and_compare(&t, &paths(&objs), &strs(&lib), &[], "esc_fp(4) = 4000\n");
    assert_every_site_reported(&link, &objs[0], "main");
    let s = site("escape_main.c", "escaped");
    assert_site(&link, &s, "main", Want::Unresolved);
}

#[test]
fn pointers_from_outside_stay_unresolved() {
    // Returned by a shared library, written by one into a local table that
    // held ctl_a before, found by dlsym: unresolved. A pointer only the
    // program writes, in the same function, is resolved.
    let t = Test::new();
    let lib = shared_lib(&t, "external_lib.c", "libexternal.so");
    let objs = bitcode(&t, &["external_main.c", "external_def.c"], &[]);
    let link = link_and_compare(
        &t,
        &paths(&objs),
        &strs(&lib),
        &[],
        "returned(5) = 15\nfilled(5) = -5\ndlsym(5) = 25\ncontrol(5) = 12\n",
    );
    assert_every_site_reported(&link, &objs[0], "main");
    for name in ["returned", "filled", "dlsym"] {
        let s = site("external_main.c", name);
        assert_site(&link, &s, "main", Want::Unresolved);
    }
    let s = site("external_main.c", "control");
    assert_site(&link, &s, "main", Want::Promoted(&["ctl_a", "ctl_b"]));
}

#[test]
fn pointer_written_by_native_object_stays_unresolved() {
    // nfp is defined in bitcode and overwritten by an ordinary object.
    let t = Test::new();
    let objs = bitcode(&t, &["native_main.c", "native_def.c"], &[]);
    let native = t.compile(Clang, "cvp/native_writer.c", &["-O2"]);
    let link = link_and_compare(
        &t,
        &[&objs[0], &objs[1], &native],
        &[],
        &[],
        "nfp(2) = 154\n",
    );
    assert_every_site_reported(&link, &objs[0], "main");
    let s = site("native_main.c", "native");
    assert_site(&link, &s, "main", Want::Unresolved);
}

#[test]
fn parameter_of_function_called_from_shared_library_stays_unresolved() {
    // visit() is called with v1 inside the program and with lib_fn by a shared
    // library: its parameter is not {v1}.
    let t = Test::new();
    let lib = shared_lib(&t, "visit_lib.c", "libvisit.so");
    let objs = bitcode(&t, &["visit_main.c", "visit_def.c"], &[]);
    let link = link_and_compare(
        &t,
        &paths(&objs),
        &strs(&lib),
        &[],
        "visit(v1, 1) = 7\nlib_drive(2) = 2001\n",
    );
    assert_every_site_reported(&link, &objs[1], "visit");
    let s = site("visit_def.c", "visit");
    assert_site(&link, &s, "visit", Want::Unresolved);
}

#[test]
fn parameter_of_escaped_callback_stays_unresolved() {
    // on_item is called with v1 inside the program, and its address is passed
    // to a shared library that calls it with lib_fn.
    let t = Test::new();
    let lib = shared_lib(&t, "callback_lib.c", "libcallback.so");
    let objs = bitcode(&t, &["callback_main.c", "callback_on.c"], &[]);
    let link = link_and_compare(
        &t,
        &paths(&objs),
        &strs(&lib),
        &[],
        "on_item(v1, 1) = 7\neach(on_item, 2) = 2001\n",
    );
    assert_every_site_reported(&link, &objs[1], "on_item");
    let s = site("callback_on.c", "on_item");
    assert_site(&link, &s, "on_item", Want::Unresolved);
}

// ---------------------------------------------------------------------------
// Copies the analysis must follow (or give up on)

/// At `site`, rld either gave up (unresolved) or names at least `needed` (the
/// functions the program really calls there), in `caller`.
fn assert_sound(link: &LtoLink, site: &Site, caller: &str, needed: &[&str]) {
    if is_standin() {
        return;
    }
    let at = remarks_at(&link.remarks, site);
    assert!(!at.is_empty(), "no cvp remark at {site:?}");
    for r in at {
        assert_eq!(r.function, caller, "{r:#?}");
        if r.name == "unresolved" {
            continue;
        }
        let got = r.callees();
        for n in needed {
            assert!(
                got.contains(*n),
                "{}:{} calls {n} at run time, but rld says it can only call {got:?}: {r:#?}",
                site.file,
                site.line
            );
        }
    }
}

#[test]
fn pointer_copied_as_integer() {
    // `*dst = *src` on a struct of one function pointer is an i64 load and
    // store: to.fn becomes w1 at run time, not only its initial w2.
    let t = Test::new();
    let objs = bitcode(&t, &["copy_assign_main.c", "copy_def.c", "copy_fns.c"], &[]);
    let body = function_body(&objs[2], "assign").join("\n");
    assert!(
        body.contains("load i64") && body.contains("store i64"),
        "assign no longer copies through i64:\n{body}"
    );
    let link = link_and_compare(&t, &paths(&objs), &[], &[], "to.fn(10) = 11\n");
    assert_every_site_reported(&link, &objs[0], "main");
    let s = site("copy_assign_main.c", "assigned");
    assert_sound(&link, &s, "main", &["w1"]);
}

#[test]
fn pointer_stored_as_integer() {
    // stash() stores u1 into slot as a uintptr_t (ptrtoint, i64 store); slot's
    // initializer is u2.
    let t = Test::new();
    let objs = bitcode(
        &t,
        &["intstore_main.c", "intstore_def.c", "intstore_stash.c"],
        &[],
    );
    let body = function_body(&objs[2], "stash").join("\n");
    assert!(
        body.contains("ptrtoint") && body.contains("store i64"),
        "stash no longer stores an integer:\n{body}"
    );
    let link = link_and_compare(&t, &paths(&objs), &[], &[], "slot(10) = 11\n");
    assert_every_site_reported(&link, &objs[0], "main");
    let s = site("intstore_main.c", "stashed");
    assert_sound(&link, &s, "main", &["u1"]);
}

/// Links a program whose function pointers are copied by `copier` (in `srcs[2]`) in a form
/// CVP cannot follow as pointers — the copier's IR must still contain every one of
/// `patterns`, or the test no longer tests that — and requires each `(site label, possible
/// callees)` in `main` of `srcs[0]` to be reported soundly.
fn check_copied_pointers(
    srcs: [&str; 3],
    copier: &str,
    patterns: &[&str],
    expected: &str,
    sites: &[(&str, &[&str])],
) {
    let t = Test::new();
    let objs = bitcode(&t, &srcs, &[]);
    let body = function_body(&objs[2], copier).join("\n");
    for p in patterns {
        assert!(body.contains(p), "{copier} no longer contains {p}:\n{body}");
    }
    let link = link_and_compare(&t, &paths(&objs), &[], &[], expected);
    assert_every_site_reported(&link, &objs[0], "main");
    for (label, callees) in sites {
        assert_sound(&link, &site(srcs[0], label), "main", callees);
    }
}

#[test]
fn pointers_copied_as_vector() {
    // Two field copies merged by the SLP vectorizer into one load and store of
    // <2 x ptr>: dst_pair becomes {w1, w3}.
    check_copied_pointers(
        ["copy_pair_main.c", "copy_def.c", "copy_fns.c"],
        "copy_pair",
        &["load <2 x ptr>"],
        "first(10) = 11, second(10) = 13\n",
        &[("pair_first", &["w1"]), ("pair_second", &["w3"])],
    );
}

#[test]
fn pointers_copied_as_integer_vector() {
    // Two uintptr_t copies merged into one <2 x i64> load and store:
    // dst_pair becomes {w1, w3}.
    check_copied_pointers(
        ["vector_int_main.c", "copy_def.c", "vector_int_copy.c"],
        "copy_words",
        &["load <2 x i64>", "store <2 x i64>"],
        "first(10) = 11, second(10) = 13\n",
        &[("words_first", &["w1"]), ("words_second", &["w3"])],
    );
}

#[test]
fn pointers_swapped_byte_by_byte() {
    // A generic byte-wise swap (vectorized to <16 x i8>, with an i8 loop for
    // the rest) exchanges slot_a (w1) and slot_b (w3).
    check_copied_pointers(
        ["bytes_main.c", "bytes_def.c", "bytes_swap.c"],
        "swap_bytes",
        &["load i8", "store i8"],
        "slot_a(10) = 13, slot_b(10) = 11\n",
        &[("swapped_a", &["w3"]), ("swapped_b", &["w1"])],
    );
}

// ---------------------------------------------------------------------------
// Options

#[test]
fn options_change_the_table_site() {
    if is_standin() {
        eprintln!("skipped: --cvp-max-targets, --icp-max-targets and --no-cvp are rld's own");
        return;
    }
    let t = Test::new();
    let objs = bitcode(&t, &["table_main.c", "table_def.c"], &[]);
    let objs = paths(&objs);
    let lld = t.link(
        Driver::ClangLld,
        &objs,
        &strs(&lto_flags(None, &[])),
        "lld/prog",
    );
    let s = site("table_main.c", "table");

    let link = rld_link(
        &t,
        &objs,
        &["-Wl,--cvp-max-targets=2"],
        "max2/prog",
        &lld,
        &[],
        TABLE_OUT,
    );
    assert_site(&link, &s, "main", Want::Unresolved);

    let link = rld_link(
        &t,
        &objs,
        &["-Wl,--icp-max-targets=4"],
        "icp4/prog",
        &lld,
        &[],
        TABLE_OUT,
    );
    assert_site(&link, &s, "main", Want::Promoted(TABLE_CALLEES));

    let link = rld_link(
        &t,
        &objs,
        &["-Wl,--no-cvp"],
        "nocvp/prog",
        &lld,
        &[],
        TABLE_OUT,
    );
    assert!(
        cvp_remarks(&link.remarks).is_empty(),
        "--no-cvp still wrote cvp remarks: {:#?}",
        cvp_remarks(&link.remarks)
    );
    assert!(
        link.remarks.iter().any(|r| r.pass == "lto"),
        "--no-cvp lost the lto remarks: {:#?}",
        link.remarks
    );

    // Without a filter both passes' remarks are written; `cvp` keeps only its own.
    let link = rld_link(&t, &objs, &[], "all/prog", &lld, &[], TABLE_OUT);
    assert!(
        link.remarks.iter().any(|r| r.pass == "lto"),
        "{:#?}",
        link.remarks
    );
    assert!(
        !cvp_remarks(&link.remarks).is_empty(),
        "{:#?}",
        link.remarks
    );
    let link = rld_link(
        &t,
        &objs,
        &["-Wl,--opt-remarks-passes,cvp"],
        "filtered/prog",
        &lld,
        &[],
        TABLE_OUT,
    );
    assert!(
        !link.remarks.is_empty() && link.remarks.iter().all(|r| r.pass == "cvp"),
        "--opt-remarks-passes cvp: {:#?}",
        link.remarks
    );
    assert_site(&link, &s, "main", Want::Callees(TABLE_CALLEES));
}

#[test]
fn time_reports_called_value_propagation() {
    if is_standin() {
        eprintln!("skipped: --time's phases are rld's own");
        return;
    }
    let t = Test::new();
    let objs = bitcode(&t, &["table_main.c", "table_def.c"], &[]);
    let (res, cmd) = t.try_link(
        Driver::ClangRld,
        &paths(&objs),
        &strs(&lto_flags(None, &["-Wl,--time"])),
        "prog",
    );
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(
        res.status.success(),
        "the link failed\n  command: {cmd}\n--- stderr ---\n{stderr}"
    );
    assert!(
        stderr
            .lines()
            .any(|l| l.contains("called-value propagation")),
        "no called-value propagation line in --time's output\n  command: {cmd}\n--- stderr ---\n{stderr}"
    );
    let exe = t.path("prog");
    assert_output_is(&exe, &run(&exe, &[], &[]), TABLE_OUT, "the --time build");
}

// ---------------------------------------------------------------------------
// The interpreter benchmark

#[test]
fn vm_benchmark_step_is_promoted() {
    let t = Test::new();
    let dir = workspace_dir().join("bench/programs");
    let main_c = dir.join("vm_main.c").display().to_string();
    let ops_c = dir.join("vm_ops.c").display().to_string();
    let objs = bitcode(&t, &[&main_c, &ops_c], &[]);
    // `run` is static and inlined into main before the link.
    let caller = if function_body_exists(&objs[0], "run") {
        "run"
    } else {
        "main"
    };
    let lld = t.link(
        Driver::ClangLld,
        &paths(&objs),
        &strs(&lto_flags(None, &[])),
        "lld/vm",
    );
    let link = rld_link(
        &t,
        &paths(&objs),
        &[],
        "rld/vm",
        &lld,
        &[],
        "2503581624077074480 2000000\n",
    );
    for (args, out) in [
        (&["100"][..], "-2618527931784378264 200000\n"),
        (&["100", "checked"][..], "-3879261594685368024 200000\n"),
    ] {
        assert_same_output(&link.exe, &lld, args, &[], Some(out));
    }
    assert_every_site_reported(&link, &objs[0], caller);
    let step = site(&main_c, "the_vm.step(");
    assert_site(
        &link,
        &step,
        caller,
        Want::Promoted(&["step_fast", "step_checked"]),
    );
    let handlers = ["op_add", "op_sub", "op_mul", "op_xor"];
    for f in ["step_fast", "step_checked"] {
        assert_every_site_reported(&link, &objs[1], f);
        let dispatch = cvp_remarks(&link.remarks)
            .into_iter()
            .filter(|r| r.function == f)
            .collect::<Vec<_>>();
        for r in dispatch {
            assert_remark(r, f, Want::Callees(&handlers), f);
        }
    }
}

/// Whether `obj` defines `function`.
fn function_body_exists(obj: &Path, function: &str) -> bool {
    let out = run_checked(Command::new("llvm-dis-22").arg(obj).arg("-o").arg("-"));
    let head = format!("@{function}(");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|l| l.starts_with("define ") && l.contains(&head))
}

/// A summary that does not describe the bitcode (a stale or damaged cache entry) must not
/// redirect a call: rld checks the caller's instruction count and opcodes before it uses a
/// call site's position, warns, reports the site unresolved, and leaves the call alone.
#[test]
fn a_summary_that_does_not_match_its_module_is_not_used() {
    if is_standin() {
        eprintln!("skipped: the summary cache and its checks are rld's own");
        return;
    }
    let t = Test::new();
    let objs = bitcode(&t, &["global_main.c", "global_def.c"], &[]);
    // The same program with one instruction more in main, on the site's own line (so the
    // stale summary's debug locations still point at the site).
    let source = std::fs::read_to_string(cases_dir().join("cvp/global_main.c")).unwrap();
    let changed_source = source.replace(
        "printf(\"fp(10) = %d\\n\", fp(10)); /* site:global */",
        "__asm__ volatile(\"\" ::: \"memory\"); printf(\"fp(10) = %d\\n\", fp(10)); \
         /* site:global */",
    );
    assert_ne!(source, changed_source);
    let changed_path = t.write("changed/global_main.c", changed_source);
    let changed = bitcode(&t, &[changed_path.to_str().unwrap()], &[]);
    let cache = t.path("cache");
    let cache_flag = format!("--lto-cache-dir={}", cache.display());
    let entries = || summary_cache_entries(&cache);
    let real = paths(&objs);
    let lld = t.link(
        Driver::ClangLld,
        &real,
        &strs(&lto_flags(None, &[])),
        "lld/prog",
    );
    // Cache the real program's summaries (its site is promoted), then the changed main's.
    let warm = rld_link(
        &t,
        &real,
        &["-Wl,".to_string() + &cache_flag]
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        "warm/prog",
        &lld,
        &[],
        "fp(10) = 20\nfp(10) = 11\n",
    );
    let s = site("global_main.c", "global");
    assert_site(&warm, &s, "main", Want::Promoted(&["f1", "f2"]));
    let before = entries();
    t.link(
        Driver::ClangRld,
        &[changed[0].as_path(), real[1]],
        &strs(&lto_flags(None, &[&format!("-Wl,{cache_flag}")])),
        "warm2/prog",
    );
    let after = entries();
    plant_stale_summary(&before, &after, "global_main");

    std::fs::create_dir_all(t.path("rld")).unwrap();
    let yaml = t.path("rld/prog.yaml");
    let (out, _) = t.try_link(
        Driver::ClangRld,
        &real,
        &strs(&lto_flags(
            Some(&yaml),
            &[&format!("-Wl,{cache_flag}"), "-Wl,--save-temps"],
        )),
        "rld/prog",
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "link failed: {stderr}");
    assert!(
        stderr.contains("indirect calls not resolved: function main does not match its summary"),
        "no warning about the stale summary: {stderr}"
    );
    assert_same_output(
        &t.path("rld/prog"),
        &lld,
        &[],
        &[],
        Some("fp(10) = 20\nfp(10) = 11\n"),
    );
    let link = LtoLink {
        exe: t.path("rld/prog"),
        remarks: remarks(&yaml),
    };
    assert_site(&link, &s, "main", Want::Unresolved);
    // The call went into the optimizer as it came: indirect, without `!callees`.
    let preopt = t.path("rld/prog.0.0.preopt.bc");
    indirect_calls(&preopt, "main");
    let body = function_body(&preopt, "main");
    assert!(
        !body.iter().any(|l| l.contains("!callees")),
        "main annotated from a stale summary:\n{}",
        body.join("\n")
    );
}
