/// A message key with its IV, derived by the chain KDF (`mk` of pqdr.md plus the body IV).
struct MessageKey: Sendable, Equatable {
    let key: [UInt8]
    let iv: [UInt8]
}

/// `MKSKIPPED`: keys of messages skipped in each receiving chain, grouped by that chain's header
/// key, oldest chain first. Part of the ratchet state, so one persisted blob is always
/// consistent; bounded by `limit` keys in total, dropping the oldest first.
struct SkippedMessageKeys: Sendable, Equatable {
    struct Chain: Sendable, Equatable {
        var headerKey: [UInt8]
        /// Ascending message numbers (keys are only ever added in chain order).
        var keys: [(number: UInt32, key: MessageKey)]

        static func == (a: Chain, b: Chain) -> Bool {
            a.headerKey == b.headerKey && a.keys.count == b.keys.count
                && zip(a.keys, b.keys).allSatisfy { $0.number == $1.number && $0.key == $1.key }
        }

        func index(of n: UInt32) -> Int? {
            var lo = 0, hi = keys.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if keys[mid].number < n { lo = mid + 1 } else { hi = mid }
            }
            return lo < keys.count && keys[lo].number == n ? lo : nil
        }
    }

    private(set) var chains: [Chain] = []

    var count: Int { chains.reduce(0) { $0 + $1.keys.count } }
    var isEmpty: Bool { chains.isEmpty }

    /// Adds keys of one chain (ascending numbers, all above those already kept for it).
    mutating func add(headerKey: [UInt8], keys: [(number: UInt32, key: MessageKey)]) {
        guard !keys.isEmpty else { return }
        if let i = chains.firstIndex(where: { $0.headerKey == headerKey }) {
            chains[i].keys += keys
        } else {
            chains.append(Chain(headerKey: headerKey, keys: keys))
        }
    }

    func key(headerKey: [UInt8], number: UInt32) -> MessageKey? {
        guard let c = chains.first(where: { $0.headerKey == headerKey }), let i = c.index(of: number) else { return nil }
        return c.keys[i].key
    }

    /// Removes a used key (and its chain when it was the last one).
    mutating func remove(headerKey: [UInt8], number: UInt32) {
        guard let ci = chains.firstIndex(where: { $0.headerKey == headerKey }), let i = chains[ci].index(of: number) else { return }
        chains[ci].keys.remove(at: i)
        if chains[ci].keys.isEmpty { chains.remove(at: ci) }
    }

    /// Drops the oldest keys (oldest chain, lowest numbers) until at most `limit` remain.
    mutating func trim(to limit: Int) {
        var excess = count - limit
        while excess > 0, !chains.isEmpty {
            let n = min(excess, chains[0].keys.count)
            chains[0].keys.removeFirst(n)
            if chains[0].keys.isEmpty { chains.removeFirst() }
            excess -= n
        }
    }

    init() {}

    init(chains: [Chain]) { self.chains = chains }
}
