/// Process-wide malloc setting for XFTP executables (xftp-server, xftp-bench): buffers of 128 KB
/// and more are mapped and unmapped on their own instead of glibc raising that threshold as they
/// are freed. Chunk transfers on several threads otherwise leave tens of MB of freed buffers held
/// in per-thread arenas, and the peak RSS grows with the number of parallel chunks. (Keeping more
/// at the heap top halves the page faults of a transfer but put the client's peak RSS over the
/// 64 MB target at 1 GB: measured with 512 KB / 1-2 MB trim / 1-2 arenas.)
public enum MemoryTuning {
    public static func limitRetainedBuffers() {
        #if os(Linux)
        // glibc <malloc.h> (not in the Glibc module): mallopt(M_MMAP_THRESHOLD = -3, bytes).
        _ = glibcMallopt(-3, 128 * 1024)
        #endif
    }
}

#if os(Linux)
@_silgen_name("mallopt")
private func glibcMallopt(_ param: Int32, _ value: Int32) -> Int32
#endif
