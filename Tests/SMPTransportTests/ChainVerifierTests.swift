import Foundation
import SimplexFoundation
import XCTest

@testable import SMPTransport

final class ChainVerifierTests: XCTestCase {
    let c = sharedCredentials

    func testThreeAndFourCertificateChains() throws {
        // [leaf, identity, CA]: the identity (second) is pinned, the chain leads to the last.
        let root = try ServerCredentials.generate(commonName: "root")
        let v = ServerChainVerifier(keyHash: c.keyHash)
        XCTAssertThrowsError(try v.verify(chain: [c.serverCertificateDER, c.caCertificateDER, root.caCertificateDER])) {
            XCTAssertEqual($0 as? ChainVerificationError, .badSignature)
        }
        // The online certificate is not a CA, so it cannot issue.
        XCTAssertThrowsError(try ServerChainVerifier(keyHash: CryptoHash.sha256(c.serverCertificateDER))
            .verify(chain: [c.serverCertificateDER, c.serverCertificateDER, c.caCertificateDER])) {
            XCTAssertEqual($0 as? ChainVerificationError, .badSignature)
        }
    }

    func testServerChainIsAccepted() throws {
        let verified = try ServerChainVerifier(keyHash: c.keyHash).verify(chain: [c.serverCertificateDER, c.caCertificateDER])
        XCTAssertEqual(verified.onlineCertificate, c.serverCertificateDER)
        XCTAssertEqual(verified.identityCertificate, c.caCertificateDER)
    }

    func testWrongFingerprintIsIdentityMismatch() throws {
        let other = try ServerCredentials.generate(commonName: "other")
        XCTAssertThrowsError(try ServerChainVerifier(keyHash: other.keyHash).verify(chain: [c.serverCertificateDER, c.caCertificateDER])) {
            XCTAssertEqual($0 as? ChainVerificationError, .identityMismatch)
        }
    }

    func testChainLengthMustBeTwoToFour() {
        let v = ServerChainVerifier(keyHash: c.keyHash)
        for chain in [[], [c.serverCertificateDER], Array(repeating: c.caCertificateDER, count: 5)] {
            XCTAssertThrowsError(try v.verify(chain: chain)) {
                XCTAssertEqual($0 as? ChainVerificationError, .chainLength(chain.count))
            }
        }
    }

    func testLeafMustBeSignedByIdentity() throws {
        let other = try ServerCredentials.generate(commonName: "other")
        XCTAssertThrowsError(try ServerChainVerifier(keyHash: c.keyHash).verify(chain: [other.serverCertificateDER, c.caCertificateDER])) {
            XCTAssertEqual($0 as? ChainVerificationError, .badSignature)
        }
        XCTAssertThrowsError(try ServerChainVerifier(keyHash: c.keyHash).verify(chain: [[1, 2, 3], c.caCertificateDER])) {
            XCTAssertEqual($0 as? ChainVerificationError, .malformedCertificate)
        }
    }

    func testExpiredChainIsRejected() throws {
        let c = try ServerCredentials.generate(commonName: "short", validityDays: 30)
        let v = ServerChainVerifier(keyHash: c.keyHash)
        let chain = [c.serverCertificateDER, c.caCertificateDER]
        XCTAssertThrowsError(try v.verify(chain: chain, now: Date().addingTimeInterval(40 * 86400))) {
            XCTAssertEqual($0 as? ChainVerificationError, .expired)
        }
        XCTAssertThrowsError(try v.verify(chain: chain, now: Date().addingTimeInterval(-86400))) {
            XCTAssertEqual($0 as? ChainVerificationError, .expired)
        }
    }
}
