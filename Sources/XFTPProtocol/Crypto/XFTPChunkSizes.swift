/// The chunk sizes XFTP servers accept (xftp.md: 64 KB, 256 KB, 1 MB, 4 MB) and how the
/// reference client splits an encrypted file into them (`prepareChunkSizes`).
public enum XFTPChunkSizes {
    public static let size0: UInt32 = 64 * 1024
    public static let size1: UInt32 = 256 * 1024
    public static let size2: UInt32 = 1024 * 1024
    public static let size3: UInt32 = 4 * 1024 * 1024
    /// `serverChunkSizes`: the only sizes FNEW may register.
    public static let all: [UInt32] = [size0, size1, size2, size3]

    /// The smallest server chunk size that holds `size` bytes in one chunk (`singleChunkSize`),
    /// used for redirect descriptions, which must be a single chunk.
    public static func singleChunkSize(_ size: Int64) -> UInt32? {
        all.first { Int64($0) >= size }
    }

    /// `prepareChunkSizes`: the two sizes are picked from the whole payload (big files use 1 MB and
    /// 4 MB chunks); whole big chunks first, then the rest as one big chunk when it is over 3/4 of
    /// one, or as enough small chunks.
    public static func prepare(_ payloadSize: Int64) -> [UInt32] {
        func size34(_ s: UInt32) -> Int64 { Int64(s) * 3 / 4 }
        let (small, big): (UInt32, UInt32) =
            payloadSize > size34(size3) ? (size2, size3) : payloadSize > size34(size2) ? (size1, size2) : (size0, size1)
        var out: [UInt32] = []
        var size = payloadSize
        while size > 0 {
            if size >= Int64(big) {
                let (n, rem) = size.quotientAndRemainder(dividingBy: Int64(big))
                out += Array(repeating: big, count: Int(n))
                size = rem
            } else if size > size34(big) {
                out.append(big)
                size = 0
            } else {
                let (n, rem) = size.quotientAndRemainder(dividingBy: Int64(small))
                out += Array(repeating: small, count: Int(n + (rem == 0 ? 0 : 1)))
                size = 0
            }
        }
        return out
    }

    /// Offsets of the chunks of these sizes in the encrypted file (`prepareChunkSpecs`).
    public static func offsets(_ sizes: [UInt32]) -> [(offset: Int64, size: UInt32)] {
        var off: Int64 = 0
        return sizes.map { s in
            defer { off += Int64(s) }
            return (off, s)
        }
    }
}
