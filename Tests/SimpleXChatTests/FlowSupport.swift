import Foundation
import NIOPosix
import SMPServer
import SMPTransport
import Testing

@testable import SimpleXChat

let flowGroup = MultiThreadedEventLoopGroup(numberOfThreads: 2)

/// One app under test: a real in-process core, and on top of it only SimpleXChat — `ChatAPI` for
/// commands, `ChatReceiver` for events, `ChatModel` for the state the assertions read.
@MainActor
final class TestApp {
    let name: String
    let controller: ChatController
    let model = ChatModel()
    let api: ChatAPI
    let receiver: ChatReceiver
    let user: User

    init(_ name: String, dir: String, server: String) async throws {
        self.name = name
        var config = ChatController.Config()
        config.defaultSMPServers = [server]
        let (c, r) = ChatController.open(dbPrefix: dir + "/\(name)", config: config, group: flowGroup)
        #expect(r == .ok)
        controller = try #require(c)
        let backend = ControllerBackend(controller)
        api = ChatAPI(backend: backend, model: model)
        receiver = ChatReceiver(backend: backend, model: model)
        #expect(try await api.apiGetActiveUser() == nil)
        user = try await api.apiCreateActiveUser(Profile(displayName: name))
        #expect(model.currentUser?.userId == user.userId)
        #expect(try await api.startChat())
        #expect(model.chatRunning == true)
        receiver.start()
    }

    func close() async {
        await receiver.stop()
        await controller.close()
    }

    /// The contact chats, by display name.
    func contact(named displayName: String) -> Contact? {
        for chat in model.chats {
            if case .direct(let c) = chat.chatInfo, c.profile.displayName == displayName { return c }
        }
        return nil
    }

    var pendingConnections: [PendingContactConnection] {
        model.chats.compactMap { if case .contactConnection(let c) = $0.chatInfo { c } else { nil } }
    }

    var contactRequests: [UserContactRequest] {
        model.chats.compactMap { if case .contactRequest(let r) = $0.chatInfo { r } else { nil } }
    }

    func items(_ contactId: Int64) -> [ChatItem] {
        model.getContactChat(contactId)?.chatItems ?? []
    }
}

/// Polls `condition` (on the main actor, so the receivers keep running between polls) until it
/// holds, failing the test after `timeout` seconds.
@MainActor
func eventually(_ what: String, timeout: Double = 20, sourceLocation: SourceLocation = #_sourceLocation,
                _ condition: @MainActor () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else {
            Issue.record("timed out waiting for: \(what)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        try await Task.sleep(nanoseconds: 50_000_000)
    }
}

/// A relay on loopback for one test, and its address.
func startRelay(_ dir: String) async throws -> (SMPRelayServer, String) {
    try FileManager.default.createDirectory(atPath: dir + "/relay", withIntermediateDirectories: true)
    var rc = SMPServerConfig()
    rc.port = 0
    rc.host = "127.0.0.1"
    let creds = try ServerCredentials.generate(commonName: "127.0.0.1")
    let relay = try await SMPRelayServer.start(config: rc, credentials: creds, dataDirectory: dir + "/relay", group: flowGroup)
    return (relay, try SMPServerAddress(keyHash: creds.keyHash, hosts: ["127.0.0.1"], port: relay.port).description)
}

func tempDir(_ tag: String) -> String {
    NSTemporaryDirectory() + "simplexchat-\(tag)-\(UInt32.random(in: 0...UInt32.max))"
}

extension ChatItem {
    var text: String { meta.itemText }
    var status: CIStatus { meta.itemStatus }
}

extension CIStatus {
    var isSndRcvd: Bool { if case .sndRcvd = self { true } else { false } }
    var isSndNew: Bool { if case .sndNew = self { true } else { false } }
}
