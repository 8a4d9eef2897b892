import DoubleRatchet
import Foundation
import SMPTransport
import SimplexFoundation
import Testing

@testable import SMPAgent

/// SimpleX's own link test vectors: every string and value below is transcribed from simplexmq
/// 6.5.5.0 `tests/AgentTests/ConnectionRequestTests.hs` (queue URIs, connection requests, short
/// links) and `tests/AgentTests/ShortLinkTests.hs` (`relayLink1`, `relayLink2`). `#==#` there
/// means "encodes to and parses from", `#==` "parses to"; each case says which it is.
enum ReferenceLinks {
    /// `C.KeyHash "\215m\248\251"`, written `1234-w==` (a 4-byte hash: simplexmq's KeyHash holds any bytes).
    static let keyHash: [UInt8] = [215, 109, 248, 251]
    /// `EntityId "\223\142z\251"`, written `3456-w==`.
    static let senderId: [UInt8] = [223, 142, 122, 251]
    static let onion = "jjbyvoemxysm7qxap7m5d5m35jzv5qq6gnlv7s4rsn7tdwwmuqciwpid.onion"
    /// `testDhKey` (standard base64 in the Haskell source) and its `strEncode` (base64url).
    static let dhKeyStr = "MCowBQYDK2VuAyEAjiswwI3O_NlS8Fk3HJUW870EY2bAwmttMBsvRB9eV3o="
    /// `testDhPubKey` (X448), as the e2e parameters carry it.
    static let x448Str = "MEIwBQYDK2VvAzkAmKuSYeQ_m0SixPDS8Wq8VBaTS1cW-Lp0n0h4Diu-kUpR-qXx4SDJ32YGEFoGFGSbGPry5Ychr6U="
    static let e2eStrUri =
        "v%3D1%26x3dh%3DMEIwBQYDK2VvAzkAmKuSYeQ_m0SixPDS8Wq8VBaTS1cW-Lp0n0h4Diu-kUpR-qXx4SDJ32YGEFoGFGSbGPry5Ychr6U%3D%2CMEIwBQYDK2VvAzkAmKuSYeQ_m0SixPDS8Wq8VBaTS1cW-Lp0n0h4Diu-kUpR-qXx4SDJ32YGEFoGFGSbGPry5Ychr6U%3D"

    /// http-types `urlEncode True`, as the Haskell tests' `url`.
    static func url(_ s: String) -> String { LinkQuery.escape(Array(s.utf8)) }

    static func server(_ hosts: [String], port: Int?) throws -> SMPServerAddress {
        try SMPServerAddress(keyHash: keyHash, hosts: hosts, port: port)
    }

    static var srv: SMPServerAddress { get throws { try server(["smp.simplex.im", onion], port: 5223) } }
    static var srv1: SMPServerAddress { get throws { try server(["smp.simplex.im"], port: 5223) } }

    static func queue(_ server: SMPServerAddress, _ v: VersionRange, _ mode: QueueMode?) throws -> SMPQueueURI {
        SMPQueueURI(
            server: server, senderId: senderId, clientVersions: v,
            dhPublicKey: try X25519PublicKey(x509Encoded: Base64URL.decode(dhKeyStr)!), queueMode: mode)
    }

    static let v14 = VersionRange(min: 1, max: 4)!
    static let v24 = VersionRange(min: 2, max: 4)!

    static var queueStr: String {
        "smp://1234-w==@smp.simplex.im:5223/3456-w==#/?v=1-4&dh=\(url(dhKeyStr))&q=m&k=s&srv=\(onion)"
    }
    static var queueStrNoQM: String { "smp://1234-w==@smp.simplex.im:5223/3456-w==#/?v=1-4&dh=\(url(dhKeyStr))&srv=\(onion)" }
    static var queueStrContact: String { "smp://1234-w==@smp.simplex.im:5223/3456-w==#/?v=1-4&dh=\(url(dhKeyStr))&q=c&srv=\(onion)" }
    static var queue1Str: String { "smp://1234-w==@smp.simplex.im:5223/3456-w==#/?v=1-4&dh=\(url(dhKeyStr))&q=m&k=s" }
    static var queueNewStr: String { "smp://1234-w==@smp.simplex.im,\(onion):5223/3456-w==#/?v=2-4&dh=\(url(dhKeyStr))&q=m&k=s" }
    static var queueNew1Str: String { "smp://1234-w==@smp.simplex.im:5223/3456-w==#/?v=2-4&dh=\(url(dhKeyStr))&q=m&k=s" }

    /// (name, text, expected value, whether the value must also encode to exactly `text`).
    static func queueCases() throws -> [(String, String, SMPQueueURI, Bool)] {
        let queue = try queue(try srv, v14, .messaging)
        let queueNew = try Self.queue(try srv, v24, .messaging)
        let queueV1 = try Self.queue(try srv, VersionRange(1), nil)
        let queueV1NoPort = try Self.queue(try server(["smp.simplex.im", onion], port: nil), VersionRange(1), nil)
        return [
            ("queue", queueStr, queue, true),
            ("queue, key after # and extra param", "smp://1234-w==@smp.simplex.im:5223/3456-w==#\(dhKeyStr)/?v=1-4&extra_param=abc&srv=\(onion)&q=m&k=s", queue, false),
            ("queueNoQM", queueStrNoQM, try Self.queue(try srv, v14, nil), true),
            ("queueContact", queueStrContact, try Self.queue(try srv, v14, .contact), true),
            ("queue1", queue1Str, try Self.queue(try srv1, v14, .messaging), true),
            ("queueNew", queueNewStr, queueNew, true),
            ("queueNew, dh not escaped", "smp://1234-w==@smp.simplex.im,\(onion):5223/3456-w==#/?v=2-4&dh=\(dhKeyStr)&q=m&k=s", queueNew, false),
            ("queueNew1", queueNew1Str, try Self.queue(try srv1, v24, .messaging), true),
            ("queueNewNoPort", "smp://1234-w==@smp.simplex.im,\(onion)/3456-w==#/?v=2-4&dh=\(url(dhKeyStr))&q=m&k=s",
             try Self.queue(try server(["smp.simplex.im", onion], port: nil), v24, .messaging), true),
            ("queueNew1NoPort", "smp://1234-w==@smp.simplex.im/3456-w==#/?v=2-4&dh=\(url(dhKeyStr))&q=m&k=s",
             try Self.queue(try server(["smp.simplex.im"], port: nil), v24, .messaging), true),
            ("queueV1", "smp://1234-w==@smp.simplex.im:5223/3456-w==#/?v=1&dh=\(url(dhKeyStr))&srv=\(onion)", queueV1, true),
            ("queueV1 unversioned", "smp://1234-w==@smp.simplex.im,\(onion):5223/3456-w==#\(dhKeyStr)", queueV1, false),
            ("queueV1 extra param first", "smp://1234-w==@smp.simplex.im:5223/3456-w==#/?extra_param=abc&v=1&dh=\(dhKeyStr)&srv=\(onion)", queueV1, false),
            ("queueV1 key after #", "smp://1234-w==@smp.simplex.im:5223/3456-w==#\(dhKeyStr)/?v=1&extra_param=abc&srv=\(onion)", queueV1, false),
            ("queueV1NoPort", "smp://1234-w==@smp.simplex.im/3456-w==#/?v=1&dh=\(url(dhKeyStr))&srv=\(onion)", queueV1NoPort, true),
            ("queueV1NoPort v=1-1", "smp://1234-w==@smp.simplex.im/3456-w==#/?v=1-1&dh=\(url(dhKeyStr))&srv=\(onion)", queueV1NoPort, false),
            ("queueV1NoPort unversioned", "smp://1234-w==@smp.simplex.im,\(onion)/3456-w==#\(dhKeyStr)", queueV1NoPort, false),
        ]
    }

    /// `testE2ERatchetParams`: e2e version 1 only (parses; joining it is a version error).
    static func e2e() throws -> E2ERatchetParamsURI {
        let k = try X448PublicKey(x509Encoded: Base64URL.decode(x448Str)!)
        return E2ERatchetParamsURI(versions: VersionRange(1), key1: k, key2: k, kem: nil)
    }

    static func link(_ mode: ConnectionMode, _ v: VersionRange, _ queues: [SMPQueueURI], data: String? = nil) throws -> ConnectionRequestURI {
        try ConnectionRequestURI(mode: mode, agentVersions: v, queues: queues, e2eParams: mode == .invitation ? try e2e() : nil, clientData: data)
    }

    static func connReqCases() throws -> [(String, String, ConnectionRequestURI, Bool)] {
        let v27 = VersionRange(min: 2, max: 7)!
        let queue = try queue(try srv, v14, .messaging)
        let queueNew = try Self.queue(try srv, v24, .messaging)
        let inv = "simplex:/invitation#/?v=2-7&smp="
        let e2e = "&e2e=" + e2eStrUri
        let groupData = "{\"type\":\"group_link\", \"group_link_id\":\"abc\"}"
        return [
            ("connectionRequest", inv + url(queueStr) + e2e, try link(.invitation, v27, [queue]), true),
            ("connectionRequest https", "https://simplex.chat/invitation#/?v=2-7&smp=" + url(queueStr) + e2e, try link(.invitation, v27, [queue]), false),
            ("connectionRequestNoQM", inv + url(queueStrNoQM) + e2e, try link(.invitation, v27, [try Self.queue(try srv, v14, nil)]), true),
            ("connectionRequest1", inv + url(queue1Str) + e2e, try link(.invitation, v27, [try Self.queue(try srv1, v14, .messaging)]), true),
            ("connectionRequest2queues", inv + url(queueStr + ";" + queueStr) + e2e, try link(.invitation, v27, [queue, queue]), true),
            ("connectionRequestNew", inv + url(queueNewStr) + e2e, try link(.invitation, v27, [queueNew]), true),
            ("connectionRequestNew1", inv + url(queueNew1Str) + e2e, try link(.invitation, v27, [try Self.queue(try srv1, v24, .messaging)]), true),
            ("connectionRequest2queuesNew", inv + url(queueNewStr + ";" + queueNewStr) + e2e, try link(.invitation, v27, [queueNew, queueNew]), true),
            ("connectionRequestV1", "https://simplex.chat/invitation#/?v=1&smp=" + url(queueStr) + e2e, try link(.invitation, VersionRange(1), [queue]), false),
            ("connectionRequestClientDataEmpty", inv + url(queueStr) + e2e + "&data=" + url("{}"), try link(.invitation, v27, [queue], data: "{}"), true),
            ("contactAddress", "simplex:/contact#/?v=2-7&smp=" + url(queueStr), try link(.contact, v27, [queue]), true),
            ("contactAddress https", "https://simplex.chat/contact#/?v=2-7&smp=" + url(queueStr), try link(.contact, v27, [queue]), false),
            ("contactAddress2queues", "simplex:/contact#/?v=2-7&smp=" + url(queueStr + ";" + queueStr), try link(.contact, v27, [queue, queue]), true),
            ("contactAddressNew", "simplex:/contact#/?v=2-7&smp=" + url(queueNewStr), try link(.contact, v27, [queueNew]), true),
            ("contactAddress2queuesNew", "simplex:/contact#/?v=2-7&smp=" + url(queueNewStr + ";" + queueNewStr), try link(.contact, v27, [queueNew, queueNew]), true),
            ("contactAddressV2", "simplex:/contact#/?v=2&smp=" + url(queueStr), try link(.contact, VersionRange(2), [queue]), true),
            ("contactAddressV2 from v=1 (adjusted)", "https://simplex.chat/contact#/?v=1&smp=" + url(queueStr), try link(.contact, VersionRange(2), [queue]), false),
            ("contactAddressV2 from v=1-2 (adjusted)", "https://simplex.chat/contact#/?v=1-2&smp=" + url(queueStr), try link(.contact, VersionRange(2), [queue]), false),
            ("contactAddressV2 from v=2-2", "https://simplex.chat/contact#/?v=2-2&smp=" + url(queueStr), try link(.contact, VersionRange(2), [queue]), false),
            ("contactAddressClientData", "simplex:/contact#/?v=2-7&smp=" + url(queueStr) + "&data=" + url(groupData),
             try link(.contact, v27, [queue], data: groupData), true),
        ]
    }

    static let linkKey = Array("0123456789abcdef0123456789abcdef".utf8)
    static let linkId = Array("0123456789abcdef01234567".utf8)
    static let keyB64 = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY"
    static let idB64 = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3"

    static func shortLinkCases() throws -> [(String, String, ShortLink)] {
        let srv = try srv
        let shortSrv = try SMPServerAddress(keyHash: [], hosts: ["smp.simplex.im"])
        let q = "?h=\(onion)&p=5223&c=1234-w"
        let qs = "?h=smp.simplex.im%2C\(onion)&p=5223&c=1234-w"
        return [
            ("contact https", "https://smp.simplex.im/a#\(keyB64)\(q)", ShortLink(contact: srv, type: .contact, linkKey: linkKey, scheme: .server)),
            ("group https", "https://smp.simplex.im/g#\(keyB64)\(q)", ShortLink(contact: srv, type: .group, linkKey: linkKey, scheme: .server)),
            ("contact https short server", "https://smp.simplex.im/a#\(keyB64)", ShortLink(contact: shortSrv, type: .contact, linkKey: linkKey, scheme: .server)),
            ("invitation https", "https://smp.simplex.im/i#\(idB64)/\(keyB64)\(q)", ShortLink(invitation: srv, linkId: linkId, linkKey: linkKey, scheme: .server)),
            ("invitation https short server", "https://smp.simplex.im/i#\(idB64)/\(keyB64)",
             ShortLink(invitation: shortSrv, linkId: linkId, linkKey: linkKey, scheme: .server)),
            ("contact simplex", "simplex:/a#\(keyB64)\(qs)", ShortLink(contact: srv, type: .contact, linkKey: linkKey, scheme: .simplex)),
            ("group simplex", "simplex:/g#\(keyB64)\(qs)", ShortLink(contact: srv, type: .group, linkKey: linkKey, scheme: .simplex)),
            ("contact simplex short server", "simplex:/a#\(keyB64)?h=smp.simplex.im", ShortLink(contact: shortSrv, type: .contact, linkKey: linkKey, scheme: .simplex)),
            ("invitation simplex", "simplex:/i#\(idB64)/\(keyB64)\(qs)", ShortLink(invitation: srv, linkId: linkId, linkKey: linkKey, scheme: .simplex)),
            ("invitation simplex short server", "simplex:/i#\(idB64)/\(keyB64)?h=smp.simplex.im",
             ShortLink(invitation: shortSrv, linkId: linkId, linkKey: linkKey, scheme: .simplex)),
        ]
    }
}

@Suite struct ReferenceLinkVectorTests {
    @Test func queueURIs() throws {
        for (name, text, want, encodes) in try ReferenceLinks.queueCases() {
            #expect(try SMPQueueURI(parsing: text) == want, "\(name)")
            if encodes { #expect(want.uriString == text, "\(name)") }
            // ConnectionRequestTests' smpEncodingTest: the binary form decodes back.
            if name != "queueContact" { #expect(try SMPQueueURI.smpDecode(want.smpEncoded()) == want, "\(name) binary") }
        }
    }

    @Test func connectionRequests() throws {
        for (name, text, want, encodes) in try ReferenceLinks.connReqCases() {
            #expect(try ConnectionRequestURI(parsing: text) == want, "\(name)")
            if encodes { #expect(want.uriString == text, "\(name)") }
            var e = SMPEncoder()
            try want.encodeBinary(into: &e)
            var d = SMPDecoder(e.bytes)
            // The binary form patches a queue without a mode to a contact queue (the reference's
            // smpEncodingTest of connectionRequestNoQM fails for the same reason).
            if name != "connectionRequestNoQM" { #expect(try ConnectionRequestURI(decodingBinary: &d) == want, "\(name) binary") }
        }
    }

    @Test func shortLinks() throws {
        for (name, text, want) in try ReferenceLinks.shortLinkCases() {
            #expect(try ShortLink(parsing: text) == want, "\(name)")
            #expect(want.uriString == text, "\(name)")
        }
        // ShortLinkTests.hs relayLink1 / relayLink2 (ports and identities; a host-only link).
        let l1 = try ShortLink(parsing: "https://localhost/a#4AkRDmhf64tdRlN406g8lJRg5OCmhD6ynIhi6glOcCM?p=7001&c=LcJUMfVhwD8yxjAiSaDzzGF3-kLG4Uh0Fl_ZIjrRwjI")
        #expect(l1.hosts == ["localhost"] && l1.port == 7001 && l1.serverKeyHash?.count == 32 && l1.contactType == .contact)
        let l2 = try ShortLink(parsing: "https://localhost/a#4AkRDmhf64tdRlN406g8lJRg5OCmhD6ynIhi6glOcCM")
        #expect(l2.hosts == ["localhost"] && l2.port == nil && l2.serverKeyHash == nil && l2.linkKey == l1.linkKey)
    }

    /// The reference parses old links and refuses them when they are joined: its `A_VERSION`.
    @Test func versionsAreCheckedWhenJoining() throws {
        let links = try ReferenceLinks.connReqCases()
        let e2eV1 = try #require(links.first { $0.0 == "connectionRequest" }).2
        #expect(e2eV1.compatibleVersions() == nil)  // e2e version 1 only
        let contactV2 = try #require(links.first { $0.0 == "contactAddressV2 from v=1 (adjusted)" }).2
        let compatible = try #require(contactV2.compatibleVersions())
        #expect(compatible.agentVersion == 2 && compatible.queue.clientVersion == 4)
        // An agent configured with an older range agrees on its highest common version.
        #expect(contactV2.compatibleVersions(agent: VersionRange(min: 3, max: 7)!) == nil)
        let modern = try ReferenceLinks.link(.contact, AgentVersion.supported, [try ReferenceLinks.queue(try ReferenceLinks.srv, ReferenceLinks.v14, .contact)])
        #expect(modern.compatibleVersions()?.agentVersion == 7)
        #expect(modern.compatibleVersions(agent: VersionRange(min: 2, max: 5)!)?.agentVersion == 5)
        // Ranges with nothing in common.
        let future = try ReferenceLinks.link(.contact, VersionRange(min: 8, max: 9)!, modern.queues)
        #expect(future.compatibleVersions() == nil)
        let futureQueue = try ReferenceLinks.link(.contact, AgentVersion.supported, [try ReferenceLinks.queue(try ReferenceLinks.srv, VersionRange(min: 5, max: 6)!, nil)])
        #expect(futureQueue.compatibleVersions() == nil)
    }

    @Test func presetServerOnionHost() throws {
        // simplexmq `updateSMPServerHosts`: a version-1 queue on a preset server gets its onion host.
        let text = "smp://1234-w==@smp5.simplex.im/3456-w==#/?v=1&dh=\(ReferenceLinks.url(ReferenceLinks.dhKeyStr))"
        let q = try SMPQueueURI(parsing: text)
        #expect(q.server.hosts == ["smp5.simplex.im", ReferenceLinks.onion])
        #expect(try SMPQueueURI(parsing: text.replacingOccurrences(of: "v=1&", with: "v=1-2&")).server.hosts == ["smp5.simplex.im"])
        let info = SMPQueueInfo(clientVersion: 1, server: q.server, senderId: q.senderId, dhPublicKey: q.dhPublicKey, queueMode: nil)
        #expect(try SMPQueueInfo.smpDecode(info.smpEncoded()) == info)
    }

    @Test func protocolServerAddresses() throws {
        let kh = "LcJUMfVhwD8yxjAiSaDzzGF3-kLG4Uh0Fl_ZIjrRwjI="
        let ntf = try ProtocolServerAddress(parsing: "ntf://\(kh)@ntf2.simplex.im,ntg7jdjy2i3qbib3sykiho3enekwiaqg3icctliqhtqcg6jmoh6cxiad.onion")
        #expect(ntf.scheme == .ntf && ntf.address.hosts.count == 2 && ntf.effectivePort == 443 && ntf.basicAuth == nil)
        #expect(ntf.description == "ntf://\(kh)@ntf2.simplex.im,ntg7jdjy2i3qbib3sykiho3enekwiaqg3icctliqhtqcg6jmoh6cxiad.onion")
        let xftp = try ProtocolServerAddress(parsing: "xftp://\(kh):secret@xftp1.simplex.im:443")
        #expect(xftp.scheme == .xftp && xftp.basicAuth == "secret" && xftp.address.port == 443)
        #expect(try ProtocolServerAddress(parsing: xftp.description) == xftp)
        let smp = try ProtocolServerAddress(parsing: "smp://\(kh)@localhost:7001")
        let smpAddress = try SMPServerAddress(parsing: "smp://\(kh)@localhost:7001")
        #expect(smp.scheme == .smp && smp.effectivePort == 7001 && smp.address == smpAddress)
        // An SMP address must be smp:// without a password; bad onion hosts are refused as in simplexmq.
        #expect(throws: SMPServerAddressError.badScheme) { try SMPServerAddress(parsing: "ntf://\(kh)@h") }
        #expect(throws: SMPServerAddressError.badKeyHash) { try SMPServerAddress(parsing: "smp://\(kh):pw@h") }
        #expect(throws: SMPServerAddressError.badScheme) { try ProtocolServerAddress(parsing: "ftp://\(kh)@h") }
        #expect(throws: SMPServerAddressError.badHost("ABC.onion")) { try ProtocolServerAddress(parsing: "ntf://\(kh)@ABC.onion") }
        #expect(throws: SMPServerAddressError.self) { try ProtocolServerAddress(parsing: "xftp://\(kh):p@ss@h") }
    }
}
