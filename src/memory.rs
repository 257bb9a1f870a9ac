//! Memory accounting: the global allocator wraps mimalloc and keeps one counter of the bytes
//! the process has allocated and not freed, so a budget can be checked anywhere with a load.
//! Memory allocated outside Rust's allocator (Z3's own heap) is not counted.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes allocated through the global allocator and not yet freed.
static IN_USE: AtomicUsize = AtomicUsize::new(0);

/// Bytes the process has allocated through Rust's allocator and not yet freed.
#[inline]
pub fn in_use() -> usize {
    IN_USE.load(Ordering::Relaxed)
}

/// A global allocator that counts the bytes in use of the allocator it wraps.
pub struct Counting<A>(pub A);

// SAFETY: every method forwards to the wrapped allocator with the same arguments; the counter
// only observes the sizes.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Counting<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { self.0.alloc(layout) };
        if !p.is_null() {
            IN_USE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { self.0.alloc_zeroed(layout) };
        if !p.is_null() {
            IN_USE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { self.0.dealloc(ptr, layout) };
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { self.0.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Wrapping arithmetic: a shrink adds the two's complement of the difference.
            IN_USE.fetch_add(new_size.wrapping_sub(layout.size()), Ordering::Relaxed);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::in_use;

    #[test]
    fn a_large_allocation_is_counted_until_freed() {
        // Other tests allocate concurrently: only a 256 MiB step stands out of their noise.
        let size = 256 << 20;
        let before = in_use();
        let block = vec![1u8; size];
        assert!(in_use() >= before + size / 2, "{} {}", in_use(), before);
        drop(std::hint::black_box(block));
        assert!(in_use() < before + size / 2);
    }
}
