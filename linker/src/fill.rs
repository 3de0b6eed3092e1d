//! What the gaps inside output sections hold. A linker script's fill pattern (`=FILL`,
//! `FILL(...)`) where it gives one; otherwise, in code, trap instructions (`int3`, 0xcc),
//! as lld writes them, so that a jump into the padding between functions stops the program
//! instead of running on into whatever follows; zeros elsewhere. Gaps between output
//! sections stay zero (lld's too).

use crate::image::Image;
use object::elf::SHF_EXECINSTR;

/// x86-64's trap instruction, four times: lld's filler for code sections.
pub const TRAP: [u8; 4] = [0xcc; 4];

/// The pattern the gaps of an output section with `flags` get, if not zeros: `script`'s
/// if it gives one, else traps in code.
pub fn pattern(flags: u64, script: Option<[u8; 4]>) -> Option<[u8; 4]> {
    script.or_else(|| (flags & u64::from(SHF_EXECINSTR) != 0).then_some(TRAP))
}

/// Writes `pattern` over `bytes`, its first byte first.
pub fn fill(bytes: &mut [u8], pattern: [u8; 4]) {
    for (k, b) in bytes.iter_mut().enumerate() {
        *b = pattern[k % 4];
    }
}

/// The output sections whose gaps are not zeros, by file offset.
pub struct Fillers {
    /// Start and end file offsets and the pattern, sorted by start, without overlaps.
    ranges: Vec<(u64, u64, [u8; 4])>,
}

impl Fillers {
    pub fn new(link: &Image) -> Fillers {
        let script = |i: usize| {
            link.contents
                .fills
                .iter()
                .find(|&&(k, _)| k as usize == i)
                .map(|&(_, p)| p)
        };
        let mut ranges: Vec<(u64, u64, [u8; 4])> = link
            .outputs
            .iter()
            .enumerate()
            .filter(|(i, o)| {
                !o.is_nobits() && o.size > 0 && !link.contents.compressed.contains_key(&(*i as u32))
            })
            .filter_map(|(i, o)| {
                let start = link.offset(o);
                pattern(o.flags, script(i)).map(|p| (start, start + o.size, p))
            })
            .collect();
        ranges.sort_by_key(|r| r.0);
        Fillers { ranges }
    }

    /// Whether any of the file's bytes `at..end` lie in a section with a pattern (where
    /// none do, a gap there is zeros).
    pub fn covers(&self, at: u64, end: u64) -> bool {
        let first = self.ranges.partition_point(|r| r.1 <= at);
        self.ranges.get(first).is_some_and(|r| r.0 < end)
    }

    /// Fills what of `gap` (the file's bytes from offset `at`, which nothing else writes)
    /// lies in a section with a pattern, each section's part starting with the pattern's
    /// first byte (lld starts it at each gap).
    pub fn fill_gap(&self, at: u64, gap: &mut [u8]) {
        self.fill_gap_window(at, at, gap);
    }

    /// Fills `window`, the file's bytes from offset `at`, as [`Fillers::fill_gap`] fills
    /// them when the gap starts at `gap_start` (at or before `at`): a long gap made a
    /// piece at a time gets the bytes it would get whole.
    pub fn fill_gap_window(&self, gap_start: u64, at: u64, window: &mut [u8]) {
        if window.is_empty() {
            return;
        }
        let end = at + window.len() as u64;
        let first = self.ranges.partition_point(|r| r.1 <= at);
        for &(start, stop, p) in self.ranges[first..].iter().take_while(|r| r.0 < end) {
            let from = start.max(at);
            let to = stop.min(end);
            // Where the pattern starts: the section's start, or the gap's in the section.
            let phase = ((from - start.max(gap_start)) % 4) as usize;
            let rotated = std::array::from_fn(|k| p[(k + phase) % 4]);
            fill(
                &mut window[(from - at) as usize..(to - at) as usize],
                rotated,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gap_is_filled_only_where_it_lies_in_a_filled_section() {
        let fillers = Fillers {
            ranges: vec![(10, 20, TRAP), (20, 30, [1, 2, 3, 4]), (40, 50, TRAP)],
        };
        // Offsets 5..45: zeros before the first section, traps, the pattern from its
        // first byte at the section's start, zeros between sections, traps again.
        let mut gap = vec![0u8; 40];
        fillers.fill_gap(5, &mut gap);
        let mut expected = vec![0u8; 5];
        expected.extend([0xcc; 10]);
        expected.extend([1, 2, 3, 4, 1, 2, 3, 4, 1, 2]);
        expected.extend([0; 10]);
        expected.extend([0xcc; 5]);
        assert_eq!(gap, expected);
        // A gap starting inside a section starts the pattern afresh (as lld does).
        let mut gap = vec![0u8; 3];
        fillers.fill_gap(23, &mut gap);
        assert_eq!(gap, [1, 2, 3]);
        let mut gap = vec![0u8; 4];
        fillers.fill_gap(30, &mut gap);
        assert_eq!(gap, [0; 4]);
    }

    #[test]
    fn a_gap_filled_a_window_at_a_time_gets_the_bytes_it_gets_whole() {
        let fillers = Fillers {
            ranges: vec![
                (10, 21, [1, 2, 3, 4]),
                (23, 37, [5, 6, 7, 8]),
                (40, 50, TRAP),
            ],
        };
        let mut whole = vec![0u8; 45];
        fillers.fill_gap(3, &mut whole);
        for size in 1..8 {
            let mut pieces = vec![0u8; 45];
            for (k, window) in pieces.chunks_mut(size).enumerate() {
                fillers.fill_gap_window(3, 3 + (k * size) as u64, window);
            }
            assert_eq!(pieces, whole, "windows of {size} bytes");
        }
        assert!(!fillers.covers(0, 10));
        assert!(fillers.covers(0, 11));
        assert!(!fillers.covers(21, 23));
        assert!(fillers.covers(36, 38));
        assert!(!fillers.covers(50, 1000));
    }

    #[test]
    fn code_is_padded_with_traps_unless_a_script_says_otherwise() {
        let code = u64::from(SHF_EXECINSTR);
        assert_eq!(pattern(0, None), None);
        assert_eq!(pattern(0, Some([9; 4])), Some([9; 4]));
        assert_eq!(pattern(code, None), Some(TRAP));
        assert_eq!(pattern(code, Some([0x90; 4])), Some([0x90; 4]));
    }
}
