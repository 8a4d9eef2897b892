import Foundation
import SimplexFoundation

/// The system CSPRNG read ahead for the KEM: the C code asks for each of a random polynomial's
/// 761 words on its own (4 bytes, the order simplexmq's code asks in, which keeps the NIST known
/// answers), and one getrandom per word was most of an encapsulation's time. Every byte served
/// is the CSPRNG's and is served once; what is left is wiped.
final class BufferedSystemRandom {
    /// One random polynomial's words.
    static let blockSize = 4 * 761
    private var block: [UInt8] = []
    private var used = 0

    func next(_ n: Int) -> [UInt8] {
        guard n <= Self.blockSize else { return SecureRandom.bytes(n) }
        if block.count - used < n {
            wipe()
            block = SecureRandom.bytes(Self.blockSize)
            used = 0
        }
        defer { used += n }
        return Array(block[used..<(used + n)])
    }

    private func wipe() {
        block.withUnsafeMutableBytes { p in
            guard let base = p.baseAddress else { return }
            memset(base, 0, p.count)
        }
    }

    deinit { wipe() }
}
