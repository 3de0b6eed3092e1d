//! rld's bitstream remarks checked against LLVM 14 itself:
//!
//! - the remarks of LLVM's own YAML files (tests/data) survive a trip through the bitstream
//!   writer and reader, and take much less room;
//! - LLVM's remark parser (llvm-c/Remarks.h, `LLVMRemarkParserCreateBitstream`), through a
//!   tiny C program compiled at test time against `llvm-config-14` (support/dump_remarks.c),
//!   reads what `BitstreamWriter` writes and finds the same remarks, field by field;
//! - LLVM's own serializer (C++, `createRemarkSerializer` in standalone mode, given the
//!   string table in the same order) writes the very same bytes;
//! - the separate remarks file clang-14 writes is refused with a clear message;
//! - mangled files give errors, never panics.
//!
//! Each LLVM test prints why and passes when the tool it needs is not installed.

mod support;

use rld_remarks::{is_bitstream, parse_yaml, read_bitstream, BitstreamWriter, Remark, RemarkKind};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use support::{
    arg, build_against_llvm, data, expected_dump, installed, llvm_reads, loc, remark_dumper, run,
    work_dir, DATA_FILES,
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

/// Reads a bitstream file with LLVM's parser, then writes its remarks again with LLVM's
/// standalone serializer, the string table filled in the order `emitRemarkBlock` (and
/// rld) add strings.
const LLVM_RESERIALIZER: &str = r#"
#include <llvm/Remarks/Remark.h>
#include <llvm/Remarks/RemarkParser.h>
#include <llvm/Remarks/RemarkSerializer.h>
#include <llvm/Remarks/RemarkStringTable.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <memory>
#include <vector>

using namespace llvm;

int main(int argc, char **argv) {
  auto Buf = MemoryBuffer::getFile(argv[1]);
  if (!Buf) return 2;
  auto Parser = remarks::createRemarkParser(remarks::Format::Bitstream, (*Buf)->getBuffer());
  if (!Parser) {
    errs() << toString(Parser.takeError()) << "\n";
    return 1;
  }
  std::vector<std::unique_ptr<remarks::Remark>> All;
  while (true) {
    auto R = (*Parser)->next();
    if (!R) {
      Error E = R.takeError();
      if (E.isA<remarks::EndOfFileError>()) {
        consumeError(std::move(E));
        break;
      }
      errs() << toString(std::move(E)) << "\n";
      return 1;
    }
    All.push_back(std::move(*R));
  }
  remarks::StringTable StrTab;
  for (auto &R : All) {
    StrTab.add(R->RemarkName);
    StrTab.add(R->PassName);
    StrTab.add(R->FunctionName);
    if (R->Loc) StrTab.add(R->Loc->SourceFilePath);
    for (auto &A : R->Args) {
      StrTab.add(A.Key);
      StrTab.add(A.Val);
      if (A.Loc) StrTab.add(A.Loc->SourceFilePath);
    }
  }
  std::error_code EC;
  raw_fd_ostream OS(argv[2], EC);
  if (EC) return 2;
  auto S = remarks::createRemarkSerializer(remarks::Format::Bitstream,
                                           remarks::SerializerMode::Standalone, OS,
                                           std::move(StrTab));
  if (!S) {
    errs() << toString(S.takeError()) << "\n";
    return 1;
  }
  for (auto &R : All) (*S)->emit(*R);
  return 0;
}
"#;

fn llvm_reserializer() -> Option<PathBuf> {
    static CELL: OnceLock<Option<PathBuf>> = OnceLock::new();
    build_against_llvm(
        &CELL,
        "bitstream-reserializer",
        "c++",
        "--cxxflags",
        LLVM_RESERIALIZER,
    )
}

fn remark_sets() -> Vec<(&'static str, Vec<Remark>)> {
    let mut sets = vec![("awkward", awkward_remarks())];
    for name in DATA_FILES {
        sets.push((name, parse_yaml(&data(name)).unwrap()));
    }
    sets
}

#[test]
fn llvm_parser_reads_rld_bitstream_as_written() {
    let Some(dumper) = remark_dumper() else {
        return;
    };
    for (name, remarks) in remark_sets() {
        assert_eq!(
            llvm_reads(&dumper, &format!("{name}.bitstream"), write(&remarks)),
            expected_dump(&remarks, str::to_string),
            "LLVM read {name} differently"
        );
    }
    // No remarks: rld, like LLVM, writes nothing, which LLVM's bitstream parser (named, as
    // an empty file has no magic to choose it by) reads as no remarks.
    let path = dumper.with_file_name("empty.bitstream");
    std::fs::write(&path, write(&[])).unwrap();
    assert_eq!(run(Command::new(&dumper).arg(&path).arg("bitstream")), "");
}

#[test]
fn llvm_serializer_writes_the_same_bytes() {
    let Some(reserializer) = llvm_reserializer() else {
        return;
    };
    for (name, remarks) in remark_sets() {
        let ours = write(&remarks);
        let path = reserializer.with_file_name(format!("{name}.bitstream"));
        let theirs = reserializer.with_file_name(format!("{name}.llvm.bitstream"));
        std::fs::write(&path, &ours).unwrap();
        run(Command::new(&reserializer).arg(&path).arg(&theirs));
        let theirs = std::fs::read(&theirs).unwrap();
        if let Some(i) = ours.iter().zip(&theirs).position(|(a, b)| a != b) {
            panic!("{name}: rld's bytes differ from LLVM's at byte {i}");
        }
        assert_eq!(ours.len(), theirs.len(), "{name}");
    }
}

#[test]
fn clang_separate_remarks_file_is_refused_for_its_missing_string_table() {
    if !installed("clang-14") {
        return;
    }
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
