//! Pruning the LTO cache after a link, as lld prunes its cache (LLVM's `pruneCache`, with
//! the policy of [`CachePolicy`]): rld's entries (`.rldpart` objects, `.rldsum`
//! summaries; nothing else in the directory) unused longer than the policy's expiration go,
//! and then the least recently used until the cache is within its size and count limits.
//! A timestamp file keeps pruning to once per interval. An entry's time is when it was
//! last written or used: a link that reuses an entry marks it ([`touch`]), so that a
//! cache on a file system that does not record access times keeps what is used.
//! Pruning never fails a link: what cannot be read or removed is left alone.

use rld_lto_api::CachePolicy;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The file whose modification time says when the cache was last pruned.
const TIMESTAMP: &str = "rldcache.timestamp";

/// Whether `name` is one of rld's cache entries.
fn is_entry(name: &str) -> bool {
    name.ends_with(".rldpart") || name.ends_with(".rldsum")
}

/// Marks an entry used now.
pub fn touch(path: &Path) {
    if let Ok(file) = std::fs::File::options().append(true).open(path) {
        let _ = file.set_modified(SystemTime::now());
    }
}

/// Prunes `dir` by `policy`, unless it was pruned less than an interval ago. Returns how
/// many entries were removed.
pub fn prune(dir: &Path, policy: &CachePolicy) -> usize {
    if !policy.prunes() {
        return 0;
    }
    let now = SystemTime::now();
    let stamp = dir.join(TIMESTAMP);
    if !policy.interval.is_zero() {
        let last = std::fs::metadata(&stamp).and_then(|m| m.modified());
        if let Ok(last) = last {
            if now.duration_since(last).unwrap_or_default() < policy.interval {
                return 0;
            }
        }
    }
    let _ = std::fs::write(&stamp, b"");
    let Ok(listing) = std::fs::read_dir(dir) else {
        return 0;
    };
    // (last used, size, path) of every entry.
    let mut entries: Vec<(SystemTime, u64, PathBuf)> = listing
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(is_entry))
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            Some((meta.modified().ok()?, meta.len(), e.path()))
        })
        .collect();
    let mut removed = 0;
    let mut remove = |path: &Path| {
        if std::fs::remove_file(path).is_ok() {
            removed += 1;
        }
    };
    if !policy.expiration.is_zero() {
        entries.retain(|(used, _, path)| {
            let age = now.duration_since(*used).unwrap_or(Duration::ZERO);
            let expired = age > policy.expiration;
            if expired {
                remove(path);
            }
            !expired
        });
    }
    let total: u64 = entries.iter().map(|e| e.1).sum();
    let mut limit = u64::MAX;
    if policy.max_percent_of_available != 0 {
        if let Some(free) = free_space(dir) {
            let available = total.saturating_add(free);
            limit = available / 100 * u64::from(policy.max_percent_of_available);
        }
    }
    if policy.max_bytes != 0 {
        limit = limit.min(policy.max_bytes);
    }
    let max_files = if policy.max_files == 0 {
        u64::MAX
    } else {
        policy.max_files
    };
    // Least recently used first.
    entries.sort();
    let (mut size, mut count) = (total, entries.len() as u64);
    for (_, len, path) in &entries {
        if size <= limit && count <= max_files {
            break;
        }
        remove(path);
        size -= len;
        count -= 1;
    }
    removed
}

/// Bytes free for an unprivileged user on the file system holding `dir`.
fn free_space(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt as _;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is NUL-terminated and `stat` is a writable statvfs; it is read only
    // when the call succeeded and filled it.
    let ok = unsafe { libc::statvfs(path.as_ptr(), stat.as_mut_ptr()) } == 0;
    if !ok {
        return None;
    }
    // SAFETY: statvfs succeeded, so `stat` is initialized.
    let stat = unsafe { stat.assume_init() };
    Some(stat.f_bavail.saturating_mul(stat.f_frsize))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("rld-prune-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// An entry of `size` bytes last used `age` ago.
    fn entry(dir: &Path, name: &str, size: usize, age: Duration) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, vec![0u8; size]).unwrap();
        let file = std::fs::File::options().append(true).open(&path).unwrap();
        file.set_modified(SystemTime::now() - age).unwrap();
        path
    }

    const HOUR: Duration = Duration::from_secs(3600);

    #[test]
    fn old_entries_go_then_the_least_recently_used_over_the_limits() {
        let dir = scratch("limits");
        let old = entry(&dir, "a.rldpart", 10, 200 * HOUR);
        let oldest_kept = entry(&dir, "b.rldsum", 100, 3 * HOUR);
        let newer = entry(&dir, "c.rldpart", 100, 2 * HOUR);
        let newest = entry(&dir, "d.rldpart", 100, HOUR);
        let other = entry(&dir, "notes.txt", 10, 500 * HOUR);
        let policy = CachePolicy::parse("prune_interval=0s:cache_size_bytes=250").unwrap();
        assert_eq!(prune(&dir, &policy), 2);
        assert!(!old.exists() && !oldest_kept.exists());
        assert!(newer.exists() && newest.exists());
        assert!(other.exists(), "only rld's entries are pruned");
        let by_count = CachePolicy::parse("prune_interval=0s:cache_size_files=1").unwrap();
        assert_eq!(prune(&dir, &by_count), 1);
        assert!(!newer.exists() && newest.exists());
    }

    #[test]
    fn pruning_waits_for_the_interval_and_a_used_entry_stays() {
        let dir = scratch("interval");
        let used = entry(&dir, "a.rldpart", 10, 300 * HOUR);
        touch(&used);
        let unused = entry(&dir, "b.rldpart", 10, 300 * HOUR);
        let policy = CachePolicy::default();
        assert_eq!(prune(&dir, &policy), 1);
        assert!(used.exists() && !unused.exists());
        let again = entry(&dir, "c.rldpart", 10, 300 * HOUR);
        assert_eq!(prune(&dir, &policy), 0, "pruned less than an interval ago");
        assert!(again.exists());
    }
}
