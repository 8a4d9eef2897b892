import SimplexFoundation

/// Thin alias over the foundation's base64url so description code names one place.
enum Base64URLCodec {
    static func encode(_ b: [UInt8]) -> String { Base64URL.encode(b) }
    static func decode(_ s: some StringProtocol) -> [UInt8]? { Base64URL.decode(s) }
}
