import SMPTransport

/// simplexmq `extraSMPServerHosts`: the onion hosts of SimpleX's preset servers. Queue
/// addresses from SMP client version 1 carry one host only; when that host is one of these
/// servers, the parser adds its onion host (`updateSMPServerHosts`), so old links still
/// work over Tor.
enum PresetServerHosts {
    static let onionHosts: [String: String] = [
        "smp4.simplex.im": "o5vmywmrnaxalvz6wi3zicyftgio6psuvyniis6gco6bp6ekl4cqj4id.onion",
        "smp5.simplex.im": "jjbyvoemxysm7qxap7m5d5m35jzv5qq6gnlv7s4rsn7tdwwmuqciwpid.onion",
        "smp6.simplex.im": "bylepyau3ty4czmn77q4fglvperknl4bi2eb2fdy2bh4jxtf32kf73yd.onion",
        "smp8.simplex.im": "beccx4yfxxbvyhqypaavemqurytl6hozr47wfc7uuecacjqdvwpw2xid.onion",
        "smp9.simplex.im": "jssqzccmrcws6bhmn77vgmhfjmhwlyr3u7puw4erkyoosywgl67slqqd.onion",
        "smp10.simplex.im": "rb2pbttocvnbrngnwziclp2f4ckjq65kebafws6g4hy22cdaiv5dwjqd.onion",
    ]

    /// simplexmq `updateSMPServerHosts`: a server with exactly one host that has a known onion
    /// host gets it as its second host; any other server is returned unchanged.
    static func update(_ server: SMPServerAddress) -> SMPServerAddress {
        guard server.hosts.count == 1, let onion = onionHosts[server.hosts[0]] else { return server }
        return (try? server.addingHosts([onion])) ?? server
    }
}
