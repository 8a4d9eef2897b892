import SMPTransport
import XFTPProtocol

/// The TLS parameters of XFTP: simplexmq's `defaultSupportedParams`, as for SMP, with XFTP's ALPN
/// names. A server accepts `xftp/1` (the XFTP handshake) and the HTTP names (`h2`, `http/1.1`,
/// `alpnSupportedXFTPhandshakes <> httpALPN`); a client offers `xftp/1` only.
public enum XFTPTLS {
    public static let httpALPN = ["h2", "http/1.1"]
    /// `httpALPN11`: a session negotiated with it also runs the XFTP handshake.
    public static let http11ALPN = "http/1.1"

    public static var server: TLSConfiguration {
        var c = TLSConfiguration.smp
        c.alpn = [XFTPVersion.alpn] + httpALPN
        return c
    }

    public static var client: TLSConfiguration {
        var c = TLSConfiguration.smp
        c.alpn = [XFTPVersion.alpn]
        return c
    }
}
