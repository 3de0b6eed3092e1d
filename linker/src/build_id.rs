//! The build ID: a digest of the output made of digests of its regions — the headers, each
//! part of the image the writer finishes at once, the section header table — so that a part
//! is hashed by the thread that wrote it while its bytes are in that core's cache, and the
//! image never has to be in memory whole (see `write.rs`). The regions are cut the same
//! way whatever the number of threads and wherever the output goes, so the ID depends on
//! the bytes only. Within a region, every 1 MiB chunk is hashed on its own (in parallel).
//!
//! `--build-id` (sha1) and `=md5` take `len` bytes of a BLAKE3 hash; `=fast` is an 8-byte
//! xxh3 hash (lld's scheme for it). The IDs are rld's own, as lld's tree hashes and mold's
//! are (mold uses BLAKE3 for every style too): nothing checks them against a digest of the
//! file, and BLAKE3 is three times faster than SHA-1 even with the CPU's SHA instructions,
//! while as hard to make collide.

use crate::options::BuildId;
use rayon::prelude::*;

/// The bytes of a region hashed on their own; a region's digest is that of its chunks'
/// digests, so a writer that makes a region a chunk at a time hashes it as it goes.
pub const CHUNK: usize = 1 << 20;

/// How the regions of the output are hashed: the styles that hash the output at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Digest {
    /// `--build-id=fast`: xxh3.
    Fast,
    /// `--build-id`, `=sha1`, `=md5`: BLAKE3.
    Tree,
}

impl Digest {
    /// The digest `style` needs, if it hashes the output.
    pub fn of_style(style: &BuildId) -> Option<Digest> {
        match style {
            BuildId::Fast => Some(Digest::Fast),
            BuildId::Md5 | BuildId::Sha1 => Some(Digest::Tree),
            BuildId::None | BuildId::Uuid | BuildId::Hex(_) => None,
        }
    }

    /// The digest of one region: of its 1 MiB chunks' digests.
    pub fn region(self, data: &[u8]) -> Vec<u8> {
        let chunks: Vec<u8> = data
            .par_chunks(CHUNK)
            .flat_map_iter(|c| self.chunk(c))
            .collect();
        self.of_chunks(&chunks)
    }

    /// The digest of one chunk of a region (its [`CHUNK`] bytes from a multiple of
    /// [`CHUNK`] into the region; the last may be shorter).
    pub fn chunk(self, data: &[u8]) -> Vec<u8> {
        match self {
            Digest::Fast => xxhash_rust::xxh3::xxh3_64(data).to_le_bytes().to_vec(),
            Digest::Tree => blake3::hash(data).as_bytes().to_vec(),
        }
    }

    /// The digest of a region from its chunks' digests, concatenated in order.
    pub fn of_chunks(self, chunks: &[u8]) -> Vec<u8> {
        match self {
            Digest::Fast => xxhash_rust::xxh3::xxh3_64(chunks).to_le_bytes().to_vec(),
            Digest::Tree => blake3::hash(chunks).as_bytes().to_vec(),
        }
    }

    /// The ID, `len` bytes, from the regions' digests in file order.
    fn finish(self, regions: &[Vec<u8>], len: usize) -> Vec<u8> {
        let all = regions.concat();
        match self {
            Digest::Fast => xxhash_rust::xxh3::xxh3_64(&all).to_le_bytes().to_vec(),
            Digest::Tree => {
                let mut id = vec![0; len];
                blake3::Hasher::new()
                    .update(&all)
                    .finalize_xof()
                    .fill(&mut id);
                id
            }
        }
    }
}

/// The ID of `style`, `len` bytes long (the note's size), from the regions' digests (for
/// the styles that hash the output: [`Digest::of_style`]).
pub fn build_id(style: &BuildId, len: usize, regions: &[Vec<u8>]) -> Vec<u8> {
    match style {
        BuildId::Uuid => {
            let mut bytes = vec![0u8; 16];
            if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
                use std::io::Read;
                let _ = f.read_exact(&mut bytes);
            }
            bytes[6] = (bytes[6] & 0x0f) | 0x40;
            bytes[8] = (bytes[8] & 0x3f) | 0x80;
            bytes
        }
        BuildId::Hex(h) => h.clone(),
        BuildId::None => vec![0; len],
        BuildId::Fast | BuildId::Md5 | BuildId::Sha1 => {
            let digest = Digest::of_style(style).expect("a style that hashes");
            digest.finish(regions, len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ID of `data` cut into regions at `cuts`.
    fn id_of(style: &BuildId, data: &[u8], cuts: &[usize], len: usize) -> Vec<u8> {
        let digest = Digest::of_style(style).unwrap();
        let mut bounds = vec![0];
        bounds.extend_from_slice(cuts);
        bounds.push(data.len());
        let regions: Vec<Vec<u8>> = bounds
            .windows(2)
            .map(|w| digest.region(&data[w[0]..w[1]]))
            .collect();
        build_id(style, len, &regions)
    }

    /// The ID of `data` computed on 1 and 4 threads is the same, and changes with any byte
    /// (the first, a chunk's first, the last, one in each region) and with bytes moved
    /// between chunks or regions.
    fn covers_every_byte_whatever_the_threads(style: BuildId, len: usize) {
        let mut data: Vec<u8> = (0..(3 << 20) + 17).map(|i| (i * 7 % 251) as u8).collect();
        let cuts = [100, (2 << 20) + 5];
        let on = |threads: usize, data: &[u8]| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| id_of(&style, data, &cuts, len))
        };
        let first = on(1, &data);
        assert_eq!(first.len(), len);
        assert_eq!(on(4, &data), first);
        for at in [0, 99, 100, 1 << 20, (2 << 20) + 5, data.len() - 1] {
            data[at] ^= 1;
            assert_ne!(on(2, &data), first, "byte {at} not covered");
            data[at] ^= 1;
        }
        // Chunks are hashed where they are: moving bytes between them changes the ID.
        data.swap(0, 1 << 20);
        assert_ne!(on(2, &data), first);
        data.swap(0, 1 << 20);
        // So are regions: the same bytes cut elsewhere give another ID (which is why the
        // writer cuts them the same way whatever the threads and the destination).
        assert_ne!(id_of(&style, &data, &[101, (2 << 20) + 5], len), first);
    }

    #[test]
    fn the_fast_build_id_covers_every_byte_whatever_the_threads() {
        covers_every_byte_whatever_the_threads(BuildId::Fast, 8);
    }

    #[test]
    fn the_tree_build_ids_cover_every_byte_whatever_the_threads() {
        covers_every_byte_whatever_the_threads(BuildId::Sha1, 20);
        covers_every_byte_whatever_the_threads(BuildId::Md5, 16);
        let data = [1u8; 100];
        assert_eq!(
            id_of(&BuildId::Sha1, &data, &[], 20)[..16],
            id_of(&BuildId::Md5, &data, &[], 16)[..],
            "one hash, cut"
        );
    }

    #[test]
    fn the_styles_that_hash_nothing_ignore_the_regions() {
        assert_eq!(build_id(&BuildId::None, 8, &[]), vec![0; 8]);
        assert_eq!(build_id(&BuildId::Hex(vec![1, 2]), 2, &[]), vec![1, 2]);
        let uuid = build_id(&BuildId::Uuid, 16, &[]);
        assert_eq!((uuid[6] >> 4, uuid[8] >> 6), (4, 2), "a version 4 UUID");
    }
}
