import CMalloc

/// glibc's allocator settings for a process that decodes audio.
enum AllocatorTuning {
    /// Freed memory at the top of a heap is kept up to 4 MiB instead of glibc's default 128 KiB.
    ///
    /// Decoding hands on every 64 KiB of PCM in a new array and frees it once played. With the default, each
    /// free at the top of the decoding thread's heap gave the pages back to the kernel and the next array
    /// faulted them in again: about 28,000 page faults per 30 minutes of audio, 4 % of the CPU time of
    /// `--output null` (measured with `perf stat -e page-faults`; 1,650 with this setting). The cost is at most
    /// 4 MiB of freed memory kept per heap.
    static func keepFreedMemory() {
        _ = mallopt(M_TRIM_THRESHOLD, 4 << 20)
    }
}
