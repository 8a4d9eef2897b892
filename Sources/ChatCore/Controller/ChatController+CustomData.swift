import Foundation

/// `/_set custom @id|#id [json]`: data a bot keeps with a contact or group (returned as
/// `customData` in Contact and GroupInfo; no JSON clears it).
extension ChatController {
    func setContactCustomData(_ contactId: Int64, _ data: [String: JSONValue]?) throws(ChatError) -> ChatResponse {
        let text = try data.map { d throws(ChatError) in try json(d) }
        let userId = try store.write { db -> Int64? in
            guard try db.setContactCustomData(contactId, text) else { return nil }
            return try db.contactUserId(contactId)
        }
        guard let userId else { throw .errorStore(storeError: .contactNotFound(contactId: contactId)) }
        return .cmdOk(user_: try userById(userId))
    }

    func setGroupCustomData(_ groupId: Int64, _ data: [String: JSONValue]?) throws(ChatError) -> ChatResponse {
        let text = try data.map { d throws(ChatError) in try json(d) }
        let userId = try store.write { db -> Int64? in
            guard try db.setGroupCustomData(groupId, text) else { return nil }
            return try db.groupUserId(groupId)
        }
        guard let userId else { throw .errorStore(storeError: .groupNotFound(groupId: groupId)) }
        return .cmdOk(user_: try userById(userId))
    }
}
