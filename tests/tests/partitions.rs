//! LTO partitions: programs whose code rld splits into several partitions
//! (`--lto-partitions=N`) behave as the lld build does, a hot call that crosses
//! partitions is still inlined, what both sides use is one symbol, and the
//! remarks of every partition reach the one remarks file.
//!
//! Which partition a function lands in is read from `--save-temps` objects
//! (`prog.lto.o`, `prog1.lto.o`, ...), so the tests check the split they rely on.

use rld_tests::llvm_remarks::{remarks, Remark};
use rld_tests::Compiler::Clang;
use rld_tests::*;
use std::path::{Path, PathBuf};

fn bitcode(t: &Test, srcs: &[&str]) -> Vec<PathBuf> {
    srcs.iter()
        .map(|s| t.compile(Clang, &format!("partitions/{s}"), &["-flto", "-O2"]))
        .collect()
}

/// The partition objects `--save-temps` left beside `exe`: `exe.lto.o`, `exe.lto.1.o`, ...
/// (lld-22's names)
fn partition_objects(exe: &Path) -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from(format!("{}.lto.o", exe.display()))];
    for p in 1.. {
        let next = PathBuf::from(format!("{}.lto.{p}.o", exe.display()));
        if !next.exists() {
            break;
        }
        out.push(next);
    }
    assert!(out[0].exists(), "no {}", out[0].display());
    out
}

/// The partition whose object defines `name`.
fn defining_partition(objects: &[PathBuf], name: &str) -> usize {
    let owners: Vec<usize> = objects
        .iter()
        .enumerate()
        .filter(|(_, o)| {
            find_symbols(&symbols(o), ".symtab", name)
                .iter()
                .any(Symbol::is_defined)
        })
        .map(|(p, _)| p)
        .collect();
    assert_eq!(owners.len(), 1, "{name} defined in partitions {owners:?}");
    owners[0]
}

/// LLVM's `inline` remarks saying `callee` was inlined into `caller`.
fn inlined<'a>(remarks: &'a [Remark], callee: &str, caller: &str) -> Vec<&'a Remark> {
    remarks
        .iter()
        .filter(|r| r.pass == "inline" && r.kind == "Passed" && r.function == caller)
        .filter(|r| r.args.iter().any(|(k, v, _)| k == "Callee" && v == callee))
        .collect()
}

/// Links through rld with `flags` and through lld; both print the same.
fn link_both(t: &Test, objs: &[PathBuf], flags: &[&str]) -> PathBuf {
    let objs = paths(objs);
    let lld = t.link(Driver::ClangLld, &objs, &["-flto", "-O2"], "lld/prog");
    let rld_flags = [&["-flto", "-O2"], flags].concat();
    let exe = t.link(Driver::ClangRld, &objs, &rld_flags, "rld/prog");
    assert_same_output(&exe, &lld, &[], &[], None);
    exe
}

#[test]
fn a_hot_call_across_partitions_is_inlined() {
    let t = Test::new();
    // Partitions hold whole modules in order where they can: scale.c first puts scale
    // beside main, and second (the bigger half of halves.c) in the other partition.
    let objs = bitcode(&t, &["scale.c", "main.c", "halves.c"]);
    let yaml = t.path("remarks.yaml");
    let remarks_flag = format!("-Wl,--opt-remarks-filename,{}", yaml.display());
    let exe = link_both(
        &t,
        &objs,
        &[
            "-Wl,--lto-partitions=2",
            "-Wl,--save-temps",
            &remarks_flag,
            "-Wl,--opt-remarks-passes,inline|lto",
        ],
    );
    let objects = partition_objects(&exe);
    assert_eq!(objects.len(), 2);
    // The split this test is about: `second` and `scale` in different partitions.
    let scale = defining_partition(&objects, "scale");
    let second = defining_partition(&objects, "second");
    assert_ne!(scale, second, "second and scale share a partition");
    assert_eq!(scale, defining_partition(&objects, "main"));
    // Yet scale is inlined into both of its callers, and the remarks of both partitions
    // are in the one file, after rld's own.
    let all = remarks(&yaml);
    assert_eq!(inlined(&all, "scale", "first").len(), 1, "{all:#?}");
    assert_eq!(inlined(&all, "first", "main").len(), 1, "{all:#?}");
    assert_eq!(inlined(&all, "scale", "second").len(), 1, "{all:#?}");
    let first_llvm = all.iter().position(|r| r.pass == "inline");
    let last_rld = all.iter().rposition(|r| r.pass == "lto");
    assert!(
        first_llvm.is_some() && last_rld.is_some() && last_rld < first_llvm,
        "rld's remarks come first"
    );
    // No call to scale is left in second.
    let disasm = disassembly(&exe, "second");
    assert!(!disasm.contains("<scale>"), "{disasm}");
}

/// The disassembly of `function` in `exe`.
fn disassembly(exe: &Path, function: &str) -> String {
    let out = run_checked(
        std::process::Command::new("objdump")
            .args(["-d", "--no-show-raw-insn"])
            .arg(format!("--disassemble={function}"))
            .arg(exe),
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains(&format!("<{function}>:")), "{text}");
    text
}

#[test]
fn copies_reach_callers_in_modules_linked_after_them() {
    let t = Test::new();
    // Three partitions, a module each; main's partition holds copies of mix_x and mix_y,
    // from modules that come before its own. mix_y's module is linked into the partition
    // after another one, so its copy must be linked although nothing linked so far uses it.
    let objs = bitcode(&t, &["copy_x.c", "copy_y.c", "copy_main.c"]);
    let exe = link_both(&t, &objs, &["-Wl,--lto-partitions=3", "-Wl,--save-temps"]);
    let objects = partition_objects(&exe);
    assert_eq!(objects.len(), 3);
    let main = defining_partition(&objects, "main");
    for callee in ["mix_x", "mix_y"] {
        assert_ne!(defining_partition(&objects, callee), main, "{callee}");
        // Inlined into main...
        let code = disassembly(&exe, "main");
        assert!(!code.contains(&format!("<{callee}>")), "{code}");
        // ...and into big_x or big_y in its own partition: nothing calls it any more, and
        // its left-over body is dropped from the program, as LLVM drops an unused
        // function of one module.
        assert!(find_symbols(&symbols(&exe), ".symtab", callee).is_empty());
        let lld = find_symbols(&symbols(&t.path("lld/prog")), ".symtab", callee);
        assert!(lld.is_empty(), "{lld:?}");
    }
    // Each partition reads the bodies it owns or copies and no other: what `--time` counts
    // as read is what the partitions' modules define before optimization, fewer than the
    // bodies of the modules they load.
    std::fs::create_dir_all(t.path("timed")).unwrap();
    let (res, cmd) = t.try_link(
        Driver::ClangRld,
        &paths(&objs),
        &[
            "-flto",
            "-O2",
            "-Wl,--lto-partitions=3",
            "-Wl,--time",
            "-Wl,--save-temps",
        ],
        "timed/prog",
    );
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(res.status.success(), "{cmd}: {stderr}");
    let defined: usize = (0..3)
        .map(|p| {
            let ir = run_checked(
                std::process::Command::new("llvm-dis-22")
                    .arg(t.path(&format!("timed/prog.{p}.0.preopt.bc")))
                    .args(["-o", "-"]),
            );
            String::from_utf8_lossy(&ir.stdout)
                .lines()
                .filter(|l| l.starts_with("define "))
                .count()
        })
        .sum();
    let (read, total) = bodies_read(&stderr);
    assert_eq!(read as usize, defined, "{stderr}");
    assert!(read < total, "{stderr}");
    // What --defsym names is kept, though no relocation refers to it.
    let kept = t.link(
        Driver::ClangRld,
        &paths(&objs),
        &[
            "-flto",
            "-O2",
            "-Wl,--lto-partitions=3",
            "-Wl,--defsym,other_name=mix_y",
        ],
        "defsym/prog",
    );
    let out = symbols(&kept);
    let (mix_y, other) = (
        find_symbols(&out, ".symtab", "mix_y"),
        find_symbols(&out, ".symtab", "other_name"),
    );
    assert_eq!(mix_y.len(), 1, "{out:#?}");
    assert_eq!(other.len(), 1, "{out:#?}");
    assert_eq!(mix_y[0].value, other[0].value);
}

#[test]
fn a_hidden_function_native_code_calls_is_kept() {
    let t = Test::new();
    // `shown` is hidden and only a native object calls it: the LTO objects hold it as a
    // hidden function, like a left-over copy owner, but a reference keeps it.
    let lto = bitcode(&t, &["hidden_callee.c", "copy_x.c"]);
    let native = t.compile(Clang, "partitions/native_caller.c", &["-O2"]);
    let mut objs = lto.clone();
    objs.push(native);
    let exe = link_both(&t, &objs, &["-Wl,--lto-partitions=2", "-Wl,--save-temps"]);
    let objects = partition_objects(&exe);
    assert_eq!(objects.len(), 2);
    let shown = find_symbols(&symbols(&exe), ".symtab", "shown");
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(shown[0].is_defined());
}

#[test]
fn a_static_used_by_two_partitions_is_one_hidden_symbol() {
    let t = Test::new();
    let objs = bitcode(&t, &["main.c", "halves.c", "scale.c"]);
    let exe = link_both(&t, &objs, &["-Wl,--lto-partitions=2", "-Wl,--save-temps"]);
    let objects = partition_objects(&exe);
    assert_ne!(
        defining_partition(&objects, "main"),
        defining_partition(&objects, "second")
    );
    // `counter` (static in halves.c, updated by `first`, inlined into main, and `second`) is defined once, by a hidden symbol with a name no
    // other module uses, and the other partition refers to it.
    let syms: Vec<Symbol> = objects
        .iter()
        .flat_map(|o| symbols(o))
        .filter(|s| s.table == ".symtab" && s.name.starts_with("counter.rld."))
        .collect();
    let defs: Vec<&Symbol> = syms.iter().filter(|s| s.is_defined()).collect();
    assert_eq!(defs.len(), 1, "{syms:#?}");
    assert_eq!(
        (defs[0].bind.as_str(), defs[0].vis.as_str()),
        ("GLOBAL", "HIDDEN")
    );
    assert!(syms.iter().any(|s| !s.is_defined()), "{syms:#?}");
    // In the program it is local again, under its source name, and not exported.
    let out = symbols(&exe);
    let local = find_symbols(&out, ".symtab", "counter");
    assert_eq!(local.len(), 1, "{out:#?}");
    assert_eq!(
        (local[0].bind.as_str(), local[0].typ.as_str()),
        ("LOCAL", "OBJECT")
    );
    assert!(find_symbols(&out, ".symtab", &defs[0].name).is_empty());
    assert!(out
        .iter()
        .all(|s| s.table != ".dynsym" || !s.name.starts_with("counter")));
}

#[test]
fn constructors_in_every_partition_run_once_in_order() {
    let t = Test::new();
    let objs = bitcode(&t, &["ctors.c", "ctors_more.c"]);
    let exe = link_both(&t, &objs, &["-Wl,--lto-partitions=2", "-Wl,--save-temps"]);
    let objects = partition_objects(&exe);
    assert_ne!(
        defining_partition(&objects, "filler_a"),
        defining_partition(&objects, "filler_b")
    );
    let out = run(&exe, &["x"], &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{stdout}");
    assert_eq!(lines[..3], ["ctor 101", "ctor 200", "ctor 300"], "{stdout}");
    assert!(lines[3].starts_with("main "), "{stdout}");
    assert_eq!(lines[4..], ["dtor", "dtor 150"], "{stdout}");
}

#[test]
fn the_thread_count_does_not_change_the_output() {
    let t = Test::new();
    let objs = bitcode(&t, &["main.c", "halves.c", "scale.c"]);
    let objs = paths(&objs);
    let mut outputs = Vec::new();
    for threads in ["1", "2", "4"] {
        let exe = t.link(
            Driver::ClangRld,
            &objs,
            &[
                "-flto",
                "-O2",
                "-Wl,--lto-partitions=3",
                &format!("-Wl,--threads={threads}"),
            ],
            &format!("t{threads}/prog"),
        );
        outputs.push(std::fs::read(&exe).unwrap());
    }
    assert!(outputs[0] == outputs[1] && outputs[1] == outputs[2]);
}

/// How many partitions `--time` reports as taken from the cache, and the program.
fn cached_link(t: &Test, objs: &[&Path], flags: &[&str], out: &str) -> (usize, PathBuf) {
    let cache = format!("-Wl,--lto-cache-dir={}", t.path("cache").display());
    let all = [
        &[
            "-flto",
            "-O2",
            "-Wl,--lto-partitions=2",
            "-Wl,--time",
            &cache,
        ],
        flags,
    ]
    .concat();
    let (res, cmd) = t.try_link(Driver::ClangRld, objs, &all, out);
    let stderr = String::from_utf8_lossy(&res.stderr).into_owned();
    assert!(res.status.success(), "{cmd}\n{stderr}");
    let partitions = stderr.lines().filter(|l| l.contains(" partition ")).count();
    assert_eq!(partitions, 2, "{stderr}");
    let cached = stderr.lines().filter(|l| l.contains(", cached)")).count();
    (cached, t.path(out))
}

#[test]
fn the_partition_cache_is_reused_and_invalidated() {
    let t = Test::new();
    let objs = bitcode(&t, &["main.c", "halves.c", "scale.c"]);
    let objs = paths(&objs);
    let read = |p: &Path| std::fs::read(p).unwrap();

    let (cached, cold) = cached_link(&t, &objs, &[], "cold");
    assert_eq!(cached, 0);
    let expected = run(&cold, &[], &[]);
    // Nothing changed: both partitions come from the cache, and so do the same bytes.
    let (cached, warm) = cached_link(&t, &objs, &[], "warm");
    assert_eq!(cached, 2);
    assert!(read(&cold) == read(&warm));
    // Another optimization level: nothing reused.
    let (cached, o1) = cached_link(&t, &objs, &["-Wl,--lto-O1"], "o1");
    assert_eq!(cached, 0);
    assert_output_is(
        &o1,
        &run(&o1, &[], &[]),
        &String::from_utf8_lossy(&expected.stdout),
        "O1",
    );
    // main.c edited: its partition is compiled again, the other one (which neither owns
    // nor copies anything of main.c) reused, and the program does what the edit says (as
    // the lld build of the same objects does).
    let main_c = std::fs::read_to_string(cases_dir().join("partitions/main.c")).unwrap();
    let edited = t.compile(
        Clang,
        &main_c.replace("%u %u %u", "%u|%u|%u"),
        &["-flto", "-O2"],
    );
    let changed = [edited.as_path(), objs[1], objs[2]];
    let (cached, new) = cached_link(&t, &changed, &[], "edited");
    assert_eq!(cached, 1);
    let lld = t.link(Driver::ClangLld, &changed, &["-flto", "-O2"], "lld-edited");
    assert_same_output(&new, &lld, &[], &[], None);
    let new_out = String::from_utf8_lossy(&run(&new, &[], &[]).stdout).into_owned();
    assert_eq!(
        new_out,
        String::from_utf8_lossy(&expected.stdout).replace(' ', "|")
    );
    // Damaged entries are compiled again, never used.
    for entry in std::fs::read_dir(t.path("cache")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rldpart") {
            let mut bytes = read(&path);
            let middle = bytes.len() / 2;
            bytes[middle] ^= 0xff;
            std::fs::write(&path, bytes).unwrap();
        }
    }
    let (cached, again) = cached_link(&t, &objs, &[], "again");
    assert_eq!(cached, 0);
    assert!(read(&cold) == read(&again));
}

/// The attribute group of `name`'s declaration in textual IR, e.g. "nounwind readonly".
fn declaration_attributes(ir: &str, name: &str) -> Option<String> {
    let decl = ir
        .lines()
        .find(|l| l.starts_with("declare ") && l.contains(&format!("@{name}(")))?;
    let group = decl.rsplit(' ').next()?.strip_prefix('#')?;
    let line = ir
        .lines()
        .find(|l| l.starts_with(&format!("attributes #{group} = ")))?;
    Some(line.to_string())
}

#[test]
fn callers_in_other_partitions_see_what_a_function_touches() {
    let t = Test::new();
    let objs = bitcode(&t, &["peek_main.c", "peek.c"]);
    let exe = link_both(&t, &objs, &["-Wl,--lto-partitions=2", "-Wl,--save-temps"]);
    let objects = partition_objects(&exe);
    let caller = defining_partition(&objects, "main");
    assert_ne!(caller, defining_partition(&objects, "peek"));
    // main's partition declares peek: memory(read), from the whole-program mod/ref.
    let bc = PathBuf::from(format!("{}.{caller}.0.preopt.bc", exe.display()));
    let ir = String::from_utf8_lossy(
        &run_checked(
            std::process::Command::new("llvm-dis-22")
                .arg(&bc)
                .arg("-o")
                .arg("-"),
        )
        .stdout,
    )
    .into_owned();
    let peek = declaration_attributes(&ir, "peek").unwrap_or_else(|| panic!("{ir}"));
    assert!(peek.contains("memory(read)"), "{peek}");
    // bump writes: nothing of the kind.
    let bump = declaration_attributes(&ir, "bump").unwrap_or_default();
    assert!(
        !bump.contains("memory(read)") && !bump.contains("memory(none)"),
        "{bump}"
    );
}

#[test]
fn constants_the_compiler_made_are_shared_without_names() {
    let t = Test::new();
    let objs = bitcode(&t, &["messages.c"]);
    let exe = link_both(&t, &objs, &["-Wl,--lto-partitions=2", "-Wl,--save-temps"]);
    let objects = partition_objects(&exe);
    assert_ne!(
        defining_partition(&objects, "loud"),
        defining_partition(&objects, "quiet")
    );
    // The string literal (LLVM's `private` `.str`) is shared across the cut by a hidden
    // symbol marked private ...
    let shared: Vec<Symbol> = objects
        .iter()
        .flat_map(|o| symbols(o))
        .filter(|s| s.table == ".symtab" && s.name.contains(".rld.private."))
        .collect();
    assert!(shared.iter().any(Symbol::is_defined), "{shared:#?}");
    // ... which the program's symbol table leaves out, as one module's object would; the
    // static table keeps its source name.
    let out = symbols(&exe);
    let names: Vec<&str> = out.iter().map(|s| s.name.as_str()).collect();
    assert!(
        names
            .iter()
            .all(|n| !n.starts_with(".str") && !n.contains(".rld.")),
        "{names:?}"
    );
    let weights = find_symbols(&out, ".symtab", "weights");
    assert_eq!(weights.len(), 1, "{names:?}");
    assert_eq!(weights[0].bind, "LOCAL");
}

fn cxx_bitcode(t: &Test, srcs: &[&str]) -> Vec<PathBuf> {
    srcs.iter()
        .map(|s| t.compile_cxx(Clang, &format!("partitions/{s}"), &["-flto", "-O2"]))
        .collect()
}

/// Links `objs`, in this order, through lld and through rld with one, two and three
/// partitions (with the C++ drivers if `cxx`): every program prints `expected`.
fn check_partitions(t: &Test, objs: &[PathBuf], cxx: bool, expected: &str) {
    let objs = paths(objs);
    let link = |driver: Driver, flags: &[&str], out: &str| {
        if cxx {
            t.link_cxx(driver, &objs, flags, out, true)
        } else {
            t.link(driver, &objs, flags, out)
        }
    };
    let lld = link(Driver::ClangLld, &["-flto", "-O2"], "lld/prog");
    for n in 1..=3 {
        let partitions = format!("-Wl,--lto-partitions={n}");
        let exe = link(
            Driver::ClangRld,
            &["-flto", "-O2", &partitions, "-Wl,--save-temps"],
            &format!("rld{n}/prog"),
        );
        assert_eq!(partition_objects(&exe).len(), n);
        assert_same_output(&exe, &lld, &[], &[], Some(expected));
    }
}

#[test]
fn the_prevailing_copy_of_an_inline_definition_is_kept_though_its_module_does_not_use_it() {
    let t = Test::new();
    // linkonce_keeper.cpp has the first copies of a typeinfo, a vtable, an inline virtual
    // destructor and `__clang_call_terminate`, which prevail; only dead code of its own
    // uses them, while linkonce_main.cpp, linked after it, uses its own copies, which do
    // not prevail. The module linker takes a linkonce definition only where something
    // linked refers to it: the prevailing copies must reach the merged module all the same
    // (and linkonce_first.cpp, which uses none of them, is the module the others are
    // linked into).
    let objs = cxx_bitcode(
        &t,
        &[
            "linkonce_first.cpp",
            "linkonce_keeper.cpp",
            "linkonce_main.cpp",
        ],
    );
    check_partitions(&t, &objs, true, "caught -1\narea 9\nchecked 3 total 3\n");
}

#[test]
fn an_alias_keeps_its_own_body_when_another_copy_of_its_aliasee_prevails() {
    let t = Test::new();
    // holder_explicit.cpp's `D1` is an alias of its weak_odr `D2`; holder_implicit.cpp,
    // linked first, has the prevailing linkonce_odr `D2`. `D1` prevails (nothing else
    // defines it) and stays an alias of its own module's body (which names that module's
    // string), while everything else calls the prevailing `D2`.
    let objs = cxx_bitcode(
        &t,
        &[
            "holder_implicit.cpp",
            "holder_explicit.cpp",
            "holder_main.cpp",
        ],
    );
    check_partitions(
        &t,
        &objs,
        true,
        "~Holder 3\n~Sub\n~Holder 4\n~Holder 5\nsum 12\n",
    );
}

#[test]
fn an_alias_of_a_weak_definition_keeps_it_when_a_strong_one_prevails() {
    let t = Test::new();
    // weak_alias.ll's `second` (into its weak table `t`) and `g` (of its weak `f`) are the
    // only definitions of their names; weak_alias_main.c, linked after it, defines `t` and
    // `f` strongly, and those prevail. The aliases still stand for the weak module's own
    // storage and code, while everything else, that module's `third` too, uses the strong
    // ones: `second` is 2 (not `t[1]`), `g` returns 7, and writing `second` leaves `t`.
    let weak = t.path("weak_alias.o");
    run_checked(
        std::process::Command::new("llvm-as-22")
            .arg(cases_dir().join("partitions/weak_alias.ll"))
            .arg("-o")
            .arg(&weak),
    );
    let main = t.compile(Clang, "partitions/weak_alias_main.c", &["-flto", "-O2"]);
    check_partitions(
        &t,
        &[weak, main],
        false,
        "t[1]=20 second=2 f=8 g=7 third=38\nt[1]=20 second=99\n",
    );
}

#[test]
fn an_inline_variable_is_initialized_once_whatever_the_cut() {
    let t = Test::new();
    // Every module has a COMDAT group per inline variable (the variable, its guard, its
    // initializer) and a constructor entry keyed to the variable. The groups of the modules
    // whose copies do not prevail are discarded whole, their constructor entries with them;
    // the prevailing one's constructor runs wherever the cut puts its list. (Before: an
    // entry whose key another partition owned was dropped when its module was linked into
    // another one, so the variable was never initialized, and a discarded group's
    // initializer was kept as a partition's own definition, which the module linker then
    // left out.)
    let objs: Vec<PathBuf> = [
        "inline_main.cpp",
        "inline_use1.cpp",
        "inline_use2.cpp",
        "inline_use3.cpp",
        "inline_use4.cpp",
        "inline_use5.cpp",
        "inline_ids.cpp",
    ]
    .iter()
    .map(|s| {
        t.compile_cxx(
            Clang,
            &format!("partitions/{s}"),
            &["-flto", "-O2", "-std=c++17"],
        )
    })
    .collect();
    let expected = "7 initializers ran; shared_id 10, Tag<0> 20, sum 1200\n";
    for (order, objs) in [
        ("forward", objs.clone()),
        ("reversed", objs.iter().rev().cloned().collect::<Vec<_>>()),
    ] {
        let objs = paths(&objs);
        let lld = t.link_cxx(
            Driver::ClangLld,
            &objs,
            &["-flto", "-O2"],
            &format!("lld-{order}/prog"),
            true,
        );
        for n in [1, 2, 3, 6, 7, 16] {
            let partitions = format!("-Wl,--lto-partitions={n}");
            let exe = t.link_cxx(
                Driver::ClangRld,
                &objs,
                &["-flto", "-O2", &partitions],
                &format!("rld-{order}-{n}/prog"),
                true,
            );
            assert_same_output(&exe, &lld, &[], &[], Some(expected));
        }
    }
}

#[test]
fn label_addresses_stay_with_the_body_they_point_into() {
    let t = Test::new();
    // main holds differences of execute's label addresses (`blockaddress` constants clang
    // propagated into it); with two or more partitions main ran with a copy's labels and
    // jumped into nowhere. lld-22 cannot link it ("Never resolved function from
    // blockaddress"): the expected output is the C program's.
    let obj = t.compile(Clang, "partitions/label_table.c", &["-flto", "-O2"]);
    for n in [1, 2, 3, 16] {
        let partitions = format!("-Wl,--lto-partitions={n}");
        let exe = t.link(
            Driver::ClangRld,
            &[&obj],
            &["-flto", "-O2", &partitions],
            &format!("rld{n}/prog"),
        );
        let out = run(&exe, &[], &[]);
        assert_eq!(
            (
                String::from_utf8_lossy(&out.stdout).as_ref(),
                out.status.code()
            ),
            ("xyxyz\n", Some(0)),
            "{n} partitions: {}",
            describe_status(&out)
        );
    }
}

/// A C++ class's out-of-line constructor (`D::D()`, C1, an alias of the base-object
/// constructor) in one module, called from `main` in the other.
const CTOR_ALIAS: [&str; 2] = [
    "partitions/ctor_alias.cpp",
    "partitions/ctor_alias_main.cpp",
];

/// The partition without the alias declares it hidden, as every symbol the partitions
/// share: the alias was made a declaration (a new value) before its name was read, from
/// freed memory, which lost the name here (and crashed mold, whose allocator reuses it).
#[test]
fn an_alias_another_partition_owns_is_a_hidden_declaration() {
    let t = Test::new();
    let objs: Vec<PathBuf> = CTOR_ALIAS
        .iter()
        .map(|src| t.compile_cxx(Clang, src, &["-flto", "-O2", "-fno-exceptions"]))
        .collect();
    let exe = link_both(&t, &objs, &["-Wl,--lto-partitions=2", "-Wl,--save-temps"]);
    assert_eq!(String::from_utf8_lossy(&run(&exe, &[], &[]).stdout), "42\n");
    let objects = partition_objects(&exe);
    let ctor = "_ZN1DC1Ev";
    let owner = defining_partition(&objects, ctor);
    let caller = defining_partition(&objects, "main");
    assert_ne!(
        owner, caller,
        "the test needs main apart from the constructor"
    );
    let refs = find_symbols(&symbols(&objects[caller]), ".symtab", ctor);
    assert_eq!(refs.len(), 1, "{refs:#?}");
    assert!(!refs[0].is_defined());
    assert_eq!(refs[0].vis, "HIDDEN", "{refs:#?}");
}
