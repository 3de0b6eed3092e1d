// Compiled by rustc -Clinker-plugin-lto: bitcode of rustc's LLVM.
#![no_std]
/// Mixes two numbers (small enough to be inlined into its C caller).
#[no_mangle]
pub extern "C" fn rs_mix(a: u32, b: u32) -> u32 {
    a.wrapping_mul(31).rotate_left(5) ^ b
}
