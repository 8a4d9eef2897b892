import SimplexFoundation

/// simplexmq `SMPServiceRole`: what a client presenting a service certificate is (v16).
public enum SMPServiceRole: UInt8, Sendable, Hashable, SMPEncodable, SMPDecodable {
    case messaging = 0x4D  // M
    case notifier = 0x4E  // N
    case proxy = 0x50  // P

    public func encode(into e: inout SMPEncoder) throws { e.byte(rawValue) }

    public init(from d: inout SMPDecoder) throws {
        guard let r = SMPServiceRole(rawValue: try d.byte()) else { throw DecodingError.invalid("bad SMPServiceRole") }
        self = r
    }
}

/// simplexmq `SMPClientHandshakeService`: the role and the service certificate chain with the
/// session signing key it certifies.
public struct SMPClientHandshakeService: Sendable, Hashable, SMPEncodable, SMPDecodable {
    public var role: SMPServiceRole
    public var certKey: CertChainPubKey

    public init(role: SMPServiceRole, certKey: CertChainPubKey) {
        self.role = role
        self.certKey = certKey
    }

    public func encode(into e: inout SMPEncoder) throws {
        try role.encode(into: &e)
        try certKey.encode(into: &e)
    }

    public init(from d: inout SMPDecoder) throws {
        role = try SMPServiceRole(from: &d)
        certKey = try CertChainPubKey(from: &d)
    }
}
