//! Relocations copied into the output: `--emit-relocs` (`-q`), compared with lld-22 and
//! checked against the bytes the link wrote.

use rld_tests::Compiler::Clang;
use rld_tests::*;
use std::path::Path;

const MAIN: &str = r#"#include <stdio.h>
int twice(int);
int thrice(int);
static int (*const table[])(int) = {twice, thrice};
static int calls;
int choose(int i) { calls++; return table[i & 1](i); }
int main(int argc, char **argv) {
    (void)argv;
    int sum = choose(argc) + choose(argc + 1);
    printf("sum %d after %d calls\n", sum, calls);
    return 0;
}
"#;

const LIB: &str = r#"int twice(int x) { return 2 * x; }
int thrice(int x) { return 3 * x; }
int never_called(int x) { return x - 1; }
const char *label(void) { return "unused label"; }
"#;

/// One `Elf64_Rela` with its section's target.
#[derive(Debug, Clone, Copy)]
struct Rela {
    offset: u64,
    sym: u32,
    r_type: u32,
    addend: i64,
}

/// An ELF symbol's value and section index.
#[derive(Debug, Clone, Copy)]
struct Sym {
    value: u64,
    shndx: u16,
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

/// Every `.rela*` section that is not for the dynamic linker: name, target section index,
/// entries.
fn copied(path: &Path) -> Vec<(String, u64, Vec<Rela>)> {
    let bytes = std::fs::read(path).unwrap();
    sections(path)
        .into_iter()
        .filter(|s| s.typ == "RELA" && !s.flags.contains('A'))
        .map(|s| {
            let entries = (0..s.size / 24)
                .map(|k| {
                    let at = (s.offset + 24 * k) as usize;
                    let info = u64_at(&bytes, at + 8);
                    Rela {
                        offset: u64_at(&bytes, at),
                        sym: (info >> 32) as u32,
                        r_type: info as u32,
                        addend: u64_at(&bytes, at + 16) as i64,
                    }
                })
                .collect();
            (s.name.clone(), s.info, entries)
        })
        .collect()
}

fn symtab(path: &Path) -> Vec<Sym> {
    let bytes = std::fs::read(path).unwrap();
    let s = find_section(&sections(path), ".symtab").expect(".symtab");
    (0..s.size / 24)
        .map(|k| {
            let at = (s.offset + 24 * k) as usize;
            Sym {
                value: u64_at(&bytes, at + 8),
                shndx: u16::from_le_bytes(bytes[at + 6..at + 8].try_into().unwrap()),
            }
        })
        .collect()
}

const R_64: u32 = 1;
const R_PC32: u32 = 2;
const R_PLT32: u32 = 4;
const R_32: u32 = 10;

/// The places a dynamic relocation of `.rela.dyn` fills.
fn dynamic_places(path: &Path) -> std::collections::HashSet<u64> {
    let secs = sections(path);
    let Some(rela) = secs.iter().find(|s| s.name == ".rela.dyn") else {
        return Default::default();
    };
    let bytes = std::fs::read(path).unwrap();
    (0..rela.size / 24)
        .map(|i| u64_at(&bytes, (rela.offset + 24 * i) as usize))
        .collect()
}

/// Checks every copied relocation whose value the link wrote as it is (absolute and
/// PC-relative ones against defined symbols) against the output's bytes; returns how many
/// were checked. A place a dynamic relocation fills keeps the input's bytes (zeros), as
/// lld leaves it.
fn check_against_bytes(path: &Path) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let secs = sections(path);
    let syms = symtab(path);
    let dynamic = dynamic_places(path);
    let mut checked = 0;
    for (name, target, entries) in copied(path) {
        let sec = secs
            .iter()
            .find(|s| s.index as u64 == target)
            .unwrap_or_else(|| panic!("{name}: no section {target}"));
        assert_eq!(name, format!(".rela{}", sec.name), "{}", path.display());
        let loaded = sec.flags.contains('A');
        for r in entries {
            assert!(
                r.r_type == 0 || (r.sym as usize) < syms.len(),
                "{name}: {r:?}"
            );
            let sym = syms[r.sym as usize];
            if r.r_type == 0 || sym.shndx == 0 || sec.typ == "NOBITS" {
                continue;
            }
            let within = if loaded {
                r.offset
                    .checked_sub(sec.addr)
                    .expect("place before its section")
            } else {
                r.offset
            };
            assert!(within < sec.size, "{name}: {r:?} outside {}", sec.name);
            let at = (sec.offset + within) as usize;
            if loaded && dynamic.contains(&r.offset) {
                assert_eq!(
                    u64_at(&bytes, at),
                    0,
                    "{name} {r:?}: a dynamic relocation's place"
                );
                checked += 1;
                continue;
            }
            let s_a = sym.value.wrapping_add(r.addend as u64);
            let (want, got) = match r.r_type {
                R_64 => (s_a, u64_at(&bytes, at)),
                R_32 => (s_a & 0xffff_ffff, u64::from(u32_at(&bytes, at))),
                // A direct call or a PC-relative reference: S + A - P.
                R_PC32 | R_PLT32 => (
                    s_a.wrapping_sub(r.offset) & 0xffff_ffff,
                    u64::from(u32_at(&bytes, at)),
                ),
                _ => continue,
            };
            assert_eq!(got, want, "{}: {name} {r:?}", path.display());
            checked += 1;
        }
    }
    checked
}

/// Per copied section, its relocation types, sorted.
fn types_by_section(path: &Path) -> Vec<(String, Vec<u32>)> {
    let mut out: Vec<(String, Vec<u32>)> = copied(path)
        .into_iter()
        .map(|(name, _, entries)| {
            let mut types: Vec<u32> = entries.iter().map(|r| r.r_type).collect();
            types.sort_unstable();
            (name, types)
        })
        .collect();
    out.sort();
    out
}

/// `--emit-relocs` keeps each input relocation of what the output holds, as lld does: one
/// `.rela<name>` per output section (debug sections too), the same relocation types, and
/// symbols and addends that give the values the link wrote. Sections garbage collection
/// dropped leave nothing; `-q` is the same option; `-s` with it is refused.
#[test]
fn emit_relocs_as_lld() {
    let t = Test::new();
    let flags = ["-O1", "-g", "-ffunction-sections", "-fdata-sections"];
    let main = t.compile(Clang, MAIN, &flags);
    let lib = t.compile(Clang, LIB, &flags);
    let link_flags = ["-no-pie", "-Wl,--emit-relocs", "-Wl,--gc-sections"];
    let lld = t.link(Driver::ClangLld, &[&main, &lib], &link_flags, "lld/prog");
    let rld = t.link(Driver::ClangRld, &[&main, &lib], &link_flags, "rld/prog");
    assert_same_output(&rld, &lld, &["x"], &[], Some("sum 13 after 2 calls\n"));

    let ours = types_by_section(&rld);
    let names: Vec<&str> = ours.iter().map(|(n, _)| n.as_str()).collect();
    for want in [".rela.text", ".rela.debug_info", ".rela.data.rel.ro"] {
        assert!(names.contains(&want), "{names:?}");
    }
    // lld-22 writes every `.eh_frame` relocation at the section's first record, and none
    // at all after garbage collection; rld writes each at its record (checked below).
    let without_eh_frame = |v: Vec<(String, Vec<u32>)>| -> Vec<(String, Vec<u32>)> {
        v.into_iter()
            .filter(|(n, _)| n != ".rela.eh_frame")
            .collect()
    };
    assert!(names.contains(&".rela.eh_frame"), "{names:?}");
    assert_eq!(
        without_eh_frame(ours.clone()),
        without_eh_frame(types_by_section(&lld))
    );
    let checked = check_against_bytes(&rld);
    assert!(checked >= 30, "only {checked} relocations checked");

    // Nothing of the function garbage collection dropped: its call sites' relocations are
    // gone, and the debug info's reference to it names no symbol.
    let text = tool_stdout("readelf", &["-rW"], &rld);
    assert!(!text.contains("never_called"), "{text}");

    let q = t.link(
        Driver::ClangRld,
        &[&main, &lib],
        &["-no-pie", "-Wl,-q", "-Wl,--gc-sections"],
        "rld/prog-q",
    );
    assert_eq!(std::fs::read(&q).unwrap(), std::fs::read(&rld).unwrap());

    let (res, cmd) = t.try_link(
        Driver::ClangRld,
        &[&main, &lib],
        &["-Wl,--emit-relocs", "-s"],
        "rld/stripped",
    );
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(!res.status.success(), "{cmd}");
    assert!(
        err.contains("--strip-all and --emit-relocs may not be used together"),
        "{err}"
    );
    assert!(!t.path("rld/stripped").exists());
}

/// In a position-independent executable the copied relocations still name the places'
/// addresses, and local targets in merged strings become the section symbol plus the
/// string's offset.
#[test]
fn emit_relocs_in_a_pie() {
    let t = Test::new();
    let main = t.compile(Clang, MAIN, &["-O1", "-fPIE"]);
    let lib = t.compile(Clang, LIB, &["-O1", "-fPIE"]);
    let flags = ["-pie", "-Wl,--emit-relocs"];
    let rld = t.link(Driver::ClangRld, &[&main, &lib], &flags, "rld/prog");
    let lld = t.link(Driver::ClangLld, &[&main, &lib], &flags, "lld/prog");
    assert_same_output(&rld, &lld, &["x"], &[], Some("sum 13 after 2 calls\n"));
    assert_eq!(types_by_section(&rld), types_by_section(&lld));
    assert!(check_against_bytes(&rld) >= 10);
}

const CXX_A: &str = r#"#include <cstdio>
#include <stdexcept>
#include <string>
template <class T> T twice(T x) { return x + x; }
inline int next_id() { static int id; return ++id; }
extern int shared_total;
extern __thread int per_thread;
int from_a(int x) {
    if (x < 0) throw std::runtime_error("negative " + std::to_string(x));
    shared_total += x;
    per_thread++;
    return twice(x) + next_id();
}
struct Announce { Announce() { std::puts("constructed in a"); } } announce;
"#;

const CXX_B: &str = r#"#include <cstdio>
#include <stdexcept>
template <class T> T twice(T x) { return x + x; }
inline int next_id() { static int id; return ++id; }
int from_a(int);
extern "C" int from_c(const char *);
int main() {
    int sum = from_a(3) + twice(4) + next_id();
    try {
        from_a(-2);
    } catch (const std::exception &e) {
        std::printf("caught: %s\n", e.what());
    }
    std::printf("sum %d, %d\n", sum, from_c("the end"));
    return 0;
}
"#;

const C_PART: &str = r#"#include <stdio.h>
int shared_total;            /* common with -fcommon */
__thread int per_thread = 5;
static const char *greeting = "from c: %s (%d, %d)\n";
int from_c(const char *s) { printf(greeting, s, shared_total, per_thread); return 7; }
"#;

/// `rld -r` (and `ld.lld -r`) of the three objects.
fn combine(t: &Test, objs: &[&Path], flags: &[&str], out: &str) -> std::path::PathBuf {
    t.link(Driver::Rld, objs, &[&["-r"], flags].concat(), out)
}

/// The global symbols of a relocatable object: name, binding, type, and whether each is
/// undefined, common or defined.
fn globals(path: &Path) -> Vec<(String, String, String, String)> {
    let mut out: Vec<_> = symbols(path)
        .into_iter()
        .filter(|s| s.table == ".symtab" && s.bind != "LOCAL")
        .map(|s| {
            let ndx = match s.ndx.as_str() {
                "UND" | "COM" | "ABS" => s.ndx.clone(),
                _ => "defined".into(),
            };
            (s.name, s.bind, s.typ, ndx)
        })
        .collect();
    out.sort();
    out
}

/// The COMDAT groups of an object: each as its signature and member section names,
/// sorted.
fn groups(path: &Path) -> Vec<String> {
    let text = tool_stdout("readelf", &["-gW"], path);
    let mut out: Vec<String> = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with("COMDAT group section") {
            // COMDAT group section [    3] `.group' [SIGNATURE] contains N sections:
            let signature = line.split('[').nth(2).and_then(|r| r.split(']').next());
            out.push(signature.unwrap_or("").to_string());
        } else if let Some(member) = line.strip_prefix('[').and_then(|l| l.split_once(']')) {
            if member.0.trim().parse::<u32>().is_ok() {
                if let Some(last) = out.last_mut() {
                    last.push(' ');
                    last.push_str(member.1.trim());
                }
            }
        }
    }
    out.sort();
    out
}

/// `-r` with native objects, as lld and GNU ld make it: one relocatable object whose
/// sections keep their names, whose COMDAT groups (templates, inline functions and their
/// static locals) are kept once, with common symbols still common, the same global symbols
/// as lld's, and every relocation, so that linking it (with lld, GNU ld or rld) gives the
/// program the inputs give, debug line information included.
#[test]
fn relocatable_output_links_like_its_inputs() {
    let t = Test::new();
    let cxx = ["-O1", "-g"];
    let a = t.compile_cxx(Clang, CXX_A, &cxx);
    let b = t.compile_cxx(Clang, CXX_B, &cxx);
    let c = t.compile(Clang, C_PART, &["-O1", "-g", "-fcommon"]);
    let objs = [a.as_path(), b.as_path(), c.as_path()];
    let ours = combine(&t, &objs, &[], "combined.o");
    let lld_r = t.path("combined-lld.o");
    run_checked(
        std::process::Command::new("ld.lld-22")
            .arg("-r")
            .args(objs)
            .arg("-o")
            .arg(&lld_r),
    );
    assert_eq!(elf_type(&ours), "REL");
    assert_readelf_clean(&ours);
    assert_eq!(globals(&ours), globals(&lld_r));
    assert!(
        globals(&ours)
            .iter()
            .any(|g| g.0 == "shared_total" && g.3 == "COM"),
        "{:?}",
        globals(&ours)
    );
    let our_groups = groups(&ours);
    assert_eq!(our_groups, groups(&lld_r));
    assert!(
        our_groups.contains(&"_ZZ7next_idvE2id .bss._ZZ7next_idvE2id".to_string()),
        "{our_groups:?}"
    );
    let secs = sections(&ours);
    let names: Vec<&str> = secs.iter().map(|s| s.name.as_str()).collect();
    for want in [
        ".text",
        ".rela.text",
        ".eh_frame",
        ".rela.eh_frame",
        ".debug_info",
        ".rela.debug_info",
        ".tdata",
        ".init_array",
        ".note.GNU-stack",
    ] {
        assert!(names.contains(&want), "{want} missing: {names:?}");
    }
    assert!(secs.iter().all(|s| s.addr == 0), "{secs:?}");
    let strings = find_section(&secs, ".rodata.str1.1").expect("merged strings");
    assert_eq!(strings.flags, "AMS");

    let direct = t.link_cxx(Driver::ClangLld, &objs, &[], "direct", false);
    let expected = "constructed in a\ncaught: negative -2\nfrom c: the end (3, 6)\nsum 17, 7\n";
    assert_output_is(
        &direct,
        &run(&direct, &[], &[]),
        expected,
        "the inputs linked",
    );
    for driver in [Driver::ClangLld, Driver::GccLd, Driver::ClangRld] {
        let exe = t.link_cxx(
            driver,
            &[&ours],
            &[],
            &format!("{}/prog", driver.name()),
            true,
        );
        assert_same_output(&exe, &direct, &[], &[], Some(expected));
    }
    // The debug information still maps main's code to its source line.
    let line_of_main = |exe: &Path| {
        let main = find_symbols(&symbols(exe), ".symtab", "main")[0].value;
        let out = std::process::Command::new("addr2line")
            .arg("-e")
            .arg(exe)
            .arg(format!("{main:#x}"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.rsplit('/').next().unwrap_or("").trim().to_string()
    };
    let via_r = t.path(&format!("{}/prog", Driver::ClangLld.name()));
    assert_eq!(line_of_main(&via_r), line_of_main(&direct));
    assert!(
        line_of_main(&direct).contains(":7"),
        "{}",
        line_of_main(&direct)
    );
}

/// `-r` mixing LLVM bitcode with native objects: the bitcode is compiled (as one
/// partition, its symbols kept global) and combined with the objects into one relocatable
/// object that links into the same program.
#[test]
fn relocatable_output_mixes_bitcode_and_objects() {
    let t = Test::new();
    let a = t.compile_cxx(Clang, CXX_A, &["-O1", "-flto"]);
    let b = t.compile_cxx(Clang, CXX_B, &["-O1"]);
    let c = t.compile(Clang, C_PART, &["-O1", "-fcommon", "-flto"]);
    let ours = combine(&t, &[&a, &b, &c], &[], "mixed.o");
    assert_eq!(elf_type(&ours), "REL");
    let names: Vec<String> = globals(&ours)
        .into_iter()
        .filter(|g| g.3 == "defined")
        .map(|g| g.0)
        .collect();
    for want in ["main", "_Z6from_ai", "from_c", "per_thread"] {
        assert!(names.iter().any(|n| n == want), "{want}: {names:?}");
    }
    let exe = t.link_cxx(Driver::ClangLld, &[&ours], &[], "prog", false);
    let expected = "constructed in a\ncaught: negative -2\nfrom c: the end (3, 6)\nsum 17, 7\n";
    assert_output_is(&exe, &run(&exe, &[], &[]), expected, "the program from -r");
}

/// What cannot go with `-r` is refused as lld refuses it; what has no meaning there warns.
#[test]
fn relocatable_output_option_conflicts() {
    let t = Test::new();
    let c = t.compile(Clang, C_PART, &["-O1"]);
    for (flag, message) in [
        ("-shared", "-r and -shared may not be used together"),
        ("-pie", "-r and -pie may not be used together"),
        ("--icf=all", "-r and --icf may not be used together"),
        ("--gdb-index", "-r and --gdb-index may not be used together"),
    ] {
        let (res, cmd) = t.try_link(Driver::Rld, &[&c], &["-r", flag], "refused.o");
        let err = String::from_utf8_lossy(&res.stderr);
        assert!(
            !res.status.success() && err.contains(message),
            "{cmd}: {err}"
        );
        assert!(!t.path("refused.o").exists());
    }
    let (res, cmd) = t.try_link(Driver::Rld, &[&c], &["-r", "--gc-sections"], "gc.o");
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(res.status.success(), "{cmd}: {err}");
    assert!(
        err.contains("warning: --gc-sections is ignored with -r"),
        "{err}"
    );
}
