import Foundation
import KeyedArchive
import PropertyList
import Testing

/// Each new class of the wrong shape — wrong field types, missing fields,
/// lying NSAttributeInfo run lengths, a colour space Apple does not write,
/// references back to itself — refused with `.invalidObject` at the key
/// path and object index of the object, never a crash. Archives built by
/// hand as property lists: `$objects[1]` is the root, of class `$objects[2]`.
@Suite struct ArchivedFoundationClassesMalformedTests {
    /// An archive whose root is `$objects[1]`, an instance of `className` with `fields`, then `more` objects from index 3.
    static func archive(_ className: String, _ fields: [String: PropertyListValue], more: [PropertyListValue] = []) throws -> KeyedArchiveObjectGraph {
        var root = fields
        root["$class"] = .uid(2)
        let objects: [PropertyListValue] =
            [
                "$null", .dictionary(.init(uniqueKeysWithValues: root.sorted { $0.key < $1.key })),
                ["$classname": .string(className), "$classes": [.string(className), "NSObject"]],
            ]
            + more
        return try KeyedArchiveObjectGraph(
            propertyList: ["$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(1)], "$objects": .array(objects)])
    }

    static func data(_ text: String) -> PropertyListValue { .data(Data(text.utf8)) }

    /// Malformed objects and a few words of the message each must give.
    static let cases: [(String, String, [String: PropertyListValue], [PropertyListValue], String)] = [
        (
            "NSAttributeInfo's run past the text's end", "NSAttributedString",
            ["NSString": "abc", "NSAttributes": .uid(3), "NSAttributeInfo": .data(Data([2, 0, 5, 0]))],
            [
                ["$class": .uid(5), "NS.objects": [.uid(4)]], ["$class": .uid(6), "NS.keys": [], "NS.objects": []], ["$classname": "NSArray"],
                ["$classname": "NSDictionary"],
            ],
            "past the text's end"
        ),
        (
            "NSAttributeInfo's runs short of the text", "NSMutableAttributedString",
            ["NSString": "abcdef", "NSAttributes": .uid(3), "NSAttributeInfo": .data(Data([2, 0]))],
            [
                ["$class": .uid(5), "NS.objects": [.uid(4)]], ["$class": .uid(6), "NS.keys": [], "NS.objects": []], ["$classname": "NSArray"],
                ["$classname": "NSDictionary"],
            ],
            "covering 2 of its text's 6"
        ),
        (
            "a run's attributes index past the dictionaries", "NSAttributedString",
            ["NSString": "ab", "NSAttributes": .uid(3), "NSAttributeInfo": .data(Data([2, 7]))],
            [["$class": .uid(4), "NS.objects": []], ["$classname": "NSArray"]],
            "attributes index 7"
        ),
        (
            "NSAttributeInfo cut inside a number", "NSAttributedString",
            ["NSString": "ab", "NSAttributes": .uid(3), "NSAttributeInfo": .data(Data([0x82]))],
            [["$class": .uid(4), "NS.objects": []], ["$classname": "NSArray"]],
            "cut short"
        ),
        ("an attributed string's text a number", "NSAttributedString", ["NSString": 12], [], "NSString that is not a string"),
        ("NSColorSpace 9", "NSColor", ["NSColorSpace": 9, "NSRGB": data("1 0 0")], [], "NSColorSpace 9"),
        ("NSColorSpace 7", "NSColor", ["NSColorSpace": 7, "NSRGB": data("1 0 0")], [], "(1 to 6, or 10)"),
        ("CMYK without NSCMYK", "NSColor", ["NSColorSpace": 5, "NSComponents": data("0 1 0 0 1")], [], "no NSCMYK"),
        ("NSRGB not numbers", "NSColor", ["NSColorSpace": 1, "NSRGB": data("red green blue\0")], [], "NSRGB"),
        ("NSRGB of two numbers", "NSColor", ["NSColorSpace": 2, "NSRGB": data("1 0\0")], [], "3 to 4 numbers"),
        ("NSWhite missing", "NSColor", ["NSColorSpace": 3], [], "no NSWhite"),
        ("a named colour without its name", "NSColor", ["NSColorSpace": 6, "NSCatalogName": "System"], [], "NSColorName"),
        ("NSCMYK a string", "NSColor", ["NSColorSpace": 5, "NSCMYK": "1 1 1 1"], [], "NSCMYK that is not data"),
        ("UIColor with red alone", "UIColor", ["UIRed": 1.0], [], "UIGreen"),
        ("UIColor with no colour", "UIColor", ["UIFoo": 1.0], [], "neither NSColorSpace"),
        ("NSFont's size a string", "NSFont", ["NSName": "Menlo", "NSSize": "eleven"], [], "NSSize that is not a number"),
        ("NSFont without a name", "NSFont", ["NSSize": 11.0], [], "NSName"),
        ("NSIndexSet's count lying", "NSIndexSet", ["NSRangeCount": 3, "NSRangeData": .data(Data([1, 2, 10, 1]))], [], "holds 2 ranges"),
        ("NSIndexSet's ranges out of order", "NSIndexSet", ["NSRangeCount": 2, "NSRangeData": .data(Data([10, 2, 1, 1]))], [], "out of order"),
        ("NSIndexSet's empty range", "NSIndexSet", ["NSRangeCount": 1, "NSLocation": 4, "NSLength": 0], [], "empty"),
        (
            "NSIndexSet's range past Int64", "NSIndexSet",
            ["NSRangeCount": 2, "NSRangeData": .data(Data([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 1]))], [], "past 64 bits"
        ),
        ("NSDateComponents' year a string", "NSDateComponents", ["NS.year": "2024"], [], "NS.year that is not an integer"),
        ("NSDateComponents' time zone a string", "NSDateComponents", ["NS.timezone": "UTC"], [], "NS.timezone that is not an NSTimeZone"),
        ("NSLocale's identifier a number", "NSLocale", ["NS.identifier": 5], [], "NS.identifier"),
        ("NSTimeZone without a name", "NSTimeZone", ["NS.data": data("TZif")], [], "NS.name"),
        ("NSError without a domain", "NSError", ["NSCode": 4], [], "NSDomain"),
        ("NSError's code a real", "NSError", ["NSDomain": "D", "NSCode": 4.5], [], "NSCode"),
        (
            "NSError's user info an array", "NSError", ["NSDomain": "D", "NSCode": 4, "NSUserInfo": .uid(3)],
            [["$class": .uid(4), "NS.objects": []], ["$classname": "NSArray"]], "NSUserInfo"
        ),
        ("NSOrderedSet missing an element", "NSOrderedSet", ["NS.object.0": "a", "NS.object.2": "c"], [], "no NS.object.1"),
        ("NSValue's rect not a rect", "NSValue", ["NS.special": 3, "NS.rectval": "{{0, 0}, {10}}"], [], "not a rect"),
        // Cycles: the text, the font's name and the zone's name are the object itself.
        ("an attributed string whose text is itself", "NSAttributedString", ["NSString": .uid(1)], [], "NSString that is not a string"),
        ("a font whose name is itself", "NSFont", ["NSName": .uid(1), "NSSize": 11.0], [], "NSName that is not a string"),
        ("a time zone whose name is itself", "NSTimeZone", ["NS.name": .uid(1)], [], "NS.name that is not a string"),
    ]

    static let caseNames = cases.map(\.0)

    @Test(arguments: caseNames)
    func refusedWithWhere(_ name: String) throws {
        let (_, className, fields, more, words) = try #require(Self.cases.first { $0.0 == name })
        let archive = try Self.archive(className, fields, more: more)
        let error = #expect(throws: KeyedArchiveError.self, "\(name)") {
            try archive.decodeValue(forTopKey: "root")
        }
        #expect(error?.code == .invalidObject, "\(name): \(String(describing: error))")
        #expect(error?.keyPath.description == "$top.root", "\(name): \(String(describing: error))")
        #expect(error?.objectIndex == 1, "\(name): \(String(describing: error))")
        #expect(error?.message.contains(words) == true, "\(name): \(String(describing: error))")
        #expect(error?.message.contains(className) == true, "\(name): \(String(describing: error))")
    }

    /// A cycle through a collection is kept as `.cycle`, as for any class: an error whose user info holds the error itself.
    @Test func errorHoldingItselfIsACycle() throws {
        let archive = try Self.archive(
            "NSError", ["NSDomain": "D", "NSCode": 4, "NSUserInfo": .uid(3)],
            more: [["$class": .uid(4), "NS.keys": [.uid(5)], "NS.objects": [.uid(1)]], ["$classname": "NSDictionary"], "NSUnderlyingError"])
        let value = try archive.decodeValue(forTopKey: "root")
        #expect(value == .error(FoundationError(domain: "D", code: 4, userInfo: [.init(key: .string("NSUnderlyingError"), value: .cycle(1))])))
        #expect(value.readableText == #"Error Domain=D Code=4 UserInfo={"NSUnderlyingError" = #1 (cycle)}"#)
    }

    /// An object shared twice at each of 60 levels (2^60 paths to the last) is decoded once per object, and its
    /// readable text stops at `readableTextLimit` instead of writing the tree out.
    @Test func sharedObjectsDoNotExplodeTheText() throws {
        var objects: [PropertyListValue] = ["$null"]
        for level in 1...60 { objects.append(["$class": .uid(62), "NS.objects": [.uid(UInt64(level + 1)), .uid(UInt64(level + 1))]]) }
        objects.append(.string("leaf"))
        objects.append(["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]])
        let archive = try KeyedArchiveObjectGraph(
            propertyList: ["$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(1)], "$objects": .array(objects)])
        let text = try archive.decodeValue(forTopKey: "root").readableText
        #expect(text.hasPrefix(String(repeating: "(", count: 60) + #""leaf", "leaf"), ("leaf""#))
        // Past the limit, each of the 60 lists still open closes with "…)".
        #expect(text.utf8.count < ArchivedValue.readableTextLimit + 60 * "…)".utf8.count + 20)
        #expect(text.contains("…"))
    }

    /// Well-formed hand-built values of the classes no public file or Foundation on Linux gives: NSError, UIColor, UIFont, named and component-based NSColor.
    @Test func wellFormedByHand() throws {
        let error = try Self.archive("NSError", ["NSDomain": "NSCocoaErrorDomain", "NSCode": 4]).decodeValue(forTopKey: "root")
        #expect(error == .error(FoundationError(domain: "NSCocoaErrorDomain", code: 4, userInfo: [])))
        #expect(error.readableText == "Error Domain=NSCocoaErrorDomain Code=4")
        let uikit = try Self.archive("UIColor", ["UIRed": 1.0, "UIGreen": 0.5, "UIBlue": 0.0]).decodeValue(forTopKey: "root")
        #expect(uikit == .color(FoundationColor(space: .uikitRGB, components: [1, 0.5, 0, 1])))
        #expect(uikit.readableText == "uikitRGB(red 1, green 0.5, blue 0, alpha 1)")
        #expect(
            try Self.archive("UIColor", ["UISystemColorName": "systemBlueColor"]).decodeValue(forTopKey: "root").readableText == "uikitSystem(systemBlueColor)")
        #expect(
            try Self.archive("UIColor", ["UIWhite": 0.25, "UIAlpha": 0.5]).decodeValue(forTopKey: "root")
                == .color(FoundationColor(space: .uikitWhite, components: [0.25, 0.5])))
        let named = try Self.archive("NSColor", ["NSColorSpace": 6, "NSCatalogName": "System", "NSColorName": "controlColor"]).decodeValue(forTopKey: "root")
        #expect(named.readableText == "named(System controlColor)")
        let profiled = try Self.archive(
            "NSColor",
            ["NSColorSpace": 1, "NSRGB": Self.data("0.2 0.4 0.6\0"), "NSComponents": Self.data("0.2 0.4 0.6 1"), "NSCustomColorSpace": .uid(3)],
            more: [["$class": .uid(4), "NSICC": .data(Data([1, 2, 3, 4]))], ["$classname": "NSColorSpace"]]
        ).decodeValue(forTopKey: "root", allowedClassNames: ArchivedValue.builtInClassNames)
        #expect(profiled == .color(FoundationColor(space: .calibratedRGB, components: [0.2, 0.4, 0.6, 1], iccProfile: [1, 2, 3, 4])))
        #expect(
            try Self.archive("NSColor", ["NSColorSpace": 5, "NSCMYK": Self.data("0 1 0 0\0")]).decodeValue(forTopKey: "root").readableText
                == "deviceCMYK(cyan 0, magenta 1, yellow 0, black 0, alpha 1)")
        // GNUstep's spelling, which ICTKit's writer used too before it wrote AppKit's.
        #expect(
            try Self.archive("NSColor", ["NSColorSpace": 5, "NSCYMK": Self.data("0 1 0 0\0")]).decodeValue(forTopKey: "root").readableText
                == "deviceCMYK(cyan 0, magenta 1, yellow 0, black 0, alpha 1)")
        let pattern = try Self.archive("NSColor", ["NSColorSpace": 10, "NSImage": .uid(3)], more: [["$class": .uid(4)], ["$classname": "NSImage"]])
            .decodeValue(forTopKey: "root")
        #expect(pattern == .color(FoundationColor(space: .pattern, components: [])))
        #expect(pattern.readableText == "pattern")
        let font = try Self.archive("UIFont", ["UIFontName": "Helvetica", "UIFontPointSize": 17.0]).decodeValue(forTopKey: "root")
        #expect(font == .font(FoundationFont(name: "Helvetica", size: 17)))
    }

    /// What decodes writes back as it was read, and reads again the same (the writer's encodings of the new cases).
    @Test func newCasesRoundTripThroughTheWriter() throws {
        let values: [ArchivedValue] = [
            .indexSet(FoundationIndexSet(ranges: [TextRange(location: 1, length: 2), TextRange(location: 300, length: 5)])),
            .indexSet(FoundationIndexSet(ranges: [TextRange(location: 5, length: 3)])),
            .orderedSet([.string("b"), .string("a")]),
            .attributedString(
                AttributedText(
                    string: "abc",
                    runs: [
                        AttributedTextRun(range: TextRange(location: 0, length: 1), attributes: [.init(key: .string("K"), value: .integer(1))]),
                        AttributedTextRun(range: TextRange(location: 1, length: 2), attributes: []),
                    ])),
            .color(FoundationColor(space: .calibratedRGB, components: [0.5, 0.25, 0, 0.75])),
            .color(FoundationColor(space: .uikitWhite, components: [0.5, 1])),
            .font(FoundationFont(name: "Menlo-Regular", size: 11, flags: 16)),
            .dateComponents(FoundationDateComponents(values: [.year: 2024, .day: 1], isLeapMonth: false)),
            .locale(FoundationLocale(identifier: "fr_CA")),
            .timeZone(FoundationTimeZone(name: "UTC")),
            .error(FoundationError(domain: "D", code: 7, userInfo: [.init(key: .string("K"), value: .string("V"))])),
            .nsValue(.geometry(.rect(x: 0, y: 0, width: 10, height: 10), text: "{{0, 0}, {10, 10}}")),
        ]
        for value in values {
            let bytes = try KeyedArchiver.archive(value)
            #expect(try KeyedArchiveReader().read(bytes).decodeValue(forTopKey: "root") == value, "\(value)")
        }
    }
}
