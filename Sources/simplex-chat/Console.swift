import Foundation
import NIOConcurrencyHelpers

/// The terminal: input lines, and output that never breaks the line being typed. On a TTY it
/// switches off the terminal's own line editing and echo, keeps the typed line itself, and when
/// something is printed it clears that line, prints, and draws the typed text again.
final class Console: Sendable {
    private struct State {
        var typed: [UInt8] = []
        var saved: termios?
        /// Earlier lines, for up/down recall; `recall` is the index shown (history.count = the new line).
        var history: [[UInt8]] = []
        var recall = 0
        /// Where an unfinished ESC [ x sequence stands (0: none, 1: after ESC, 2: after ESC [).
        var escape = 0
    }

    private let state = NIOLockedValueBox(State())
    let isTTY = isatty(STDIN_FILENO) == 1

    /// Prints `text` above the line being typed.
    func print(_ text: String) {
        state.withLockedValue { s in
            var out = Data()
            if isTTY { out.append(contentsOf: Array("\r\u{1B}[K".utf8)) }
            out.append(contentsOf: Array((text + "\n").utf8))
            if isTTY { out.append(contentsOf: s.typed) }
            FileHandle.standardOutput.write(out)
        }
    }

    /// Lines typed by the user, until end of input (or Ctrl-D on an empty line).
    func lines() -> AsyncStream<String> {
        AsyncStream { cont in
            let t = Thread { [self] in
                if isTTY { enterRawMode() }
                defer { if isTTY { restore() } }
                if !isTTY {
                    while let line = Swift.readLine() { cont.yield(line) }
                    cont.finish()
                    return
                }
                var byte: UInt8 = 0
                while read(STDIN_FILENO, &byte, 1) == 1 {
                    if let line = handle(byte) {
                        cont.yield(line)
                    } else if byte == 3 || (byte == 4 && state.withLockedValue({ $0.typed.isEmpty })) {
                        break
                    }
                }
                cont.finish()
            }
            t.start()
        }
    }

    /// One typed byte: edits the line and echoes it; returns the line on Enter.
    private func handle(_ byte: UInt8) -> String? {
        state.withLockedValue { s -> String? in
            if s.escape == 1 {
                s.escape = byte == 91 ? 2 : 0  // "["
                return nil
            }
            if s.escape == 2 {
                s.escape = 0
                switch byte {
                case 65: Self.recall(&s, by: -1)  // up
                case 66: Self.recall(&s, by: 1)  // down
                default: break
                }
                return nil
            }
            switch byte {
            case 27:
                s.escape = 1
                return nil
            case 13, 10:
                let line = String(decoding: s.typed, as: UTF8.self)
                if !s.typed.isEmpty && s.history.last != s.typed { s.history.append(s.typed) }
                s.recall = s.history.count
                s.typed.removeAll()
                FileHandle.standardOutput.write(Data("\r\n".utf8))
                return line
            case 127, 8:
                // Remove one UTF-8 character: continuation bytes are 10xxxxxx.
                while let last = s.typed.popLast(), last & 0xC0 == 0x80 {}
                FileHandle.standardOutput.write(Data("\u{8} \u{8}".utf8))
                return nil
            case 21:  // Ctrl-U: clear the line
                s.typed.removeAll()
                FileHandle.standardOutput.write(Data("\r\u{1B}[K".utf8))
                return nil
            case 0..<32:
                return nil
            default:
                s.typed.append(byte)
                FileHandle.standardOutput.write(Data([byte]))
                return nil
            }
        }
    }

    /// Replaces the typed line with an earlier (or later) one and redraws it.
    private static func recall(_ s: inout State, by step: Int) {
        let i = s.recall + step
        guard i >= 0 && i <= s.history.count else { return }
        s.recall = i
        s.typed = i == s.history.count ? [] : s.history[i]
        FileHandle.standardOutput.write(Data(Array("\r\u{1B}[K".utf8) + s.typed))
    }

    private func enterRawMode() {
        var t = termios()
        guard tcgetattr(STDIN_FILENO, &t) == 0 else { return }
        state.withLockedValue { $0.saved = t }
        // No line buffering, echo or signal keys: we edit and echo the line ourselves, and
        // Ctrl-C ends the loop so the terminal settings are restored on the way out.
        t.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        t.c_cc.6 = 1  // VMIN
        t.c_cc.5 = 0  // VTIME
        tcsetattr(STDIN_FILENO, TCSANOW, &t)
    }

    func restore() {
        if var t = state.withLockedValue({ $0.saved }) {
            tcsetattr(STDIN_FILENO, TCSANOW, &t)
        }
    }
}
