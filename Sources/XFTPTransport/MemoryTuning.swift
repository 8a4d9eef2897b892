import Foundation

/// Process-wide malloc settings for XFTP executables (xftp-server, xftp-bench): buffers of 128 KB
/// and more are mapped and unmapped on their own instead of glibc raising that threshold as they
/// are freed. Chunk transfers on several threads otherwise leave tens of MB of freed buffers held
/// in per-thread arenas, and the peak RSS grows with the number of parallel chunks. Up to 4 MB
/// freed at the top of a heap is kept instead of being returned at once (the default trims at
/// 128 KB): the 16-32 KB record and frame buffers a transfer allocates and frees by the thousand
/// were otherwise fresh zeroed pages each time. xftp-bench 256 MB, 5 interleaved pairs: client
/// page faults 46-91k -> 5-9k, upload+download 3.15-3.78 s -> 3.09-3.45 s, CPU of client and server
/// 5.37-6.65 s -> 5.47-5.99 s; peak RSS client 53-54 MB, server 52-53 MB (1 GB: 54 and 56 MB).
/// With encrypted chunks held in memory (session 19) the same setting put the client over 64 MB at
/// 1 GB; none are held now. At most one arena per core (at least 2): each keeps up to the trim
/// threshold, and glibc's default of 8 per core let a client that ran ten 128 MB transfers settle
/// at 57.7 MB instead of 49.8 MB (2 cores).
public enum MemoryTuning {
    public static func limitRetainedBuffers() {
        #if os(Linux)
        // glibc <malloc.h> (not in the Glibc module): mallopt(M_MMAP_THRESHOLD = -3, bytes).
        _ = glibcMallopt(-3, 128 * 1024)
        // M_TRIM_THRESHOLD = -1, M_ARENA_MAX = -8.
        _ = glibcMallopt(-1, 4 << 20)
        _ = glibcMallopt(-8, Int32(max(2, ProcessInfo.processInfo.activeProcessorCount)))
        #endif
    }
}

#if os(Linux)
@_silgen_name("mallopt")
private func glibcMallopt(_ param: Int32, _ value: Int32) -> Int32
#endif
