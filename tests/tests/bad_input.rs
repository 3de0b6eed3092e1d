//! Bad inputs: rld, called directly, must fail cleanly: a non-zero exit, a
//! short error naming the culprit, no panic, and no output file written (a
//! pre-existing output file is left as it was).

use rld_tests::Compiler::Clang;
use rld_tests::*;
use std::path::Path;
use std::process::Command;

/// Runs rld on `inputs` + `flags` twice, once with a fresh output path and
/// once over an existing file, and checks it fails cleanly and its stderr
/// contains every string in `mentions`. Returns the stderr.
fn assert_rejected(t: &Test, inputs: &[&Path], flags: &[&str], mentions: &[&str]) -> String {
    let (res, cmd) = t.try_link(Driver::Rld, inputs, flags, "fresh.out");
    let stderr = String::from_utf8_lossy(&res.stderr).into_owned();
    let ctx = format!(
        "\n  command: {cmd}\n  {}\n--- stderr ---\n{stderr}",
        describe_status(&res)
    );
    assert!(
        res.status.code().is_some(),
        "rld was killed by a signal{ctx}"
    );
    assert!(!res.status.success(), "rld accepted bad input{ctx}");
    assert!(!stderr.contains("panicked"), "rld panicked{ctx}");
    for m in mentions {
        assert!(stderr.contains(m), "the error does not mention {m:?}{ctx}");
    }
    let leftovers = t.files_starting_with("fresh.out");
    assert!(
        leftovers.is_empty(),
        "a failed link left {leftovers:?} behind{ctx}"
    );

    let existing = t.write("existing.out", "precious contents\n");
    let (res2, cmd2) = t.try_link(Driver::Rld, inputs, flags, "existing.out");
    assert!(
        !res2.status.success(),
        "rld accepted bad input on the second run: {cmd2}"
    );
    match std::fs::read_to_string(&existing) {
        Ok(s) => assert_eq!(
            s, "precious contents\n",
            "a failed link changed the existing output file: {cmd2}"
        ),
        Err(e) => panic!("a failed link removed the existing output file ({e}): {cmd2}"),
    }

    // rld-specific: the exact shape of the message (skipped for a stand-in).
    if !is_standin() {
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert!(
            lines.len() <= 4,
            "rld-specific: the error should be one line-ish, got {} lines{ctx}",
            lines.len()
        );
        assert!(
            lines[0].starts_with("rld: "),
            "rld-specific: errors start with \"rld: \"{ctx}"
        );
        assert!(
            lines[0].contains("error"),
            "rld-specific: the first line says \"error\"{ctx}"
        );
    }
    stderr
}

const START: &str = "void _start(void) {}\n";

fn file_name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn rejects_truncated_object() {
    let t = Test::new();
    let obj = t.compile(Clang, "int f(void) { return 1; }\nint g = 2;\n", &[]);
    let bytes = std::fs::read(&obj).unwrap();
    let truncated = t.write("truncated.o", &bytes[..200.min(bytes.len() / 2)]);
    assert_rejected(&t, &[&truncated], &[], &["truncated.o"]);
}

/// A damaged shared library is an error naming it; libraries are parsed in the
/// background, but the first error in command-line order is still the one reported.
#[test]
fn rejects_truncated_shared_library_in_command_line_order() {
    let t = Test::new();
    let start = t.compile(Clang, START, &[]);
    let lib = t.compile(Clang, "int from_lib(void) { return 7; }\n", &["-fPIC"]);
    let so = t.link(Driver::ClangRld, &[&lib], &["-shared"], "libgood.so");
    let bytes = std::fs::read(&so).unwrap();
    let broken = t.write("libbroken.so", &bytes[..bytes.len() / 3]);
    assert_rejected(&t, &[&start, &broken], &[], &["libbroken.so"]);
    let obj = t.compile(Clang, "int f(void) { return 1; }\n", &[]);
    let obj_bytes = std::fs::read(&obj).unwrap();
    let truncated = t.write("truncated.o", &obj_bytes[..200.min(obj_bytes.len() / 2)]);
    let stderr = assert_rejected(&t, &[&start, &broken, &truncated], &[], &["libbroken.so"]);
    assert!(!stderr.contains("truncated.o"), "{stderr}");
    let stderr = assert_rejected(&t, &[&start, &truncated, &broken], &[], &["truncated.o"]);
    assert!(!stderr.contains("libbroken.so"), "{stderr}");
}

#[test]
fn rejects_corrupt_archive() {
    let t = Test::new();
    let start = t.compile(Clang, START, &[]);
    let mut ar = b"!<arch>\n".to_vec();
    ar.extend_from_slice(b"member.o/       0           0     0     644     99999999  `\n");
    ar.extend_from_slice(b"\x7fELF this is not really an object");
    let corrupt = t.write("corrupt.a", ar);
    assert_rejected(&t, &[&start, &corrupt], &[], &["corrupt.a"]);
    // Archives are indexed after the command line is read, in parallel: the first error
    // in command-line order is still the one reported, as GNU ld and lld report it.
    let stderr = assert_rejected(&t, &[&start, &corrupt], &["-lnosuchlib"], &["corrupt.a"]);
    assert!(!stderr.contains("nosuchlib"), "{stderr}");
    let stderr = assert_rejected(&t, &[&start], &["-lnosuchlib", "corrupt.a"], &["nosuchlib"]);
    assert!(!stderr.contains("corrupt.a"), "{stderr}");
}

#[test]
fn rejects_missing_library() {
    let t = Test::new();
    let start = t.compile(Clang, START, &[]);
    assert_rejected(&t, &[&start], &["-lnosuchlib"], &["nosuchlib"]);
}

#[test]
fn rejects_undefined_symbol() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "int missing_function_xyz(void);\nvoid _start(void) { missing_function_xyz(); }\n",
        &[],
    );
    assert_rejected(
        &t,
        &[&obj],
        &[],
        &["missing_function_xyz", &file_name(&obj)],
    );
}

#[test]
fn rejects_unknown_option() {
    let t = Test::new();
    let start = t.compile(Clang, START, &[]);
    assert_rejected(
        &t,
        &[&start],
        &["--no-such-option-xyz"],
        &["--no-such-option-xyz"],
    );
}

#[test]
fn rejects_duplicate_definition() {
    let t = Test::new();
    let a = t.compile(
        Clang,
        "int duplicate_symbol_xyz(void) { return 1; }\nvoid _start(void) {}\n",
        &[],
    );
    let b = t.compile(Clang, "int duplicate_symbol_xyz(void) { return 2; }\n", &[]);
    assert_rejected(
        &t,
        &[&a, &b],
        &[],
        &["duplicate_symbol_xyz", &file_name(&a), &file_name(&b)],
    );
}

/// Corrupted objects (truncated at many lengths, or with bytes overwritten) must never make
/// rld crash: each link either succeeds or fails with an error, and a failed link leaves no
/// output behind. The mutations come from a fixed-seed generator, so failures reproduce.
#[test]
fn mutated_objects_never_crash_rld() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        // Self-contained (no libc), so the unmutated object links and mutations reach
        // layout and relocation, not just the undefined-symbol check.
        "static const char *msg = \"hi\";\n__thread int tv = 3;\nint counter;\n\
         int g(int x) { return x + tv + msg[0] + counter++; }\nint main(void) { return g(1); }\n",
        &["-O1", "-g"],
    );
    let original = std::fs::read(&obj).unwrap();
    let baseline = t.link(Driver::Rld, &[&obj], &["-e", "main"], "baseline.out");
    assert!(baseline.exists());
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |bound: usize| {
        // xorshift64*: enough to scatter mutations, no dependency needed.
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % bound.max(1)
    };
    for round in 0..150 {
        let mut data = original.clone();
        if round % 3 == 0 {
            data.truncate(1 + next(original.len() - 1));
        } else {
            for _ in 0..1 + next(16) {
                let i = next(data.len());
                data[i] = next(256) as u8;
            }
        }
        let input = t.write("mutated.o", &data);
        let out = t.path("mutated.out");
        let _ = std::fs::remove_file(&out);
        let res = output_with_timeout(
            std::process::Command::new(rld_path())
                .arg(&input)
                .args(["-e", "main", "-o"])
                .arg(&out),
            std::time::Duration::from_secs(20),
        );
        let stderr = String::from_utf8_lossy(&res.stderr);
        let ctx = format!("round {round}: {}\n{stderr}", describe_status(&res));
        assert!(
            matches!(res.status.code(), Some(0 | 1)),
            "rld crashed on a mutated object, {ctx}"
        );
        assert!(
            !stderr.contains("panicked") && !stderr.contains("internal error"),
            "{ctx}"
        );
        if !res.status.success() {
            assert!(!out.exists(), "failed link left an output, {ctx}");
            assert!(
                stderr.contains("mutated.o") || stderr.contains("error"),
                "{ctx}"
            );
        }
    }
}

/// A `gcc -flto` object holds only GCC's IR: rld says so, naming the file, rather than
/// failing later on an undefined `main`; with `-ffat-lto-objects` its machine code links
/// and runs.
#[test]
fn gcc_lto_objects_are_named_not_misread() {
    let t = Test::new();
    let src = "#include <stdio.h>\nint main(void) { puts(\"fat\"); return 0; }\n";
    let slim = t.compile(rld_tests::Compiler::Gcc, src, &["-flto", "-O2"]);
    assert_rejected(&t, &[&slim], &[], &["GCC LTO object", &file_name(&slim)]);
    let fat = t.compile(
        rld_tests::Compiler::Gcc,
        src,
        &["-flto", "-ffat-lto-objects", "-O2"],
    );
    let exe = t.link(Driver::GccRld, &[&fat], &[], "fat");
    assert_output_is(&exe, &run(&exe, &[], &[]), "fat\n", "gcc -ffat-lto-objects");
}

#[test]
fn rejects_a_huge_section_alignment_and_takes_a_huge_bss_in_stride() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "int zeros[64];\nint get(void) { return zeros[3]; }\nvoid _start(void) { for (;;) {} }\n",
        &["-O1"],
    );
    let bytes = std::fs::read(&obj).unwrap();
    // An alignment of 2^62: an error naming the file and the section (lld's limit).
    let mut aligned = bytes.clone();
    let h = elf_offsets::section_header(&aligned, ".text");
    aligned[h + 48..h + 56].copy_from_slice(&(1u64 << 62).to_le_bytes());
    let aligned = t.write("aligned.o", aligned);
    assert_rejected(&t, &[&aligned], &[], &["aligned.o", ".text", "alignment"]);
    // A .bss of 2^40 bytes links (as with GNU ld and lld) without rld allocating it.
    let mut big = bytes;
    let h = elf_offsets::section_header(&big, ".bss");
    big[h + 32..h + 40].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let big = t.write("bigbss.o", big);
    let out = t.path("bigbss.out");
    let res = run_checked(
        Command::new("/usr/bin/time")
            .args(["-f", "%M"])
            .arg(rld_path())
            // In this process, where GNU time sees its memory.
            .arg("--no-fork")
            .arg(&big)
            .arg("-o")
            .arg(&out),
    );
    let peak_kb: u64 = String::from_utf8_lossy(&res.stderr).trim().parse().unwrap();
    assert!(peak_kb < 200 * 1024, "{peak_kb} KB");
    assert!(std::fs::metadata(&out).unwrap().len() < 1 << 20);
}

/// A COMDAT group that names a section the object does not have is an error naming the
/// file, whichever of the group's members it is (they are read in place from the group's
/// section, each checked when the object is read).
#[test]
fn rejects_a_comdat_group_naming_a_missing_section() {
    let t = Test::new();
    let obj = t.compile_cxx(
        Clang,
        "inline int twice(int x) { return 2 * x; }\nint use(int x) { return twice(x); }\n\
         extern \"C\" void _start(void) { for (;;) {} }\n",
        &["-O0"],
    );
    let bytes = std::fs::read(&obj).unwrap();
    // The flag word, then the members (`twice`'s code, at least).
    let (at, size) = elf_offsets::section_bytes(&bytes, ".group");
    assert!(size >= 8, "a group of {size} bytes");
    for member in 0..size / 4 - 1 {
        let mut b = bytes.clone();
        let word = at + 4 + 4 * member;
        b[word..word + 4].copy_from_slice(&0xffffu32.to_le_bytes());
        let name = format!("member{member}.o");
        let bad = t.write(&name, b);
        assert_rejected(
            &t,
            &[&bad],
            &[],
            &[&name, "group member section out of range"],
        );
    }
}

/// A `.tbss` or `.bss` of 2^64-1 bytes (a corrupt `sh_size`) cannot end below 2^64 wherever
/// it starts: for every kind of output, an error naming the input and its section, and no
/// output (rld used to write a `PT_TLS` of memsz 0xfffffffffffffff0, which glibc's loader
/// refuses). The same holds for the sum of sizes in one output section (a second object's
/// `.tbss` before it), and for common symbols.
///
/// lld-22 refuses the lone objects in executables and shared objects the same way, naming
/// only the output section ("section .tbss at 0x201220 of size 0xFFFFFFFFFFFFFFFF exceeds
/// available address space"), and a common symbol of 2^64-1 bytes as a `.bss` of that
/// size. With `-r` it keeps a lone 2^64-1-byte `.tbss` (nothing is added to it; rld keeps
/// it too, and the final link refuses it). But after another object's `.tbss` (or `.bss`)
/// it wraps the output section's size (to 0xf, 0x1f) without a word, for every kind of
/// output, `-r` included, where rld refuses. A `.bss` that is huge but still ends below
/// 2^64 (0xfffffffffff00000 bytes at a low address in a shared object) is linked by both:
/// only an end past 2^64 is an overflow.
#[test]
fn rejects_sections_that_overflow_the_address_space() {
    let t = Test::new();
    let src = "__thread int tv[4];\nint zeros[64];\n\
               int get(void) { return tv[1] + zeros[3]; }\nvoid _start(void) { for (;;) {} }\n";
    let obj = t.compile(Clang, src, &["-O1", "-fPIC"]);
    let other = t.compile(
        Clang,
        "__thread int tw[2];\nint zz[8];\nint get_other(void) { return tw[1] + zz[3]; }\n",
        &["-O1", "-fPIC"],
    );
    let bytes = std::fs::read(&obj).unwrap();
    let with_size = |section: &str, size: u64, name: &str| {
        let mut b = bytes.clone();
        let h = elf_offsets::section_header(&b, section);
        b[h + 32..h + 40].copy_from_slice(&size.to_le_bytes());
        t.write(name, b)
    };
    let tbss = with_size(".tbss", u64::MAX, "tbss.o");
    let bss = with_size(".bss", u64::MAX, "bss.o");
    let commons = {
        let common = t.compile(
            Clang,
            "int shared_zeros[64];\nint get(void) { return shared_zeros[3]; }\n\
             void _start(void) { for (;;) {} }\n",
            &["-O1", "-fPIC", "-fcommon"],
        );
        let mut b = std::fs::read(&common).unwrap();
        let e = elf_offsets::symbol_entry(&b, "shared_zeros");
        b[e + 16..e + 24].copy_from_slice(&u64::MAX.to_le_bytes());
        t.write("commons.o", b)
    };
    let outputs: [&[&str]; 5] = [&[], &["-pie"], &["-no-pie"], &["-static"], &["-shared"]];
    for flags in outputs {
        // Unpatched, the object links: the refusals below are the sizes'.
        let out = t.link(Driver::Rld, &[&obj], flags, "unpatched.out");
        std::fs::remove_file(out).unwrap();
        for (input, section) in [(&tbss, ".tbss"), (&bss, ".bss")] {
            let culprit = format!("{}:({section})", file_name(input));
            let mentions = [
                culprit.as_str(),
                "section size 0xffffffffffffffff",
                "exceeds available address space",
            ];
            assert_rejected(&t, &[input], flags, &mentions);
            // After another object's: the sum in the output section overflows.
            assert_rejected(&t, &[&other, input], flags, &mentions);
        }
        assert_rejected(
            &t,
            &[&commons],
            flags,
            &[
                "commons.o",
                "common symbol 'shared_zeros'",
                "exceeds available address space",
            ],
        );
    }

    // A linker script's layout is checked the same way once laid out.
    let script = t.write(
        "layout.ld",
        "SECTIONS { . = 0x10000; .text : { *(.text*) } .tdata : { *(.tdata*) }\n\
         .tbss : { *(.tbss*) } .data : { *(.data*) } .bss : { *(.bss*) } }\n",
    );
    let script = script.to_str().unwrap();
    assert_rejected(
        &t,
        &[&tbss],
        &["-T", script],
        &["tbss.o:(.tbss)", "section size"],
    );
    assert_rejected(
        &t,
        &[&bss],
        &["-T", script],
        &["bss.o:(.bss)", "section size"],
    );

    // -r: nothing has an address; only adding sizes can overflow.
    for (input, section) in [(&tbss, ".tbss"), (&bss, ".bss")] {
        let culprit = format!("{}:({section})", file_name(input));
        assert_rejected(
            &t,
            &[&other, input],
            &["-r"],
            &[&culprit, "section size 0xffffffffffffffff"],
        );
    }
    let lone = t.link(Driver::Rld, &[&tbss], &["-r"], "lone.o");
    let kept = find_section(&sections(&lone), ".tbss").unwrap();
    assert_eq!(kept.size, u64::MAX);
    assert_rejected(&t, &[&lone], &[], &["lone.o:(.tbss)", "section size"]);

    // Huge, but ending below 2^64 in a shared object (its .bss is at a few KiB); refused
    // where executables start, at 0x200000.
    let huge = with_size(".bss", 0xffff_ffff_fff0_0000, "huge.o");
    let out = t.link(Driver::Rld, &[&huge], &["-shared"], "huge.so");
    let kept = find_section(&sections(&out), ".bss").unwrap();
    assert_eq!(kept.size, 0xffff_ffff_fff0_0000);
    assert!(kept.addr.checked_add(kept.size).is_some());
    assert_rejected(
        &t,
        &[&huge],
        &["-no-pie"],
        &["huge.o:(.bss)", "section size"],
    );
}

/// Symbol names are checked once for the whole string table: it must end with a NUL (as
/// lld requires), and each name must start inside it.
#[test]
fn rejects_unterminated_string_tables_and_names_outside_them() {
    let t = Test::new();
    // GNU as keeps section names apart (.shstrtab); clang's .strtab holds both.
    let obj = t.compile(
        rld_tests::Compiler::Gcc,
        "int get_answer(void) { return 42; }\nvoid _start(void) { for (;;) {} }\n",
        &["-O1"],
    );
    let bytes = std::fs::read(&obj).unwrap();
    let (start, size) = elf_offsets::section_bytes(&bytes, ".strtab");
    let mut open_ended = bytes.clone();
    open_ended[start + size - 1] = b'x';
    let open_ended = t.write("open.o", open_ended);
    assert_rejected(&t, &[&open_ended], &[], &["open.o", "not null-terminated"]);

    let mut outside = bytes;
    let entry = elf_offsets::symbol_entry(&outside, "get_answer");
    outside[entry..entry + 4].copy_from_slice(&(size as u32 + 7).to_le_bytes());
    let outside = t.write("outside.o", outside);
    assert_rejected(&t, &[&outside], &[], &["outside.o", "bad name offset"]);
}

/// `.eh_frame` is read with a CFI reader when the object is: a CIE it cannot read (an
/// unknown version) or an FDE whose CIE pointer leads nowhere is named with its offset.
#[test]
fn rejects_unreadable_eh_frame_records() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "int twice(int x) { return 2 * x; }\nvoid _start(void) { for (;;) {} }\n",
        &["-O1"],
    );
    let bytes = std::fs::read(&obj).unwrap();
    let (start, _) = elf_offsets::section_bytes(&bytes, ".eh_frame");
    // The first record is the CIE: length, CIE id 0, version.
    assert_eq!(&bytes[start + 4..start + 9], &[0, 0, 0, 0, 1]);
    let mut version = bytes.clone();
    version[start + 8] = 99;
    let version = t.write("version.o", version);
    assert_rejected(
        &t,
        &[&version],
        &[],
        &["version.o", "corrupt .eh_frame", "CIE at offset 0x0"],
    );

    // The FDE after it: its CIE pointer made to point past the section's start.
    let cie_len = u32::from_le_bytes(bytes[start..start + 4].try_into().unwrap()) as usize;
    let fde = start + 4 + cie_len;
    let mut pointer = bytes;
    pointer[fde + 4..fde + 8].copy_from_slice(&0x1000u32.to_le_bytes());
    let pointer = t.write("pointer.o", pointer);
    let at = format!("FDE at offset {:#x} points to no CIE", fde - start);
    assert_rejected(
        &t,
        &[&pointer],
        &[],
        &["pointer.o", "corrupt .eh_frame", &at],
    );
}

/// A non-allocated section asking for 1 GiB of alignment (a fuzzed `.comment`) would only
/// pad the file: the output stays small, and a build id does not hash a gigabyte of zeros.
#[test]
fn a_huge_alignment_outside_the_image_does_not_pad_the_output() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "int get(void) { return 3; }\nvoid _start(void) { for (;;) {} }\n",
        &["-O1"],
    );
    let mut bytes = std::fs::read(&obj).unwrap();
    let h = elf_offsets::section_header(&bytes, ".comment");
    bytes[h + 48..h + 56].copy_from_slice(&(1u64 << 30).to_le_bytes());
    let odd = t.write("odd.o", bytes);
    let out = t.link(Driver::Rld, &[&odd], &["--build-id"], "odd.out");
    assert!(std::fs::metadata(&out).unwrap().len() < 1 << 20);
    assert_readelf_clean(&out);
}

/// A common symbol's value is its alignment: 2 GiB gives a .bss that starts 2 GiB in, and
/// a small file (the padding is address space, not file); 8 GiB is refused as lld refuses it.
#[test]
fn common_symbol_alignments() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "int shared_zeros[64];\nint get(void) { return shared_zeros[3]; }\n\
         void _start(void) { for (;;) {} }\n",
        &["-O1", "-fcommon"],
    );
    let bytes = std::fs::read(&obj).unwrap();
    let with_alignment = |align: u64, name: &str| {
        let mut b = bytes.clone();
        let e = elf_offsets::symbol_entry(&b, "shared_zeros");
        b[e + 8..e + 16].copy_from_slice(&align.to_le_bytes());
        t.write(name, b)
    };
    let big = with_alignment(1 << 31, "big.o");
    let out = t.link(Driver::Rld, &[&big], &["--build-id"], "big.out");
    assert!(std::fs::metadata(&out).unwrap().len() < 1 << 20);
    assert_readelf_clean(&out);
    let huge = with_alignment(1 << 33, "huge.o");
    assert_rejected(
        &t,
        &[&huge],
        &[],
        &[
            "huge.o",
            "common symbol 'shared_zeros' has invalid alignment",
        ],
    );
}

/// Expressions nested far beyond real scripts' (GNU ld's default scripts nest a few levels):
/// 200,000 parentheses, function calls or prefix `-`, a chain `1 + 1 + ...` of 200,000
/// operators (its tree is as deep), a million-term chain, in assignments, `ASSERT`,
/// `MEMORY` and `--defsym`. rld bounds the depth it reads (1000 levels), so each is an
/// error naming the script and line instead of a stack overflow; so are an `INCLUDE` of the
/// script itself and assignments that grow too deep or too large once the values assigned
/// before them are substituted (`x = x + x;` 64 times). Depth 999 still links, even 40
/// symbols deep (each one's value read through the one before).
#[test]
fn rejects_expressions_nested_too_deeply() {
    let t = Test::new();
    let start = t.compile(Clang, START, &[]);
    const N: usize = 200_000;
    let too_deep = "expression nested too deeply (more than 1000 levels)";
    let nested = |open: &str, close: &str| format!("{}1{}", open.repeat(N), close.repeat(N));
    let in_sections = |expr: &str| {
        format!(
            "SECTIONS {{ . = 0x400000 + SIZEOF_HEADERS; x = {expr}; .text : {{ *(.text) }} }}\n"
        )
    };
    let text = "SECTIONS { .text : { *(.text) } }\n";
    let cases = [
        ("parens.lds", in_sections(&nested("(", ")")), 1),
        (
            "chain.lds",
            in_sections(&format!("1{}", " + 1".repeat(N))),
            1,
        ),
        ("unary.lds", in_sections(&format!("{}1", "- ".repeat(N))), 1),
        ("calls.lds", in_sections(&nested("ABSOLUTE(", ")")), 1),
        (
            "conditional.lds",
            in_sections(&format!("{}0", "1 ? 2 : ".repeat(N))),
            1,
        ),
        (
            "million.lds",
            format!("a = 1;\nb = 2;\nx = a{};\n{text}", " + b".repeat(999_999)),
            3,
        ),
        (
            "assert.lds",
            format!("{text}ASSERT({}, \"deep\")\n", nested("(", ")")),
            2,
        ),
        (
            "memory.lds",
            format!(
                "MEMORY {{\n  ram (rwx) : ORIGIN = {}, LENGTH = 1M\n}}\n{text}",
                nested("(", ")")
            ),
            2,
        ),
    ];
    for (name, script, line) in &cases {
        let script = t.write(name, script);
        let stderr = assert_rejected(&t, &[&start], &["-T", script.to_str().unwrap()], &[name]);
        if !is_standin() {
            let place = format!("{name}:{line}: {too_deep}");
            assert!(stderr.contains(&place), "expected {place:?}:\n{stderr}");
        }
    }

    // `--defsym` (a command-line argument holds at most 128 KiB).
    for expr in [
        format!("{}1{}", "(".repeat(20_000), ")".repeat(20_000)),
        format!("1{}", " + 1".repeat(20_000)),
        format!("{}1", "- ".repeat(20_000)),
    ] {
        let defsym = format!("--defsym=deep_sym={expr}");
        let stderr = assert_rejected(&t, &[&start], &[&defsym], &["deep_sym"]);
        if !is_standin() {
            assert!(stderr.contains(too_deep), "{stderr}");
            // The expression is shown by its start, not repeated whole.
            assert!(stderr.len() < 400, "{} bytes:\n{stderr:.400}", stderr.len());
        }
    }

    // A version script's node holds one level of `extern "C++" { ... }`, no other block
    // (GNU ld and lld refuse it): braces nested 5000 deep are an error, not ignored.
    let nested = format!(
        "V1 {{ global: {}foo;{} }};\n",
        "{".repeat(5000),
        "}".repeat(5000)
    );
    let map = t.write("nested.map", nested);
    let lib = t.compile(Clang, "int foo(void) { return 1; }\n", &["-fPIC"]);
    let version_script = format!("--version-script={}", map.display());
    let stderr = assert_rejected(&t, &[&lib], &["-shared", &version_script], &["nested.map"]);
    if !is_standin() {
        assert!(stderr.contains("unexpected '{'"), "{stderr:.400}");
    }

    // A script that includes itself.
    let itself = t.path("itself.lds");
    let itself = t.write("itself.lds", format!("INCLUDE {}\n", itself.display()));
    assert_rejected(
        &t,
        &[&start],
        &["-T", itself.to_str().unwrap()],
        &["itself.lds", "nest too deeply"],
    );

    // Assignments outside SECTIONS read the values assigned before them as expressions
    // (substituted): `x0` nests 1000 levels deep, `x1` would nest 1001, and `x` would
    // double 64 times.
    let chained = t.write(
        "chained.lds",
        format!("x0 = 1{};\nx1 = x0 + 1;\n{text}", " + 1".repeat(999)),
    );
    let stderr = assert_rejected(&t, &[&start], &["-T", chained.to_str().unwrap()], &[]);
    if !is_standin() {
        assert!(stderr.contains(too_deep), "{stderr}");
    }
    let doubled = t.write(
        "doubled.lds",
        format!("x = 1;\n{}{text}", "x = x + x;\n".repeat(64)),
    );
    let stderr = assert_rejected(&t, &[&start], &["-T", doubled.to_str().unwrap()], &[]);
    if !is_standin() {
        assert!(stderr.contains("expression too large"), "{stderr}");
    }

    // Deep but within bounds: linked. Inside SECTIONS each symbol is evaluated on its own
    // (not substituted), reading the one before.
    let mut deep = String::from("SECTIONS {\n  . = 0x400000 + SIZEOF_HEADERS;\n");
    deep += &format!("  p = {}1{};\n", "(".repeat(999), ")".repeat(999));
    deep += &format!("  u = {}1;\n", "- ".repeat(999));
    deep += "  .text : { *(.text) }\n  y0 = .;\n";
    for k in 1..=40 {
        deep += &format!("  y{k} = y{}{};\n", k - 1, " + 1".repeat(998));
    }
    deep += "}\n";
    let deep = t.write("deep_ok.lds", deep);
    let (res, cmd) = t.try_link(
        Driver::Rld,
        &[&start],
        &["-T", deep.to_str().unwrap()],
        "deep_ok.out",
    );
    assert!(
        res.status.success(),
        "{cmd}\n{}\n{}",
        describe_status(&res),
        String::from_utf8_lossy(&res.stderr)
    );
}

/// Files that cannot be opened or read, and a linker script with an unclosed comment, are
/// reported in lld-22's words (after the program name): the same error line from both.
#[test]
fn unopenable_files_are_reported_as_lld_reports_them() {
    let t = Test::new();
    let obj = t.compile(Compiler::Clang, "int main(void) { return 0; }\n", &[]);
    let obj = obj.to_str().unwrap();
    let unclosed = t.write(
        "unclosed.lds",
        "SECTIONS { /* open\n .text : { *(.text) }\n",
    );
    let unclosed = unclosed.to_str().unwrap();
    let dir = t.path("");
    let dir = dir.to_str().unwrap();
    let missing = t.path("missing");
    let missing = missing.to_str().unwrap();
    let out = t.path("out");
    let out = out.to_str().unwrap();
    let response = format!("@{missing}.rsp");
    let in_missing_dir = format!("{missing}/out");
    let cases: Vec<Vec<&str>> = vec![
        vec![&response, obj, "-o", out],
        vec!["missing.o", obj, "-o", out],
        vec!["-T", "missing.lds", obj, "-o", out],
        vec!["-T", unclosed, obj, "-o", out],
        vec!["--version-script", "missing.map", obj, "-o", out],
        vec!["--dynamic-list", "missing.list", obj, "-o", out],
        vec![obj, "-o", &in_missing_dir],
        vec![obj, "-o", dir],
    ];
    let first_error = |program: &str, args: &[&str]| -> String {
        let res = std::process::Command::new(program)
            .args(args)
            .current_dir(t.path(""))
            .output()
            .unwrap();
        assert!(!res.status.success(), "{program} {args:?} succeeded");
        let stderr = String::from_utf8_lossy(&res.stderr).into_owned();
        let line = stderr
            .lines()
            .find(|l| l.contains("error: "))
            .unwrap_or("")
            .to_string();
        line.split_once("error: ")
            .map(|(_, m)| m.to_string())
            .unwrap_or(stderr)
    };
    let rld = rld_path();
    for args in &cases {
        let ours = first_error(rld.to_str().unwrap(), args);
        let theirs = first_error("ld.lld-22", args);
        assert_eq!(ours, theirs, "{args:?}");
    }
}
