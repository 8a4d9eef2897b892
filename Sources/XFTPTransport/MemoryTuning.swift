/// Process-wide malloc settings for XFTP executables (xftp-server, xftp-bench). Chunk transfers
/// on several threads otherwise leave tens of MB of freed buffers held in per-thread arenas, and
/// the peak RSS grows with the number of parallel chunks; with everything above 128 KB mapped on
/// its own and the heap trimmed at 128 KB, though, every transfer buffer was fresh pages (300-385
/// thousand page faults for 256 MB each way). Measured middle ground: buffers from 512 KB are
/// mapped, up to 2 MB stays at the heap top, two arenas (about 140-200 thousand faults, the same
/// peak RSS within 2 MB).
public enum MemoryTuning {
    public static func limitRetainedBuffers() {
        #if os(Linux)
        // glibc <malloc.h> (not in the Glibc module): mallopt(M_MMAP_THRESHOLD = -3, M_TRIM_THRESHOLD = -1, M_ARENA_MAX = -8).
        _ = glibcMallopt(-3, 512 * 1024)
        _ = glibcMallopt(-1, 2 * 1024 * 1024)
        _ = glibcMallopt(-8, 2)
        #endif
    }
}

#if os(Linux)
@_silgen_name("mallopt")
private func glibcMallopt(_ param: Int32, _ value: Int32) -> Int32
#endif
