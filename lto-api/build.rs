//! The interface's fingerprint: the `rld` binary and the LTO library it loads are built
//! separately, and pass Rust values (summaries, options, trait objects) to each other, so
//! they must come from the same sources and the same compiler. The fingerprint hashes the
//! sources that define those values (this crate's and the summaries crate's) and the
//! compiler's version; the library refuses a caller with another.

use std::hash::Hasher;
use std::path::Path;

fn main() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut hasher = Fnv::default();
    for dir in [here.join("src"), here.join("../summaries/src")] {
        println!("cargo:rerun-if-changed={}", dir.display());
        hash_tree(&dir, &mut hasher);
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("-vV")
        .output()
        .map(|o| o.stdout)
        .unwrap_or_default();
    hasher.write(&version);
    hasher.write(env!("CARGO_PKG_VERSION").as_bytes());
    println!(
        "cargo:rustc-env=RLD_LTO_FINGERPRINT={:016x}",
        hasher.finish()
    );
}

/// Every file under `dir`, in name order, path and contents.
fn hash_tree(dir: &Path, hasher: &mut Fnv) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            hash_tree(&path, hasher);
        } else {
            hasher.write(path.file_name().unwrap().as_encoded_bytes());
            hasher.write(&std::fs::read(&path).unwrap());
        }
    }
}

/// FNV-1a: stable across builds and machines (std's hashers are not promised to be).
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
