//! A pointer into a `'static` slice whose length its owner keeps in a field of its own.
//!
//! An input-section record holds three slices (name, contents, relocations); a large link
//! holds 600,000 records, written once while the inputs are parsed. Three fat pointers
//! are 48 bytes, of which the lengths fit in 12 (the contents' length is the section's
//! size, which the record keeps anyway): the record is 80 bytes instead of 96, and every
//! pass over the sections reads a sixth less memory.

use std::ptr::NonNull;

/// The start of a `&'static [T]`; [`StaticPtr::slice`] gives the slice back from its
/// length.
pub struct StaticPtr<T: 'static>(NonNull<T>);

// SAFETY: a StaticPtr is made only from a `&'static [T]` (`of`) and gives out only shared
// references to it, which any thread may hold where `T: Sync`.
unsafe impl<T: Sync> Send for StaticPtr<T> {}
// SAFETY: as for `Send`: the slice is shared, immutable and lives for the whole program.
unsafe impl<T: Sync> Sync for StaticPtr<T> {}

impl<T> Clone for StaticPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for StaticPtr<T> {}

impl<T> StaticPtr<T> {
    /// The start of `s` (dangling but aligned for an empty slice, as a slice's own is).
    pub fn of(s: &'static [T]) -> StaticPtr<T> {
        StaticPtr(NonNull::from(s).cast())
    }

    /// The first `len` elements of the slice this was made `of`.
    ///
    /// # Safety
    /// `len` must not exceed the length of that slice.
    pub unsafe fn slice(self, len: usize) -> &'static [T] {
        // SAFETY: the pointer is the start of a `'static` slice of at least `len` elements
        // (the caller's promise), never written through.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr(), len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_come_back_whole_and_empty_ones_too() {
        static WORDS: [u32; 3] = [1, 2, 3];
        let p = StaticPtr::of(&WORDS[..]);
        // SAFETY: 3 and 2 are within WORDS.
        assert_eq!(unsafe { p.slice(3) }, &[1, 2, 3]);
        assert_eq!(unsafe { p.slice(2) }, &[1, 2]);
        let empty = StaticPtr::<u64>::of(&[]);
        // SAFETY: an empty slice has room for 0 elements.
        assert!(unsafe { empty.slice(0) }.is_empty());
    }
}
