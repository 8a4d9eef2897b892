/// Why a byte string could not be decoded: decoders report one of these instead of trapping,
/// so malformed network input always becomes a protocol error (ERR BLOCK / CMD SYNTAX).
public enum DecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Input ended before the value was complete.
    case endOfInput
    /// Bytes were left over after a value that must consume all input.
    case trailingBytes(Int)
    /// A value was present but not valid (bad tag, bad length, bad character...).
    case invalid(String)

    public var description: String {
        switch self {
        case .endOfInput: "unexpected end of input"
        case .trailingBytes(let n): "\(n) trailing bytes"
        case .invalid(let why): why
        }
    }
}

/// Why a value could not be encoded (a string longer than its length prefix allows, a block overflow).
public enum EncodingError: Error, Equatable, Sendable {
    case tooLarge(String)
}
