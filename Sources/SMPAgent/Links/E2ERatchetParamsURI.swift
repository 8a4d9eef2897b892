import DoubleRatchet
import SimplexFoundation

/// The double-ratchet keys an invitation link carries (simplexmq `E2ERatchetParamsUri`): a range
/// of e2e versions, two X448 keys for X3DH and, from version 3, the creator's KEM proposal.
/// Text form: `v=2-3&x3dh=<key1>,<key2>[&kem_key=<key>]` (values not escaped).
public struct E2ERatchetParamsURI: Sendable, Hashable {
    public let versions: VersionRange
    public let key1: X448PublicKey
    public let key2: X448PublicKey
    /// The text form leaves it out when `versions.max < 3` (and the parser does not read it
    /// then); the binary form always carries it, as in simplexmq.
    public let kem: RatchetKEMParams?

    public init(versions: VersionRange, key1: X448PublicKey, key2: X448PublicKey, kem: RatchetKEMParams?) {
        self.versions = versions
        self.key1 = key1
        self.key2 = key2
        self.kem = kem
    }

    /// The params one generated, advertised with a version range.
    public init(_ params: E2ERatchetParams, versions: VersionRange = VersionRange(E2EVersion.supported)) {
        self.init(versions: versions, key1: params.key1, key2: params.key2, kem: params.kem)
    }

    /// The params at one version (the KEM part only from version 3).
    public func params(version: UInt16) -> E2ERatchetParams {
        E2ERatchetParams(version: version, key1: key1, key2: key2, kem: version >= E2EVersion.pqRatchet ? kem : nil)
    }

    /// The params at the highest e2e version both sides support.
    public func compatibleParams(supported: VersionRange = VersionRange(E2EVersion.supported)) throws(LinkError) -> E2ERatchetParams {
        guard let v = versions.highestCommon(with: supported) else {
            throw .incompatibleVersion("e2e versions \(versions), supported \(supported)")
        }
        return params(version: v)
    }

    /// Parses the query string as simplexmq's `strP` for `RcvE2ERatchetParamsUri` does: unknown
    /// parameters are ignored, both keys must be X448, the KEM part is read only when the maximum
    /// version is 3 or more (`kem_ct` without `kem_key` is ignored), and KEM keys are opaque bytes
    /// of any length. Accepted KEM params (`kem_ct` with `kem_key`) are refused: a link can only
    /// propose. Versions are not checked here (see `compatibleParams`).
    public init(parsing s: String) throws(LinkError) {
        try LinkSyntax.checkInput(s)
        try self.init(query: LinkQuery(parsing: s))
    }

    init(query: LinkQuery) throws(LinkError) {
        let v = try query.requiredText("v")
        guard let versions = VersionRange(parsing: v) else {
            throw .invalidParameter(name: "v", reason: "not a version range: \(LinkSyntax.excerpt(v))")
        }
        let keys = try query.requiredText("x3dh").split(separator: ",", omittingEmptySubsequences: false)
        guard keys.count == 2 else { throw .invalidParameter(name: "x3dh", reason: "expected 2 keys, found \(keys.count)") }
        let k1 = try Self.x448(keys[0]), k2 = try Self.x448(keys[1])
        var kem: RatchetKEMParams?
        if versions.max >= E2EVersion.pqRatchet, let key = try Self.bytes(query, "kem_key") {
            if try Self.bytes(query, "kem_ct") != nil {
                throw .invalidParameter(name: "kem_ct", reason: "accepted KEM params in a link (bad ratchet KEM state)")
            }
            kem = .proposed(KEMPublicKey(key))
        }
        self.init(versions: versions, key1: k1, key2: k2, kem: kem)
    }

    /// simplexmq's `strEncode` (`QSP QNoEscaping`): padded base64url values, `kem_ct` before `kem_key`.
    public var queryString: String {
        var params: [(String, String)] = [
            ("v", versions.description),
            ("x3dh", Base64URL.encode(key1.x509Encoded) + "," + Base64URL.encode(key2.x509Encoded)),
        ]
        switch versions.max >= E2EVersion.pqRatchet ? kem : nil {
        case nil: break
        case .proposed(let k): params.append(("kem_key", Base64URL.encode(k.bytes)))
        case .accepted(let ct, let k):
            params.append(("kem_ct", Base64URL.encode(ct.bytes)))
            params.append(("kem_key", Base64URL.encode(k.bytes)))
        }
        return LinkQuery.renderUnescaped(params)
    }

    private static func x448(_ text: Substring) throws(LinkError) -> X448PublicKey {
        guard let der = LinkSyntax.base64url(text) else { throw .invalidParameter(name: "x3dh", reason: "key is not base64url") }
        do {
            return try X448PublicKey(x509Encoded: der)
        } catch {
            throw .invalidParameter(name: "x3dh", reason: "\(error)")
        }
    }

    private static func bytes(_ query: LinkQuery, _ name: String) throws(LinkError) -> [UInt8]? {
        guard let text = try query.text(name) else { return nil }
        guard let b = LinkSyntax.base64url(text) else { throw .invalidParameter(name: name, reason: "not base64url") }
        return b
    }
}

extension E2ERatchetParamsURI: CustomStringConvertible {
    public var description: String { queryString }
}
