//! Summaries shared by the unit tests of several modules.

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
        .insert(GlobalFlags::IN_COMDAT | GlobalFlags::UNNAMED_ADDR);
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
                callee: Callee::Direct(1),
                debug_loc: Some(loc("dir/tu1.c", 4, 12)),
            },
            CallSite {
                id: 1,
                caller: 0,
                callee: Callee::Indirect(7),
                debug_loc: None,
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
            },
            ValueFact::StackObject { dst: 7, size: None },
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
