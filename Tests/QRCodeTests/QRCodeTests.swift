import Foundation
import Testing

@testable import QRCode

/// A reference symbol made by the Python `qrcode` package (see Fixtures/generate.py).
struct Fixture: CustomTestStringConvertible, Sendable {
    let name: String
    let version: Int
    let level: ErrorCorrection
    let mask: Int

    var testDescription: String { "\(name) (v\(version), mask \(mask))" }

    static func url(_ file: String) -> URL? {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)?.appendingPathComponent(file)
    }

    static func text(_ file: String) -> String {
        guard let url = url(file), let data = try? Data(contentsOf: url) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    static func level(_ letter: Substring) -> ErrorCorrection? {
        switch letter {
        case "L": .low
        case "M": .medium
        case "Q": .quartile
        case "H": .high
        default: nil
        }
    }

    static let all: [Fixture] = text("cases.txt").split(separator: "\n").compactMap { line in
        let fields = line.split(separator: " ")
        guard fields.count == 4, let version = Int(fields[1]), let level = level(fields[2]),
              let mask = Int(fields[3]) else { return nil }
        return Fixture(name: String(fields[0]), version: version, level: level, mask: mask)
    }

    var input: [UInt8] {
        guard let url = Self.url(name + ".input"), let data = try? Data(contentsOf: url) else { return [] }
        return Array(data)
    }

    var matrix: [[Bool]] {
        Self.text(name + ".matrix").split(separator: "\n").map { $0.map { $0 == "1" } }
    }
}

/// Positions (x, y) where `code` differs from `expected`.
func differences(_ code: QRCode, _ expected: [[Bool]]) -> [(Int, Int)] {
    var result: [(Int, Int)] = []
    for (y, row) in expected.enumerated() {
        for (x, dark) in row.enumerated() where code[x, y] != dark {
            result.append((x, y))
        }
    }
    return result
}

@Suite("QR code")
struct QRCodeTests {
    @Test func fixturesPresent() {
        #expect(Fixture.all.count >= 8)
        let versions = Set(Fixture.all.map(\.version))
        for version in [1, 2, 7, 10, 40] { #expect(versions.contains(version)) }
        #expect(versions.contains { $0 >= 20 && $0 < 40 })
    }

    /// Same version, same automatically chosen mask and the same modules as the reference.
    @Test(arguments: Fixture.all)
    func matchesReference(_ fixture: Fixture) throws {
        let expected = fixture.matrix
        let code = try QRCode(bytes: fixture.input, errorCorrection: fixture.level)
        #expect(code.version == fixture.version)
        #expect(code.size == fixture.version * 4 + 17)
        #expect(expected.count == code.size)
        #expect(expected.allSatisfy { $0.count == code.size })
        #expect(code.mask == fixture.mask)
        let diff = differences(code, expected)
        #expect(diff.count == 0, "first differences: \(diff.prefix(5))")
    }

    /// With the reference's mask forced, every module matches: checks everything but the mask choice.
    @Test(arguments: Fixture.all)
    func matchesReferenceWithSameMask(_ fixture: Fixture) throws {
        let code = try QRCode(bytes: fixture.input, errorCorrection: fixture.level, mask: fixture.mask)
        #expect(differences(code, fixture.matrix).isEmpty)
    }

    /// The block structure of all 40 versions at all four levels, against qrcode's ISO table.
    @Test func blockTables() {
        let lines = Fixture.text("blocks.txt").split(separator: "\n")
        #expect(lines.count == 160)
        for line in lines {
            let fields = line.split(separator: " ")
            guard fields.count >= 5, let version = Int(fields[0]), let level = Fixture.level(fields[1]),
                  let blocks = Int(fields[2]), let ecc = fields.last.flatMap({ Int($0) }) else {
                Issue.record("bad line \(line)")
                continue
            }
            let dataLengths = fields[3..<(fields.count - 1)].compactMap { Int($0) }
            #expect(Tables.errorCorrectionBlocks[level.tableIndex][version] == blocks, "\(line)")
            #expect(Tables.eccCodewordsPerBlock[level.tableIndex][version] == ecc, "\(line)")
            #expect(Tables.dataCodewords(version: version, level: level) == dataLengths.reduce(0, +), "\(line)")
            #expect(Tables.totalCodewords(version: version) == dataLengths.reduce(0, +) + blocks * ecc, "\(line)")
        }
    }

    /// The "HELLO WORLD" 1-M example (thonky.com QR tutorial): 16 data codewords give these 10 EC codewords.
    @Test func reedSolomonKnownVector() {
        let data: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        let ecc = ReedSolomon.remainder(data[...], generator: ReedSolomon.generator(degree: 10))
        #expect(ecc == [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
    }

    @Test func dataTooLong() {
        #expect(throws: QRCodeError.dataTooLong(2954)) {
            try QRCode(bytes: [UInt8](repeating: 0x61, count: 2954), errorCorrection: .low)
        }
        #expect(throws: QRCodeError.dataTooLong(2332)) {
            try QRCode(bytes: [UInt8](repeating: 0x61, count: 2332), errorCorrection: .medium)
        }
        #expect(throws: QRCodeError.dataTooLong(1274)) {
            try QRCode(text: String(repeating: "x", count: 1274), errorCorrection: .high)
        }
        // The largest inputs that do fit.
        #expect((try? QRCode(bytes: [UInt8](repeating: 0x61, count: 2331)))?.version == 40)
        #expect((try? QRCode(bytes: [UInt8](repeating: 0x61, count: 1273), errorCorrection: .high))?.version == 40)
    }

    @Test func smallestVersionBoundaries() throws {
        // Byte capacities of versions 1 and 2 at L and M (ISO/IEC 18004 Table 7).
        #expect(try QRCode(bytes: Array(repeating: 1, count: 17), errorCorrection: .low).version == 1)
        #expect(try QRCode(bytes: Array(repeating: 1, count: 18), errorCorrection: .low).version == 2)
        #expect(try QRCode(bytes: Array(repeating: 1, count: 14), errorCorrection: .medium).version == 1)
        #expect(try QRCode(bytes: Array(repeating: 1, count: 15), errorCorrection: .medium).version == 2)
        #expect(try QRCode(bytes: []).version == 1)
    }

    @Test func simplexLinkOf1500Characters() throws {
        let head = "simplex:/invitation#/?v=2-7&smp=smp%3A%2F%2F"
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789%")
        let link = head + String((0..<(1500 - head.count)).map { alphabet[($0 * 7 + 3) % alphabet.count] })
        #expect(link.utf8.count == 1500)
        let medium = try QRCode(text: link)
        #expect(medium.version == 32)  // M holds 1,538 bytes in version 32, 1,452 in 31.
        #expect(medium.size == 145)
        let low = try QRCode(text: link, errorCorrection: .low)
        #expect(low.version == 28)  // L holds 1,528 bytes in version 28, 1,465 in 27.
    }

    /// The same text as Python's `print_ascii` (which uses no-break spaces for blanks).
    @Test(arguments: ["simplex-M", "link140-L"])
    func terminalStringMatchesReference(_ name: String) throws {
        let fixture = try #require(Fixture.all.first { $0.name == name })
        let code = try QRCode(bytes: fixture.input, errorCorrection: fixture.level)
        var expected = Fixture.text(name + ".ascii").replacingOccurrences(of: "\u{00A0}", with: " ")
        if expected.hasSuffix("\n") { expected.removeLast() }
        #expect(!expected.isEmpty)
        #expect(code.terminalString(quietZone: 2) == expected)
    }

    @Test func terminalStringDimensions() throws {
        let code = try QRCode(text: "simplex")  // Version 1: 21 modules.
        for (quietZone, inverted) in [(2, false), (0, true), (4, true), (1, false)] {
            let side = 21 + 2 * quietZone
            let lines = code.terminalString(quietZone: quietZone, inverted: inverted)
                .split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == (side + 1) / 2)
            #expect(lines.allSatisfy { $0.count == side })
            #expect(lines.allSatisfy { $0.allSatisfy { " ▀▄█".contains($0) } })
        }
    }

    @Test func terminalStringContent() throws {
        let code = try QRCode(text: "simplex")
        let lines = code.terminalString(quietZone: 2).split(separator: "\n").map { Array($0) }
        // The quiet zone is blank; the second line holds the top two rows of the finders.
        #expect(lines[0].allSatisfy { $0 == " " })
        #expect(lines[1][2] == "█" && lines[1][3] == "▀" && lines[1][8] == "█" && lines[1][9] == " ")
        // Every character reflects the two modules it covers.
        for (row, line) in lines.enumerated() {
            for (column, character) in line.enumerated() {
                let top = code[column - 2, 2 * row - 2], bottom = code[column - 2, 2 * row - 1]
                let expected: Character = top ? (bottom ? "█" : "▀") : (bottom ? "▄" : " ")
                #expect(character == expected)
            }
        }
        // Inverted: light modules and the quiet zone become blocks.
        let inverted = code.terminalString(quietZone: 2, inverted: true).split(separator: "\n").map { Array($0) }
        #expect(inverted[0].allSatisfy { $0 == "█" })
        #expect(inverted[1][2] == " " && inverted[1][3] == "▄" && inverted[1][9] == "█")
        // 25 rows: the last line's lower half is below the symbol and never drawn.
        #expect(inverted[12].allSatisfy { $0 == "▀" })
    }

    @Test func functionPatterns() throws {
        let code = try QRCode(bytes: Array("SimpleX".utf8), errorCorrection: .low)
        let size = code.size
        // Finder corners, separators, timing, dark module.
        for (x, y) in [(0, 0), (6, 0), (0, 6), (size - 1, 0), (0, size - 1), (3, 3)] { #expect(code[x, y]) }
        for (x, y) in [(7, 0), (0, 7), (7, 7), (size - 8, 0), (1, 1), (size - 8, size - 8 + 7)] { #expect(!code[x, y]) }
        for i in 8..<(size - 8) {
            #expect(code[i, 6] == (i % 2 == 0))
            #expect(code[6, i] == (i % 2 == 0))
        }
        #expect(code[8, size - 8])
        #expect(!code[-1, 0] && !code[size, size])
    }
}
