import COpenSSL

/// An incremental SHA-256 or SHA-512 from the system OpenSSL: it picks the CPU's fastest code
/// (SHA-NI, AVX2), and every byte of an XFTP file goes through both (chunk and file digests).
/// A reference type owning its EVP context; used by one task at a time.
public final class StreamDigest: @unchecked Sendable {
    public enum Algorithm: Sendable { case sha256, sha512 }

    private let ctx: OpaquePointer
    public let algorithm: Algorithm

    public init(_ algorithm: Algorithm) {
        self.algorithm = algorithm
        // Allocation failure is the only way these fail; a digest is never optional for callers.
        guard let c = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
        ctx = c
        let ok = EVP_DigestInit_ex(ctx, algorithm == .sha256 ? EVP_sha256() : EVP_sha512(), nil)
        precondition(ok == 1, "EVP_DigestInit_ex failed")
    }

    deinit { EVP_MD_CTX_free(ctx) }

    public func update(_ p: UnsafeRawBufferPointer) {
        guard let base = p.baseAddress, p.count > 0 else { return }
        _ = EVP_DigestUpdate(ctx, base, p.count)
    }

    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest; the context starts over for the next message.
    public func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: algorithm == .sha256 ? 32 : 64)
        var len: UInt32 = 0
        let ok = EVP_DigestFinal_ex(ctx, &out, &len)
        precondition(ok == 1, "EVP_DigestFinal_ex failed")
        _ = EVP_DigestInit_ex(ctx, algorithm == .sha256 ? EVP_sha256() : EVP_sha512(), nil)
        return out
    }
}
