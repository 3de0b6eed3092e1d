//! Files removed if the link is interrupted (SIGINT, SIGTERM, SIGHUP): the linker's
//! temporary output and a distributed link's job files, which must not outlive it. A
//! signal handler may only make async-signal-safe calls, so each path waits, as a C string,
//! in a fixed table of slots. The handler first ends the distributor that is running, if
//! any, with its jobs (they would otherwise go on and write their objects after the files
//! were removed), then removes the files, then hands the signal to the handler that was
//! there before, or ends the process with it.
//!
//! The `rld` binary and the LTO library it loads each have their own copy of this module
//! and its table: the library's handler, installed later, passes the signal on to the
//! binary's. In a linker plugin, the host's handler comes after.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, Ordering};
use std::sync::{Once, OnceLock};

/// A link with more job files than this has the rest removed at its end only.
const SLOTS: usize = 4096;
const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

static PATHS: [AtomicPtr<libc::c_char>; SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];
/// The handlers that were installed before ours, per signal of [`SIGNALS`].
static PREVIOUS: OnceLock<[libc::sigaction; 3]> = OnceLock::new();
/// Whether ours handles every signal of [`SIGNALS`] the process does not ignore.
static HANDLES_ALL: AtomicBool = AtomicBool::new(false);
/// The process group of the running distributor, 0 if none.
static CHILD_GROUP: AtomicI32 = AtomicI32::new(0);
/// How long the handler waits for the distributor's group to end, in 10 ms steps.
const GROUP_WAIT_STEPS: u32 = 200;

/// Ends the distributor's process group and waits (a bounded time) until none of it is
/// left: a job may be writing its object, which the files removed after this would miss.
fn end_child_group() {
    let group = CHILD_GROUP.swap(0, Ordering::SeqCst);
    if group <= 0 {
        return;
    }
    let step = libc::timespec {
        tv_sec: 0,
        tv_nsec: 10_000_000,
    };
    // SAFETY: kill, waitpid and nanosleep are async-signal-safe. The group's leader is this
    // process's child; reaping it here keeps it from counting as a live member (a zombie),
    // and the thread waiting for it then gets an error the ending process never reads.
    unsafe {
        libc::kill(-group, libc::SIGTERM);
        for _ in 0..GROUP_WAIT_STEPS {
            libc::waitpid(group, std::ptr::null_mut(), libc::WNOHANG);
            if libc::kill(-group, 0) != 0 {
                break;
            }
            libc::nanosleep(&step, std::ptr::null_mut());
        }
    }
}

extern "C" fn on_signal(sig: libc::c_int) {
    end_child_group();
    for slot in &PATHS {
        let path = slot.swap(std::ptr::null_mut(), Ordering::SeqCst);
        if !path.is_null() {
            // SAFETY: unlink is async-signal-safe; `path` is a C string leaked by
            // `Guard::new` and not freed while it is in a slot.
            unsafe { libc::unlink(path) };
        }
    }
    let previous = PREVIOUS.get().and_then(|p| {
        SIGNALS
            .iter()
            .position(|&s| s == sig)
            .map(|i| p[i].sa_sigaction)
    });
    // SAFETY: calling the handler installed before ours (a plain one: `install` keeps
    // SA_SIGINFO handlers out) or the default action; signal and raise are
    // async-signal-safe.
    unsafe {
        match previous {
            Some(h) if h != libc::SIG_DFL && h != libc::SIG_IGN => {
                let handler: extern "C" fn(libc::c_int) = std::mem::transmute(h);
                handler(sig);
            }
            _ => {
                libc::signal(sig, libc::SIG_DFL);
                libc::raise(sig);
            }
        }
    }
}

/// Installs the handlers (once). The linker does it before it creates any file, so that
/// its handler is in place before the LTO library's, which passes signals on to it.
pub fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // SAFETY: plain sigaction calls with zeroed, then filled, structures; a signal the
        // parent ignores (nohup) stays ignored, and one whose handler takes SA_SIGINFO
        // arguments is left alone (ours could not pass them on).
        unsafe {
            let mut previous: [libc::sigaction; 3] = std::mem::zeroed();
            for (i, &sig) in SIGNALS.iter().enumerate() {
                libc::sigaction(sig, std::ptr::null(), &mut previous[i]);
            }
            if PREVIOUS.set(previous).is_err() {
                return;
            }
            let mut all = true;
            for (i, &sig) in SIGNALS.iter().enumerate() {
                let old = &previous[i];
                if old.sa_sigaction == libc::SIG_IGN {
                    continue;
                }
                if old.sa_flags & libc::SA_SIGINFO != 0 {
                    all = false;
                    continue;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(sig, &action, std::ptr::null_mut());
            }
            HANDLES_ALL.store(all, Ordering::SeqCst);
        }
    });
}

/// Whether an interrupting signal reaches this process's handler, which can pass it on to a
/// child's process group (else a child is best left in this process's group, where a
/// terminal's Ctrl-C reaches it directly).
pub fn can_end_child_group() -> bool {
    install();
    HANDLES_ALL.load(Ordering::SeqCst)
}

/// While it lives, an interrupting signal ends the process group `group` (a child that leads
/// it, and whatever that started) before the files are removed.
pub struct ChildGroup(());

impl ChildGroup {
    pub fn new(group: u32) -> ChildGroup {
        install();
        CHILD_GROUP.store(group as i32, Ordering::SeqCst);
        ChildGroup(())
    }
}

impl Drop for ChildGroup {
    fn drop(&mut self) {
        CHILD_GROUP.store(0, Ordering::SeqCst);
    }
}

/// While it lives, an interrupting signal removes its file.
pub struct Guard {
    slot: Option<usize>,
}

impl Guard {
    pub fn new(path: &Path) -> Guard {
        install();
        let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
            return Guard { slot: None };
        };
        let raw = c.into_raw();
        for (i, slot) in PATHS.iter().enumerate() {
            if slot
                .compare_exchange(
                    std::ptr::null_mut(),
                    raw,
                    Ordering::SeqCst,
                    Ordering::SeqCst,
                )
                .is_ok()
            {
                return Guard { slot: Some(i) };
            }
        }
        // SAFETY: `raw` came from `into_raw` just above and went nowhere.
        drop(unsafe { CString::from_raw(raw) });
        Guard { slot: None }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(i) = self.slot {
            let raw = PATHS[i].swap(std::ptr::null_mut(), Ordering::SeqCst);
            if !raw.is_null() {
                // SAFETY: the slot held a string leaked by `Guard::new`; it is out of the
                // table now, so the handler cannot reach it.
                drop(unsafe { CString::from_raw(raw) });
            }
        }
    }
}
