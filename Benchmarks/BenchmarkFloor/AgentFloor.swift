import DoubleRatchet
import Foundation
import GRDB
import SMPAgent
import SimplexFoundation

/// The work one agent-to-agent message must do whatever the agents' design, timed single-threaded
/// in this run: the relay's delivery floor (smp-bench's, signatures and transport crypto for the
/// SEND/MSG/ACK blocks), then each agent's own part: the double ratchet and the per-queue
/// crypto_box on each side, and one SQLite commit per side writing what a message changes (the
/// message row and the ratchet state).
public enum AgentFloor {
    public static func measure(pq: Bool) throws -> CryptoFloor.Result {
        let relay = try CryptoFloor.measure(bodySize: 16_064, echoBlocksPerSecond: 1, cores: 1,
                                               senderAuth: AgentConfig(servers: []).senderAuthAlgorithm,
                                               recipientAuth: AgentConfig(servers: []).recipientAuthAlgorithm)
        var items = relay.items

        let bobParams = try PQRatchet.generateReceiverParams(pqSupport: pq)
        let aliceParams = try PQRatchet.generateSenderParams(replyingTo: bobParams.publicParams, pqSupport: pq)
        var alice = try PQRatchet.initSend(own: aliceParams, peer: bobParams.publicParams)
        var bob = try PQRatchet.initReceive(own: bobParams, peer: aliceParams.publicParams, pqSupport: pq)
        let length = AgentMessageSize.e2eEncAgentMsgLength(pq: pq)
        let plain = SecureRandom.bytes(200)
        // Messages made in advance, so decryption is timed on its own (same direction: no DH step).
        var pending: [[UInt8]] = []
        func refill() throws { for _ in 0..<64 { pending.append(try alice.encrypt(plain, paddedLength: length)) } }
        items.append(.init(name: "sender: ratchet encrypt (\(length) B padded)",
                           micros: try CryptoFloor.bestMicros { _ = try alice.encrypt(plain, paddedLength: length) }))
        // A second pair for decryption, so the sender above did not run thousands of keys ahead.
        let bobParams2 = try PQRatchet.generateReceiverParams(pqSupport: pq)
        let aliceParams2 = try PQRatchet.generateSenderParams(replyingTo: bobParams2.publicParams, pqSupport: pq)
        alice = try PQRatchet.initSend(own: aliceParams2, peer: bobParams2.publicParams)
        bob = try PQRatchet.initReceive(own: bobParams2, peer: aliceParams2.publicParams, pqSupport: pq)
        try refill()
        items.append(.init(name: "recipient: ratchet decrypt", micros: try CryptoFloor.bestMicros {
            if pending.isEmpty { try refill() }
            _ = try bob.decrypt(pending.removeFirst())
        }))
        let key = try CryptoBoxKey(dhSecret: SecureRandom.bytes(32))
        let envelope = try AgentMsgEnvelope.message(agentVersion: AgentVersion.current, encAgentMessage: try alice.encrypt(plain, paddedLength: length)).smpEncoded()
        let message = ClientMessage(privHeader: .empty, body: envelope)
        let sealed = try QueueCrypto.seal(message, key: key, version: SMPClientVersion.current, senderDhKey: nil)
        items.append(.init(name: "sender: per-queue crypto_box seal", micros: try CryptoFloor.bestMicros {
            _ = try QueueCrypto.seal(message, key: key, version: SMPClientVersion.current, senderDhKey: nil)
        }))
        items.append(.init(name: "recipient: per-queue crypto_box open", micros: try CryptoFloor.bestMicros {
            _ = try QueueCrypto.open(sealed) { _ in key }
        }))
        let state = try alice.serialized()
        let commit = try sqliteCommit(stateBytes: state.count)
        items.append(.init(name: "sender: one SQLite commit (message row + \(state.count) B ratchet state)", micros: commit))
        items.append(.init(name: "recipient: one SQLite commit (the same)", micros: commit))
        return CryptoFloor.Result(items: items, echoDerivedTransportMicros: 0)
    }

    /// One WAL commit (synchronous=NORMAL, as the agent's and chat's stores) inserting a
    /// `rowBytes` row and replacing a `stateBytes` blob, in a fresh database file.
    public static func sqliteCommit(stateBytes: Int, rowBytes: Int = 300) throws -> Double {
        let dir = NSTemporaryDirectory() + "agent-floor-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let q = try DatabaseQueue(path: dir + "/floor.db", configuration: config)
        try q.write { db in
            try db.execute(sql: """
                CREATE TABLE msgs(id INTEGER PRIMARY KEY, body BLOB NOT NULL);
                CREATE TABLE ratchets(id INTEGER PRIMARY KEY, state BLOB NOT NULL);
                INSERT INTO ratchets VALUES (1, zeroblob(\(stateBytes)));
                """)
        }
        let row = Data(SecureRandom.bytes(rowBytes)), state = Data(SecureRandom.bytes(stateBytes))
        var id: Int64 = 0
        return try CryptoFloor.bestMicros {
            try q.write { db in
                id += 1
                try db.execute(sql: "INSERT INTO msgs VALUES (?, ?)", arguments: [id, row])
                try db.execute(sql: "UPDATE ratchets SET state = ? WHERE id = 1", arguments: [state])
            }
        }
    }
}
