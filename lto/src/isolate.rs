//! Running LLVM in child processes: reading untrusted bitcode, and compiling partitions.
//!
//! LLVM's bitcode reader is not hardened: a few flipped bits in a `clang -flto` object can
//! make it dereference garbage or try to allocate terabytes, and neither is an error it
//! reports. So the linker summarizes bitcode it has not seen before in forked children,
//! one per core, each handing back the summaries (in rld's own checked encoding) through a
//! pipe. A child that crashes ends as an error naming the file it was reading, and a child
//! may not grow its address space by more than [`address_budget`], so a header asking for
//! a huge allocation fails there too.
//!
//! The backend then compiles each partition in a child of its own ([`in_child`]), which
//! hands back the object: a process holds one partition's compilation at most, LLVM's
//! memory goes with the child instead of being torn down piece by piece, and an error or a
//! crash in LLVM ends the child, not the link.
//!
//! Forking is safe here because the children only run LLVM on their own work and write to
//! their pipe: glibc makes `malloc` usable after `fork`, and no other thread of the linker
//! holds an LLVM lock while children are at work (the linker's threads only wait for them).

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
/// A [`in_child`] result, as its caller encoded it.
const RESULT: u8 = 2;
/// A [`in_child`] error (see [`encode_error`]).
const FAILED: u8 = 3;

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
    Result(Vec<u8>),
    Failed(Vec<u8>),
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
            Frame::Result(_) | Frame::Failed(_) => Err(LtoError::Llvm(format!(
                "{name}: a summarizing process sent garbage"
            ))),
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
        (parse_frames(bytes), status)
    }
}

/// Frames: a tag byte, a little-endian u64 length, that many bytes. A truncated last
/// frame (the child died writing it) is dropped. The frames' bodies are cut out of
/// `bytes` from the end, each later frame's into a vector of its own, and the first keeps
/// the buffer: a compiled partition's object (one frame, possibly hundreds of megabytes)
/// is not copied.
fn parse_frames(mut bytes: Vec<u8>) -> Vec<Frame> {
    let mut spans = Vec::new();
    let mut at = 0usize;
    while bytes.len() - at >= 9 {
        let tag = bytes[at];
        let len = u64::from_le_bytes(bytes[at + 1..at + 9].try_into().unwrap());
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| l.checked_add(at + 9))
            .filter(|&end| end <= bytes.len());
        let Some(end) = end else {
            break;
        };
        spans.push((tag, at + 9, end));
        at = end;
    }
    let mut frames = Vec::with_capacity(spans.len());
    for &(tag, start, end) in spans.iter().rev() {
        bytes.truncate(end);
        let body = if start == 9 {
            // The first frame: its body is what is left of the buffer past the header.
            bytes.drain(..9);
            std::mem::take(&mut bytes)
        } else {
            bytes.split_off(start)
        };
        frames.push(match tag {
            SUMMARY => Frame::Summary(body),
            RESULT => Frame::Result(body),
            FAILED => Frame::Failed(body),
            _ => Frame::Error(String::from_utf8_lossy(&body).into_owned()),
        });
    }
    frames.reverse();
    frames
}

fn write_frame(fd: libc::c_int, tag: u8, body: &[u8]) {
    let mut header = [0u8; 9];
    header[0] = tag;
    header[1..].copy_from_slice(&(body.len() as u64).to_le_bytes());
    for mut rest in [&header[..], body] {
        while !rest.is_empty() {
            // SAFETY: writing our own buffer to our own pipe.
            let n = unsafe { libc::write(fd, rest.as_ptr().cast(), rest.len()) };
            if n <= 0 {
                if n < 0
                    && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                {
                    continue;
                }
                return;
            }
            rest = &rest[n as usize..];
        }
    }
}

/// Forks a child that summarizes `inputs[i]` for each `i` of `group`, in order.
fn spawn(inputs: &[&BitcodeInput], group: &[usize]) -> Option<Child> {
    fork_child(ChildKind::Summaries, |fd| child_main(inputs, group, fd))
}

/// What a child does, for LLVM's fatal-error handler to report in the child's terms.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ChildKind {
    Summaries = 1,
    Work = 2,
}

/// In a child, its kind (0 in the linker's own process).
static CHILD_KIND: AtomicI32 = AtomicI32::new(0);

/// Forks a child that runs `body` with the write end of a pipe whose read end the returned
/// [`Child`] holds, then ends the child. `None` where no child could be started.
///
/// Forks are made one at a time, and the parent closes its copy of a child's write end
/// before the next fork: otherwise a sibling forked in between would hold that end open,
/// and the parent would not see the end of the first child's output until the sibling
/// ended too. Once a fork failed, none is tried again: the callers then run LLVM in this
/// process, and no thread may fork while another runs LLVM (it could hold LLVM's locks).
fn fork_child(kind: ChildKind, body: impl FnOnce(libc::c_int)) -> Option<Child> {
    static FORKING: std::sync::Mutex<bool> = std::sync::Mutex::new(false);
    let mut failed = FORKING.lock().unwrap_or_else(|e| e.into_inner());
    if *failed {
        return None;
    }
    let mut fds = [0; 2];
    // SAFETY: a plain pipe(2) into a local array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        *failed = true;
        return None;
    }
    // SAFETY: both descriptors were just created and are owned here alone.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // A pipe of 1 MiB rather than 64 KiB: a partition's object (megabytes, at times a
    // gigabyte) crosses in a sixteenth of the wake-ups. Where the system refuses (a lower
    // `/proc/sys/fs/pipe-max-size`), the pipe keeps its size.
    // SAFETY: fcntl on a descriptor owned here.
    unsafe { libc::fcntl(write.as_raw_fd(), libc::F_SETPIPE_SZ, 1 << 20) };
    // SAFETY: getpid on this process.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the child only runs `body` and ends (see the module's note on why that is
    // safe after fork in a threaded process).
    match unsafe { libc::fork() } {
        -1 => {
            *failed = true;
            None
        }
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
            let fd = write.as_raw_fd();
            CHILD_PIPE.store(fd, Ordering::SeqCst);
            CHILD_KIND.store(kind as i32, Ordering::SeqCst);
            body(fd);
            // SAFETY: ending the child without running the parent's exit handlers or
            // flushing its copies of the parent's buffers.
            unsafe { libc::_exit(0) }
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

/// In a child: reports LLVM's fatal error to the parent (a summarizing child sends
/// `reason`, the parent names the input; any other sends `error`) and ends the child.
/// Returns in the linker's own process.
pub(crate) fn report_fatal_in_child(reason: &str, error: &LtoError) {
    let fd = CHILD_PIPE.load(Ordering::SeqCst);
    if fd < 0 {
        return;
    }
    if CHILD_KIND.load(Ordering::SeqCst) == ChildKind::Summaries as i32 {
        write_frame(fd, ERROR, reason.as_bytes());
    } else {
        write_frame(fd, FAILED, &encode_error(error));
    }
    // SAFETY: see `child_main`.
    unsafe { libc::_exit(0) }
}

/// Runs `work` in a forked child and returns the bytes it made, passed back through a
/// pipe; `None` where no child could be started (the caller then does the work itself).
/// LLVM's memory in the child goes with the child, at once, instead of being torn down
/// piece by piece, and a crash in LLVM ends the child, not the link: the error says what
/// it was doing (`what`: "compiling partition 3").
pub(crate) fn in_child(
    what: &str,
    work: impl FnOnce() -> Result<Vec<u8>, LtoError>,
) -> Option<Result<Vec<u8>, LtoError>> {
    let child = fork_child(ChildKind::Work, |fd| match work() {
        Ok(bytes) => write_frame(fd, RESULT, &bytes),
        Err(e) => write_frame(fd, FAILED, &encode_error(&e)),
    })?;
    let (frames, status) = child.finish();
    let garbage = || LtoError::Llvm(format!("{what}: the compiling process sent garbage"));
    Some(match frames.into_iter().next() {
        Some(Frame::Result(bytes)) => Ok(bytes),
        Some(Frame::Failed(bytes)) => Err(decode_error(&bytes).unwrap_or_else(garbage)),
        Some(_) => Err(garbage()),
        None => Err(LtoError::Llvm(format!("{what}: {}", died(status)))),
    })
}

/// How a working child ended without a result.
fn died(status: libc::c_int) -> String {
    if libc::WIFSIGNALED(status) {
        match libc::WTERMSIG(status) {
            libc::SIGSEGV | libc::SIGBUS | libc::SIGILL => "LLVM crashed".to_string(),
            libc::SIGABRT => "LLVM gave up (out of memory?)".to_string(),
            libc::SIGKILL => "the process was killed (out of memory?)".to_string(),
            sig => format!("the process was stopped by signal {sig}"),
        }
    } else {
        // LLVM's own diagnostics, printed before it exits, say why.
        format!("LLVM failed (exit status {})", libc::WEXITSTATUS(status))
    }
}

/// An [`LtoError`] as a child sends it: a kind byte, then its fields as length-prefixed
/// strings (an I/O error also its OS error number, or -1).
fn encode_error(e: &LtoError) -> Vec<u8> {
    fn put(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&(s.len() as u64).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    let mut out = Vec::new();
    match e {
        LtoError::BadBitcode { file, msg } => {
            out.push(0);
            put(&mut out, file);
            put(&mut out, msg);
        }
        LtoError::Io { path, source } => {
            out.push(1);
            put(&mut out, path);
            out.extend_from_slice(&source.raw_os_error().unwrap_or(-1).to_le_bytes());
            put(&mut out, &source.to_string());
        }
        LtoError::Llvm(msg) => {
            out.push(2);
            put(&mut out, msg);
        }
    }
    out
}

fn decode_error(mut bytes: &[u8]) -> Option<LtoError> {
    fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
        let head = bytes.get(..n)?;
        *bytes = &bytes[n..];
        Some(head)
    }
    fn string(bytes: &mut &[u8]) -> Option<String> {
        let n = u64::from_le_bytes(take(bytes, 8)?.try_into().ok()?);
        let s = take(bytes, usize::try_from(n).ok()?)?;
        Some(String::from_utf8_lossy(s).into_owned())
    }
    let kind = take(&mut bytes, 1)?[0];
    let e = match kind {
        0 => LtoError::BadBitcode {
            file: string(&mut bytes)?,
            msg: string(&mut bytes)?,
        },
        1 => {
            let path = string(&mut bytes)?;
            let code = i32::from_le_bytes(take(&mut bytes, 4)?.try_into().ok()?);
            let msg = string(&mut bytes)?;
            let source = if code >= 0 {
                std::io::Error::from_raw_os_error(code)
            } else {
                std::io::Error::other(msg)
            };
            LtoError::Io { path, source }
        }
        2 => LtoError::Llvm(string(&mut bytes)?),
        _ => return None,
    };
    bytes.is_empty().then_some(e)
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

    /// Work done in a child comes back, its errors come back as they were, and a child
    /// that dies says what it was doing.
    #[test]
    fn work_in_a_child_comes_back_and_so_do_its_errors() {
        let done = in_child("adding", || Ok(vec![1, 2, 3])).expect("no child");
        assert_eq!(done.unwrap(), [1, 2, 3]);
        let errors = || {
            [
                LtoError::BadBitcode {
                    file: "a.o".into(),
                    msg: "bad record".into(),
                },
                LtoError::Io {
                    path: "/x/cache".into(),
                    source: std::io::Error::from_raw_os_error(libc::ENOSPC),
                },
                LtoError::Llvm("LLVM failed: out of registers".into()),
            ]
        };
        for (i, e) in errors().into_iter().enumerate() {
            let back = in_child("failing", || Err(errors().into_iter().nth(i).unwrap()));
            assert_eq!(
                back.expect("no child").unwrap_err().to_string(),
                e.to_string()
            );
        }
        let died = in_child("compiling partition 7", || std::process::abort()).expect("no child");
        let e = died.unwrap_err().to_string();
        assert!(
            e.contains("compiling partition 7") && e.contains("gave up"),
            "{e}"
        );
    }

    #[test]
    fn frames_round_trip_and_a_cut_one_is_dropped() {
        let mut bytes = Vec::new();
        for (tag, body) in [(SUMMARY, &b"abc"[..]), (ERROR, b"bad"), (SUMMARY, b"")] {
            bytes.push(tag);
            bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
            bytes.extend_from_slice(body);
        }
        let frames = parse_frames(bytes.clone());
        assert_eq!(frames.len(), 3);
        assert!(matches!(&frames[0], Frame::Summary(b) if b == b"abc"));
        assert!(matches!(&frames[1], Frame::Error(m) if m == "bad"));
        assert!(matches!(&frames[2], Frame::Summary(b) if b.is_empty()));
        // One frame: its body is the buffer it came in.
        let mut one = vec![RESULT];
        one.extend_from_slice(&5u64.to_le_bytes());
        one.extend_from_slice(b"objectTRAILING");
        let frames = parse_frames(one);
        assert!(matches!(&frames[..], [Frame::Result(b)] if b == b"objec"));
        assert_eq!(parse_frames(bytes[..bytes.len() - 1].to_vec()).len(), 2);
        // A length no buffer has: no frame, no allocation.
        let mut huge = vec![SUMMARY];
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(parse_frames(huge.clone()).is_empty());
    }
}
