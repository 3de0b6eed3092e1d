//! What the C library, libstdc++'s allocation functions and LLVM's intrinsics do with the
//! pointers they are given, by name: the functions whose behaviour matters to a points-to
//! analysis and would otherwise make every pointer passed to them escape. A function not
//! named here is unknown: its pointer arguments escape and its result may be anything that
//! escaped.

/// A call's effect on pointers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// Returns fresh memory (one heap object per call site). `resizes`: the argument
    /// whose object's contents move to the new memory, which the result may also still be
    /// (`realloc`). `out`: the argument through which the new pointer is written instead
    /// of being returned (`posix_memalign`).
    Allocates {
        resizes: Option<u8>,
        out: Option<u8>,
    },
    /// Reads or writes bytes only: stores no pointer anywhere, captures none. The result is
    /// one of its arguments, or (None) not a pointer into the program's memory.
    NoCapture { returns: Option<u8> },
    /// Returns memory of the outside world (`getenv`, `fopen`), capturing nothing.
    ReturnsExternal,
    /// Copies the contents of the object `src` points into into the one `dst` points into,
    /// and returns `dst` when `returns_dst`.
    Copies { dst: u8, src: u8, returns_dst: bool },
    /// Returns a pointer into the object its argument points into (`strchr`).
    Interior { arg: u8 },
    /// Calls `function` with `args`, those arguments of the call, or (`elements`) pointers
    /// into their objects: pthread_create's start routine gets its argument, qsort's
    /// comparator pointers to the array's elements. Captures nothing else.
    Calls {
        function: u8,
        args: [Option<u8>; 2],
        elements: bool,
    },
    /// Fills the memory argument `buffer` points to with bytes from outside (`fread`,
    /// `read`): the bytes may read back as any pointer that escaped, but the buffer itself
    /// is not kept. Returns argument `returns`, if any.
    FillsBytes { buffer: u8, returns: Option<u8> },
    /// `llvm.va_start`: fills the `va_list` argument `list` points to with pointers to the
    /// calling function's variadic arguments.
    VaStart { list: u8 },
    /// Anything: pointer arguments escape, the result is external.
    Unknown,
}

/// Allocation functions by name; functions whose declaration says `noalias` return or
/// `allocsize` are allocators too (see `GlobalFlags::RETURNS_NOALIAS`).
const ALLOCATORS: &[&str] = &[
    "malloc",
    "calloc",
    "valloc",
    "pvalloc",
    "memalign",
    "aligned_alloc",
    "strdup",
    "strndup",
    "__strdup",
    "__strndup",
    "_Znwm",
    "_Znam",
    "_ZnwmRKSt9nothrow_t",
    "_ZnamRKSt9nothrow_t",
    "_ZnwmSt11align_val_t",
    "_ZnamSt11align_val_t",
    "_ZnwmSt11align_val_tRKSt9nothrow_t",
    "_ZnamSt11align_val_tRKSt9nothrow_t",
];

/// Functions that only read bytes through their arguments, or write characters (never a
/// pointer-sized value that could be read back as a pointer: `fread` and `read`, which
/// could fill a struct of pointers from a file, are not here).
const NO_CAPTURE: &[&str] = &[
    "free",
    "cfree",
    "_ZdlPv",
    "_ZdaPv",
    "_ZdlPvm",
    "_ZdaPvm",
    "_ZdlPvSt11align_val_t",
    "_ZdaPvSt11align_val_t",
    "printf",
    "fprintf",
    "sprintf",
    "snprintf",
    "vprintf",
    "vfprintf",
    "vsprintf",
    "vsnprintf",
    "__printf_chk",
    "__fprintf_chk",
    "__sprintf_chk",
    "__snprintf_chk",
    "__vfprintf_chk",
    "__vsnprintf_chk",
    "puts",
    "fputs",
    "putchar",
    "putc",
    "fputc",
    "fwrite",
    "fflush",
    "fclose",
    "fseek",
    "ftell",
    "rewind",
    "feof",
    "ferror",
    "getc",
    "fgetc",
    "ungetc",
    "strlen",
    "strnlen",
    "strcmp",
    "strncmp",
    "strcasecmp",
    "strncasecmp",
    "strcoll",
    "memcmp",
    "bcmp",
    "strspn",
    "strcspn",
    "atoi",
    "atol",
    "atoll",
    "atof",
    "abs",
    "labs",
    "exit",
    "_exit",
    "abort",
    "perror",
    "time",
    "clock",
    "rand",
    "srand",
    "sleep",
    "usleep",
    "write",
    "close",
    "open",
    "unlink",
    "remove",
    "rename",
    "stat",
    "fstat",
    "lstat",
    "access",
    "isatty",
    "getpid",
    "gettimeofday",
    "clock_gettime",
    "pthread_mutex_lock",
    "pthread_mutex_unlock",
    "pthread_mutex_trylock",
    "pthread_mutex_init",
    "pthread_mutex_destroy",
    "pthread_cond_wait",
    "pthread_cond_signal",
    "pthread_cond_broadcast",
    "pthread_join",
    "pthread_self",
    "__assert_fail",
    "__stack_chk_fail",
    "__cxa_pure_virtual",
    // Files and processes: paths and plain structs (stat, flock, timespec) in, bytes out.
    "open64",
    "openat",
    "openat64",
    "creat",
    "lseek",
    "lseek64",
    "pwrite",
    "pwrite64",
    "fsync",
    "fdatasync",
    "ftruncate",
    "ftruncate64",
    "fcntl",
    "fcntl64",
    "stat64",
    "lstat64",
    "fstat64",
    "fstatat",
    "fstatat64",
    "__xstat",
    "__lxstat",
    "__fxstat",
    "__xstat64",
    "__lxstat64",
    "__fxstat64",
    "fchmod",
    "chmod",
    "fchown",
    "chown",
    "mkdir",
    "rmdir",
    "readlink",
    "utimes",
    "utime",
    "munmap",
    "nanosleep",
    "sysconf",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "pthread_mutexattr_init",
    "pthread_mutexattr_settype",
    "pthread_mutexattr_destroy",
    "dlclose",
    // <math.h>: numbers in, numbers out (frexp and modf write a number through a pointer).
    "sqrt",
    "pow",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "floor",
    "ceil",
    "trunc",
    "round",
    "fabs",
    "fmod",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "hypot",
    "cbrt",
    "frexp",
    "ldexp",
    "modf",
];

/// Functions returning one of their arguments, capturing nothing.
const RETURNS_FIRST: &[&str] = &["memset", "strerror_r", "__memset_chk", "getcwd"];

/// Functions returning outside memory, capturing nothing.
const RETURNS_EXTERNAL: &[&str] = &[
    "getenv",
    "fopen",
    "fdopen",
    "freopen",
    "tmpfile",
    "strerror",
    "localtime",
    "gmtime",
    "setlocale",
    "localeconv",
    "__errno_location",
    // A mapping is outside memory: another mapping of the same file may show the same
    // bytes at another address, so it is not a fresh object.
    "mmap",
    "mmap64",
    "mremap",
    "dlopen",
    "dlsym",
    "dlvsym",
    "dlerror",
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

/// Intrinsic families that return their first argument.
const RETURNS_FIRST_INTRINSICS: &[&str] = &[
    "launder.invariant.group",
    "strip.invariant.group",
    "ptrmask",
    "ssa.copy",
    "expect",
];

/// The model of a function known by `name`.
pub fn model(name: &str) -> Model {
    if let Some(intrinsic) = name.strip_prefix("llvm.") {
        // An intrinsic's name is its family plus overload suffixes (`llvm.memcpy.p0i8...`).
        let family = |families: &[&str]| {
            families.iter().any(|f| {
                intrinsic
                    .strip_prefix(f)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
            })
        };
        return if family(&["memcpy", "memcpy.inline", "memmove", "va_copy"]) {
            Model::Copies {
                dst: 0,
                src: 1,
                returns_dst: false,
            }
        } else if family(&["va_start"]) {
            Model::VaStart { list: 0 }
        } else if family(RETURNS_FIRST_INTRINSICS) {
            Model::NoCapture { returns: Some(0) }
        } else if family(NO_CAPTURE_INTRINSICS) || is_pure_intrinsic(intrinsic) {
            Model::NoCapture { returns: None }
        } else {
            Model::Unknown
        };
    }
    match name {
        "realloc" | "reallocf" | "reallocarray" => {
            return Model::Allocates {
                resizes: Some(0),
                out: None,
            }
        }
        // `*lineptr` gets a buffer of its own (or the old one, grown), filled with text.
        "getline" | "getdelim" | "__getdelim" => {
            return Model::Allocates {
                resizes: None,
                out: Some(0),
            }
        }
        "posix_memalign" => {
            return Model::Allocates {
                resizes: None,
                out: Some(0),
            }
        }
        "memcpy" | "memmove" | "strcpy" | "strncpy" | "strcat" | "strncat" | "stpcpy"
        | "__memcpy_chk" | "__memmove_chk" | "__strcpy_chk" => {
            return Model::Copies {
                dst: 0,
                src: 1,
                returns_dst: true,
            }
        }
        "fread" | "fread_unlocked" | "__fread_chk" => {
            return Model::FillsBytes {
                buffer: 0,
                returns: None,
            }
        }
        "read" | "pread" | "pread64" | "recv" | "__read_chk" => {
            return Model::FillsBytes {
                buffer: 1,
                returns: None,
            }
        }
        "fgets" | "fgets_unlocked" | "__fgets_chk" => {
            return Model::FillsBytes {
                buffer: 0,
                returns: Some(0),
            }
        }
        "strchr" | "strrchr" | "strstr" | "memchr" | "memrchr" | "strpbrk" | "rawmemchr"
        | "strchrnul" => return Model::Interior { arg: 0 },
        "qsort" => {
            return Model::Calls {
                function: 3,
                args: [Some(0), Some(0)],
                elements: true,
            }
        }
        "bsearch" => {
            return Model::Calls {
                function: 4,
                args: [Some(0), Some(1)],
                elements: true,
            }
        }
        "pthread_create" => {
            return Model::Calls {
                function: 2,
                args: [Some(3), None],
                elements: false,
            }
        }
        "atexit" => {
            return Model::Calls {
                function: 0,
                args: [None, None],
                elements: false,
            }
        }
        "on_exit" | "__cxa_atexit" | "__cxa_thread_atexit" | "__cxa_thread_atexit_impl" => {
            return Model::Calls {
                function: 0,
                args: [Some(1), None],
                elements: false,
            }
        }
        "signal" => {
            return Model::Calls {
                function: 1,
                args: [None, None],
                elements: false,
            }
        }
        _ => {}
    }
    if ALLOCATORS.contains(&name) {
        Model::Allocates {
            resizes: None,
            out: None,
        }
    } else if NO_CAPTURE.contains(&name) {
        Model::NoCapture { returns: None }
    } else if RETURNS_FIRST.contains(&name) {
        Model::NoCapture { returns: Some(0) }
    } else if RETURNS_EXTERNAL.contains(&name) {
        Model::ReturnsExternal
    } else {
        Model::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_intrinsic_families() {
        assert_eq!(
            model("malloc"),
            Model::Allocates {
                resizes: None,
                out: None
            }
        );
        assert_eq!(
            model("llvm.memcpy.p0i8.p0i8.i64"),
            Model::Copies {
                dst: 0,
                src: 1,
                returns_dst: false
            }
        );
        assert_eq!(
            model("llvm.lifetime.start.p0i8"),
            Model::NoCapture { returns: None }
        );
        assert_eq!(model("llvm.memsetx"), Model::Unknown);
        assert_eq!(model("llvm.va_start"), Model::VaStart { list: 0 });
        assert_eq!(
            model("llvm.va_copy"),
            Model::Copies {
                dst: 0,
                src: 1,
                returns_dst: false
            }
        );
        assert_eq!(model("strchr"), Model::Interior { arg: 0 });
        assert_eq!(model("free"), Model::NoCapture { returns: None });
        assert_eq!(model("frobnicate"), Model::Unknown);
        assert_eq!(
            model("llvm.fmuladd.f64"),
            Model::NoCapture { returns: None }
        );
        assert_eq!(
            model("llvm.vector.reduce.add.v4i32"),
            Model::NoCapture { returns: None }
        );
        assert_eq!(model("llvm.masked.load.v4i32.p0v4i32"), Model::Unknown);
        assert_eq!(model("pwrite64"), Model::NoCapture { returns: None });
        assert_eq!(
            model("pread64"),
            Model::FillsBytes {
                buffer: 1,
                returns: None
            }
        );
        assert_eq!(model("getcwd"), Model::NoCapture { returns: Some(0) });
        assert_eq!(model("mmap64"), Model::ReturnsExternal);
        assert_eq!(
            model("getline"),
            Model::Allocates {
                resizes: None,
                out: Some(0)
            }
        );
        assert_eq!(
            model("fread"),
            Model::FillsBytes {
                buffer: 0,
                returns: None
            }
        );
        let lists: [&[&str]; 4] = [ALLOCATORS, NO_CAPTURE, RETURNS_FIRST, RETURNS_EXTERNAL];
        let mut all: Vec<&str> = lists.concat();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "a name is in two lists");
    }
}
