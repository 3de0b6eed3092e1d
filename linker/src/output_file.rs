//! Where the output goes, and how it gets there without ever leaving a half-written file.
//!
//! A regular file (or a path that does not exist yet) is written under a temporary name in
//! its directory and renamed into place only when the link succeeded, so a failed link leaves
//! no file behind and an existing output intact. Anything else — a character device such as
//! `/dev/null`, a FIFO, a socket, or a symlink to one — is opened and written into, as GNU ld
//! and lld do: renaming over it would replace a device node with a regular file. `-o -` writes
//! to standard output (lld's convention). In those cases the image is built in memory first
//! and written in one go at commit, so a failed link writes nothing there either.

use crate::error::{LinkError, Result};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The output being produced: nothing is visible at its destination until [`commit`].
///
/// [`commit`]: PendingOutput::commit
pub struct PendingOutput {
    dest: Destination,
    /// The temporary file of a regular-file destination, removed unless committed.
    tmp: Option<PathBuf>,
    committed: bool,
}

enum Destination {
    /// Renamed into place.
    RegularFile(PathBuf),
    /// Opened and written at commit (devices, FIFOs, symlinks to them).
    Special(PathBuf),
    Stdout,
}

/// The output's bytes while they are being written: a mapping of the temporary file, or
/// anonymous memory for a destination that is not a regular file.
pub struct OutputBuffer {
    map: memmap2::MmapMut,
}

impl std::ops::Deref for OutputBuffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map
    }
}

impl std::ops::DerefMut for OutputBuffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.map
    }
}

impl PendingOutput {
    /// Decides how `dest` will be written. `stat` follows symlinks on purpose: a symlink to
    /// a device is written through, a symlink to a regular file is replaced like the file.
    pub fn new(dest: &Path) -> Result<PendingOutput> {
        let dest = if dest.as_os_str() == "-" {
            Destination::Stdout
        } else {
            match std::fs::metadata(dest) {
                Ok(m) if m.is_dir() => {
                    return Err(LinkError::io(
                        dest,
                        std::io::Error::other("cannot write the output: it is a directory"),
                    ))
                }
                Ok(m) if !m.is_file() => Destination::Special(dest.to_path_buf()),
                _ => Destination::RegularFile(dest.to_path_buf()),
            }
        };
        Ok(PendingOutput {
            dest,
            tmp: None,
            committed: false,
        })
    }

    /// A zero-filled buffer of `size` bytes for the output image.
    pub fn buffer(&mut self, size: u64) -> Result<OutputBuffer> {
        let too_big = |path: &Path| {
            LinkError::io(
                path,
                std::io::Error::other("output too large for this machine"),
            )
        };
        let map = match &self.dest {
            Destination::RegularFile(dest) => {
                let tmp = temporary_path(dest);
                let file = std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(&tmp)
                    .map_err(|e| LinkError::io(&tmp, e))?;
                self.tmp = Some(tmp.clone());
                file.set_len(size).map_err(|e| LinkError::io(&tmp, e))?;
                // SAFETY: the temporary file was just created by this process under a name
                // of its own, and nothing else maps or truncates it while the map lives.
                unsafe { memmap2::MmapMut::map_mut(&file) }.map_err(|e| LinkError::io(&tmp, e))?
            }
            Destination::Special(path) => {
                let len = usize::try_from(size).map_err(|_| too_big(path))?;
                memmap2::MmapMut::map_anon(len).map_err(|e| LinkError::io(path, e))?
            }
            Destination::Stdout => {
                let len = usize::try_from(size).map_err(|_| too_big(Path::new("-")))?;
                memmap2::MmapMut::map_anon(len).map_err(|e| LinkError::io("-", e))?
            }
        };
        Ok(OutputBuffer { map })
    }

    /// Makes the finished image visible at the destination.
    pub fn commit(mut self, image: OutputBuffer) -> Result<()> {
        match &self.dest {
            Destination::RegularFile(dest) => {
                let tmp = self
                    .tmp
                    .clone()
                    .expect("buffer() created the temporary file");
                // Unmapping hands the pages to the kernel; no msync, like other linkers.
                drop(image);
                set_executable(&tmp)?;
                std::fs::rename(&tmp, dest).map_err(|e| LinkError::io(dest, e))?;
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
        if let (false, Some(tmp)) = (self.committed, &self.tmp) {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

fn temporary_path(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map_or_else(|| "a.out".into(), |n| n.to_string_lossy().into_owned());
    dest.with_file_name(format!(".{name}.rld-{}.tmp", std::process::id()))
}

fn set_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| LinkError::io(path, e))
}
