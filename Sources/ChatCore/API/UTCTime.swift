import Foundation

/// A timestamp as SimpleX writes it (aeson `UTCTime`: `2024-05-01T12:30:05.123456Z`, the
/// fraction only as long as needed). The text is kept as received so re-encoding is exact.
public struct UTCTime: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The ISO 8601 text.
    public let text: String
    /// The instant, in seconds since 1970 (with the text's sub-second precision up to microseconds).
    public let date: Date

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; nil for anything else.
    public init?(_ text: String) {
        guard let d = UTCTime.parse(text) else { return nil }
        self.text = text
        date = d
    }

    /// The time as aeson prints it, to microseconds.
    public init(_ date: Date) {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        let totalMicros = Int64(micros)
        var secs = totalMicros / 1_000_000
        var frac = totalMicros % 1_000_000
        if frac < 0 {
            frac += 1_000_000
            secs -= 1
        }
        var days = secs / 86400
        var rem = secs % 86400
        if rem < 0 {
            rem += 86400
            days -= 1
        }
        let (y, m, d) = UTCTime.civil(fromDays: days)
        self.date = Date(timeIntervalSince1970: Double(secs) + Double(frac) / 1_000_000)
        if (0...9999).contains(y) {
            text = UTCTime.format(year: y, month: m, day: d, secondOfDay: rem, micros: frac)
            return
        }
        func pad(_ n: Int64, _ w: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        var s = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(rem / 3600, 2)):\(pad(rem % 3600 / 60, 2)):\(pad(rem % 60, 2))"
        if frac != 0 {
            var f = pad(frac, 6)
            while f.hasSuffix("0") { f.removeLast() }
            s += "." + f
        }
        text = s + "Z"
    }

    /// `YYYY-MM-DDTHH:MM:SS[.ffffff]Z` (trailing zeros of the fraction dropped) written into one
    /// buffer: timestamps are made for every item and contact an answer or event shows, and
    /// padding each field as a String of its own cost several allocations per field.
    private static func format(year: Int64, month: Int64, day: Int64, secondOfDay rem: Int64, micros frac: Int64) -> String {
        var b = [UInt8](repeating: 0, count: 27)
        func put(_ v: Int64, _ at: Int, _ width: Int) {
            var v = v
            for k in stride(from: at + width - 1, through: at, by: -1) {
                b[k] = UInt8(truncatingIfNeeded: 0x30 + v % 10)
                v /= 10
            }
        }
        put(year, 0, 4)
        b[4] = 0x2D
        put(month, 5, 2)
        b[7] = 0x2D
        put(day, 8, 2)
        b[10] = 0x54
        put(rem / 3600, 11, 2)
        b[13] = 0x3A
        put(rem % 3600 / 60, 14, 2)
        b[16] = 0x3A
        put(rem % 60, 17, 2)
        var n = 19
        if frac != 0 {
            b[19] = 0x2E
            put(frac, 20, 6)
            n = 26
            while b[n - 1] == 0x30 { n -= 1 }
        }
        b[n] = 0x5A
        return String(decoding: b[0...n], as: UTF8.self)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let s = try c.decode(String.self)
        guard let t = UTCTime(s) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not an ISO 8601 time: \(s)")
        }
        self = t
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(text)
    }

    public var description: String { text }

    public static func < (a: UTCTime, b: UTCTime) -> Bool { a.date < b.date }

    /// Times are the same instant, whatever their spelling.
    public static func == (a: UTCTime, b: UTCTime) -> Bool { a.date == b.date }
    public func hash(into h: inout Hasher) { h.combine(date) }

    // MARK: parsing, without Foundation formatters (no shared mutable state)

    private static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int64? {
            guard i + n <= b.count else { return nil }
            var v: Int64 = 0
            for k in i..<(i + n) {
                let c = b[k]
                guard c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int64(c - 0x30)
            }
            i += n
            return v
        }
        func expect(_ ch: UInt8) -> Bool {
            guard i < b.count, b[i] == ch else { return false }
            i += 1
            return true
        }
        guard let y = digits(4), expect(0x2D), let mo = digits(2), expect(0x2D), let d = digits(2) else { return nil }
        guard i < b.count, b[i] == 0x54 || b[i] == 0x74 || b[i] == 0x20 else { return nil }
        i += 1
        guard let h = digits(2), expect(0x3A), let mi = digits(2), expect(0x3A), let s = digits(2) else { return nil }
        guard (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        var frac = 0.0
        if i < b.count, b[i] == 0x2E {
            i += 1
            var scale = 0.1
            var any = false
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                frac += Double(b[i] - 0x30) * scale
                scale /= 10
                i += 1
                any = true
            }
            guard any else { return nil }
        }
        var offset: Int64 = 0
        guard i < b.count else { return nil }
        if b[i] == 0x5A || b[i] == 0x7A {
            i += 1
        } else if b[i] == 0x2B || b[i] == 0x2D {
            let sign: Int64 = b[i] == 0x2B ? 1 : -1
            i += 1
            guard let oh = digits(2) else { return nil }
            _ = expect(0x3A)
            guard let om = digits(2) else { return nil }
            offset = sign * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(y, mo, d)
        let secs = days * 86400 + h * 3600 + mi * 60 + s - offset
        return Date(timeIntervalSince1970: Double(secs) + frac)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    private static func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    private static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
