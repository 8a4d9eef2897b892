import NIOSSL
import SMPProtocol

/// Per-connection record of the TLS certificate check, shared (on the event loop only) between
/// the NIOSSL verification callback and the client handshake handler, which needs the verified
/// online certificate to check the session key signature and the failure reason for errors.
final class ChainVerificationRecord {
    var verified: VerifiedServerChain?
    var failure: ChainVerificationError?

    /// The NIOSSL callback that accepts only a chain `verifier` accepts.
    func callback(verifier: ServerChainVerifier) -> NIOSSLCustomVerificationCallback {
        { [self] certificates, promise in
            do {
                let chain = try certificates.map { try $0.toDERBytes() }
                verified = try verifier.verify(chain: chain)
                promise.succeed(.certificateVerified)
            } catch let error as ChainVerificationError {
                failure = error
                promise.succeed(.failed)
            } catch {
                failure = .malformedCertificate
                promise.succeed(.failed)
            }
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
