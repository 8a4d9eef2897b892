import Foundation
import NIOConcurrencyHelpers
import SimplexFoundation
import XFTPProtocol

/// One TLS connection of an XFTP client and where its XFTP handshake stands. The reference keeps
/// this in a map keyed by the TLS session ID and drops it when the connection closes; one object
/// per connection is the same thing. Requests on the connection's streams may run concurrently.
final class XFTPConnection: Sendable {
    enum Handshake: Sendable {
        case none
        /// The server sent its handshake with this session key (`HandshakeSent`).
        case sent(X25519PrivateKey)
        /// The client's handshake was accepted (`HandshakeAccepted`).
        case accepted(XFTPServerSession)
    }

    /// tls-unique of the connection: the XFTP session ID.
    let sessionId: [UInt8]
    /// The negotiated ALPN name, nil when the client offered none.
    let alpn: String?
    private let state = NIOLockedValueBox(Handshake.none)
    /// When the last request started (seconds), for `[INACTIVE_CLIENTS]`.
    private let activeAt = NIOLockedValueBox(Int64(Date().timeIntervalSince1970))

    func touch() { activeAt.withLockedValue { $0 = Int64(Date().timeIntervalSince1970) } }
    var lastActive: Int64 { activeAt.withLockedValue { $0 } }

    init(sessionId: [UInt8], alpn: String?) {
        self.sessionId = sessionId
        self.alpn = alpn
    }

    var handshake: Handshake {
        get { state.withLockedValue { $0 } }
    }

    func set(_ h: Handshake) { state.withLockedValue { $0 = h } }

    /// The session key of a sent handshake, or a new one recorded as sent (`processHello` looks
    /// it up again; only web hellos, not built, can repeat it).
    func helloKey() -> X25519PrivateKey {
        state.withLockedValue { s in
            if case .sent(let k) = s { return k }
            let k = X25519PrivateKey()
            s = .sent(k)
            return k
        }
    }
}
