/// A 24-byte ID (queue or message) held inline, so 100k idle queues cost no per-ID heap allocation.
public struct ID24: Hashable, Sendable {
    public var a: UInt64, b: UInt64, c: UInt64

    public static let length = 24

    public init?<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        guard bytes.count == Self.length else { return nil }
        (a, b, c) = (0, 0, 0)
        for (i, byte) in bytes.enumerated() {
            switch i / 8 {
            case 0: a = a << 8 | UInt64(byte)
            case 1: b = b << 8 | UInt64(byte)
            default: c = c << 8 | UInt64(byte)
            }
        }
    }

    public static func random() -> ID24 { ID24(SecureRandomBytes.get(length))! }

    public var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(Self.length)
        for w in [a, b, c] {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: w >> UInt64(shift))) }
        }
        return out
    }
}

/// A 32-byte key or secret held inline (see `ID24`).
public struct Key32: Hashable, Sendable {
    public var a: UInt64, b: UInt64, c: UInt64, d: UInt64

    public init?<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        guard bytes.count == 32 else { return nil }
        (a, b, c, d) = (0, 0, 0, 0)
        for (i, byte) in bytes.enumerated() {
            switch i / 8 {
            case 0: a = a << 8 | UInt64(byte)
            case 1: b = b << 8 | UInt64(byte)
            case 2: c = c << 8 | UInt64(byte)
            default: d = d << 8 | UInt64(byte)
            }
        }
    }

    public var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(32)
        for w in [a, b, c, d] {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: w >> UInt64(shift))) }
        }
        return out
    }
}

import SimplexFoundation

enum SecureRandomBytes {
    static func get(_ n: Int) -> [UInt8] { SecureRandom.bytes(n) }
}
