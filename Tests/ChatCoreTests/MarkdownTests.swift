import Testing

@testable import ChatCore

/// Markdown.parse against the cases of simplex-chat's MarkdownTests.hs (same inputs, same
/// fragments; the list form merges neighbouring fragments as `parseMaybeMarkdownList` does).
@Suite struct MarkdownTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let expected: [FormattedText]?
        init(_ text: String, _ expected: [FormattedText]?) {
            self.text = text
            self.expected = expected
        }
        var testDescription: String { String(text.prefix(60)) }
    }

    static func t(_ s: String) -> FormattedText { FormattedText(s) }
    static func f(_ s: String, _ format: Format) -> FormattedText { FormattedText(s, format) }

    static let inv = "/invitation#/?v=1&smp=smp%3A%2F%2F1234-w%3D%3D%40smp.simplex.im%3A5223%2F3456-w%3D%3D%23%2F%3Fv%3D1-2%26dh%3DMCowBQYDK2VuAyEAjiswwI3O_NlS8Fk3HJUW870EY2bAwmttMBsvRB9eV3o%253D&e2e=v%3D2%26x3dh%3DMEIwBQYDK2VvAzkAmKuSYeQ_m0SixPDS8Wq8VBaTS1cW-Lp0n0h4Diu-kUpR-qXx4SDJ32YGEFoGFGSbGPry5Ychr6U%3D%2CMEIwBQYDK2VvAzkAmKuSYeQ_m0SixPDS8Wq8VBaTS1cW-Lp0n0h4Diu-kUpR-qXx4SDJ32YGEFoGFGSbGPry5Ychr6U%3D"
    static let ct = "/contact#/?v=2&smp=smp%3A%2F%2F1234-w%3D%3D%40smp.simplex.im%3A5223%2F3456-w%3D%3D%23%2F%3Fv%3D1-2%26dh%3DMCowBQYDK2VuAyEAjiswwI3O_NlS8Fk3HJUW870EY2bAwmttMBsvRB9eV3o%253D"
    static let gr = "/contact#/?v=2&smp=smp%3A%2F%2Fu2dS9sG8nMNURyZwqASV4yROM28Er0luVTx5X1CsMrU%3D%40smp4.simplex.im%2FWHV0YU1sYlU7NqiEHkHDB6gxO1ofTync%23%2F%3Fv%3D1-2%26dh%3DMCowBQYDK2VuAyEAWbebOqVYuBXaiqHcXYjEHCpYi6VzDlu6CVaijDTmsQU%253D%26srv%3Do5vmywmrnaxalvz6wi3zicyftgio6psuvyniis6gco6bp6ekl4cqj4id.onion&data=%7B%22type%22%3A%22group%22%2C%22groupLinkId%22%3A%22mL-7Divb94GGmGmRBef5Dg%3D%3D%22%7D"
    static let onion = "o5vmywmrnaxalvz6wi3zicyftgio6psuvyniis6gco6bp6ekl4cqj4id.onion"
    static let addr = "https://smp6.simplex.im/a#lrdvu2d8A1GumSmoKb2krQmtKhWXq-tyGpHuM7aMwsw"
    static let addrSimplex = "simplex:/a#lrdvu2d8A1GumSmoKb2krQmtKhWXq-tyGpHuM7aMwsw?h=smp6.simplex.im"

    static let cases: [Case] = [
        // bold, italic, strike-through, snippet
        Case("this is *bold formatted* text", [t("this is "), f("bold formatted", .bold), t(" text")]),
        Case("   *bold* text", [t("   "), f("bold", .bold), t(" text")]),
        Case("this is * unformatted * text", nil),
        Case("this is *unformatted * text", nil),
        Case("this is **unformatted** text", nil),
        Case("this is*unformatted* text", nil),
        Case("*this* is *unformatted text", [f("this", .bold), t(" is *unformatted text")]),
        Case("this is *long _bold_ (not italic)* text", [t("this is "), f("long _bold_ (not italic)", .bold), t(" text")]),
        Case("_italic_ and ~strike~", [f("italic", .italic), t(" and "), f("strike", .strikeThrough)]),
        Case("snippet: `this is *bold text*`", [t("snippet: "), f("this is *bold text*", .snippet)]),
        // secret
        Case("this is #black secret# text", [t("this is "), f("black secret", .secret), t(" text")]),
        Case("##black_secret### text", [f("#black_secret##", .secret), t(" text")]),
        Case("this is ## unformatted ## text", nil),
        Case("*this* is #unformatted text", [f("this", .bold), t(" is #unformatted text")]),
        // colors
        Case("this is !1 red color! text", [t("this is "), f("red color", .colored(color: .red)), t(" text")]),
        Case("!3 blue! and !green text!", [f("blue", .colored(color: .blue)), t(" and "), f("text", .colored(color: .green))]),
        Case("this is !1  unformatted! text", nil),
        Case("this is !1 unformatted ! text", nil),
        Case("this is !1 long *red* (not bold)! text", [t("this is "), f("long *red* (not bold)", .colored(color: .red)), t(" text")]),
        // links and domains
        Case("https://simplex.chat", [f("https://simplex.chat", .uri)]),
        Case("https://simplex.chat, hello", [f("https://simplex.chat", .uri), t(", hello")]),
        Case("SimpleX on GitHub: https://github.com/simplex-chat/", [t("SimpleX on GitHub: "), f("https://github.com/simplex-chat/", .uri)]),
        Case("https://en.m.wikipedia.org/wiki/Servo_(software)", [f("https://en.m.wikipedia.org/wiki/Servo_(software)", .uri)]),
        Case("example.com...", [f("example.com", .uri), t("...")]),
        Case("this is example.com", [t("this is "), f("example.com", .uri)]),
        Case("www.www.example.com", nil),
        Case("www.example1.com", nil),
        Case("this is https://", nil),
        Case("simplex:/example", nil),
        Case("_https://simplex.chat", nil),
        // SimpleX links
        Case("https://simplex.chat" + inv, [f("https://simplex.chat" + inv, .simplexLink(showText: nil, linkType: .invitation, simplexUri: "simplex:" + inv, smpHosts: ["smp.simplex.im"]))]),
        Case("simplex:" + ct, [f("simplex:" + ct, .simplexLink(showText: nil, linkType: .contact, simplexUri: "simplex:" + ct, smpHosts: ["smp.simplex.im"]))]),
        Case("join: https://example.com" + gr, [t("join: "), f("https://example.com" + gr, .simplexLink(showText: nil, linkType: .group, simplexUri: "simplex:" + gr, smpHosts: ["smp4.simplex.im", onion]))]),
        Case("https://simplex.chat" + inv + "\ntext", [f("https://simplex.chat" + inv, .simplexLink(showText: nil, linkType: .invitation, simplexUri: "simplex:" + inv, smpHosts: ["smp.simplex.im"])), t("\ntext")]),
        // hyperlinks
        Case("For details [click here](https://example.com)", [t("For details "), f("[click here](https://example.com)", .hyperLink(showText: "click here", linkUri: "https://example.com"))]),
        Case("[example.com](https://example.com)", [f("[example.com](https://example.com)", .hyperLink(showText: "example.com", linkUri: "https://example.com"))]),
        Case("[Connect to me](\(addr))", [f("[Connect to me](\(addr))", .simplexLink(showText: "Connect to me", linkType: .contact, simplexUri: addrSimplex, smpHosts: ["smp6.simplex.im"]))]),
        Case("[https://example.com](https://another.com)", nil),
        Case("[Connect.to.me](\(addr))", nil),
        Case("[click here](example.com)", nil),
        Case("[click here](https://example.com )", nil),
        // email
        Case("test chat.chat+123@simplex.chat.", [t("test "), f("chat.chat+123@simplex.chat", .email), t(".")]),
        Case("this is chat@ simplex.chat", [t("this is chat@ "), f("simplex.chat", .uri)]),
        Case("chat @simplex.chat", [t("chat "), f("@simplex.chat", .mention(memberName: "simplex.chat"))]),
        // phone
        Case("07777777777", [f("07777777777", .phone)]),
        Case("test +44 (0) 7777.777.777 https://simplex.chat test", [t("test "), f("+44 (0) 7777.777.777", .phone), t(" "), f("https://simplex.chat", .uri), t(" test")]),
        Case("test +44-7777-777-777 test", [t("test "), f("+44-7777-777-777", .phone), t(" test")]),
        Case("test 077777 test", nil),
        Case("test 07777  777  777 test", nil),
        // mentions
        Case("hello @alice!", [t("hello "), f("@alice", .mention(memberName: "alice")), t("!")]),
        Case("hello @alice@example.com", [t("hello "), f("@alice@example.com", .mention(memberName: "alice@example.com"))]),
        Case("hello @'alice jones'!", [t("hello "), f("@'alice jones'", .mention(memberName: "alice jones")), t("!")]),
        Case("hello @'a.j.'!", [t("hello "), f("@'a.j.'", .mention(memberName: "a.j.")), t("!")]),
        Case("hello @'alice jones!", nil),
        Case("hello @ alice!", nil),
        Case("hello @bob @", [t("hello "), f("@bob", .mention(memberName: "bob")), t(" @")]),
        // commands
        Case("/start", [f("/start", .command(commandStr: "start"))]),
        Case("send /help...", [t("send "), f("/help", .command(commandStr: "help")), t("...")]),
        Case("send /'filter 1'.", [t("send "), f("/'filter 1'", .command(commandStr: "filter 1")), t(".")]),
        Case("/link 1", [f("/link 1", .command(commandStr: "link 1"))]),
        Case(" /link 1", [f(" /link 1", .command(commandStr: "link 1"))]),
        Case("send /he?lp", nil),
        Case("send / help!", nil),
        // lines
        Case("http://simplex.chat\ntext 1\ntext 2\nhttp://app.simplex.chat", [f("http://simplex.chat", .uri), t("\ntext 1\ntext 2\n"), f("http://app.simplex.chat", .uri)]),
        Case("not a\nmarkdown", nil),
        Case("*bold*\n", [f("bold", .bold)]),
        Case("", nil),
        Case("a", nil),
        Case("plain text only", nil),
        Case("emoji 👍🏽 *жирный* text", [t("emoji 👍🏽 "), f("жирный", .bold), t(" text")]),
    ]

    @Test(arguments: cases)
    func parses(_ c: Case) {
        #expect(Markdown.parse(c.text) == c.expected)
    }

    /// The fragments always spell the original text (formats whose marks the text keeps).
    @Test(arguments: cases)
    func fragmentsCoverTheLine(_ c: Case) {
        guard !c.text.contains("\n") else { return }
        let joined = Markdown.parseLine(c.text).map(\.text).joined()
        #expect(joined.count <= c.text.count)
    }

    @Test func formattedTextJSON() throws {
        let parsed = try #require(Markdown.parse("hi *there*"))
        try expectEncodes(parsed, #"[{"text":"hi "},{"format":{"type":"bold"},"text":"there"}]"#)
    }

    @Test func hostileTextDoesNotTrap() {
        let inputs = [
            String(repeating: "*", count: 10_000),
            String(repeating: "#", count: 5000) + "x",
            String(repeating: "@'", count: 3000),
            String(repeating: "[a](", count: 3000),
            String(repeating: "1 ", count: 5000),
            "!r", "!", "@", "/", "[", "+", "#", "[](", "[a]", "[a](b", "!1 a", "\u{0}\u{1}\u{2}",
        ]
        for s in inputs { _ = Markdown.parse(s) }
    }

    /// The plain-text shortcut answers only for text the parser leaves unformatted (every case
    /// above, and digits short of a phone number).
    @Test func plainShortcutAgreesWithParser() {
        let texts = Self.cases.map(\.text) + [
            "message 1", "message 123", "message 123456", "1234567", "12 34 56", "(123) 45", "a-b-c", "call 555-1234",
            "hi there", "ünïcödé tëxt ☃", "a\nb", "two\nlines\n", "  ", "", "x", "tab\tseparated", "émoji 👍🏽 here",
        ]
        for t in texts where Markdown.isPlain(t) {
            for line in Markdown.splitLines(t) {
                #expect(Markdown.parseLine(line).allSatisfy { $0.format == nil }, "\(t)")
            }
            #expect(Markdown.parse(t) == nil, "\(t)")
        }
        #expect(Markdown.isPlain("message 123"))
        #expect(!Markdown.isPlain("call 555-1234"))
        #expect(!Markdown.isPlain("see simplex.chat"))
    }
}
