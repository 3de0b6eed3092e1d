//! Files removed if the link is interrupted (SIGINT, SIGTERM, SIGHUP): a distributed link's
//! job files, which must not outlive it. A signal handler may only make async-signal-safe
//! calls, so each path waits, as a C string, in a fixed table of slots. The handler removes
//! them, then hands the signal to the handler that was there before (the linker's, which
//! removes its own temporary output and ends the process), or ends the process with it.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Once, OnceLock};

/// A link with more job files than this has the rest removed at its end only.
const SLOTS: usize = 4096;
const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

static PATHS: [AtomicPtr<libc::c_char>; SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];
/// The handlers that were installed before ours, per signal of [`SIGNALS`].
static PREVIOUS: OnceLock<[libc::sigaction; 3]> = OnceLock::new();

extern "C" fn on_signal(sig: libc::c_int) {
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

fn install() {
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
            for (i, &sig) in SIGNALS.iter().enumerate() {
                let old = &previous[i];
                if old.sa_sigaction == libc::SIG_IGN || old.sa_flags & libc::SA_SIGINFO != 0 {
                    continue;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(sig, &action, std::ptr::null_mut());
            }
        }
    });
}

/// While it lives, an interrupting signal removes its file.
pub(crate) struct Guard {
    slot: Option<usize>,
}

impl Guard {
    pub(crate) fn new(path: &Path) -> Guard {
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
