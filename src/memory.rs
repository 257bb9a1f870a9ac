//! Memory accounting: the global allocator wraps mimalloc and keeps one counter of the bytes
//! the process has allocated and not freed, so a budget can be checked anywhere with a load.
//! Memory allocated outside Rust's allocator (Z3's own heap) is not counted.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the process holds outside the counted heap: code, thread stacks and Z3 (the idle
/// kernel's resident size is about 29 MB), and freed pages the allocator has not yet
/// returned. A memory budget leaves room for it: measured, a cell filling a 256 MB budget
/// with 1 MB strings left 54–57 MB resident outside the counted heap.
pub const FOOTPRINT: usize = 64 << 20;
/// Blocks from this size on are counted at their usable size (mimalloc rounds large blocks
/// up by as much as an eighth); smaller ones at the size asked for.
const LARGE: usize = 64 << 10;

unsafe extern "C" {
    /// mimalloc's size of the block at `p` (linked in by the `mimalloc` crate).
    fn mi_usable_size(p: *const c_void) -> usize;
    /// Sets the default of one of mimalloc's options (`mi_option_t` in `mimalloc.h`); a
    /// `MIMALLOC_<OPTION>` environment variable still overrides it.
    fn mi_option_set_default(option: i32, value: std::ffi::c_long);
    fn mi_malloc(size: usize) -> *mut c_void;
    fn mi_zalloc(size: usize) -> *mut c_void;
    fn mi_realloc(p: *mut c_void, new_size: usize) -> *mut c_void;
}

/// Every mimalloc block is aligned to a machine word (block sizes are whole words and pages
/// start aligned), so layouts asking no more take mimalloc's plain entry points. The
/// `mimalloc` crate always calls the aligned ones, whose fast path gives up whenever the
/// next free block of the size class is not aligned to the block size.
const WORD: usize = std::mem::size_of::<usize>();

/// `mi_option_allow_thp` in mimalloc v3's `mimalloc.h` (the `mimalloc` crate's default).
const MI_OPTION_ALLOW_THP: i32 = 43;

/// Runs before `main` (before mimalloc initializes): no transparent huge pages. mimalloc
/// asks for them by default, and then every fresh or purged 2 MiB region a thread touches
/// costs a 2 MiB zeroing in the kernel. Measured on a cell building sets of 100 000
/// elements: 40% of its time was that zeroing, under 2% without
/// (`MIMALLOC_ALLOW_THP=1` restores the default, for comparison).
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static NO_HUGE_PAGES: extern "C" fn() = {
    extern "C" fn no_huge_pages() {
        // SAFETY: stores an option default; mimalloc reads it when it initializes.
        unsafe { mi_option_set_default(MI_OPTION_ALLOW_THP, 0) }
    }
    no_huge_pages
};

/// The heap bytes a process may use under a budget of `bytes` for its whole resident size.
pub fn heap_budget(bytes: usize) -> usize {
    bytes - FOOTPRINT.min(bytes / 4)
}

/// The bytes a block of `size` bytes at `p` is counted for.
///
/// # Safety
/// `p` is a live block of the global allocator (mimalloc) when `size >= LARGE`.
#[inline]
unsafe fn counted(p: *mut u8, size: usize) -> usize {
    if size < LARGE {
        size
    } else {
        // SAFETY: `p` is a live mimalloc block (the caller's guarantee).
        unsafe { mi_usable_size(p as *const c_void) }
    }
}

/// Bytes allocated through the global allocator and not yet freed.
static IN_USE: AtomicUsize = AtomicUsize::new(0);

/// Bytes the process has allocated through Rust's allocator and not yet freed.
#[inline]
pub fn in_use() -> usize {
    IN_USE.load(Ordering::Relaxed)
}

/// A global allocator that counts the bytes in use of mimalloc.
pub struct Counting(pub mimalloc::MiMalloc);

// SAFETY: every method forwards to mimalloc with the same arguments; the counter only
// observes the sizes.
unsafe impl GlobalAlloc for Counting {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees (a word-aligned layout is served by
        // `mi_malloc`, see [`WORD`]).
        let p = unsafe {
            if layout.align() <= WORD {
                mi_malloc(layout.size()) as *mut u8
            } else {
                self.0.alloc(layout)
            }
        };
        if !p.is_null() {
            // SAFETY: `p` was just allocated.
            IN_USE.fetch_add(unsafe { counted(p, layout.size()) }, Ordering::Relaxed);
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        let p = unsafe {
            if layout.align() <= WORD {
                mi_zalloc(layout.size()) as *mut u8
            } else {
                self.0.alloc_zeroed(layout)
            }
        };
        if !p.is_null() {
            // SAFETY: `p` was just allocated.
            IN_USE.fetch_add(unsafe { counted(p, layout.size()) }, Ordering::Relaxed);
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` is live until the call below, which has the caller's guarantees.
        let size = unsafe { counted(ptr, layout.size()) };
        unsafe { self.0.dealloc(ptr, layout) };
        IN_USE.fetch_sub(size, Ordering::Relaxed);
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` is live until the call below, which has the caller's guarantees.
        let old = unsafe { counted(ptr, layout.size()) };
        let p = unsafe {
            if layout.align() <= WORD {
                mi_realloc(ptr as *mut c_void, new_size) as *mut u8
            } else {
                self.0.realloc(ptr, layout, new_size)
            }
        };
        if !p.is_null() {
            // SAFETY: `p` was just allocated. Wrapping arithmetic: a shrink adds the two's
            // complement of the difference.
            let new = unsafe { counted(p, new_size) };
            IN_USE.fetch_add(new.wrapping_sub(old), Ordering::Relaxed);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::in_use;

    /// Whether allocating `size` bytes raises the counter by at least half of it and freeing
    /// them lowers it again (other tests allocate concurrently: a few tries ride out their
    /// noise).
    fn counted_until_freed(size: usize) -> bool {
        (0..5).any(|_| {
            let before = in_use();
            let block = std::hint::black_box(vec![1u8; size]);
            let during = in_use();
            drop(block);
            let after = in_use();
            during >= before + size / 2 && after + size / 2 <= during
        })
    }

    #[test]
    fn large_and_small_allocations_are_counted_until_freed() {
        assert!(counted_until_freed(64 << 20));
        assert!(counted_until_freed(1 << 20));
    }
}

/// The process's peak resident set size in KiB (`VmHWM` in /proc/self/status), where Linux
/// gives it; for the bench binaries.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
