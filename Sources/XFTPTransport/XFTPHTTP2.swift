import NIOHPACK
import NIOHTTP2

/// The HTTP/2 settings both our XFTP ends announce (the frame size stays at the 16 KB default:
/// 256 KB frames measured no faster).
public enum XFTPHTTP2 {
    public static func initialSettings(window: Int) -> HTTP2Settings {
        [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 100),
            HTTP2Setting(parameter: .initialWindowSize, value: window),
            HTTP2Setting(parameter: .maxHeaderListSize, value: HPACKDecoder.defaultMaxHeaderListSize),
        ]
    }
}
