//! rld's bitstream remarks checked against LLVM 22 itself, whose parser reads only its own
//! container version (1), and against LLVM 14's files (version 0), which rld still reads:
//!
//! - the remarks of LLVM's own YAML files (tests/data) survive a trip through the bitstream
//!   writer and reader, and take much less room;
//! - LLVM 22's remark parser (llvm-c/Remarks.h, `LLVMRemarkParserCreateBitstream`), through a
//!   tiny C program compiled at test time against `llvm-config-22` (support/dump_remarks.c),
//!   reads what `BitstreamWriter`, `RemarkSink` and `rld remarks filter --format bitstream`
//!   write and finds the same remarks as the YAML they came from, field by field;
//! - LLVM 22's own serializer, given the same remarks (support/write_remarks.cpp), writes the
//!   very same bytes, and so does clang-22: rld rewrites its remark file byte for byte;
//! - LLVM 14's standalone files (container version 0, which LLVM 22 refuses) are still read,
//!   both as LLVM 14 writes them at test time and as kept in tests/data;
//! - the separate remarks file clang-14 writes is refused with a clear message;
//! - mangled files give errors, never panics.
//!
//! (llvm_tools.rs reads clang-22's bitstream files too.) A test whose LLVM tool is not
//! installed fails, naming the Debian package.

mod support;

use rld_remarks::sink::{RemarkSink, SinkFormat};
use rld_remarks::{is_bitstream, parse_yaml, read_bitstream, BitstreamWriter, Remark, RemarkKind};
use std::process::Command;
use support::{
    arg, clang_remarks, data, expected_dump, llvm_reads, llvm_writes, loc, remark_dumper,
    remark_writer, remarks_cli, require, run, work_dir, DATA_FILES,
};

fn write(remarks: &[Remark]) -> Vec<u8> {
    let mut w = BitstreamWriter::new(Vec::new());
    for r in remarks {
        w.add(r).unwrap();
    }
    w.finish().unwrap()
}

fn read(bytes: &[u8]) -> Vec<Remark> {
    read_bitstream(bytes)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn llvm_yaml_files_round_trip_through_bitstream() {
    for name in DATA_FILES {
        let yaml = data(name);
        let remarks = parse_yaml(&yaml).unwrap();
        let bytes = write(&remarks);
        assert!(is_bitstream(&bytes));
        assert_eq!(read(&bytes), remarks, "{name}");
    }
}

#[test]
fn bitstream_is_much_smaller_than_yaml() {
    // The header (BLOCKINFO with LLVM's block and record names, META) is a fixed ~0.3 KB,
    // so the one-remark file gains nothing; what matters is the size per remark.
    let (mut yaml_total, mut bitstream_total) = (0, 0);
    for name in DATA_FILES {
        let yaml = data(name);
        let bytes = write(&parse_yaml(&yaml).unwrap());
        eprintln!(
            "{name}: YAML {} bytes, bitstream {} bytes",
            yaml.len(),
            bytes.len()
        );
        yaml_total += yaml.len();
        bitstream_total += bytes.len();
    }
    let yaml = data("clang-O2-pgo.opt.yaml");
    let bytes = write(&parse_yaml(&yaml).unwrap());
    assert!(
        bytes.len() * 4 < yaml.len(),
        "{} vs {}",
        bytes.len(),
        yaml.len()
    );
    assert!(
        bitstream_total * 3 < yaml_total,
        "{bitstream_total} vs {yaml_total}"
    );
}

/// Every kind, every optional field present and absent, extreme numbers, empty and
/// non-ASCII strings, repeated strings.
fn awkward_remarks() -> Vec<Remark> {
    let strings = [
        "plain",
        "",
        " spaced ",
        "caf\u{e9}",
        "\u{1f600}",
        "line\nbreak\r",
        "tab\tinside",
        "\x01\x07\x1b",
        "back\\slash \"quoted\" 'single'",
        "zero\u{200b}width",
    ];
    strings
        .iter()
        .enumerate()
        .map(|(i, s)| Remark {
            kind: RemarkKind::ALL[i % RemarkKind::ALL.len()],
            pass: s.to_string(),
            name: format!("Name{i}"),
            debug_loc: match i % 3 {
                0 => None,
                1 => loc(s, i as u32, 2 * i as u32),
                _ => loc("dir/file.c", u32::MAX, u32::MAX),
            },
            function: s.to_string(),
            hotness: [None, Some(0), Some(i as u64 * 1000), Some(u64::MAX)][i % 4],
            args: if i % 5 == 4 {
                vec![]
            } else {
                vec![
                    arg("String", s, None),
                    arg("Callee", "f", loc("dir/file.c", 1, 0)),
                    arg(s, s, loc(s, 0, 0)),
                ]
            },
        })
        .collect()
}

fn remark_sets() -> Vec<(&'static str, Vec<Remark>)> {
    let mut sets = vec![("awkward", awkward_remarks()), ("none", vec![])];
    for name in DATA_FILES {
        sets.push((name, parse_yaml(&data(name)).unwrap()));
    }
    sets
}

/// What LLVM 22's parser reads from `bytes`, written as `name`; no remarks for an empty file
/// (which has no magic to choose the bitstream parser by, so it is named).
fn llvm_22_reads(name: &str, bytes: Vec<u8>) -> String {
    let dumper = remark_dumper(22);
    if bytes.is_empty() {
        let path = dumper.with_file_name(name);
        std::fs::write(&path, bytes).unwrap();
        return run(Command::new(&dumper).arg(&path).arg("bitstream"));
    }
    llvm_reads(&dumper, name, bytes)
}

#[test]
fn llvm_22_parser_reads_rld_bitstream_as_written() {
    for (name, remarks) in remark_sets() {
        let bytes = write(&remarks);
        // The container LLVM 22 requires: version 1, a remarks file.
        if !remarks.is_empty() {
            let dump = run(Command::new("llvm-bcanalyzer-22")
                .arg("-dump")
                .arg(write_file(&format!("{name}.bcanalyzer.bitstream"), &bytes)));
            assert!(
                dump.contains("<Container info abbrevid=4 op0=1 op1=1/>"),
                "{name}:\n{dump}"
            );
        }
        assert_eq!(
            llvm_22_reads(&format!("{name}.bitstream"), bytes),
            expected_dump(&remarks, str::to_string),
            "LLVM 22 read {name} differently"
        );
    }
}

/// `bytes` as a file in the test binary's scratch directory.
fn write_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn llvm_22_serializer_writes_the_same_bytes() {
    let writer = remark_writer(22);
    for (name, remarks) in remark_sets() {
        let ours = write(&remarks);
        let theirs = llvm_writes(&writer, &format!("{name}.llvm22.bitstream"), &remarks);
        if let Some(i) = ours.iter().zip(&theirs).position(|(a, b)| a != b) {
            panic!("{name}: rld's bytes differ from LLVM 22's at byte {i}");
        }
        assert_eq!(ours.len(), theirs.len(), "{name}");
    }
}

/// clang-22's own remark file, read and written again by rld, is the same file: the same
/// container, blocks, abbreviations and string table order.
#[test]
fn clang_22_bitstream_is_rewritten_byte_for_byte() {
    let dir = work_dir("clang-22-rewrite");
    let path = clang_remarks("clang-22", &dir, "clang-22", "bitstream");
    let theirs = std::fs::read(&path).unwrap();
    let remarks = read(&theirs);
    assert!(remarks.len() > 5, "{remarks:?}");
    let ours = write(&remarks);
    if let Some(i) = ours.iter().zip(&theirs).position(|(a, b)| a != b) {
        panic!("rld's bytes differ from clang-22's at byte {i}");
    }
    assert_eq!(ours.len(), theirs.len());
}

/// The two ways rld writes bitstream besides `BitstreamWriter` itself: `rld remarks filter
/// --format bitstream`, and `RemarkSink`, which the linker's `--opt-remarks-format=bitstream`
/// writes through. LLVM 22 reads both as the YAML they came from.
#[test]
fn filter_and_sink_bitstream_is_read_by_llvm_22() {
    let dir = work_dir("filter-bitstream");
    for name in DATA_FILES {
        let input = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
        let remarks = parse_yaml(&data(name)).unwrap();
        let out = dir.join(format!("{name}.bitstream"));
        let out_arg = out.to_str().unwrap();
        let (status, _) = remarks_cli(["filter", "--format", "bitstream", &input, "-o", out_arg]);
        assert_eq!(status, 0, "{name}");
        let filtered = std::fs::read(&out).unwrap();
        assert_eq!(filtered, write(&remarks), "{name}");
        assert_eq!(
            llvm_22_reads(&format!("{name}.filtered.bitstream"), filtered),
            expected_dump(&remarks, str::to_string),
            "{name}"
        );

        // Only the passed remarks, through the sink.
        let passed: Vec<Remark> = remarks
            .into_iter()
            .filter(|r| r.kind == RemarkKind::Passed)
            .collect();
        let mut sink = RemarkSink::new(SinkFormat::Bitstream, Vec::new());
        for r in &passed {
            sink.add(r).unwrap();
        }
        let sunk = sink.finish().unwrap();
        assert_eq!(sunk, write(&passed), "{name}");
        assert_eq!(
            llvm_22_reads(&format!("{name}.sink.bitstream"), sunk),
            expected_dump(&passed, str::to_string),
            "{name}"
        );
    }
    // A filter nothing passes writes an empty file, as LLVM would: no remarks to LLVM 22.
    let input = format!(
        "{}/tests/data/{}",
        env!("CARGO_MANIFEST_DIR"),
        DATA_FILES[0]
    );
    let out = dir.join("nothing.bitstream");
    let out_arg = out.to_str().unwrap();
    let (status, _) = remarks_cli([
        "filter",
        "--format",
        "bitstream",
        "--pass",
        "no-such-pass",
        &input,
        "-o",
        out_arg,
    ]);
    assert_eq!(status, 0);
    let empty = std::fs::read(&out).unwrap();
    assert_eq!(empty, b"");
    assert_eq!(llvm_22_reads("nothing.bitstream", empty), "");
}

/// LLVM 14's standalone container (version 0, the string table before the remarks), which
/// LLVM 22 refuses, is still read by rld: as LLVM 14's serializer writes it for each set of
/// remarks, and as tests/data keeps one (clang-O2-pgo.opt.yaml's remarks, so written).
#[test]
fn llvm_14_standalone_files_are_read() {
    let writer = remark_writer(14);
    for (name, remarks) in remark_sets() {
        let v0 = llvm_writes(&writer, &format!("{name}.llvm14.bitstream"), &remarks);
        assert_eq!(read(&v0), remarks, "{name}");
        if remarks.is_empty() {
            assert_eq!(v0, b"");
            continue;
        }
        let dump = run(Command::new("llvm-bcanalyzer-22")
            .arg("-dump")
            .arg(writer.with_file_name(format!("{name}.llvm14.bitstream"))));
        assert!(
            dump.contains("<Container info abbrevid=4 op0=0 op1=2/>"),
            "{name}:\n{dump}"
        );
        // Why rld no longer writes it.
        let out = Command::new(remark_dumper(22))
            .arg(writer.with_file_name(format!("{name}.llvm14.bitstream")))
            .output()
            .unwrap();
        assert!(!out.status.success(), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("Unsupported remark container version (expected: 1, read: 0)"),
            "{name}: {err}"
        );
    }
    let kept = std::fs::read(format!(
        "{}/tests/data/clang-O2-pgo.opt.v0.bitstream",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let remarks = parse_yaml(&data("clang-O2-pgo.opt.yaml")).unwrap();
    assert_eq!(
        kept,
        llvm_writes(&writer, "kept.llvm14.bitstream", &remarks)
    );
}

/// The kept LLVM 14 file reads as the YAML it was written from, with no LLVM installed.
#[test]
fn kept_llvm_14_standalone_file_is_read() {
    let kept = std::fs::read(format!(
        "{}/tests/data/clang-O2-pgo.opt.v0.bitstream",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let remarks = parse_yaml(&data("clang-O2-pgo.opt.yaml")).unwrap();
    assert!(remarks.iter().all(|r| r.hotness.is_some()));
    assert_eq!(read(&kept), remarks);
    // Rewritten, it is LLVM 22's container, the same remarks.
    let rewritten = write(&read(&kept));
    assert_ne!(rewritten, kept);
    assert_eq!(read(&rewritten), remarks);
}

#[test]
fn clang_separate_remarks_file_is_refused_for_its_missing_string_table() {
    require("clang-14");
    let dir = work_dir("clang-separate-bitstream");
    std::fs::write(
        dir.join("t.c"),
        "static int sq(int a) { return a * a; }\n\
         int f(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(p[i]); return s; }\n",
    )
    .unwrap();
    // clang-14 crashes writing the remarks section (which would hold the string table) into
    // an ELF object, so it is turned off; the remarks file is the same either way.
    run(Command::new("clang-14")
        .current_dir(&dir)
        .args(["-O2", "-c", "t.c", "-o", "t.o"])
        .args([
            "-fsave-optimization-record=bitstream",
            "-foptimization-record-file=t.opt.bitstream",
        ])
        .args(["-mllvm", "-remarks-section=false"]));
    let bytes = std::fs::read(dir.join("t.opt.bitstream")).unwrap();
    assert!(is_bitstream(&bytes));
    let Err(e) = read_bitstream(&bytes) else {
        panic!("a separate remarks file was read")
    };
    assert!(e.message.contains("string table is missing"), "{e}");
}

/// A small deterministic random source.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn mangled_bitstream_gives_errors_not_panics() {
    let remarks = parse_yaml(&data("clang-O2-pgo.opt.yaml")).unwrap();
    let bytes = write(&remarks);
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    let (mut errors, mut clean) = (0, 0);
    for round in 0..5000 {
        let mut m = bytes.clone();
        // Flip bits, overwrite bytes with random or extreme values, truncate.
        for _ in 0..1 + rng.next() % 6 {
            let i = (rng.next() % m.len() as u64) as usize;
            m[i] = match rng.next() % 3 {
                0 => m[i] ^ (1 << (rng.next() % 8)),
                1 => rng.next() as u8,
                _ => 0xff,
            };
        }
        if round % 3 == 0 {
            m.truncate((rng.next() % m.len() as u64) as usize);
        }
        let outcome = read_bitstream(&m).and_then(|it| it.collect::<Result<Vec<_>, _>>());
        match outcome {
            Ok(_) => clean += 1,
            Err(_) => errors += 1,
        }
    }
    eprintln!("mangled files: {errors} errors, {clean} read without error");
    assert!(errors > 1000);
}
