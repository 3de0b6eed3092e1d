//! Value-flow facts for the whole-program analyses: how pointer values move through a
//! module (addresses of globals, copies, field addresses, loads, stores, arguments, returns),
//! and which function pointers sit in constant initializers.
//!
//! Only pointer-typed values are tracked (function pointers are pointers). Anything that
//! makes a pointer from something not modelled is `Unknown`, and a pointer used in a way not
//! modelled `Escape`s, so the analyses stay sound without modelling every instruction.

use crate::ir::{DataLayout, GepPlace, Value};
use inkwell::llvm_sys::LLVMOpcode;
use rld_summaries::{
    AccessKind, FunctionShape, InitializerPointer, MemoryAccess, ModuleSummary, ValueFact,
};
use std::collections::{HashMap, HashSet};

pub struct FactBuilder<'a> {
    pub index: &'a HashMap<Value, u32>,
    pub values: HashMap<Value, u32>,
    /// Next unused value id (ids are dense: IR values and fact-chain intermediates).
    next: u32,
    pub facts: Vec<ValueFact>,
    accesses: Vec<MemoryAccess>,
    shapes: Vec<FunctionShape>,
    opaque: Vec<u32>,
    dl: DataLayout,
    /// Scratch for walks over constants (DAGs: each shared part is visited once).
    seen: HashSet<Value>,
}

/// Most nodes one initializer walk visits: an initializer is a DAG whose flattened form
/// (what the walk follows, to know each pointer's offset) can be exponentially larger.
const INITIALIZER_BUDGET: u32 = 1 << 20;

impl<'a> FactBuilder<'a> {
    pub fn new(index: &'a HashMap<Value, u32>, dl: DataLayout) -> Self {
        FactBuilder {
            index,
            values: HashMap::new(),
            next: 0,
            facts: Vec::new(),
            accesses: Vec::new(),
            shapes: Vec::new(),
            opaque: Vec::new(),
            dl,
            seen: HashSet::new(),
        }
    }

    /// The id of `v`, and whether it was just created.
    fn id(&mut self, v: Value) -> (u32, bool) {
        if let Some(&id) = self.values.get(&v) {
            return (id, false);
        }
        let id = self.fresh();
        self.values.insert(v, id);
        (id, true)
    }

    pub fn value_id(&mut self, v: Value) -> u32 {
        self.id(v).0
    }

    /// A value id that stands for no IR value (an intermediate of a fact chain).
    fn fresh(&mut self) -> u32 {
        self.next += 1;
        self.next - 1
    }

    /// The value an operand denotes, with facts for constants made on first sight; None for
    /// constants that are not addresses (null, undef, integers).
    pub fn operand(&mut self, v: Value) -> Option<u32> {
        let stripped = v.strip_casts();
        if let Some(&g) = self.index.get(&stripped) {
            let (id, new) = self.id(stripped);
            if new {
                self.facts.push(ValueFact::AddressOf { dst: id, global: g });
            }
            return Some(id);
        }
        if stripped.is_constant_expr() {
            let (id, new) = self.id(stripped);
            if new {
                if stripped.opcode() == Some(LLVMOpcode::LLVMGetElementPtr) {
                    let base = stripped.operands()[0];
                    match self.operand(base) {
                        Some(b) => self.facts.push(ValueFact::FieldAddr {
                            dst: id,
                            base: b,
                            offset: stripped.gep_offset(self.dl),
                        }),
                        None => self.facts.push(ValueFact::Unknown { dst: id }),
                    }
                } else {
                    self.facts.push(ValueFact::Unknown { dst: id });
                }
            }
            return Some(id);
        }
        if stripped.is_constant() {
            return None;
        }
        Some(self.value_id(stripped))
    }

    /// Facts for one defined function (`function` is its global index). `call_ids` maps each
    /// call-like instruction to its call-site id.
    pub fn function(&mut self, function: u32, f: Value, call_ids: &HashMap<Value, u32>) {
        for (i, p) in f.params().into_iter().enumerate() {
            if p.is_pointer() {
                let dst = self.value_id(p);
                self.facts.push(ValueFact::Argument {
                    function,
                    index: i as u32,
                    dst,
                });
                self.typed_arrays(dst, p);
            }
        }
        let instructions = f.instructions();
        let mut opaque = false;
        for (position, &inst) in instructions.iter().enumerate() {
            self.instruction(function, inst, call_ids);
            self.memory_accesses(function, position as u32, inst);
            opaque |= touches_memory_opaquely(inst, call_ids);
        }
        if opaque {
            self.opaque.push(function);
        }
        // Every function's shape: the backend checks it before annotating, and its size
        // guides partitioning.
        let opcodes = instructions.iter().map(|i| i.opcode_number());
        self.shapes
            .push(FunctionShape::of_opcodes(function, opcodes));
    }

    /// The memory an instruction reads or writes, through which pointer operand: loads,
    /// stores, atomics, and the memory intrinsics (and libc's memcpy/memmove/memset).
    fn memory_accesses(&mut self, function: u32, instruction: u32, inst: Value) {
        use LLVMOpcode::*;
        let Some(op) = inst.opcode() else {
            return;
        };
        let ops = inst.operands();
        let access = |this: &mut Self, operand: u8, ptr: Value, size, kind| {
            if let Some(ptr) = this.operand(ptr) {
                this.accesses.push(MemoryAccess {
                    function,
                    instruction,
                    operand,
                    ptr,
                    size,
                    kind,
                });
            }
        };
        match op {
            LLVMLoad => access(
                self,
                0,
                ops[0],
                Some(inst.type_size(self.dl)),
                AccessKind::Read,
            ),
            LLVMStore => {
                let size = Some(ops[0].type_size(self.dl));
                access(self, 1, ops[1], size, AccessKind::Write)
            }
            LLVMAtomicRMW | LLVMAtomicCmpXchg => {
                let size = ops.get(1).map(|v| v.type_size(self.dl));
                access(self, 0, ops[0], size, AccessKind::ReadWrite)
            }
            LLVMCall | LLVMInvoke => {
                let Some(name) = inst
                    .called_value()
                    .map(Value::strip_casts)
                    .filter(|c| c.is_function())
                    .map(Value::name)
                else {
                    return;
                };
                let args = inst.call_args();
                let (copies, sets) = memory_intrinsic(&name);
                if !(copies || sets) || args.len() < 3 {
                    return;
                }
                let size = args[2].const_int();
                access(self, 0, args[0], size, AccessKind::Write);
                if copies {
                    access(self, 1, args[1], size, AccessKind::Read);
                }
            }
            _ => {}
        }
    }

    /// Globals named inside a constant that is not itself a pointer (`ptrtoint @f`, a
    /// member function pointer `{ ptrtoint @f, 0 }`, a vector of addresses stored whole)
    /// leave the value flow the facts follow: they escape.
    fn escape_hidden_globals(&mut self, c: Value) {
        self.seen.clear();
        // A work list: a constant may nest as deep as its source's expressions.
        let mut work = vec![c];
        while let Some(c) = work.pop() {
            if !self.seen.insert(c) {
                continue;
            }
            for o in c.operands() {
                let stripped = o.strip_casts();
                if self.index.contains_key(&stripped) {
                    if let Some(v) = self.operand(stripped) {
                        self.facts.push(ValueFact::Escape { value: v });
                    }
                } else if o.is_constant() && !o.is_global_value() {
                    work.push(o);
                }
            }
        }
    }

    fn escape_pointer_operands(&mut self, inst: Value) {
        for op in inst.operands() {
            if op.is_pointer() {
                if let Some(v) = self.operand(op) {
                    self.facts.push(ValueFact::Escape { value: v });
                }
            }
        }
    }

    fn instruction(&mut self, function: u32, inst: Value, call_ids: &HashMap<Value, u32>) {
        use LLVMOpcode::*;
        let Some(op) = inst.opcode() else {
            return;
        };
        let produces_pointer = inst.is_pointer();
        let ops = inst.operands();
        for &o in &ops {
            if o.is_constant() && !o.is_pointer() {
                self.escape_hidden_globals(o);
            }
        }
        match op {
            LLVMCall | LLVMInvoke => {
                let Some(&call) = call_ids.get(&inst) else {
                    // Inline asm: whatever it is given escapes, whatever it returns is unknown.
                    self.escape_pointer_operands(inst);
                    if produces_pointer {
                        let dst = self.value_id(inst);
                        self.facts.push(ValueFact::Unknown { dst });
                    }
                    return;
                };
                for (index, a) in inst.call_args().into_iter().enumerate() {
                    if a.is_pointer() {
                        if let Some(value) = self.operand(a) {
                            self.facts.push(ValueFact::CallArgument {
                                call,
                                index: index as u32,
                                value,
                            });
                        }
                    }
                }
                if produces_pointer {
                    let dst = self.value_id(inst);
                    self.facts.push(ValueFact::CallResult { call, dst });
                }
            }
            LLVMLoad if produces_pointer => {
                let dst = self.value_id(inst);
                match self.operand(ops[0]) {
                    Some(ptr) => self.facts.push(ValueFact::Load { dst, ptr }),
                    None => self.facts.push(ValueFact::Unknown { dst }),
                }
            }
            // An integer load as wide as a pointer may read a pointer (a struct copied
            // as integers): track it like one, so the copy keeps its contents.
            LLVMLoad if inst.is_pointer_sized_int() => {
                let dst = self.value_id(inst);
                match self.operand(ops[0]) {
                    Some(ptr) => self.facts.push(ValueFact::Load { dst, ptr }),
                    None => self.facts.push(ValueFact::Unknown { dst }),
                }
            }
            LLVMLoad => {}
            LLVMStore if ops[0].is_pointer_sized_int() => {
                // Only an integer that was loaded as above is a tracked (possibly pointer)
                // value; any other integer stored there may be a pointer made by arithmetic.
                let value = match self.values.get(&ops[0]) {
                    Some(&v) => v,
                    None => {
                        let fresh = self.value_id(ops[0]);
                        self.facts.push(ValueFact::Unknown { dst: fresh });
                        fresh
                    }
                };
                if let Some(ptr) = self.operand(ops[1]) {
                    self.facts.push(ValueFact::Store { ptr, value });
                }
            }
            // Plain numbers or zeroes (a flag set, a struct cleared with a vector store)
            // make no pointer.
            LLVMStore if ops[0].may_overwrite_pointers() && ops[0].is_constant_data() => {}
            LLVMStore if ops[0].may_overwrite_pointers() => {
                if let Some(ptr) = self.operand(ops[1]) {
                    self.bytes_stored(ptr, ops[0]);
                }
            }
            LLVMStore => {
                if ops[0].is_pointer() {
                    let value = self.operand(ops[0]);
                    let ptr = self.operand(ops[1]);
                    match (value, ptr) {
                        (Some(value), Some(ptr)) => {
                            self.facts.push(ValueFact::Store { ptr, value })
                        }
                        // A store through null or a constant address: the value is lost to us.
                        (Some(value), None) => self.facts.push(ValueFact::Escape { value }),
                        _ => {}
                    }
                }
            }
            LLVMAlloca => {
                let dst = self.value_id(inst);
                let size = inst.alloca_size(self.dl);
                self.facts.push(ValueFact::StackObject {
                    dst,
                    size,
                    function,
                });
                self.typed_arrays(dst, inst);
            }
            LLVMGetElementPtr => {
                let dst = self.value_id(inst);
                let Some(base) = self.operand(ops[0]) else {
                    self.facts.push(ValueFact::Unknown { dst });
                    return;
                };
                self.facts.push(match inst.gep_place(self.dl) {
                    Some(GepPlace::Within { start, len }) => ValueFact::ArrayElement {
                        dst,
                        base,
                        start,
                        len,
                    },
                    Some(GepPlace::At(offset)) => ValueFact::FieldAddr {
                        dst,
                        base,
                        offset: Some(offset),
                    },
                    None => ValueFact::FieldAddr {
                        dst,
                        base,
                        offset: None,
                    },
                });
            }
            LLVMBitCast | LLVMAddrSpaceCast | LLVMFreeze if produces_pointer => {
                self.copy_from(inst, &ops[..1]);
                let id = self.value_id(inst);
                self.typed_arrays(id, inst);
            }
            LLVMPHI if produces_pointer => {
                let incoming = inst.incoming();
                self.copy_from(inst, &incoming);
            }
            LLVMSelect if produces_pointer => self.copy_from(inst, &ops[1..3]),
            LLVMRet => {
                if let Some(&v) = ops.first() {
                    if v.is_pointer() {
                        if let Some(value) = self.operand(v) {
                            self.facts.push(ValueFact::Return { function, value });
                        }
                    }
                }
            }
            // Comparing addresses reveals nothing and lets nothing escape.
            LLVMICmp => {}
            // An address turned into a number that is only compared or subtracted (a range
            // check, a pointer difference, an alignment test) cannot come back as a pointer
            // nor leave the function.
            LLVMPtrToInt if address_stays_a_number(inst) => {}
            _ => {
                self.escape_pointer_operands(inst);
                if produces_pointer {
                    let dst = self.value_id(inst);
                    self.facts.push(ValueFact::Unknown { dst });
                }
            }
        }
    }

    /// Bytes, a vector or an aggregate stored through `ptr`: what may become of the
    /// pointers there. The points-to analysis reads and writes memory by pointer-sized
    /// slot, so a narrow store is an unknown value written into its slot (a byte written
    /// into a pointer forges it). A wider one covers one slot per 8 bytes: a copy, slot by
    /// slot, when the value was loaded as a whole from elsewhere (a struct copied with
    /// vector instructions), else unknown values. Wider than 64 bytes, or not a multiple of
    /// 8: an unknown value anywhere in the object.
    fn bytes_stored(&mut self, ptr: u32, value: Value) {
        const SLOT: u64 = 8;
        let size = value.type_size(self.dl);
        if size < SLOT {
            let unknown = self.fresh();
            self.facts.push(ValueFact::Unknown { dst: unknown });
            self.facts.push(ValueFact::Store {
                ptr,
                value: unknown,
            });
            return;
        }
        if size > 64 || !size.is_multiple_of(SLOT) {
            let unknown = self.fresh();
            self.facts.push(ValueFact::Unknown { dst: unknown });
            let anywhere = self.fresh();
            self.facts.push(ValueFact::FieldAddr {
                dst: anywhere,
                base: ptr,
                offset: None,
            });
            self.facts.push(ValueFact::Store {
                ptr: anywhere,
                value: unknown,
            });
            return;
        }
        let source = (value.opcode() == Some(LLVMOpcode::LLVMLoad))
            .then(|| self.operand(value.operands()[0]))
            .flatten();
        for at in (0..size).step_by(SLOT as usize) {
            let dst = self.fresh();
            self.facts.push(ValueFact::FieldAddr {
                dst,
                base: ptr,
                offset: Some(at as i64),
            });
            let slot_value = self.fresh();
            match source {
                Some(src) => {
                    let from = self.fresh();
                    self.facts.push(ValueFact::FieldAddr {
                        dst: from,
                        base: src,
                        offset: Some(at as i64),
                    });
                    self.facts.push(ValueFact::Load {
                        dst: slot_value,
                        ptr: from,
                    });
                }
                None => self.facts.push(ValueFact::Unknown { dst: slot_value }),
            }
            self.facts.push(ValueFact::Store {
                ptr: dst,
                value: slot_value,
            });
        }
    }

    /// The arrays of the struct `v` (value id `id`) points to are known before any of their
    /// elements is used: a pointer walking one (`p++` from a byte offset, through a
    /// `void *`) then stays in it instead of spreading over the whole object. Written as
    /// array-element facts whose results nothing uses.
    fn typed_arrays(&mut self, id: u32, v: Value) {
        for (start, len) in v.pointee_arrays(self.dl) {
            let dst = self.fresh();
            self.facts.push(ValueFact::ArrayElement {
                dst,
                base: id,
                start,
                len,
            });
        }
    }

    /// A pointer a constant initializer holds at `offset` of global `global` that is not a
    /// global's start (`&table[3]`, a number cast to a pointer): the initializer stores it
    /// there, as code would.
    fn initializer_store(&mut self, global: u32, offset: u64, value: u32) {
        let start = self.fresh();
        self.facts.push(ValueFact::AddressOf { dst: start, global });
        let at = self.fresh();
        self.facts.push(ValueFact::FieldAddr {
            dst: at,
            base: start,
            offset: Some(offset as i64),
        });
        self.facts.push(ValueFact::Store { ptr: at, value });
    }

    fn copy_from(&mut self, inst: Value, sources: &[Value]) {
        let dst = self.value_id(inst);
        for &s in sources {
            if let Some(src) = self.operand(s) {
                self.facts.push(ValueFact::Copy { dst, src });
            }
        }
    }

    /// Addresses stored in a global's constant initializer, at their byte offsets.
    pub fn initializer(&mut self, global: u32, init: Value, out: &mut Vec<InitializerPointer>) {
        let start = out.len();
        let mut budget = INITIALIZER_BUDGET;
        self.walk_initializer(global, init, 0, out, 0, &mut budget);
        if budget == 0 {
            // Too large to follow field by field: every global it names escapes instead.
            out.truncate(start);
            self.escape_hidden_globals(init);
        }
    }

    fn walk_initializer(
        &mut self,
        global: u32,
        c: Value,
        offset: u64,
        out: &mut Vec<InitializerPointer>,
        depth: u32,
        budget: &mut u32,
    ) {
        if depth > 32 {
            // Nested deeper than any real aggregate type: not followed, so the whole
            // initializer is treated as too large (every global it names escapes).
            *budget = 0;
        }
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let stripped = zero_offset_base(c.strip_casts(), self.dl);
        if let Some(&target) = self.index.get(&stripped) {
            out.push(InitializerPointer {
                global,
                offset,
                target,
            });
        } else if stripped.is_struct_constant() {
            for (i, field) in stripped.operands().into_iter().enumerate() {
                let off = offset + stripped.struct_field_offset(self.dl, i as u32);
                self.walk_initializer(global, field, off, out, depth + 1, budget);
            }
        } else if stripped.is_array_constant() {
            for (i, elem) in stripped.operands().into_iter().enumerate() {
                let size = elem.type_size(self.dl);
                let at = offset + i as u64 * size;
                self.walk_initializer(global, elem, at, out, depth + 1, budget);
            }
        } else if stripped.is_constant_expr() {
            if let Some(v) = self.operand(stripped) {
                self.initializer_store(global, offset, v);
            }
        }
    }

    pub fn finish(self, summary: &mut ModuleSummary) {
        summary.value_count = self.next;
        summary.facts = self.facts;
        summary.accesses = self.accesses;
        summary.shapes = self.shapes;
        summary.opaque_functions = self.opaque;
    }
}

/// Whether an instruction touches memory in a way no fact or access describes: inline asm
/// (which may name any memory in its text), `va_arg`, fences.
fn touches_memory_opaquely(inst: Value, call_ids: &HashMap<Value, u32>) -> bool {
    use LLVMOpcode::*;
    match inst.opcode() {
        Some(LLVMCall | LLVMInvoke | LLVMCallBr) => !call_ids.contains_key(&inst),
        Some(LLVMVAArg | LLVMFence) => true,
        _ => false,
    }
}

/// Whether a function of this name is an intrinsic that copies memory (`llvm.memcpy`,
/// `llvm.memmove` in every form: `.p0i8.p0i8.i64`, `.inline`, `.element.unordered.atomic`)
/// or sets it (`llvm.memset`): (copies, sets). All take (destination, source or byte,
/// length, ...). Only the intrinsics: a call to a function named `memcpy` is a call like
/// any other, for with `-fno-builtin` (freestanding code, a C library built with LTO) it
/// may be the program's own `memcpy`, which may do more than copy (clang itself turns
/// calls to the library's `memcpy` into the intrinsic).
fn memory_intrinsic(name: &str) -> (bool, bool) {
    let Some(intrinsic) = name.strip_prefix("llvm.") else {
        return (false, false);
    };
    match intrinsic.split('.').next().unwrap_or(intrinsic) {
        "memcpy" | "memmove" => (true, false),
        "memset" => (false, true),
        _ => (false, false),
    }
}

/// `c` without the constant `getelementptr`s that add nothing (`&str[0]`, how a string
/// literal is named in an initializer).
fn zero_offset_base(c: Value, dl: DataLayout) -> Value {
    let mut v = c;
    for _ in 0..8 {
        if v.is_constant_expr()
            && v.opcode() == Some(LLVMOpcode::LLVMGetElementPtr)
            && v.gep_offset(dl) == Some(0)
        {
            v = v.operands()[0].strip_casts();
        } else {
            break;
        }
    }
    v
}

/// Whether the number `ptrtoint` makes can never become an address again, nor leave the
/// function as one: its uses, through integer arithmetic, phis and selects, end in
/// comparisons (a range check), in a difference of two addresses (an offset: C defines it
/// within one object, and such an offset added to a pointer stays in that pointer's
/// object), or in a small mask or remainder (an alignment test). LLVM's capture tracking
/// draws the same line for comparisons. Anything else (memory, a call, a return,
/// `inttoptr`, or a use chain too long to follow) counts as an escape.
fn address_stays_a_number(ptrtoint: Value) -> bool {
    use LLVMOpcode::*;
    const LIMIT: usize = 64;
    let mut seen: HashSet<Value> = HashSet::new();
    let mut work = vec![ptrtoint];
    while let Some(v) = work.pop() {
        for user in v.users() {
            if !seen.insert(user) {
                continue;
            }
            if seen.len() > LIMIT {
                return false;
            }
            let ops = user.operands();
            let small_constant = |i: usize| {
                ops.get(i)
                    .and_then(|o| o.const_int())
                    .is_some_and(|c| c < 1 << 16)
            };
            match user.opcode() {
                Some(LLVMICmp | LLVMSwitch | LLVMUIToFP | LLVMSIToFP) => {}
                Some(LLVMSub) if is_address_number(ops[0], 4) && is_address_number(ops[1], 4) => {}
                Some(LLVMAnd) if small_constant(0) || small_constant(1) => {}
                Some(LLVMURem) if small_constant(1) => {}
                Some(
                    LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem
                    | LLVMAnd | LLVMOr | LLVMXor | LLVMShl | LLVMLShr | LLVMAShr | LLVMTrunc
                    | LLVMZExt | LLVMSExt | LLVMPHI | LLVMSelect,
                ) => work.push(user),
                _ => return false,
            }
        }
    }
    true
}

/// Whether integer `v` is an address: a `ptrtoint`, or one moved by a constant.
fn is_address_number(v: Value, depth: u32) -> bool {
    use LLVMOpcode::*;
    match v.opcode() {
        Some(LLVMPtrToInt) => true,
        Some(LLVMAdd | LLVMSub) if depth > 0 => {
            let ops = v.operands();
            (is_address_number(ops[0], depth - 1) && ops[1].const_int().is_some())
                || (v.opcode() == Some(LLVMAdd)
                    && ops[0].const_int().is_some()
                    && is_address_number(ops[1], depth - 1))
        }
        _ => false,
    }
}
