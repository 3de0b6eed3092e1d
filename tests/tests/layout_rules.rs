//! Layout and relocation rules where GNU ld and lld agree, each checked by running the
//! program and comparing it with the reference build: `--defsym NAME=NUMBER` is absolute
//! in a PIE, constructor tables run in GNU ld's order (`.ctors` folded into `.init_array`
//! reversed, priorities across objects and archives), an output with more than 65,279
//! sections uses the ELF extended numbering, a GOTPCRELX load is relaxed only where the
//! direct reference reaches (and `test` and binary operations to immediates as lld does), `.eh_frame_hdr` lists the functions lld's lists, and code
//! sections sit where lld puts them (there GNU ld differs, and lld is the reference), with
//! trap instructions between functions (lld's; GNU ld pads with NOPs).

use rld_tests::Compiler::{Clang, Gcc};
use rld_tests::*;
use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn defsym_number_is_absolute_in_pie() {
    let t = Test::new();
    // clang loads `magic` through the GOT and the initializer is an R_X86_64_64: neither
    // may be moved by the load address.
    let obj = t.compile(
        Clang,
        "#include <stdio.h>\nextern char magic[];\nvoid *p = magic;\nint main(void) { printf(\"%p %p\\n\", (void *)magic, p); return 0; }\n",
        &["-O2"],
    );
    for kind in ["-pie", "-no-pie"] {
        let exes = t.check_program(
            &[&obj],
            &[kind, "-Wl,--defsym,magic=0x1234"],
            Some("0x1234 0x1234\n"),
        );
        for exe in exes {
            let syms = find_symbols(&symbols(&exe), ".symtab", "magic");
            assert_eq!(syms.len(), 1, "{syms:?}");
            assert_eq!(syms[0].ndx, "ABS", "{syms:?}");
        }
    }
}

/// `ENTRY(sec, name)`: a function printing its name, and a pointer to it in section `sec`.
const ENTRY_MACRO: &str = r#"
#include <stdio.h>
#define ENTRY(sec, name) \
  static void name(void) { puts(#name); } \
  static void (*name##_ptr)(void) __attribute__((section(sec), used)) = name;
"#;

/// A table of constructor pointers placed in `sec` by each object: `.ctors` and `.dtors`
/// with and without priorities, `.init_array` and `.fini_array` with and without, and
/// `__attribute__((constructor(N)))`.
const CTORS_A: &str = r#"
ENTRY(".init_array", a_init_array)
ENTRY(".ctors", a_ctors_1)
ENTRY(".ctors", a_ctors_2)
ENTRY(".ctors.65435", a_ctors_prio100)
ENTRY(".init_array.00150", a_init_array_prio150)
ENTRY(".ctors.65385", a_ctors_prio150)
ENTRY(".dtors", a_dtors_1)
ENTRY(".dtors", a_dtors_2)
ENTRY(".dtors.65435", a_dtors_prio100)
ENTRY(".fini_array.00100", a_fini_array_prio100)
ENTRY(".fini_array", a_fini_array)
__attribute__((constructor(120))) static void a_attr_ctor120(void) { puts("a_attr_ctor120"); }
__attribute__((constructor)) static void a_attr_ctor(void) { puts("a_attr_ctor"); }
__attribute__((destructor(130))) static void a_attr_dtor130(void) { puts("a_attr_dtor130"); }
int main(void) { puts("main"); return 0; }
"#;

const CTORS_B: &str = r#"
ENTRY(".ctors", b_ctors_1)
ENTRY(".ctors", b_ctors_2)
ENTRY(".ctors", b_ctors_3)
ENTRY(".init_array", b_init_array)
ENTRY(".ctors.65435", b_ctors_prio100)
ENTRY(".init_array.00100", b_init_array_prio100)
ENTRY(".dtors", b_dtors_1)
ENTRY(".dtors.65435", b_dtors_prio100)
"#;

/// An archive member, pulled in by a reference from another object.
const CTORS_MEMBER: &str = r#"
ENTRY(".ctors", c_member_ctors)
ENTRY(".init_array.00101", c_member_init_array_prio101)
ENTRY(".dtors", c_member_dtors)
int c_member_anchor = 1;
"#;

/// lld-22 leaves `.ctors` out of `.init_array` (nothing runs it), so GNU ld is the
/// reference: every constructor and destructor runs, in GNU ld's order.
#[test]
fn constructor_tables_run_in_gnu_ld_order() {
    let t = Test::new();
    for cc in [Gcc, Clang] {
        let with_macro = |body: &str| format!("{ENTRY_MACRO}{body}");
        let a = t.compile(cc, &with_macro(CTORS_A), &["-O2"]);
        let b = t.compile(cc, &with_macro(CTORS_B), &["-O2"]);
        let user = t.compile(
            cc,
            "extern int c_member_anchor;\nint use_c(void) { return c_member_anchor; }\n",
            &["-O2"],
        );
        let member = t.compile(cc, &with_macro(CTORS_MEMBER), &["-O2"]);
        let archive = t.archive("libctors.a", &[&member]);
        for flags in [&[][..], &["-static"]] {
            let objs: [&Path; 4] = [&a, &b, &user, &archive];
            let reference = t.link(Driver::GccLd, &objs, flags, "gnu-ld.out");
            let expected = run(&reference, &[], &[]);
            let text = String::from_utf8_lossy(&expected.stdout).into_owned();
            // The reference itself: 26 entries, priorities first, `.ctors` reversed.
            assert_eq!(text.lines().count(), 26, "{text}");
            assert!(
                text.starts_with("a_ctors_prio100\nb_ctors_prio100\nb_init_array_prio100\n"),
                "{text}"
            );
            // clang emits the pointers in source order, so GNU ld's reversal shows.
            if cc == Clang {
                assert!(
                    text.contains("a_ctors_2\na_ctors_1\nb_ctors_3\nb_ctors_2\nb_ctors_1\n"),
                    "{text}"
                );
            }
            for d in Driver::RLD_DRIVERS {
                let exe = t.link(d, &objs, flags, &format!("{}.out", d.name()));
                assert_same_output(&exe, &reference, &[], &[], Some(&text));
            }
        }
    }
}

/// 70,000 sections with distinct names give as many output sections: e_shnum is 0 and
/// e_shstrndx SHN_XINDEX with the real values in section 0, and symbols in sections past
/// 65,279 have their index in .symtab_shndx — like lld's output, which readelf reads the
/// same way.
#[test]
fn more_than_65279_sections_use_extended_numbering() {
    let t = Test::new();
    let many = assembled(&t, |i| {
        format!(
            ".section s{i},\"a\",@progbits\n.globl v{i}\nv{i}: .byte {}\n",
            i % 100
        )
    });
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nextern char v0, v1, v69998, v69999;\nint main(void) { printf(\"%d %d %d %d\\n\", v0, v1, v69998, v69999); return 0; }\n",
        &["-O2"],
    );
    let exes = t.check_program(&[&main, &many], &[], Some("0 1 98 99\n"));
    let lld = t.path("clang-lld.out");
    let header = |p: &PathBuf| -> Vec<String> {
        let out = run_checked(std::process::Command::new("readelf").arg("-hW").arg(p));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.contains("Number of section headers") || l.contains("string table index"))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    };
    let lld_header = header(&lld);
    assert_eq!(lld_header.len(), 2, "{lld_header:?}");
    assert!(lld_header[0].ends_with(": 0 (70032)"), "{lld_header:?}");
    assert!(lld_header[1].contains("65535 ("), "{lld_header:?}");
    // The section v69999 is defined in, by name: its index is past 65,279, so readelf
    // found it through .symtab_shndx (or, for lld, the same mechanism).
    let section_of_last = |p: &PathBuf| -> String {
        let syms = symbols(p);
        let v = find_symbols(&syms, ".symtab", "v69999");
        assert_eq!(v.len(), 1, "{}", p.display());
        let index: usize = v[0].ndx.parse().unwrap_or_else(|_| panic!("{:?}", v[0]));
        assert!(index > 65_279, "{:?}", v[0]);
        let secs = sections(p);
        secs.iter()
            .find(|s| s.index == index)
            .map(|s| s.name.clone())
            .unwrap_or_default()
    };
    assert_eq!(section_of_last(&lld), "s69999");
    for exe in &exes {
        // e_shnum 0 with the real count (which depends on what the driver asks for:
        // gcc's --hash-style=gnu has no .hash); e_shstrndx SHN_XINDEX with .shstrtab's
        // index (just before .strtab, as lld places them).
        let h = header(exe);
        let count: u32 = h[0]
            .strip_prefix("Number of section headers: 0 (")
            .and_then(|c| c.strip_suffix(')'))
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("{h:?}"));
        assert!(count > 70_000, "{h:?}");
        let shstrtab = sections(exe)
            .iter()
            .find(|s| s.name == ".shstrtab")
            .map(|s| s.index)
            .unwrap_or_else(|| panic!("no .shstrtab in {}", exe.display()));
        assert_eq!(shstrtab as u32, count - 2, "{h:?}");
        assert!(h[1].ends_with(&format!("65535 ({shstrtab})")), "{h:?}");
        assert_eq!(sections(exe).len() as u32, count, "{}", exe.display());
        assert_eq!(section_of_last(exe), "s69999", "{}", exe.display());
    }
}

/// `main` reaches `after_big` through a REX_GOTPCRELX load; a 3 GiB .bss lies between
/// them, so `lea after_big(%rip)` cannot reach it and the GOT load must stay. rld and
/// lld-22 keep the GOT entry by themselves (lld-14 and GNU ld reject the link unless given
/// --no-relax).
#[test]
fn gotpcrelx_relaxed_only_within_reach() {
    let t = Test::new();
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nextern char big[], after_big[];\nint main(void) { after_big[3] = 7; printf(\"%ld %d\\n\", (long)(after_big - big), after_big[3]); return 0; }\n",
        &["-O2"],
    );
    let big = t.compile(Clang, "char big[3UL << 30];\n", &["-O2"]);
    let after = t.compile(Clang, "char after_big[16];\n", &["-O2"]);
    let objs: [&Path; 3] = [&main, &big, &after];
    let expected = format!("{} 7\n", 3u64 << 30);
    for kind in ["-pie", "-no-pie"] {
        let lld = t.link(Driver::ClangLld, &objs, &[kind], "lld.out");
        assert_output_is(&lld, &run(&lld, &[], &[]), &expected, "lld");
        for d in Driver::RLD_DRIVERS {
            let exe = t.link(d, &objs, &[kind], &format!("{}.out", d.name()));
            assert_output_is(&exe, &run(&exe, &[], &[]), &expected, d.name());
        }
    }
    // A far absolute target: the GOT holds it; a direct reference could not reach it.
    let abs = t.compile(
        Clang,
        "#include <stdio.h>\nextern char far[];\nint main(void) { printf(\"%p\\n\", (void *)far); return 0; }\n",
        &["-O2"],
    );
    for kind in ["-pie", "-no-pie"] {
        t.check_program(
            &[&abs],
            &[kind, "-Wl,--defsym,far=0x7fff00001234"],
            Some("0x7fff00001234\n"),
        );
    }
}

/// `compute(x, out)`: every instruction that can read a GOT slot through GOTPCRELX, each
/// result stored in `out[]`: the binary operations and `test` with a REX prefix (relaxed to
/// immediates in a position-dependent output), a 32-bit one with REX (relaxed) and without
/// (kept), one reading `farvar`, a GOTPCRELX with addend 0 that reads the slot's upper half
/// (never relaxed), and a plain load.
const GOT_OPS: &str = r#"
	.text
	.globl	compute
	.type	compute,@function
compute:
	pushq	%r15
	pushq	%r12
	movq	%rdi, %rax
	clc
	adcq	var@GOTPCREL(%rip), %rax
	movq	%rax, 0(%rsi)
	movq	%rdi, %rcx
	addq	var@GOTPCREL(%rip), %rcx
	movq	%rcx, 8(%rsi)
	movq	%rdi, %rdx
	andq	var@GOTPCREL(%rip), %rdx
	movq	%rdx, 16(%rsi)
	movq	%rdi, %r8
	orq	var@GOTPCREL(%rip), %r8
	movq	%r8, 24(%rsi)
	movq	%rdi, %r12
	subq	var@GOTPCREL(%rip), %r12
	movq	%r12, 32(%rsi)
	movq	%rdi, %r15
	xorq	var@GOTPCREL(%rip), %r15
	movq	%r15, 40(%rsi)
	movq	%rdi, %rax
	cmpq	var@GOTPCREL(%rip), %rax
	sbbq	var@GOTPCREL(%rip), %rax
	movq	%rax, 48(%rsi)
	movq	%rdi, %r15
	xorl	%eax, %eax
	testq	%r15, var@GOTPCREL(%rip)
	setne	%al
	movq	%rax, 56(%rsi)
	movl	%edi, %r8d
	addl	var@GOTPCREL(%rip), %r8d
	movq	%r8, 64(%rsi)
	movl	%edi, %eax
	addl	var@GOTPCREL(%rip), %eax
	movq	%rax, 72(%rsi)
	movq	%rdi, %rax
	addq	farvar@GOTPCREL(%rip), %rax
	movq	%rax, 80(%rsi)
	.byte	0x8b, 0x05
	.reloc	., R_X86_64_GOTPCRELX, var
	.long	0
	movq	%rax, 88(%rsi)
	movq	var@GOTPCREL(%rip), %rax
	movq	%rax, 96(%rsi)
	popq	%r12
	popq	%r15
	ret
	.size	compute, .-compute
	.data
	.globl	var
var:	.quad	5
	.bss
	.globl	farvar
farvar:	.zero	8
	.section .note.GNU-stack,"",@progbits
"#;

/// Checks `compute`'s results against the same operations done in C on the addresses.
const GOT_OPS_MAIN: &str = r#"
#include <stdio.h>
extern void compute(long, long *);
extern char var[], farvar[];
int main(void) {
  long x = 0x1234567, v = (long)var, f = (long)farvar, out[13];
  compute(x, out);
  long want[13] = {x + v, x + v, x & v, x | v, x - v, x ^ v,
                   x - v - ((unsigned long)x < (unsigned long)v), (x & v) != 0,
                   (unsigned)(x + v), (unsigned)(x + v), x + f,
                   (long)((unsigned long)v >> 32), v};
  int bad = 0;
  for (int i = 0; i < 13; i++)
    if (out[i] != want[i]) { printf("out[%d] = %#lx, want %#lx\n", i, out[i], want[i]); bad = 1; }
  puts(bad ? "wrong" : "right");
  return 0;
}
"#;

/// lld relaxes a non-PIC `test` or binary operation reading a GOT slot
/// (R_X86_64_REX_GOTPCRELX) to the same operation on an immediate address, and relaxes
/// nothing at an addend other than -4: rld writes lld's `.text` and `.got` byte for byte,
/// as a position-dependent executable and as a PIE (where only `mov` relaxes). Where an
/// address does not fit the immediate (a variable past a 3 GiB `.bss`), the slot stays.
#[test]
fn got_reads_by_test_and_binops_become_immediates_as_lld() {
    let t = Test::new();
    let ops = t.assemble("ops", GOT_OPS);
    let main = t.compile(Clang, GOT_OPS_MAIN, &["-O2"]);
    let immediates = |exe: &Path| {
        let out = run_checked(
            Command::new("objdump")
                .args(["-d", "--no-show-raw-insn"])
                .arg(exe),
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let body = text.split("<compute>:").nth(1).unwrap_or_default();
        let body = body.split("\n\n").next().unwrap_or_default();
        body.lines()
            .filter(|l| l.contains(",%") && l.contains("$0x"))
            .count()
    };
    for kind in ["-no-pie", "-pie"] {
        let objs: [&Path; 2] = [&main, &ops];
        let lld = t.link(Driver::ClangLld, &objs, &[kind], &format!("lld{kind}"));
        assert_output_is(&lld, &run(&lld, &[], &[]), "right\n", "lld");
        // The reference relaxes the eight 64-bit binary operations on `var`, `test`, the
        // 32-bit one with REX, and the one on `farvar`.
        let expected = if kind == "-no-pie" { 11 } else { 0 };
        assert_eq!(immediates(&lld), expected, "lld {kind}");
        for d in Driver::RLD_DRIVERS {
            let exe = t.link(d, &objs, &[kind], &format!("{}{kind}", d.name()));
            assert_output_is(&exe, &run(&exe, &[], &[]), "right\n", d.name());
            for name in [".text", ".got"] {
                assert_eq!(
                    section_data(&exe, name),
                    section_data(&lld, name),
                    "{} {kind}: {name}",
                    d.name()
                );
            }
        }
        let big = t.compile(Clang, "char big[3UL << 30];\n", &["-O2"]);
        let far: [&Path; 3] = [&main, &big, &ops];
        let lld = t.link(Driver::ClangLld, &far, &[kind], &format!("lld-far{kind}"));
        assert_output_is(&lld, &run(&lld, &[], &[]), "right\n", "lld");
        // All but the one on `farvar`, whose address does not fit.
        assert_eq!(
            immediates(&lld),
            expected.saturating_sub(1),
            "lld far {kind}"
        );
        for d in Driver::RLD_DRIVERS {
            let exe = t.link(d, &far, &[kind], &format!("{}-far{kind}", d.name()));
            assert_output_is(&exe, &run(&exe, &[], &[]), "right\n", d.name());
            assert_eq!(
                immediates(&exe),
                immediates(&lld),
                "{} far {kind}",
                d.name()
            );
        }
    }
}

/// The CIEs of `.eh_frame` (readelf's frame dump), as (offset, augmentation) pairs.
fn cies(exe: &Path) -> Vec<String> {
    let out = run_checked(std::process::Command::new("readelf").args(["-wf"]).arg(exe));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        !text.contains("Warning") && !text.contains("Error"),
        "{text}"
    );
    text.lines()
        .filter(|l| l.ends_with(" CIE"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn equal_cies_of_many_objects_are_kept_once() {
    // Objects compiled alike start with equal CIEs; C++ ones with a personality routine
    // have a second kind. GNU ld and lld keep one of each, and the unwinder still finds
    // every FDE's CIE: exceptions cross the objects.
    let t = Test::new();
    let a = t.compile_cxx(
        Clang,
        "#include <stdexcept>\n#include <cstdio>\nint thrower(int x);\nint catcher(int x) { try { return thrower(x); } catch (const std::exception &e) { std::printf(\"caught %s\\n\", e.what()); return -1; } }\nint main() { std::printf(\"%d\\n\", catcher(1)); std::printf(\"%d\\n\", catcher(0)); }\n",
        &["-O1"],
    );
    let b = t.compile_cxx(
        Gcc,
        "#include <stdexcept>\n#include <string>\nstruct Guard { std::string s; ~Guard() {} };\nint thrower(int x) { Guard g{\"x\"}; if (x) throw std::runtime_error(\"boom\"); return 42; }\n",
        &["-O1"],
    );
    let c = t.compile(Clang, "int plain(int x) { return x + 1; }\n", &["-O1"]);
    let d = t.compile(Clang, "int plain2(int x) { return x * 3; }\n", &["-O1"]);
    let exes = t.check_cxx_program(&[&a, &b, &c, &d], &[], Some("caught boom\n-1\n42\n"));
    let reference = cies(&t.path("clang-lld.out"));
    for exe in exes {
        let ours = cies(&exe);
        assert_eq!(
            ours.len(),
            reference.len(),
            "{ours:?} vs lld's {reference:?}"
        );
    }
}

#[test]
fn functions_in_sections_past_65279_survive_gc_with_their_fdes() {
    // Symbols whose section index needs SHN_XINDEX are ordinary definitions: garbage
    // collection keeps their sections and `.eh_frame` keeps their FDEs, as lld does.
    let t = Test::new();
    let many = assembled(&t, |i| {
        format!(
            ".section .text.f{i},\"ax\",@progbits\n.globl f{i}\n.type f{i},@function\nf{i}:\n.cfi_startproc\nmovl ${}, %eax\nret\n.cfi_endproc\n",
            i % 100
        )
    });
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint f0(void), f65300(void), f69999(void);\nint main(void) { printf(\"%d %d %d\\n\", f0(), f65300(), f69999()); return 0; }\n",
        &["-O2"],
    );
    let exes = t.check_program(&[&main, &many], &["-Wl,--gc-sections"], Some("0 0 99\n"));
    let fdes = |p: &Path| {
        let out = run_checked(Command::new("readelf").arg("-wf").arg(p));
        String::from_utf8_lossy(&out.stdout)
            .matches("FDE cie")
            .count()
    };
    let reference = fdes(&t.path("clang-lld.out"));
    for exe in exes {
        assert_eq!(fdes(&exe), reference, "{}", exe.display());
    }
}

#[test]
fn symbols_with_processor_specific_section_indices_are_absolute() {
    // st_shndx 0xff01 (SHN_LOPROC + 1, meaning nothing on x86-64): GNU ld and lld both
    // make the symbol absolute.
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "#include <stdio.h>\nint counter = 5;\nint main(void) { printf(\"%p\\n\", (void *)&counter); return 0; }\n",
        &["-O2", "-fno-pie"],
    );
    let mut bytes = std::fs::read(&obj).unwrap();
    let at = elf_offsets::symbol_entry(&bytes, "counter");
    bytes[at + 6..at + 8].copy_from_slice(&0xff01u16.to_le_bytes());
    let patched = t.write("patched.o", &bytes);
    let flags = ["-no-pie"];
    let mut outputs = Vec::new();
    for d in [Driver::ClangLld, Driver::GccLd, Driver::ClangRld] {
        let exe = t.link(d, &[&patched], &flags, &format!("{}.out", d.name()));
        let syms = find_symbols(&symbols(&exe), ".symtab", "counter");
        assert_eq!(syms.len(), 1, "{}", d.name());
        assert_eq!(
            (syms[0].ndx.as_str(), syms[0].value),
            ("ABS", 0),
            "{}",
            d.name()
        );
        outputs.push(String::from_utf8_lossy(&run(&exe, &[], &[]).stdout).into_owned());
    }
    assert!(outputs.iter().all(|o| o == &outputs[0]), "{outputs:?}");
}

/// An object assembled from 70,000 pieces of assembly, `piece(i)` each (one section each).
fn assembled(t: &Test, piece: impl Fn(usize) -> String) -> PathBuf {
    let asm: String = (0..70_000).map(piece).collect();
    t.assemble("many", &asm)
}

/// The `.eh_frame_hdr` search table as (function name, FDE offset from the table) pairs, in
/// table order: each entry's start named by the symbol at that address.
fn eh_frame_hdr_functions(exe: &Path) -> Vec<String> {
    let hdr = section_data(exe, ".eh_frame_hdr");
    let secs = sections(exe);
    let hdr_addr = find_section(&secs, ".eh_frame_hdr").unwrap().addr as i64;
    assert_eq!(
        &hdr[..4],
        &[1, 0x1b, 0x03, 0x3b],
        "{}: header",
        exe.display()
    );
    let word = |at: usize| i32::from_le_bytes(hdr[at..at + 4].try_into().unwrap()) as i64;
    let count = word(8) as usize;
    assert_eq!(hdr.len(), 12 + 8 * count, "{}: table size", exe.display());
    let names: std::collections::HashMap<u64, String> = tool_stdout("nm", &[], exe)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            match f.as_slice() {
                [addr, "T" | "t", name] => {
                    Some((u64::from_str_radix(addr, 16).ok()?, name.to_string()))
                }
                _ => None,
            }
        })
        .collect();
    let starts: Vec<i64> = (0..count).map(|i| hdr_addr + word(12 + 8 * i)).collect();
    assert!(
        starts.windows(2).all(|w| w[0] < w[1]),
        "{}: table not sorted by address",
        exe.display()
    );
    starts
        .iter()
        .map(|&pc| {
            names
                .get(&(pc as u64))
                .cloned()
                .unwrap_or(format!("{pc:#x}"))
        })
        .collect()
}

#[test]
fn eh_frame_hdr_lists_the_functions_lld_lists() {
    // Functions in their own sections, some of them garbage: the table must cover exactly
    // the kept functions with an FDE, sorted, as lld's does.
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "#include <stdio.h>\n\
         __attribute__((noinline)) int used_a(int x) { return x * 3 + 1; }\n\
         __attribute__((noinline)) int unused_b(int x) { return x * 5 + 2; }\n\
         __attribute__((noinline)) static int used_c(int x) { return used_a(x) - 7; }\n\
         __attribute__((noinline)) int unused_d(int x) { return unused_b(x) + 9; }\n\
         int main(int argc, char **argv) { printf(\"%d\\n\", used_c(argc)); return 0; }\n",
        &["-O2", "-ffunction-sections"],
    );
    let exes = t.check_program(&[&obj], &["-Wl,--gc-sections"], Some("-3\n"));
    let tables: Vec<Vec<String>> = exes.iter().map(|e| eh_frame_hdr_functions(e)).collect();
    for (exe, table) in exes.iter().zip(&tables) {
        for f in ["main", "used_a", "used_c"] {
            assert!(
                table.iter().any(|n| n == f),
                "{}: {f} missing from {table:?}",
                exe.display()
            );
        }
        assert!(
            !table.iter().any(|n| n.starts_with("unused_")),
            "{}: dropped functions listed: {table:?}",
            exe.display()
        );
    }
    for (exe, table) in exes.iter().zip(&tables).skip(1) {
        assert_eq!(
            table,
            &tables[0],
            "{} vs {}",
            exe.display(),
            exes[0].display()
        );
    }
}

/// Two FDEs for one address (an empty function before the next one in its section): the
/// search table lists the address once, with the first FDE, and counts it once, as lld's;
/// the whole file is lld's.
#[test]
fn eh_frame_hdr_lists_one_fde_per_address() {
    let t = Test::new();
    let asm = t.assemble(
        "empty",
        "\t.text\n\t.globl empty\n\t.type empty,@function\nempty:\n\t.cfi_startproc\n\t.cfi_endproc\n\
         \t.size empty, 0\n\t.globl answer\n\t.type answer,@function\nanswer:\n\t.cfi_startproc\n\
         \tmovl $42, %eax\n\tret\n\t.cfi_endproc\n\t.size answer, .-answer\n\
         \t.section .note.GNU-stack,\"\",@progbits\n",
    );
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint answer(void);\nint main(void) { printf(\"%d\\n\", answer()); return 0; }\n",
        &["-O2"],
    );
    let objs: [&Path; 2] = [&main, &asm];
    let lld = t.link(Driver::ClangLld, &objs, &[], "lld.out");
    let rld = t.link(Driver::ClangRld, &objs, &[], "rld.out");
    assert_output_is(&rld, &run(&rld, &[], &[]), "42\n", "rld");
    let count =
        |p: &Path| u32::from_le_bytes(section_data(p, ".eh_frame_hdr")[8..12].try_into().unwrap());
    let fdes = |p: &Path| {
        let out = run_checked(Command::new("readelf").arg("-wf").arg(p));
        String::from_utf8_lossy(&out.stdout)
            .matches(" FDE ")
            .count() as u32
    };
    // The reference itself: one entry fewer than FDEs.
    assert_eq!(count(&lld) + 1, fdes(&lld));
    assert_eq!(count(&rld), count(&lld));
    assert_same_file_as_lld(&rld, &lld, "empty function");
}

/// Code sections come in lld's order (`.text`, `.init`, `.fini` as the inputs first name
/// them, then `.plt`), not GNU ld's (`.init` and `.plt` before `.text`): the same code then
/// sits at lld's addresses, and a loop that runs at lld's speed there is not moved across a
/// cache-line boundary. A PIE and a non-PIE program calling a libc function (a PLT entry),
/// with a global constructor (`.init_array`, crti.o's `.init`): the executable sections'
/// names and addresses, and `main`'s address, are lld's.
#[test]
fn code_sections_sit_where_lld_puts_them() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "#include <stdio.h>\n#include <stdlib.h>\n\
         static int ready;\n\
         __attribute__((constructor)) static void init(void) { ready = 1; }\n\
         int main(int argc, char **argv) { printf(\"%d %ld\\n\", ready, strtol(argc > 1 ? argv[1] : \"7\", 0, 10)); return 0; }\n",
        &["-O2"],
    );
    for kind in ["-pie", "-no-pie"] {
        let lld = t.link(Driver::ClangLld, &[&obj], &[kind], &format!("lld{kind}"));
        let rld = t.link(Driver::ClangRld, &[&obj], &[kind], &format!("rld{kind}"));
        assert_output_is(&rld, &run(&rld, &[], &[]), "1 7\n", kind);
        let code = |p: &Path| -> Vec<(String, u64)> {
            sections(p)
                .into_iter()
                .filter(|s| s.flags.contains('X'))
                .map(|s| (s.name, s.addr))
                .collect()
        };
        let (l, r) = (code(&lld), code(&rld));
        assert!(
            r.iter().position(|s| s.0 == ".text") < r.iter().position(|s| s.0 == ".plt"),
            "{kind}: .plt before .text: {r:?}"
        );
        assert_eq!(
            r, l,
            "{kind}: executable sections and addresses against lld's"
        );
        let main = |p: &Path| find_symbols(&symbols(p), ".symtab", "main")[0].value;
        assert_eq!(main(&rld), main(&lld), "{kind}: main's address");
    }
}

/// Every allocated section of a small C program (strings and constants merged, a global
/// constructor and destructor, initialized and zeroed data, a PLT) has lld's name, address
/// and size, PIE and not: `.rodata`'s merged pieces in lld's order, `.dynstr` with one
/// leading NUL, `.fini_array` and `.init_array` in the order crtbeginS.o names them, and
/// `.got.plt` after `.data`. Then code that is the same instruction for instruction runs
/// at the same addresses, with its data at the same addresses.
/// The allocated sections' names, addresses and sizes.
fn allocated(p: &Path) -> Vec<(String, u64, u64)> {
    sections(p)
        .into_iter()
        .filter(|s| s.flags.contains('A'))
        .map(|s| (s.name, s.addr, s.size))
        .collect()
}

#[test]
fn allocated_sections_sit_where_lld_puts_them() {
    let t = Test::new();
    let obj = t.compile(
        Clang,
        "#include <stdio.h>\n#include <stdlib.h>\n\
         static int ready; int counter = 3; double scale[4];\n\
         __attribute__((constructor)) static void init(void) { ready = 1; }\n\
         __attribute__((destructor)) static void fini(void) { puts(\"bye\"); }\n\
         int main(int argc, char **argv) {\n\
           long n = strtol(argc > 1 ? argv[1] : \"7\", 0, 10);\n\
           scale[n & 3] = n * 1.5 + 0.25;\n\
           printf(\"%d %ld %d %.2f\\n\", ready, n, counter, scale[n & 3]);\n\
           puts(\"alpha\"); puts(\"bravo\"); puts(\"charlie\"); return 0; }\n",
        &["-O2"],
    );
    for kind in ["-pie", "-no-pie"] {
        let lld = t.link(Driver::ClangLld, &[&obj], &[kind], &format!("lld{kind}"));
        let rld = t.link(Driver::ClangRld, &[&obj], &[kind], &format!("rld{kind}"));
        let expected = "1 7 3 10.75\nalpha\nbravo\ncharlie\nbye\n";
        assert_output_is(&rld, &run(&rld, &[], &[]), expected, kind);
        assert_eq!(
            allocated(&rld),
            allocated(&lld),
            "{kind}: allocated sections, addresses and sizes against lld's"
        );
        // Code byte for byte: the same instructions at the same places, the padding
        // between functions trap instructions, the PLT's entries in the same order.
        for name in [".rodata", ".text", ".plt"] {
            assert_eq!(
                section_data(&rld, name),
                section_data(&lld, name),
                "{kind}: {name}"
            );
        }
    }
}

/// A PIE and a shared library with pointers in `.data` and `.data.rel.ro` of two objects
/// (so that the order the link finds them is not their address order), symbolic
/// relocations against the objects' own exports and a library's, and GOT entries: the
/// program headers (`PT_PHDR` in the library too), the sections' places, `.gnu.hash`
/// (the bloom filter sized as lld sizes it), `.rela.dyn` (relative relocations by
/// address, the others by symbol and address, lld's `-z combreloc`), the dynamic symbol
/// table, its strings and versions, `.dynamic`, and the data the loader relocates (left as
/// the inputs have it; with RELR or `--apply-dynamic-relocs`, the link-time values, or the
/// addend where the loader adds a preemptible symbol's address, which
/// `--check-dynamic-relocations` reads back): every allocated byte as lld writes it.
#[test]
fn dynamic_relocations_and_hash_tables_as_lld_writes_them() {
    let t = Test::new();
    let a = t.compile(
        Clang,
        "#include <stdio.h>\nextern int ext_var;\nextern const char *const names_b[];\n\
         extern int *table_b[];\nint xa = 1, ya = 2;\n\
         const char *const names_a[] = { \"one\", \"two\", \"three\" };\n\
         int *table_a[] = { &xa, &ya, &ext_var };\nint (*put)(const char *) = puts;\n\
         int main(void) {\n  printf(\"%s %s %d %d %d\\n\", names_a[2], names_b[1], *table_a[1],\n\
         *table_b[0], *table_a[2]);\n  put(\"done\");\n  return 0;\n}\n",
        &["-O2", "-fPIC"],
    );
    let b = t.compile(
        Clang,
        "#include <stdlib.h>\nextern int xa;\nint xb = 5;\n\
         const char *const names_b[] = { \"uno\", \"dos\" };\nint *table_b[] = { &xb, &xa };\n\
         void *(*alloc)(size_t) = malloc;\n",
        &["-O2", "-fPIC"],
    );
    let lib = t.compile(Clang, "int ext_var = 7;\n", &["-fPIC"]);
    let lib = t.link(Driver::ClangLld, &[&lib], &["-shared"], "libext.so");
    let dir = t.dir().display().to_string();
    let rpath = format!("-Wl,-rpath,{dir}");
    let flags = ["-L", dir.as_str(), "-lext", rpath.as_str()];
    assert!(lib.is_file());
    let configs = [
        ("pie", vec!["-pie"]),
        ("shared", vec!["-shared"]),
        ("relr", vec!["-pie", "-Wl,-z,pack-relative-relocs"]),
        (
            "apply",
            vec![
                "-pie",
                "-Wl,--apply-dynamic-relocs",
                "-Wl,--check-dynamic-relocations",
            ],
        ),
        // A library's own exports can be preempted: their places hold the addend alone.
        (
            "apply-shared",
            vec![
                "-shared",
                "-Wl,--apply-dynamic-relocs",
                "-Wl,--check-dynamic-relocations",
            ],
        ),
    ];
    for (kind, extra) in configs {
        let mut with_kind = flags.to_vec();
        with_kind.extend(extra);
        let lld = t.link(
            Driver::ClangLld,
            &[&a, &b],
            &with_kind,
            &format!("lld-{kind}"),
        );
        let rld = t.link(
            Driver::ClangRld,
            &[&a, &b],
            &with_kind,
            &format!("rld-{kind}"),
        );
        if !kind.ends_with("shared") {
            assert_output_is(&rld, &run(&rld, &[], &[]), "three dos 2 5 7\ndone\n", kind);
        }
        let headers = |p: &Path| -> Vec<(String, u64, u64)> {
            segments(p)
                .into_iter()
                .map(|s| (s.typ, s.vaddr, s.memsz))
                .collect()
        };
        assert_eq!(headers(&rld), headers(&lld), "{kind}: program headers");
        assert_eq!(
            allocated(&rld),
            allocated(&lld),
            "{kind}: allocated sections"
        );
        let rela_dyn = |p: &Path| -> Vec<String> {
            tool_stdout("readelf", &["-rW"], p)
                .lines()
                .skip_while(|l| !l.contains("'.rela.dyn'"))
                .skip(2)
                .take_while(|l| !l.trim().is_empty())
                .map(str::to_string)
                .collect()
        };
        let rows = rela_dyn(&rld);
        assert!(rows.len() >= 8, "{kind}: {rows:?}");
        assert_eq!(rows, rela_dyn(&lld), "{kind}: .rela.dyn");
        // `.symtab` as lld lists it: each file's locals with the hidden symbols it defines,
        // the linker's own after them (`_DYNAMIC` in every dynamic output), a symbol only
        // weak references name weak, crtend's `__FRAME_END__` (a local of `.eh_frame`)
        // where lld puts it.
        let symtab = |p: &Path| -> Vec<String> {
            tool_stdout("readelf", &["-sW"], p)
                .lines()
                .skip_while(|l| !l.contains("'.symtab'"))
                .skip(2)
                .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
                .collect()
        };
        assert_eq!(symtab(&rld), symtab(&lld), "{kind}: .symtab");
        // Every allocated byte but the build ID's (a hash of the whole file, whose
        // `.comment` and `.symtab` differ): the dynamic symbols, their strings and versions
        // (a symbol nothing defines is VER_NDX_LOCAL) in lld's order, `.dynamic`'s entries in
        // lld's order, and the places dynamic relocations fill holding the inputs' bytes
        // (zeros) unless RELR (no addends) or --apply-dynamic-relocs asks for values.
        for s in sections(&lld) {
            if !s.flags.contains('A') || s.name == ".note.gnu.build-id" {
                continue;
            }
            assert_eq!(
                section_data(&rld, &s.name),
                section_data(&lld, &s.name),
                "{kind}: {}",
                s.name
            );
        }
    }
}

/// A C++ program with exceptions and a copy relocation, linked by rld, is lld's program
/// byte for byte but for the build ID and `.comment`: `.gcc_except_table` among the
/// inputs' read-only data before `.eh_frame_hdr`, a copy of a library's variable aligned
/// as lld aligns it (the library's section alignment, as far as its address allows), the
/// data after RELRO where lld puts it when `.bss.rel.ro` ends RELRO, `.gnu.version_r`
/// with every library's entry before their versions, `__FRAME_END__` in `.symtab`, and
/// `.strtab` with every file's local names before the globals' (a hidden symbol's too).
#[test]
fn a_cxx_program_is_the_program_lld_writes() {
    let t = Test::new();
    let main = t.compile_cxx(
        Clang,
        "#include <cstdio>\n#include <stdexcept>\n#include <typeinfo>\n\
         int f(int x) { if (x > 3) throw std::runtime_error(\"big\"); return x; }\n\
         const std::type_info *ti() { return &typeid(std::runtime_error); }\n\
         int main(int argc, char **) {\n  try { f(argc + 5); } catch (const std::exception &e) \
         { std::printf(\"caught %s %d\\n\", e.what(), ti() != nullptr); }\n  return 0;\n}\n",
        &["-O2"],
    );
    for (kind, flags) in [("pie", vec!["-pie"]), ("no-pie", vec!["-no-pie"])] {
        let lld = t.link_cxx(
            Driver::ClangLld,
            &[&main],
            &flags,
            &format!("lld-{kind}"),
            false,
        );
        let rld = t.link_cxx(
            Driver::ClangRld,
            &[&main],
            &flags,
            &format!("rld-{kind}"),
            false,
        );
        assert_output_is(&rld, &run(&rld, &[], &[]), "caught big 1\n", kind);
        assert_same_file_as_lld(&rld, &lld, kind);
    }
}

/// A static glibc program is lld's byte for byte but for the build ID and `.comment`:
/// archive members loaded in lld's order and their symbols in the order lld's table holds
/// them (`.symtab`, the GOT, the IFUNC entries and their IRELATIVE relocations), glibc's
/// `cmp`/`test` through the GOT relaxed to immediates, merged strings where lld puts them,
/// `.eh_frame` grouped by CIE, an IFUNC whose address is taken at its `.iplt` entry in
/// `.symtab`, undefined weak thread-local variables at offset 0, and `.gnu.warning.*`
/// copied.
#[test]
fn a_static_program_is_the_program_lld_writes() {
    let t = Test::new();
    let main = t.compile(
        Gcc,
        "#include <stdio.h>\n#include <string.h>\n\
         int main(int argc, char **argv) { printf(\"hello %zu\\n\", strlen(argv[0]) > 0); return 0; }\n",
        &["-O2"],
    );
    link_as_lld(&t, &[&main], &["-static"], "-static", "hello 1\n");
}

/// Thread-local `.bss` with no `.tdata` sits after the code, outside the segment that
/// follows (lld: `.tbss` belongs to no loaded segment), and a constructor table whose
/// inputs disagree on the entry size (an assembler's table has none) gets none (lld's;
/// GNU ld writes 8): the program is lld's byte for byte.
#[test]
fn tls_bss_alone_and_mixed_constructor_tables_as_lld() {
    let t = Test::new();
    let main = t.compile(
        Clang,
        "#include <stdio.h>\n__thread int counter;\nvoid from_table(void) { counter += 2; }\n\
         int main(void) { counter++; printf(\"%d\\n\", counter); return 0; }\n",
        &["-O2"],
    );
    let table = t.assemble(
        "table",
        "\t.section .init_array,\"aw\",@init_array\n\t.p2align 3\n\t.quad from_table\n\
         \t.section .note.GNU-stack,\"\",@progbits\n",
    );
    for kind in ["-pie", "-no-pie"] {
        // The table's constructor runs in the main thread before main.
        let rld = link_as_lld(&t, &[&main, &table], &[kind], kind, "3\n");
        let init = find_section(&sections(&rld), ".init_array")
            .unwrap()
            .entsize;
        assert_eq!(init, 0, "{kind}");
        assert!(find_section(&sections(&rld), ".tdata").is_none(), "{kind}");
    }
}

/// Two C++ objects, each with functions that unwind plainly and functions with a
/// personality routine (two CIEs each): `.eh_frame` holds every CIE once, followed by the
/// FDEs of all objects that use it (lld's layout; input by input, they would interleave),
/// and the program is lld's byte for byte.
#[test]
fn eh_frame_groups_fdes_by_cie_as_lld() {
    let t = Test::new();
    let a = t.compile_cxx(
        Clang,
        "#include <cstdio>\n#include <stdexcept>\nint g(int x);\nint plain_a(int x) { return x * 3; }\n\
         int f(int x) { try { return g(x); } catch (const std::exception &e) { std::printf(\"caught %s\\n\", e.what()); return -1; } }\n\
         int main(int argc, char **) { std::printf(\"%d %d\\n\", f(argc), plain_a(argc)); return 0; }\n",
        &["-O2"],
    );
    let b = t.compile_cxx(
        Clang,
        "#include <stdexcept>\n#include <string>\nint plain_b(int x) { return x + 7; }\n\
         int g(int x) { std::string s(x, 'a'); if (x > 0) throw std::runtime_error(\"boom\" + s); return plain_b(x); }\n",
        &["-O2"],
    );
    for (kind, flags) in [("pie", vec!["-pie"]), ("no-pie", vec!["-no-pie"])] {
        let objs: [&Path; 2] = [&a, &b];
        let lld = t.link_cxx(
            Driver::ClangLld,
            &objs,
            &flags,
            &format!("lld-{kind}"),
            false,
        );
        let rld = t.link_cxx(
            Driver::ClangRld,
            &objs,
            &flags,
            &format!("rld-{kind}"),
            false,
        );
        assert_output_is(&rld, &run(&rld, &[], &[]), "caught booma\n-1 3\n", kind);
        // The start files' CIE, and the objects' two.
        let cies = cies(&rld);
        assert_eq!(cies.len(), 3, "{kind}: {cies:?}");
        assert_same_file_as_lld(&rld, &lld, kind);
    }
}

/// Hand-written `.eh_frame` records: an object with a CIE, a second copy of it, and another
/// CIE, each followed by an FDE; a second object with the other CIE first. Every distinct
/// CIE is kept once, in the order first met, with the FDEs of both objects that use it
/// after it (those of the dropped copy too), as lld lays them out; with `--gc-sections`
/// the FDE of a function dropped goes and the rest close up. lld's file byte for byte.
#[test]
fn eh_frame_records_group_under_their_first_equal_cie_as_lld() {
    let t = Test::new();
    // A CIE whose return-address column is `ra`: 16 and 15 make two different CIEs.
    let cie = |label: &str, ra: u32| {
        format!(
            "{label}:\n\t.long {label}_end - {label}_start\n{label}_start:\n\t.long 0\n\t.byte 1\n\
             \t.asciz \"zR\"\n\t.uleb128 1\n\t.sleb128 -8\n\t.uleb128 {ra}\n\t.uleb128 1\n\
             \t.byte 0x1b\n\t.byte 0x0c, 7, 8\n\t.balign 4, 0\n{label}_end:\n"
        )
    };
    let fde = |label: &str, cie: &str, func: &str| {
        format!(
            "{label}:\n\t.long {label}_end - {label}_start\n{label}_start:\n\
             \t.long {label}_start - {cie}\n\t.long {func} - .\n\t.long {func}_end - {func}\n\
             \t.uleb128 0\n\t.balign 4, 0\n{label}_end:\n"
        )
    };
    let funcs = |names: &[&str]| -> String {
        names
            .iter()
            .map(|f| {
                format!(
                    "\t.section .text.{f},\"ax\",@progbits\n\t.globl {f}\n\t.type {f},@function\n\
                     {f}:\n\tmovl $1, %eax\n\tret\n{f}_end:\n"
                )
            })
            .collect()
    };
    let first = format!(
        "{}\t.section .eh_frame,\"a\",@unwind\n{}{}{}{}{}{}\t.section .note.GNU-stack,\"\",@progbits\n",
        funcs(&["f1", "f2", "f3"]),
        cie(".Lc1", 16),
        fde(".Lf1", ".Lc1", "f1"),
        cie(".Lc1b", 16),
        fde(".Lf2", ".Lc1b", "f2"),
        cie(".Lc2", 15),
        fde(".Lf3", ".Lc2", "f3"),
    );
    let second = format!(
        "{}\t.section .eh_frame,\"a\",@unwind\n{}{}{}{}\t.section .note.GNU-stack,\"\",@progbits\n",
        funcs(&["g1", "g2"]),
        cie(".Ld2", 15),
        fde(".Lg1", ".Ld2", "g1"),
        cie(".Ld1", 16),
        fde(".Lg2", ".Ld1", "g2"),
    );
    let a = t.assemble("records_a", &first);
    let b = t.assemble("records_b", &second);
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nint f1(void), f2(void), f3(void), g1(void), g2(void);\n\
         int main(void) {\n  printf(\"%d\\n\", f1() + f3() + g1() + g2());\n  return 0;\n}\n",
        &["-O2", "-fno-asynchronous-unwind-tables"],
    );
    let rld = link_as_lld(&t, &[&main, &a, &b], &[], "", "4\n");
    // The start files' CIE and the two of the objects.
    assert_eq!(cies(&rld).len(), 3, "{:?}", cies(&rld));
    // f2, which nothing calls, is kept without --gc-sections: its FDE too, under the
    // first copy of its CIE.
    let fdes = |exe: &Path| {
        let out = run_checked(Command::new("readelf").args(["-wf"]).arg(exe));
        String::from_utf8_lossy(&out.stdout)
            .matches(" FDE cie=")
            .count()
    };
    let all = fdes(&rld);
    let gc = link_as_lld(&t, &[&main, &a, &b], &["-Wl,--gc-sections"], "gc", "4\n");
    assert_eq!(cies(&gc).len(), 3, "{:?}", cies(&gc));
    assert_eq!(fdes(&gc), all - 1, "f2's FDE goes with f2");
}

/// Links `objs` with `flags` by lld and by rld (files named after `what`), checks that
/// rld's program prints `expected` and is lld's file byte for byte (see
/// [`assert_same_file_as_lld`]); returns rld's output.
fn link_as_lld(t: &Test, objs: &[&Path], flags: &[&str], what: &str, expected: &str) -> PathBuf {
    let lld = t.link(Driver::ClangLld, objs, flags, &format!("lld{what}"));
    let rld = t.link(Driver::ClangRld, objs, flags, &format!("rld{what}"));
    assert_output_is(&rld, &run(&rld, &[], &[]), expected, what);
    assert_same_file_as_lld(&rld, &lld, what);
    rld
}

/// `rld`'s output is `lld`'s byte for byte but for the build ID and `.comment` (which
/// names the linker): the same sections in the same order, every header field but the
/// file offset (after `.comment`), every section's bytes.
fn assert_same_file_as_lld(rld: &Path, lld: &Path, what: &str) {
    let names = |p: &Path| -> Vec<String> { sections(p).into_iter().map(|s| s.name).collect() };
    assert_eq!(names(rld), names(lld), "{what}: section order");
    for (r, l) in sections(rld).into_iter().zip(sections(lld)) {
        if l.name == ".comment" || l.name == ".note.gnu.build-id" {
            continue;
        }
        let header = |s: &Section| {
            (
                s.typ.clone(),
                s.addr,
                s.size,
                s.entsize,
                s.flags.clone(),
                s.link,
                s.info,
                s.align,
            )
        };
        assert_eq!(header(&r), header(&l), "{what}: {} header", l.name);
        if l.typ != "NOBITS" {
            assert_eq!(
                section_data(rld, &l.name),
                section_data(lld, &l.name),
                "{what}: {}",
                l.name
            );
        }
    }
}

/// `.symtab` as lld writes it where an archive member's functions are only weakly
/// referenced (they stay undefined, a hidden one local), and where a section's end is
/// the next one's start (`__stop_set_a` belongs to `set_a`); glibc's `.gnu.warning.*`
/// sections are copied as lld copies them.
#[test]
fn weak_references_and_section_bounds_in_symtab_as_lld() {
    let t = Test::new();
    let main = t.compile(
        Clang,
        r#"#include <stdio.h>
extern void wfun(void) __attribute__((weak));
extern __attribute__((visibility("hidden"), weak)) void hfun(void);
static const char warning[] __attribute__((section(".gnu.warning.wfun"), used)) = "wfun is weak";
static long a1 __attribute__((section("set_a"), used)) = 1;
static long b1 __attribute__((section("set_b"), used)) = 2;
extern long __start_set_a[], __stop_set_a[], __start_set_b[];
int main(void) {
  printf("%d %d %d\n", wfun != 0, hfun != 0, (int)(__stop_set_a - __start_set_a));
  return __stop_set_a == __start_set_b ? 0 : 1;
}
"#,
        &["-O2"],
    );
    let member = t.compile(
        Clang,
        "void wfun(void) {}
void hfun(void) {}
",
        &["-O2"],
    );
    let archive = t.archive("libw.a", &[&member]);
    for kind in ["-pie", "-no-pie"] {
        link_as_lld(&t, &[&main, &archive], &[kind], kind, "0 0 1\n");
    }
}

/// With `--gc-sections`, a library function only removed code called leaves `.dynsym`
/// and `.symtab` (and its version need with it), as in lld; what kept code calls stays.
#[test]
fn symbols_only_removed_code_used_leave_the_symbol_tables() {
    let t = Test::new();
    let main = t.compile(
        Clang,
        r#"#include <stdio.h>
#include <string.h>
#include <stdlib.h>
extern void maybe(void) __attribute__((weak));
void unused(int s) { puts(strsignal(s)); if (maybe) maybe(); quick_exit(s); }
int main(void) { printf("%zu\n", strlen("kept")); return 0; }
"#,
        &["-O2", "-ffunction-sections"],
    );
    for kind in ["-pie", "-no-pie"] {
        let flags = [kind, "-Wl,--gc-sections"];
        let rld = link_as_lld(&t, &[&main], &flags, kind, "4\n");
        let dynamic = symbols(&rld);
        for gone in ["strsignal", "quick_exit", "maybe"] {
            assert!(
                find_symbols(&dynamic, ".dynsym", gone).is_empty(),
                "{kind}: {gone}"
            );
            assert!(
                find_symbols(&dynamic, ".symtab", gone).is_empty(),
                "{kind}: {gone}"
            );
        }
        assert_eq!(
            find_symbols(&dynamic, ".dynsym", "printf").len(),
            1,
            "{kind}"
        );
    }
}

/// With `--gc-sections`, a string or constant only removed code used is not merged into
/// the output (lld keeps the pieces of a merge section that kept code refers to), even
/// where kept code uses another string of the same section.
#[test]
fn merged_pieces_only_removed_code_used_are_dropped() {
    let t = Test::new();
    let main = t.compile(
        Clang,
        r#"#include <stdio.h>
void unused(double x) { printf("dropped string %f\n", x * 1.25); }
int main(int argc, char **argv) { printf("kept string %f\n", argc * 0.75); return 0; }
"#,
        &["-O2", "-ffunction-sections"],
    );
    for kind in ["-pie", "-no-pie"] {
        let flags = [kind, "-Wl,--gc-sections"];
        let rld = link_as_lld(&t, &[&main], &flags, kind, "kept string 0.750000\n");
        let rodata = section_data(&rld, ".rodata");
        let has = |what: &[u8]| rodata.windows(what.len()).any(|w| w == what);
        assert!(has(b"kept string"), "{kind}");
        assert!(!has(b"dropped string"), "{kind}");
        assert!(!has(&1.25f64.to_le_bytes()), "{kind}: the constant 1.25");
    }
}

/// Merged strings and constants sit where lld puts them: each kind at the place of its
/// first section among the inputs' read-only data (here between two objects' tables), not
/// after all of them.
#[test]
fn merged_sections_sit_where_their_first_member_was() {
    let t = Test::new();
    let table = |name: &str, seed: i32| {
        format!(
            "int {name}(int i) {{ static const int t[64] = {{ {} }}; return t[i & 63]; }}\n",
            (0..64)
                .map(|k| (k * 7 + seed).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let first = t.compile(Clang, &table("first", 1), &["-O2"]);
    let strings = t.compile(
        Clang,
        "#include <stdio.h>\nint first(int), last(int);\nint main(int argc, char **argv) { printf(\"%d %d %s\\n\", first(argc), last(argc), argc > 1 ? argv[1] : \"none\"); return 0; }\n",
        &["-O2"],
    );
    let last = t.compile(Clang, &table("last", 2), &["-O2"]);
    for kind in ["-pie", "-no-pie"] {
        link_as_lld(&t, &[&first, &strings, &last], &[kind], kind, "8 9 none\n");
    }
}

/// Between functions, in `-r` output and in a final link, the padding is trap
/// instructions (0xcc), as lld writes it:
/// a jump into it stops the program instead of running into the next function. Where a
/// script gives a fill pattern, the pattern wins (lld, GNU ld).
#[test]
fn padding_between_functions_is_trap_instructions() {
    let t = Test::new();
    let a = t.compile(Clang, "int f(int x) { return x + 1; }\n", &["-O1"]);
    let b = t.compile(
        Clang,
        "int f(int);\nint main(void) { return f(-1); }\n",
        &["-O1"],
    );
    // `f` is 4 bytes, `main` 16-aligned: 12 bytes of padding between them.
    let text = |p: &Path| section_data(p, ".text");
    let rld_r = t.path("r.rld.o");
    let lld_r = t.path("r.lld.o");
    for (linker, out) in [(rld_path(), &rld_r), (PathBuf::from("ld.lld-22"), &lld_r)] {
        run_checked(
            Command::new(linker)
                .arg("-r")
                .arg(&a)
                .arg(&b)
                .arg("-o")
                .arg(out),
        );
    }
    let ours = text(&rld_r);
    assert_eq!(ours, text(&lld_r), "-r: .text against lld's");
    assert_eq!(ours[4..16], [0xcc; 12], "-r: padding after f: {ours:02x?}");
    for kind in ["-pie", "-no-pie"] {
        let lld = t.link(Driver::ClangLld, &[&a, &b], &[kind], &format!("lld{kind}"));
        let rld = t.link(Driver::ClangRld, &[&a, &b], &[kind], &format!("rld{kind}"));
        assert_eq!(run(&rld, &[], &[]).status.code(), Some(0), "{kind}");
        let code = text(&rld);
        assert_eq!(code, text(&lld), "{kind}: .text against lld's");
        assert!(
            code.windows(12).any(|w| w == [0xcc; 12]),
            "{kind}: no trap padding in {code:02x?}"
        );
    }
    // A script's fill pattern is the padding instead.
    let script = t.write(
        "fill.lds",
        "SECTIONS { . = 0x10000; .text : { *(.text) } =0x90909090 }\n",
    );
    let out = t.path("filled");
    run_checked(
        Command::new(rld_path())
            .args(["-e", "main", "-T"])
            .arg(&script)
            .arg(&a)
            .arg(&b)
            .arg("-o")
            .arg(&out),
    );
    assert_eq!(text(&out)[4..16], [0x90; 12], "script fill");
}

/// With `-flto`, one partition, the code of a two-module C++ program is lld's byte for
/// byte: each module's static constructor comes first and the other functions in the order
/// lld's IR linker reaches them (its own functions first, then what they call), and the
/// PLT's entries in the order lld's symbol table met the symbols, not in the order of the
/// first call. The same code at the same addresses runs alike.
#[test]
fn lto_code_sits_where_lld_puts_it() {
    let t = Test::new();
    let flags = ["-O2", "-flto"];
    let a = t.compile_cxx(
        Clang,
        "#include <iostream>\n#include <cstdlib>\n\
         int twice(int); long steps(long);\n\
         static long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n\
         int main(int argc, char **argv) {\n\
           long n = std::strtol(argc > 1 ? argv[1] : \"20\", 0, 10);\n\
           std::cout << fib(n) << ' ' << twice(int(n)) << ' ' << steps(n) << std::endl;\n\
           return 0; }\n",
        &flags,
    );
    let b = t.compile_cxx(
        Clang,
        "#include <string>\n#include <cstdio>\n\
         static std::string label = std::to_string(42);\n\
         int twice(int x) { std::printf(\"%s \", label.c_str()); return 2 * x; }\n\
         long steps(long n) { long s = 0; while (n != 1) { n = n % 2 ? 3 * n + 1 : n / 2; ++s; } return s; }\n",
        &flags,
    );
    let lld = t.link_cxx(Driver::ClangLld, &[&a, &b], &["-flto"], "lld", true);
    let rld = t.link_cxx(
        Driver::ClangRld,
        &[&a, &b],
        &["-flto", "-Wl,--lto-partitions=1"],
        "rld",
        true,
    );
    assert_output_is(&rld, &run(&rld, &[], &[]), "6765 42 40 7\n", "rld -flto");
    let functions = |p: &Path| -> Vec<(u64, String)> {
        let mut f: Vec<(u64, String)> = symbols(p)
            .into_iter()
            .filter(|s| s.table == ".symtab" && s.typ == "FUNC" && s.ndx != "UND")
            .map(|s| (s.value, s.name))
            .collect();
        f.sort();
        f
    };
    assert_eq!(functions(&rld), functions(&lld), "functions and addresses");
    for name in [".text", ".plt"] {
        assert_eq!(section_data(&rld, name), section_data(&lld, name), "{name}");
    }
}

/// `--call-graph-profile-sort` (lld's, `cdsort` by default): objects compiled with a
/// profile carry `.llvm.call-graph-profile`, and the code is laid out by it, function for
/// function as lld lays it out, with LLVM's Cache-Directed Sort, with `hfsort` (C3, whose
/// order `--print-symbol-order` writes as lld does), from `--call-graph-ordering-file`
/// (lld's warning and error included), and not at all with `--no-call-graph-profile-sort`.
#[test]
fn call_graph_profile_orders_code_as_lld() {
    let t = Test::new();
    let profile = cases_dir().join("call_graph/cg.prof");
    let use_profile = format!("-fprofile-sample-use={}", profile.display());
    let flags = [
        "-O2",
        "-gline-tables-only",
        "-ffunction-sections",
        &use_profile,
    ];
    let obj = t.compile(Clang, "call_graph/cg.c", &flags);
    let order_file = t.write(
        "order.cg",
        "main cold_e 100\ncold_e cold_a 90\n# a comment\n\nmain hot_b 5\n",
    );
    let ordering = format!("-Wl,--call-graph-ordering-file={}", order_file.display());
    let functions = |exe: &Path| -> Vec<String> {
        let text = tool_stdout("nm", &["-n"], exe);
        text.lines()
            .filter_map(|l| l.split_whitespace().nth(2))
            .filter(|n| n.starts_with("hot_") || n.starts_with("cold_") || *n == "main")
            .map(str::to_string)
            .collect()
    };
    let mut orders = Vec::new();
    for (tag, extra) in [
        ("cdsort", vec![]),
        ("hfsort", vec!["-Wl,--call-graph-profile-sort=hfsort"]),
        ("file", vec![ordering.as_str()]),
        ("none", vec!["-Wl,--no-call-graph-profile-sort"]),
    ] {
        let lld = t.link(Driver::ClangLld, &[&obj], &extra, &format!("lld-{tag}"));
        let rld = t.link(Driver::ClangRld, &[&obj], &extra, &format!("rld-{tag}"));
        assert_same_output(&rld, &lld, &[], &[], Some("1499500\n"));
        assert_eq!(functions(&rld), functions(&lld), "{tag}");
        orders.push(functions(&rld));
    }
    // The profile changed the layout (input order is cold_a, hot_b, ...).
    assert_ne!(orders[0], orders[3]);
    assert_ne!(orders[1], orders[3]);
    // Without rld's LTO library (LLVM), the default orders with hfsort, quietly; a request
    // for cdsort is told.
    for (extra, warned) in [
        (None, false),
        (Some("-Wl,--call-graph-profile-sort=cdsort"), true),
    ] {
        let out = t.path(&format!("no-llvm-{warned}"));
        let flags: Vec<&str> = extra.into_iter().collect();
        let mut cmd = t.link_command(Driver::ClangRld, &[&obj], &flags, &out);
        cmd.env("RLD_LTO_LIBRARY", t.path("no-such-library.so"));
        let res = run_checked(&mut cmd);
        let stderr = String::from_utf8_lossy(&res.stderr);
        assert_eq!(
            stderr.contains("ordered with hfsort instead"),
            warned,
            "{stderr}"
        );
        assert_eq!(functions(&out), orders[1], "{stderr}");
    }
    // `-r` keeps the profile (lld does too): the final link, by rld or lld, orders the code
    // as the direct link did.
    let partial = t.link(Driver::Rld, &[&obj], &["-r"], "partial.o");
    for driver in [Driver::ClangRld, Driver::ClangLld] {
        let exe = t.link(driver, &[&partial], &[], &format!("{driver:?}-from-r"));
        assert_eq!(functions(&exe), orders[0], "{driver:?} after rld -r");
    }

    let printed = |driver: Driver, out: &str| {
        let file = t.path(&format!("{out}.order"));
        let print = format!("-Wl,--print-symbol-order={}", file.display());
        t.link(
            driver,
            &[&obj],
            &["-Wl,--call-graph-profile-sort=hfsort", &print],
            out,
        );
        std::fs::read_to_string(&file).unwrap()
    };
    let ours = printed(Driver::ClangRld, "rld-print");
    assert_eq!(ours, printed(Driver::ClangLld, "lld-print"));
    assert_eq!(ours.lines().collect::<Vec<_>>(), orders[1]);

    let bad = t.write("bad.cg", "main nosuch 1\nmain hot_b x\n");
    let bad = format!("-Wl,--call-graph-ordering-file={}", bad.display());
    let (res, cmd) = t.try_link(Driver::ClangRld, &[&obj], &[&bad], "refused");
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(!res.status.success(), "{cmd}");
    assert!(
        stderr.contains("bad.cg: no such symbol: nosuch"),
        "{stderr}"
    );
    assert!(stderr.contains("bad.cg: parse error"), "{stderr}");
    assert!(!t.path("refused").exists());
}

/// The medium and large code models' sections (SHF_X86_64_LARGE: `.ltext`, `.lrodata`,
/// `.ldata`, `.lbss`) go where lld puts them, away from the small data the code reaches
/// with 32-bit offsets: `.ltext` in a segment of its own after the synthetic read-only
/// sections, `.lrodata` first among the inputs' read-only data, `.ldata` and `.lbss` after
/// `.bss`, `.ldata` in a PT_LOAD of its own (contents after NOBITS space start one, placed
/// from the space's end). The PT_LOADs are lld's, field for field; and a 3 GiB `.lbss`
/// leaves the small data within reach.
#[test]
fn code_models_large_sections_go_where_lld_puts_them() {
    let t = Test::new();
    let order = |p: &Path| -> Vec<String> {
        sections(p)
            .into_iter()
            .filter(|s| s.flags.contains('A') && s.name != ".comment")
            .map(|s| s.name)
            .collect()
    };
    let loads = |p: &Path| -> Vec<String> {
        tool_stdout("readelf", &["-lW"], p)
            .lines()
            .filter(|l| l.trim_start().starts_with("LOAD"))
            .map(str::to_string)
            .collect()
    };
    let small = "#include <stdio.h>\nstatic char big[1 << 20];\nchar big_init[70000] = {1};\n\
                 const char big_ro[70000] = {2};\nint small = 3;\n\
                 int main(void) { big[5] = 1; printf(\"%d %d %d %d\\n\", big[5], big_init[0], big_ro[0], small); return 0; }\n";
    for model in ["-mcmodel=medium", "-mcmodel=large"] {
        let obj = t.compile(Clang, small, &["-O1", model]);
        let [lld, rld] = [Driver::ClangLld, Driver::ClangRld]
            .map(|d| t.link(d, &[&obj], &[], &format!("{}{model}", d.name())));
        for exe in [&lld, &rld] {
            assert_output_is(exe, &run(exe, &[], &[]), "1 1 2 3\n", model);
        }
        let rld_order = order(&rld);
        let at = |name: &str| rld_order.iter().position(|n| n == name);
        assert!(at(".lrodata") < at(".rodata"), "{rld_order:?}");
        assert!(at(".bss") < at(".ldata"), "{rld_order:?}");
        if model == "-mcmodel=large" {
            assert!(at(".ltext") < at(".lrodata"), "{rld_order:?}");
        }
        assert_eq!(rld_order, order(&lld), "{model}");
        assert_eq!(loads(&rld), loads(&lld), "{model}");

        // lld's `-z lrodata-after-bss`: `.lrodata` after `.bss`, `.ldata` after it.
        let flags = ["-Wl,-z,lrodata-after-bss"];
        let [lld, rld] = [Driver::ClangLld, Driver::ClangRld]
            .map(|d| t.link(d, &[&obj], &flags, &format!("{}{model}-after", d.name())));
        assert_output_is(&rld, &run(&rld, &[], &[]), "1 1 2 3\n", model);
        let rld_order = order(&rld);
        let at = |name: &str| rld_order.iter().position(|n| n == name);
        assert!(
            at(".bss") < at(".lrodata") && at(".lrodata") < at(".ldata"),
            "{rld_order:?}"
        );
        assert_eq!(rld_order, order(&lld), "{model} -z lrodata-after-bss");
        assert_eq!(loads(&rld), loads(&lld), "{model} -z lrodata-after-bss");
    }

    let huge = "#include <stdio.h>\nchar huge[3UL << 30];\nchar big_init[100000] = {7};\n\
                int small = 3;\nint small_zero;\n\
                int main(void) { huge[(3UL << 30) - 1] = 1; small_zero = 5;\n\
                printf(\"%d %d %d %d\\n\", huge[(3UL << 30) - 1], big_init[0], small, small_zero);\n\
                return 0; }\n";
    let obj = t.compile(Clang, huge, &["-O1", "-mcmodel=medium"]);
    let [lld, rld] =
        [Driver::ClangLld, Driver::ClangRld].map(|d| t.link(d, &[&obj], &[], d.name()));
    for exe in [&lld, &rld] {
        assert_output_is(
            exe,
            &run(exe, &[], &[]),
            "1 7 3 5\n",
            &exe.display().to_string(),
        );
    }
    assert_eq!(order(&rld), order(&lld));
}

/// `--shuffle-sections=GLOB=SEED` (lld's): the sections a glob names swap places as lld's
/// seed swaps them (the standard mt19937 behind LLVM's shuffle), -1 reverses them (the
/// constructors run last to first), and rules apply one after another: symbols' addresses
/// and the code are lld's for each. A glob matching lld's own sections too (`*`) shuffles
/// in an order of its own, and the program still runs.
#[test]
fn shuffle_sections_as_lld() {
    let t = Test::new();
    let mut objs = Vec::new();
    for i in 1..=4 {
        objs.push(t.compile(
            Clang,
            &format!(
                "#include <stdio.h>\n\
                 __attribute__((constructor)) static void init{i}(void) {{ printf(\"init {i}\\n\"); }}\n\
                 int f{i}a(int x) {{ return x + {i}; }}\nint f{i}b(int x) {{ return x * {i}; }}\n\
                 static int tab{i}[4] = {{{i}, {i}, {i}, {i}}};\nint *g{i}(void) {{ return tab{i}; }}\n"
            ),
            &["-O1", "-ffunction-sections", "-fdata-sections"],
        ));
    }
    objs.push(t.compile(
        Clang,
        "#include <stdio.h>\nint f1a(int), f2a(int), f3a(int), f4a(int);\n\
         int f1b(int), f2b(int), f3b(int), f4b(int);\n\
         int main(void) { printf(\"%d\\n\", f1a(1) + f2a(2) + f3a(3) + f4a(4) + f1b(1) + f2b(2)\n\
         + f3b(3) + f4b(4)); return 0; }\n",
        &["-O1", "-ffunction-sections"],
    ));
    let objs = paths(&objs);
    let addresses = |exe: &Path| -> Vec<String> {
        tool_stdout("nm", &["-n"], exe)
            .lines()
            .filter(|l| [" T ", " t ", " D ", " d "].iter().any(|k| l.contains(k)))
            .map(str::to_string)
            .collect()
    };
    let forward = "init 1\ninit 2\ninit 3\ninit 4\n50\n";
    for (rules, expected) in [
        (vec![".text.*=-1"], forward),
        (vec![".text.*=1"], forward),
        (vec![".text.*=42", ".data.*=5"], forward),
        (
            vec![".init_array*=-1"],
            "init 4\ninit 3\ninit 2\ninit 1\n50\n",
        ),
        (vec![".text.f*=7", ".text.*=-1"], forward),
    ] {
        let flags: Vec<String> = rules
            .iter()
            .map(|r| format!("-Wl,--shuffle-sections={r}"))
            .collect();
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let tag = rules.join(",").replace(['*', '.', '='], "_");
        let lld = t.link(Driver::ClangLld, &objs, &flags, &format!("lld-{tag}"));
        let rld = t.link(Driver::ClangRld, &objs, &flags, &format!("rld-{tag}"));
        assert_output_is(&rld, &run(&rld, &[], &[]), expected, &tag);
        assert_eq!(addresses(&rld), addresses(&lld), "{rules:?}");
        assert_eq!(
            section_data(&rld, ".text"),
            section_data(&lld, ".text"),
            "{rules:?}"
        );
    }
    // Without the option, or with any seed, the functions are where they were or not.
    let plain = t.link(Driver::ClangRld, &objs, &[], "rld-plain");
    let shuffled = t.link(
        Driver::ClangRld,
        &objs,
        &["-Wl,--shuffle-sections=.text.*=42"],
        "rld-42",
    );
    assert_ne!(addresses(&plain), addresses(&shuffled));
    let everything = t.link(
        Driver::ClangRld,
        &objs,
        &["-Wl,--shuffle-sections=*=3"],
        "rld-all",
    );
    let out = String::from_utf8_lossy(&run(&everything, &[], &[]).stdout).into_owned();
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["50", "init 1", "init 2", "init 3", "init 4"]);
    let (out, cmd) = t.try_link(
        Driver::ClangRld,
        &objs,
        &["-Wl,--shuffle-sections=7"],
        "rld-bad",
    );
    assert!(
        !out.status.success()
            && String::from_utf8_lossy(&out.stderr)
                .contains("--shuffle-sections=: expected <section_glob>=<seed>, but got '7'"),
        "{cmd}"
    );
}
