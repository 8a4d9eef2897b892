import CSimplexTLS
import Foundation

/// The CPU cost of TLS 1.3 records on one thread, for benchmarks: a client and a server
/// connection joined in memory exchange 16 KB records, with OpenSSL's record layer or ours
/// (`TLSConfiguration.ownRecordLayer`), so the two can be compared in the same run without the
/// noise of sockets and other processes.
public enum TLSRecordCost {
    /// Microseconds of thread CPU per record (sealed by one side, opened by the other).
    public static func measure(ownRecordLayer: Bool, records: Int = 4000, size: Int = 16384) throws -> Double {
        let pair = try TLSMemoryPair(credentials: try ServerCredentials.generate(commonName: "127.0.0.1"))
        let (s, c) = (pair.server, pair.client)
        try pair.handshake()
        if ownRecordLayer {
            guard sxtls_conn_offload(s) == 1, sxtls_conn_offload(c) == 1 else { throw TLSError.handshake("offload failed") }
        }
        let block = [UInt8](repeating: 7, count: size)
        var out = [UInt8](repeating: 0, count: size + 512)
        func exchange(_ from: OpaquePointer, _ to: OpaquePointer) throws {
            guard sxtls_conn_write(from, block, block.count) == Int32(block.count) else { throw TLSError.io("write failed") }
            pair.pump(from, to)
            guard sxtls_conn_read(to, &out, out.count) == Int32(size) else { throw TLSError.io("read failed") }
            sxtls_conn_compact(from)
            sxtls_conn_compact(to)
        }
        for _ in 0..<100 { try exchange(c, s) }
        let t0 = threadCPUMicros()
        for i in 0..<records { try i % 2 == 0 ? exchange(c, s) : exchange(s, c) }
        return (threadCPUMicros() - t0) / Double(records)
    }

    static func threadCPUMicros() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1e6 + Double(ts.tv_nsec) / 1e3
    }
}
