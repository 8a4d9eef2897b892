// The module grid while a symbol is built: function patterns, codeword placement, masking, penalty.

struct Matrix {
    let version: Int
    let size: Int
    /// Row-major, `true` is dark.
    var modules: [Bool]
    /// Modules that belong to function patterns or format/version information: never masked or used for data.
    var isFunction: [Bool]

    init(version: Int) {
        self.version = version
        self.size = version * 4 + 17
        self.modules = Array(repeating: false, count: size * size)
        self.isFunction = Array(repeating: false, count: size * size)
    }

    subscript(x: Int, y: Int) -> Bool {
        get { modules[y * size + x] }
        set { modules[y * size + x] = newValue }
    }

    private mutating func setFunction(_ x: Int, _ y: Int, _ dark: Bool) {
        modules[y * size + x] = dark
        isFunction[y * size + x] = true
    }

    // MARK: - Function patterns

    mutating func drawFunctionPatterns() {
        // Timing patterns.
        for i in 0..<size {
            setFunction(6, i, i % 2 == 0)
            setFunction(i, 6, i % 2 == 0)
        }
        // Finder patterns with their separators.
        drawFinder(centreX: 3, centreY: 3)
        drawFinder(centreX: size - 4, centreY: 3)
        drawFinder(centreX: 3, centreY: size - 4)
        // Alignment patterns, except where they would overlap the finders.
        let positions = Tables.alignmentPositions(version: version)
        let last = positions.count - 1
        for (i, y) in positions.enumerated() {
            for (j, x) in positions.enumerated() {
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                drawAlignment(centreX: x, centreY: y)
            }
        }
        // Reserve the format and version areas, light while the masks are evaluated.
        drawFormatBits(level: .medium, mask: 0)
        drawVersion()
        blankInformation()
    }

    private mutating func drawFinder(centreX: Int, centreY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centreX + dx, y = centreY + dy
                guard x >= 0, x < size, y >= 0, y < size else { continue }
                let distance = max(abs(dx), abs(dy))
                setFunction(x, y, distance != 2 && distance != 4)
            }
        }
    }

    private mutating func drawAlignment(centreX: Int, centreY: Int) {
        for dy in -2...2 {
            for dx in -2...2 {
                setFunction(centreX + dx, centreY + dy, max(abs(dx), abs(dy)) != 1)
            }
        }
    }

    /// Format information: level and mask, BCH(15,5) protected and XORed with 0x5412, in two copies;
    /// plus the dark module at (8, size - 8).
    mutating func drawFormatBits(level: ErrorCorrection, mask: Int) {
        let data = level.formatBits << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }

        // Around the top-left finder.
        for i in 0...5 { setFunction(8, i, bit(i)) }
        setFunction(8, 7, bit(6))
        setFunction(8, 8, bit(7))
        setFunction(7, 8, bit(8))
        for i in 9..<15 { setFunction(14 - i, 8, bit(i)) }
        // Split between the other two finders.
        for i in 0..<8 { setFunction(size - 1 - i, 8, bit(i)) }
        for i in 8..<15 { setFunction(8, size - 15 + i, bit(i)) }
        setFunction(8, size - 8, true)
    }

    /// Makes format and version information and the dark module light. ISO/IEC 18004 generates them
    /// after the mask is chosen (encode procedure, steps 6 and 7), so masks are scored without them, as the
    /// Python `qrcode` package and others do.
    private mutating func blankInformation() {
        for i in 0..<9 where i != 6 { modules[8 * size + i] = false; modules[i * size + 8] = false }
        for i in 0..<8 { modules[8 * size + size - 1 - i] = false; modules[(size - 1 - i) * size + 8] = false }
        if version >= 7 {
            for i in 0..<18 {
                let a = size - 11 + i % 3, b = i / 3
                modules[b * size + a] = false
                modules[a * size + b] = false
            }
        }
    }

    /// Version information for versions 7 and up: BCH(18,6), two 6×3 copies.
    mutating func drawVersion() {
        guard version >= 7 else { return }
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder
        for i in 0..<18 {
            let dark = (bits >> i) & 1 == 1
            let a = size - 11 + i % 3, b = i / 3
            setFunction(a, b, dark)
            setFunction(b, a, dark)
        }
    }

    // MARK: - Data

    /// Places codewords in the two-column zigzag from the bottom-right corner; remainder bits stay light.
    mutating func drawCodewords(_ codewords: [UInt8]) {
        var bitIndex = 0
        let bitCount = codewords.count * 8
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }  // Skip the vertical timing column.
            let upward = (right + 1) & 2 == 0
            for vertical in 0..<size {
                let y = upward ? size - 1 - vertical : vertical
                for j in 0..<2 {
                    let x = right - j
                    guard !isFunction[y * size + x], bitIndex < bitCount else { continue }
                    let byte = codewords[bitIndex >> 3]
                    self[x, y] = (byte >> UInt8(7 - bitIndex & 7)) & 1 == 1
                    bitIndex += 1
                }
            }
            right -= 2
        }
    }

    /// XORs the non-function modules with mask pattern `mask` (i = row, j = column).
    mutating func applyMask(_ mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] {
                let invert: Bool
                switch mask {
                case 0: invert = (x + y) % 2 == 0
                case 1: invert = y % 2 == 0
                case 2: invert = x % 3 == 0
                case 3: invert = (x + y) % 3 == 0
                case 4: invert = (x / 3 + y / 2) % 2 == 0
                case 5: invert = x * y % 2 + x * y % 3 == 0
                case 6: invert = (x * y % 2 + x * y % 3) % 2 == 0
                default: invert = ((x + y) % 2 + x * y % 3) % 2 == 0
                }
                if invert { modules[y * size + x].toggle() }
            }
        }
    }

    // MARK: - Penalty (ISO/IEC 18004 7.8.3)

    /// N1: 3 + (run - 5) per run of five or more same-coloured modules in a row or column.
    /// N2: 3 per 2×2 block of one colour. N3: 40 per 1:1:3:1:1 finder-like pattern with four
    /// light modules on one side (within the symbol). N4: 10 per full 5 % the dark share is off 50 %.
    func penalty() -> Int {
        var result = 0
        // N1 and N3 on rows and columns alike.
        var line = [Bool](repeating: false, count: size)
        for index in 0..<size {
            for i in 0..<size { line[i] = modules[index * size + i] }
            result += linePenalty(line)
            for i in 0..<size { line[i] = modules[i * size + index] }
            result += linePenalty(line)
        }
        // N2.
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let colour = self[x, y]
                if colour == self[x + 1, y], colour == self[x, y + 1], colour == self[x + 1, y + 1] {
                    result += 3
                }
            }
        }
        // N4.
        let dark = modules.reduce(0) { $0 + ($1 ? 1 : 0) }
        let total = size * size
        result += abs(dark * 20 - total * 10) / total * 10
        return result
    }

    private func linePenalty(_ m: [Bool]) -> Int {
        var result = 0
        var runColour = m[0]
        var runLength = 0
        for colour in m {
            if colour == runColour {
                runLength += 1
            } else {
                if runLength >= 5 { result += runLength - 2 }
                runColour = colour
                runLength = 1
            }
        }
        if runLength >= 5 { result += runLength - 2 }

        // Dark-light-dark×3-light-dark with four light modules after (10111010000) or before (00001011101).
        var s = 0
        while s + 10 < m.count {
            if !m[s + 1] && m[s + 4] && !m[s + 5] && m[s + 6] && !m[s + 9] {
                let lightAfter = m[s] && m[s + 2] && m[s + 3] && !m[s + 7] && !m[s + 8] && !m[s + 10]
                let lightBefore = !m[s] && !m[s + 2] && !m[s + 3] && m[s + 7] && m[s + 8] && m[s + 10]
                if lightAfter || lightBefore { result += 40 }
            }
            s += 1
        }
        return result
    }
}
