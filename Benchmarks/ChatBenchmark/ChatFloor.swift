import BenchmarkFloor
import ChatCore
import Foundation

/// The work one chat message must do whatever the cores' design, timed single-threaded in this
/// run: the agent's floor (relay delivery, ratchet, per-queue crypto_box, one agent commit per
/// side), then the chat's own part: the x.msg.new JSON made by the sender and parsed by the
/// recipient, and one chat-database commit per side storing the item. Delivery receipts travel
/// batched (many in one A_RCVD), so their share per message tends to zero and is not counted.
enum ChatFloor {
    static func measure() throws -> CryptoFloor.Result {
        var items = try AgentFloor.measure(pq: true).items
        let json = #"{"v":"1-16","msgId":"AQIDBAUGBwgJCgsM","event":"x.msg.new","params":{"content":{"type":"text","text":"message 123"}}}"#
        let message = try ChatMessage.decode(json)
        items.append(.init(name: "sender: x.msg.new JSON encode", micros: try CryptoFloor.bestMicros { _ = try message.encoded() }))
        let bytes = try message.encoded()
        items.append(.init(name: "recipient: x.msg.new JSON parse", micros: try CryptoFloor.bestMicros { _ = try ChatMessage.decode(bytes) }))
        // The item row with its text and the message it came in, and the chat's last-activity row.
        let commit = try AgentFloor.sqliteCommit(stateBytes: 64, rowBytes: 500)
        items.append(.init(name: "sender: one chat-database commit (item row)", micros: commit))
        items.append(.init(name: "recipient: one chat-database commit (the same)", micros: commit))
        return CryptoFloor.Result(items: items, echoDerivedTransportMicros: 0)
    }
}
