import Foundation
import GRDB

/// Contact-merging probes (x.info.probe, x.info.probe.check, x.info.probe.ok), as simplex-chat
/// Library/Subscriber.hs (`probeMatchingMembers`, `probeMatchingMemberContact`, `xInfoProbe`,
/// `xInfoProbeCheck`, `probeMatch`, `xInfoProbeOk`, `associateMemberAndContact`).
///
/// Whoever gets a new connection sends a random probe over it and the probe's hash over its
/// connections with the same profile elsewhere; a peer that receives both over two of its
/// connections knows they lead to the same party and answers x.info.probe.ok, and both sides
/// then record the group member as that contact's. Contacts are not merged with contacts, nor
/// members with members (the release's `probeMatch`).
extension ChatController {
    /// A contact (with its connection) or a group member, loaded.
    enum ProbeEntity {
        case contact(Contact)
        case member(GroupMember)

        var party: ProbeParty {
            switch self {
            case .contact(let c): .contact(c.contactId)
            case .member(let m): .member(m.groupMemberId)
            }
        }

        /// simplex-chat `contactOrMemberIncognito`: a contact over an incognito connection; a member
        /// whose profile is not its contact's profile (never so for other members here, as there).
        var incognito: Bool {
            switch self {
            case .contact(let c): c.activeConn?.customUserProfileId != nil
            case .member: false
            }
        }
    }

    /// The first CON of a contact connection we made or joined (simplex-chat `contactConnInitiated`):
    /// probe it, and send its hash to the members with the same profile that have no contact yet.
    func probeMatchingMembers(user: User, _ ct: Contact, agentConnId: String, incognito: Bool) async throws(ChatError) {
        defer { try? store.write { db in try db.resetConnectionInitiated(agentConnId: agentConnId, at: Self.now) } }
        guard config.contactMerge, !incognito else {
            // A probe nobody can match, so that the peer cannot tell incognito from not.
            try await sendEvent(agentConnId, .infoProbe(Probe.random()))
            return
        }
        let probe = Probe.random()
        let probeId = try store.write { db in try db.insertSentProbe(userId: user.userId, to: .contact(ct.contactId), probe, at: Self.now) }
        try await sendEvent(agentConnId, .infoProbe(probe))
        let members = try store.read { db in
            try db.membersMatchingProfile(userId: user.userId, Self.matchProfile(ct.profile)).compactMap { id in try self.groupMember(db, id) }
        }.filter { $0.memberStatus.isCurrent }
        await sendProbeHashes(user: user, members.map(ProbeEntity.member), probe, probeId: probeId)
    }

    /// The CON of a member who was in the group before us (category `pre`): probe it, and send the
    /// hash to our contacts with the same profile (simplex-chat `probeMatchingMemberContact`).
    func probeMatchingMemberContact(user: User, _ g: GroupInfo, _ m: GroupMember) async throws(ChatError) {
        let incognito = try store.read { db in try db.isMembershipIncognito(groupId: g.groupId) }
        guard config.contactMerge, !incognito else {
            try await sendToMember(m.groupMemberId, .infoProbe(Probe.random()))
            return
        }
        let probe = Probe.random()
        let probeId = try store.write { db in try db.insertSentProbe(userId: user.userId, to: .member(m.groupMemberId), probe, at: Self.now) }
        try await sendToMember(m.groupMemberId, .infoProbe(probe))
        guard m.memberContactId == nil else { return }
        let contacts = try store.read { db in
            try db.contactsMatchingProfile(userId: user.userId, Self.matchProfile(m.memberProfile)).compactMap { id in try self.contact(db, id) }
        }
        await sendProbeHashes(user: user, contacts.map(ProbeEntity.contact), probe, probeId: probeId)
    }

    /// x.info.probe.check to each; one that cannot be sent is skipped (as simplex-chat).
    private func sendProbeHashes(user: User, _ to: [ProbeEntity], _ probe: Probe, probeId: Int64) async {
        for e in to {
            do {
                switch e {
                case .contact(let c):
                    let (_, _, agentConnId) = try contactConnection(c.contactId)
                    try await sendEvent(agentConnId, .infoProbeCheck(probe.hash))
                case .member(let m):
                    guard m.activeConn != nil, m.memberStatus.isCurrent else { continue }
                    try await sendToMember(m.groupMemberId, .infoProbeCheck(probe.hash))
                }
                try store.write { db in try db.insertSentProbeHash(userId: user.userId, sentProbeId: probeId, to: e.party, at: Self.now) }
            } catch {
                continue
            }
        }
    }

    /// x.info.probe from a contact or member: matched against the hashes received earlier.
    func probeReceived(user: User, from: ProbeEntity, _ probe: Probe) async throws(ChatError) {
        guard config.contactMerge, !from.incognito else { return }
        let earlier = try store.write { db in try db.matchReceivedProbe(userId: user.userId, from: from.party, probe, at: Self.now) }
        var current = from
        for party in earlier {
            guard let other = try probeEntity(party), !other.incognito else { continue }
            if let updated = try? await probeMatch(user: user, other, current, probe) { current = updated }
        }
    }

    /// x.info.probe.check from a contact or member: matched against the probes received earlier.
    func probeHashReceived(user: User, from: ProbeEntity, _ hash: ProbeHash) async throws(ChatError) {
        guard config.contactMerge, !from.incognito else { return }
        guard let (party, probe) = try store.write({ db in try db.matchReceivedProbeHash(userId: user.userId, from: from.party, hash, at: Self.now) }),
              let other = try probeEntity(party), !other.incognito
        else { return }
        _ = try await probeMatch(user: user, from, other, probe)
    }

    /// `cgm1` sent the hash and `cgm2` the probe (or the other way round): a contact and a member
    /// with the same profile, the member without a contact, are associated, and `cgm1` is told
    /// with x.info.probe.ok. Returns the contact the member now has.
    private func probeMatch(user: User, _ cgm1: ProbeEntity, _ cgm2: ProbeEntity, _ probe: Probe) async throws(ChatError) -> ProbeEntity? {
        switch (cgm1, cgm2) {
        case (.contact(let c1), .member(let m2)):
            guard m2.memberContactId == nil, Self.profilesMatch(c1.profile, m2.memberProfile) else {
                probeWarning(user, "probeMatch ignored: profiles don't match or member already has contact")
                return nil
            }
            let (_, _, agentConnId) = try contactConnection(c1.contactId)
            try await sendEvent(agentConnId, .infoProbeOk(probe))
            return try associate(user: user, c1, m2).map(ProbeEntity.contact)
        case (.member(let m1), .contact(let c2)):
            guard m1.memberStatus.isCurrent, m1.memberContactId == nil, Self.profilesMatch(c2.profile, m1.memberProfile) else {
                probeWarning(user, "probeMatch ignored: profiles don't match or member already has contact or member not current")
                return nil
            }
            guard m1.activeConn != nil else {
                probeWarning(user, "probeMatch ignored: matched member doesn't have connection")
                return nil
            }
            try await sendToMember(m1.groupMemberId, .infoProbeOk(probe))
            return try associate(user: user, c2, m1).map(ProbeEntity.contact)
        case (.contact, .contact):
            probeWarning(user, "probeMatch ignored: contacts are not merged")
            return nil
        case (.member, .member):
            probeWarning(user, "probeMatch ignored: members are not matched with members")
            return nil
        }
    }

    /// x.info.probe.ok: a probe we sent matched; the party its hash went to is the same peer.
    func probeOkReceived(user: User, from: ProbeEntity, _ probe: Probe) throws(ChatError) {
        guard let party = try store.read({ db in try db.matchSentProbe(userId: user.userId, from: from.party, probe) }),
              let other = try probeEntity(party)
        else { return }
        switch (from, other) {
        case (.contact(let c1), .member(let m2)):
            guard m2.memberContactId == nil else { return probeWarning(user, "xInfoProbeOk ignored: member already has contact") }
            _ = try associate(user: user, c1, m2)
        case (.member(let m1), .contact(let c2)):
            guard m1.memberContactId == nil else { return probeWarning(user, "xInfoProbeOk ignored: member already has contact") }
            _ = try associate(user: user, c2, m1)
        case (.contact, .contact):
            probeWarning(user, "xInfoProbeOk ignored: contacts are not merged")
        case (.member, .member):
            probeWarning(user, "xInfoProbeOk ignored: members are not matched with members")
        }
    }

    /// simplex-chat `associateMemberAndContact`: the record whose local name has the lower suffix
    /// keeps its name and profile, the other takes them; the member gets the contact.
    ///
    /// Deviation: member names here are not made unique against contacts (simplex-chat keeps one
    /// name space for both), so a member's name usually has no suffix and equals its contact's; the
    /// release then associates nothing, which never happens to it. Here equal suffixes keep the
    /// contact's name, and the contact takes the member's name only when no other contact has it.
    private func associate(user: User, _ c: Contact, _ m: GroupMember) throws(ChatError) -> Contact? {
        guard let cOrd = Self.suffixOrd(c.profile.displayName, c.localDisplayName),
              let mOrd = Self.suffixOrd(m.memberProfile.displayName, m.localDisplayName)
        else { return nil }
        let updated = try store.write { db -> (Contact?, GroupInfo?) in
            let memberNameTaken = try db.contactNameUsed(userId: user.userId, m.localDisplayName, except: c.contactId)
            if mOrd < cOrd && !memberNameTaken {
                try db.associateContactWithMember(contactId: c.contactId, groupMemberId: m.groupMemberId, at: Self.now)
            } else {
                try db.associateMemberWithContact(groupMemberId: m.groupMemberId, contactId: c.contactId, at: Self.now)
            }
            return (try self.contact(db, c.contactId), try self.groupInfo(db, m.groupId))
        }
        guard let ct = updated.0, let g = updated.1 else { return nil }
        emit(.contactAndMemberAssociated(user: user, contact: c, groupInfo: g, member: m, updatedContact: ct))
        return ct
    }

    private func probeEntity(_ party: ProbeParty) throws(ChatError) -> ProbeEntity? {
        try store.read { db -> ProbeEntity? in
            switch party {
            case .contact(let id): try self.contact(db, id).map(ProbeEntity.contact)
            case .member(let id): try self.groupMember(db, id).map(ProbeEntity.member)
            }
        }
    }

    private func probeWarning(_ user: User, _ text: String) {
        emit(.messageError(user: user, severity: "warning", errorMessage: text))
    }

    /// The fields probes compare (simplex-chat `profilesMatch`: name, full name, image).
    static func profilesMatch(_ a: LocalProfile, _ b: LocalProfile) -> Bool {
        a.displayName == b.displayName && a.fullName == b.fullName && a.image == b.image
    }

    static func matchProfile(_ p: LocalProfile) -> Profile {
        var m = Profile(displayName: p.displayName, fullName: p.fullName)
        m.image = p.image
        return m
    }

    /// 0 for `name`, n for `name_n`, nil otherwise (simplex-chat `suffixOrd`).
    static func suffixOrd(_ displayName: String, _ localDisplayName: String) -> Int? {
        if localDisplayName == displayName { return 0 }
        let prefix = displayName + "_"
        guard localDisplayName.hasPrefix(prefix) else { return nil }
        return Int(localDisplayName.dropFirst(prefix.count))
    }
}
