import SimplexFoundation

/// A range of protocol versions as links and handshakes advertise them (simplexmq `VersionRange`):
/// text "7" or "2-7", binary two word16. Peers use the highest version both ranges contain.
public struct VersionRange: Sendable, Hashable, CustomStringConvertible {
    public let min: UInt16
    public let max: UInt16

    /// Nil when `min > max`.
    public init?(min: UInt16, max: UInt16) {
        guard min <= max else { return nil }
        self.min = min
        self.max = max
    }

    /// A single version.
    public init(_ version: UInt16) {
        min = version
        max = version
    }

    public init(_ range: ClosedRange<UInt16>) {
        min = range.lowerBound
        max = range.upperBound
    }

    /// Parses "7" or "2-7" (decimal, at most 5 digits each, min <= max).
    public init?(parsing s: some StringProtocol) {
        let parts = s.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard let lo = VersionRange.number(parts[0]) else { return nil }
        if parts.count == 1 {
            self.init(lo)
        } else {
            guard let hi = VersionRange.number(parts[1]) else { return nil }
            self.init(min: lo, max: hi)
        }
    }

    public func contains(_ v: UInt16) -> Bool { v >= min && v <= max }

    /// Versions in both ranges, or nil when they are disjoint.
    public func intersection(_ other: VersionRange) -> VersionRange? {
        VersionRange(min: Swift.max(min, other.min), max: Swift.min(max, other.max))
    }

    /// The highest version in both ranges (the one peers agree on).
    public func highestCommon(with other: VersionRange) -> UInt16? { intersection(other)?.max }

    public var closedRange: ClosedRange<UInt16> { min...max }

    public var description: String { min == max ? "\(min)" : "\(min)-\(max)" }

    private static func number(_ s: some StringProtocol) -> UInt16? {
        guard !s.isEmpty, s.utf8.count <= 5, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt16(s)
    }
}

extension VersionRange: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) {
        e.word16(min)
        e.word16(max)
    }

    public init(from d: inout SMPDecoder) throws(DecodingError) {
        let lo = try AgentWire.decoding { try d.word16() }
        let hi = try AgentWire.decoding { try d.word16() }
        guard let r = VersionRange(min: lo, max: hi) else { throw .invalid("version range \(lo)-\(hi)") }
        self = r
    }
}
