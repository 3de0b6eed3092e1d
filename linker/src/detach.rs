//! mold's exit trick (its `--fork`): the link runs in a child process, and the `rld`
//! process its caller waits for exits as soon as the child reports the link's outcome —
//! before the child hands back hundreds of megabytes of memory and mappings to the kernel,
//! which on a large link takes tens of milliseconds nobody needs to wait for.
//!
//! The parent forwards SIGINT, SIGTERM and SIGHUP to the child and waits for it to die of
//! them (its own handlers remove the pending output first), then dies of the same signal;
//! a child that ends without reporting (a crash) is mirrored the same way. The child dies
//! with the parent (`PR_SET_PDEATHSIG`). After reporting, the child points its standard
//! output and error at `/dev/null`, so that a caller reading them through pipes sees their
//! end then too.

use std::io::Write as _;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicI32, Ordering};

/// The linking child, for the parent's signal handler.
static CHILD: AtomicI32 = AtomicI32::new(0);

/// The child's side: where it reports the outcome.
pub struct Reporter {
    pipe: OwnedFd,
}

impl Reporter {
    /// Tells the waiting parent the exit status (flushing what was printed first), then
    /// lets go of standard output and error.
    pub fn report(self, status: u8) {
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        let mut pipe = std::fs::File::from(self.pipe);
        let _ = pipe.write_all(&[status]);
        drop(pipe);
        if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
            // SAFETY: dup2 onto the standard descriptors, with a descriptor we own; nothing
            // holds Rust handles that cache these descriptors' state besides the flushed
            // stdout/stderr, which then write to /dev/null.
            unsafe {
                libc::dup2(null.as_raw_fd(), 1);
                libc::dup2(null.as_raw_fd(), 2);
            }
        }
    }
}

/// Splits the process: in the child, returns the reporter to call when the link is done;
/// in the parent, never returns (it exits with the child's outcome). If the process cannot
/// be split, returns None and the link runs here. Must be called before any thread starts.
pub fn split() -> Option<Reporter> {
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 fills the two-element array it is given.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return None;
    }
    // SAFETY: both descriptors were just created and are owned here alone.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the process has one thread (the caller's promise), so the child starts in a
    // consistent state.
    match unsafe { libc::fork() } {
        -1 => None,
        0 => {
            drop(read);
            // SAFETY: prctl with an integer signal number; getppid has no preconditions.
            unsafe {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong);
                // The parent may have died before prctl took effect.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
            }
            Some(Reporter { pipe: write })
        }
        child => {
            drop(write);
            wait_for(child, read)
        }
    }
}

extern "C" fn forward(signal: libc::c_int) {
    let child = CHILD.load(Ordering::Relaxed);
    if child > 0 {
        // SAFETY: kill is async-signal-safe.
        unsafe {
            libc::kill(child, signal);
        }
    }
}

/// The parent: exits as the child reports, or as the child ended.
fn wait_for(child: libc::pid_t, read: OwnedFd) -> ! {
    CHILD.store(child, Ordering::Relaxed);
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: installs a handler that only calls kill(2); the previous disposition is
        // not needed.
        unsafe {
            libc::signal(signal, forward as *const () as libc::sighandler_t);
        }
    }
    // Polled with a timeout rather than read until its end: a process the child started
    // (LTO's) may hold the pipe open after a crash of the child.
    let mut status = [0u8; 1];
    let mut wstatus = 0;
    let mut reaped = false;
    loop {
        let mut pfd = libc::pollfd {
            fd: read.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: polls one descriptor we own, described by a local.
        if unsafe { libc::poll(&mut pfd, 1, 50) } > 0 {
            // SAFETY: reads at most one byte into a one-byte buffer from a descriptor we own.
            match unsafe { libc::read(read.as_raw_fd(), status.as_mut_ptr().cast(), 1) } {
                1 => std::process::exit(i32::from(status[0])),
                0 => break,
                _ => continue,
            }
        }
        // SAFETY: asks about our own child without waiting, into a local.
        if unsafe { libc::waitpid(child, &mut wstatus, libc::WNOHANG) } == child {
            reaped = true;
            break;
        }
    }
    // The child ended without a report: end the same way.
    while !reaped {
        // SAFETY: waits for our own child, writing its status into a local.
        let r = unsafe { libc::waitpid(child, &mut wstatus, 0) };
        if r == child {
            reaped = true;
        } else if r < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
        {
            std::process::exit(1);
        }
    }
    if libc::WIFSIGNALED(wstatus) {
        let signal = libc::WTERMSIG(wstatus);
        // SAFETY: restores the default action and raises the signal the child died of.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }
    std::process::exit(if libc::WIFEXITED(wstatus) {
        libc::WEXITSTATUS(wstatus)
    } else {
        1
    })
}
