//! The LLVM side of rld: recognizing bitcode inputs today; reading, summarizing,
//! optimizing and compiling them once LTO lands.

/// Magic of a raw LLVM bitcode file ("BC" 0xC0DE).
const RAW_BITCODE_MAGIC: [u8; 4] = [0x42, 0x43, 0xC0, 0xDE];
/// Magic of the bitcode wrapper header (0x0B17C0DE, little endian).
const WRAPPER_MAGIC: [u8; 4] = [0xDE, 0xC0, 0x17, 0x0B];

/// Whether `data` is LLVM bitcode, raw or inside the bitcode wrapper.
pub fn is_bitcode(data: &[u8]) -> bool {
    data.starts_with(&RAW_BITCODE_MAGIC) || data.starts_with(&WRAPPER_MAGIC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognizes_raw_and_wrapped_bitcode() {
        assert!(is_bitcode(&[0x42, 0x43, 0xC0, 0xDE, 0x35]));
        assert!(is_bitcode(&[0xDE, 0xC0, 0x17, 0x0B, 0, 0]));
        assert!(!is_bitcode(b"\x7fELF"));
        assert!(!is_bitcode(b"BC"));
    }
}
