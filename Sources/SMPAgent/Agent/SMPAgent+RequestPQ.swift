import DoubleRatchet
import Foundation
import SimplexFoundation

extension SMPAgent {
    /// The post-quantum support of a contact request (simplexmq `smpInvitation`: the `PQSupport` of
    /// REQ): on when the requester's invitation is compatible with us and its agent and e2e versions
    /// allow the PQ ratchet (`versionPQSupport_`), off otherwise. simplex-chat shows it in the
    /// accepted contact's first e2e notice.
    public func invitationPQSupport(invitationId: String) throws(AgentError) -> Bool {
        let inv = try store.read { db in try db.invitation(invitationId) }
        guard let inv else { throw .connection(.notFound, "invitation \(invitationId)") }
        guard let link = try? ConnectionRequestURI(parsing: inv.connRequest), let e2e = link.e2eParams,
              let agentVersion = link.agentVersions.highestCommon(with: config.agentVersions),
              let e2eRange = e2e.versions.intersection(VersionRange(E2EVersion.supported)),
              let q = link.queues.first, q.clientVersions.intersection(config.smpClientVersions) != nil
        else { return false }
        return Self.versionAllowsPQ(agentVersion, e2eVersion: e2e.params(version: e2eRange.max).version)
    }
}
