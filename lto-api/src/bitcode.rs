//! Recognizing LLVM bitcode, and a bitcode input as the LTO step receives it.

/// Magic of a raw bitcode file ('BC' 0xC0DE).
const RAW_BITCODE_MAGIC: [u8; 4] = [0x42, 0x43, 0xC0, 0xDE];
/// Magic of the bitcode wrapper header (0x0B17C0DE, little endian).
const WRAPPER_MAGIC: [u8; 4] = [0xDE, 0xC0, 0x17, 0x0B];

/// Whether `data` is LLVM bitcode, raw or inside the bitcode wrapper.
pub fn is_bitcode(data: &[u8]) -> bool {
    data.starts_with(&RAW_BITCODE_MAGIC) || data.starts_with(&WRAPPER_MAGIC)
}

/// A bitcode input: its display name and its bytes.
#[derive(Clone, Copy)]
pub struct BitcodeInput<'a> {
    pub name: &'a str,
    pub data: &'a [u8],
}
