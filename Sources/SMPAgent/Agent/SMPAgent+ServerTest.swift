import SMPClient
import SMPProtocol
import SMPTransport
import SimplexFoundation

/// Where a server test stopped (simplexmq `ProtocolTestStep`), named as the chat API writes it.
public enum ServerTestStep: String, Sendable {
    case connect, createQueue, secureQueue, deleteQueue, disconnect
}

extension SMPAgent {
    /// Tests a relay as simplexmq's `runSMPServerTest` does: connects on a connection of its own,
    /// creates a queue, secures it as a sender would, deletes it and disconnects. Nil when every
    /// step worked; otherwise the step that failed and why.
    public func testProtocolServer(_ server: String) async -> (step: ServerTestStep, error: AgentError)? {
        let address: SMPServerAddress
        do { address = try SMPServerAddress(parsing: server) } catch {
            return (.connect, .command(.syntax, "bad server address \(server)"))
        }
        let client = SMPClient(server: address, config: config.smpClient, group: group)
        var step = ServerTestStep.connect
        do throws(SMPClientError) {
            try await client.connect()
            step = .createQueue
            let rcvKey = try? PrivateAuthKey.generate()
            let sndKey = try? PrivateAuthKey.generate()
            guard let rcvKey, let sndKey else {
                await client.close()
                return (step, .internalError("cannot generate keys"))
            }
            let q = try await client.createQueue(
                recipientKey: rcvKey, dhKey: X25519PrivateKey(), subscribe: false)
            step = .secureQueue
            if q.senderCanSecure {
                try await client.senderSecure(senderId: q.senderId, key: sndKey)
            } else {
                try await client.secure(recipientId: q.recipientId, key: rcvKey, senderKey: sndKey.publicKey)
            }
            step = .deleteQueue
            try await client.delete(recipientId: q.recipientId, key: rcvKey)
        } catch {
            await client.close()
            return (step, AgentError.from(error, server: server))
        }
        await client.close()
        return nil
    }
}
