//! What a function outside the LTO unit may do with the pointers it is given and the memory
//! it can reach: one table for the points-to analysis, mod/ref and called-value propagation.
//!
//! The facts come from LLVM itself:
//! - **Declarations' attributes** ([`DeclaredEffects`]): what clang and LLVM's library-call
//!   inference (`inferLibFuncAttributes`, which the summarizer runs on each module, as LLVM's
//!   LTO pipeline does) attach to `strlen`, `fread`, `printf`, ... —
//!   where the function may read and write (`argmemonly`, `readonly`, ...), which pointer
//!   arguments it keeps (`nocapture`), reads or writes through, or returns (`returned`),
//!   whether it frees, whether its result is fresh memory (`noalias`). Every declaration of
//!   the name must say it; one that says less wins.
//! - **Intrinsics** (`llvm.*`), whose behaviour the LLVM Language Reference defines.
//! - **Allocation and deallocation functions**, as LLVM's own tables know them
//!   (`AllocationFnData` and `isLibFreeFunction` in llvm/lib/Analysis/MemoryBuiltins.cpp):
//!   new memory holds no pointer yet; freeing reads nothing from the object.
//!
//! A few behaviours no attribute can express are written here by hand, each with the
//! sentence of the standard it rests on and a test program that exercises it under the
//! analysis (tests/tests/alias.rs): a comparator called on array elements (`qsort`,
//! `bsearch`), a callback registered to run later (`atexit`, `__cxa_atexit`,
//! `pthread_create`, `signal`). Everything else is unknown: it may read, write, free and
//! keep everything its pointer arguments reach and every escaped object, call back any
//! function it is given or that escaped, and return anything that escaped.

use crate::index::{CombinedIndex, GlobalId};
use crate::model::{DeclaredEffects, GlobalFlags, GlobalKind, MemoryEffects, ParamEffects};

/// A call's effect on pointers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Model {
    /// An allocation function: returns fresh memory that holds no pointer yet (one heap
    /// object per call site). `resizes`: the argument whose object's contents move to the
    /// new memory, which the result may also still be (`realloc`).
    Allocates { resizes: Option<u8> },
    /// A deallocation function: ends the life of the object argument 0 points into,
    /// reading nothing from it and keeping nothing.
    Frees,
    /// An intrinsic that reads or writes bytes only: stores no pointer anywhere, captures
    /// none. The result is one of its arguments, or (None) not a pointer.
    NoCapture { returns: Option<u8> },
    /// An intrinsic that copies the contents of the object `src` points into into the one
    /// `dst` points into (`llvm.memcpy`, `llvm.memmove`, `llvm.va_copy`).
    Copies { dst: u8, src: u8 },
    /// Calls `function` with `args`, those arguments of the call, or (`elements`) pointers
    /// into their objects: pthread_create's start routine gets its argument, qsort's
    /// comparator pointers to the array's elements. What the callback returns escapes
    /// (pthread_join hands it out). Captures nothing else; returns a pointer into argument
    /// `returns_into`'s object (bsearch), or anything escaped.
    Calls {
        function: u8,
        args: [Option<u8>; 2],
        elements: bool,
        returns_into: Option<u8>,
    },
    /// `llvm.va_start`: fills the `va_list` argument `list` points to with pointers to the
    /// calling function's variadic arguments.
    VaStart { list: u8 },
    /// What its declarations' attributes allow (see [`Declared`]).
    Declared(Declared),
    /// Anything: pointer arguments escape, the result is external.
    Unknown,
}

/// What every declaration of a function outside the unit says it may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    pub memory: MemoryEffects,
    pub nofree: bool,
    /// Its result is fresh memory (`noalias`), which may hold anything the call could
    /// store.
    pub returns_noalias: bool,
    /// The declared parameters; variadic arguments have no attributes.
    pub params: Vec<ParamEffects>,
}

impl Declared {
    fn param(&self, i: usize) -> ParamEffects {
        self.params.get(i).copied().unwrap_or_default()
    }

    /// It may keep argument `i` beyond the call (store or return it).
    pub fn captures(&self, i: usize) -> bool {
        !self.param(i).has(ParamEffects::NOCAPTURE)
    }

    /// It may read the memory argument `i` points into.
    pub fn reads_through(&self, i: usize) -> bool {
        let p = self.param(i);
        self.memory.reads_args()
            && !p.has(ParamEffects::READNONE)
            && !p.has(ParamEffects::WRITEONLY)
    }

    /// It may write the memory argument `i` points into.
    pub fn writes_through(&self, i: usize) -> bool {
        let p = self.param(i);
        self.memory.writes_args()
            && !p.has(ParamEffects::READNONE)
            && !p.has(ParamEffects::READONLY)
    }

    /// The argument it returns (`returned`).
    pub fn returned(&self) -> Option<u8> {
        self.params
            .iter()
            .position(|p| p.has(ParamEffects::RETURNED))
            .and_then(|i| u8::try_from(i).ok())
    }

    /// No attribute says anything: as good as unknown.
    fn says_nothing(&self) -> bool {
        self.memory == MemoryEffects::ANY
            && !self.nofree
            && !self.returns_noalias
            && self.params.iter().all(|p| p.0 == 0)
    }

    /// What both `self` and `other` allow: each claim holds only if both make it.
    fn weakest(self, other: Declared) -> Declared {
        let n = self.params.len().max(other.params.len());
        Declared {
            memory: MemoryEffects(self.memory.0 | other.memory.0),
            nofree: self.nofree && other.nofree,
            returns_noalias: self.returns_noalias && other.returns_noalias,
            params: (0..n)
                .map(|i| ParamEffects(self.param(i).0 & other.param(i).0))
                .collect(),
        }
    }
}

/// Deallocation functions (LLVM's `isLibFreeFunction` names).
const DEALLOCATORS: &[&str] = &[
    "free",
    "cfree",
    "_ZdlPv",
    "_ZdaPv",
    "_ZdlPvm",
    "_ZdaPvm",
    "_ZdlPvSt11align_val_t",
    "_ZdaPvSt11align_val_t",
    "_ZdlPvmSt11align_val_t",
    "_ZdaPvmSt11align_val_t",
    "_ZdlPvRKSt9nothrow_t",
    "_ZdaPvRKSt9nothrow_t",
];

/// Allocation functions whose new memory holds no pointer (C11 7.22.3: "the value of the
/// object is indeterminate" (`malloc`, `aligned_alloc`), "all bits zero" (`calloc`);
/// C++ [basic.stc.dynamic.allocation]: `operator new` returns storage, not objects), as
/// LLVM's allocation-function table lists them.
const ALLOCATORS: &[&str] = &[
    "malloc",
    "calloc",
    "valloc",
    "pvalloc",
    "memalign",
    "aligned_alloc",
    "_Znwm",
    "_Znam",
    "_ZnwmRKSt9nothrow_t",
    "_ZnamRKSt9nothrow_t",
    "_ZnwmSt11align_val_t",
    "_ZnamSt11align_val_t",
    "_ZnwmSt11align_val_tRKSt9nothrow_t",
    "_ZnamSt11align_val_tRKSt9nothrow_t",
];

/// Intrinsic families (after `llvm.`) that neither capture nor store pointers.
const NO_CAPTURE_INTRINSICS: &[&str] = &[
    "memset",
    "memset.inline",
    "lifetime.start",
    "lifetime.end",
    "dbg",
    "assume",
    "prefetch",
    "invariant.start",
    "invariant.end",
    "va_end",
    "stacksave",
    "stackrestore",
    "donothing",
    "sideeffect",
    "trap",
    "debugtrap",
    "objectsize",
    "is.constant",
    "experimental.noalias.scope.decl",
    "pseudoprobe",
    "var.annotation",
];

/// Intrinsic families (the first part of the name after `llvm.`) that compute a value
/// from their operands alone: no memory, no pointers, no side effects.
const PURE_INTRINSIC_FAMILIES: &[&str] = &[
    "fabs",
    "sqrt",
    "fma",
    "fmuladd",
    "ctlz",
    "cttz",
    "ctpop",
    "bswap",
    "bitreverse",
    "fshl",
    "fshr",
    "umax",
    "umin",
    "smax",
    "smin",
    "abs",
    "floor",
    "ceil",
    "trunc",
    "round",
    "roundeven",
    "rint",
    "nearbyint",
    "lround",
    "llround",
    "lrint",
    "llrint",
    "copysign",
    "minnum",
    "maxnum",
    "minimum",
    "maximum",
    "exp",
    "exp2",
    "log",
    "log2",
    "log10",
    "pow",
    "powi",
    "sin",
    "cos",
    "uadd",
    "sadd",
    "usub",
    "ssub",
    "umul",
    "smul",
    "vector",
    "is",
    "canonicalize",
];

/// Whether intrinsic `intrinsic` (its name after `llvm.`) only computes a value from its
/// operands.
pub fn is_pure_intrinsic(intrinsic: &str) -> bool {
    let family = intrinsic.split('.').next().unwrap_or("");
    PURE_INTRINSIC_FAMILIES.contains(&family)
}

/// Whether intrinsic `intrinsic` touches no memory but what its pointer arguments point to
/// (and memory no program can name): it copies, sets, marks lifetimes or assumptions, or
/// only computes.
pub fn intrinsic_keeps_to_arguments(intrinsic: &str) -> bool {
    let family = intrinsic.split('.').next().unwrap_or("");
    matches!(
        family,
        "lifetime"
            | "dbg"
            | "assume"
            | "expect"
            | "memcpy"
            | "memmove"
            | "memset"
            | "objectsize"
            | "invariant"
            | "launder"
            | "strip"
            | "ptrmask"
            | "ssa"
            | "prefetch"
    ) || is_pure_intrinsic(intrinsic)
}

/// Intrinsic families that return their first argument.
const RETURNS_FIRST_INTRINSICS: &[&str] = &[
    "launder.invariant.group",
    "strip.invariant.group",
    "ptrmask",
    "ssa.copy",
    "expect",
];

/// What a call to function `f` (a function outside the unit, or a definition calls to the
/// name may not run) may do.
pub fn model(index: &CombinedIndex, f: GlobalId) -> Model {
    let name = index.global(f).name.as_str();
    if let Some(intrinsic) = name.strip_prefix("llvm.") {
        return intrinsic_model(intrinsic);
    }
    if let Some(m) = by_name(name) {
        return m;
    }
    match declared(index, name) {
        Some(d) if !d.says_nothing() => Model::Declared(d),
        _ => Model::Unknown,
    }
}

/// What every declaration of `name` allows, or None where a definition of the name (whose
/// attributes describe a body that may not be the one that runs) or no declaration is
/// found.
fn declared(index: &CombinedIndex, name: &str) -> Option<Declared> {
    let mut out: Option<Declared> = None;
    for &id in index.named(name) {
        let g = index.global(id);
        if g.kind != GlobalKind::Function || !g.is_declaration() {
            return None;
        }
        let module = &index.modules[id.module as usize];
        let returns_noalias = g.flags.contains(GlobalFlags::RETURNS_NOALIAS);
        let d = match module.declared.iter().find(|d| d.function == id.index) {
            Some(DeclaredEffects {
                memory,
                nofree,
                params,
                ..
            }) => Declared {
                memory: *memory,
                nofree: *nofree,
                returns_noalias,
                params: params.clone(),
            },
            None => Declared {
                memory: MemoryEffects::ANY,
                nofree: false,
                returns_noalias,
                params: Vec::new(),
            },
        };
        out = Some(match out {
            None => d,
            Some(prev) => prev.weakest(d),
        });
    }
    out
}

/// The LangRef's intrinsics, by family (the name after `llvm.` up to its overload suffixes).
fn intrinsic_model(intrinsic: &str) -> Model {
    let family = |families: &[&str]| {
        families.iter().any(|f| {
            intrinsic
                .strip_prefix(f)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        })
    };
    if family(&["memcpy", "memcpy.inline", "memmove", "va_copy"]) {
        Model::Copies { dst: 0, src: 1 }
    } else if family(&["va_start"]) {
        Model::VaStart { list: 0 }
    } else if family(RETURNS_FIRST_INTRINSICS) {
        Model::NoCapture { returns: Some(0) }
    } else if family(NO_CAPTURE_INTRINSICS) || is_pure_intrinsic(intrinsic) {
        Model::NoCapture { returns: None }
    } else {
        Model::Unknown
    }
}

/// The hand-written entries: behaviour no attribute expresses.
fn by_name(name: &str) -> Option<Model> {
    let callback = |function, args, elements, returns_into| Model::Calls {
        function,
        args,
        elements,
        returns_into,
    };
    Some(match name {
        // C11 7.22.3.5: "The contents of the new object shall be the same as that of the
        // old object prior to deallocation, up to the lesser of the new and old sizes."
        "realloc" | "reallocf" | "reallocarray" => Model::Allocates { resizes: Some(0) },
        _ if ALLOCATORS.contains(&name) => Model::Allocates { resizes: None },
        // C11 7.22.3.3: "The free function causes the space pointed to by ptr to be
        // deallocated, that is, made available for further allocation"; C++
        // [basic.stc.dynamic.deallocation] likewise for operator delete. LLVM's table of
        // deallocation functions lists the same names.
        _ if DEALLOCATORS.contains(&name) => Model::Frees,
        // C11 7.22.5.2: "The contents of the array are sorted ... according to a
        // comparison function pointed to by compar, which is called with two arguments
        // that point to the objects being compared."
        "qsort" => callback(3, [Some(0), Some(0)], true, None),
        // C11 7.22.5.1: "The comparison function pointed to by compar is called with two
        // arguments that point to the key object and to an array element"; it "returns a
        // pointer to a matching element of the array, or a null pointer".
        "bsearch" => callback(4, [Some(0), Some(1)], true, Some(1)),
        // POSIX pthread_create: "The thread is created executing start_routine with arg
        // as its sole argument."
        "pthread_create" => callback(2, [Some(3), None], false, None),
        // C11 7.22.4.2: "The atexit function registers the function pointed to by func,
        // to be called without arguments at normal program termination."
        "atexit" => callback(0, [None, None], false, None),
        // Itanium C++ ABI 3.3.6.3: "__cxa_atexit(void (*f)(void *), void *p, void *d)
        // ... registers a destructor function to be called by exit() ... with the
        // parameter p"; glibc's on_exit and __cxa_thread_atexit_impl likewise pass their
        // second argument.
        "on_exit" | "__cxa_atexit" | "__cxa_thread_atexit" | "__cxa_thread_atexit_impl" => {
            callback(0, [Some(1), None], false, None)
        }
        // C11 7.14.1.1: "the function pointed to by func is called with the argument
        // sig"; it returns the previous handler.
        "signal" => callback(1, [None, None], false, None),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{GlobalSummary, Linkage, ModuleSummary, Visibility};

    fn declaration(name: &str, flags: u32) -> GlobalSummary {
        GlobalSummary {
            name: name.to_string(),
            kind: GlobalKind::Function,
            linkage: Linkage::External,
            visibility: Visibility::Default,
            flags: GlobalFlags(GlobalFlags::DECLARATION | flags),
            section: None,
            comdat: None,
            refs: Vec::new(),
            calls: Vec::new(),
            aliasee: None,
            debug_loc: None,
        }
    }

    /// One module per entry, each declaring the function `f` with these effects (None: no
    /// attributes).
    fn index_of(decls: &[Option<DeclaredEffects>], noalias: bool) -> CombinedIndex {
        let flags = if noalias {
            GlobalFlags::RETURNS_NOALIAS
        } else {
            0
        };
        CombinedIndex::new(
            decls
                .iter()
                .map(|d| ModuleSummary {
                    globals: vec![declaration("f", flags)],
                    declared: d.iter().cloned().collect(),
                    ..ModuleSummary::default()
                })
                .collect(),
        )
    }

    fn f_model(index: &CombinedIndex) -> Model {
        model(
            index,
            GlobalId {
                module: 0,
                index: 0,
            },
        )
    }

    const NOCAPTURE_READONLY: ParamEffects =
        ParamEffects(ParamEffects::NOCAPTURE | ParamEffects::READONLY);

    fn strlen_like() -> DeclaredEffects {
        DeclaredEffects {
            function: 0,
            memory: MemoryEffects(MemoryEffects::ARG_READ),
            nofree: true,
            params: vec![NOCAPTURE_READONLY],
        }
    }

    #[test]
    fn intrinsics_follow_the_language_reference() {
        assert_eq!(
            intrinsic_model("memcpy.p0i8.p0i8.i64"),
            Model::Copies { dst: 0, src: 1 }
        );
        assert_eq!(
            intrinsic_model("lifetime.start.p0i8"),
            Model::NoCapture { returns: None }
        );
        assert_eq!(intrinsic_model("memsetx"), Model::Unknown);
        assert_eq!(intrinsic_model("va_start"), Model::VaStart { list: 0 });
        assert_eq!(intrinsic_model("va_copy"), Model::Copies { dst: 0, src: 1 });
        assert_eq!(
            intrinsic_model("fmuladd.f64"),
            Model::NoCapture { returns: None }
        );
        assert_eq!(
            intrinsic_model("vector.reduce.add.v4i32"),
            Model::NoCapture { returns: None }
        );
        assert_eq!(intrinsic_model("masked.load.v4i32.p0v4i32"), Model::Unknown);
    }

    #[test]
    fn only_behaviour_without_an_attribute_is_written_by_hand() {
        assert_eq!(by_name("malloc"), Some(Model::Allocates { resizes: None }));
        assert_eq!(by_name("_ZdlPv"), Some(Model::Frees));
        assert_eq!(
            by_name("realloc"),
            Some(Model::Allocates { resizes: Some(0) })
        );
        assert!(matches!(
            by_name("bsearch"),
            Some(Model::Calls {
                returns_into: Some(1),
                ..
            })
        ));
        // Everything an attribute can say comes from the declaration.
        for name in [
            "pthread_join",
            "strlen",
            "printf",
            "fread",
            "strchr",
            "getenv",
            "strdup",
            "posix_memalign",
            "memcpy",
        ] {
            assert_eq!(by_name(name), None, "{name}");
        }
    }

    #[test]
    fn a_declaration_without_attributes_may_do_anything() {
        // pthread_join's declaration carries no attribute: it may store a pointer through
        // its second argument.
        assert_eq!(f_model(&index_of(&[None], false)), Model::Unknown);
    }

    #[test]
    fn attributes_are_read_from_the_declaration() {
        let Model::Declared(d) = f_model(&index_of(&[Some(strlen_like())], false)) else {
            panic!("not declared");
        };
        assert!(!d.captures(0) && d.reads_through(0) && !d.writes_through(0));
        assert!(d.nofree && !d.memory.writes());
        // A variadic argument has no attributes.
        assert!(d.captures(1));
    }

    #[test]
    fn the_declaration_that_says_least_wins() {
        let index = index_of(&[Some(strlen_like()), None], false);
        assert_eq!(f_model(&index), Model::Unknown);
        let weaker = DeclaredEffects {
            memory: MemoryEffects(MemoryEffects::ARG_READ | MemoryEffects::ARG_WRITE),
            params: vec![ParamEffects(ParamEffects::NOCAPTURE)],
            ..strlen_like()
        };
        let Model::Declared(d) = f_model(&index_of(&[Some(strlen_like()), Some(weaker)], false))
        else {
            panic!("not declared");
        };
        assert!(d.writes_through(0) && !d.captures(0));
        // noalias must be on every declaration.
        let mut index = index_of(&[None, None], true);
        assert!(matches!(
            f_model(&index),
            Model::Declared(Declared {
                returns_noalias: true,
                ..
            })
        ));
        index.modules[1].globals[0].flags = GlobalFlags(GlobalFlags::DECLARATION);
        assert_eq!(f_model(&index), Model::Unknown);
    }

    #[test]
    fn a_definition_of_the_name_makes_the_attributes_unusable() {
        let mut index = index_of(&[Some(strlen_like()), Some(strlen_like())], false);
        index.modules[1].globals[0].flags = GlobalFlags(0);
        assert_eq!(f_model(&index), Model::Unknown);
    }
}
