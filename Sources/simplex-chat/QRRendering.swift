import QRCode

/// Links as QR codes in the terminal, so a phone can scan an invitation off the screen.
enum QRRendering {
    /// The QR code of `text` (level L keeps long links at smaller versions), or nil when it is
    /// too long for any QR version.
    static func terminal(_ text: String) -> String? {
        guard !text.isEmpty, let code = try? QRCode(text: text, errorCorrection: .low) else { return nil }
        // Light modules drawn as blocks: terminals are usually light text on a dark background.
        return code.terminalString(quietZone: 2, inverted: true) + "\n"
    }
}
