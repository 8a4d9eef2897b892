import Foundation
import SimplexFoundation

/// An opaque byte string that the chat protocol writes as a base64url JSON string (simplexmq
/// `StrEncoding ByteString`): padded on output, padding optional on input, never empty.
public protocol Base64URLByteString: Codable, Sendable, Hashable, CustomStringConvertible {
    var bytes: [UInt8] { get }
    init(bytes: [UInt8])
}

extension Base64URLByteString {
    /// Parses base64url text; nil for an empty string, other characters or an impossible length.
    public init?(base64url text: some StringProtocol) {
        guard let b = ProtocolBase64.decode(text) else { return nil }
        self.init(bytes: b)
    }

    /// The padded base64url text, as sent.
    public var base64url: String { Base64URL.encode(bytes, padded: true) }

    public var description: String { base64url }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let s = try c.decode(String.self)
        guard let b = ProtocolBase64.decode(s) else {
            throw Swift.DecodingError.dataCorruptedError(in: c, debugDescription: "not a base64url string")
        }
        self.init(bytes: b)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(base64url)
    }
}

/// The ID a sender gives a message so both sides can refer to it later (quote, edit, delete, react).
///
/// simplex-chat makes its bytes the base64url *text* of 12 random bytes (16 ASCII bytes,
/// Store/Shared.hs `randomId`), so on the wire it is 24 characters ending in `==`; peers treat it
/// as opaque bytes of any non-zero length.
public struct SharedMsgId: Base64URLByteString {
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Random bytes before the text encoding (simplex-chat `randomId gVar 12`).
    public static let randomByteCount = 12

    /// A fresh ID, made exactly as simplex-chat makes them.
    public static func random() -> SharedMsgId {
        SharedMsgId(bytes: Array(Base64URL.encode(SecureRandom.bytes(randomByteCount), padded: true).utf8))
    }
}

/// A group member's group-wide ID, chosen by the member who introduces them.
///
/// simplex-chat uses the standard-base64 text of 12 random bytes (`encodedRandomBytes gVar 12`).
public struct MemberId: Base64URLByteString {
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// A fresh ID, made as simplex-chat makes them.
    public static func random() -> MemberId {
        MemberId(bytes: Array(Data(SecureRandom.bytes(12)).base64EncodedString().utf8))
    }
}

/// Identifies repeated contact requests from one sender to an address (`x.contact` `contactReqId`).
public struct XContactId: Base64URLByteString {
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
}

/// The SHA-512 digest of a file offered in a message (`FileInvitation.fileDigest`).
public struct FileDigest: Base64URLByteString {
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
}

/// Strict base64url as simplexmq's `base64urlP` reads it: URL alphabet only, then optional `=`.
enum ProtocolBase64 {
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let u = Array(text.utf8)
        var end = u.count
        while end > 0, u[end - 1] == UInt8(ascii: "=") { end -= 1 }
        guard end > 0, u.count - end <= 2 else { return nil }
        for c in u[0..<end] {
            let ok = (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39)
                || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
            if !ok { return nil }
        }
        return Base64URL.decode(String(decoding: u[0..<end], as: UTF8.self))
    }
}

/// A contact-merging probe (x.info.probe, x.info.probe.ok): 32 random bytes sent over one
/// connection, whose SHA-256 goes over others (simplex-chat `Probe`), to learn that a contact and a
/// group member are the same peer.
public struct Probe: Base64URLByteString {
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// simplex-chat `createSentProbe` (`createWithRandomBytes 32`).
    public static let byteCount = 32

    public static func random() -> Probe { Probe(bytes: SecureRandom.bytes(byteCount)) }
}

/// The SHA-256 of a probe's bytes (x.info.probe.check, simplex-chat `ProbeHash`).
public struct ProbeHash: Base64URLByteString {
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
}

extension Probe {
    /// What x.info.probe.check carries for this probe.
    public var hash: ProbeHash { ProbeHash(bytes: CryptoHash.sha256(bytes)) }
}
