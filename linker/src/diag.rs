//! Warnings as the command line asks for them: printed as warnings, or, with
//! `--fatal-warnings`, as errors that fail the link before its output is moved into place
//! (as lld does). Process-wide, since warnings come from every phase and from threads.

use std::sync::atomic::{AtomicBool, Ordering};

static FATAL: AtomicBool = AtomicBool::new(false);
static QUIET: AtomicBool = AtomicBool::new(false);
static FAILED: AtomicBool = AtomicBool::new(false);

/// `--fatal-warnings`: from now on a warning is an error.
pub fn set_fatal(on: bool) {
    FATAL.store(on, Ordering::SeqCst);
}

/// `--no-warnings`/`-w`: from now on warnings are not shown (and none is fatal).
pub fn set_quiet(on: bool) {
    QUIET.store(on, Ordering::SeqCst);
}

/// Prints `msg` as a warning, or as an error that fails the link.
/// A warning of several lines (an undefined symbol and where it is referenced): the
/// first is the warning, the others follow as they are.
pub fn warn_lines(report: &str) {
    let mut lines = report.lines();
    if let Some(first) = lines.next() {
        warn(first);
    }
    if QUIET.load(Ordering::SeqCst) {
        return;
    }
    for line in lines {
        eprintln!("{line}");
    }
}

pub fn warn(msg: &str) {
    if QUIET.load(Ordering::SeqCst) {
        return;
    }
    if FATAL.load(Ordering::SeqCst) {
        eprintln!("rld: error: {msg}");
        FAILED.store(true, Ordering::SeqCst);
    } else {
        eprintln!("rld: warning: {msg}");
    }
}

/// A warning was made an error: the link must not produce its output.
pub fn failed() -> bool {
    FAILED.load(Ordering::SeqCst)
}
