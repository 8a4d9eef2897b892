import SMPProtocol

/// Per-connection outcome of the TLS certificate check, written by the TLS handler's verifier
/// and read by the client handshake handler (both on the event loop) to report why TLS failed.
final class ChainCheck {
    let verifier: ServerChainVerifier
    var verified: VerifiedServerChain?
    var failure: ChainVerificationError?

    init(verifier: ServerChainVerifier) { self.verifier = verifier }

    func verify(_ chain: [[UInt8]]) -> Bool {
        do {
            verified = try verifier.verify(chain: chain)
            return true
        } catch {
            failure = error
            return false
        }
    }

    /// The transport error a chain failure means for the caller.
    var transportError: TransportError? {
        switch failure {
        case .none: nil
        case .identityMismatch: .handshake(.identity)
        case .some: .handshake(.badAuth)
        }
    }
}
