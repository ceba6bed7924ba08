import CMalloc

/// glibc's allocator settings for a process that decodes audio.
enum AllocatorTuning {
    /// Freed memory at the top of a heap is kept up to 8 MiB, and allocations below 4 MiB come from the heap.
    ///
    /// Decoding hands on every 64 KiB of PCM in a new array and frees it once played. With glibc's defaults,
    /// most runs gave the pages at the top of the decoding thread's heap back to the kernel at each free, and
    /// the next array faulted them in again: a page fault per few frames, a visible share of the CPU time
    /// of `--output null` (`perf stat -e page-faults`). Setting the trim threshold turns off glibc's sliding mmap threshold, so the mmap threshold is
    /// set too, where the sliding one would have gone for the pages of 500 rows: they
    /// stay on the heap instead of being mapped and unmapped for every page. The cost is at most 8 MiB of
    /// freed memory kept per heap.
    ///
    /// Threads share two heaps (`M_ARENA_MAX` 2) instead of one per thread up to eight times the cores: a
    /// track's buffers are made on one thread and freed on another (the decoder's, NIO's, libpulse's, the
    /// cooperative pool's), and memory freed into one thread's heap was not there for the next allocation on
    /// another, so the peak grew (BENCH.md, memory). Not one heap: the threads that read a folder's headers
    /// allocate side by side, and waited for one heap's lock. Small blocks come from each thread's cache
    /// (tcache) without a lock. Called before any thread but the main one has allocated.
    static func apply() {
        _ = mallopt(M_ARENA_MAX, 2)
        _ = mallopt(M_MMAP_THRESHOLD, 4 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 8 << 20)
    }
}
