//! Real remark files written by LLVM 14 (tests/data, see tests/data/README.md) read back by
//! `parse_yaml` and written again by `format_yaml`, byte for byte.

use rld_remarks::{format_yaml, parse_yaml, RemarkKind};

fn data(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn assert_round_trip(name: &str) -> Vec<rld_remarks::Remark> {
    let real = data(name);
    let remarks = parse_yaml(&real).unwrap_or_else(|e| panic!("{name}: {e}"));
    let written = format_yaml(&remarks);
    if written != real {
        let line = written
            .lines()
            .zip(real.lines())
            .position(|(a, b)| a != b)
            .map_or(0, |i| i + 1);
        panic!("{name}: rewritten text differs from LLVM's at line {line}");
    }
    remarks
}

#[test]
fn clang_pgo_remarks_round_trip() {
    // clang-14 -O2 -g with a profile: hotness, wrapped DebugLocs (long relative path),
    // double-quoted UTF-8 and "\n", every key width, AnalysisFPCommute.
    let remarks = assert_round_trip("clang-O2-pgo.opt.yaml");
    assert_eq!(remarks.len(), 44);
    assert!(remarks.iter().all(|r| r.hotness.is_some()));
    assert!(remarks.iter().any(|r| r.function == "café"));
    assert!(remarks
        .iter()
        .any(|r| r.kind == RemarkKind::AnalysisFPCommute));
    let file = "src/a_rather_long_directory_name/for/wrapping/remarks.c";
    assert_eq!(remarks[0].debug_loc.as_ref().unwrap().file, file);
    assert!(remarks
        .iter()
        .flat_map(|r| &r.args)
        .any(|a| a.value == "\n"));
}

#[test]
fn lld_lto_remarks_round_trip() {
    // lld-14 on the LLVM notes' tu1.c/tu2.c with -g -O2: rld's deadfunction remark followed
    // by the pipeline's own.
    let remarks = assert_round_trip("lld-lto.opt.ld.yaml");
    assert_eq!(remarks.len(), 5);
    assert_eq!(
        remarks[0],
        rld_remarks::dead_function_remark(
            "unused",
            Some(rld_remarks::DebugLoc {
                file: "tu2.c".to_string(),
                line: 1,
                column: 0
            })
        )
    );
}

#[test]
fn lld_deadfunction_without_debug_info_round_trips() {
    let remarks = assert_round_trip("lld-deadfunction.opt.ld.yaml");
    assert_eq!(
        remarks,
        vec![rld_remarks::dead_function_remark("unused", None)]
    );
}
