//! Merged sections keep their alignment, piece by piece (lld's rule): every string of a
//! `.rodata.str1.16` section stays 16-byte aligned however many 1-aligned strings come
//! before it (clang loads such strings with `movaps`, which faults on a misaligned
//! address), a string in both a 1-aligned and a 16-aligned section is not folded into the
//! 1-aligned copy, and constants of one entry size but different alignments all take the
//! largest. Checked by running the programs against lld's links, by the symbols' addresses,
//! in a relocatable output, and for the same bytes whatever the thread count.

use rld_tests::Compiler::Clang;
use rld_tests::*;
use std::path::{Path, PathBuf};

/// Strings and constants, each reached through `get(i)`, which first loads every 16-aligned
/// one with `movaps`. The 1-aligned strings come first and take 46 bytes (not a multiple of
/// 16); `both16` has the bytes of `both1`; `k16` has the bytes of `k8`, which is at offset 8
/// of its section.
const STRINGS_ASM: &str = r#"
	.text
	.globl	get
	.type	get,@function
get:
	movaps	a16(%rip), %xmm0
	movaps	b16(%rip), %xmm0
	movaps	both16(%rip), %xmm0
	movaps	k16(%rip), %xmm0
	leaq	table(%rip), %rax
	movq	(%rax,%rdi,8), %rax
	retq
	.size	get, .-get

	.section	.data.rel.ro,"aw",@progbits
	.p2align	3
table:
	.quad	odd, both1, a16, b16, both16, k8, k16

	.section	.rodata.str1.1,"aMS",@progbits,1
odd:
	.asciz	"odd"
both1:
	.asciz	"in both sections: 1-aligned and 16-aligned"

	.section	.rodata.str1.16,"aMS",@progbits,1
	.p2align	4
a16:
	.asciz	"agctuAGCTUnNbdhkmnrsvwyx-O"
	.p2align	4
b16:
	.asciz	"ARNDCQEGHILKMFPSTWYVBZX.-U"
	.p2align	4
both16:
	.asciz	"in both sections: 1-aligned and 16-aligned"

	.section	.rodata.cst8,"aM",@progbits,8,unique,1
	.p2align	3
	.quad	0x1111111111111111
k8:
	.quad	0x2222222222222222

	.section	.rodata.cst8,"aM",@progbits,8,unique,2
	.p2align	4
k16:
	.quad	0x2222222222222222
	.section	.note.GNU-stack,"",@progbits
"#;

/// Prints what `get` returns, marking a misaligned 16-aligned one.
const STRINGS_MAIN: &str = r#"
#include <stdint.h>
#include <stdio.h>
const void *get(long i);
int main(void) {
  for (long i = 0; i < 5; i++) {
    const char *s = get(i);
    printf("%s%s\n", s, i >= 2 && (uintptr_t)s % 16 ? " (misaligned)" : "");
  }
  for (long i = 5; i < 7; i++) {
    const uint64_t *k = get(i);
    printf("%llx%s\n", (unsigned long long)*k, i == 6 && (uintptr_t)k % 16 ? " (misaligned)" : "");
  }
  return 0;
}
"#;

const STRINGS_OUT: &str = "odd\n\
                           in both sections: 1-aligned and 16-aligned\n\
                           agctuAGCTUnNbdhkmnrsvwyx-O\n\
                           ARNDCQEGHILKMFPSTWYVBZX.-U\n\
                           in both sections: 1-aligned and 16-aligned\n\
                           2222222222222222\n\
                           2222222222222222\n";

/// The `.symtab` value of the local symbol `name` (there must be one).
fn address(exe: &Path, name: &str) -> u64 {
    let syms = find_symbols(&symbols(exe), ".symtab", name);
    assert_eq!(syms.len(), 1, "{name} in {}: {syms:?}", exe.display());
    syms[0].value
}

/// The symbols that must be 16-byte aligned in `exe` (relative to their section in a
/// relocatable output: its sections are 16-aligned too), and `both16` kept apart from
/// `both1`, as lld keeps it.
fn assert_aligned(exe: &Path) {
    for name in ["a16", "b16", "both16", "k8", "k16"] {
        let at = address(exe, name);
        assert_eq!(at % 16, 0, "{name} at {at:#x} in {}", exe.display());
    }
    assert_ne!(
        address(exe, "both1"),
        address(exe, "both16"),
        "the 16-aligned string folded into the 1-aligned one in {}",
        exe.display()
    );
}

fn strings_objects(t: &Test) -> [PathBuf; 2] {
    let s = t.write("strings.s", STRINGS_ASM);
    [
        t.compile(Clang, STRINGS_MAIN, &[]),
        t.compile(Clang, s.to_str().unwrap(), &[]),
    ]
}

#[test]
fn aligned_strings_after_unaligned_ones_keep_their_alignment() {
    let t = Test::new();
    let objs = strings_objects(&t);
    let lld = t.link(Driver::ClangLld, &paths(&objs), &[], "lld.out");
    assert_aligned(&lld);
    for exe in t.check_program(&paths(&objs), &[], Some(STRINGS_OUT)) {
        assert_aligned(&exe);
        let secs = sections(&exe);
        let rodata = find_section(&secs, ".rodata").expect("a .rodata");
        assert!(rodata.align >= 16, "{rodata:?}");
    }
}

#[test]
fn relocatable_output_keeps_merged_pieces_aligned() {
    let t = Test::new();
    let [main, strings] = strings_objects(&t);
    let partial = t.link(Driver::Rld, &[&strings], &["-r"], "partial.o");
    for name in [".rodata.str1.16", ".rodata.cst8"] {
        let secs = sections(&partial);
        let s = find_section(&secs, name).unwrap_or_else(|| panic!("no {name}: {secs:?}"));
        assert_eq!(s.align, 16, "{s:?}");
    }
    assert_aligned(&partial);
    for exe in t.check_program(&[&main, &partial], &[], Some(STRINGS_OUT)) {
        assert_aligned(&exe);
    }
}

#[test]
fn merged_layout_does_not_depend_on_threads() {
    let t = Test::new();
    let objs = strings_objects(&t);
    let outs: Vec<Vec<u8>> = [1, 2, 8]
        .iter()
        .map(|n| {
            let flag = format!("-Wl,--threads={n}");
            let exe = t.link(Driver::ClangRld, &paths(&objs), &[&flag], &format!("t{n}"));
            std::fs::read(exe).unwrap()
        })
        .collect();
    assert!(
        outs.iter().all(|o| o == &outs[0]),
        "outputs differ by thread count"
    );
}

/// clang copies a local `char[]` initialized from a string from a 16-aligned unnamed
/// constant in `.rodata.str1.16`, with `movaps`; the same bytes as a 1-aligned literal
/// come first, from another object.
#[test]
fn local_char_arrays_of_c_copy_from_aligned_strings() {
    let t = Test::new();
    let first = t.compile(
        Clang,
        r#"
#include <stdio.h>
void first(void) { puts("1"); puts("agctuAGCTUnNbdhkmnrsvwyx-O"); puts("ARNDCQEGHILKMFPSTWYVBZX.-U"); }
"#,
        &["-O2"],
    );
    let second = t.compile(
        Clang,
        r#"
#include <stdio.h>
#include <string.h>
void first(void);
__attribute__((noinline)) int nuc(const char *s) {
  char tbl[] = "agctuAGCTUnNbdhkmnrsvwyx-O";
  const char *p = strchr(tbl, s[0]);
  return p ? (int)(p - tbl) : -1;
}
__attribute__((noinline)) int amino(const char *s) {
  char tbl[] = "ARNDCQEGHILKMFPSTWYVBZX.-U";
  const char *p = strchr(tbl, s[0]);
  return p ? (int)(p - tbl) : -1;
}
int main(void) {
  first();
  printf("%d %d\n", nuc("n"), amino("Z"));
  return 0;
}
"#,
        &["-O2"],
    );
    let asm = tool_stdout("objdump", &["-dr"], &second);
    assert!(
        asm.contains("movaps"),
        "no movaps from the constants:\n{asm}"
    );
    let rodata = sections(&second);
    let s = find_section(&rodata, ".rodata.str1.16").expect("clang's 16-aligned strings");
    assert_eq!(s.align, 16, "{s:?}");
    let want = "1\nagctuAGCTUnNbdhkmnrsvwyx-O\nARNDCQEGHILKMFPSTWYVBZX.-U\n10 21\n";
    t.check_program(&[&first, &second], &[], Some(want));
}

/// Strings and constants of two C objects (some in both) and of the assembly above: the
/// merged `.rodata` is lld's byte for byte (lld deals the pieces to 32 shards by hash and
/// lays the shards out in turn), so that what follows it sits at lld's addresses too.
#[test]
fn merged_sections_are_lld_s_bytes() {
    let t = Test::new();
    let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
        "juliett", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
        "sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu",
    ];
    // Each object prints its half of the words and all of them in a second format, and
    // sums a few double constants (which land in `.rodata.cst8` / `.cst16`).
    let source = |half: &[&str], name: &str| {
        let mut s = String::from("#include <stdio.h>\n");
        s += &format!("double {name}(double x) {{\n");
        for w in half {
            s += &format!("  puts(\"{w}\");\n");
        }
        for w in &words {
            s += &format!("  printf(\"%s: {w}\\n\", \"{name}\");\n");
        }
        s += "  return x * 1.5 + x * 2.25 - x / 3.0 + 1e10;\n}\n";
        s
    };
    let a = t.compile(Clang, &source(&words[..13], "first"), &["-O2"]);
    let b = t.compile(Clang, &source(&words[13..], "second"), &["-O2"]);
    let main = t.compile(
        Clang,
        "#include <stdio.h>\ndouble first(double);\ndouble second(double);\n\
         int main(void) { printf(\"%.3f\\n\", first(2.0) + second(3.0)); return 0; }\n",
        &["-O2"],
    );
    let [_, strings] = strings_objects(&t);
    let objs: [&Path; 4] = [&main, &a, &b, &strings];
    let lld = t.link(Driver::ClangLld, &objs, &[], "lld.out");
    let expected = section_data(&lld, ".rodata");
    for exe in t.check_program(&objs, &[], None) {
        let got = section_data(&exe, ".rodata");
        assert!(
            got == expected,
            "{}: .rodata differs from lld's ({} bytes against {})",
            exe.display(),
            got.len(),
            expected.len()
        );
    }
}

/// lld's `-O` levels: `-O0` merges nothing (each input's strings and constants are copied
/// whole, in input order, with lld's own `.comment` line last), `-O2` also shares a
/// string's bytes with a string it ends ("world" inside "hello world", 1- and 16-aligned
/// strings, `.debug_str`), laid out in lld's order. At each level `.rodata`, `.debug_str`
/// are lld's byte for byte, `.comment` has lld's strings in lld's order (the linker's
/// name aside), and the programs run.
#[test]
fn optimization_levels_merge_as_lld() {
    let t = Test::new();
    let a = t.compile(
        Clang,
        "#include <stdio.h>\nconst char *tail_a(void) { return \"o world\"; }\n\
         void say_a(void) { puts(\"hello world\"); puts(\"rld\"); printf(\"%f\\n\", 2.5); }\n",
        &["-O2", "-g"],
    );
    let b = t.compile(
        Clang,
        "#include <stdio.h>\nconst char *tail_a(void);\nvoid say_a(void);\n\
         int main(void) { say_a(); puts(\"world\"); puts(tail_a()); puts(\"hello world\");\n\
         printf(\"%f %s\\n\", 2.5, \"ld\"); return 0; }\n",
        &["-O2", "-g"],
    );
    let [_, strings] = strings_objects(&t);
    let objs: [&Path; 3] = [&a, &b, &strings];
    let comment = |exe: &Path| -> Vec<String> {
        tool_stdout("readelf", &["-p", ".comment"], exe)
            .lines()
            .filter_map(|l| l.split_once("]  ").map(|(_, s)| s))
            .map(|s| {
                if s.starts_with("Linker: ") {
                    "Linker"
                } else {
                    s
                }
                .to_string()
            })
            .collect()
    };
    let mut rodata = Vec::new();
    for level in ["-Wl,-O0", "-Wl,-O1", "-Wl,-O2"] {
        let lld = t.link(Driver::ClangLld, &objs, &[level], &format!("lld{level}"));
        rodata.push(section_data(&lld, ".rodata"));
        for exe in t.check_program(
            &objs,
            &[level],
            Some("hello world\nrld\n2.500000\nworld\no world\nhello world\n2.500000 ld\n"),
        ) {
            for name in [".rodata", ".debug_str"] {
                let (got, want) = (section_data(&exe, name), section_data(&lld, name));
                assert!(
                    got == want,
                    "{level} {}: {name} differs from lld's ({} bytes against {})",
                    exe.display(),
                    got.len(),
                    want.len()
                );
            }
            if exe.to_string_lossy().contains("clang") {
                // Tail merging sorts the linker's line by its bytes: its place is its own.
                let others = |mut l: Vec<String>| {
                    l.retain(|s| level != "-Wl,-O2" || s != "Linker");
                    l
                };
                assert_eq!(
                    others(comment(&exe)),
                    others(comment(&lld)),
                    "{level} {}",
                    exe.display()
                );
            }
        }
    }
    // What each level does shows: "hello world" twice (copied whole), once (merged), and
    // "world" and "o world" inside it (tail-merged).
    let count = |level: usize, s: &str| count_occurrences(&rodata[level], s.as_bytes());
    assert_eq!(
        [0, 1, 2].map(|l| (count(l, "hello world\0"), count(l, "world\0"))),
        [(2, 4), (1, 3), (1, 1)]
    );
    assert!(rodata[2].len() < rodata[1].len());
}
