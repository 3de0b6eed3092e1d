//! The one decision made for each relocation of an allocated section: what the writer
//! computes and patches (an [`Action`]) and what the output must provide for it (a
//! [`Need`]: a GOT or PLT entry, a dynamic relocation, a home for a shared symbol). The
//! relocation scan classifies every relocation once with [`classify`]; the writer only
//! carries out the action, so the two can never disagree.
//!
//! `classify` is a pure function of the relocation type, the kind of output and a few facts
//! about the target, which the unit tests below enumerate.

use crate::context::GotKind;
use object::elf::*;

/// What the writer does at one relocation. One byte each: the scan keeps one per relocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Action {
    /// Nothing to patch: R_X86_64_NONE, the call of a TLS sequence relaxed with the
    /// relocation before it, a TLS descriptor call in a shared object, or a relocation the
    /// scan reported as an error.
    Skip,
    /// S + A into an unsigned 64/32/16/8-bit field, or a signed 32-bit one (R_X86_64_32S).
    Abs64,
    Abs32,
    Abs32S,
    Abs16,
    Abs8,
    /// A alone in a 64-bit field: what `--apply-dynamic-relocs` writes where the loader adds
    /// a preemptible symbol's address (lld's and GNU ld's bytes).
    Addend64,
    /// S + A - P in a signed field.
    Pc64,
    Pc32,
    Pc16,
    Pc8,
    /// PLT entry + A - P: a call of a preemptible function.
    PltPc32,
    /// PLT entry + A - GOT base (R_X86_64_PLTOFF64 to a preemptible function).
    PltGotOff64,
    /// S + A - GOT base (R_X86_64_GOTOFF64, and R_X86_64_PLTOFF64 to a local function).
    GotOff64,
    /// GOT base + A - P (R_X86_64_GOTPC32/64).
    GotBasePc32,
    GotBasePc64,
    /// G + A - P: the address of the target's GOT slot (GOTPCREL, GOTPCREL64).
    GotPc32,
    GotPc64,
    /// G - GOT base + A (R_X86_64_GOT32/64).
    Got32,
    Got64,
    /// GOTPCRELX relaxed to a direct reference: `mov` becomes `lea`, `call *` becomes
    /// `addr32 call`, `jmp *` becomes `jmp; nop`.
    RelaxMov,
    RelaxCall,
    RelaxJmp,
    /// The same, when the direct reference may not reach (a very large image): relaxed if
    /// it does once addresses are known, else through the GOT slot made for this case.
    RelaxMovOrGot,
    RelaxCallOrGot,
    RelaxJmpOrGot,
    /// REX_GOTPCRELX in a position-dependent output: `test` or a binary operation reading
    /// the GOT slot takes the address as an immediate instead (lld's relaxGotNoPic).
    RelaxImm,
    /// The same where the address may not fit a sign-extended 32-bit immediate: relaxed if
    /// it does, else through the GOT slot made for this case.
    RelaxImmOrGot,
    /// The thread-pointer offset of the target + A (local exec).
    TpOff32,
    TpOff64,
    /// S + A - start of the TLS block (DTPOFF in a shared object or a debug section).
    DtpOff32,
    DtpOff64,
    /// Symbol size + A.
    Size32,
    Size64,
    /// Initial exec: the GOT slot holding the TP offset (G + A - P).
    IeGot,
    /// Initial exec relaxed to local exec: `mov/add x@gottpoff(%rip)` to an immediate.
    IeToLe,
    /// General dynamic through the GOT (shared objects).
    GdGot,
    /// General dynamic relaxed in an executable (to initial exec for a preemptible target,
    /// else to local exec); the next relocation (the `__tls_get_addr` call) is skipped.
    GdToIe,
    GdToLe,
    /// Local dynamic through the GOT, or relaxed to local exec in an executable (the next
    /// relocation skipped).
    LdGot,
    LdToLe,
    /// TLS descriptors: through the GOT (shared objects), or relaxed in an executable.
    DescGot,
    DescToIe,
    DescToLe,
    /// The descriptor call of a relaxed sequence becomes a two-byte nop.
    DescCallNop,
}

/// What the output must provide for one relocation; the scan turns these into GOT, PLT,
/// copy-relocation and dynamic-relocation entries (in input order, so the tables are the
/// same whatever the thread count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Need {
    Nothing,
    /// The PLT entry of a non-preemptible IFUNC, through which every reference goes (the
    /// scan asks for it for any relocation to one; `classify` never returns it). `direct`:
    /// the relocation neither calls through a PLT nor loads from the GOT, so the entry is
    /// the function's address (lld then shows the symbol at it).
    Iplt {
        direct: bool,
    },
    /// A GOT entry of this kind for the target (with its dynamic relocations).
    Got(GotKind),
    /// A lazy PLT entry.
    Plt,
    /// The executable gives a symbol of a shared library a home of its own (a copy
    /// relocation for data, a canonical PLT entry for a function); an error where it cannot.
    LocalDefinition,
    /// A symbolic R_X86_64_64 at the place; `text`: in a read-only section.
    DynamicAbs64 {
        text: bool,
    },
    /// An R_X86_64_RELATIVE at the place.
    Relative {
        text: bool,
    },
    /// Something only the relocation's context can explain.
    Error(Refusal),
}

/// Why a relocation cannot be linked into this output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// A local-exec TLS reference in a shared object.
    TpOffInShared,
    /// An absolute 64-bit address in a read-only section of a position-independent output.
    Abs64InReadOnly,
    /// An absolute 32/16/8-bit address in a position-independent output.
    NarrowAbsInPic,
    Unsupported,
}

/// The output being linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputKind {
    pub shared: bool,
    /// Position-independent (a PIE or a shared object).
    pub pic: bool,
    /// Relaxations allowed (`--relax`, the default).
    pub relax: bool,
    /// `-z text`: no dynamic relocations in read-only sections.
    pub z_text: bool,
    /// The image may span 1 GiB or more: a relaxed 32-bit reference may not reach.
    pub large_image: bool,
    /// Every address of the output is known to lie below 2 GiB (a position-dependent
    /// output at its default place, by the estimate of its size): an address fits a
    /// sign-extended 32-bit immediate.
    pub low_addresses: bool,
}

impl OutputKind {
    fn exec(&self) -> bool {
        !self.shared
    }
}

/// What the decision needs to know about a relocation's target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TargetFacts {
    pub preemptible: bool,
    /// Its value does not move with the load address.
    pub absolute: bool,
    /// Defined in the output (not in a shared library, not undefined).
    pub defined_here: bool,
    /// A non-preemptible IFUNC (called and addressed through its own PLT entry).
    pub local_ifunc: bool,
}

/// The relocation being classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Site {
    pub r_type: u32,
    /// The section is writable (dynamic relocations need no text relocation).
    pub writable: bool,
    /// For GOTPCRELX: which instruction uses the GOT slot, if rld can rewrite it.
    pub insn: Option<GotInsn>,
}

/// The instructions a GOTPCRELX relocation can be relaxed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GotInsn {
    Mov,
    Call,
    Jmp,
    /// `test %reg, foo@GOTPCREL(%rip)`, with a REX prefix.
    Test,
    /// `adc/add/and/cmp/or/sbb/sub/xor foo@GOTPCREL(%rip), %reg`, with a REX prefix.
    BinOp,
}

impl GotInsn {
    /// Recognizes the instruction from the bytes before the relocated field of a
    /// GOTPCRELX relocation. Only an addend of -4 reads the whole slot (GNU as accepts
    /// `movl foo@GOTPCREL+4(%rip)`, which reads its upper half), and `test` and the binary
    /// operations become immediates only with the REX prefix R_X86_64_REX_GOTPCRELX
    /// promises, where the register moves to (lld, the psABI).
    pub fn at(data: &[u8], offset: u64, r_type: u32, addend: i64) -> Option<GotInsn> {
        let off = usize::try_from(offset).ok()?;
        if addend != -4 || off < 2 || off.checked_add(4)? > data.len() {
            return None;
        }
        let rip_relative = |modrm: u8| modrm & 0xc7 == 0x05;
        let rex =
            r_type == R_X86_64_REX_GOTPCRELX && off >= 3 && (0x40..=0x4f).contains(&data[off - 3]);
        match (data[off - 2], data[off - 1]) {
            (0x8b, modrm) if rip_relative(modrm) => Some(GotInsn::Mov),
            (0xff, 0x15) => Some(GotInsn::Call),
            (0xff, 0x25) => Some(GotInsn::Jmp),
            (0x85, modrm) if rex && rip_relative(modrm) => Some(GotInsn::Test),
            (op, modrm) if rex && is_binop(op) && rip_relative(modrm) => Some(GotInsn::BinOp),
            _ => None,
        }
    }
}

/// add, or, adc, sbb, and, sub, xor, cmp with a register destination and a memory source
/// (opcodes 03, 0b, ..., 3b); their immediate form is 81 with the operation in ModRM.reg.
fn is_binop(op: u8) -> bool {
    op & 0xc7 == 0x03
}

/// The decision for one relocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub action: Action,
    pub need: Need,
    /// The relocation is relative to the GOT base, so `.got.plt` must exist.
    pub uses_got_base: bool,
    /// The next relocation belongs to a TLS sequence relaxed with this one: skip it.
    pub skips_next: bool,
}

impl Decision {
    fn just(action: Action) -> Decision {
        Decision::with(action, Need::Nothing)
    }

    fn with(action: Action, need: Need) -> Decision {
        Decision {
            action,
            need,
            uses_got_base: false,
            skips_next: false,
        }
    }

    fn relative_to_got_base(mut self) -> Decision {
        self.uses_got_base = true;
        self
    }

    fn skipping_next(mut self) -> Decision {
        self.skips_next = true;
        self
    }
}

/// Decides one relocation (lld's `getRelExpr` and `processRelocAux` in one place).
pub fn classify(out: OutputKind, t: TargetFacts, site: Site) -> Decision {
    let exec = out.exec();
    let pre = t.preemptible;
    match site.r_type {
        R_X86_64_NONE => Decision::just(Action::Skip),
        R_X86_64_64 => absolute(out, t, site, Action::Abs64),
        R_X86_64_32 => absolute(out, t, site, Action::Abs32),
        R_X86_64_32S => absolute(out, t, site, Action::Abs32S),
        R_X86_64_16 => absolute(out, t, site, Action::Abs16),
        R_X86_64_8 => absolute(out, t, site, Action::Abs8),
        R_X86_64_PC64 => pc_relative(t, Action::Pc64),
        R_X86_64_PC32 => pc_relative(t, Action::Pc32),
        R_X86_64_PC16 => pc_relative(t, Action::Pc16),
        R_X86_64_PC8 => pc_relative(t, Action::Pc8),
        R_X86_64_PLT32 if pre => Decision::with(Action::PltPc32, Need::Plt),
        R_X86_64_PLT32 => Decision::just(Action::Pc32),
        R_X86_64_PLTOFF64 if pre => {
            Decision::with(Action::PltGotOff64, Need::Plt).relative_to_got_base()
        }
        R_X86_64_PLTOFF64 => Decision::just(Action::GotOff64).relative_to_got_base(),
        R_X86_64_GOTPCREL => Decision::with(Action::GotPc32, Need::Got(GotKind::Regular)),
        R_X86_64_GOTPCRELX | R_X86_64_REX_GOTPCRELX => got_pcrelx(out, t, site),
        R_X86_64_GOTPCREL64 => Decision::with(Action::GotPc64, Need::Got(GotKind::Regular)),
        R_X86_64_GOT32 => Decision::with(Action::Got32, Need::Got(GotKind::Regular)),
        R_X86_64_GOT64 => Decision::with(Action::Got64, Need::Got(GotKind::Regular)),
        R_X86_64_GOTPC32 => Decision::just(Action::GotBasePc32).relative_to_got_base(),
        R_X86_64_GOTPC64 => Decision::just(Action::GotBasePc64).relative_to_got_base(),
        R_X86_64_GOTOFF64 => Decision::just(Action::GotOff64).relative_to_got_base(),
        R_X86_64_TPOFF32 | R_X86_64_TPOFF64 if !exec => {
            Decision::with(Action::Skip, Need::Error(Refusal::TpOffInShared))
        }
        R_X86_64_TPOFF32 => Decision::just(Action::TpOff32),
        R_X86_64_TPOFF64 => Decision::just(Action::TpOff64),
        // In an executable the local-dynamic sequence became local exec, so DTPOFF values
        // are offsets from the thread pointer.
        R_X86_64_DTPOFF32 if exec => Decision::just(Action::TpOff32),
        R_X86_64_DTPOFF64 if exec => Decision::just(Action::TpOff64),
        R_X86_64_DTPOFF32 => Decision::just(Action::DtpOff32),
        R_X86_64_DTPOFF64 => Decision::just(Action::DtpOff64),
        R_X86_64_SIZE32 => Decision::just(Action::Size32),
        R_X86_64_SIZE64 => Decision::just(Action::Size64),
        R_X86_64_GOTTPOFF if exec && !pre => Decision::just(Action::IeToLe),
        R_X86_64_GOTTPOFF => Decision::with(Action::IeGot, Need::Got(GotKind::TlsIe)),
        R_X86_64_TLSGD if exec && pre => {
            Decision::with(Action::GdToIe, Need::Got(GotKind::TlsIe)).skipping_next()
        }
        R_X86_64_TLSGD if exec => Decision::just(Action::GdToLe).skipping_next(),
        R_X86_64_TLSGD => Decision::with(Action::GdGot, Need::Got(GotKind::TlsGd)),
        R_X86_64_TLSLD if exec => Decision::just(Action::LdToLe).skipping_next(),
        R_X86_64_TLSLD => Decision::with(Action::LdGot, Need::Got(GotKind::TlsLd)),
        R_X86_64_GOTPC32_TLSDESC if exec && pre => {
            Decision::with(Action::DescToIe, Need::Got(GotKind::TlsIe))
        }
        R_X86_64_GOTPC32_TLSDESC if exec => Decision::just(Action::DescToLe),
        R_X86_64_GOTPC32_TLSDESC => Decision::with(Action::DescGot, Need::Got(GotKind::TlsDesc)),
        R_X86_64_TLSDESC_CALL if exec => Decision::just(Action::DescCallNop),
        R_X86_64_TLSDESC_CALL => Decision::just(Action::Skip),
        _ => Decision::with(Action::Skip, Need::Error(Refusal::Unsupported)),
    }
}

/// R_X86_64_64 and the narrower absolute relocations.
fn absolute(out: OutputKind, t: TargetFacts, site: Site, action: Action) -> Decision {
    let is_64 = action == Action::Abs64;
    let can_write = site.writable || !out.z_text;
    let text = !site.writable;
    if t.preemptible {
        // The loader fills in the address; only a 64-bit field can hold it.
        return if is_64 && can_write {
            Decision::with(action, Need::DynamicAbs64 { text })
        } else {
            Decision::with(action, Need::LocalDefinition)
        };
    }
    if !out.pic || t.absolute {
        return Decision::just(action);
    }
    if is_64 && can_write {
        return Decision::with(action, Need::Relative { text });
    }
    let refusal = if is_64 {
        Refusal::Abs64InReadOnly
    } else {
        Refusal::NarrowAbsInPic
    };
    Decision::with(action, Need::Error(refusal))
}

/// A PC-relative reference to a preemptible symbol must find it in the executable itself.
fn pc_relative(t: TargetFacts, action: Action) -> Decision {
    if t.preemptible {
        Decision::with(action, Need::LocalDefinition)
    } else {
        Decision::just(action)
    }
}

/// GOTPCRELX: a GOT load or call that can become a direct reference when the target is
/// defined in the output at a fixed distance from the code. An absolute target keeps its
/// slot (lld: a PC-relative form would move with the load address, and lld relaxes no
/// absolute symbol).
fn got_pcrelx(out: OutputKind, t: TargetFacts, site: Site) -> Decision {
    let got = Need::Got(GotKind::Regular);
    let relaxable = out.relax && !t.preemptible && !t.local_ifunc && t.defined_here && !t.absolute;
    let insn = match site.insn {
        Some(insn) if relaxable => insn,
        _ => return Decision::with(Action::GotPc32, got),
    };
    if matches!(insn, GotInsn::Test | GotInsn::BinOp) {
        // The address itself becomes the operand: only where it does not move.
        return match (out.pic, out.low_addresses) {
            (true, _) => Decision::with(Action::GotPc32, got),
            (false, true) => Decision::just(Action::RelaxImm),
            (false, false) => Decision::with(Action::RelaxImmOrGot, got),
        };
    }
    // Whether the direct reference reaches is known only after layout; where it may not,
    // the GOT entry is made too, for the writer to fall back to.
    if out.large_image {
        let action = match insn {
            GotInsn::Call => Action::RelaxCallOrGot,
            GotInsn::Jmp => Action::RelaxJmpOrGot,
            _ => Action::RelaxMovOrGot,
        };
        return Decision::with(action, got);
    }
    Decision::just(match insn {
        GotInsn::Call => Action::RelaxCall,
        GotInsn::Jmp => Action::RelaxJmp,
        _ => Action::RelaxMov,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXEC: OutputKind = OutputKind {
        shared: false,
        pic: false,
        relax: true,
        z_text: true,
        large_image: false,
        low_addresses: true,
    };
    const PIE: OutputKind = OutputKind {
        pic: true,
        low_addresses: false,
        ..EXEC
    };
    const SHARED: OutputKind = OutputKind {
        shared: true,
        ..PIE
    };

    const LOCAL: TargetFacts = TargetFacts {
        preemptible: false,
        absolute: false,
        defined_here: true,
        local_ifunc: false,
    };
    const PREEMPTIBLE: TargetFacts = TargetFacts {
        preemptible: true,
        defined_here: false,
        ..LOCAL
    };
    const ABSOLUTE: TargetFacts = TargetFacts {
        absolute: true,
        ..LOCAL
    };

    fn site(r_type: u32) -> Site {
        Site {
            r_type,
            writable: false,
            insn: None,
        }
    }

    fn data(r_type: u32) -> Site {
        Site {
            writable: true,
            ..site(r_type)
        }
    }

    fn decide(out: OutputKind, t: TargetFacts, s: Site) -> (Action, Need) {
        let d = classify(out, t, s);
        (d.action, d.need)
    }

    #[test]
    fn absolute_addresses_by_output_kind() {
        use Need::*;
        let abs64 = Action::Abs64;
        // A position-dependent executable writes addresses itself.
        assert_eq!(decide(EXEC, LOCAL, data(R_X86_64_64)), (abs64, Nothing));
        assert_eq!(
            decide(EXEC, LOCAL, site(R_X86_64_32)),
            (Action::Abs32, Nothing)
        );
        // A PIE or shared object asks the loader to add the load address.
        let relative = Relative { text: false };
        assert_eq!(decide(PIE, LOCAL, data(R_X86_64_64)), (abs64, relative));
        assert_eq!(decide(SHARED, LOCAL, data(R_X86_64_64)), (abs64, relative));
        // ... except for an absolute symbol, whose value does not move.
        assert_eq!(decide(PIE, ABSOLUTE, data(R_X86_64_64)), (abs64, Nothing));
        // A preemptible target: the loader writes the symbol's value.
        let dynamic = DynamicAbs64 { text: false };
        assert_eq!(
            decide(SHARED, PREEMPTIBLE, data(R_X86_64_64)),
            (abs64, dynamic)
        );
        assert_eq!(
            decide(EXEC, PREEMPTIBLE, data(R_X86_64_64)),
            (abs64, dynamic)
        );
        // Narrow absolute fields cannot hold a relocated address.
        assert_eq!(
            decide(PIE, LOCAL, data(R_X86_64_32S)),
            (Action::Abs32S, Error(Refusal::NarrowAbsInPic))
        );
        assert_eq!(
            decide(EXEC, PREEMPTIBLE, data(R_X86_64_32)),
            (Action::Abs32, LocalDefinition)
        );
    }

    #[test]
    fn text_relocations_follow_z_text() {
        use Need::*;
        assert_eq!(
            decide(PIE, LOCAL, site(R_X86_64_64)),
            (Action::Abs64, Error(Refusal::Abs64InReadOnly))
        );
        let notext = OutputKind {
            z_text: false,
            ..PIE
        };
        assert_eq!(
            decide(notext, LOCAL, site(R_X86_64_64)),
            (Action::Abs64, Relative { text: true })
        );
        assert_eq!(
            decide(notext, PREEMPTIBLE, site(R_X86_64_64)),
            (Action::Abs64, DynamicAbs64 { text: true })
        );
        // Without -z notext a preemptible target in read-only data needs a local home.
        assert_eq!(
            decide(EXEC, PREEMPTIBLE, site(R_X86_64_64)),
            (Action::Abs64, LocalDefinition)
        );
    }

    #[test]
    fn calls_and_pc_relative_references() {
        use Need::*;
        for out in [EXEC, PIE, SHARED] {
            assert_eq!(
                decide(out, LOCAL, site(R_X86_64_PLT32)),
                (Action::Pc32, Nothing)
            );
            assert_eq!(
                decide(out, PREEMPTIBLE, site(R_X86_64_PLT32)),
                (Action::PltPc32, Plt)
            );
            assert_eq!(
                decide(out, LOCAL, site(R_X86_64_PC32)),
                (Action::Pc32, Nothing)
            );
            assert_eq!(
                decide(out, PREEMPTIBLE, site(R_X86_64_PC32)),
                (Action::Pc32, LocalDefinition)
            );
        }
        assert_eq!(
            decide(EXEC, LOCAL, site(R_X86_64_PC64)),
            (Action::Pc64, Nothing)
        );
        assert_eq!(
            decide(EXEC, LOCAL, site(R_X86_64_PC16)),
            (Action::Pc16, Nothing)
        );
        assert_eq!(
            decide(EXEC, LOCAL, site(R_X86_64_PC8)),
            (Action::Pc8, Nothing)
        );
        let d = classify(SHARED, PREEMPTIBLE, site(R_X86_64_PLTOFF64));
        assert_eq!(
            (d.action, d.need, d.uses_got_base),
            (Action::PltGotOff64, Plt, true)
        );
        let d = classify(SHARED, LOCAL, site(R_X86_64_PLTOFF64));
        assert_eq!(
            (d.action, d.need, d.uses_got_base),
            (Action::GotOff64, Nothing, true)
        );
    }

    #[test]
    fn got_loads_relax_only_when_the_target_is_here() {
        use Need::*;
        let got = Got(GotKind::Regular);
        let mov = Site {
            insn: Some(GotInsn::Mov),
            ..site(R_X86_64_REX_GOTPCRELX)
        };
        let call = Site {
            insn: Some(GotInsn::Call),
            ..site(R_X86_64_GOTPCRELX)
        };
        let jmp = Site {
            insn: Some(GotInsn::Jmp),
            ..site(R_X86_64_GOTPCRELX)
        };
        for out in [EXEC, PIE, SHARED] {
            assert_eq!(decide(out, LOCAL, mov), (Action::RelaxMov, Nothing));
            assert_eq!(decide(out, LOCAL, call), (Action::RelaxCall, Nothing));
            assert_eq!(decide(out, LOCAL, jmp), (Action::RelaxJmp, Nothing));
            assert_eq!(decide(out, PREEMPTIBLE, mov), (Action::GotPc32, got));
            // Plain GOTPCREL never relaxes (the instruction is unknown).
            assert_eq!(
                decide(out, LOCAL, site(R_X86_64_GOTPCREL)),
                (Action::GotPc32, got)
            );
        }
        // An instruction rld cannot rewrite, an IFUNC, a target in a shared library,
        // or --no-relax keep the GOT load.
        let other = Site { insn: None, ..mov };
        assert_eq!(decide(EXEC, LOCAL, other), (Action::GotPc32, got));
        let ifunc = TargetFacts {
            local_ifunc: true,
            ..LOCAL
        };
        assert_eq!(decide(EXEC, ifunc, mov), (Action::GotPc32, got));
        let shared_data = TargetFacts {
            defined_here: false,
            ..LOCAL
        };
        assert_eq!(decide(EXEC, shared_data, mov), (Action::GotPc32, got));
        let no_relax = OutputKind {
            relax: false,
            ..EXEC
        };
        assert_eq!(decide(no_relax, LOCAL, mov), (Action::GotPc32, got));
        // An absolute target keeps its slot (lld).
        for out in [EXEC, PIE] {
            assert_eq!(decide(out, ABSOLUTE, mov), (Action::GotPc32, got));
        }
        // A very large image keeps the GOT slot in case the relaxed form does not reach.
        let large = OutputKind {
            large_image: true,
            ..PIE
        };
        assert_eq!(decide(large, LOCAL, call), (Action::RelaxCallOrGot, got));
        assert_eq!(decide(large, LOCAL, jmp), (Action::RelaxJmpOrGot, got));
    }

    #[test]
    fn test_and_binops_take_an_immediate_only_at_fixed_low_addresses() {
        use Need::*;
        let got = Got(GotKind::Regular);
        for insn in [GotInsn::Test, GotInsn::BinOp] {
            let s = Site {
                insn: Some(insn),
                ..site(R_X86_64_REX_GOTPCRELX)
            };
            assert_eq!(decide(EXEC, LOCAL, s), (Action::RelaxImm, Nothing));
            for out in [PIE, SHARED] {
                assert_eq!(decide(out, LOCAL, s), (Action::GotPc32, got));
            }
            let placed = OutputKind {
                low_addresses: false,
                ..EXEC
            };
            assert_eq!(decide(placed, LOCAL, s), (Action::RelaxImmOrGot, got));
            for t in [PREEMPTIBLE, ABSOLUTE] {
                assert_eq!(decide(EXEC, t, s), (Action::GotPc32, got));
            }
        }
    }

    #[test]
    fn other_got_relocations_always_use_the_slot() {
        use Need::*;
        let got = Got(GotKind::Regular);
        for t in [LOCAL, PREEMPTIBLE] {
            assert_eq!(
                decide(EXEC, t, site(R_X86_64_GOTPCREL64)),
                (Action::GotPc64, got)
            );
            assert_eq!(decide(EXEC, t, site(R_X86_64_GOT32)), (Action::Got32, got));
            assert_eq!(decide(EXEC, t, site(R_X86_64_GOT64)), (Action::Got64, got));
        }
        for (r, action) in [
            (R_X86_64_GOTPC32, Action::GotBasePc32),
            (R_X86_64_GOTPC64, Action::GotBasePc64),
            (R_X86_64_GOTOFF64, Action::GotOff64),
        ] {
            let d = classify(SHARED, LOCAL, site(r));
            assert_eq!((d.action, d.need, d.uses_got_base), (action, Nothing, true));
        }
    }

    #[test]
    fn tls_models_relax_in_executables() {
        use Need::*;
        for out in [EXEC, PIE] {
            // Initial exec: local exec for a symbol of the executable.
            assert_eq!(
                decide(out, LOCAL, site(R_X86_64_GOTTPOFF)),
                (Action::IeToLe, Nothing)
            );
            assert_eq!(
                decide(out, PREEMPTIBLE, site(R_X86_64_GOTTPOFF)),
                (Action::IeGot, Got(GotKind::TlsIe))
            );
            // General dynamic: local exec, or initial exec for a library's variable; the
            // __tls_get_addr call goes with it.
            let d = classify(out, LOCAL, site(R_X86_64_TLSGD));
            assert_eq!(
                (d.action, d.need, d.skips_next),
                (Action::GdToLe, Nothing, true)
            );
            let d = classify(out, PREEMPTIBLE, site(R_X86_64_TLSGD));
            let ie = Got(GotKind::TlsIe);
            assert_eq!((d.action, d.need, d.skips_next), (Action::GdToIe, ie, true));
            let d = classify(out, LOCAL, site(R_X86_64_TLSLD));
            assert_eq!(
                (d.action, d.need, d.skips_next),
                (Action::LdToLe, Nothing, true)
            );
            assert_eq!(
                decide(out, LOCAL, site(R_X86_64_DTPOFF32)),
                (Action::TpOff32, Nothing)
            );
            assert_eq!(
                decide(out, LOCAL, site(R_X86_64_DTPOFF64)),
                (Action::TpOff64, Nothing)
            );
            // Descriptors.
            let desc = site(R_X86_64_GOTPC32_TLSDESC);
            assert_eq!(decide(out, LOCAL, desc), (Action::DescToLe, Nothing));
            assert_eq!(decide(out, PREEMPTIBLE, desc), (Action::DescToIe, ie));
            let call = site(R_X86_64_TLSDESC_CALL);
            assert_eq!(decide(out, LOCAL, call), (Action::DescCallNop, Nothing));
            assert_eq!(
                decide(out, LOCAL, site(R_X86_64_TPOFF32)),
                (Action::TpOff32, Nothing)
            );
        }
    }

    #[test]
    fn tls_models_in_shared_objects_use_the_got() {
        use Need::*;
        for t in [LOCAL, PREEMPTIBLE] {
            let d = classify(SHARED, t, site(R_X86_64_TLSGD));
            assert_eq!(
                (d.action, d.need, d.skips_next),
                (Action::GdGot, Got(GotKind::TlsGd), false)
            );
            let d = classify(SHARED, t, site(R_X86_64_TLSLD));
            assert_eq!(
                (d.action, d.need, d.skips_next),
                (Action::LdGot, Got(GotKind::TlsLd), false)
            );
            assert_eq!(
                decide(SHARED, t, site(R_X86_64_GOTPC32_TLSDESC)),
                (Action::DescGot, Got(GotKind::TlsDesc))
            );
            assert_eq!(
                decide(SHARED, t, site(R_X86_64_TLSDESC_CALL)),
                (Action::Skip, Nothing)
            );
            assert_eq!(
                decide(SHARED, t, site(R_X86_64_GOTTPOFF)),
                (Action::IeGot, Got(GotKind::TlsIe))
            );
            assert_eq!(
                decide(SHARED, t, site(R_X86_64_DTPOFF64)),
                (Action::DtpOff64, Nothing)
            );
        }
        assert_eq!(
            decide(SHARED, LOCAL, site(R_X86_64_TPOFF32)),
            (Action::Skip, Error(Refusal::TpOffInShared))
        );
    }

    #[test]
    fn sizes_none_and_unknown_types() {
        use Need::*;
        assert_eq!(
            decide(SHARED, PREEMPTIBLE, site(R_X86_64_SIZE64)),
            (Action::Size64, Nothing)
        );
        assert_eq!(
            decide(EXEC, LOCAL, site(R_X86_64_SIZE32)),
            (Action::Size32, Nothing)
        );
        assert_eq!(
            decide(EXEC, LOCAL, site(R_X86_64_NONE)),
            (Action::Skip, Nothing)
        );
        assert_eq!(
            decide(EXEC, LOCAL, site(R_X86_64_COPY)),
            (Action::Skip, Error(Refusal::Unsupported))
        );
        assert_eq!(
            decide(EXEC, LOCAL, site(250)),
            (Action::Skip, Error(Refusal::Unsupported))
        );
    }

    #[test]
    fn instructions_are_recognized_from_their_bytes() {
        let rex = R_X86_64_REX_GOTPCRELX;
        let at = |bytes: &[u8], offset: u64| GotInsn::at(bytes, offset, rex, -4);
        // 48 8b 05 <disp32>: mov foo@GOTPCREL(%rip), %rax
        assert_eq!(at(&[0x48, 0x8b, 0x05, 0, 0, 0, 0], 3), Some(GotInsn::Mov));
        assert_eq!(at(&[0xff, 0x15, 0, 0, 0, 0], 2), Some(GotInsn::Call));
        assert_eq!(at(&[0xff, 0x25, 0, 0, 0, 0], 2), Some(GotInsn::Jmp));
        // 4c 85 3d: test %r15, foo@GOTPCREL(%rip); 48 03 05: add foo@GOTPCREL(%rip), %rax;
        // 48 3b 15: cmp foo@GOTPCREL(%rip), %rdx.
        assert_eq!(at(&[0x4c, 0x85, 0x3d, 0, 0, 0, 0], 3), Some(GotInsn::Test));
        for op in [0x03, 0x0b, 0x13, 0x1b, 0x23, 0x2b, 0x33, 0x3b] {
            assert_eq!(at(&[0x48, op, 0x15, 0, 0, 0, 0], 3), Some(GotInsn::BinOp));
        }
        // Not binary operations: 01 (add to memory), 3d (cmp eax, imm), 43 (a REX byte).
        for op in [0x01, 0x3d, 0x43, 0x8d] {
            assert_eq!(at(&[0x48, op, 0x05, 0, 0, 0, 0], 3), None, "{op:#x}");
        }
        // Without a REX prefix, or as plain GOTPCRELX, a binary operation stays.
        assert_eq!(at(&[0x90, 0x03, 0x05, 0, 0, 0, 0], 3), None);
        assert_eq!(at(&[0x03, 0x05, 0, 0, 0, 0], 2), None);
        let plain = GotInsn::at(&[0x48, 0x03, 0x05, 0, 0, 0, 0], 3, R_X86_64_GOTPCRELX, -4);
        assert_eq!(plain, None);
        // A memory operand other than %rip-relative.
        assert_eq!(at(&[0x48, 0x03, 0x04, 0, 0, 0, 0], 3), None);
        // An addend other than -4 reads part of the slot: nothing is relaxed.
        let part = GotInsn::at(&[0x8b, 0x05, 0, 0, 0, 0], 2, rex, 0);
        assert_eq!(part, None);
        // A field at the start or past the end.
        assert_eq!(at(&[0, 0, 0, 0], 0), None);
        assert_eq!(at(&[0x8b, 0x05, 0, 0], 2), None);
        assert_eq!(at(&[0x8b, 0x05], u64::MAX), None);
    }
}
