//! Reading untrusted bitcode in child processes.
//!
//! LLVM's bitcode reader is not hardened: a few flipped bits in a `clang -flto` object can
//! make it dereference garbage or try to allocate terabytes, and neither is an error it
//! reports. So the linker summarizes bitcode it has not seen before in forked children,
//! one per core, each handing back the summaries (in rld's own checked encoding) through a
//! pipe. A child that crashes ends as an error naming the file it was reading, and a child
//! may not grow its address space by more than [`address_budget`], so a header asking for a
//! huge allocation
//! fails there too. The summarized modules are the ones the backend later reads in the
//! linker's own process: bitcode LLVM read once without trouble it reads again the same way.
//!
//! Forking is safe here because the children only run LLVM on their own inputs and write
//! to their pipe: glibc makes `malloc` usable after `fork`, and no other thread of the
//! linker holds an LLVM lock while summaries are being made (the linker waits for them).

use crate::error::LtoError;
use crate::BitcodeInput;
use rld_summaries::ModuleSummary;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicI32, Ordering};

/// How much a child's address space may grow while it reads `bytes` of bitcode: far more
/// than LLVM needs for real modules (their IR takes a few times their bitcode's size), far
/// less than a corrupt header may ask for, and small enough that reaching it is quick.
fn address_budget(bytes: u64) -> u64 {
    (bytes.saturating_mul(100)).clamp(1 << 30, 16 << 30)
}

/// CPU seconds a child may spend on one input before it is stopped (SIGXCPU): a module
/// that makes the reader or the summarizer loop must not hang the link. Summarizing the
/// largest real modules takes a few seconds.
const CPU_SECONDS_PER_INPUT: u64 = 120;

/// In a child, the pipe to the parent (LLVM's fatal-error handler reports through it).
static CHILD_PIPE: AtomicI32 = AtomicI32::new(-1);

const SUMMARY: u8 = 0;
const ERROR: u8 = 1;

/// Summarizes `inputs`, each in a child process; `None` where no child could be started
/// (the caller then reads the input itself).
pub(crate) fn summarize(inputs: &[&BitcodeInput]) -> Vec<Option<Result<ModuleSummary, LtoError>>> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, inputs.len().max(1));
    // Round-robin from the largest, so the children's shares are alike.
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(inputs[i].data.len()));
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); workers];
    for (k, &i) in order.iter().enumerate() {
        groups[k % workers].push(i);
    }
    let mut results: Vec<Option<Result<ModuleSummary, LtoError>>> =
        (0..inputs.len()).map(|_| None).collect();
    let children: Vec<_> = groups
        .into_iter()
        .filter(|g| !g.is_empty())
        .map(|g| {
            let child = spawn(inputs, &g);
            (g, child)
        })
        .collect();
    let mut retry = Vec::new();
    for (group, child) in children {
        let Some(child) = child else { continue };
        let (frames, status) = child.finish();
        for (&i, frame) in group.iter().zip(frames.iter()) {
            results[i] = Some(frame.to_result(inputs[i].name));
        }
        if frames.len() < group.len() {
            let rest = &group[frames.len()..];
            if rest.len() == 1 {
                results[rest[0]] = Some(Err(crashed(inputs[rest[0]].name, status)));
            } else {
                retry.extend_from_slice(rest);
            }
        }
    }
    // A child died with several inputs left: read them one child each, to name the file.
    for i in retry {
        results[i] = match spawn(inputs, &[i]) {
            Some(child) => {
                let (frames, status) = child.finish();
                Some(match frames.first() {
                    Some(frame) => frame.to_result(inputs[i].name),
                    None => Err(crashed(inputs[i].name, status)),
                })
            }
            None => None,
        };
    }
    results
}

fn crashed(name: &str, status: libc::c_int) -> LtoError {
    let how = if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        match sig {
            libc::SIGSEGV | libc::SIGBUS => "LLVM crashed reading it".to_string(),
            libc::SIGABRT => "LLVM gave up reading it (out of memory?)".to_string(),
            libc::SIGXCPU | libc::SIGKILL => format!(
                "reading it took more than {CPU_SECONDS_PER_INPUT} s of CPU time and was stopped"
            ),
            _ => format!("reading it was stopped by signal {sig}"),
        }
    } else {
        format!(
            "reading it failed (exit status {})",
            libc::WEXITSTATUS(status)
        )
    };
    LtoError::BadBitcode {
        file: name.to_string(),
        msg: how,
    }
}

/// What a child reported for one input.
enum Frame {
    Summary(Vec<u8>),
    Error(String),
}

impl Frame {
    fn to_result(&self, name: &str) -> Result<ModuleSummary, LtoError> {
        match self {
            Frame::Summary(bytes) => {
                let mut s = rld_summaries::decode(bytes).map_err(|e| {
                    LtoError::Llvm(format!("{name}: a summarizing process sent garbage: {e}"))
                })?;
                s.module_id = name.to_string();
                Ok(s)
            }
            Frame::Error(msg) => Err(LtoError::BadBitcode {
                file: name.to_string(),
                msg: msg.clone(),
            }),
        }
    }
}

struct Child {
    pid: libc::pid_t,
    pipe: std::fs::File,
}

impl Child {
    /// Everything the child wrote, and how it ended.
    fn finish(mut self) -> (Vec<Frame>, libc::c_int) {
        use std::io::Read;
        let mut bytes = Vec::new();
        let _ = self.pipe.read_to_end(&mut bytes);
        let mut status = 0;
        // SAFETY: waiting for our own child.
        while unsafe { libc::waitpid(self.pid, &mut status, 0) } < 0
            && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
        {}
        (parse_frames(&bytes), status)
    }
}

/// Frames: a tag byte, a little-endian u64 length, that many bytes. A truncated last
/// frame (the child died writing it) is dropped.
fn parse_frames(mut bytes: &[u8]) -> Vec<Frame> {
    let mut frames = Vec::new();
    while bytes.len() >= 9 {
        let tag = bytes[0];
        let len = u64::from_le_bytes(bytes[1..9].try_into().unwrap());
        let Some(body) = usize::try_from(len).ok().and_then(|l| bytes.get(9..9 + l)) else {
            break;
        };
        frames.push(match tag {
            SUMMARY => Frame::Summary(body.to_vec()),
            _ => Frame::Error(String::from_utf8_lossy(body).into_owned()),
        });
        bytes = &bytes[9 + body.len()..];
    }
    frames
}

fn write_frame(fd: libc::c_int, tag: u8, body: &[u8]) {
    let mut frame = Vec::with_capacity(9 + body.len());
    frame.push(tag);
    frame.extend_from_slice(&(body.len() as u64).to_le_bytes());
    frame.extend_from_slice(body);
    let mut rest = &frame[..];
    while !rest.is_empty() {
        // SAFETY: writing our own buffer to our own pipe.
        let n = unsafe { libc::write(fd, rest.as_ptr().cast(), rest.len()) };
        if n <= 0 {
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        rest = &rest[n as usize..];
    }
}

/// Forks a child that summarizes `inputs[i]` for each `i` of `group`, in order.
fn spawn(inputs: &[&BitcodeInput], group: &[usize]) -> Option<Child> {
    let mut fds = [0; 2];
    // SAFETY: a plain pipe(2) into a local array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return None;
    }
    // SAFETY: both descriptors were just created and are owned here alone.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: getpid on this process.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the child only runs `child_main`, which never returns (see the module's note
    // on why that is safe after fork in a threaded process).
    match unsafe { libc::fork() } {
        -1 => None,
        0 => {
            drop(read);
            // A child outlives a linker that was killed only as long as it takes to notice.
            // SAFETY: prctl and getppid on this process itself.
            unsafe {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                // Gone already, before the request took effect (compared with its pid, not
                // with 1: a linker may itself be a container's first process).
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
            }
            child_main(inputs, group, write.as_raw_fd())
        }
        pid => {
            drop(write);
            Some(Child {
                pid,
                pipe: std::fs::File::from(read),
            })
        }
    }
}

fn child_main(inputs: &[&BitcodeInput], group: &[usize], fd: libc::c_int) -> ! {
    CHILD_PIPE.store(fd, Ordering::SeqCst);
    // What LLVM prints before it dies ("LLVM ERROR: out of memory") would only repeat the
    // parent's error, which names the file.
    // SAFETY: opening /dev/null and duplicating it over this process's own stderr.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
        if null >= 0 {
            libc::dup2(null, 2);
            libc::close(null);
        }
    }
    // On top of what the child already has mapped (the linker's inputs, libLLVM).
    let mapped = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |pages| pages * page_size());
    let bytes = group.iter().map(|&i| inputs[i].data.len() as u64).sum();
    let space = mapped + address_budget(bytes);
    let limit = libc::rlimit {
        rlim_cur: space,
        rlim_max: space,
    };
    // SAFETY: lowering this process's own limit.
    unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) };
    for &i in group {
        limit_cpu(CPU_SECONDS_PER_INPUT);
        let input = inputs[i];
        match crate::summarize::summarize_bitcode(input.name, input.data) {
            Ok(summary) => write_frame(fd, SUMMARY, &rld_summaries::encode(&summary)),
            Err(LtoError::BadBitcode { msg, .. }) => write_frame(fd, ERROR, msg.as_bytes()),
            Err(e) => write_frame(fd, ERROR, e.to_string().as_bytes()),
        }
    }
    // SAFETY: ending the child without running the parent's exit handlers or flushing
    // its copies of the parent's buffers.
    unsafe { libc::_exit(0) }
}

fn page_size() -> u64 {
    // SAFETY: sysconf only reads a system constant.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(size).unwrap_or(4096)
}

/// Lets this process use `seconds` more CPU time, then SIGXCPU ends it. Only the soft limit
/// moves (an unprivileged process could not raise a hard limit it lowered).
fn limit_cpu(seconds: u64) {
    // SAFETY: reading this process's own usage and limits, and setting its own soft limit.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        let used = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1).max(0) as u64;
        let mut limit: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_CPU, &mut limit) != 0 {
            return;
        }
        limit.rlim_cur = (used + seconds).min(limit.rlim_max);
        libc::setrlimit(libc::RLIMIT_CPU, &limit);
    }
}

/// In a child: reports LLVM's fatal error about the input being read to the parent and
/// ends the child. Returns in the linker's own process.
pub(crate) fn report_fatal_in_child(message: &str) {
    let fd = CHILD_PIPE.load(Ordering::SeqCst);
    if fd >= 0 {
        write_frame(fd, ERROR, message.as_bytes());
        // SAFETY: see `child_main`.
        unsafe { libc::_exit(0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A child that loops is stopped by its CPU limit, and the error says so.
    #[test]
    fn a_looping_child_is_stopped() {
        // SAFETY: the child only spins and is ended by the kernel.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0);
        if pid == 0 {
            limit_cpu(1);
            let mut x = 0u64;
            loop {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        }
        let mut status = 0;
        // SAFETY: waiting for our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGXCPU);
        let e = crashed("x.o", status).to_string();
        assert!(e.contains("x.o") && e.contains("CPU time"), "{e}");
    }

    #[test]
    fn frames_round_trip_and_a_cut_one_is_dropped() {
        let mut bytes = Vec::new();
        for (tag, body) in [(SUMMARY, &b"abc"[..]), (ERROR, b"bad"), (SUMMARY, b"")] {
            bytes.push(tag);
            bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
            bytes.extend_from_slice(body);
        }
        let frames = parse_frames(&bytes);
        assert_eq!(frames.len(), 3);
        assert!(matches!(&frames[1], Frame::Error(m) if m == "bad"));
        assert_eq!(parse_frames(&bytes[..bytes.len() - 1]).len(), 2);
        // A length no buffer has: no frame, no allocation.
        let mut huge = vec![SUMMARY];
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(parse_frames(&huge).is_empty());
    }
}
