//! Relocations copied into the output: `--emit-relocs` (`-q`), compared with lld-14 and
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

/// Checks every copied relocation whose value the link wrote as it is (absolute and
/// PC-relative ones against defined symbols) against the output's bytes; returns how many
/// were checked.
fn check_against_bytes(path: &Path) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let secs = sections(path);
    let syms = symtab(path);
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
    // lld-14 writes every `.eh_frame` relocation at the section's first record, and none
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
