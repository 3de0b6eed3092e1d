//! The module-summary model: what rld needs to know about one bitcode module to reason about
//! the whole program without loading its IR.
//!
//! A summary is filled from LLVM IR by `lto/` and is read by the whole-program analyses here.
//! Everything inside one summary is numbered: globals by their position in
//! [`ModuleSummary::globals`], call sites by their position in [`ModuleSummary::call_sites`],
//! SSA values by a module-wide [`ValueId`]. Numbers never cross modules; the combined index
//! ([`crate::index`]) joins modules by symbol name, the way the linker does.

/// What a global value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GlobalKind {
    Function,
    Variable,
    Alias,
    IFunc,
}

impl GlobalKind {
    /// Lower-case name, as `dump` prints it.
    pub fn name(self) -> &'static str {
        match self {
            GlobalKind::Function => "function",
            GlobalKind::Variable => "variable",
            GlobalKind::Alias => "alias",
            GlobalKind::IFunc => "ifunc",
        }
    }
}

/// LLVM's linkage types (llvm/IR/GlobalValue.h), one for one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Linkage {
    External,
    AvailableExternally,
    LinkOnceAny,
    LinkOnceODR,
    WeakAny,
    WeakODR,
    Appending,
    Internal,
    Private,
    ExternalWeak,
    Common,
}

impl Linkage {
    /// Invisible outside its module: the linker never resolves it against anything else.
    pub fn is_local(self) -> bool {
        matches!(self, Linkage::Internal | Linkage::Private)
    }

    /// The linker may pick another definition of the same name instead of this one.
    pub fn is_weak_for_linker(self) -> bool {
        matches!(
            self,
            Linkage::LinkOnceAny
                | Linkage::LinkOnceODR
                | Linkage::WeakAny
                | Linkage::WeakODR
                | Linkage::Common
                | Linkage::ExternalWeak
        )
    }

    /// Every definition of the name is equivalent (the one-definition rule), so any copy may
    /// stand for the one the linker picks.
    pub fn is_odr(self) -> bool {
        matches!(self, Linkage::LinkOnceODR | Linkage::WeakODR)
    }

    /// Another, different, definition may replace this one at link time, so its body says
    /// nothing reliable about the program.
    pub fn is_interposable(self) -> bool {
        matches!(
            self,
            Linkage::LinkOnceAny | Linkage::WeakAny | Linkage::ExternalWeak | Linkage::Common
        )
    }

    /// LLVM's IR spelling (`linkonce_odr`, ...), as `dump` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Linkage::External => "external",
            Linkage::AvailableExternally => "available_externally",
            Linkage::LinkOnceAny => "linkonce",
            Linkage::LinkOnceODR => "linkonce_odr",
            Linkage::WeakAny => "weak",
            Linkage::WeakODR => "weak_odr",
            Linkage::Appending => "appending",
            Linkage::Internal => "internal",
            Linkage::Private => "private",
            Linkage::ExternalWeak => "extern_weak",
            Linkage::Common => "common",
        }
    }
}

/// ELF symbol visibility.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Visibility {
    Default,
    Hidden,
    Protected,
}

impl Visibility {
    /// Lower-case name, as `dump` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Visibility::Default => "default",
            Visibility::Hidden => "hidden",
            Visibility::Protected => "protected",
        }
    }
}

/// Boolean properties of a global, as a bit set (the constants below).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GlobalFlags(pub u32);

impl GlobalFlags {
    /// No body or initializer in this module.
    pub const DECLARATION: u32 = 1;
    pub const DSO_LOCAL: u32 = 2;
    pub const THREAD_LOCAL: u32 = 4;
    /// A variable that is never written (`constant` in IR).
    pub const CONSTANT: u32 = 8;
    /// Its address is used other than as a direct callee.
    pub const ADDRESS_TAKEN: u32 = 16;
    pub const EXPLICIT_SECTION: u32 = 32;
    /// Listed in `llvm.used`: must be kept even if nothing references it.
    pub const USED: u32 = 64;
    /// Listed in `llvm.compiler.used`, or named by the module's inline asm (LLVM's own LTO
    /// adds those to `llvm.compiler.used`: code it cannot see uses them).
    pub const COMPILER_USED: u32 = 128;
    /// `unnamed_addr`: its address is not significant, only its contents.
    pub const UNNAMED_ADDR: u32 = 256;
    pub const IN_COMDAT: u32 = 512;
    /// A function that returns fresh memory: its return is `noalias` or it has `allocsize`
    /// (LLVM's marks of allocators and allocation wrappers the compiler recognized).
    pub const RETURNS_NOALIAS: u32 = 1024;
    /// Its initializer or body holds the address of a basic block of a function it refers
    /// to (a computed-goto table): it must be compiled together with that function.
    pub const BLOCK_ADDRESS: u32 = 2048;
    /// A definition the module's inline asm names (a `.symver` of it, a call from asm): it
    /// is compiled beside that asm, in the same object.
    pub const ASM_REFERENCED: u32 = 4096;
    /// LLVM's `canBeOmittedFromSymbolTable`: a `linkonce_odr` definition whose address no
    /// one can compare (`unnamed_addr`, or `local_unnamed_addr` and not a writable
    /// variable). Every module that needs it has its own copy, so lld keeps it out of
    /// `.dynsym` unless a native object uses it, and LTO may internalize it.
    pub const CAN_OMIT: u32 = 8192;

    /// Every flag with its `dump` name, in bit order.
    pub const NAMES: [(u32, &'static str); 14] = [
        (Self::DECLARATION, "declaration"),
        (Self::DSO_LOCAL, "dso_local"),
        (Self::THREAD_LOCAL, "thread_local"),
        (Self::CONSTANT, "constant"),
        (Self::ADDRESS_TAKEN, "address_taken"),
        (Self::EXPLICIT_SECTION, "explicit_section"),
        (Self::USED, "used"),
        (Self::COMPILER_USED, "compiler_used"),
        (Self::UNNAMED_ADDR, "unnamed_addr"),
        (Self::IN_COMDAT, "in_comdat"),
        (Self::RETURNS_NOALIAS, "returns_noalias"),
        (Self::BLOCK_ADDRESS, "block_address"),
        (Self::ASM_REFERENCED, "asm_referenced"),
        (Self::CAN_OMIT, "can_omit"),
    ];

    /// Whether every bit of `f` is set.
    pub fn contains(self, f: u32) -> bool {
        self.0 & f == f
    }

    pub fn insert(&mut self, f: u32) {
        self.0 |= f;
    }
}

/// A source position, from the debug info.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DebugLoc {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

/// One global value (function, variable, alias, ifunc) of a module, defined or declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobalSummary {
    pub name: String,
    pub kind: GlobalKind,
    pub linkage: Linkage,
    pub visibility: Visibility,
    pub flags: GlobalFlags,
    pub section: Option<String>,
    pub comdat: Option<String>,
    /// Globals referenced (address taken / loaded / stored, also from initializers): indices
    /// into the module's `globals`.
    pub refs: Vec<u32>,
    /// Globals called directly.
    pub calls: Vec<u32>,
    /// An alias's aliasee; an ifunc's resolver function. The dead-symbol analysis follows both
    /// the same way: they are what the alias or ifunc is made of.
    pub aliasee: Option<u32>,
    /// Location of the definition (functions: DISubprogram), when compiled with -g.
    pub debug_loc: Option<DebugLoc>,
}

impl GlobalSummary {
    /// No body or initializer here. `extern_weak` is always a declaration in LLVM, whatever
    /// the flags say.
    pub fn is_declaration(&self) -> bool {
        self.flags.contains(GlobalFlags::DECLARATION) || self.linkage == Linkage::ExternalWeak
    }

    pub fn is_definition(&self) -> bool {
        !self.is_declaration()
    }
}

/// An entry of `llvm.global_ctors` or `llvm.global_dtors`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Structor {
    pub priority: u32,
    /// Index into the module's `globals`.
    pub function: u32,
}

/// Module-wide numbering of SSA values the value-flow facts talk about.
pub type ValueId = u32;

/// What a call site calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Callee {
    /// A global, by index into the module's `globals`.
    Direct(u32),
    /// Through a pointer value.
    Indirect(ValueId),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallSite {
    /// Stable within the module: the call site's index in `call_sites`.
    pub id: u32,
    /// The calling function, by index into `globals`.
    pub caller: u32,
    /// The call instruction's position in the caller (as [`MemoryAccess::instruction`]).
    pub instruction: u32,
    pub callee: Callee,
    pub debug_loc: Option<DebugLoc>,
    /// Arguments passed by value in memory (`byval`), by position: the call itself reads
    /// what they point to, and a variadic callee finds those bytes, not the pointer, in
    /// its argument area.
    pub byval: Vec<u32>,
}

/// A pointer to `target` stored at byte `offset` of `global`'s constant initializer (dispatch
/// tables).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InitializerPointer {
    pub global: u32,
    pub offset: u64,
    pub target: u32,
}

/// One step of value flow inside a module, for the called-value and alias analyses. Globals
/// are indices into `globals`; calls are call-site ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueFact {
    AddressOf {
        dst: ValueId,
        global: u32,
    },
    /// bitcast, phi and select incoming values: one fact each.
    Copy {
        dst: ValueId,
        src: ValueId,
    },
    /// GEP; `None` = non-constant index.
    FieldAddr {
        dst: ValueId,
        base: ValueId,
        offset: Option<i64>,
    },
    Load {
        dst: ValueId,
        ptr: ValueId,
    },
    Store {
        ptr: ValueId,
        value: ValueId,
    },
    Argument {
        function: u32,
        index: u32,
        dst: ValueId,
    },
    CallArgument {
        call: u32,
        index: u32,
        value: ValueId,
    },
    CallResult {
        call: u32,
        dst: ValueId,
    },
    Return {
        function: u32,
        value: ValueId,
    },
    /// Passed to inline asm or anything not modelled.
    Escape {
        value: ValueId,
    },
    /// Produced by something not modelled (`inttoptr`, `extractvalue`, ...): the value may
    /// be anything, so it is Overdefined.
    Unknown {
        dst: ValueId,
    },
    /// `dst` is the address of a new stack object (an `alloca`) of `size` bytes (None: not
    /// a compile-time constant) in the frame of `function`. The object is named by `dst`.
    StackObject {
        dst: ValueId,
        size: Option<u64>,
        function: u32,
    },
    /// GEP indexing an array at run time: `dst` points somewhere into the `len` bytes at
    /// `base + start` (the array; C forbids leaving it), e.g. `&s->buf[i]`.
    ArrayElement {
        dst: ValueId,
        base: ValueId,
        start: i64,
        len: u64,
    },
}

impl ValueFact {
    /// Every fact kind's name, in the order of [`ValueFact::kind_index`].
    pub const KIND_NAMES: [&'static str; 13] = [
        "address_of",
        "copy",
        "field_addr",
        "load",
        "store",
        "argument",
        "call_argument",
        "call_result",
        "return",
        "escape",
        "unknown",
        "stack_object",
        "array_element",
    ];

    /// Position of this fact's kind in [`ValueFact::KIND_NAMES`] (also its tag in the
    /// on-disk format).
    pub fn kind_index(&self) -> usize {
        match self {
            ValueFact::AddressOf { .. } => 0,
            ValueFact::Copy { .. } => 1,
            ValueFact::FieldAddr { .. } => 2,
            ValueFact::Load { .. } => 3,
            ValueFact::Store { .. } => 4,
            ValueFact::Argument { .. } => 5,
            ValueFact::CallArgument { .. } => 6,
            ValueFact::CallResult { .. } => 7,
            ValueFact::Return { .. } => 8,
            ValueFact::Escape { .. } => 9,
            ValueFact::Unknown { .. } => 10,
            ValueFact::StackObject { .. } => 11,
            ValueFact::ArrayElement { .. } => 12,
        }
    }
}

/// How an instruction touches memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessKind {
    Read,
    Write,
    /// Atomic read-modify-write and compare-exchange.
    ReadWrite,
}

impl AccessKind {
    pub const ALL: [AccessKind; 3] = [AccessKind::Read, AccessKind::Write, AccessKind::ReadWrite];

    /// Lower-case name, as `dump` prints it.
    pub fn name(self) -> &'static str {
        match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::ReadWrite => "read_write",
        }
    }
}

/// One memory access of a function, for the alias analysis: which pointer it goes through,
/// how many bytes, and where it is, so the backend can annotate that very instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryAccess {
    /// The function, by index into `globals`.
    pub function: u32,
    /// The instruction's position in the function (basic blocks in order, instructions in
    /// order, from 0): with [`FunctionShape`] the key back to the instruction.
    pub instruction: u32,
    /// Which pointer operand of the instruction (a `memcpy` reads through 1, writes through 0).
    pub operand: u8,
    pub ptr: ValueId,
    /// Bytes accessed; None when not a compile-time constant.
    pub size: Option<u64>,
    pub kind: AccessKind,
}

/// The shape of a defined function when it was summarized: the backend recomputes it and
/// annotates the function's instructions only if it still matches, so a stale summary never
/// annotates the wrong instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FunctionShape {
    /// The function, by index into `globals`.
    pub function: u32,
    pub instructions: u32,
    /// FNV-1a over the instructions' opcodes, in order.
    pub opcode_hash: u64,
}

impl FunctionShape {
    /// The shape of a function whose instructions have these opcodes (LLVM's numbering).
    pub fn of_opcodes(function: u32, opcodes: impl IntoIterator<Item = u32>) -> FunctionShape {
        let mut instructions = 0u32;
        let mut hash = 0xcbf2_9ce4_8422_2325u64;
        for op in opcodes {
            instructions += 1;
            for b in op.to_le_bytes() {
                hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        FunctionShape {
            function,
            instructions,
            opcode_hash: hash,
        }
    }
}

/// Where a function may read or write memory, as LLVM's attributes on its declaration say
/// (`memory(...)` since LLVM 16; in LLVM 14 `readnone`, `readonly`, `writeonly`,
/// `argmemonly`, `inaccessiblememonly`, `inaccessiblemem_or_argmemonly`): a bit set of the
/// constants below. Effects of whatever the function calls back are included, as LLVM
/// defines them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemoryEffects(pub u8);

impl MemoryEffects {
    /// Memory its pointer arguments point into.
    pub const ARG_READ: u8 = 1;
    pub const ARG_WRITE: u8 = 2;
    /// Memory the program cannot name (the library's own state).
    pub const INACCESSIBLE_READ: u8 = 4;
    pub const INACCESSIBLE_WRITE: u8 = 8;
    /// Any other memory: globals, escaped objects.
    pub const OTHER_READ: u8 = 16;
    pub const OTHER_WRITE: u8 = 32;
    /// No attribute: anything.
    pub const ANY: MemoryEffects = MemoryEffects(63);

    pub fn has(self, bits: u8) -> bool {
        self.0 & bits != 0
    }

    pub fn reads_args(self) -> bool {
        self.has(Self::ARG_READ)
    }

    pub fn writes_args(self) -> bool {
        self.has(Self::ARG_WRITE)
    }

    /// It may store where a later call, or the program, can read it back.
    pub fn writes_beyond_args(self) -> bool {
        self.has(Self::INACCESSIBLE_WRITE | Self::OTHER_WRITE)
    }

    pub fn reads_other(self) -> bool {
        self.has(Self::OTHER_READ)
    }

    pub fn writes_other(self) -> bool {
        self.has(Self::OTHER_WRITE)
    }

    pub fn writes(self) -> bool {
        self.has(Self::ARG_WRITE | Self::INACCESSIBLE_WRITE | Self::OTHER_WRITE)
    }
}

/// What LLVM's attributes say of one parameter of a declared function: a bit set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ParamEffects(pub u8);

impl ParamEffects {
    /// `nocapture` (`captures(none)`): no copy of the pointer outlives the call.
    pub const NOCAPTURE: u8 = 1;
    /// The function only reads through it.
    pub const READONLY: u8 = 2;
    /// The function only writes through it.
    pub const WRITEONLY: u8 = 4;
    /// The function does not access memory through it.
    pub const READNONE: u8 = 8;
    /// `returned`: the function returns this argument.
    pub const RETURNED: u8 = 16;

    pub fn has(self, bits: u8) -> bool {
        self.0 & bits == bits
    }
}

/// What the declaration of a function outside the module says it may do: the attributes
/// clang and LLVM's library-call inference put on it. The whole-program analyses read the
/// C library's behaviour from these (see `crate::library`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DeclaredEffects {
    /// The declared function, by index into `globals`.
    pub function: u32,
    pub memory: MemoryEffects,
    /// `nofree`: it frees no memory.
    pub nofree: bool,
    /// Its declared parameters in order (variadic arguments have none).
    pub params: Vec<ParamEffects>,
}

/// A global symbol the module's inline asm defines or names, as LLVM's IR symbol table
/// lists it (`ModuleSymbolTable::CollectAsmSymbols`): lld resolves these like the module's
/// IR globals. A `.symver` alias appears under its versioned name (`foo@@VER`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AsmSymbol {
    pub name: String,
    /// Defined by the asm (else only referenced).
    pub defined: bool,
    pub weak: bool,
}

/// Everything rld knows about one bitcode module.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ModuleSummary {
    /// The input's name as the linker shows it (`foo.o`, `libx.a(bar.o)`).
    pub module_id: String,
    pub source_file: String,
    pub globals: Vec<GlobalSummary>,
    pub ctors: Vec<Structor>,
    pub dtors: Vec<Structor>,
    pub call_sites: Vec<CallSite>,
    pub initializers: Vec<InitializerPointer>,
    pub facts: Vec<ValueFact>,
    /// Value ids in `facts`, `call_sites` and `accesses` are below this.
    pub value_count: u32,
    /// Loads, stores, atomics and memory intrinsics, function by function.
    pub accesses: Vec<MemoryAccess>,
    /// One per defined function.
    pub shapes: Vec<FunctionShape>,
    /// Functions that touch memory in ways the summary does not describe (inline asm,
    /// `va_arg`, fences): the whole-program mod/ref treats them as touching anything.
    pub opaque_functions: Vec<u32>,
    /// Declared functions whose declarations carry memory or parameter attributes; a
    /// declaration missing here may do anything.
    pub declared: Vec<DeclaredEffects>,
    /// The global symbols of the module's inline asm.
    pub asm_symbols: Vec<AsmSymbol>,
    /// The libraries its `llvm.dependent-libraries` names (`#pragma comment(lib, ...)`),
    /// which the link adds as lld does.
    pub dependent_libraries: Vec<String>,
    /// The module tests types (`llvm.type.test`, `llvm.type.checked.load`: clang's
    /// `-fsanitize=cfi` and `-fwhole-program-vtables`): LLVM lowers the tests from every
    /// module's type metadata at once, so the program cannot be split into partitions.
    pub type_tests: bool,
}

impl ModuleSummary {
    /// Index of the global named `name` (names are unique within a module).
    pub fn find(&self, name: &str) -> Option<u32> {
        self.globals
            .iter()
            .position(|g| g.name == name)
            .map(|i| i as u32)
    }
}
