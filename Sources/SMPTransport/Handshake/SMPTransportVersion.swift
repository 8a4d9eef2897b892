import SMPProtocol

/// The SMP versions that change the transport handshake and blocks (simplexmq Transport.hs).
public enum SMPTransportVersion {
    /// The server's signed session key and the client's key are sent (`authCmdsSMPVersion`).
    public static let authCommands: UInt16 = 7
    /// `deletedEventSMPVersion`: the cap a proxy applies towards relays older than v14.
    public static let deletedEvent: UInt16 = 10
    /// Transport blocks are encrypted inside TLS (`encryptedBlockSMPVersion`).
    public static let encryptedBlock: UInt16 = 11
    /// The client hello carries the proxy flag (`proxyServerHandshakeSMPVersion`).
    public static let proxyServerHandshake: UInt16 = 14
    /// The client hello carries the optional service (`serviceCertsSMPVersion`).
    public static let serviceCerts: UInt16 = 16
    /// What a server offers when the client did not agree ALPN "smp/1" (`legacyServerSMPRelayVRange`).
    public static let legacyRange = SMPVersionRange(6)
}
