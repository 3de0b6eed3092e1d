//! Where remarks go: a file in LLVM's YAML or bitstream format, or JSON lines, written one
//! remark at a time (the bitstream writer keeps only its string table, written at the end
//! as LLVM 22 does).

use crate::bitstream::BitstreamWriter;
use crate::model::Remark;
use std::io::{self, Write};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SinkFormat {
    Yaml,
    JsonLines,
    Bitstream,
}

impl SinkFormat {
    /// `--opt-remarks-format`'s names (LLVM's): `yaml`, `bitstream`.
    pub fn from_llvm_name(name: &str) -> Option<Self> {
        match name {
            "yaml" => Some(SinkFormat::Yaml),
            "bitstream" => Some(SinkFormat::Bitstream),
            _ => None,
        }
    }
}

pub enum RemarkSink<W: Write> {
    Yaml(W),
    JsonLines(W),
    Bitstream(BitstreamWriter<W>),
}

impl<W: Write> RemarkSink<W> {
    pub fn new(format: SinkFormat, out: W) -> Self {
        match format {
            SinkFormat::Yaml => RemarkSink::Yaml(out),
            SinkFormat::JsonLines => RemarkSink::JsonLines(out),
            SinkFormat::Bitstream => RemarkSink::Bitstream(BitstreamWriter::new(out)),
        }
    }

    pub fn add(&mut self, r: &Remark) -> io::Result<()> {
        match self {
            RemarkSink::Yaml(out) => crate::yaml::write_yaml(std::slice::from_ref(r), out),
            RemarkSink::JsonLines(out) => writeln!(out, "{}", r.to_json()),
            RemarkSink::Bitstream(w) => w.add(r),
        }
    }

    /// Ends the output (the bitstream format writes its string table here); the writer back.
    pub fn finish(self) -> io::Result<W> {
        match self {
            RemarkSink::Yaml(out) | RemarkSink::JsonLines(out) => Ok(out),
            RemarkSink::Bitstream(w) => w.finish(),
        }
    }
}
