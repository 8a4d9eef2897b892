import XFTPProtocol

/// Why an XFTP client call failed (`XFTPClientError` = `ProtocolClientError XFTPErrorType`).
public enum XFTPClientError: Error, Sendable, Equatable {
    /// The server answered `ERR e` (`PCEProtocolError`).
    case protocolError(XFTPErrorType)
    /// The response could not be used: a bad block, wrong session or entity (`PCEResponseError`).
    case responseError(XFTPErrorType)
    /// A response of the wrong kind for the command (`PCEUnexpectedResponse`).
    case unexpectedResponse(String)
    /// TLS, HTTP/2 or the XFTP handshake failed (`PCETransportError`); the text says which.
    case transport(String)
    /// No response within the timeout (`PCEResponseTimeout`).
    case responseTimeout
    /// The connection could not be made or broke (`PCENetworkError`).
    case network(String)
    /// A local file could not be read or written (`PCEIOError`).
    case io(String)
    /// A redirect description led to something else than it promised (the agent's `FILE (REDIRECT e)`).
    case redirect(String)
}
