import SimplexFoundation

/// simplexmq `CertChainPubKey`: a certificate chain and a key signed by the chain's leaf key.
/// Encoded as `count(1 byte, >= 1) Large(certificate DER)... Large(signed key DER)`.
public struct CertChainPubKey: Sendable, Hashable, SMPEncodable, SMPDecodable {
    /// Certificates, DER, leaf first.
    public var chain: [[UInt8]]
    public var signedKey: SignedPublicKey

    public init(chain: [[UInt8]], signedKey: SignedPublicKey) {
        self.chain = chain
        self.signedKey = signedKey
    }

    public func encode(into e: inout SMPEncoder) throws {
        guard (1...255).contains(chain.count) else { throw EncodingError.tooLarge("chain of \(chain.count) certificates") }
        e.byte(UInt8(chain.count))
        for cert in chain { try e.largeString(cert) }
        try e.largeString(signedKey.der)
    }

    /// Every certificate must be a well-formed X.509 certificate and the key a well-formed signed
    /// object (`certChainP`, `SignedObject`), or the parse fails.
    public init(from d: inout SMPDecoder) throws {
        let n = Int(try d.byte())
        guard n >= 1 else { throw DecodingError.invalid("empty certificate chain") }
        var chain: [[UInt8]] = []
        for _ in 0..<n {
            let der = try d.largeString()
            guard (try? X509Certificate(der: der)) != nil else { throw DecodingError.invalid("bad certificate") }
            chain.append(der)
        }
        self.chain = chain
        signedKey = try SignedPublicKey(der: d.largeString())
    }
}
