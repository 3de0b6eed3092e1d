//! Where the output goes, and how it gets there without ever leaving a half-written file.
//!
//! A regular file (or a path that does not exist yet) is written under a temporary name in
//! its directory and renamed into place only when the link succeeded, so a failed link leaves
//! no file behind and an existing output intact. The temporary file is created exclusively
//! under an unpredictable name (a planted file or symlink is never opened), with the mode
//! the umask gives a new executable (`0777 & ~umask`; `0666` for `-r`), as GNU ld and lld
//! do, and removed if the link is interrupted (SIGINT, SIGTERM, SIGHUP). Anything else — a character device such as
//! `/dev/null`, a FIFO, a socket, or a symlink to one — is opened and written into, as GNU ld
//! and lld do: renaming over it would replace a device node with a regular file. `-o -` writes
//! to standard output (lld's convention). The image is built in memory (advised to use
//! transparent huge pages) and written to the temporary file as its parts are finished, or
//! in one go at commit; to a device or standard output only at commit, so a failed link
//! writes nothing there.
//!
//! An executable's previous output is written over in place when that is safe (see
//! [`PendingOutput::reusing_previous`]): the kernel then has its pages and disk blocks
//! already, and writing into them is much cheaper than into a new file (mold does the
//! same).

use crate::error::{LinkError, Result};
use rld_lto_api::interrupt;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// A temporary file's name, guarded from before the file exists: an interrupting signal
/// removes the file until the guard is dropped (the file renamed or removed).
struct Temporary {
    path: PathBuf,
    _guard: interrupt::Guard,
}

impl Temporary {
    fn new(path: PathBuf) -> Temporary {
        let guard = interrupt::Guard::new(&path);
        Temporary {
            path,
            _guard: guard,
        }
    }
}

/// The output being produced: nothing is visible at its destination until [`commit`].
///
/// [`commit`]: PendingOutput::commit
pub struct PendingOutput {
    dest: Destination,
    /// Permissions of a new regular file, before the umask.
    mode: u32,
    /// The temporary file of a regular-file destination, removed unless committed.
    tmp: Option<Temporary>,
    committed: bool,
    /// The previous output may be written over in place.
    reuse: bool,
}

enum Destination {
    /// Renamed into place.
    RegularFile(PathBuf),
    /// Opened and written at commit (devices, FIFOs, symlinks to them).
    Special(PathBuf),
    Stdout,
}

/// The output's bytes while they are being written (zero-filled anonymous memory), and the
/// temporary file they go to.
pub struct OutputBuffer {
    map: memmap2::MmapMut,
    /// The image's size (the mapping is at least a byte: an empty one cannot be made).
    len: usize,
    /// The temporary file the image is written to at commit (a regular-file destination).
    file: Option<std::fs::File>,
    /// Whether what is never written of `file` reads as zeros: a new file, not the
    /// previous output written over in place.
    fresh: bool,
}

impl OutputBuffer {
    /// The file the image goes to at commit, for a writer that writes finished parts of
    /// it there at once (with [`OutputBuffer::written_through`] then); None when the image
    /// goes to a device or standard output.
    pub fn file(&self) -> Option<std::fs::File> {
        self.file.as_ref().and_then(|f| f.try_clone().ok())
    }

    /// Whether what the writer leaves unwritten of [`OutputBuffer::file`] reads as zeros
    /// (otherwise it holds the previous output's bytes: see [`zero_range`]).
    pub fn unwritten_reads_zero(&self) -> bool {
        self.fresh
    }

    /// A buffer of `size` bytes for another image of the same output (`--oformat binary`'s
    /// flat image of the ELF image in this one), the file resized to it.
    pub fn resized(&self, size: u64) -> std::io::Result<OutputBuffer> {
        let len = usize::try_from(size)
            .map_err(|_| std::io::Error::other("output too large for this machine"))?;
        // An empty mapping cannot be made: one byte, of which the file takes none.
        let map = memmap2::MmapMut::map_anon(len.max(1))?;
        let file = match &self.file {
            Some(f) => {
                let f = f.try_clone()?;
                f.set_len(size)?;
                Some(f)
            }
            None => None,
        };
        Ok(OutputBuffer {
            map,
            file,
            fresh: self.fresh,
            len,
        })
    }

    /// Says the writer put every byte of the image in [`OutputBuffer::file`] itself.
    pub fn written_through(&mut self) {
        self.file = None;
    }
}

/// Writes `bytes` at `offset` of `file`, in pieces written at once by the pool's threads.
/// With `skip_zeros` (the file reads zeros wherever nothing was written: a new file), a
/// block of 64 KiB that is all zeros is not written, so that a long run of padding (an
/// alignment in an input can ask for gigabytes) leaves a hole, as lld's output has, rather
/// than blocks on disk.
pub fn write_in_parallel(
    file: &std::fs::File,
    bytes: &[u8],
    offset: u64,
    skip_zeros: bool,
) -> std::io::Result<()> {
    use rayon::prelude::*;
    use std::os::unix::fs::FileExt;
    const PIECE: usize = 4 << 20;
    const BLOCK: usize = 64 << 10;
    bytes
        .par_chunks(PIECE)
        .enumerate()
        .try_for_each(|(i, piece)| {
            let at = offset + (i * PIECE) as u64;
            if !skip_zeros {
                return file.write_all_at(piece, at);
            }
            // Runs of blocks that are not all zeros, each written at once.
            let mut run: Option<usize> = None;
            for (k, block) in piece.chunks(BLOCK).enumerate() {
                let zero = block.iter().all(|&b| b == 0);
                match (run, zero) {
                    (None, false) => run = Some(k * BLOCK),
                    (Some(from), true) => {
                        file.write_all_at(&piece[from..k * BLOCK], at + from as u64)?;
                        run = None;
                    }
                    _ => {}
                }
            }
            match run {
                Some(from) => file.write_all_at(&piece[from..], at + from as u64),
                None => Ok(()),
            }
        })
}

/// Makes `len` bytes of `file` from `offset` zeros without writing them where the file
/// system can (a hole, as a gap never written in a new file is); writes zeros otherwise.
pub fn zero_range(file: &std::fs::File, offset: u64, len: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::FileExt;
    let (Ok(at), Ok(n)) = (libc::off_t::try_from(offset), libc::off_t::try_from(len)) else {
        return Err(std::io::Error::from_raw_os_error(libc::EFBIG));
    };
    // SAFETY: fallocate reads no memory of ours; the descriptor is open for the call.
    let punched = unsafe {
        libc::fallocate(
            file.as_raw_fd(),
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            at,
            n,
        )
    };
    if punched == 0 {
        return Ok(());
    }
    const PIECE: u64 = 1 << 20;
    let zeros = vec![0u8; PIECE.min(len) as usize];
    let mut done = 0;
    while done < len {
        let piece = PIECE.min(len - done) as usize;
        file.write_all_at(&zeros[..piece], offset + done)?;
        done += piece as u64;
    }
    Ok(())
}

impl std::ops::Deref for OutputBuffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map[..self.len]
    }
}

impl std::ops::DerefMut for OutputBuffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.map[..self.len]
    }
}

impl PendingOutput {
    /// Decides how `dest` will be written: an executable file (`executable`: anything but
    /// `-r` output) or not. `stat` follows symlinks on purpose: a symlink to a device is
    /// written through, a symlink to a regular file is replaced like the file.
    pub fn new(dest: &Path, executable: bool) -> Result<PendingOutput> {
        let dest = if dest.as_os_str() == "-" {
            Destination::Stdout
        } else {
            match std::fs::metadata(dest) {
                Ok(m) if m.is_dir() => {
                    return Err(LinkError::cannot_open_output(
                        dest,
                        std::io::Error::from_raw_os_error(libc::EISDIR),
                    ))
                }
                Ok(m) if !m.is_file() => Destination::Special(dest.to_path_buf()),
                _ => Destination::RegularFile(dest.to_path_buf()),
            }
        };
        // Before any temporary file exists: a signal must never find one unguarded.
        interrupt::install();
        Ok(PendingOutput {
            dest,
            mode: if executable { 0o777 } else { 0o666 },
            tmp: None,
            committed: false,
            reuse: false,
        })
    }

    /// Lets [`buffer`] write over the previous output in place, when it is a regular file
    /// of rld's user with no other name and the kernel refuses to open a running program
    /// for writing (ETXTBSY; Linux 6.11 and 6.12 do not): a program started from the old
    /// file keeps its own. The caller asks only for executables: a shared library may be
    /// mapped by running processes, which the kernel does not protect.
    ///
    /// [`buffer`]: PendingOutput::buffer
    pub fn reusing_previous(mut self, reuse: bool) -> PendingOutput {
        self.reuse = reuse && kernel_refuses_writing_running_programs();
        self
    }

    /// A zero-filled buffer of `size` bytes for the output image.
    pub fn buffer(&mut self, size: u64) -> Result<OutputBuffer> {
        let display = match &self.dest {
            Destination::RegularFile(path) | Destination::Special(path) => path.as_path(),
            Destination::Stdout => Path::new("-"),
        };
        let len = usize::try_from(size).map_err(|_| {
            LinkError::io(
                display,
                std::io::Error::other("output too large for this machine"),
            )
        })?;
        // The image is anonymous memory, which can take transparent huge pages and costs
        // nothing where it is never touched (a writer that sends its parts to the file
        // from buffers of its own writes only the headers here); writing through a mapping
        // of the file would cost a page fault, and the file system's work, per 4 KiB page.
        let map = memmap2::MmapMut::map_anon(len.max(1)).map_err(|e| LinkError::io(display, e))?;
        let _ = map.advise(memmap2::Advice::HugePage);
        let mut file = None;
        let mut fresh = true;
        if let Destination::RegularFile(dest) = &self.dest {
            let previous = self.reuse.then(|| take_previous(dest, self.mode)).flatten();
            fresh = previous.is_none();
            let (f, tmp) = match previous {
                Some(taken) => taken,
                None => {
                    release_in_background(dest);
                    create_temporary(dest, self.mode)?
                }
            };
            self.tmp = Some(tmp);
            f.set_len(size).map_err(|e| LinkError::io(dest, e))?;
            file = Some(f);
        }
        Ok(OutputBuffer {
            map,
            len,
            file,
            fresh,
        })
    }

    /// Makes the finished image visible at the destination.
    pub fn commit(mut self, image: OutputBuffer) -> Result<()> {
        // `--fatal-warnings`: a warning was an error, and an error leaves no output.
        if crate::diag::failed() {
            return Err(crate::error::LinkError::Link(
                "warnings are errors (--fatal-warnings); no output written".into(),
            ));
        }
        match &self.dest {
            Destination::RegularFile(dest) => {
                if let Some(file) = &image.file {
                    write_in_parallel(file, &image, 0, image.fresh)
                        .map_err(|e| LinkError::io(dest, e))?;
                }
                // The file's pages are the kernel's to write back: no fsync, like other
                // linkers.
                drop(image);
                let tmp = self
                    .tmp
                    .as_ref()
                    .expect("buffer() created the temporary file");
                std::fs::rename(&tmp.path, dest).map_err(|e| LinkError::io(dest, e))?;
                // Renamed: no longer the temporary file to remove.
                self.tmp = None;
            }
            Destination::Special(path) => {
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| LinkError::io(path, e))?;
                f.write_all(&image).map_err(|e| LinkError::io(path, e))?;
            }
            Destination::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(&image)
                    .and_then(|()| out.flush())
                    .map_err(|e| LinkError::io("-", e))?;
            }
        }
        self.committed = true;
        Ok(())
    }

    /// Writes `bytes` as the whole output.
    pub fn write_all(mut self, bytes: &[u8]) -> Result<()> {
        let mut image = self.buffer(bytes.len() as u64)?;
        image.copy_from_slice(bytes);
        self.commit(image)
    }
}

impl Drop for PendingOutput {
    fn drop(&mut self) {
        if let (false, Some(tmp)) = (self.committed, self.tmp.take()) {
            let _ = std::fs::remove_file(&tmp.path);
        }
    }
}

/// Moves the previous output at `dest` to a temporary name and opens it for writing, with
/// the mode a new file would get, so the output is as if new. None, with `dest` as it was,
/// where that is not safe or possible: not a regular file with this one name, another
/// user's, small (nothing to gain), or a running program (ETXTBSY).
fn take_previous(dest: &Path, mode: u32) -> Option<(std::fs::File, Temporary)> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
    let owned_single_file = |m: &std::fs::Metadata| {
        // SAFETY: geteuid has no preconditions and cannot fail.
        let euid = unsafe { libc::geteuid() };
        m.is_file() && m.nlink() == 1 && m.uid() == euid && m.len() >= 1 << 20
    };
    if !std::fs::symlink_metadata(dest).is_ok_and(|m| owned_single_file(&m)) {
        return None;
    }
    // A new file gives the name (exclusive, unpredictable) and the mode the umask makes.
    let (fresh, tmp) = create_temporary(dest, mode).ok()?;
    // Not taken after all: the temporary name is given up (and no longer guarded).
    let give_up = |tmp: Temporary| {
        let _ = std::fs::remove_file(&tmp.path);
        None
    };
    let Ok(meta) = fresh.metadata() else {
        return give_up(tmp);
    };
    let new_mode = meta.permissions().mode() & 0o7777;
    drop(fresh);
    // Over the new file, which only loses its name.
    if std::fs::rename(dest, &tmp.path).is_err() {
        return give_up(tmp);
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp.path)
        .ok()
        // Checked again: `dest` may have changed since it was looked at.
        .filter(|f| f.metadata().is_ok_and(|m| owned_single_file(&m)))
        .filter(|f| {
            f.set_permissions(std::fs::Permissions::from_mode(new_mode))
                .is_ok()
        });
    match file {
        Some(file) => Some((file, tmp)),
        None => {
            if std::fs::rename(&tmp.path, dest).is_ok() {
                return None;
            }
            // `dest` was taken meanwhile; what was there would have been replaced anyway.
            give_up(tmp)
        }
    }
}

/// Whether opening a running program for writing fails with ETXTBSY on this kernel.
fn kernel_refuses_writing_running_programs() -> bool {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .is_ok_and(|release| release_refuses_writing_running_programs(release.trim()))
}

/// Linux refuses to open a running program for writing (ETXTBSY), except in 6.11 and 6.12
/// (mold reads the version the same way).
fn release_refuses_writing_running_programs(release: &str) -> bool {
    let mut parts = release
        .split(|c: char| !c.is_ascii_digit())
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let version = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    !((6, 11)..(6, 13)).contains(&version)
}

/// Removes the previous output while the new one is written. Deleting a large file is slow
/// (the kernel frees its cached pages when the last reference goes), and renaming the new
/// output over it would make the link wait for that. As lld and mold do, the old file loses
/// its name now, at the point where the output is about to be written, and a background
/// thread drops the last reference to it. Only a regular file with no other name is worth
/// it; anything else is left to the rename.
fn release_in_background(dest: &Path) {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::symlink_metadata(dest) else {
        return;
    };
    if !meta.is_file() || meta.nlink() != 1 || meta.len() < 1 << 20 {
        return;
    }
    let Ok(old) = std::fs::File::open(dest) else {
        return;
    };
    if std::fs::remove_file(dest).is_ok() {
        std::thread::spawn(move || drop(old));
    }
}

/// Creates the temporary file beside `dest`: a new file (never an existing one, nor what a
/// symlink there points to) under a name nobody can predict, so no one can make rld write
/// or chmod a file of their choosing. Errors name the output, which is what the user asked
/// for.
fn create_temporary(dest: &Path, mode: u32) -> Result<(std::fs::File, Temporary)> {
    use std::hash::{BuildHasher, Hasher};
    use std::os::unix::fs::OpenOptionsExt;
    let name = dest
        .file_name()
        .map_or_else(|| "a.out".into(), |n| n.to_string_lossy().into_owned());
    // Each RandomState is keyed from the system's random source.
    let random = std::collections::hash_map::RandomState::new();
    let mut last = None;
    for attempt in 0..16u32 {
        let mut h = random.build_hasher();
        h.write_u32(std::process::id());
        h.write_u32(attempt);
        let tmp = dest.with_file_name(format!(".{name}.rld-{:016x}.tmp", h.finish()));
        // Guarded from before it exists: a signal right after it is created removes it.
        let tmp = Temporary::new(tmp);
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp.path)
        {
            Ok(file) => return Ok((file, tmp)),
            Err(e) => {
                drop(tmp);
                if e.kind() != std::io::ErrorKind::AlreadyExists {
                    return Err(LinkError::cannot_open_output(dest, e));
                }
                last = Some(e);
            }
        }
    }
    Err(LinkError::io(
        dest,
        last.unwrap_or_else(|| std::io::Error::other("no temporary file could be created")),
    ))
}

#[cfg(test)]
mod tests {
    use super::release_refuses_writing_running_programs as refuses;

    #[test]
    fn only_linux_6_11_and_6_12_let_running_programs_be_written() {
        for release in [
            "5.15.0-91-generic",
            "6.10.14",
            "6.13.0",
            "6.18.44-fc-v669",
            "7.0",
        ] {
            assert!(refuses(release), "{release}");
        }
        for release in ["6.11.0-rc1", "6.12.3-arch1"] {
            assert!(!refuses(release), "{release}");
        }
    }
}
