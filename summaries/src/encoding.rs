//! The on-disk form of a [`ModuleSummary`] (specified in `summaries/FORMAT.md`).
//!
//! Summaries are cached between links, keyed by the bitcode's hash and [`FORMAT_VERSION`], so
//! the decoder meets files written by other rld builds and files damaged on disk. It therefore
//! trusts nothing: every read is bounds-checked, every count is capped by the bytes that are
//! left before anything is allocated for it, and every index is checked against the table it
//! points into ([`ModuleSummary::validate`]) before the summary is handed out. Analyses can
//! then index without checks.

use crate::model::*;

/// Version of the on-disk summary format this crate reads and writes. Readers accept exactly
/// this version: any change to the layout or to the meaning of a field bumps it.
pub const FORMAT_VERSION: u32 = 15;

/// The first eight bytes of every encoded summary.
pub const MAGIC: &[u8; 8] = b"RLDSUMRY";

/// Why bytes are not a summary this rld can read, or why a summary is inconsistent.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    #[error("truncated summary: needed {needed} bytes at offset {offset}")]
    Truncated { needed: u64, offset: usize },
    #[error("bad magic: not an rld module summary")]
    BadMagic,
    #[error("unsupported summary version {found} (this rld reads {FORMAT_VERSION})")]
    UnsupportedVersion { found: u32 },
    #[error("invalid UTF-8 in a name at offset {offset}")]
    InvalidUtf8 { offset: usize },
    #[error("malformed varint at offset {offset}: {reason}")]
    BadVarint { offset: usize, reason: &'static str },
    #[error("value {value} at offset {offset} does not fit in 32 bits ({what})")]
    TooLarge {
        value: u64,
        offset: usize,
        what: &'static str,
    },
    #[error("invalid {what} code {code} at offset {offset}")]
    InvalidCode {
        what: &'static str,
        code: u8,
        offset: usize,
    },
    #[error("unknown flag bits {bits:#x} at offset {offset}")]
    UnknownFlags { bits: u32, offset: usize },
    #[error("unknown {what} bits {bits:#x} at offset {offset}")]
    UnknownBits {
        what: &'static str,
        bits: u8,
        offset: usize,
    },
    #[error("{what} count {count} at offset {offset} exceeds the {remaining} bytes left")]
    CountTooLarge {
        what: &'static str,
        count: u64,
        offset: usize,
        remaining: usize,
    },
    #[error("{count} trailing bytes at offset {offset} after the summary")]
    TrailingBytes { count: usize, offset: usize },
    #[error("index {index} out of range for {len} {table} in {context}")]
    IndexOutOfRange {
        index: u64,
        len: usize,
        table: &'static str,
        context: String,
    },
    #[error("call site at position {position} has id {id} in {module}; ids must be positions")]
    CallSiteId {
        position: usize,
        id: u32,
        module: String,
    },
}

/// Every flag bit this version knows; others are rejected so that a newer writer's flags are
/// never silently dropped.
const KNOWN_FLAGS: u32 = (GlobalFlags::CAN_OMIT << 1) - 1;

// Codes of the enums on disk. Their order is part of the format (FORMAT.md).
const KINDS: [GlobalKind; 4] = [
    GlobalKind::Function,
    GlobalKind::Variable,
    GlobalKind::Alias,
    GlobalKind::IFunc,
];
const LINKAGES: [Linkage; 11] = [
    Linkage::External,
    Linkage::AvailableExternally,
    Linkage::LinkOnceAny,
    Linkage::LinkOnceODR,
    Linkage::WeakAny,
    Linkage::WeakODR,
    Linkage::Appending,
    Linkage::Internal,
    Linkage::Private,
    Linkage::ExternalWeak,
    Linkage::Common,
];
const VISIBILITIES: [Visibility; 3] = [
    Visibility::Default,
    Visibility::Hidden,
    Visibility::Protected,
];

fn code_of<T: PartialEq>(table: &[T], v: &T) -> u8 {
    // Every variant is in its table, so the search always succeeds.
    table.iter().position(|x| x == v).unwrap_or(0) as u8
}

/// Serializes a summary. The output decodes to an equal summary, except that call-site ids are
/// not stored: the decoder numbers call sites by position, which is what ids must be.
pub fn encode(s: &ModuleSummary) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(
        64 + s.globals.len() * 32 + s.facts.len() * 4,
    ));
    w.0.extend_from_slice(MAGIC);
    w.0.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    w.str(&s.module_id);
    w.str(&s.source_file);

    w.uleb(s.globals.len() as u64);
    for g in &s.globals {
        w.str(&g.name);
        w.0.push(code_of(&KINDS, &g.kind));
        w.0.push(code_of(&LINKAGES, &g.linkage));
        w.0.push(code_of(&VISIBILITIES, &g.visibility));
        w.uleb(g.flags.0.into());
        w.opt_str(g.section.as_deref());
        w.opt_str(g.comdat.as_deref());
        w.indices(&g.refs);
        w.indices(&g.calls);
        w.uleb(g.aliasee.map_or(0, |a| u64::from(a) + 1));
        w.opt_loc(g.debug_loc.as_ref());
    }

    for structors in [&s.ctors, &s.dtors] {
        w.uleb(structors.len() as u64);
        for st in structors {
            w.uleb(st.priority.into());
            w.uleb(st.function.into());
        }
    }

    w.uleb(s.call_sites.len() as u64);
    for cs in &s.call_sites {
        w.uleb(cs.caller.into());
        w.uleb(cs.instruction.into());
        match cs.callee {
            Callee::Direct(g) => {
                w.0.push(0);
                w.uleb(g.into());
            }
            Callee::Indirect(v) => {
                w.0.push(1);
                w.uleb(v.into());
            }
        }
        w.opt_loc(cs.debug_loc.as_ref());
        w.indices(&cs.byval);
    }

    w.uleb(s.initializers.len() as u64);
    for ip in &s.initializers {
        w.uleb(ip.global.into());
        w.uleb(ip.offset);
        w.uleb(ip.target.into());
    }

    w.uleb(s.value_count.into());
    w.uleb(s.facts.len() as u64);
    for f in &s.facts {
        w.0.push(f.kind_index() as u8);
        let fields: &[u32] = match *f {
            ValueFact::AddressOf { dst, global } => &[dst, global],
            ValueFact::Copy { dst, src } => &[dst, src],
            ValueFact::FieldAddr { dst, base, offset } => {
                w.uleb(dst.into());
                w.uleb(base.into());
                match offset {
                    None => w.0.push(0),
                    Some(o) => {
                        w.0.push(1);
                        w.sleb(o);
                    }
                }
                &[]
            }
            ValueFact::Load { dst, ptr } => &[dst, ptr],
            ValueFact::Store { ptr, value } => &[ptr, value],
            ValueFact::Argument {
                function,
                index,
                dst,
            } => &[function, index, dst],
            ValueFact::CallArgument { call, index, value } => &[call, index, value],
            ValueFact::CallResult { call, dst } => &[call, dst],
            ValueFact::Return { function, value } => &[function, value],
            ValueFact::Escape { value } => &[value],
            ValueFact::Unknown { dst } => &[dst],
            ValueFact::StackObject {
                dst,
                size,
                function,
            } => {
                w.uleb(dst.into());
                w.opt_uleb(size);
                w.uleb(function.into());
                &[]
            }
            ValueFact::ArrayElement {
                dst,
                base,
                start,
                len,
            } => {
                w.uleb(dst.into());
                w.uleb(base.into());
                w.sleb(start);
                w.uleb(len);
                &[]
            }
        };
        for &x in fields {
            w.uleb(x.into());
        }
    }

    w.uleb(s.accesses.len() as u64);
    for a in &s.accesses {
        w.uleb(a.function.into());
        w.uleb(a.instruction.into());
        w.0.push(a.operand);
        w.uleb(a.ptr.into());
        w.opt_uleb(a.size);
        w.0.push(code_of(&AccessKind::ALL, &a.kind));
    }
    w.uleb(s.shapes.len() as u64);
    for sh in &s.shapes {
        w.uleb(sh.function.into());
        w.uleb(sh.instructions.into());
        w.0.extend_from_slice(&sh.opcode_hash.to_le_bytes());
    }
    w.indices(&s.opaque_functions);
    w.uleb(s.declared.len() as u64);
    for d in &s.declared {
        w.uleb(d.function.into());
        w.0.push(d.memory.0);
        w.0.push(u8::from(d.nofree));
        w.uleb(d.params.len() as u64);
        w.0.extend(d.params.iter().map(|p| p.0));
    }
    w.uleb(s.asm_symbols.len() as u64);
    for a in &s.asm_symbols {
        w.str(&a.name);
        w.0.push(u8::from(a.defined) | u8::from(a.weak) << 1);
    }
    w.uleb(s.dependent_libraries.len() as u64);
    for d in &s.dependent_libraries {
        w.str(d);
    }
    w.0.push(u8::from(s.type_tests));
    w.0
}

struct Writer(Vec<u8>);

impl Writer {
    fn uleb(&mut self, mut v: u64) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.0.push(byte);
                return;
            }
            self.0.push(byte | 0x80);
        }
    }

    fn sleb(&mut self, mut v: i64) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            let done = (v == 0 && byte & 0x40 == 0) || (v == -1 && byte & 0x40 != 0);
            if done {
                self.0.push(byte);
                return;
            }
            self.0.push(byte | 0x80);
        }
    }

    fn str(&mut self, s: &str) {
        self.uleb(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }

    fn opt_uleb(&mut self, v: Option<u64>) {
        match v {
            None => self.0.push(0),
            Some(v) => {
                self.0.push(1);
                self.uleb(v);
            }
        }
    }

    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            None => self.0.push(0),
            Some(s) => {
                self.0.push(1);
                self.str(s);
            }
        }
    }

    fn indices(&mut self, list: &[u32]) {
        self.uleb(list.len() as u64);
        for &i in list {
            self.uleb(i.into());
        }
    }

    fn opt_loc(&mut self, loc: Option<&DebugLoc>) {
        match loc {
            None => self.0.push(0),
            Some(l) => {
                self.0.push(1);
                self.str(&l.file);
                self.uleb(l.line.into());
                self.uleb(l.column.into());
            }
        }
    }
}

/// Reads a summary written by [`encode`], validating it completely (see the module docs).
pub fn decode(data: &[u8]) -> Result<ModuleSummary, SummaryError> {
    if data.len() < MAGIC.len() {
        // Too short to tell: a prefix of the magic is a truncated summary, anything else is not
        // a summary at all.
        return Err(if MAGIC.starts_with(data) {
            SummaryError::Truncated {
                needed: MAGIC.len() as u64,
                offset: 0,
            }
        } else {
            SummaryError::BadMagic
        });
    }
    if &data[..MAGIC.len()] != MAGIC {
        return Err(SummaryError::BadMagic);
    }
    let mut r = Reader { data, pos: 8 };
    let version = r.u32le()?;
    if version != FORMAT_VERSION {
        return Err(SummaryError::UnsupportedVersion { found: version });
    }

    let mut s = ModuleSummary {
        module_id: r.string()?,
        source_file: r.string()?,
        ..Default::default()
    };

    // Minimum encoded sizes of table entries, to cap counts before allocating.
    const MIN_GLOBAL: usize = 11;
    const MIN_STRUCTOR: usize = 2;
    const MIN_CALL_SITE: usize = 6;
    const MIN_INITIALIZER: usize = 3;
    const MIN_FACT: usize = 2;
    const MIN_ACCESS: usize = 6;
    const MIN_SHAPE: usize = 10;
    const MIN_DECLARED: usize = 4;
    const MIN_ASM_SYMBOL: usize = 2;

    let n = r.count("global", MIN_GLOBAL)?;
    s.globals.reserve_exact(n);
    for _ in 0..n {
        let name = r.string()?;
        let kind = r.code("global kind", &KINDS)?;
        let linkage = r.code("linkage", &LINKAGES)?;
        let visibility = r.code("visibility", &VISIBILITIES)?;
        let at = r.pos;
        let flags = r.u32("flags")?;
        if flags & !KNOWN_FLAGS != 0 {
            return Err(SummaryError::UnknownFlags {
                bits: flags & !KNOWN_FLAGS,
                offset: at,
            });
        }
        let section = r.opt_string()?;
        let comdat = r.opt_string()?;
        let refs = r.indices("reference")?;
        let calls = r.indices("call")?;
        let at = r.pos;
        let aliasee = match r.uleb()? {
            0 => None,
            a => Some(u32::try_from(a - 1).map_err(|_| SummaryError::TooLarge {
                value: a - 1,
                offset: at,
                what: "aliasee",
            })?),
        };
        let debug_loc = r.opt_loc()?;
        s.globals.push(GlobalSummary {
            name,
            kind,
            linkage,
            visibility,
            flags: GlobalFlags(flags),
            section,
            comdat,
            refs,
            calls,
            aliasee,
            debug_loc,
        });
    }

    for what in ["constructor", "destructor"] {
        let n = r.count(what, MIN_STRUCTOR)?;
        let mut list = Vec::with_capacity(n);
        for _ in 0..n {
            list.push(Structor {
                priority: r.u32("priority")?,
                function: r.u32("structor function")?,
            });
        }
        if what == "constructor" {
            s.ctors = list;
        } else {
            s.dtors = list;
        }
    }

    let n = r.count("call site", MIN_CALL_SITE)?;
    s.call_sites.reserve_exact(n);
    for id in 0..n {
        let caller = r.u32("caller")?;
        let instruction = r.u32("call instruction")?;
        let at = r.pos;
        let callee = match r.u8()? {
            0 => Callee::Direct(r.u32("callee")?),
            1 => Callee::Indirect(r.u32("callee value")?),
            code => {
                return Err(SummaryError::InvalidCode {
                    what: "callee",
                    code,
                    offset: at,
                })
            }
        };
        let debug_loc = r.opt_loc()?;
        let byval = r.indices("byval argument")?;
        s.call_sites.push(CallSite {
            // Ids are positions. `count` bounds n by the input length, so an id can only pass
            // u32::MAX for an input over 16 GiB; saturating then makes validation refuse it.
            id: u32::try_from(id).unwrap_or(u32::MAX),
            caller,
            instruction,
            callee,
            debug_loc,
            byval,
        });
    }

    let n = r.count("initializer pointer", MIN_INITIALIZER)?;
    s.initializers.reserve_exact(n);
    for _ in 0..n {
        s.initializers.push(InitializerPointer {
            global: r.u32("initializer global")?,
            offset: r.uleb()?,
            target: r.u32("initializer target")?,
        });
    }

    s.value_count = r.u32("value count")?;
    let n = r.count("fact", MIN_FACT)?;
    s.facts.reserve_exact(n);
    for _ in 0..n {
        let at = r.pos;
        let fact = match r.u8()? {
            0 => ValueFact::AddressOf {
                dst: r.u32("value")?,
                global: r.u32("global")?,
            },
            1 => ValueFact::Copy {
                dst: r.u32("value")?,
                src: r.u32("value")?,
            },
            2 => {
                let dst = r.u32("value")?;
                let base = r.u32("value")?;
                let at = r.pos;
                let offset = match r.u8()? {
                    0 => None,
                    1 => Some(r.sleb()?),
                    code => {
                        return Err(SummaryError::InvalidCode {
                            what: "optional offset",
                            code,
                            offset: at,
                        })
                    }
                };
                ValueFact::FieldAddr { dst, base, offset }
            }
            3 => ValueFact::Load {
                dst: r.u32("value")?,
                ptr: r.u32("value")?,
            },
            4 => ValueFact::Store {
                ptr: r.u32("value")?,
                value: r.u32("value")?,
            },
            5 => ValueFact::Argument {
                function: r.u32("function")?,
                index: r.u32("argument index")?,
                dst: r.u32("value")?,
            },
            6 => ValueFact::CallArgument {
                call: r.u32("call")?,
                index: r.u32("argument index")?,
                value: r.u32("value")?,
            },
            7 => ValueFact::CallResult {
                call: r.u32("call")?,
                dst: r.u32("value")?,
            },
            8 => ValueFact::Return {
                function: r.u32("function")?,
                value: r.u32("value")?,
            },
            9 => ValueFact::Escape {
                value: r.u32("value")?,
            },
            10 => ValueFact::Unknown {
                dst: r.u32("value")?,
            },
            11 => ValueFact::StackObject {
                dst: r.u32("value")?,
                size: r.opt_uleb("optional size")?,
                function: r.u32("function")?,
            },
            12 => ValueFact::ArrayElement {
                dst: r.u32("value")?,
                base: r.u32("value")?,
                start: r.sleb()?,
                len: r.uleb()?,
            },
            code => {
                return Err(SummaryError::InvalidCode {
                    what: "fact",
                    code,
                    offset: at,
                })
            }
        };
        s.facts.push(fact);
    }

    let n = r.count("memory access", MIN_ACCESS)?;
    s.accesses.reserve_exact(n);
    for _ in 0..n {
        let function = r.u32("access function")?;
        let instruction = r.u32("access instruction")?;
        let operand = r.u8()?;
        let ptr = r.u32("value")?;
        let size = r.opt_uleb("optional size")?;
        let at = r.pos;
        let code = r.u8()?;
        let kind = *AccessKind::ALL
            .get(code as usize)
            .ok_or(SummaryError::InvalidCode {
                what: "access kind",
                code,
                offset: at,
            })?;
        s.accesses.push(MemoryAccess {
            function,
            instruction,
            operand,
            ptr,
            size,
            kind,
        });
    }
    let n = r.count("function shape", MIN_SHAPE)?;
    s.shapes.reserve_exact(n);
    for _ in 0..n {
        s.shapes.push(FunctionShape {
            function: r.u32("shape function")?,
            instructions: r.u32("shape instruction count")?,
            opcode_hash: r.u64le()?,
        });
    }
    s.opaque_functions = r.indices("opaque function")?;
    let n = r.count("declared function", MIN_DECLARED)?;
    s.declared.reserve_exact(n);
    for _ in 0..n {
        let function = r.u32("declared function")?;
        let memory = r.bits("memory effect", MemoryEffects::ANY.0)?;
        let nofree = r.bits("nofree", 1)? == 1;
        let count = r.count("declared parameter", 1)?;
        let mut params = Vec::with_capacity(count);
        for _ in 0..count {
            params.push(ParamEffects(r.bits("parameter effect", 31)?));
        }
        s.declared.push(DeclaredEffects {
            function,
            memory: MemoryEffects(memory),
            nofree,
            params,
        });
    }
    let n = r.count("asm symbol", MIN_ASM_SYMBOL)?;
    s.asm_symbols.reserve_exact(n);
    for _ in 0..n {
        let name = r.string()?;
        let flags = r.bits("asm symbol flags", 3)?;
        s.asm_symbols.push(AsmSymbol {
            name,
            defined: flags & 1 != 0,
            weak: flags & 2 != 0,
        });
    }
    let n = r.count("dependent library", 1)?;
    s.dependent_libraries.reserve_exact(n);
    for _ in 0..n {
        s.dependent_libraries.push(r.string()?);
    }
    s.type_tests = r.bits("type tests", 1)? != 0;

    if r.pos != data.len() {
        return Err(SummaryError::TrailingBytes {
            count: data.len() - r.pos,
            offset: r.pos,
        });
    }
    s.validate()?;
    Ok(s)
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    fn bytes(&mut self, n: u64) -> Result<&'a [u8], SummaryError> {
        if n > self.remaining() as u64 {
            return Err(SummaryError::Truncated {
                needed: n,
                offset: self.pos,
            });
        }
        let n = n as usize;
        let b = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(b)
    }

    fn u8(&mut self) -> Result<u8, SummaryError> {
        Ok(self.bytes(1)?[0])
    }

    /// A byte of flag bits, none of them outside `known`.
    fn bits(&mut self, what: &'static str, known: u8) -> Result<u8, SummaryError> {
        let offset = self.pos;
        let bits = self.u8()?;
        if bits & !known != 0 {
            return Err(SummaryError::UnknownBits { what, bits, offset });
        }
        Ok(bits)
    }

    fn u32le(&mut self) -> Result<u32, SummaryError> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64le(&mut self) -> Result<u64, SummaryError> {
        let b = self.bytes(8)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    fn opt_uleb(&mut self, what: &'static str) -> Result<Option<u64>, SummaryError> {
        let at = self.pos;
        match self.u8()? {
            0 => Ok(None),
            1 => Ok(Some(self.uleb()?)),
            code => Err(SummaryError::InvalidCode {
                what,
                code,
                offset: at,
            }),
        }
    }

    fn uleb(&mut self) -> Result<u64, SummaryError> {
        let start = self.pos;
        let mut value = 0u64;
        for i in 0..10 {
            let byte = self.u8()?;
            let bits = u64::from(byte & 0x7f);
            // The tenth byte carries only bit 63.
            if i == 9 && bits > 1 {
                return Err(SummaryError::BadVarint {
                    offset: start,
                    reason: "overflows 64 bits",
                });
            }
            value |= bits << (7 * i);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(SummaryError::BadVarint {
            offset: start,
            reason: "longer than 10 bytes",
        })
    }

    fn sleb(&mut self) -> Result<i64, SummaryError> {
        let start = self.pos;
        let mut value = 0i64;
        for i in 0..10 {
            let byte = self.u8()?;
            let bits = i64::from(byte & 0x7f);
            if i == 9 {
                // Only bit 63 is left: the byte must be a pure sign extension.
                if byte & 0x80 != 0 || (bits != 0 && bits != 0x7f) {
                    return Err(SummaryError::BadVarint {
                        offset: start,
                        reason: "overflows 64 bits",
                    });
                }
                return Ok(value | (bits << 63));
            }
            value |= bits << (7 * i);
            if byte & 0x80 == 0 {
                let shift = 7 * (i + 1);
                if byte & 0x40 != 0 {
                    value |= -1i64 << shift;
                }
                return Ok(value);
            }
        }
        unreachable!("the loop returns on its tenth byte")
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, SummaryError> {
        let at = self.pos;
        let v = self.uleb()?;
        u32::try_from(v).map_err(|_| SummaryError::TooLarge {
            value: v,
            offset: at,
            what,
        })
    }

    /// A count of entries that take at least `min_size` bytes each, refused if the rest of the
    /// input could not hold them, so a corrupt count never drives a huge allocation.
    fn count(&mut self, what: &'static str, min_size: usize) -> Result<usize, SummaryError> {
        let at = self.pos;
        let n = self.uleb()?;
        let remaining = self.remaining();
        if n > (remaining / min_size) as u64 {
            return Err(SummaryError::CountTooLarge {
                what,
                count: n,
                offset: at,
                remaining,
            });
        }
        Ok(n as usize)
    }

    fn code<T: Copy>(&mut self, what: &'static str, table: &[T]) -> Result<T, SummaryError> {
        let at = self.pos;
        let code = self.u8()?;
        table
            .get(usize::from(code))
            .copied()
            .ok_or(SummaryError::InvalidCode {
                what,
                code,
                offset: at,
            })
    }

    fn string(&mut self) -> Result<String, SummaryError> {
        let len = self.uleb()?;
        let at = self.pos;
        let bytes = self.bytes(len)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| SummaryError::InvalidUtf8 { offset: at })
    }

    fn present(&mut self, what: &'static str) -> Result<bool, SummaryError> {
        let at = self.pos;
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            code => Err(SummaryError::InvalidCode {
                what,
                code,
                offset: at,
            }),
        }
    }

    fn opt_string(&mut self) -> Result<Option<String>, SummaryError> {
        Ok(if self.present("optional string")? {
            Some(self.string()?)
        } else {
            None
        })
    }

    fn opt_loc(&mut self) -> Result<Option<DebugLoc>, SummaryError> {
        Ok(if self.present("optional debug location")? {
            Some(DebugLoc {
                file: self.string()?,
                line: self.u32("line")?,
                column: self.u32("column")?,
            })
        } else {
            None
        })
    }

    fn indices(&mut self, what: &'static str) -> Result<Vec<u32>, SummaryError> {
        let n = self.count(what, 1)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.u32(what)?);
        }
        Ok(v)
    }
}

impl ModuleSummary {
    /// Checks that every number inside the summary points at something: globals, call sites
    /// and value ids are in range and call-site ids are positions. [`decode`] runs this; `lto/`
    /// may run it on a summary it built, to catch its own mistakes before the analyses index
    /// by these numbers.
    pub fn validate(&self) -> Result<(), SummaryError> {
        let module = &self.module_id;
        let globals = self.globals.len();
        let check = |index: u32, len: usize, table: &'static str, context: &dyn Fn() -> String| {
            if (index as usize) < len {
                Ok(())
            } else {
                Err(SummaryError::IndexOutOfRange {
                    index: index.into(),
                    len,
                    table,
                    context: format!("{} of module '{module}'", context()),
                })
            }
        };
        let global =
            |index: u32, context: &dyn Fn() -> String| check(index, globals, "globals", context);
        let value = |index: u32, context: &dyn Fn() -> String| {
            check(index, self.value_count as usize, "values", context)
        };

        for g in &self.globals {
            for &r in &g.refs {
                global(r, &|| format!("the references of '{}'", g.name))?;
            }
            for &c in &g.calls {
                global(c, &|| format!("the calls of '{}'", g.name))?;
            }
            if let Some(a) = g.aliasee {
                global(a, &|| format!("the aliasee of '{}'", g.name))?;
            }
        }
        for (what, list) in [("constructors", &self.ctors), ("destructors", &self.dtors)] {
            for st in list {
                global(st.function, &|| format!("the {what}"))?;
            }
        }
        for (position, cs) in self.call_sites.iter().enumerate() {
            if cs.id as usize != position {
                return Err(SummaryError::CallSiteId {
                    position,
                    id: cs.id,
                    module: module.clone(),
                });
            }
            global(cs.caller, &|| format!("the caller of call site {position}"))?;
            match cs.callee {
                Callee::Direct(g) => global(g, &|| format!("the callee of call site {position}"))?,
                Callee::Indirect(v) => value(v, &|| format!("the callee of call site {position}"))?,
            }
        }
        for ip in &self.initializers {
            global(ip.global, &|| "an initializer pointer's global".to_string())?;
            global(ip.target, &|| "an initializer pointer's target".to_string())?;
        }
        let calls = self.call_sites.len();
        for (i, f) in self.facts.iter().enumerate() {
            let ctx = || format!("fact {i} ({})", ValueFact::KIND_NAMES[f.kind_index()]);
            let (values, global_index, call): (&[u32], Option<u32>, Option<u32>) = match *f {
                ValueFact::AddressOf { dst, global } => (&[dst][..], Some(global), None),
                ValueFact::Copy { dst, src } => (&[dst, src][..], None, None),
                ValueFact::FieldAddr { dst, base, .. } => (&[dst, base][..], None, None),
                ValueFact::Load { dst, ptr } => (&[dst, ptr][..], None, None),
                ValueFact::Store { ptr, value } => (&[ptr, value][..], None, None),
                ValueFact::Argument { function, dst, .. } => (&[dst][..], Some(function), None),
                ValueFact::CallArgument { call, value, .. } => (&[value][..], None, Some(call)),
                ValueFact::CallResult { call, dst } => (&[dst][..], None, Some(call)),
                ValueFact::Return { function, value } => (&[value][..], Some(function), None),
                ValueFact::Escape { value } => (&[value][..], None, None),
                ValueFact::Unknown { dst } => (&[dst][..], None, None),
                ValueFact::StackObject { dst, function, .. } => (&[dst][..], Some(function), None),
                ValueFact::ArrayElement { dst, base, .. } => (&[dst, base][..], None, None),
            };
            for &v in values {
                value(v, &ctx)?;
            }
            if let Some(g) = global_index {
                global(g, &ctx)?;
            }
            if let Some(c) = call {
                check(c, calls, "call sites", &ctx)?;
            }
        }
        for (i, a) in self.accesses.iter().enumerate() {
            let ctx = || format!("memory access {i}");
            global(a.function, &ctx)?;
            value(a.ptr, &ctx)?;
        }
        for (i, sh) in self.shapes.iter().enumerate() {
            global(sh.function, &|| format!("function shape {i}"))?;
        }
        for &f in &self.opaque_functions {
            global(f, &|| "the opaque functions".to_string())?;
        }
        for d in &self.declared {
            global(d.function, &|| "the declared functions".to_string())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{full_summary, global, XorShift};

    #[test]
    fn round_trip_of_every_field_kind() {
        let s = full_summary();
        s.validate().unwrap();
        let bytes = encode(&s);
        assert_eq!(&bytes[..8], b"RLDSUMRY");
        assert_eq!(bytes[8..12], FORMAT_VERSION.to_le_bytes());
        assert_eq!(decode(&bytes).unwrap(), s);
    }

    #[test]
    fn format_md_example_bytes() {
        let s = ModuleSummary {
            module_id: "a.o".to_string(),
            source_file: "a.c".to_string(),
            ..Default::default()
        };
        let mut expected = b"RLDSUMRY\x0f\x00\x00\x00\x03a.o\x03a.c".to_vec();
        expected.extend_from_slice(&[0; 14]);
        assert_eq!(encode(&s), expected);
    }

    #[test]
    fn round_trip_of_an_empty_summary() {
        let s = ModuleSummary::default();
        assert_eq!(decode(&encode(&s)).unwrap(), s);
    }

    #[test]
    fn decoder_numbers_call_sites_by_position() {
        let mut s = full_summary();
        s.call_sites[1].id = 9;
        assert!(matches!(
            s.validate(),
            Err(SummaryError::CallSiteId {
                position: 1,
                id: 9,
                ..
            })
        ));
        assert_eq!(decode(&encode(&s)).unwrap().call_sites[1].id, 1);
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = encode(&full_summary());
        for len in 0..bytes.len() {
            let err = decode(&bytes[..len]).expect_err("a truncated summary must not decode");
            assert!(
                matches!(
                    err,
                    SummaryError::Truncated { .. } | SummaryError::CountTooLarge { .. }
                ),
                "prefix of {len} bytes gave {err}"
            );
        }
    }

    #[test]
    fn trailing_garbage_is_an_error() {
        let mut bytes = encode(&full_summary());
        let len = bytes.len();
        bytes.push(0);
        let err = decode(&bytes).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("1 trailing bytes at offset {len} after the summary")
        );
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        let mut header = MAGIC.to_vec();
        header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        for i in 0..20_000 {
            let len = (rng.next() % 200) as usize;
            // Half the inputs carry a valid header, so the body parser is exercised too.
            let mut data = if i % 2 == 0 { header.clone() } else { vec![] };
            data.extend((0..len).map(|_| rng.next() as u8));
            let _ = decode(&data);
        }
    }

    #[test]
    fn corrupted_encodings_never_panic() {
        let good = encode(&full_summary());
        let mut rng = XorShift(42);
        for _ in 0..20_000 {
            let mut data = good.clone();
            for _ in 0..1 + rng.next() % 4 {
                let at = (rng.next() as usize) % data.len();
                data[at] = rng.next() as u8;
            }
            if let Ok(s) = decode(&data) {
                // Whatever decodes is consistent, so the analyses may index freely.
                s.validate().unwrap();
            }
        }
    }

    #[test]
    fn huge_count_is_refused_before_allocating() {
        let mut data = MAGIC.to_vec();
        data.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        data.extend_from_slice(&[0, 0]); // empty module id and source file
        data.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]); // u32::MAX globals
        let err = decode(&data).unwrap_err();
        assert_eq!(
            err.to_string(),
            "global count 4294967295 at offset 14 exceeds the 0 bytes left"
        );
    }

    #[test]
    fn version_mismatch_names_both_versions() {
        let mut bytes = encode(&full_summary());
        bytes[8..12].copy_from_slice(&9u32.to_le_bytes());
        assert_eq!(
            decode(&bytes).unwrap_err().to_string(),
            "unsupported summary version 9 (this rld reads 15)"
        );
    }

    #[test]
    fn bad_magic_and_short_inputs() {
        assert!(matches!(decode(b"ELF\x7f"), Err(SummaryError::BadMagic)));
        assert!(matches!(
            decode(b"NOTASUMMARY!"),
            Err(SummaryError::BadMagic)
        ));
        assert_eq!(
            decode(b"RLDSUMRY\x01").unwrap_err().to_string(),
            "truncated summary: needed 4 bytes at offset 8"
        );
        assert_eq!(
            decode(b"RLDS").unwrap_err().to_string(),
            "truncated summary: needed 8 bytes at offset 0"
        );
    }

    #[test]
    fn out_of_range_index_is_named() {
        let mut s = ModuleSummary {
            module_id: "tu1.o".to_string(),
            ..Default::default()
        };
        for name in ["a", "b", "c"] {
            s.globals
                .push(global(name, GlobalKind::Function, Linkage::External));
        }
        s.globals[1].calls = vec![7];
        let err = decode(&encode(&s)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "index 7 out of range for 3 globals in the calls of 'b' of module 'tu1.o'"
        );
    }

    #[test]
    fn invalid_utf8_and_codes_are_errors() {
        let mut s = ModuleSummary::default();
        s.globals
            .push(global("f", GlobalKind::Function, Linkage::External));
        let good = encode(&s);
        // Layout: header(12) module_id(1) source(1) count(1) name_len(1) name(1) kind linkage
        let name_at = 16;
        assert_eq!(good[name_at], b'f');
        let mut bad = good.clone();
        bad[name_at] = 0xff;
        assert_eq!(
            decode(&bad).unwrap_err().to_string(),
            "invalid UTF-8 in a name at offset 16"
        );
        let mut bad = good.clone();
        bad[name_at + 2] = 11;
        assert_eq!(
            decode(&bad).unwrap_err().to_string(),
            "invalid linkage code 11 at offset 18"
        );
        let mut bad = good;
        bad[name_at + 4] = 0x80; // flags: a varint that never ends before the data does
        assert!(matches!(
            decode(&bad),
            Err(SummaryError::Truncated { .. }) | Err(SummaryError::UnknownFlags { .. })
        ));
    }

    #[test]
    fn varints_reject_overflow() {
        let mut r = Reader {
            data: &[0xff; 11],
            pos: 0,
        };
        assert!(matches!(r.uleb(), Err(SummaryError::BadVarint { .. })));
        let mut w = Writer(vec![]);
        for v in [0, 1, 63, 64, -1, -64, -65, i64::MIN, i64::MAX, 1 << 40] {
            w.0.clear();
            w.sleb(v);
            let mut r = Reader { data: &w.0, pos: 0 };
            assert_eq!(r.sleb().unwrap(), v);
            assert_eq!(r.pos, w.0.len());
        }
        for v in [0, 127, 128, u64::MAX] {
            w.0.clear();
            w.uleb(v);
            let mut r = Reader { data: &w.0, pos: 0 };
            assert_eq!(r.uleb().unwrap(), v);
        }
    }
}
