//! LLVM's integer encodings of the `memory(...)` and `captures(...)` attributes
//! (llvm/Support/ModRef.h, LLVM 22), read into rld's summary model and written back.
//!
//! `memory`: two bits per location (1 = reads, 2 = writes), locations in the order
//! argmem, inaccessiblemem, errnomem, other, target_mem0, target_mem1. `captures`: the
//! components captured other than through the return value in bits 4..8, through the
//! return value in bits 0..4.

use rld_summaries::MemoryEffects;

/// The locations LLVM 22 knows, in encoding order, and what each is in rld's model.
/// errno is memory the program can name (`*__errno_location()`): other memory; the
/// targets' own state is no memory the program can name.
const LOCATIONS: [(u8, u8); 6] = [
    (MemoryEffects::ARG_READ, MemoryEffects::ARG_WRITE),
    (
        MemoryEffects::INACCESSIBLE_READ,
        MemoryEffects::INACCESSIBLE_WRITE,
    ),
    (MemoryEffects::OTHER_READ, MemoryEffects::OTHER_WRITE),
    (MemoryEffects::OTHER_READ, MemoryEffects::OTHER_WRITE),
    (
        MemoryEffects::INACCESSIBLE_READ,
        MemoryEffects::INACCESSIBLE_WRITE,
    ),
    (
        MemoryEffects::INACCESSIBLE_READ,
        MemoryEffects::INACCESSIBLE_WRITE,
    ),
];

const READ: u32 = 1;
const WRITE: u32 = 2;

/// `memory(readwrite)`: what a function without the attribute may do.
pub const UNKNOWN: u32 = (1 << (2 * LOCATIONS.len())) - 1;

/// What an encoded `memory(...)` allows, in rld's model. Bits of locations this LLVM does
/// not know (a newer encoding) count as any access.
pub fn effects(bits: u32) -> MemoryEffects {
    if bits & !UNKNOWN != 0 {
        return MemoryEffects::ANY;
    }
    let mut out = 0;
    for (i, (read, write)) in LOCATIONS.into_iter().enumerate() {
        let access = (bits >> (2 * i)) & 3;
        if access & READ != 0 {
            out |= read;
        }
        if access & WRITE != 0 {
            out |= write;
        }
    }
    MemoryEffects(out)
}

/// `bits` with reads (`no_reads`) or writes (`no_writes`) taken away from every location.
pub fn restrict(bits: u32, no_reads: bool, no_writes: bool) -> u32 {
    let mut mask = 0;
    for i in 0..LOCATIONS.len() {
        let mut keep = READ | WRITE;
        if no_reads {
            keep &= !READ;
        }
        if no_writes {
            keep &= !WRITE;
        }
        mask |= keep << (2 * i);
    }
    bits & mask
}

/// Whether an encoded `captures(...)` lets the pointer's provenance out (through memory,
/// or through the return value): a capture of the address alone (comparisons, hashing)
/// cannot be used to reach the object.
pub fn captures_provenance(bits: u32) -> bool {
    const PROVENANCE: u32 = 0b1100;
    (bits | (bits >> 4)) & PROVENANCE != 0
}

/// `bits` without the locations a function keeping to its arguments does not touch:
/// errno and other memory (argmem and memory no program can name stay).
pub fn keep_to_arguments(bits: u32) -> u32 {
    const ERRNO_AND_OTHER: u32 = 0b1111 << 4;
    bits & !ERRNO_AND_OTHER
}

/// LLVM's spelling of an encoded `captures(...)`: what is captured other than through the
/// return value, then (where it differs) through it (`captures(none)`,
/// `captures(address, ret: address, provenance)`).
pub fn captures_spelling(bits: u32) -> String {
    let components = |c: u32| {
        let mut parts = Vec::new();
        if c & 3 == 3 {
            parts.push("address");
        } else if c & 1 != 0 {
            parts.push("address_is_null");
        }
        if c & 12 == 12 {
            parts.push("provenance");
        } else if c & 4 != 0 {
            parts.push("read_provenance");
        }
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
        }
    };
    let (other, ret) = ((bits >> 4) & 15, bits & 15);
    let mut parts = Vec::new();
    if other != 0 || other == ret {
        parts.push(components(other));
    }
    if other != ret {
        parts.push(format!("ret: {}", components(ret)));
    }
    format!("captures({})", parts.join(", "))
}

/// LLVM's spelling of an encoded `memory(...)`, as its IR printer writes it: the access
/// to other memory first (or `none` when nothing is accessed), then each location accessed
/// otherwise (`memory(argmem: readwrite, inaccessiblemem: write)`).
pub fn spelling(bits: u32) -> String {
    const NAMES: [&str; 6] = [
        "argmem",
        "inaccessiblemem",
        "errnomem",
        "",
        "target_mem0",
        "target_mem1",
    ];
    let access = |i: usize| match (bits >> (2 * i)) & 3 {
        0 => "none",
        READ => "read",
        WRITE => "write",
        _ => "readwrite",
    };
    let other = access(3);
    let mut parts: Vec<String> = Vec::new();
    if other != "none" || bits == 0 {
        parts.push(other.to_string());
    }
    for (i, name) in NAMES.iter().enumerate() {
        if i != 3 && access(i) != other {
            parts.push(format!("{name}: {}", access(i)));
        }
    }
    format!("memory({})", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use MemoryEffects as M;

    #[test]
    fn memory_encodings_read_as_llvm_prints_them() {
        // memory(none), memory(read), memory(argmem: readwrite),
        // memory(inaccessiblemem: write), memory(errnomem: write) as LLVM 22 encodes them.
        assert_eq!(effects(0), M(0));
        assert_eq!(
            effects(0b01_01_01_01_01_01),
            M(M::ARG_READ | M::INACCESSIBLE_READ | M::OTHER_READ)
        );
        assert_eq!(effects(0b11), M(M::ARG_READ | M::ARG_WRITE));
        assert_eq!(effects(0b10 << 2), M(M::INACCESSIBLE_WRITE));
        assert_eq!(effects(0b10 << 4), M(M::OTHER_WRITE));
        assert_eq!(effects(UNKNOWN), M::ANY);
        assert_eq!(effects(1 << 12), M::ANY, "an unknown location is anything");
    }

    #[test]
    fn restricting_takes_the_access_from_every_location() {
        assert_eq!(restrict(UNKNOWN, true, true), 0);
        assert_eq!(
            effects(restrict(UNKNOWN, false, true)),
            effects(0b01_01_01_01_01_01)
        );
        assert_eq!(restrict(0b11, true, false), 0b10);
    }

    #[test]
    fn spelled_as_llvm_prints_it() {
        assert_eq!(spelling(0), "memory(none)");
        assert_eq!(spelling(restrict(UNKNOWN, false, true)), "memory(read)");
        assert_eq!(spelling(UNKNOWN), "memory(readwrite)");
        assert_eq!(spelling(0b11), "memory(argmem: readwrite)");
        assert_eq!(
            spelling(keep_to_arguments(UNKNOWN)),
            "memory(argmem: readwrite, inaccessiblemem: readwrite, target_mem0: readwrite, \
             target_mem1: readwrite)"
        );
        assert_eq!(
            spelling(0b01_01_01_01_01_11),
            "memory(read, argmem: readwrite)"
        );
    }

    #[test]
    fn captures_spelled_as_llvm_prints_them() {
        assert_eq!(captures_spelling(0), "captures(none)");
        assert_eq!(captures_spelling(0b0011_0011), "captures(address)");
        assert_eq!(
            captures_spelling(0b0011_1111),
            "captures(address, ret: address, provenance)"
        );
        assert_eq!(
            captures_spelling(0b1111),
            "captures(ret: address, provenance)"
        );
    }

    #[test]
    fn only_provenance_is_a_capture_of_the_object() {
        assert!(!captures_provenance(0)); // captures(none)
        assert!(!captures_provenance(0b0011 << 4)); // captures(address)
        assert!(captures_provenance(0b1111 << 4)); // captures(address, provenance)
        assert!(captures_provenance(0b0100)); // captures(ret: read_provenance)
        assert!(captures_provenance(0b1100)); // captures(ret: provenance)
    }
}
