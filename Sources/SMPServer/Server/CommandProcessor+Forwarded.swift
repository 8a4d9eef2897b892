import SimplexFoundation
import SMPProtocol

/// The destination relay's side of private message routing (the reference's
/// `processForwardedCommand`): RFWD from a proxy carries a sender's transmission under two
/// layers of encryption; it is opened, checked and executed as if the sender had sent it on
/// this connection, and its response goes back under the same two layers in RRES.
extension CommandProcessor {
    /// Errors before the inner transmission is reached answer RFWD itself (ERR); errors of the
    /// inner transmission are encrypted back to the client like any response.
    func forwarded(_ encrypted: [UInt8], corrId: [UInt8], client: ServerClient, session: ConnectionSession) -> Result<BrokerMessage, ErrorType> {
        guard let sessionSecret = session.sessionSecret, let serverKey = session.serverSessionKey else {
            return .failure(.proxy(.broker(.transport(.noAuth))))
        }
        // p2r layer: the session secret, the RFWD corrId as nonce.
        guard let opened = try? PrivateRouting.openForwarded(encrypted, sessionSecret: sessionSecret, corrId: corrId) else {
            return .failure(.crypto)
        }
        guard let fwd = try? FwdTransmission.smpDecode(opened) else { return .failure(.cmd(.syntax)) }
        // s2r layer: dh(client's per-command key, this connection's session key), the PFWD corrId as nonce.
        guard let clientKey = try? X25519PublicKey(x509Encoded: fwd.key),
              let clientSecret = try? CryptoBox.sharedKey(publicKey: clientKey, privateKey: serverKey),
              let batch = try? PrivateRouting.decryptTransmission(fwd.encryptedTransmission, key: clientSecret, corrId: fwd.corrId)
        else { return .failure(.crypto) }

        // The client's transmission is read in the version it encoded it in, with the session ID
        // of this (proxy) connection implied and covered by its authorization.
        let clientSession = ConnectionSession(sessionId: session.sessionId, version: fwd.version, serverSessionKey: serverKey)
        let params = TransmissionParams(sessionId: session.sessionId, version: max(fwd.version, SMPVersion.authCommands))
        let response: Outgoing
        if let transmissions = try? TransmissionBatch.split(batch) {
            // Only single forwarded transmissions.
            guard transmissions.count == 1 else { return .failure(.block) }
            do {
                let parsed = try RawTransmission.parse(transmissions[0], params)
                let (r, _) = process(parsed, client: client, session: clientSession, forwarded: true)
                response = r ?? Outgoing(corrId: parsed.transmission.corrId, entityId: parsed.transmission.entityId, message: .err(.internalError))
            } catch {
                response = Outgoing(corrId: error.corrId, entityId: [], message: .err(error.error))
            }
        } else {
            response = Outgoing(corrId: [], entityId: [], message: .err(.block))
        }

        do {
            let body = try response.message.smpEncoded(version: fwd.version)
            let t = try RawTransmission(corrId: response.corrId, entityId: response.entityId, body: body).encoded(params)
            let encResponse = try PrivateRouting.encryptResponse(t, key: clientSecret, corrId: fwd.corrId)
            let sealed = try PrivateRouting.sealForwardedResponse(FwdResponse(corrId: fwd.corrId, encryptedResponse: encResponse),
                                                                  sessionSecret: sessionSecret, corrId: corrId)
            stats.messagesForwardedIn.add(1)
            return .success(.rres(encrypted: sealed))
        } catch {
            return .failure(.block)
        }
    }
}
