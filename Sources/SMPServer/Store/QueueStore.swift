import NIOConcurrencyHelpers
import SimplexFoundation
import SMPProtocol

/// A message the store has handed to a subscriber; the caller encrypts and writes it outside
/// the lock.
struct Delivery: Sendable {
    let client: ServerClient
    let recipientId: ID24
    let rcvDhSecret: Key32
    let message: StoredMessage
}

/// A notification to send to a notifier subscriber (NMSG).
struct NotifierDelivery: Sendable {
    let client: ServerClient
    let notifierId: ID24
    let rcvNtfDhSecret: Key32
    let msgId: ID24
    let timestamp: Int64
}

/// The relay's queues and their undelivered messages, in memory, with every change written to
/// the store log before it is acknowledged. One lock guards it all: critical sections are a few
/// dictionary operations and one write(2); crypto happens outside.
final class QueueStore: @unchecked Sendable {
    private let lock = NIOLock()
    private var byRecipient: [ID24: QueueState] = [:]
    private var bySender: [ID24: ID24] = [:]
    private var byNotifier: [ID24: ID24] = [:]
    /// Short link ID -> recipient ID.
    private var byLink: [[UInt8]: ID24] = [:]
    private var log: StoreLog? = nil
    let quota: Int

    /// What a store operation answered; `.err` maps to an SMP ERR.
    enum Failure: Error { case auth, quota, noMessage, prohibited, duplicate, internalError(String) }

    init(logPath: String?, quota: Int, fsyncEvery: Int, messageTTL: Int64?, now: Int64) throws {
        self.quota = quota
        if let logPath {
            let (records, dropped) = try StoreLog.read(path: logPath)
            for r in records { replay(r) }
            if let ttl = messageTTL { _ = expireLocked(olderThan: now - ttl, log: false) }
            if dropped > 0 { droppedOnLoad = dropped }
            try StoreLog.rewrite(path: logPath, records: snapshotLocked())
            log = try StoreLog(path: logPath, fsyncEvery: fsyncEvery)
        }
    }

    /// Bytes of a torn tail found on load (reported by the server at start).
    private(set) var droppedOnLoad = 0

    var queueCount: Int { lock.withLock { byRecipient.count } }
    var messageCount: Int { lock.withLock { byRecipient.values.reduce(0) { $0 + $1.messages.count } } }

    /// `NIOLock.withLock` rethrows untyped errors; store operations keep theirs typed.
    private func locked<T>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: lookups for authorization (immutable fields, safe to read after the lookup)

    /// What verifying and answering a queue command needs to know about its queue.
    struct QueueView: Sendable {
        let recipientId: ID24
        let senderId: ID24
        let recipientKeys: [QueueAuthKey]
        let senderKey: QueueAuthKey?
        let notifierKey: QueueAuthKey?
        let mode: QueueMode?
        let blocked: BlockingInfo?
        let suspended: Bool
        let isContactQueue: Bool
        let hasLink: Bool
    }

    private func view(_ q: QueueState) -> QueueView {
        QueueView(recipientId: q.recipientId, senderId: q.senderId, recipientKeys: q.recipientKeys, senderKey: q.senderKey,
                  notifierKey: q.notifier?.key, mode: q.mode, blocked: q.blocked, suspended: q.suspended,
                  isContactQueue: q.isContactQueue, hasLink: q.link != nil)
    }

    func recipientQueue(_ rid: ID24) -> QueueView? {
        lock.withLock { byRecipient[rid].map(view) }
    }

    func senderQueue(_ sid: ID24) -> QueueView? {
        lock.withLock { bySender[sid].flatMap { byRecipient[$0] }.map(view) }
    }

    func notifierQueue(_ nid: ID24) -> QueueView? {
        lock.withLock { byNotifier[nid].flatMap { byRecipient[$0] }.map(view) }
    }

    func linkQueue(_ linkId: [UInt8]) -> QueueView? {
        lock.withLock { byLink[linkId].flatMap { byRecipient[$0] }.map(view) }
    }

    /// A queue found by recipient or sender ID (the operator's way to name a queue).
    func recipientId(forEntity id: ID24) -> ID24? {
        lock.withLock { byRecipient[id] != nil ? id : bySender[id] }
    }

    // MARK: recipient operations

    /// Short link data for a new queue: the client's sender ID, and the link ID (nil: the relay
    /// picks one, as for invitations).
    struct NewLink {
        let senderId: ID24
        let linkId: [UInt8]?
        let data: QueueLinkData
    }

    struct Created {
        let rid: ID24
        let sid: ID24
        let linkId: [UInt8]?
        let notifierId: ID24?
    }

    func create(recipientKey: QueueAuthKey, rcvDhSecret: Key32, mode: QueueMode?, subscriber: ServerClient?,
                link newLink: NewLink? = nil, notifier: (key: QueueAuthKey, rcvNtfDhSecret: Key32)? = nil) throws -> Created {
        try lock.withLock {
            var rid = ID24.random()
            while byRecipient[rid] != nil || bySender[rid] != nil || byNotifier[rid] != nil { rid = ID24.random() }
            var sid: ID24
            var link: StoredLink?
            if let newLink {
                // Client-chosen IDs are never retried: a collision is AUTH, as in simplexmq.
                sid = newLink.senderId
                guard sid != rid, byRecipient[sid] == nil, bySender[sid] == nil, byNotifier[sid] == nil else { throw Failure.auth }
                var lid = newLink.linkId ?? ID24.random().bytes
                if newLink.linkId == nil {
                    while byLink[lid] != nil { lid = ID24.random().bytes }
                } else if byLink[lid] != nil {
                    throw Failure.auth
                }
                link = StoredLink(linkId: lid, data: newLink.data)
            } else {
                sid = ID24.random()
                while sid == rid || byRecipient[sid] != nil || bySender[sid] != nil || byNotifier[sid] != nil { sid = ID24.random() }
            }
            var creds: NotifierCredentials?
            if let notifier {
                var nid = ID24.random()
                while nid == rid || nid == sid || byNotifier[nid] != nil || byRecipient[nid] != nil || bySender[nid] != nil { nid = ID24.random() }
                creds = NotifierCredentials(notifierId: nid, key: notifier.key, rcvNtfDhSecret: notifier.rcvNtfDhSecret)
            }
            var records: [StoreLogRecord] = [.createQueueMode(rid: rid, sid: sid, recipientKey: recipientKey, rcvDhSecret: rcvDhSecret, mode: mode)]
            if let link { records.append(.setLinkAnyId(rid: rid, linkId: link.linkId, data: link.data)) }
            if let creds { records.append(.addNotifier(rid: rid, creds)) }
            try log?.append(records)
            let q = QueueState(recipientId: rid, senderId: sid, recipientKey: recipientKey, rcvDhSecret: rcvDhSecret, mode: mode)
            q.link = link
            q.notifier = creds
            byRecipient[rid] = q
            bySender[sid] = rid
            if let link { byLink[link.linkId] = rid }
            if let creds { byNotifier[creds.notifierId] = rid }
            if let subscriber {
                q.subscriber = subscriber
                subscriber.subscriptions.insert(rid)
            }
            return Created(rid: rid, sid: sid, linkId: link?.linkId, notifierId: creds?.notifierId)
        }
    }

    // MARK: operator

    /// Blocks (or with nil unblocks) a queue: its commands get ERR BLOCKED until unblocked.
    func setBlocked(_ rid: ID24, _ info: BlockingInfo?) throws(Failure) {
        try locked { () throws(Failure) in
            guard let q = byRecipient[rid] else { throw .auth }
            let record: StoreLogRecord = if let info { .blockQueue(rid: rid, info: info) } else { .unblockQueue(rid: rid) }
            do { try log?.append(record) } catch { throw .internalError("\(error)") }
            q.blocked = info
        }
    }

    // MARK: short links

    /// LSET: sets the queue's link data. The link ID and fixed data cannot change once set, and a messaging
    /// queue that is already secured takes no link (its invitation was used).
    func setLink(_ rid: ID24, linkId: [UInt8], data: QueueLinkData) throws(Failure) {
        try locked { () throws(Failure) in
            guard let q = byRecipient[rid] else { throw .auth }
            if q.isSecuredMessagingQueue { throw .auth }
            if let old = q.link {
                // Only the user part may change (`addQueueLinkData`).
                guard old.linkId == linkId, old.data.fixedData == data.fixedData else { throw .auth }
            } else if byLink[linkId] != nil {
                // Another queue's link ID.
                throw .auth
            }
            do { try log?.append(.setLinkAnyId(rid: rid, linkId: linkId, data: data)) } catch { throw .internalError("\(error)") }
            q.link = StoredLink(linkId: linkId, data: data)
            byLink[linkId] = rid
        }
    }

    /// LDEL: removes the link data (nothing to do without it).
    func deleteLink(_ rid: ID24) throws(Failure) {
        try locked { () throws(Failure) in
            guard let q = byRecipient[rid] else { throw .auth }
            guard let link = q.link else { return }
            do { try log?.append(.deleteLink(rid: rid)) } catch { throw .internalError("\(error)") }
            byLink[link.linkId] = nil
            q.link = nil
        }
    }

    /// LKEY: secures a messaging queue found by its link ID with `senderKey` (the same key again
    /// is fine, another key is AUTH) and returns its sender ID and link data.
    func linkSecure(_ linkId: [UInt8], senderKey: QueueAuthKey) throws(Failure) -> (senderId: ID24, data: QueueLinkData) {
        try locked { () throws(Failure) -> (ID24, QueueLinkData) in
            guard let rid = byLink[linkId], let q = byRecipient[rid], q.mode == .messaging else { throw .auth }
            if let existing = q.senderKey {
                guard existing == senderKey else { throw .auth }
            } else {
                do { try log?.append(.secureQueue(rid: rid, senderKey: senderKey)) } catch { throw .internalError("\(error)") }
                q.senderKey = senderKey
            }
            guard let link = q.link else { throw .auth }
            return (q.senderId, link.data)
        }
    }

    /// LGET: a contact queue's sender ID and link data, found by link ID.
    func linkGet(_ linkId: [UInt8]) throws(Failure) -> (senderId: ID24, data: QueueLinkData) {
        try locked { () throws(Failure) -> (ID24, QueueLinkData) in
            guard let rid = byLink[linkId], let q = byRecipient[rid], q.isContactQueue, let link = q.link else { throw .auth }
            return (q.senderId, link.data)
        }
    }

    /// SUB: makes `client` the queue's subscriber and returns the connection it replaced (to get
    /// END) and the message to deliver now, if any. A connection that used GET on the queue
    /// cannot subscribe to it.
    func subscribe(_ rid: ID24, client: ServerClient) throws(Failure) -> (replaced: ServerClient?, deliver: StoredMessage?) {
        try locked { () throws(Failure) -> (ServerClient?, StoredMessage?) in
            guard let q = byRecipient[rid] else { throw .auth }
            if client.getDelivered.keys.contains(rid) { throw .prohibited }
            var replaced: ServerClient?
            if let old = q.subscriber, old !== client {
                replaced = old
                old.subscriptions.remove(rid)
            }
            q.subscriber = client
            client.subscriptions.insert(rid)
            // Re-delivery after a reconnect or a repeated SUB: the first message goes out again.
            let next = q.messages.first
            q.delivered = next?.msgId
            return (replaced, next)
        }
    }

    /// GET: one message without subscribing (SUB and GET on one connection are prohibited).
    func get(_ rid: ID24, client: ServerClient) throws(Failure) -> StoredMessage? {
        try locked { () throws(Failure) -> StoredMessage? in
            guard let q = byRecipient[rid] else { throw .auth }
            if q.subscriber === client { throw .prohibited }
            let next = q.messages.first
            client.getDelivered[rid] = .some(next?.msgId)
            return next
        }
    }

    /// ACK: removes the delivered message; for a subscription returns the next one to deliver
    /// (`deliverNext`), for GET nothing more. An empty `msgId` acknowledges whatever was delivered.
    func ack(_ rid: ID24, msgId: [UInt8], client: ServerClient) throws(Failure) -> (next: StoredMessage?, subscribed: Bool) {
        try locked { () throws(Failure) -> (StoredMessage?, Bool) in
            guard let q = byRecipient[rid] else { throw .auth }
            let subscribed: Bool
            let delivered: ID24
            if let g = client.getDelivered[rid] {
                guard let d = g, msgId.isEmpty || d.bytes == msgId else { throw .noMessage }
                client.getDelivered[rid] = .some(nil)
                subscribed = false
                delivered = d
            } else if q.subscriber === client {
                guard let d = q.delivered, msgId.isEmpty || d.bytes == msgId else { throw .noMessage }
                q.delivered = nil
                subscribed = true
                delivered = d
            } else {
                throw .noMessage
            }
            if let first = q.messages.first, first.msgId == delivered {
                do { try log?.append(.removeMessage(rid: rid, msgId: delivered)) } catch { throw .internalError("\(error)") }
                q.messages.removeFirst()
            }
            guard subscribed else { return (nil, false) }
            let next = q.messages.first
            q.delivered = next?.msgId
            return (next, true)
        }
    }

    func secure(_ rid: ID24, senderKey: QueueAuthKey) throws(Failure) {
        try locked { () throws(Failure) in
            guard let q = byRecipient[rid] else { throw .auth }
            if let existing = q.senderKey {
                // Repeating the same KEY (a lost response) is fine; a different key is not.
                guard existing == senderKey else { throw .auth }
                return
            }
            do { try log?.append(.secureQueue(rid: rid, senderKey: senderKey)) } catch { throw .internalError("\(error)") }
            q.senderKey = senderKey
        }
    }

    /// RKEY: the queue's recipient keys become `keys` (the caller checked the queue is a
    /// contact queue, as the reference's `checkMode QMContact`).
    func updateKeys(_ rid: ID24, keys: [QueueAuthKey]) throws(Failure) {
        try locked { () throws(Failure) in
            guard let q = byRecipient[rid], !keys.isEmpty, keys.count <= 255 else { throw .auth }
            do { try log?.append(.updateKeys(rid: rid, keys: keys)) } catch { throw .internalError("\(error)") }
            q.recipientKeys = keys
        }
    }

    func suspend(_ rid: ID24) throws(Failure) {
        try locked { () throws(Failure) in
            guard let q = byRecipient[rid] else { throw .auth }
            if q.suspended { return }
            do { try log?.append(.suspendQueue(rid: rid)) } catch { throw .internalError("\(error)") }
            q.suspended = true
        }
    }

    /// DEL: the queue and all its messages go at once; returns the subscriber to notify, if it
    /// is a different connection.
    func delete(_ rid: ID24) throws(Failure) -> ServerClient? {
        try locked { () throws(Failure) -> ServerClient? in
            guard let q = byRecipient[rid] else { throw .auth }
            do { try log?.append(.deleteQueue(rid: rid)) } catch { throw .internalError("\(error)") }
            removeLocked(q)
            q.subscriber?.subscriptions.remove(rid)
            q.notifierSubscriber?.notifierSubscriptions.remove(rid)
            return q.subscriber
        }
    }

    func addNotifier(_ rid: ID24, key: QueueAuthKey, rcvNtfDhSecret: Key32) throws(Failure) -> ID24 {
        try locked { () throws(Failure) -> ID24 in
            guard let q = byRecipient[rid] else { throw .auth }
            var nid = ID24.random()
            while byNotifier[nid] != nil || byRecipient[nid] != nil || bySender[nid] != nil { nid = ID24.random() }
            let creds = NotifierCredentials(notifierId: nid, key: key, rcvNtfDhSecret: rcvNtfDhSecret)
            do { try log?.append(.addNotifier(rid: rid, creds)) } catch { throw .internalError("\(error)") }
            if let old = q.notifier { byNotifier[old.notifierId] = nil }
            q.notifier = creds
            byNotifier[nid] = rid
            return nid
        }
    }

    func deleteNotifier(_ rid: ID24) throws(Failure) {
        try locked { () throws(Failure) in
            guard let q = byRecipient[rid] else { throw .auth }
            guard let n = q.notifier else { return }
            do { try log?.append(.deleteNotifier(rid: rid)) } catch { throw .internalError("\(error)") }
            byNotifier[n.notifierId] = nil
            q.notifier = nil
            q.notifierSubscriber?.notifierSubscriptions.remove(rid)
            q.notifierSubscriber = nil
        }
    }

    func subscribeNotifier(_ nid: ID24, client: ServerClient) throws(Failure) -> ServerClient? {
        try locked { () throws(Failure) -> ServerClient? in
            guard let rid = byNotifier[nid], let q = byRecipient[rid] else { throw .auth }
            var replaced: ServerClient?
            if let old = q.notifierSubscriber, old !== client {
                replaced = old
                old.notifierSubscriptions.remove(rid)
            }
            q.notifierSubscriber = client
            client.notifierSubscriptions.insert(rid)
            return replaced
        }
    }

    struct QueueInfo: Sendable {
        let secured: Bool
        let hasNotifier: Bool
        let size: Int
        let subscribed: Bool
        let delivered: ID24?
        let first: StoredMessage?
    }

    func info(_ rid: ID24) throws(Failure) -> QueueInfo {
        try locked { () throws(Failure) -> QueueInfo in
            guard let q = byRecipient[rid] else { throw .auth }
            return QueueInfo(secured: q.senderKey != nil, hasNotifier: q.notifier != nil, size: q.messages.count,
                             subscribed: q.subscriber != nil, delivered: q.delivered, first: q.messages.first)
        }
    }

    // MARK: sender operations

    func senderSecure(_ sid: ID24, senderKey: QueueAuthKey) throws(Failure) {
        try locked { () throws(Failure) in
            guard let rid = bySender[sid], let q = byRecipient[rid], q.senderCanSecure else { throw .auth }
            if let existing = q.senderKey {
                guard existing == senderKey else { throw .auth }
                return
            }
            do { try log?.append(.secureQueue(rid: rid, senderKey: senderKey)) } catch { throw .internalError("\(error)") }
            q.senderKey = senderKey
        }
    }

    /// SEND: stores the message (or the quota marker) and says whom to deliver to right away.
    func send(_ sid: ID24, notification: Bool, body: [UInt8], now: Int64) throws(Failure) -> (Delivery?, NotifierDelivery?) {
        try locked { () throws(Failure) -> (Delivery?, NotifierDelivery?) in
            guard let rid = bySender[sid], let q = byRecipient[rid], !q.suspended else { throw .auth }
            // A used invitation: once its messaging queue is secured, the link data goes (as the reference's SEND).
            if let link = q.link, q.isSecuredMessagingQueue {
                do { try log?.append(.deleteLink(rid: rid)) } catch { throw .internalError("\(error)") }
                byLink[link.linkId] = nil
                q.link = nil
            }
            if q.quotaExceeded { throw .quota }
            if q.messages.count >= quota {
                let marker = StoredMessage(msgId: ID24.random(), timestamp: now, notification: false, body: nil)
                do { try log?.append(.addMessage(rid: rid, marker)) } catch { throw .internalError("\(error)") }
                q.messages.append(marker)
                throw .quota
            }
            let m = StoredMessage(msgId: ID24.random(), timestamp: now, notification: notification, body: body)
            do { try log?.append(.addMessage(rid: rid, m)) } catch { throw .internalError("\(error)") }
            q.messages.append(m)
            var delivery: Delivery?
            if let sub = q.subscriber, q.delivered == nil {
                q.delivered = m.msgId
                delivery = Delivery(client: sub, recipientId: rid, rcvDhSecret: q.rcvDhSecret, message: m)
            }
            var ntf: NotifierDelivery?
            if notification, let n = q.notifier, let nsub = q.notifierSubscriber {
                ntf = NotifierDelivery(client: nsub, notifierId: n.notifierId, rcvNtfDhSecret: n.rcvNtfDhSecret, msgId: m.msgId, timestamp: now)
            }
            return (delivery, ntf)
        }
    }

    func rcvDhSecret(_ rid: ID24) -> Key32? { lock.withLock { byRecipient[rid]?.rcvDhSecret } }

    // MARK: connection lifecycle and maintenance

    /// Called when a connection closes: its subscriptions end, and whatever it had been
    /// delivered but not acknowledged will be delivered again on the next SUB.
    func clientClosed(_ client: ServerClient) {
        lock.withLock {
            for rid in client.subscriptions {
                if let q = byRecipient[rid], q.subscriber === client {
                    q.subscriber = nil
                    q.delivered = nil
                }
            }
            for rid in client.notifierSubscriptions {
                if let q = byRecipient[rid], q.notifierSubscriber === client { q.notifierSubscriber = nil }
            }
            client.subscriptions.removeAll()
            client.notifierSubscriptions.removeAll()
        }
    }

    /// Drops messages received before `cutoff` (seconds); returns how many went.
    func expire(olderThan cutoff: Int64) -> Int {
        lock.withLock { expireLocked(olderThan: cutoff, log: true) }
    }

    private func expireLocked(olderThan cutoff: Int64, log writeLog: Bool) -> Int {
        var removed = 0
        for q in byRecipient.values {
            // Messages are in arrival order, so expired ones are a prefix; the one out for
            // delivery stays until acknowledged or the connection drops.
            while let m = q.messages.first, m.timestamp < cutoff, q.delivered != m.msgId {
                if writeLog { try? log?.append(.removeMessage(rid: q.recipientId, msgId: m.msgId)) }
                q.messages.removeFirst()
                removed += 1
            }
        }
        return removed
    }

    private func removeLocked(_ q: QueueState) {
        byRecipient[q.recipientId] = nil
        bySender[q.senderId] = nil
        if let n = q.notifier { byNotifier[n.notifierId] = nil }
        if let l = q.link { byLink[l.linkId] = nil }
    }

    private func replay(_ r: StoreLogRecord) {
        switch r {
        case .createQueue(let rid, let sid, let key, let secret, let sndSecure):
            // Version 1-2 logs kept only the flag: a queue that could not be secured by its sender has no known mode.
            let q = QueueState(recipientId: rid, senderId: sid, recipientKey: key, rcvDhSecret: secret, mode: sndSecure ? .messaging : nil)
            byRecipient[rid] = q
            bySender[sid] = rid
        case .createQueueMode(let rid, let sid, let key, let secret, let mode):
            let q = QueueState(recipientId: rid, senderId: sid, recipientKey: key, rcvDhSecret: secret, mode: mode)
            byRecipient[rid] = q
            bySender[sid] = rid
        case .blockQueue(let rid, let info): byRecipient[rid]?.blocked = info
        case .unblockQueue(let rid): byRecipient[rid]?.blocked = nil
        case .updateKeys(let rid, let keys): if !keys.isEmpty { byRecipient[rid]?.recipientKeys = keys }
        case .setLinkAnyId(let rid, let linkId, let data):
            guard let q = byRecipient[rid] else { return }
            if let old = q.link { byLink[old.linkId] = nil }
            q.link = StoredLink(linkId: linkId, data: data)
            byLink[linkId] = rid
        case .secureQueue(let rid, let key): byRecipient[rid]?.senderKey = key
        case .addNotifier(let rid, let n):
            guard let q = byRecipient[rid] else { return }
            if let old = q.notifier { byNotifier[old.notifierId] = nil }
            q.notifier = n
            byNotifier[n.notifierId] = rid
        case .deleteNotifier(let rid):
            guard let q = byRecipient[rid], let n = q.notifier else { return }
            byNotifier[n.notifierId] = nil
            q.notifier = nil
        case .suspendQueue(let rid): byRecipient[rid]?.suspended = true
        case .deleteQueue(let rid):
            if let q = byRecipient[rid] { removeLocked(q) }
        case .addMessage(let rid, let m): byRecipient[rid]?.messages.append(m)
        case .removeMessage(let rid, let msgId):
            guard let q = byRecipient[rid], let i = q.messages.firstIndex(where: { $0.msgId == msgId }) else { return }
            q.messages.remove(at: i)
        case .setLink(let rid, let linkId, let data):
            guard let q = byRecipient[rid] else { return }
            if let old = q.link { byLink[old.linkId] = nil }
            q.link = StoredLink(linkId: linkId.bytes, data: data)
            byLink[linkId.bytes] = rid
        case .deleteLink(let rid):
            guard let q = byRecipient[rid], let old = q.link else { return }
            byLink[old.linkId] = nil
            q.link = nil
        }
    }

    /// The current state as the shortest list of records that rebuilds it.
    private func snapshotLocked() -> [StoreLogRecord] {
        var out: [StoreLogRecord] = []
        out.reserveCapacity(byRecipient.count)
        for q in byRecipient.values {
            out.append(.createQueueMode(rid: q.recipientId, sid: q.senderId, recipientKey: q.recipientKeys[0], rcvDhSecret: q.rcvDhSecret, mode: q.mode))
            if q.recipientKeys.count > 1 { out.append(.updateKeys(rid: q.recipientId, keys: q.recipientKeys)) }
            if let k = q.senderKey { out.append(.secureQueue(rid: q.recipientId, senderKey: k)) }
            if let n = q.notifier { out.append(.addNotifier(rid: q.recipientId, n)) }
            if let l = q.link { out.append(.setLinkAnyId(rid: q.recipientId, linkId: l.linkId, data: l.data)) }
            if q.suspended { out.append(.suspendQueue(rid: q.recipientId)) }
            if let b = q.blocked { out.append(.blockQueue(rid: q.recipientId, info: b)) }
            for m in q.messages { out.append(.addMessage(rid: q.recipientId, m)) }
        }
        return out
    }
}
