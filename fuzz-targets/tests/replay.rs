//! The fuzz targets on the seed corpora and on every saved finding.
//!
//! `seeds_are_accepted` builds each target's seed corpus from the test programs under
//! `tests/cases` (objects, archives, a shared library, scripts, bitcode, summaries, remarks)
//! and checks that each target accepts it, so a target that rejects everything cannot pass
//! for a fuzzed one. With `RLD_FUZZ_SEEDS=DIR` the corpus is kept in `DIR/<target>/`, which is
//! where `fuzz/run` takes it from. `findings_stay_fixed` runs every input under
//! `fuzz/regressions/<target>/` (crashes the fuzzer found, fixed since) through its target.

use rld_fuzz_targets::{run, Scratch, Target};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn tool(program: &str, args: &[&str], dir: &Path) {
    let status = Command::new(program)
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap_or_else(|e| panic!("{program} is required: {e}"));
    assert!(status.success(), "{program} {args:?} failed");
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Seeds per target, each `(name, bytes)`.
type Corpus = BTreeMap<&'static str, Vec<(String, Vec<u8>)>>;

fn build_seeds(work: &Path) -> Corpus {
    let cases = repo().join("tests/cases");
    let mut corpus = Corpus::new();
    let mut add = |target: Target, name: &str, bytes: Vec<u8>| {
        corpus
            .entry(target.name())
            .or_default()
            .push((name.to_owned(), bytes));
    };

    // Objects: C and C++ test programs, with and without PIC, sections per function, debug
    // info (kept small: AFL works best on inputs of a few KB).
    let objects: [(&str, &[&str]); 7] = [
        ("basic/basic_util.c", &["-O1"]),
        ("tls/tls_defs.c", &["-O1", "-fPIC"]),
        (
            "ctors/ctor_a.c",
            &["-O0", "-ffunction-sections", "-fdata-sections"],
        ),
        ("merge/merge_a.c", &["-O2", "-fPIC"]),
        ("unwind/unwind.c", &["-O1", "-g"]),
        ("cxx/exc_throw.cpp", &["-O1", "-fPIC"]),
        ("cxx/tmpl_a.cpp", &["-O1"]),
    ];
    let mut object_paths = Vec::new();
    for (i, (source, flags)) in objects.iter().enumerate() {
        let out = work.join(format!("seed{i}.o"));
        let compiler = if source.ends_with(".cpp") {
            "clang++-22"
        } else {
            "clang-22"
        };
        let mut args = vec!["-c", "-o"];
        let out_s = out.display().to_string();
        let src_s = cases.join(source).display().to_string();
        args.push(&out_s);
        args.extend_from_slice(flags);
        args.push(&src_s);
        tool(compiler, &args, work);
        let bytes = read(&out);
        if flags.contains(&"-fPIC") && compiler == "clang-22" {
            // The link target also makes a shared library, and has no C++ runtime.
            add(Target::Link, &format!("seed{i}.o"), bytes.clone());
        }
        add(Target::ElfObject, &format!("seed{i}.o"), bytes);
        object_paths.push(out_s);
    }
    // What the link target's `main` calls, so the whole program links and is laid out.
    std::fs::write(
        work.join("fg.c"),
        "int g = 41;\nint f(int x) { return x + 1; }\n",
    )
    .unwrap();
    tool(
        "clang-22",
        &["-c", "-O1", "-fPIC", "-o", "fg.o", "fg.c"],
        work,
    );
    add(Target::Link, "fg.o", read(&work.join("fg.o")));

    // Archives: a regular one and a thin one. The thin one names `other.o`, which is also the
    // name of a fixture in the targets' scratch directory, where the fuzzed archive is written.
    tool(
        "ar",
        &["rcs", "seed.a", &object_paths[0], &object_paths[1]],
        work,
    );
    std::fs::copy(work.join("fg.o"), work.join("other.o")).unwrap();
    tool("ar", &["rcsT", "thin.a", "other.o"], work);
    for name in ["seed.a", "thin.a"] {
        add(Target::Archive, name, read(&work.join(name)));
    }
    add(Target::Link, "seed.a", read(&work.join("seed.a")));

    // A shared library with symbol versions.
    std::fs::write(
        work.join("v.map"),
        "V1 { global: f; local: *; };\nV2 { global: g; } V1;\n",
    )
    .unwrap();
    tool(
        "clang-22",
        &[
            "-shared",
            "-nostdlib",
            "-fPIC",
            "-O1",
            "-Wl,--version-script=v.map",
            "-o",
            "fg.so",
            "fg.c",
        ],
        work,
    );
    add(Target::SharedLibrary, "fg.so", read(&work.join("fg.so")));
    add(Target::Link, "fg.so", read(&work.join("fg.so")));

    // Scripts and lists, as build systems and distributions write them.
    let texts: [(Target, &str, &str); 10] = [
        (Target::LdScript, "group", "/* GNU ld script */\nOUTPUT_FORMAT(elf64-x86-64)\nGROUP ( fg.o AS_NEEDED ( fg.so ) )\n"),
        (Target::LdScript, "input", "SEARCH_DIR(\"=/usr/lib\") INPUT(-lfoo fg.o) ENTRY(main) OUTPUT_ARCH(i386:x86-64)\n"),
        (Target::VersionScript, "nodes", "VERS_1.0 {\n global: foo; bar*; extern \"C++\" { \"ns::f()\"; };\n local: *;\n};\nVERS_2.0 { global: baz; } VERS_1.0;\n"),
        (Target::VersionScript, "anonymous", "{ global: main; _Z*; # comment\n local: *; };\n"),
        (Target::DynamicList, "list", "{ main; foo*; extern \"C\" { bar; }; /* c */ };\n"),
        (Target::ResponseFile, "quoted", "-o 'out file' \"a b.o\" c\\ d.o --gc-sections -L/x -lm\n"),
        (Target::ResponseFile, "options", "-shared -z now --version-script=v.map --as-needed -lc --no-as-needed -e main\n"),
        (Target::RemarkPolicy, "example", include_str!("../../examples/remarks/policy.toml")),
        (Target::RemarkPolicy, "require", "[[require]]\npass = \"lto\"\nname = \"deadfunction\"\nmin_count = 1\n"),
        (Target::LdScript, "libc", "GROUP ( /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc_nonshared.a AS_NEEDED ( /lib64/ld-linux-x86-64.so.2 ) )\n"),
    ];
    for (target, name, text) in texts {
        add(target, name, text.as_bytes().to_vec());
        if name == "libc" {
            add(Target::Link, name, text.as_bytes().to_vec());
        }
    }

    // Bitcode, its summary in the cache's encoding, and the remarks of an LTO link of it.
    tool(
        "clang-22",
        &["-c", "-flto", "-O1", "-o", "fg.bc", "fg.c"],
        work,
    );
    std::fs::copy(cases.join("basic/basic_util.c"), work.join("util.c")).unwrap();
    tool(
        "clang-22",
        &["-c", "-flto", "-O1", "-fPIC", "-o", "util.bc", "util.c"],
        work,
    );
    for name in ["fg.bc", "util.bc"] {
        let bytes = read(&work.join(name));
        let input = rld_lto::BitcodeInput { name, data: &bytes };
        let summaries = rld_lto::summarize_all(&[input], None, &|_| {}).expect("summarize seed");
        add(
            Target::Summary,
            &format!("{name}.summary"),
            rld_summaries::encode(&summaries[0]),
        );
        add(Target::Bitcode, name, bytes.clone());
        add(Target::Link, name, bytes);
    }
    for format in ["yaml", "bitstream"] {
        let remarks = work.join(format!("remarks.{format}"));
        let args: Vec<String> = [
            "-shared",
            "-o",
            &work.join("lto.so").display().to_string(),
            &format!("--opt-remarks-filename={}", remarks.display()),
            &format!("--opt-remarks-format={format}"),
            &work.join("util.bc").display().to_string(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let opts = rld::args::parse_args(args).unwrap();
        rld::link::link(&opts).expect("LTO link for remark seeds");
        add(
            Target::Remarks,
            &format!("remarks.{format}"),
            read(&remarks),
        );
    }
    corpus
}

#[test]
fn seeds_are_accepted() {
    let keep = std::env::var_os("RLD_FUZZ_SEEDS").map(PathBuf::from);
    let work = std::env::temp_dir().join(format!("rld-fuzz-seeds-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let corpus = build_seeds(&work);
    let scratch = Scratch::new(&work).expect("scratch");
    for target in Target::ALL {
        let seeds = corpus
            .get(target.name())
            .unwrap_or_else(|| panic!("no seeds for {}", target.name()));
        for (name, bytes) in seeds {
            assert!(
                run(target, bytes, &scratch),
                "target {} rejects its seed {name}",
                target.name()
            );
            if let Some(dir) = &keep {
                let dir = dir.join(target.name());
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(dir.join(name), bytes).unwrap();
            }
        }
        // Damaged seeds are rejected, not accepted and not a crash.
        if target != Target::ResponseFile && target != Target::Link {
            let (name, bytes) = &seeds[0];
            let cut = &bytes[..bytes.len() / 3];
            assert!(
                !run(target, cut, &scratch) || target == Target::Remarks,
                "target {} accepts the first third of {name}",
                target.name()
            );
        }
    }
    drop(scratch);
    std::fs::remove_dir_all(&work).unwrap();
}

#[test]
fn findings_stay_fixed() {
    let work = std::env::temp_dir().join(format!("rld-fuzz-replay-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let scratch = Scratch::new(&work).expect("scratch");
    let mut replayed = 0;
    for target in Target::ALL {
        let dir = repo().join("fuzz/regressions").join(target.name());
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            // Returning, and soon, is the test: these inputs once crashed or hung rld (a hang
            // ends at rld's own limits, such as a summarizing child's CPU time, which are
            // minutes).
            let start = std::time::Instant::now();
            run(target, &read(&path), &scratch);
            let took = start.elapsed();
            assert!(
                took < std::time::Duration::from_secs(20),
                "{} took {took:?}",
                path.display()
            );
            replayed += 1;
        }
    }
    drop(scratch);
    std::fs::remove_dir_all(&work).unwrap();
    eprintln!("replayed {replayed} findings");
}
