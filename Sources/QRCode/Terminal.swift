// Drawing a symbol as text: two module rows per line with Unicode half blocks.

extension QRCode {
    /// The symbol as lines of "▀", "▄", "█" and spaces, two module rows per line so modules look square.
    /// Blocks are dark modules, which shows light-on-dark on the usual dark terminal background;
    /// `inverted` draws the light modules (and the quiet zone) as blocks instead, for a dark-on-light code
    /// that every reader accepts. `quietZone` is the light margin in modules (the standard asks for 4,
    /// readers manage with less). Lines are joined with "\n", without a trailing newline.
    public func terminalString(quietZone: Int = 2, inverted: Bool = false) -> String {
        let margin = max(0, quietZone)
        let side = size + 2 * margin
        // Whether the module at (column, row) of the padded square is drawn as a block.
        func block(_ x: Int, _ y: Int) -> Bool {
            guard y < side else { return false }  // Below the last row when the height is odd.
            return self[x - margin, y - margin] != inverted
        }
        var lines: [String] = []
        lines.reserveCapacity((side + 1) / 2)
        for top in stride(from: 0, to: side, by: 2) {
            var line = ""
            line.reserveCapacity(side * 3)
            for x in 0..<side {
                switch (block(x, top), block(x, top + 1)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
