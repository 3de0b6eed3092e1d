//! The Rust definitions against binutils' `plugin-api.h` (package binutils-dev): a C program
//! prints every struct's size and field offsets and every enum value, and each must equal
//! the Rust one.

use rld_plugin_api::*;
use std::mem::{offset_of, size_of};
use std::process::Command;

const HEADER: &str = "/usr/include/plugin-api.h";

const PROGRAM: &str = r#"
#define HAVE_STDINT_H 1
#include <stdint.h>
#include <sys/types.h>
#include <plugin-api.h>
#include <stddef.h>
#include <stdio.h>
#define FIELD(s, f) printf("%s.%s %zu\n", #s, #f, offsetof(struct s, f))
#define SIZE(s) printf("%s %zu\n", #s, sizeof(struct s))
#define VALUE(v) printf("%s %d\n", #v, (int)(v))
int main(void) {
  SIZE(ld_plugin_input_file);
  FIELD(ld_plugin_input_file, name); FIELD(ld_plugin_input_file, fd);
  FIELD(ld_plugin_input_file, offset); FIELD(ld_plugin_input_file, filesize);
  FIELD(ld_plugin_input_file, handle);
  SIZE(ld_plugin_symbol);
  FIELD(ld_plugin_symbol, name); FIELD(ld_plugin_symbol, version);
  FIELD(ld_plugin_symbol, def); FIELD(ld_plugin_symbol, symbol_type);
  FIELD(ld_plugin_symbol, section_kind); FIELD(ld_plugin_symbol, unused);
  FIELD(ld_plugin_symbol, visibility); FIELD(ld_plugin_symbol, size);
  FIELD(ld_plugin_symbol, comdat_key); FIELD(ld_plugin_symbol, resolution);
  SIZE(ld_plugin_section);
  FIELD(ld_plugin_section, handle); FIELD(ld_plugin_section, shndx);
  SIZE(ld_plugin_tv);
  FIELD(ld_plugin_tv, tv_tag); FIELD(ld_plugin_tv, tv_u);
  VALUE(LD_PLUGIN_API_VERSION);
  VALUE(LDPS_OK); VALUE(LDPS_NO_SYMS); VALUE(LDPS_BAD_HANDLE); VALUE(LDPS_ERR);
  VALUE(LDPO_REL); VALUE(LDPO_EXEC); VALUE(LDPO_DYN); VALUE(LDPO_PIE);
  VALUE(LDPK_DEF); VALUE(LDPK_WEAKDEF); VALUE(LDPK_UNDEF); VALUE(LDPK_WEAKUNDEF); VALUE(LDPK_COMMON);
  VALUE(LDPV_DEFAULT); VALUE(LDPV_PROTECTED); VALUE(LDPV_INTERNAL); VALUE(LDPV_HIDDEN);
  VALUE(LDST_UNKNOWN); VALUE(LDST_FUNCTION); VALUE(LDST_VARIABLE);
  VALUE(LDSSK_DEFAULT); VALUE(LDSSK_BSS);
  VALUE(LDPR_UNKNOWN); VALUE(LDPR_UNDEF); VALUE(LDPR_PREVAILING_DEF);
  VALUE(LDPR_PREVAILING_DEF_IRONLY); VALUE(LDPR_PREEMPTED_REG); VALUE(LDPR_PREEMPTED_IR);
  VALUE(LDPR_RESOLVED_IR); VALUE(LDPR_RESOLVED_EXEC); VALUE(LDPR_RESOLVED_DYN);
  VALUE(LDPR_PREVAILING_DEF_IRONLY_EXP);
  VALUE(LDPL_INFO); VALUE(LDPL_WARNING); VALUE(LDPL_ERROR); VALUE(LDPL_FATAL);
  VALUE(LDPT_NULL); VALUE(LDPT_API_VERSION); VALUE(LDPT_GOLD_VERSION); VALUE(LDPT_LINKER_OUTPUT);
  VALUE(LDPT_OPTION); VALUE(LDPT_REGISTER_CLAIM_FILE_HOOK);
  VALUE(LDPT_REGISTER_ALL_SYMBOLS_READ_HOOK); VALUE(LDPT_REGISTER_CLEANUP_HOOK);
  VALUE(LDPT_ADD_SYMBOLS); VALUE(LDPT_GET_SYMBOLS); VALUE(LDPT_ADD_INPUT_FILE); VALUE(LDPT_MESSAGE);
  VALUE(LDPT_GET_INPUT_FILE); VALUE(LDPT_RELEASE_INPUT_FILE); VALUE(LDPT_ADD_INPUT_LIBRARY);
  VALUE(LDPT_OUTPUT_NAME); VALUE(LDPT_SET_EXTRA_LIBRARY_PATH); VALUE(LDPT_GNU_LD_VERSION);
  VALUE(LDPT_GET_VIEW); VALUE(LDPT_GET_INPUT_SECTION_COUNT); VALUE(LDPT_GET_INPUT_SECTION_TYPE);
  VALUE(LDPT_GET_INPUT_SECTION_NAME); VALUE(LDPT_GET_INPUT_SECTION_CONTENTS);
  VALUE(LDPT_UPDATE_SECTION_ORDER); VALUE(LDPT_ALLOW_SECTION_ORDERING); VALUE(LDPT_GET_SYMBOLS_V2);
  VALUE(LDPT_ALLOW_UNIQUE_SEGMENT_FOR_SECTIONS); VALUE(LDPT_UNIQUE_SEGMENT_FOR_SECTIONS);
  VALUE(LDPT_GET_SYMBOLS_V3); VALUE(LDPT_GET_INPUT_SECTION_ALIGNMENT);
  VALUE(LDPT_GET_INPUT_SECTION_SIZE); VALUE(LDPT_REGISTER_NEW_INPUT_HOOK);
  VALUE(LDPT_GET_WRAP_SYMBOLS); VALUE(LDPT_ADD_SYMBOLS_V2); VALUE(LDPT_GET_API_VERSION);
  return 0;
}
"#;

/// What the C compiler says, one `name value` per line.
fn c_facts() -> Vec<(String, i64)> {
    assert!(
        std::path::Path::new(HEADER).exists(),
        "{HEADER} is missing: install binutils-dev (scripts/install-prereqs)"
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugin-api-layout");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("layout.c");
    std::fs::write(&src, PROGRAM).unwrap();
    let exe = dir.join("layout");
    let built = Command::new("cc")
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("cc");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let out = Command::new(&exe).output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (name, value) = l.split_once(' ').unwrap();
            (name.to_string(), value.parse().unwrap())
        })
        .collect()
}

/// The same facts from the Rust definitions, named as the C program names them.
fn rust_facts() -> Vec<(String, i64)> {
    let mut v: Vec<(String, i64)> = Vec::new();
    let push = |v: &mut Vec<(String, i64)>, name: &str, value: usize| {
        v.push((name.to_string(), value as i64))
    };
    push(&mut v, "ld_plugin_input_file", size_of::<InputFile>());
    push(
        &mut v,
        "ld_plugin_input_file.name",
        offset_of!(InputFile, name),
    );
    push(&mut v, "ld_plugin_input_file.fd", offset_of!(InputFile, fd));
    push(
        &mut v,
        "ld_plugin_input_file.offset",
        offset_of!(InputFile, offset),
    );
    push(
        &mut v,
        "ld_plugin_input_file.filesize",
        offset_of!(InputFile, filesize),
    );
    push(
        &mut v,
        "ld_plugin_input_file.handle",
        offset_of!(InputFile, handle),
    );
    push(&mut v, "ld_plugin_symbol", size_of::<Symbol>());
    push(&mut v, "ld_plugin_symbol.name", offset_of!(Symbol, name));
    push(
        &mut v,
        "ld_plugin_symbol.version",
        offset_of!(Symbol, version),
    );
    push(&mut v, "ld_plugin_symbol.def", offset_of!(Symbol, def));
    push(
        &mut v,
        "ld_plugin_symbol.symbol_type",
        offset_of!(Symbol, symbol_type),
    );
    push(
        &mut v,
        "ld_plugin_symbol.section_kind",
        offset_of!(Symbol, section_kind),
    );
    push(
        &mut v,
        "ld_plugin_symbol.unused",
        offset_of!(Symbol, unused),
    );
    push(
        &mut v,
        "ld_plugin_symbol.visibility",
        offset_of!(Symbol, visibility),
    );
    push(&mut v, "ld_plugin_symbol.size", offset_of!(Symbol, size));
    push(
        &mut v,
        "ld_plugin_symbol.comdat_key",
        offset_of!(Symbol, comdat_key),
    );
    push(
        &mut v,
        "ld_plugin_symbol.resolution",
        offset_of!(Symbol, resolution),
    );
    push(&mut v, "ld_plugin_section", size_of::<Section>());
    push(
        &mut v,
        "ld_plugin_section.handle",
        offset_of!(Section, handle),
    );
    push(
        &mut v,
        "ld_plugin_section.shndx",
        offset_of!(Section, shndx),
    );
    push(&mut v, "ld_plugin_tv", size_of::<Tv>());
    push(&mut v, "ld_plugin_tv.tv_tag", offset_of!(Tv, tag));
    push(&mut v, "ld_plugin_tv.tv_u", offset_of!(Tv, value));
    v.push(("LD_PLUGIN_API_VERSION".into(), API_VERSION.into()));
    macro_rules! values {
        ($prefix:literal, $ty:ty) => {
            for (value, name) in <$ty>::ALL {
                v.push((format!("{}{name}", $prefix), value.0.into()));
            }
        };
    }
    values!("LDPS_", Status);
    values!("LDPO_", OutputType);
    values!("LDPK_", SymbolKind);
    values!("LDPV_", Visibility);
    values!("LDST_", SymbolType);
    values!("LDSSK_", SectionKind);
    values!("LDPR_", Resolution);
    values!("LDPL_", Level);
    values!("LDPT_", Tag);
    v
}

#[test]
fn rust_definitions_match_the_c_header() {
    let c = c_facts();
    let rust = rust_facts();
    // Every fact the header gives is in Rust, equal, and Rust names nothing more.
    for (name, value) in &c {
        let ours = rust.iter().find(|(n, _)| n == name);
        assert_eq!(ours.map(|(_, v)| v), Some(value), "{name}");
    }
    assert_eq!(
        c.len(),
        rust.len(),
        "Rust names values the header does not print"
    );
}
