//! `--shuffle-sections=GLOB=SEED` (lld's): the input sections whose names match `GLOB` swap
//! places among themselves before they go to their output sections, to find code that
//! depends on an order nothing promises (the order of static constructors, of sections a
//! program walks). `SEED` -1 reverses them, 0 draws a seed, any other seed shuffles them
//! as lld does with it: LLVM's `shuffle` driven by the standard `mt19937`, over lld's list
//! of input sections (every object's sections in order, those the link kept from COMDAT
//! groups, dead ones included, `.eh_frame` not), so that a seed gives lld's order.
//!
//! Each rule shuffles the list the previous ones left; then every section takes the next
//! priority in the list's order, after those `--symbol-ordering-file` or the call graph
//! gave, which it keeps.

use crate::context::Link;
use crate::object_file::SectionKind;
use crate::symbol_order::SectionOrder;

/// One `--shuffle-sections` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub glob: String,
    /// lld's seed: the value as a 32-bit number (-1 is `u32::MAX`: reverse).
    pub seed: u32,
}

/// Parses `GLOB=SEED` as lld does (the first `=` splits; the seed is a signed integer
/// taken modulo 2^32), with lld's messages.
pub fn parse_rule(value: &str) -> Result<Rule, String> {
    let prefix = "--shuffle-sections=: ";
    match value.split_once('=') {
        Some((glob, seed)) if !glob.is_empty() && !seed.is_empty() => match seed.parse::<i64>() {
            Ok(v) => Ok(Rule {
                glob: glob.to_string(),
                seed: v as u32,
            }),
            Err(_) => Err(format!("{prefix}expected an integer, but got '{seed}'")),
        },
        _ => Err(format!(
            "{prefix}expected <section_glob>=<seed>, but got '{value}'"
        )),
    }
}

/// Gives every input section a priority after those already in `order` (see the module's
/// comment).
pub fn add_priorities(link: &Link, rules: &[Rule], order: &mut SectionOrder) {
    // lld's input sections, in its order.
    let mut sections: Vec<(u32, u32)> = link
        .objects
        .iter()
        .enumerate()
        .flat_map(|(f, obj)| {
            obj.sections
                .iter()
                .enumerate()
                .filter(|(_, s)| matches!(s.kind, SectionKind::Regular | SectionKind::Merge))
                .map(move |(i, _)| (f as u32, i as u32))
        })
        .collect();
    let name = |&(f, i): &(u32, u32)| link.objects[f as usize].sections[i as usize].name();
    for rule in rules {
        let matches = |s: &(u32, u32)| {
            crate::dynamic_list::glob_match(rule.glob.as_bytes(), name(s).as_bytes())
        };
        let mut matched: Vec<(u32, u32)> = sections.iter().copied().filter(matches).collect();
        match rule.seed {
            u32::MAX => matched.reverse(),
            seed => {
                let seed = if seed == 0 { drawn_seed() } else { seed };
                llvm_shuffle(&mut matched, &mut Mt19937::new(seed));
            }
        }
        let mut next = matched.into_iter();
        for s in sections.iter_mut() {
            if matches(s) {
                *s = next.next().expect("as many matched as matching");
            }
        }
    }
    let mut priority = order.values().copied().max().map_or(0, |p| p.max(-1) + 1);
    for s in sections {
        if let std::collections::hash_map::Entry::Vacant(e) = order.entry(s) {
            e.insert(priority);
            priority += 1;
        }
    }
}

/// A seed for `SEED` 0 (lld reads `std::random_device`): from the clock and the process.
fn drawn_seed() -> u32 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mixed = nanos ^ (u64::from(std::process::id()) << 32);
    ((mixed >> 32) as u32 ^ mixed as u32).max(1)
}

/// `llvm::shuffle`: Fisher-Yates from the front, with `g() % size` (not a uniform
/// distribution, which would depend on the C++ library).
fn llvm_shuffle<T>(items: &mut [T], g: &mut Mt19937) {
    let mut first = 0;
    let mut size = items.len();
    while size > 1 {
        let offset = (u64::from(g.next_u32()) % size as u64) as usize;
        if offset != 0 {
            items.swap(first, first + offset);
        }
        first += 1;
        size -= 1;
    }
}

/// The 32-bit Mersenne Twister as C++'s `std::mt19937` defines it.
struct Mt19937 {
    state: [u32; 624],
    index: usize,
}

impl Mt19937 {
    fn new(seed: u32) -> Mt19937 {
        let mut state = [0u32; 624];
        state[0] = seed;
        for i in 1..624 {
            let prev = state[i - 1];
            state[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        Mt19937 { state, index: 624 }
    }

    fn next_u32(&mut self) -> u32 {
        if self.index >= 624 {
            for i in 0..624 {
                let y = (self.state[i] & 0x8000_0000) | (self.state[(i + 1) % 624] & 0x7fff_ffff);
                let mut v = self.state[(i + 397) % 624] ^ (y >> 1);
                if y & 1 != 0 {
                    v ^= 0x9908_b0df;
                }
                self.state[i] = v;
            }
            self.index = 0;
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mt19937_is_the_standard_one() {
        // C++11 [rand.predef]: the 10000th value of a default-constructed mt19937 (seed
        // 5489) is 4123659995.
        let mut g = Mt19937::new(5489);
        let v = (0..10_000).map(|_| g.next_u32()).last();
        assert_eq!(v, Some(4_123_659_995));
    }

    #[test]
    fn rules_parse_as_lld_s() {
        assert_eq!(
            parse_rule(".text.*=-1"),
            Ok(Rule {
                glob: ".text.*".into(),
                seed: u32::MAX
            })
        );
        assert_eq!(parse_rule("*=7").map(|r| r.seed), Ok(7));
        assert!(parse_rule("7")
            .unwrap_err()
            .contains("expected <section_glob>=<seed>"));
        assert!(parse_rule("a=b")
            .unwrap_err()
            .contains("expected an integer, but got 'b'"));
    }
}
