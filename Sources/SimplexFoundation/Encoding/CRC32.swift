/// CRC-32 (IEEE 802.3) so append-only logs can tell a torn or corrupted last record from a good one.
/// Slicing-by-8 over raw pointers: the relay checksums every 16 KB message it stores.
public enum CRC32 {
    private static let tables: [[UInt32]] = {
        var t = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            t[0][i] = c
        }
        for i in 0..<256 {
            for k in 1..<8 { t[k][i] = (t[k - 1][i] >> 8) ^ t[0][Int(t[k - 1][i] & 0xFF)] }
        }
        return t
    }()

    public static func checksum<C: Collection>(_ data: C, initial: UInt32 = 0) -> UInt32 where C.Element == UInt8 {
        if let r = data.withContiguousStorageIfAvailable({ checksum(buffer: $0, initial: initial) }) { return r }
        return Array(data).withUnsafeBufferPointer { checksum(buffer: $0, initial: initial) }
    }

    public static func checksum(buffer p: UnsafeBufferPointer<UInt8>, initial: UInt32 = 0) -> UInt32 {
        var c = ~initial
        let t = tables
        return t[0].withUnsafeBufferPointer { t0 in
            t[1].withUnsafeBufferPointer { t1 in
                t[2].withUnsafeBufferPointer { t2 in
                    t[3].withUnsafeBufferPointer { t3 in
                        t[4].withUnsafeBufferPointer { t4 in
                            t[5].withUnsafeBufferPointer { t5 in
                                t[6].withUnsafeBufferPointer { t6 in
                                    t[7].withUnsafeBufferPointer { t7 in
                                        var i = 0
                                        let n = p.count
                                        while i + 8 <= n {
                                            let lo = c ^ (UInt32(p[i]) | UInt32(p[i + 1]) << 8 | UInt32(p[i + 2]) << 16 | UInt32(p[i + 3]) << 24)
                                            c = t7[Int(lo & 0xFF)] ^ t6[Int(lo >> 8 & 0xFF)] ^ t5[Int(lo >> 16 & 0xFF)] ^ t4[Int(lo >> 24)]
                                                ^ t3[Int(p[i + 4])] ^ t2[Int(p[i + 5])] ^ t1[Int(p[i + 6])] ^ t0[Int(p[i + 7])]
                                            i += 8
                                        }
                                        while i < n {
                                            c = t0[Int((c ^ UInt32(p[i])) & 0xFF)] ^ (c >> 8)
                                            i += 1
                                        }
                                        return ~c
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
