/// The host whose x.grp.msg.forward is being processed (chat version 4): every item the forwarded
/// message makes records it (simplex-chat `forwarded_by_group_member_id`), shown as
/// CIMeta.forwardedByMember. A task-local value, so it reaches the item writers without being
/// passed through every handler, and only for the duration of that one message.
extension ChatController {
    @TaskLocal static var forwardingHost: Int64?

    func withForwardingHost(_ gmId: Int64, _ body: () async throws(ChatError) -> Void) async throws(ChatError) {
        var failure: ChatError?
        await Self.$forwardingHost.withValue(gmId) {
            do throws(ChatError) { try await body() } catch { failure = error }
        }
        if let failure { throw failure }
    }
}
