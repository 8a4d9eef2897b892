/// CRC-32 (IEEE 802.3) so append-only logs can tell a torn or corrupted last record from a good one.
public enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { i -> UInt32 in
        var c = UInt32(i)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    public static func checksum<C: Collection>(_ data: C, initial: UInt32 = 0) -> UInt32 where C.Element == UInt8 {
        var c = ~initial
        table.withUnsafeBufferPointer { t in
            for b in data { c = t[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        }
        return ~c
    }
}
