//! The LTO cache's pruning policy (`--thinlto-cache-policy=`, `-plugin-opt=cache-policy=`),
//! in the syntax and with the defaults of LLVM's `CachePruningPolicy`, which lld applies
//! after every link that uses a cache: entries unused for a week go, and the cache is kept
//! within three quarters of the disk space it could have, at most once every 20 minutes.

use std::time::Duration;

/// When and what the cache is pruned to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CachePolicy {
    /// `prune_interval`: pruning happens at most this often (zero: after every link).
    pub interval: Duration,
    /// `prune_after`: an entry unused this long is removed (zero: never for its age).
    pub expiration: Duration,
    /// `cache_size=N%`: the cache stays within N% of its size and the free disk space
    /// (0: no such limit).
    pub max_percent_of_available: u8,
    /// `cache_size_bytes`: the cache stays within this many bytes (0: no such limit).
    pub max_bytes: u64,
    /// `cache_size_files`: the cache keeps at most this many entries (0: no such limit).
    pub max_files: u64,
}

impl Default for CachePolicy {
    /// LLVM's defaults (`llvm/Support/CachePruning.h`).
    fn default() -> Self {
        CachePolicy {
            interval: Duration::from_secs(1200),
            expiration: Duration::from_secs(7 * 24 * 3600),
            max_percent_of_available: 75,
            max_bytes: 0,
            max_files: 1_000_000,
        }
    }
}

impl CachePolicy {
    /// Reads a policy: `KEY=VALUE` pairs separated by `:` over the defaults, as LLVM's
    /// `parseCachePruningPolicy` reads them; the error says what is wrong, in its words.
    pub fn parse(text: &str) -> Result<CachePolicy, String> {
        let mut policy = CachePolicy::default();
        for pair in text.split(':').filter(|p| !p.is_empty()) {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("Expected key=value, got '{pair}'"))?;
            match key {
                "prune_interval" => policy.interval = duration(value)?,
                "prune_after" => policy.expiration = duration(value)?,
                "cache_size" => {
                    let percent = value
                        .strip_suffix('%')
                        .ok_or_else(|| format!("'{value}' must end with %"))?;
                    let n: u64 = percent
                        .parse()
                        .map_err(|_| format!("'{percent}' not an integer"))?;
                    if n > 100 {
                        return Err(format!("'{value}' must be between 0 and 100"));
                    }
                    policy.max_percent_of_available = n as u8;
                }
                "cache_size_bytes" => policy.max_bytes = bytes(value)?,
                "cache_size_files" => {
                    policy.max_files = value
                        .parse()
                        .map_err(|_| format!("'{value}' not an integer"))?
                }
                _ => return Err(format!("Unknown key: '{key}'")),
            }
        }
        Ok(policy)
    }

    /// Whether the policy ever removes anything.
    pub fn prunes(&self) -> bool {
        !self.expiration.is_zero()
            || self.max_percent_of_available != 0
            || self.max_bytes != 0
            || self.max_files != 0
    }
}

/// `NUMBER` followed by `s`, `m` or `h`.
fn duration(text: &str) -> Result<Duration, String> {
    let Some(unit) = text.chars().last() else {
        return Err("Duration must not be empty".into());
    };
    let number = &text[..text.len() - unit.len_utf8()];
    let n: u64 = number
        .parse()
        .map_err(|_| format!("'{number}' not an integer"))?;
    let seconds = match unit {
        's' => n,
        'm' => n.saturating_mul(60),
        'h' => n.saturating_mul(3600),
        _ => return Err(format!("'{text}' must end with one of 's', 'm' or 'h'")),
    };
    Ok(Duration::from_secs(seconds))
}

/// `NUMBER` with an optional `k`, `m` or `g` (binary multiples).
fn bytes(text: &str) -> Result<u64, String> {
    let (number, shift) = match text.chars().last() {
        Some('k' | 'K') => (&text[..text.len() - 1], 10),
        Some('m' | 'M') => (&text[..text.len() - 1], 20),
        Some('g' | 'G') => (&text[..text.len() - 1], 30),
        _ => (text, 0),
    };
    let n: u64 = number
        .parse()
        .map_err(|_| format!("'{number}' not an integer"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("'{text}' is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_llvm_s_and_pairs_override_them() {
        assert_eq!(CachePolicy::parse("").unwrap(), CachePolicy::default());
        let p = CachePolicy::parse(
            "prune_interval=30s:prune_after=2h:cache_size=10%:cache_size_bytes=5m:cache_size_files=7",
        )
        .unwrap();
        assert_eq!(p.interval, Duration::from_secs(30));
        assert_eq!(p.expiration, Duration::from_secs(7200));
        assert_eq!(p.max_percent_of_available, 10);
        assert_eq!(p.max_bytes, 5 << 20);
        assert_eq!(p.max_files, 7);
        assert!(p.prunes());
        let never = CachePolicy::parse("prune_after=0s:cache_size=0%:cache_size_files=0").unwrap();
        assert!(!never.prunes());
    }

    #[test]
    fn bad_policies_say_what_is_wrong() {
        for (text, says) in [
            ("prune_after=1d", "must end with one of"),
            ("cache_size=101%", "between 0 and 100"),
            ("cache_size=10", "must end with %"),
            ("cache_size_bytes=1t", "not an integer"),
            ("frobnicate=1", "Unknown key: 'frobnicate'"),
            ("prune_after", "Expected key=value"),
            ("prune_after=", "must not be empty"),
        ] {
            let err = CachePolicy::parse(text).unwrap_err();
            assert!(err.contains(says), "{text}: {err}");
        }
    }
}
