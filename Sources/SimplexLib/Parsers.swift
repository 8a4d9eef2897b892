import ChatCore
import SMPTransport
import SimplexFoundation

/// simplex-chat `ParsedMarkdown`: `{"formattedText":[...]}`, or `{}` when nothing is formatted.
struct ParsedMarkdown: Encodable {
    var formattedText: [FormattedText]?
}

/// simplex-chat `ParsedServerAddress`: `{"serverAddress":{...},"parseError":""}` or
/// `{"parseError":"..."}`.
struct ParsedServerAddress: Encodable {
    struct ServerAddress: Encodable {
        var serverProtocol: String
        var hostnames: [String]
        /// As written in the address; "" when it has none (the protocol's default port).
        var port: String
        /// base64url, padded.
        var keyHash: String
        /// The password after `keyHash:`; "" when none.
        var basicAuth: String
    }

    var serverAddress: ServerAddress?
    var parseError: String
}

@_cdecl("chat_parse_markdown")
public func chat_parse_markdown(_ str: CStr) -> CStrOut {
    let parsed = ParsedMarkdown(formattedText: Markdown.parse(Lib.string(str) ?? ""))
    return Lib.cString((try? ChatJSON.string(parsed)) ?? "{}")
}

@_cdecl("chat_parse_server")
public func chat_parse_server(_ str: CStr) -> CStrOut {
    Lib.cString((try? ChatJSON.string(parseServer(Lib.string(str) ?? ""))) ?? #"{"parseError":"encoding"}"#)
}

/// Parses `smp://`, `ntf://` and `xftp://` addresses with an optional `:password` after the key
/// hash, as simplex-chat's `chatParseServer` (`AProtoServerWithAuth`), through the one parser of
/// server addresses the agent uses.
func parseServer(_ s: String) -> ParsedServerAddress {
    do {
        let a = try ProtocolServerAddress(parsing: s)
        return ParsedServerAddress(
            serverAddress: .init(serverProtocol: a.scheme.rawValue, hostnames: a.address.hosts,
                                 port: a.address.port.map(String.init) ?? "",
                                 keyHash: Base64URL.encode(a.address.keyHash), basicAuth: a.basicAuth ?? ""),
            parseError: "")
    } catch {
        return ParsedServerAddress(serverAddress: nil, parseError: "bad server address: \(error)")
    }
}

/// simplex-chat `chatPasswordHash`: base64url(SHA-512(pwd ++ base64url-decode(salt))), padded;
/// "" when the salt is not base64url.
@_cdecl("chat_password_hash")
public func chat_password_hash(_ pwd: CStr, _ salt: CStr) -> CStrOut {
    guard let saltBytes = Base64URL.decode(Lib.string(salt) ?? "") else { return Lib.cString("") }
    let input = Lib.bytes(pwd) + saltBytes
    return Lib.cString(Base64URL.encode(CryptoHash.sha512(input)))
}
