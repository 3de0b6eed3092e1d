//! glibc's allocator tuned for a linker, by starting `rld` once more with two of its
//! tunables set (they are read only when a process starts):
//! - `top_pad=16 MiB`: a heap grows by that much at a time, with fewer `brk` calls;
//! - `mmap_threshold=32 MiB`: blocks up to that size come from the heaps too, rather than
//!   from a mapping of their own that is made, faulted in page by page, and unmapped again.
//!
//! Transparent huge pages for the heaps (`hugetlb=1`) were part of it and are not any more:
//! on a virtual machine that hands freed memory back to its host in 2 MiB blocks (free page
//! reporting), a huge page's first touch makes the host fault in each of its 4 KiB pages,
//! and on this project's machine they cost more than the page faults they save (2026-11-30,
//! median of 6-8 interleaved runs, `hugetlb=1` against without: llvm-api 300 against 275 ms
//! back to back and 310 against 270 with 3 s between runs, CPU time 425-445 against 415 ms;
//! llvm-whole 510 against 426 ms; llvm-whole with `--gc-sections` 480 against 369 ms with
//! pauses, 402 against 397 back to back). A caller can still ask for them
//! (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`).
//!
//! A small link is not restarted: starting again costs about a millisecond. Tunables the
//! caller set in `GLIBC_TUNABLES` win over these; the caller's environment is restored after
//! the restart, so that programs rld runs (a plugin's helpers) see it as it was.

use std::ffi::{OsStr, OsString};

/// The tunables, and the values rld gives them unless the caller set them.
const TUNABLES: [(&str, &str); 2] = [
    ("glibc.malloc.top_pad", "16777216"),
    ("glibc.malloc.mmap_threshold", "33554432"),
];

/// Set for the restarted process: the caller's `GLIBC_TUNABLES`, after a `+` if it had one,
/// or `-` if it had none.
const RESTARTED: &str = "RLD_RESTARTED_WITH_TUNABLES";

/// Inputs (objects and archives) from this many bytes on make a link large enough for the
/// restart (under a millisecond) to pay: a small link touches little memory.
pub const LARGE_INPUTS: u64 = 32 << 20;

/// In a process restarted by [`restart_tuned`], restores the caller's environment and
/// returns the tunables the process runs with. Must be called before any thread starts, as
/// it changes the environment.
pub fn restore_callers_environment() -> Option<String> {
    let saved = std::env::var_os(RESTARTED)?;
    let tunables = std::env::var("GLIBC_TUNABLES").unwrap_or_default();
    std::env::remove_var(RESTARTED);
    match saved.to_str().and_then(|s| s.strip_prefix('+')) {
        Some(value) => std::env::set_var("GLIBC_TUNABLES", value),
        None => std::env::remove_var("GLIBC_TUNABLES"),
    }
    Some(tunables)
}

/// Starts the same program again, with the same arguments and the tunables set; returns
/// only if that fails (the link then goes on untuned). Call it before any thread starts.
pub fn restart_tuned() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        return;
    }
    let caller = std::env::var_os("GLIBC_TUNABLES");
    let Some(tunables) = merged(caller.as_deref()) else {
        return;
    };
    let saved = match caller.as_ref().and_then(|c| c.to_str()) {
        Some(value) => format!("+{value}"),
        None => "-".to_string(),
    };
    let mut args = std::env::args_os();
    let (Some(argv0), Ok(program)) = (args.next(), std::env::current_exe()) else {
        return;
    };
    use std::os::unix::process::CommandExt;
    // The same program file (by its path, so that `ps` still shows `rld`), whatever name it
    // was started by (`ld`, say): argv[0] is kept.
    let _failed = std::process::Command::new(program)
        .arg0(argv0)
        .args(args)
        .env("GLIBC_TUNABLES", tunables)
        .env(RESTARTED, saved)
        .exec();
}

/// The caller's tunables with rld's added where the caller left them unset; None if the
/// caller's cannot be read (not UTF-8).
fn merged(caller: Option<&OsStr>) -> Option<OsString> {
    let caller = match caller {
        Some(c) => c.to_str()?,
        None => "",
    };
    let set: Vec<&str> = caller
        .split(':')
        .filter_map(|t| t.split_once('=').map(|(k, _)| k))
        .collect();
    let mut all: Vec<String> = caller
        .split(':')
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    for (key, value) in TUNABLES {
        if !set.contains(&key) {
            all.push(format!("{key}={value}"));
        }
    }
    Some(all.join(":").into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_callers_tunables_are_kept_and_win() {
        let ours = "glibc.malloc.top_pad=16777216:glibc.malloc.mmap_threshold=33554432";
        assert_eq!(merged(None).unwrap(), ours);
        assert_eq!(merged(Some(OsStr::new(""))).unwrap(), ours);
        assert_eq!(
            merged(Some(OsStr::new("glibc.malloc.top_pad=0:glibc.rtld.nns=2"))).unwrap(),
            "glibc.malloc.top_pad=0:glibc.rtld.nns=2:glibc.malloc.mmap_threshold=33554432"
        );
    }
}
