//! Summaries shared by the unit tests of several modules.

use crate::index::{CombinedIndex, Resolutions};
use crate::model::*;

pub(crate) fn loc(file: &str, line: u32, column: u32) -> DebugLoc {
    DebugLoc {
        file: file.to_string(),
        line,
        column,
    }
}

pub(crate) fn global(name: &str, kind: GlobalKind, linkage: Linkage) -> GlobalSummary {
    GlobalSummary {
        name: name.to_string(),
        kind,
        linkage,
        visibility: Visibility::Default,
        flags: GlobalFlags::default(),
        section: None,
        comdat: None,
        refs: vec![],
        calls: vec![],
        aliasee: None,
        debug_loc: None,
    }
}

/// A summary that uses every field, every enum variant and every fact kind.
pub(crate) fn full_summary() -> ModuleSummary {
    let mut main = global("main", GlobalKind::Function, Linkage::External);
    main.flags.insert(GlobalFlags::DSO_LOCAL);
    main.calls = vec![1, 4];
    main.refs = vec![2];
    main.debug_loc = Some(loc("dir/tu1.c", 3, 0));
    let mut helper = global("helper", GlobalKind::Function, Linkage::LinkOnceODR);
    helper.visibility = Visibility::Hidden;
    helper.comdat = Some("helper".to_string());
    helper
        .flags
        .insert(GlobalFlags::IN_COMDAT | GlobalFlags::UNNAMED_ADDR | GlobalFlags::CAN_OMIT);
    let mut table = global("table", GlobalKind::Variable, Linkage::Internal);
    table
        .flags
        .insert(GlobalFlags::CONSTANT | GlobalFlags::EXPLICIT_SECTION);
    table.section = Some(".data.rel.ro.tables".to_string());
    table.refs = vec![1, 4];
    let mut alias = global("alias_of_helper", GlobalKind::Alias, Linkage::WeakODR);
    alias.visibility = Visibility::Protected;
    alias.aliasee = Some(1);
    let mut ext = global("ext", GlobalKind::Function, Linkage::External);
    ext.flags.insert(GlobalFlags::DECLARATION);
    let mut resolver = global("resolve_memcpy", GlobalKind::Function, Linkage::Private);
    resolver
        .flags
        .insert(GlobalFlags::USED | GlobalFlags::COMPILER_USED);
    let mut ifunc = global("memcpy_ifunc", GlobalKind::IFunc, Linkage::WeakAny);
    ifunc.aliasee = Some(5);
    let mut others = vec![];
    for (i, linkage) in [
        Linkage::AvailableExternally,
        Linkage::LinkOnceAny,
        Linkage::Appending,
        Linkage::ExternalWeak,
        Linkage::Common,
    ]
    .into_iter()
    .enumerate()
    {
        let mut g = global(&format!("v{i}_ünïcode"), GlobalKind::Variable, linkage);
        g.flags
            .insert(GlobalFlags::THREAD_LOCAL | GlobalFlags::ADDRESS_TAKEN);
        others.push(g);
    }
    let mut globals = vec![main, helper, table, alias, ext, resolver, ifunc];
    globals.extend(others);
    ModuleSummary {
        module_id: "libfoo.a(tu1.o)".to_string(),
        source_file: "/src/tu1.c".to_string(),
        globals,
        ctors: vec![Structor {
            priority: 65535,
            function: 0,
        }],
        dtors: vec![Structor {
            priority: 101,
            function: 1,
        }],
        call_sites: vec![
            CallSite {
                id: 0,
                caller: 0,
                instruction: 2,
                callee: Callee::Direct(1),
                debug_loc: Some(loc("dir/tu1.c", 4, 12)),
                byval: vec![1, 3],
            },
            CallSite {
                id: 1,
                caller: 0,
                instruction: 5,
                callee: Callee::Indirect(7),
                debug_loc: None,
                byval: Vec::new(),
            },
        ],
        initializers: vec![
            InitializerPointer {
                global: 2,
                offset: 0,
                target: 1,
            },
            InitializerPointer {
                global: 2,
                offset: u64::MAX,
                target: 4,
            },
        ],
        facts: vec![
            ValueFact::AddressOf { dst: 0, global: 2 },
            ValueFact::Copy { dst: 1, src: 0 },
            ValueFact::FieldAddr {
                dst: 2,
                base: 1,
                offset: Some(-8),
            },
            ValueFact::FieldAddr {
                dst: 3,
                base: 1,
                offset: None,
            },
            ValueFact::FieldAddr {
                dst: 3,
                base: 1,
                offset: Some(i64::MIN),
            },
            ValueFact::FieldAddr {
                dst: 3,
                base: 1,
                offset: Some(i64::MAX),
            },
            ValueFact::Load { dst: 7, ptr: 2 },
            ValueFact::Store { ptr: 2, value: 3 },
            ValueFact::Argument {
                function: 0,
                index: 1,
                dst: 4,
            },
            ValueFact::CallArgument {
                call: 1,
                index: 0,
                value: 4,
            },
            ValueFact::CallResult { call: 0, dst: 5 },
            ValueFact::Return {
                function: 0,
                value: 5,
            },
            ValueFact::Escape { value: 6 },
            ValueFact::StackObject {
                dst: 6,
                size: Some(16),
                function: 0,
            },
            ValueFact::StackObject {
                dst: 7,
                size: None,
                function: 1,
            },
            ValueFact::ArrayElement {
                dst: 7,
                base: 2,
                start: -4,
                len: u64::MAX,
            },
        ],
        value_count: 8,
        accesses: vec![
            MemoryAccess {
                function: 0,
                instruction: 3,
                operand: 0,
                ptr: 2,
                size: Some(8),
                kind: AccessKind::Read,
            },
            MemoryAccess {
                function: 0,
                instruction: 9,
                operand: 1,
                ptr: 6,
                size: None,
                kind: AccessKind::ReadWrite,
            },
        ],
        shapes: vec![FunctionShape {
            function: 0,
            instructions: 12,
            opcode_hash: u64::MAX - 5,
        }],
        opaque_functions: vec![1],
        declared: vec![DeclaredEffects {
            function: 1,
            memory: MemoryEffects(MemoryEffects::ARG_READ),
            nofree: true,
            params: vec![
                ParamEffects(ParamEffects::NOCAPTURE | ParamEffects::READONLY),
                ParamEffects::default(),
            ],
        }],
        asm_symbols: vec![
            AsmSymbol {
                name: "helper@@V_2".to_string(),
                defined: true,
                weak: false,
            },
            AsmSymbol {
                name: "asm_ref".to_string(),
                defined: false,
                weak: true,
            },
        ],
        dependent_libraries: vec!["m".to_string(), "/opt/lib/libz.a".to_string()],
        type_tests: true,
    }
}

/// A small deterministic generator, so the fuzz tests need no extra crate and fail the
/// same way every run.
pub(crate) struct XorShift(pub(crate) u64);

impl XorShift {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A program written the way the IR side would summarize it: globals by name, fresh value
/// ids, facts, call sites. Helpers also fill `refs` and `calls`, as the IR side does, so the
/// dead-symbol analysis sees what the code uses.
pub(crate) struct TestProgram {
    pub(crate) modules: Vec<ModuleSummary>,
}

impl TestProgram {
    pub(crate) fn new() -> Self {
        TestProgram { modules: vec![] }
    }

    pub(crate) fn module(&mut self, id: &str) -> u32 {
        self.modules.push(ModuleSummary {
            module_id: id.to_string(),
            ..Default::default()
        });
        self.modules.len() as u32 - 1
    }

    pub(crate) fn m(&mut self, m: u32) -> &mut ModuleSummary {
        &mut self.modules[m as usize]
    }

    pub(crate) fn add(&mut self, m: u32, g: GlobalSummary) -> u32 {
        let module = self.m(m);
        module.globals.push(g);
        module.globals.len() as u32 - 1
    }

    /// An internal (static) function.
    pub(crate) fn func(&mut self, m: u32, name: &str) -> u32 {
        self.add(m, global(name, GlobalKind::Function, Linkage::Internal))
    }

    /// A function with external linkage (internalizable unless the resolution says
    /// otherwise).
    pub(crate) fn ext_func(&mut self, m: u32, name: &str) -> u32 {
        self.add(m, global(name, GlobalKind::Function, Linkage::External))
    }

    pub(crate) fn decl(&mut self, m: u32, name: &str, kind: GlobalKind) -> u32 {
        let mut g = global(name, kind, Linkage::External);
        g.flags.insert(GlobalFlags::DECLARATION);
        self.add(m, g)
    }

    /// A C library function declared as clang-14 -O2 declares it (the attributes LLVM's
    /// library-call inference gives it; see tests/tests/alias.rs for real programs).
    pub(crate) fn libc(&mut self, m: u32, name: &str) -> u32 {
        use MemoryEffects as M;
        const NC: u8 = ParamEffects::NOCAPTURE;
        const RO: u8 = ParamEffects::READONLY;
        const WO: u8 = ParamEffects::WRITEONLY;
        let argmem = M::ARG_READ | M::ARG_WRITE;
        let inaccessible = M::INACCESSIBLE_READ | M::INACCESSIBLE_WRITE;
        let (memory, nofree, params, noalias): (u8, bool, &[u8], bool) = match name {
            "free" => (argmem | inaccessible, false, &[NC], false),
            "strlen" | "strcmp" | "memcmp" => (M::ARG_READ, true, &[NC, NC], false),
            "strchr" | "memchr" => (M::ARG_READ, true, &[0], false),
            "strcpy" => (argmem, true, &[ParamEffects::RETURNED | WO, NC | RO], false),
            "printf" | "puts" => (M::ANY.0, true, &[NC | RO], false),
            "fread" => (M::ANY.0, true, &[NC, 0, 0, NC], false),
            "getenv" => (
                M::ARG_READ | M::INACCESSIBLE_READ | M::OTHER_READ,
                true,
                &[NC],
                false,
            ),
            "strdup" => (M::ARG_READ | inaccessible, true, &[NC | RO], true),
            "fopen" => (M::ANY.0, true, &[NC | RO, NC | RO], true),
            _ => panic!("no declaration of {name} in the fixtures"),
        };
        let f = self.decl(m, name, GlobalKind::Function);
        if noalias {
            self.m(m).globals[f as usize]
                .flags
                .insert(GlobalFlags::RETURNS_NOALIAS);
        }
        self.m(m).declared.push(DeclaredEffects {
            function: f,
            memory: MemoryEffects(memory),
            nofree,
            params: params.iter().map(|&p| ParamEffects(p)).collect(),
        });
        f
    }

    pub(crate) fn var(&mut self, m: u32, name: &str, linkage: Linkage, constant: bool) -> u32 {
        let mut g = global(name, GlobalKind::Variable, linkage);
        if constant {
            g.flags.insert(GlobalFlags::CONSTANT);
        }
        self.add(m, g)
    }

    pub(crate) fn val(&mut self, m: u32) -> ValueId {
        let module = self.m(m);
        module.value_count += 1;
        module.value_count - 1
    }

    pub(crate) fn fact(&mut self, m: u32, fact: ValueFact) {
        self.m(m).facts.push(fact);
    }

    /// `&global`, used in function `in_fn`.
    pub(crate) fn addr(&mut self, m: u32, in_fn: u32, g: u32) -> ValueId {
        let dst = self.val(m);
        self.fact(m, ValueFact::AddressOf { dst, global: g });
        self.m(m).globals[in_fn as usize].refs.push(g);
        dst
    }

    pub(crate) fn copy(&mut self, m: u32, dst: ValueId, src: ValueId) {
        self.fact(m, ValueFact::Copy { dst, src });
    }

    pub(crate) fn field(&mut self, m: u32, base: ValueId, offset: Option<i64>) -> ValueId {
        let dst = self.val(m);
        self.fact(m, ValueFact::FieldAddr { dst, base, offset });
        dst
    }

    pub(crate) fn load(&mut self, m: u32, ptr: ValueId) -> ValueId {
        let dst = self.val(m);
        self.fact(m, ValueFact::Load { dst, ptr });
        dst
    }

    pub(crate) fn store(&mut self, m: u32, ptr: ValueId, value: ValueId) {
        self.fact(m, ValueFact::Store { ptr, value });
    }

    pub(crate) fn param(&mut self, m: u32, function: u32, index: u32) -> ValueId {
        let dst = self.val(m);
        self.fact(
            m,
            ValueFact::Argument {
                function,
                index,
                dst,
            },
        );
        dst
    }

    pub(crate) fn ret(&mut self, m: u32, function: u32, value: ValueId) {
        self.fact(m, ValueFact::Return { function, value });
    }

    /// An `alloca` of `size` bytes in `function`'s frame.
    pub(crate) fn stack(&mut self, m: u32, function: u32, size: u64) -> ValueId {
        let dst = self.val(m);
        self.fact(
            m,
            ValueFact::StackObject {
                dst,
                size: Some(size),
                function,
            },
        );
        dst
    }

    /// A load (`Read`), store (`Write`) or atomic update of `function` through `ptr`.
    pub(crate) fn access(&mut self, m: u32, function: u32, ptr: ValueId, kind: AccessKind) {
        let instruction = self.m(m).accesses.len() as u32 + 1000;
        self.m(m).accesses.push(MemoryAccess {
            function,
            instruction,
            operand: 0,
            ptr,
            size: Some(8),
            kind,
        });
    }

    pub(crate) fn escape(&mut self, m: u32, value: ValueId) {
        self.fact(m, ValueFact::Escape { value });
    }

    pub(crate) fn unknown(&mut self, m: u32) -> ValueId {
        let dst = self.val(m);
        self.fact(m, ValueFact::Unknown { dst });
        dst
    }

    pub(crate) fn site(
        &mut self,
        m: u32,
        caller: u32,
        callee: Callee,
        args: &[ValueId],
    ) -> (u32, ValueId) {
        let id = self.m(m).call_sites.len() as u32;
        self.m(m).call_sites.push(CallSite {
            id,
            caller,
            instruction: id,
            callee,
            debug_loc: None,
            byval: Vec::new(),
        });
        for (index, &value) in args.iter().enumerate() {
            self.fact(
                m,
                ValueFact::CallArgument {
                    call: id,
                    index: index as u32,
                    value,
                },
            );
        }
        let dst = self.val(m);
        self.fact(m, ValueFact::CallResult { call: id, dst });
        (id, dst)
    }

    /// A direct call; returns the call's result value.
    pub(crate) fn call(&mut self, m: u32, caller: u32, callee: u32, args: &[ValueId]) -> ValueId {
        self.m(m).globals[caller as usize].calls.push(callee);
        self.site(m, caller, Callee::Direct(callee), args).1
    }

    /// An indirect call through `callee`; returns the site id and the result value.
    pub(crate) fn icall(
        &mut self,
        m: u32,
        caller: u32,
        callee: ValueId,
        args: &[ValueId],
    ) -> (u32, ValueId) {
        self.site(m, caller, Callee::Indirect(callee), args)
    }

    pub(crate) fn init(&mut self, m: u32, g: u32, offset: u64, target: u32) {
        self.m(m).initializers.push(InitializerPointer {
            global: g,
            offset,
            target,
        });
        self.m(m).globals[g as usize].refs.push(target);
    }

    pub(crate) fn index(&self) -> CombinedIndex {
        CombinedIndex::new(self.modules.clone())
    }
}

/// Resolutions as lld gives them for an executable where every bitcode definition is the
/// only one of its name and `main` is referenced from crt1.o.
pub(crate) fn resolutions(index: &CombinedIndex) -> Resolutions {
    let mut res = Resolutions::new(index);
    for id in index.ids() {
        let g = index.global(id);
        if g.is_definition() && !g.linkage.is_local() {
            res.get_mut(id).prevailing = true;
            res.get_mut(id).final_definition_in_linkage_unit = true;
            if g.name == "main" {
                res.get_mut(id).visible_to_regular_obj = true;
            }
        }
    }
    res
}
