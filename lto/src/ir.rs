//! A thin, safe view of the LLVM IR that summaries and the backend need, over the LLVM-C API.
//!
//! inkwell covers modules, passes and code generation but not everything a linker asks of
//! IR (linkage of aliases, constant-expression operands, debug locations of globals), so
//! this module talks to `llvm_sys` directly. It is the only place in rld with LLVM FFI.
//! Every `Value` is only used while the module it belongs to is alive: the callers hold an
//! inkwell `Module` for the duration.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMLinkage, LLVMOpcode, LLVMUnnamedAddr, LLVMVisibility};
use rld_summaries::{
    DebugLoc, DeclaredEffects, GlobalKind, Linkage, MemoryEffects, ParamEffects, Visibility,
};

/// An LLVM value owned by a live module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Value(LLVMValueRef);

fn cstr_to_string(ptr: *const libc_char, len: usize) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returned a pointer to `len` bytes that live as long as the value.
    let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
    String::from_utf8_lossy(bytes).into_owned()
}

#[allow(non_camel_case_types)]
type libc_char = std::ffi::c_char;

/// The module's global variable of this name, if it has one.
pub fn named_global(module: &inkwell::module::Module, name: &str) -> Option<Value> {
    let name = std::ffi::CString::new(name).ok()?;
    // SAFETY: a name lookup in a live module; the name is a valid C string.
    let g = unsafe { LLVMGetNamedGlobal(module.as_mut_ptr(), name.as_ptr()) };
    (!g.is_null()).then_some(Value(g))
}

/// Globals of a module in a fixed order (functions, variables, aliases, ifuncs, then
/// intrinsics): summaries and the backend index globals the same way because both use this.
pub fn module_globals(module: &inkwell::module::Module) -> Vec<Value> {
    let module = module.as_mut_ptr();
    let mut out = Vec::new();
    let mut intrinsics = Vec::new();
    // SAFETY: iterating the global lists of a live module; each call returns the next
    // element or null.
    unsafe {
        let mut f = LLVMGetFirstFunction(module);
        while !f.is_null() {
            if Value(f).is_intrinsic() {
                intrinsics.push(Value(f));
            } else {
                out.push(Value(f));
            }
            f = LLVMGetNextFunction(f);
        }
        let mut g = LLVMGetFirstGlobal(module);
        while !g.is_null() {
            out.push(Value(g));
            g = LLVMGetNextGlobal(g);
        }
        let mut a = LLVMGetFirstGlobalAlias(module);
        while !a.is_null() {
            out.push(Value(a));
            a = LLVMGetNextGlobalAlias(a);
        }
        let mut i = LLVMGetFirstGlobalIFunc(module);
        while !i.is_null() {
            out.push(Value(i));
            i = LLVMGetNextGlobalIFunc(i);
        }
    }
    // Intrinsics last: reading function bodies of older bitcode replaces intrinsic
    // declarations (`llvm.memcpy.p0i8.p0i8.i64` by `llvm.memcpy.p0.p0.i64`, debug
    // intrinsics by records) and may add some, so only the entries before them are the
    // same in a lazily read module and a fully read one (its summary).
    out.extend(intrinsics);
    out
}

impl Value {
    /// Wraps a value obtained from LLVM-C inside this crate.
    pub(crate) fn from_raw(v: LLVMValueRef) -> Value {
        Value(v)
    }

    pub(crate) fn raw(self) -> LLVMValueRef {
        self.0
    }

    pub fn name(self) -> String {
        let mut len = 0usize;
        // SAFETY: `self` is a live value; LLVM returns its name and length.
        let ptr = unsafe { LLVMGetValueName2(self.0, &mut len) };
        cstr_to_string(ptr, len)
    }

    pub fn global_kind(self) -> Option<GlobalKind> {
        // SAFETY: LLVMIsA* only inspect the value's class.
        unsafe {
            if !LLVMIsAFunction(self.0).is_null() {
                Some(GlobalKind::Function)
            } else if !LLVMIsAGlobalVariable(self.0).is_null() {
                Some(GlobalKind::Variable)
            } else if !LLVMIsAGlobalAlias(self.0).is_null() {
                Some(GlobalKind::Alias)
            } else if !LLVMIsAGlobalIFunc(self.0).is_null() {
                Some(GlobalKind::IFunc)
            } else {
                None
            }
        }
    }

    pub fn is_global_value(self) -> bool {
        // SAFETY: class check on a live value.
        unsafe { !LLVMIsAGlobalValue(self.0).is_null() }
    }

    pub fn is_function(self) -> bool {
        // SAFETY: class check on a live value.
        unsafe { !LLVMIsAFunction(self.0).is_null() }
    }

    pub fn is_constant(self) -> bool {
        // SAFETY: class check on a live value.
        unsafe { !LLVMIsAConstant(self.0).is_null() }
    }

    /// Constant numbers, zeroes, undef and arrays/vectors of plain numbers: constants that
    /// hold no address.
    pub fn is_constant_data(self) -> bool {
        // SAFETY: class check on a live value.
        unsafe {
            !LLVMIsAConstantInt(self.0).is_null()
                || !LLVMIsAConstantFP(self.0).is_null()
                || !LLVMIsAConstantAggregateZero(self.0).is_null()
                || !LLVMIsAConstantDataSequential(self.0).is_null()
                || !LLVMIsAConstantPointerNull(self.0).is_null()
                || !LLVMIsAUndefValue(self.0).is_null()
        }
    }

    pub fn is_block_address(self) -> bool {
        // SAFETY: class check on a live value.
        unsafe { !LLVMIsABlockAddress(self.0).is_null() }
    }

    /// For a `blockaddress`: the function whose block it is (not one of its operands since
    /// LLVM 17, which keeps only the block).
    pub fn block_address_function(self) -> Option<Value> {
        if !self.is_block_address() {
            return None;
        }
        // SAFETY: `self` is a BlockAddress constant of a live module.
        let f = unsafe { LLVMGetBlockAddressFunction(self.0) };
        (!f.is_null()).then_some(Value(f))
    }

    pub fn is_constant_expr(self) -> bool {
        // SAFETY: class check on a live value.
        unsafe { !LLVMIsAConstantExpr(self.0).is_null() }
    }

    pub fn linkage(self) -> Linkage {
        // SAFETY: `self` is a global value (callers only ask globals).
        match unsafe { LLVMGetLinkage(self.0) } {
            LLVMLinkage::LLVMAvailableExternallyLinkage => Linkage::AvailableExternally,
            LLVMLinkage::LLVMLinkOnceAnyLinkage => Linkage::LinkOnceAny,
            LLVMLinkage::LLVMLinkOnceODRLinkage => Linkage::LinkOnceODR,
            LLVMLinkage::LLVMWeakAnyLinkage => Linkage::WeakAny,
            LLVMLinkage::LLVMWeakODRLinkage => Linkage::WeakODR,
            LLVMLinkage::LLVMAppendingLinkage => Linkage::Appending,
            LLVMLinkage::LLVMInternalLinkage => Linkage::Internal,
            LLVMLinkage::LLVMPrivateLinkage => Linkage::Private,
            LLVMLinkage::LLVMExternalWeakLinkage => Linkage::ExternalWeak,
            LLVMLinkage::LLVMCommonLinkage => Linkage::Common,
            _ => Linkage::External,
        }
    }

    pub fn set_linkage(self, linkage: Linkage) {
        let l = match linkage {
            Linkage::External => LLVMLinkage::LLVMExternalLinkage,
            Linkage::AvailableExternally => LLVMLinkage::LLVMAvailableExternallyLinkage,
            Linkage::LinkOnceAny => LLVMLinkage::LLVMLinkOnceAnyLinkage,
            Linkage::LinkOnceODR => LLVMLinkage::LLVMLinkOnceODRLinkage,
            Linkage::WeakAny => LLVMLinkage::LLVMWeakAnyLinkage,
            Linkage::WeakODR => LLVMLinkage::LLVMWeakODRLinkage,
            Linkage::Appending => LLVMLinkage::LLVMAppendingLinkage,
            Linkage::Internal => LLVMLinkage::LLVMInternalLinkage,
            Linkage::Private => LLVMLinkage::LLVMPrivateLinkage,
            Linkage::ExternalWeak => LLVMLinkage::LLVMExternalWeakLinkage,
            Linkage::Common => LLVMLinkage::LLVMCommonLinkage,
        };
        // SAFETY: `self` is a global value of a live module.
        unsafe { LLVMSetLinkage(self.0, l) }
    }

    pub fn visibility(self) -> Visibility {
        // SAFETY: `self` is a global value.
        match unsafe { LLVMGetVisibility(self.0) } {
            LLVMVisibility::LLVMHiddenVisibility => Visibility::Hidden,
            LLVMVisibility::LLVMProtectedVisibility => Visibility::Protected,
            LLVMVisibility::LLVMDefaultVisibility => Visibility::Default,
        }
    }

    pub fn set_default_visibility(self) {
        // SAFETY: `self` is a global value.
        unsafe { LLVMSetVisibility(self.0, LLVMVisibility::LLVMDefaultVisibility) }
    }

    /// Hidden visibility (which also makes the global dso_local).
    pub fn set_hidden_visibility(self) {
        // SAFETY: `self` is a global value.
        unsafe { LLVMSetVisibility(self.0, LLVMVisibility::LLVMHiddenVisibility) }
    }

    pub fn is_declaration(self) -> bool {
        // SAFETY: `self` is a global value.
        unsafe { LLVMIsDeclaration(self.0) != 0 }
    }

    pub fn is_thread_local(self) -> bool {
        // SAFETY: only asked of global variables.
        LLVMIsAGlobalVariableSafe(self) && unsafe { LLVMIsThreadLocal(self.0) != 0 }
    }

    pub fn is_global_constant(self) -> bool {
        // SAFETY: only asked of global variables.
        LLVMIsAGlobalVariableSafe(self) && unsafe { LLVMIsGlobalConstant(self.0) != 0 }
    }

    pub fn section(self) -> Option<String> {
        // SAFETY: `self` is a global value; the result is a NUL-terminated string or null.
        let ptr = unsafe { LLVMGetSection(self.0) };
        if ptr.is_null() {
            return None;
        }
        // SAFETY: non-null, NUL-terminated, owned by the value.
        let s = unsafe { std::ffi::CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned();
        (!s.is_empty()).then_some(s)
    }

    pub fn set_section(self, name: &str) {
        let Ok(c) = std::ffi::CString::new(name) else {
            return;
        };
        // SAFETY: `self` is a global object; LLVM copies the name.
        unsafe { LLVMSetSection(self.0, c.as_ptr()) }
    }

    pub fn has_unnamed_addr(self) -> bool {
        // SAFETY: `self` is a global value.
        unsafe { LLVMGetUnnamedAddress(self.0) != LLVMUnnamedAddr::LLVMNoUnnamedAddr }
    }

    /// `unnamed_addr` itself, not `local_unnamed_addr`.
    pub fn has_global_unnamed_addr(self) -> bool {
        // SAFETY: `self` is a global value.
        unsafe { LLVMGetUnnamedAddress(self.0) == LLVMUnnamedAddr::LLVMGlobalUnnamedAddr }
    }

    pub fn initializer(self) -> Option<Value> {
        if !LLVMIsAGlobalVariableSafe(self) {
            return None;
        }
        // SAFETY: `self` is a global variable.
        let init = unsafe { LLVMGetInitializer(self.0) };
        (!init.is_null()).then_some(Value(init))
    }

    pub fn aliasee(self) -> Option<Value> {
        // SAFETY: class check, then the aliasee of an alias.
        unsafe {
            if LLVMIsAGlobalAlias(self.0).is_null() {
                return None;
            }
            let a = LLVMAliasGetAliasee(self.0);
            (!a.is_null()).then_some(Value(a))
        }
    }

    pub fn operands(self) -> Vec<Value> {
        // SAFETY: user values have `n` operands; metadata operands are skipped by LLVM-C.
        unsafe {
            if LLVMIsAUser(self.0).is_null() {
                return Vec::new();
            }
            let n = LLVMGetNumOperands(self.0);
            (0..n.max(0) as u32)
                .map(|i| LLVMGetOperand(self.0, i))
                .filter(|v| !v.is_null())
                .map(Value)
                .collect()
        }
    }

    /// Strips bitcasts and address-space casts of constants (`bitcast (@f to i8*)`).
    pub fn strip_casts(self) -> Value {
        let mut v = self;
        for _ in 0..8 {
            if !v.is_constant_expr() {
                break;
            }
            // SAFETY: `v` is a constant expression.
            let op = unsafe { LLVMGetConstOpcode(v.0) };
            if matches!(op, LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast) {
                v = v.operands()[0];
            } else {
                break;
            }
        }
        v
    }

    /// Instructions of a function, in order.
    pub fn instructions(self) -> Vec<Value> {
        let mut out = Vec::new();
        // SAFETY: walking the basic blocks and instructions of a live function.
        unsafe {
            let mut bb = LLVMGetFirstBasicBlock(self.0);
            while !bb.is_null() {
                let mut i = LLVMGetFirstInstruction(bb);
                while !i.is_null() {
                    out.push(Value(i));
                    i = LLVMGetNextInstruction(i);
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
        }
        out
    }

    /// The values using this one (instructions or constants), once per use.
    pub fn users(self) -> Vec<Value> {
        let mut out = Vec::new();
        // SAFETY: walking the use list of a live value.
        unsafe {
            let mut u = LLVMGetFirstUse(self.0);
            while !u.is_null() {
                out.push(Value(LLVMGetUser(u)));
                u = LLVMGetNextUse(u);
            }
        }
        out
    }

    /// For a call or invoke: the called operand.
    pub fn called_value(self) -> Option<Value> {
        // SAFETY: class checks, then the callee of a call-like instruction.
        unsafe {
            if LLVMIsACallInst(self.0).is_null() && LLVMIsAInvokeInst(self.0).is_null() {
                return None;
            }
            Some(Value(LLVMGetCalledValue(self.0)))
        }
    }

    pub fn is_inline_asm(self) -> bool {
        // SAFETY: class check.
        unsafe { !LLVMIsAInlineAsm(self.0).is_null() }
    }

    /// Source location: a function's DISubprogram, a global variable's debug info, or an
    /// instruction's !dbg; None without debug info.
    pub fn debug_loc(self) -> Option<DebugLoc> {
        // SAFETY: LLVM-C accepts instructions, functions and global variables here and
        // returns 0/null when there is no location.
        unsafe {
            let mut len = 0u32;
            let file = LLVMGetDebugLocFilename(self.0, &mut len);
            if file.is_null() || len == 0 {
                return None;
            }
            let file = cstr_to_string(file, len as usize);
            let line = LLVMGetDebugLocLine(self.0);
            let column = if LLVMIsAInstruction(self.0).is_null() {
                0
            } else {
                LLVMGetDebugLocColumn(self.0)
            };
            Some(DebugLoc { file, line, column })
        }
    }

    /// Integer value of a ConstantInt (priorities in llvm.global_ctors).
    pub fn const_int(self) -> Option<u64> {
        // SAFETY: class check, then the value of a ConstantInt.
        unsafe {
            if LLVMIsAConstantInt(self.0).is_null() {
                return None;
            }
            Some(LLVMConstIntGetZExtValue(self.0))
        }
    }

    /// Takes a global object out of its COMDAT (declarations may not be in one).
    pub fn clear_comdat(self) {
        // SAFETY: a null comdat removes the global from its group.
        unsafe { inkwell::llvm_sys::comdat::LLVMSetComdat(self.0, std::ptr::null_mut()) }
    }

    pub fn set_name(self, name: &str) {
        // SAFETY: renaming a global of a live module; LLVM copies the bytes.
        unsafe { LLVMSetValueName2(self.0, name.as_ptr() as *const _, name.len()) }
    }

    /// Erases a global variable nothing uses (`llvm.global_ctors` and friends).
    pub fn delete_global_variable(self) {
        // SAFETY: `self` is a global variable of a live module without uses (callers only
        // erase the `llvm.*` variables, which no instruction refers to); it is not used
        // afterwards.
        unsafe { inkwell::llvm_sys::core::LLVMDeleteGlobal(self.0) }
    }

    /// Rewrites a structor list (`llvm.global_ctors`/`llvm.global_dtors`, an appending
    /// array of `{ priority, function, key }`): keeps the entries whose function `keep`
    /// accepts, without their keys unless `keep_keys`, and erases the list when none is left
    /// (then returns false).
    ///
    /// The key ties an entry to its variable's COMDAT group, so that a native link drops
    /// the entry with a discarded group. Between partitions the groups are decided already
    /// (the entries of discarded ones are not kept), and LLVM's module linker drops an entry
    /// whose key is a declaration in its module, which is also what a variable another
    /// partition owns is: without the key, a constructor runs whichever partition holds its
    /// list. One partition (a `-r` output, which later links may combine with other copies
    /// of the groups) keeps them.
    pub fn rewrite_structors(self, keep: impl Fn(Value) -> bool, keep_keys: bool) -> bool {
        let Some(init) = self.initializer() else {
            return true;
        };
        let entries = init.operands();
        // SAFETY: type queries, constant construction and global creation on the live
        // module that holds `self`; the old list is an `llvm.*` variable no instruction
        // uses, erased after its replacement took its name.
        unsafe {
            let array_ty = LLVMTypeOf(init.0);
            let entry_ty = LLVMGetElementType(array_ty);
            if LLVMCountStructElementTypes(entry_ty) != 3 {
                return true;
            }
            let key_ty = LLVMStructGetTypeAtIndex(entry_ty, 2);
            let mut kept: Vec<LLVMValueRef> = Vec::new();
            for e in &entries {
                let fields = e.operands();
                let (Some(&priority), Some(&function)) = (fields.first(), fields.get(1)) else {
                    continue;
                };
                if !keep(function.strip_casts()) {
                    continue;
                }
                let key = match fields.get(2) {
                    Some(k) if keep_keys => k.0,
                    _ => LLVMConstNull(key_ty),
                };
                let mut values = [priority.0, function.0, key];
                kept.push(LLVMConstNamedStruct(entry_ty, values.as_mut_ptr(), 3));
            }
            let keyless = |e: &Value| e.operands().get(2).is_some_and(|k| LLVMIsNull(k.0) != 0);
            let unchanged =
                kept.len() == entries.len() && (keep_keys || entries.iter().all(keyless));
            if unchanged {
                return true;
            }
            let name = self.name();
            if kept.is_empty() {
                LLVMDeleteGlobal(self.0);
                return false;
            }
            let module = LLVMGetGlobalParent(self.0);
            let new_ty = LLVMArrayType2(entry_ty, kept.len() as u64);
            let list = LLVMAddGlobal(module, new_ty, c"rld.structors".as_ptr());
            LLVMSetLinkage(list, LLVMLinkage::LLVMAppendingLinkage);
            LLVMSetInitializer(
                list,
                LLVMConstArray2(entry_ty, kept.as_mut_ptr(), kept.len() as u64),
            );
            LLVMDeleteGlobal(self.0);
            Value(list).set_name(&name);
            true
        }
    }

    /// Turns a global variable definition into a declaration.
    pub fn remove_initializer(self) {
        // SAFETY: a null initializer makes the variable a declaration.
        unsafe { LLVMSetInitializer(self.0, std::ptr::null_mut()) }
    }
}

/// The module's data layout, for field offsets and type sizes.
#[derive(Clone, Copy)]
pub struct DataLayout(inkwell::llvm_sys::target::LLVMTargetDataRef);

impl DataLayout {
    pub fn of_module(module: &inkwell::module::Module) -> DataLayout {
        // SAFETY: the layout is owned by the module and lives as long as it.
        DataLayout(unsafe {
            inkwell::llvm_sys::target::LLVMGetModuleDataLayout(module.as_mut_ptr())
        })
    }

    fn size_of(self, ty: LLVMTypeRef) -> u64 {
        // SAFETY: a sized type of the same context.
        unsafe { inkwell::llvm_sys::target::LLVMABISizeOfType(self.0, ty) }
    }

    fn field_offset(self, struct_ty: LLVMTypeRef, field: u32) -> u64 {
        // SAFETY: `field` is a valid element index of the struct type (callers check).
        unsafe { inkwell::llvm_sys::target::LLVMOffsetOfElement(self.0, struct_ty, field) }
    }
}

impl Value {
    pub fn opcode(self) -> Option<LLVMOpcode> {
        // SAFETY: class checks, then the opcode of an instruction or constant expression.
        unsafe {
            if !LLVMIsAInstruction(self.0).is_null() {
                Some(LLVMGetInstructionOpcode(self.0))
            } else if !LLVMIsAConstantExpr(self.0).is_null() {
                Some(LLVMGetConstOpcode(self.0))
            } else {
                None
            }
        }
    }

    fn type_ref(self) -> LLVMTypeRef {
        // SAFETY: every value has a type.
        unsafe { LLVMTypeOf(self.0) }
    }

    /// Size in bytes of this value's type.
    pub fn type_size(self, dl: DataLayout) -> u64 {
        dl.size_of(self.type_ref())
    }

    /// Offset of field `field` of this struct constant.
    pub fn struct_field_offset(self, dl: DataLayout, field: u32) -> u64 {
        dl.field_offset(self.type_ref(), field)
    }

    pub fn is_pointer(self) -> bool {
        // SAFETY: inspecting a type of a live value.
        unsafe {
            LLVMGetTypeKind(LLVMTypeOf(self.0))
                == inkwell::llvm_sys::LLVMTypeKind::LLVMPointerTypeKind
        }
    }

    /// Whether the value is an integer at least as wide as a pointer: such loads and stores
    /// may move pointers (struct copies lowered to integer moves).
    pub fn is_pointer_sized_int(self) -> bool {
        // SAFETY: inspecting a type of a live value.
        unsafe {
            let ty = LLVMTypeOf(self.0);
            LLVMGetTypeKind(ty) == inkwell::llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind
                && LLVMGetIntTypeWidth(ty) >= 64
        }
    }

    /// Whether a store of this value may overwrite (part of) a pointer in memory: vectors,
    /// aggregates and single bytes (byte-wise copies) may; 16- and 32-bit integers and
    /// floating-point values may not, as C's effective-type rules forbid it (LLVM's
    /// type-based alias analysis assumes the same).
    pub fn may_overwrite_pointers(self) -> bool {
        use inkwell::llvm_sys::LLVMTypeKind::*;
        // SAFETY: inspecting a type of a live value.
        unsafe {
            let ty = LLVMTypeOf(self.0);
            match LLVMGetTypeKind(ty) {
                LLVMIntegerTypeKind => LLVMGetIntTypeWidth(ty) <= 8,
                LLVMVectorTypeKind
                | LLVMScalableVectorTypeKind
                | LLVMStructTypeKind
                | LLVMArrayTypeKind => true,
                _ => false,
            }
        }
    }

    pub fn params(self) -> Vec<Value> {
        // SAFETY: `self` is a function; parameters 0..count exist.
        unsafe {
            (0..LLVMCountParams(self.0))
                .map(|i| Value(LLVMGetParam(self.0, i)))
                .collect()
        }
    }

    /// Arguments of a call or invoke (without the callee and invoke destinations).
    pub fn call_args(self) -> Vec<Value> {
        // SAFETY: `self` is a call-like instruction; its first N operands are the arguments.
        unsafe {
            let n = LLVMGetNumArgOperands(self.0);
            (0..n).map(|i| Value(LLVMGetOperand(self.0, i))).collect()
        }
    }

    pub fn incoming(self) -> Vec<Value> {
        // SAFETY: `self` is a phi node.
        unsafe {
            (0..LLVMCountIncoming(self.0))
                .map(|i| Value(LLVMGetIncomingValue(self.0, i)))
                .collect()
        }
    }

    pub fn is_struct_constant(self) -> bool {
        // SAFETY: class check.
        unsafe { !LLVMIsAConstantStruct(self.0).is_null() }
    }

    pub fn is_array_constant(self) -> bool {
        // SAFETY: class checks.
        unsafe {
            !LLVMIsAConstantArray(self.0).is_null() || !LLVMIsAConstantVector(self.0).is_null()
        }
    }

    /// Byte offset a getelementptr (instruction or constant) adds to its base, if every
    /// index is a constant.
    pub fn gep_offset(self, dl: DataLayout) -> Option<i64> {
        self.gep_walk(dl)?.offset
    }

    /// Where a GEP points relative to its base: somewhere within an array the indices
    /// select an element of (array elements are one place to the points-to analysis,
    /// whether indexed by a constant or at run time), else a constant offset; None when
    /// neither is known (a run-time index of the pointer itself, a flexible array member).
    pub fn gep_place(self, dl: DataLayout) -> Option<GepPlace> {
        match self.gep_walk(dl)? {
            GepWalk {
                array: Some((start, len)),
                ..
            } if len > 0 => Some(GepPlace::Within { start, len }),
            GepWalk {
                offset: Some(offset),
                ..
            } => Some(GepPlace::At(offset)),
            _ => None,
        }
    }

    /// The GEP's constant offset (None: a run-time index) and the first array its indices
    /// enter (start, bytes), following the indices through the types.
    fn gep_walk(self, dl: DataLayout) -> Option<GepWalk> {
        use inkwell::llvm_sys::LLVMTypeKind::*;
        let ops = self.operands();
        // SAFETY: `self` is a GEP (callers check the opcode); the type walk follows its
        // indices, each checked to be a constant integer within the type's bounds.
        unsafe {
            let mut ty = inkwell::llvm_sys::core::LLVMGetGEPSourceElementType(self.0);
            let mut offset: i64 = 0;
            let mut array: Option<(i64, u64)> = None;
            for (n, idx) in ops.iter().skip(1).enumerate() {
                let kind = LLVMGetTypeKind(ty);
                if n > 0
                    && array.is_none()
                    && matches!(kind, LLVMArrayTypeKind | LLVMVectorTypeKind)
                {
                    let count = match kind {
                        LLVMArrayTypeKind => LLVMGetArrayLength2(ty),
                        _ => u64::from(LLVMGetVectorSize(ty)),
                    };
                    let len = count.checked_mul(dl.size_of(LLVMGetElementType(ty)))?;
                    array = Some((offset, len));
                }
                if LLVMIsAConstantInt(idx.0).is_null() {
                    // The remaining indices stay inside the array's element.
                    return (n > 0 && array.is_some()).then_some(GepWalk {
                        offset: None,
                        array,
                    });
                }
                let i = LLVMConstIntGetSExtValue(idx.0);
                if n == 0 {
                    offset = offset.checked_add(i.checked_mul(dl.size_of(ty) as i64)?)?;
                    continue;
                }
                match kind {
                    LLVMStructTypeKind => {
                        let field = u32::try_from(i).ok()?;
                        if field >= LLVMCountStructElementTypes(ty) {
                            return None;
                        }
                        offset = offset.checked_add(dl.field_offset(ty, field) as i64)?;
                        ty = LLVMStructGetTypeAtIndex(ty, field);
                    }
                    LLVMArrayTypeKind | LLVMVectorTypeKind => {
                        let elem = LLVMGetElementType(ty);
                        offset = offset.checked_add(i.checked_mul(dl.size_of(elem) as i64)?)?;
                        ty = elem;
                    }
                    _ => return None,
                }
            }
            Some(GepWalk {
                offset: Some(offset),
                array,
            })
        }
    }
}

impl Value {
    /// For a pointer to a struct: the arrays in the struct (byte offset, bytes), those of
    /// nested structs included; at most 16. The points-to analysis makes each one location
    /// of the object the pointer points to before any element is used.
    ///
    /// Pointers carry no pointee type (LLVM 15 on, and older bitcode is upgraded on
    /// read): the struct is an alloca's allocated type, else the one source element type
    /// of the GEPs that index into the pointer, when they agree on one struct.
    pub fn pointee_arrays(self, dl: DataLayout) -> Vec<(i64, u64)> {
        let mut out = Vec::new();
        if let Some(ty) = self.pointee_struct() {
            // SAFETY: `ty` is a live struct type of this value's module.
            unsafe { struct_arrays(dl, ty, 0, &mut out, 0) };
        }
        out
    }

    /// See [`Value::pointee_arrays`].
    fn pointee_struct(self) -> Option<LLVMTypeRef> {
        use inkwell::llvm_sys::LLVMTypeKind::LLVMStructTypeKind;
        // SAFETY: class checks and type queries on live values.
        unsafe {
            if !LLVMIsAAllocaInst(self.0).is_null() {
                let ty = LLVMGetAllocatedType(self.0);
                return (LLVMGetTypeKind(ty) == LLVMStructTypeKind).then_some(ty);
            }
            let mut found: Option<LLVMTypeRef> = None;
            for user in self.users() {
                if LLVMIsAGetElementPtrInst(user.0).is_null() || LLVMGetOperand(user.0, 0) != self.0
                {
                    continue;
                }
                let ty = inkwell::llvm_sys::core::LLVMGetGEPSourceElementType(user.0);
                if LLVMGetTypeKind(ty) != LLVMStructTypeKind {
                    continue;
                }
                match found {
                    None => found = Some(ty),
                    Some(other) if other == ty => {}
                    Some(_) => return None,
                }
            }
            found
        }
    }
}

/// See [`Value::pointee_arrays`].
unsafe fn struct_arrays(
    dl: DataLayout,
    ty: LLVMTypeRef,
    base: i64,
    out: &mut Vec<(i64, u64)>,
    depth: u32,
) {
    use inkwell::llvm_sys::LLVMTypeKind::*;
    if depth > 4 || LLVMGetTypeKind(ty) != LLVMStructTypeKind || LLVMIsOpaqueStruct(ty) != 0 {
        return;
    }
    for i in 0..LLVMCountStructElementTypes(ty) {
        if out.len() >= 16 {
            return;
        }
        let field = LLVMStructGetTypeAtIndex(ty, i);
        let at = base + dl.field_offset(ty, i) as i64;
        match LLVMGetTypeKind(field) {
            LLVMArrayTypeKind => {
                let len = LLVMGetArrayLength2(field) * dl.size_of(LLVMGetElementType(field));
                if len > 0 {
                    out.push((at, len));
                }
            }
            LLVMStructTypeKind => struct_arrays(dl, field, at, out, depth + 1),
            _ => {}
        }
    }
}

/// What [`Value::gep_walk`] learns: the constant offset, and the first array entered.
struct GepWalk {
    offset: Option<i64>,
    array: Option<(i64, u64)>,
}

/// See [`Value::gep_place`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GepPlace {
    At(i64),
    Within { start: i64, len: u64 },
}

impl Value {
    /// Whether this is an intrinsic function (`llvm.*`), which is only ever declared.
    pub fn is_intrinsic(self) -> bool {
        let mut len = 0usize;
        // SAFETY: `self` is a live value; LLVM returns its name and length, valid while
        // the name is unchanged.
        let name = unsafe {
            let ptr = LLVMGetValueName2(self.0, &mut len);
            if ptr.is_null() {
                return false;
            }
            std::slice::from_raw_parts(ptr.cast::<u8>(), len)
        };
        self.is_function() && name.starts_with(b"llvm.")
    }

    /// LLVM's opcode number of an instruction (for [`rld_summaries::FunctionShape`]).
    pub fn opcode_number(self) -> u32 {
        self.opcode().map_or(0, |op| op as u32)
    }

    /// For an `alloca`: the bytes it allocates, when the element count is a constant.
    pub fn alloca_size(self, dl: DataLayout) -> Option<u64> {
        let count = self.operands().first().copied()?.const_int()?;
        // SAFETY: `self` is an alloca (callers check the opcode).
        let ty = unsafe { LLVMGetAllocatedType(self.0) };
        dl.size_of(ty).checked_mul(count)
    }

    /// What LLVM's attributes on this function declaration (global number `index`) say it
    /// may do to memory, or None where they say nothing: `memory(...)` on the function
    /// (bitcode of LLVM 15 and older is upgraded on read from `readnone`, `argmemonly`,
    /// ...), `captures(...)`, `readonly`, `writeonly`, `readnone` and `returned` on its
    /// parameters.
    pub fn declared_effects(self, index: u32) -> Option<DeclaredEffects> {
        use inkwell::llvm_sys::LLVMAttributeFunctionIndex as FUNCTION;
        use MemoryEffects as M;
        let int_attribute = |at: u32, name: &str| self.enum_attribute(at, name);
        let has = |at: u32, name: &str| int_attribute(at, name).is_some();
        let memory = int_attribute(FUNCTION, "memory")
            .map_or(M::ANY, |bits| crate::llvm_memory::effects(bits as u32));
        // SAFETY: counting a live function's parameters.
        let count = unsafe { LLVMCountParams(self.0) };
        let params: Vec<ParamEffects> = (1..=count)
            .map(|at| {
                let mut p = 0;
                if int_attribute(at, "captures")
                    .is_some_and(|bits| !crate::llvm_memory::captures_provenance(bits as u32))
                {
                    p |= ParamEffects::NOCAPTURE;
                }
                for (name, bit) in [
                    ("readonly", ParamEffects::READONLY),
                    ("writeonly", ParamEffects::WRITEONLY),
                    ("readnone", ParamEffects::READNONE),
                    ("returned", ParamEffects::RETURNED),
                ] {
                    if has(at, name) {
                        p |= bit;
                    }
                }
                ParamEffects(p)
            })
            .collect();
        let d = DeclaredEffects {
            function: index,
            memory,
            nofree: has(FUNCTION, "nofree"),
            params,
        };
        let says_something = d.memory != M::ANY || d.nofree || d.params.iter().any(|p| p.0 != 0);
        says_something.then_some(d)
    }

    /// The value of this function's enum attribute `name` at attribute index `at` (0 for
    /// one without a value), if it has it.
    fn enum_attribute(self, at: u32, name: &str) -> Option<u64> {
        // SAFETY: attribute queries on a live function; the kind name is a valid pointer
        // and length.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
            if kind == 0 {
                return None;
            }
            let attr = LLVMGetEnumAttributeAtIndex(self.0, at, kind);
            (!attr.is_null()).then(|| LLVMGetEnumAttributeValue(attr))
        }
    }

    /// The positions of a call's arguments passed by value in memory (`byval`).
    pub fn byval_arguments(self) -> Vec<u32> {
        let name = "byval";
        // SAFETY: attribute queries on a live call instruction; the kind name is a valid
        // pointer and length.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
            let args = LLVMGetNumArgOperands(self.0);
            (0..args)
                .filter(|&i| {
                    kind != 0 && !LLVMGetCallSiteEnumAttribute(self.0, i + 1, kind).is_null()
                })
                .collect()
        }
    }

    /// Whether a function returns fresh memory as far as LLVM's attributes say: a `noalias`
    /// return, or `allocsize` (allocators and the wrappers clang recognized).
    pub fn returns_noalias(self) -> bool {
        let has = |index: u32, name: &str| self.enum_attribute(index, name).is_some();
        has(inkwell::llvm_sys::LLVMAttributeReturnIndex, "noalias")
            || has(inkwell::llvm_sys::LLVMAttributeFunctionIndex, "allocsize")
    }
}

#[allow(non_snake_case)]
fn LLVMIsAGlobalVariableSafe(v: Value) -> bool {
    // SAFETY: class check on a live value.
    unsafe { !LLVMIsAGlobalVariable(v.0).is_null() }
}

/// The id of metadata kind `name` (`!callees`, `!alias.scope`, ...), registered if new.
pub(crate) fn md_kind(ctx: LLVMContextRef, name: &str) -> u32 {
    // SAFETY: registering/looking up a metadata kind name in a live context.
    unsafe { LLVMGetMDKindIDInContext(ctx, name.as_ptr() as *const _, name.len() as u32) }
}

/// An `MDString` of `s`.
pub(crate) fn md_string(ctx: LLVMContextRef, s: &str) -> LLVMMetadataRef {
    // SAFETY: the context is live; LLVM copies the bytes.
    unsafe { LLVMMDStringInContext2(ctx, s.as_ptr() as *const _, s.len()) }
}

/// A (uniqued) metadata tuple of `members`.
pub(crate) fn md_node(ctx: LLVMContextRef, members: &[LLVMMetadataRef]) -> LLVMMetadataRef {
    let mut members = members.to_vec();
    // SAFETY: the members are metadata of this context; LLVM copies the array.
    unsafe { LLVMMDNodeInContext2(ctx, members.as_mut_ptr(), members.len()) }
}
