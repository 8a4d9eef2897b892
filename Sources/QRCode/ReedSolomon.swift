// Reed-Solomon error correction over GF(2^8) with the QR primitive polynomial x^8+x^4+x^3+x^2+1.

enum ReedSolomon {
    /// Product of two field elements (Russian peasant multiplication modulo 0x11D).
    static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var z: Int = 0
        for i in stride(from: 7, through: 0, by: -1) {
            z = (z << 1) ^ ((z >> 7) * 0x11D)
            z ^= Int((y >> UInt8(i)) & 1) * Int(x)
        }
        return UInt8(truncatingIfNeeded: z)
    }

    /// Coefficients (highest degree first, leading 1 omitted) of the generator
    /// polynomial (x - α^0)(x - α^1)…(x - α^(degree-1)).
    static func generator(degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                result[j] = multiply(result[j], root)
                if j + 1 < degree { result[j] ^= result[j + 1] }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    /// Remainder of data(x)·x^degree divided by the generator: the error correction codewords.
    static func remainder(_ data: ArraySlice<UInt8>, generator: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ result[0]
            result.removeFirst()
            result.append(0)
            for i in 0..<result.count {
                result[i] ^= multiply(generator[i], factor)
            }
        }
        return result
    }
}
