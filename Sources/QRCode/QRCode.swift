// QR code (ISO/IEC 18004) encoder, byte mode only: enough to show SimpleX connection links
// in a terminal, where the links are URIs with mixed-case characters anyway.

/// How much of the symbol may be damaged and still be decoded (about 7, 15, 25 and 30 %).
/// Higher levels need larger symbols for the same data.
public enum ErrorCorrection: Sendable, CaseIterable {
    case low, medium, quartile, high
}

/// Why a QR code could not be made.
public enum QRCodeError: Error, Equatable {
    /// The data (its byte count is given) does not fit even into version 40 at the chosen level.
    case dataTooLong(Int)
}

/// A QR code symbol: a square of dark (`true`) and light modules, without the quiet zone.
/// It is a value, so it can be made once and shown from any task.
public struct QRCode: Sendable {
    /// Symbol version, 1 to 40; the smallest one the data fits in is chosen.
    public let version: Int
    /// Modules per side: 4 × version + 17.
    public let size: Int
    /// The error correction level the symbol was made with.
    public let errorCorrection: ErrorCorrection
    /// Mask pattern 0 to 7, the one with the lowest penalty unless forced.
    let mask: Int
    /// Row-major modules, `size` × `size`.
    private let modules: [Bool]

    /// Whether the module in column `x` and row `y` (both from the top-left corner) is dark.
    /// Coordinates outside the symbol are light, as the quiet zone around it.
    public subscript(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }

    /// Encodes `bytes` in byte mode, in the smallest version that fits at `errorCorrection`.
    public init(bytes: [UInt8], errorCorrection: ErrorCorrection = .medium) throws(QRCodeError) {
        try self.init(bytes: bytes, errorCorrection: errorCorrection, mask: nil)
    }

    /// Encodes the UTF-8 bytes of `text` (readers decode byte mode as UTF-8 or ASCII links alike).
    public init(text: String, errorCorrection: ErrorCorrection = .medium) throws(QRCodeError) {
        try self.init(bytes: Array(text.utf8), errorCorrection: errorCorrection, mask: nil)
    }

    /// As the public initialiser, but `mask` (0...7) forces a mask pattern; for tests.
    init(bytes: [UInt8], errorCorrection: ErrorCorrection, mask forcedMask: Int?) throws(QRCodeError) {
        guard let version = Self.smallestVersion(byteCount: bytes.count, level: errorCorrection) else {
            throw .dataTooLong(bytes.count)
        }
        let data = Self.dataCodewords(bytes, version: version, level: errorCorrection)
        let codewords = Self.interleaved(data, version: version, level: errorCorrection)
        var matrix = Matrix(version: version)
        matrix.drawFunctionPatterns()
        matrix.drawCodewords(codewords)

        let mask: Int
        if let forcedMask, (0..<8).contains(forcedMask) {
            mask = forcedMask
        } else {
            var best = 0
            var bestPenalty = Int.max
            for candidate in 0..<8 {
                var trial = matrix
                trial.applyMask(candidate)
                let penalty = trial.penalty()
                if penalty < bestPenalty {
                    bestPenalty = penalty
                    best = candidate
                }
            }
            mask = best
        }
        matrix.applyMask(mask)
        matrix.drawFormatBits(level: errorCorrection, mask: mask)
        matrix.drawVersion()

        self.version = version
        self.size = matrix.size
        self.errorCorrection = errorCorrection
        self.mask = mask
        self.modules = matrix.modules
    }

    // MARK: - Data encoding

    /// Bits of the byte-mode segment header and data: 4 mode bits, the count, 8 per byte.
    static func dataBits(byteCount: Int, version: Int) -> Int {
        4 + (version <= 9 ? 8 : 16) + 8 * byteCount
    }

    static func smallestVersion(byteCount: Int, level: ErrorCorrection) -> Int? {
        for version in 1...40 {
            let countBits = version <= 9 ? 8 : 16
            guard byteCount < 1 << countBits else { continue }
            if dataBits(byteCount: byteCount, version: version)
                <= Tables.dataCodewords(version: version, level: level) * 8 {
                return version
            }
        }
        return nil
    }

    /// The data codewords: mode 0100, count, bytes, terminator, zero bits to a byte, then 0xEC 0x11 padding.
    static func dataCodewords(_ bytes: [UInt8], version: Int, level: ErrorCorrection) -> [UInt8] {
        let capacity = Tables.dataCodewords(version: version, level: level)
        var writer = BitWriter()
        writer.append(0b0100, bits: 4)
        writer.append(bytes.count, bits: version <= 9 ? 8 : 16)
        for byte in bytes { writer.append(Int(byte), bits: 8) }
        writer.append(0, bits: min(4, capacity * 8 - writer.count))
        writer.append(0, bits: (8 - writer.count % 8) % 8)
        var result = writer.bytes
        var pad: UInt8 = 0xEC
        while result.count < capacity {
            result.append(pad)
            pad ^= 0xEC ^ 0x11
        }
        return result
    }

    /// Splits data into blocks, adds error correction to each and interleaves them.
    static func interleaved(_ data: [UInt8], version: Int, level: ErrorCorrection) -> [UInt8] {
        let blockCount = Tables.errorCorrectionBlocks[level.tableIndex][version]
        let eccLength = Tables.eccCodewordsPerBlock[level.tableIndex][version]
        let total = Tables.totalCodewords(version: version)
        let shortBlocks = blockCount - total % blockCount
        let shortDataLength = total / blockCount - eccLength
        let generator = ReedSolomon.generator(degree: eccLength)

        var dataBlocks: [ArraySlice<UInt8>] = []
        var eccBlocks: [[UInt8]] = []
        var offset = 0
        for index in 0..<blockCount {
            let length = shortDataLength + (index < shortBlocks ? 0 : 1)
            let block = data[offset..<(offset + length)]
            offset += length
            dataBlocks.append(block)
            eccBlocks.append(ReedSolomon.remainder(block, generator: generator))
        }

        var result: [UInt8] = []
        result.reserveCapacity(total)
        for i in 0...shortDataLength {
            for block in dataBlocks where i < block.count {
                result.append(block[block.startIndex + i])
            }
        }
        for i in 0..<eccLength {
            for block in eccBlocks { result.append(block[i]) }
        }
        return result
    }
}

/// Accumulates bits most significant first.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    mutating func append(_ value: Int, bits: Int) {
        guard bits > 0 else { return }
        for i in stride(from: bits - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> i) & 1 == 1 {
                bytes[bytes.count - 1] |= 0x80 >> UInt8(count % 8)
            }
            count += 1
        }
    }
}
