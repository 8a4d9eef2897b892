import Foundation
import SimplexFoundation

/// The crypto_box keys of dh(queue key, server session key) of one transport session, so an
/// X25519 authenticator costs a SHA-512 and a secretbox instead of a DH per command. The
/// server's session key never changes within a session, so a key stays valid until it ends.
public final class AuthenticatorKeyCache: @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [X25519PublicKey: CryptoBoxKey] = [:]
    private let limit: Int

    /// At most `limit` keys are kept; when full the cache starts over (commands on many queues
    /// then cost a DH each again, as without a cache).
    public init(limit: Int) {
        self.limit = limit
    }

    /// The key for `queueKey`, derived with `derive` on first use.
    public func key(for queueKey: X25519PublicKey, derive: () throws(CryptoError) -> CryptoBoxKey) throws(CryptoError) -> CryptoBoxKey {
        if let k = lock.withLock({ keys[queueKey] }) { return k }
        let k = try derive()
        lock.withLock {
            if keys.count >= limit { keys.removeAll(keepingCapacity: true) }
            keys[queueKey] = k
        }
        return k
    }
}
