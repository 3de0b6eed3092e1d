//! glibc's allocator tuned for a linker, with `mallopt` before any thread starts:
//! - `top_pad=16 MiB`: a heap grows by that much at a time, with fewer `brk` calls;
//! - `mmap_threshold=32 MiB`: blocks up to that size come from the heaps too, rather than
//!   from a mapping of their own that is made, faulted in page by page, and unmapped again.
//!
//! These are glibc's tunables `glibc.malloc.top_pad` and `glibc.malloc.mmap_threshold`, and
//! `mallopt` sets the same parameters the tunables do (for every arena, and both turn off
//! glibc's sliding mmap threshold). rld used to start itself once more with the tunables in
//! `GLIBC_TUNABLES`, which is read only when a process starts; that was needed for
//! transparent huge pages (`hugetlb=1`), which no call can turn on, and cost a second
//! `exec`, dynamic loading and argument parsing (about 2 ms on a large link).
//!
//! Transparent huge pages for the heaps were part of the tuning and are not any more: on a
//! virtual machine that hands freed memory back to its host in 2 MiB blocks (free page
//! reporting), a huge page's first touch makes the host fault in each of its 4 KiB pages,
//! and on this project's machine they cost more than the page faults they save (2026-11-30,
//! median of 6-8 interleaved runs, `hugetlb=1` against without: llvm-api 300 against 275 ms
//! back to back and 310 against 270 with 3 s between runs, CPU time 425-445 against 415 ms;
//! llvm-whole 510 against 426 ms; llvm-whole with `--gc-sections` 480 against 369 ms with
//! pauses, 402 against 397 back to back). A caller can still ask for them
//! (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`).
//!
//! A parameter the caller set in `GLIBC_TUNABLES` is left as the caller set it. The
//! environment is not touched, so the programs rld runs (a plugin's helpers) see it as it
//! was.

use std::ffi::OsStr;

/// A malloc parameter rld sets: its tunable's name, `mallopt`'s number for it, the value.
struct Param {
    tunable: &'static str,
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    option: libc::c_int,
    value: libc::c_int,
}

const PARAMS: [Param; 2] = [
    Param {
        tunable: "glibc.malloc.top_pad",
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        option: libc::M_TOP_PAD,
        value: 16 << 20,
    },
    Param {
        tunable: "glibc.malloc.mmap_threshold",
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        option: libc::M_MMAP_THRESHOLD,
        value: 32 << 20,
    },
];

/// Sets rld's malloc parameters but those the caller's `GLIBC_TUNABLES` sets; returns what
/// was set, spelled as tunables (`name=value:...`; empty if nothing was). Call it before
/// any thread starts.
pub fn tune() -> String {
    let caller = std::env::var_os("GLIBC_TUNABLES");
    let mut set = Vec::new();
    for param in PARAMS
        .iter()
        .filter(|p| !callers(caller.as_deref(), p.tunable))
    {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            // SAFETY: mallopt takes a parameter number and a value; before any thread starts
            // nothing else is in the allocator.
            if unsafe { libc::mallopt(param.option, param.value) } != 1 {
                continue;
            }
            set.push(format!("{}={}", param.tunable, param.value));
        }
        #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
        let _ = param;
    }
    set.join(":")
}

/// Whether the caller's `GLIBC_TUNABLES` (`name=value:...`) sets `tunable`. Tunables that are
/// not UTF-8 cannot be read: then rld leaves every parameter alone.
fn callers(caller: Option<&OsStr>, tunable: &str) -> bool {
    let Some(caller) = caller else {
        return false;
    };
    let Some(caller) = caller.to_str() else {
        return true;
    };
    caller
        .split(':')
        .filter_map(|t| t.split_once('=').map(|(k, _)| k))
        .any(|k| k == tunable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_callers_tunables_win() {
        let top = "glibc.malloc.top_pad";
        assert!(!callers(None, top));
        assert!(!callers(Some(OsStr::new("")), top));
        assert!(callers(
            Some(OsStr::new("glibc.rtld.nns=2:glibc.malloc.top_pad=0")),
            top
        ));
        assert!(!callers(Some(OsStr::new("glibc.malloc.top_pad_x=0")), top));
        assert!(!callers(
            Some(OsStr::new("glibc.malloc.top_pad=0")),
            "glibc.malloc.mmap_threshold"
        ));
        use std::os::unix::ffi::OsStrExt;
        assert!(callers(Some(OsStr::from_bytes(b"\xff=1")), top));
    }
}
