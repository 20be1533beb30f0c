import Foundation
import KeyedArchive
import NIBArchive
import PropertyList
import Testing

/// `UIColor` and `UIFont` objects of ibtool's nibs in Fixtures decoded by class
/// (NibObjectGraph+FoundationValues.swift), each field checked against nibarchive's
/// reading of the same object (Fixtures/nibarchive_uikit_values.py).
@Suite struct NibObjectGraphFoundationValuesTests {
    /// The fixtures holding UIColor or UIFont objects, and how many of each nibarchive lists in them.
    static let fixtures: [(name: String, colours: Int, fonts: Int)] = [
        ("01J-lp-oVM-view-Ze5-6b-2t3.nib", 1, 0), ("InstallViewController.nib", 5, 3), ("NewsArticleTableViewCell.nib", 3, 3),
        ("PackageListHeader.nib", 2, 2), ("UITabBarController-49e-Tb-3d3.nib", 1, 0),
    ]

    static func graph(_ name: String) throws -> NibObjectGraph { NibObjectGraph(try NIBArchiveReader().read(try Fixtures.bytes(name))) }

    /// A number as nibarchive's JSON has it (a float read as its double, a double, an integer).
    static func number(_ value: PropertyListValue?) -> Double? {
        switch value {
        case .real(let real)?: real
        case .integer(let integer)?: integer.int64Value.map(Double.init)
        default: nil
        }
    }

    /// The colour nibarchive's fields of a UIColor stand for, by hand: `UISystemColorName` names a system colour;
    /// else `UIRed`, `UIGreen`, `UIBlue`, `UIAlpha` are extended sRGB; else `UIWhite`, `UIAlpha` extended grey.
    static func expectedColour(_ fields: PropertyListValue) -> FoundationColor? {
        let fields = fields.dictionaryValue ?? [:]
        if let name = fields["UISystemColorName"]?.stringValue { return FoundationColor(space: .uikitSystem, components: [], name: name) }
        let alpha = number(fields["UIAlpha"]) ?? 1
        if let red = number(fields["UIRed"]), let green = number(fields["UIGreen"]), let blue = number(fields["UIBlue"]) {
            return FoundationColor(space: .uikitRGB, components: [red, green, blue, alpha])
        }
        guard let white = number(fields["UIWhite"]) else { return nil }
        return FoundationColor(space: .uikitWhite, components: [white, alpha])
    }

    @Test(.nibarchivePeer, arguments: fixtures.map(\.name))
    func everyColourAndFontIsWhatNibarchiveReads(name: String) throws {
        let graph = try Self.graph(name)
        let peer = try #require(try Fixtures.python([Fixtures.path("nibarchive_uikit_values.py")], [Fixtures.path(name)]).arrayValue)
        let counts = try #require(Self.fixtures.first { $0.name == name })
        var colours = 0
        var fonts = 0
        for entry in peer {
            let entry = try #require(entry.dictionaryValue)
            let index = try #require(entry["index"].flatMap(Self.number).map(Int.init))
            let fields = try #require(entry["fields"])
            let decoded = graph.readableValue(ofObjectAt: index)
            switch entry["class"]?.stringValue {
            case "UIColor":
                colours += 1
                let expected = try #require(Self.expectedColour(fields), "\(name) #\(index)")
                #expect(decoded == .color(expected), "\(name) #\(index)")
            case "UIFont":
                fonts += 1
                guard case .font(let font)? = decoded else {
                    Issue.record("\(name) #\(index): not decoded as a font: \(String(describing: decoded))")
                    continue
                }
                #expect(font.name == fields.dictionaryValue?["UIFontName"]?.stringValue, "\(name) #\(index)")
                #expect(font.size == Self.number(fields.dictionaryValue?["UIFontPointSize"]), "\(name) #\(index)")
                // The descriptor's attributes, pair by pair: the usage and size Core Text names are read into fields,
                // the others (NSCTFontUIUsageOverrideAttribute) kept by name.
                let attributes = try #require(entry["attributes"]?.arrayValue).compactMap(\.arrayValue)
                var expected = FoundationFontDescriptor()
                for pair in attributes {
                    switch pair.first?.stringValue {
                    case "NSCTFontUIUsageAttribute": expected.usage = pair.last?.stringValue
                    case "NSFontSizeAttribute": expected.size = Self.number(pair.last)
                    case let other?: expected.otherAttributeNames.append(other)
                    case nil: Issue.record("\(name) #\(index): an attribute key that is not a string")
                    }
                }
                #expect(font.descriptor == expected, "\(name) #\(index)")
            default: Issue.record("\(name): nibarchive lists #\(index) as \(String(describing: entry["class"]))")
            }
        }
        #expect(colours == counts.colours, "\(name)")
        #expect(fonts == counts.fonts, "\(name)")
        // No other object decodes.
        let decodedIndices = graph.objects.indices.filter { graph.readableValue(ofObjectAt: $0) != nil }
        #expect(decodedIndices.count == colours + fonts, "\(name)")
    }

    /// Hand annotations from nibarchive's listing of InstallViewController.nib: #39 is a UIFont, UIFontName #70
    /// (NS.bytes ".SFUIText"), UIFontPointSize 14.0 (a double), UIFontDescriptor #44 whose attributes say
    /// NSCTFontUIUsageAttribute "CTFontRegularUsage", NSFontSizeAttribute 14; #56 a UIColor, UIWhite 0.0 and
    /// UIAlpha 0.45 as floats (0.44999998807907104); #86 a UIColor, UISystemColorName #134 (NS.bytes "clearColor").
    @Test func theTextFormShowsEachOnOneLineAsAKeyedArchiveDoes() throws {
        let graph = try Self.graph("InstallViewController.nib")
        let text = try graph.treeText()
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains(#"#39 UIFont = ".SFUIText" 14 pt, usage CTFontRegularUsage"#))
        #expect(lines.contains("#56 UIColor = uikitWhite(white 0, alpha 0.44999998807907104)"))
        #expect(lines.contains("#86 UIColor = uikitSystem(clearColor)"))
        // Their fields, and the objects only they refer to (the descriptor #44), are not shown field by field.
        #expect(!text.contains("UIFontPointSize:"))
        #expect(!text.contains("UIWhite:"))
        #expect(!lines.contains("#44 UIFontDescriptor"))
        #expect(!text.contains("unreached objects:"))
        // Every decoded object of every fixture is shown so, once.
        for (name, _, _) in Self.fixtures {
            let graph = try Self.graph(name)
            let text = try graph.treeText()
            for index in graph.objects.indices {
                guard let value = graph.readableValue(ofObjectAt: index) else { continue }
                #expect(text.components(separatedBy: "\(graph.label(of: index)) = \(value.readableText)\n").count == 2, "\(name) #\(index)")
            }
        }
    }

    @Test func theJSONFormKeepsTheFieldsAndAddsTheReadableText() throws {
        let graph = try Self.graph("InstallViewController.nib")
        let objects = try #require(graph.jsonForm.dictionaryValue?["objects"]?.arrayValue).compactMap(\.dictionaryValue)
        let font = try #require(objects.first { $0["index"] == .integer(39) })
        #expect(font["readable"] == .string(#"".SFUIText" 14 pt, usage CTFontRegularUsage"#))
        // All ten fields nibarchive lists are still there, in order, the first a reference to #70.
        let fields = try #require(font["fields"]?.arrayValue)
        #expect(fields.count == 10)
        #expect(fields.first == .dictionary(["key": .string("UIFontName"), "value": .uid(70)]))
        #expect(Array(font.keys) == ["index", "className", "fields", "readable"])
        // An object of another class has no readable text.
        #expect(objects.first { $0["index"] == .integer(44) }?["readable"] == nil)
    }

    /// The same UIColor and UIFont fields, in an iOS keyed nib: the nib graph's readable text is the keyed
    /// archive reader's, since both read the fields with one implementation.
    @Test func aKeyedNibsColourAndFontReadAsTheKeyedArchiveReaderReadsThem() throws {
        func classDescription(_ name: String) -> PropertyListValue {
            .dictionary(["$classes": .array([.string(name), "NSObject"]), "$classname": .string(name)])
        }
        let archive = KeyedArchiveObjectGraph(
            top: ["UINibTopLevelObjectsKey": .uid(1)],
            objects: [
                "$null", .dictionary(["NS.objects": .array([.uid(2), .uid(4)]), "$class": .uid(7)]),
                .dictionary(["UIWhite": 0.5, "UIAlpha": 1.0, "UIColorComponentCount": 2, "$class": .uid(3)]), classDescription("UIColor"),
                .dictionary(["UIFontName": .uid(5), "UIFontPointSize": 17.0, "UIFontTraits": 0, "$class": .uid(6)]), "Helvetica",
                classDescription("UIFont"), classDescription("NSArray"),
            ])
        let graph = try NibObjectGraph(keyedArchive: archive)
        #expect(graph.readableValue(ofObjectAt: 2) == .color(FoundationColor(space: .uikitWhite, components: [0.5, 1])))
        #expect(graph.readableValue(ofObjectAt: 4) == .font(FoundationFont(name: "Helvetica", size: 17)))
        for index in [2, 4] {
            #expect(graph.readableValue(ofObjectAt: index)?.readableText == archive.readableValue(ofObjectAt: index)?.readableText)
        }
        #expect(try graph.treeText().contains(#"#4 UIFont = "Helvetica" 17 pt"#))
    }

    @Test func controlCharactersInAFontNameAreShownEscaped() throws {
        let archive = KeyedArchiveObjectGraph(
            top: ["UINibTopLevelObjectsKey": .uid(1)],
            objects: [
                "$null", .dictionary(["NS.objects": .array([.uid(2)]), "$class": .uid(5)]),
                .dictionary(["UIFontName": .uid(3), "UIFontPointSize": 9.0, "$class": .uid(4)]), "Evil\n\u{1B}[2J\"",
                .dictionary(["$classes": .array(["UIFont", "NSObject"]), "$classname": "UIFont"]),
                .dictionary(["$classes": .array(["NSArray", "NSObject"]), "$classname": "NSArray"]),
            ])
        let text = try NibObjectGraph(keyedArchive: archive).treeText()
        #expect(text.contains(#"#2 UIFont = "Evil\n\u{1b}[2J\"" 9 pt"#))
        #expect(!text.contains("\u{1B}"))
    }

    // MARK: Bad input: InstallViewController.nib with one value edited

    /// InstallViewController.nib as read, with `edit` applied to its tables.
    static func edited(_ edit: (inout NIBArchiveFile) throws -> Void) throws -> (NIBArchiveFile, NibObjectGraph) {
        var file = try NIBArchiveReader().read(try Fixtures.bytes("InstallViewController.nib"))
        try edit(&file)
        return (file, NibObjectGraph(file))
    }

    /// The position in the values table of object `index`'s value under `key`.
    static func valuePosition(_ file: NIBArchiveFile, object index: Int, key: String) throws -> Int {
        try #require(file.objects[index].valueRange.first { file.keys[file.values[$0].keyIndex] == key })
    }

    /// Each edit, the object it breaks, the key of the field at whose offset the error is (nil: at none, a field
    /// is missing), and the error's message.
    static let brokenObjects: [(what: String, object: Int, key: String?, message: String, edit: @Sendable (inout NIBArchiveFile) throws -> Void)] = [
        (
            "a UIColor's UIWhite as data", 56, "UIWhite", "UIColor object 56 has a UIWhite that is not a number",
            { file in file.values[try NibObjectGraphFoundationValuesTests.valuePosition(file, object: 56, key: "UIWhite")].value = .data([1, 2]) }
        ),
        (
            "a UIColor's UIRed without UIGreen (renamed UIGreenX)", 2, nil, "UIColor object 2 has UIRed but not UIGreen and UIBlue",
            { file in
                file.keys.append("UIGreenX")
                file.values[try NibObjectGraphFoundationValuesTests.valuePosition(file, object: 2, key: "UIGreen")].keyIndex = file.keys.count - 1
            }
        ),
        (
            "a UIColor's UISystemColorName a reference to a UIColor", 86, "UISystemColorName",
            "UIColor object 86 has a UISystemColorName that is not a string",
            { file in file.values[try NibObjectGraphFoundationValuesTests.valuePosition(file, object: 86, key: "UISystemColorName")].value = .object(56) }
        ),
        (
            "a UIFont without UIFontPointSize (renamed UIFontPointSizeX)", 39, nil, "UIFont object 39 has no UIFontPointSize",
            { file in
                file.keys.append("UIFontPointSizeX")
                file.values[try NibObjectGraphFoundationValuesTests.valuePosition(file, object: 39, key: "UIFontPointSize")].keyIndex = file.keys.count - 1
            }
        ),
        (
            "a UIFont's UIFontName an integer", 39, "UIFontName", "UIFont object 39 has a UIFontName that is not a string",
            { file in file.values[try NibObjectGraphFoundationValuesTests.valuePosition(file, object: 39, key: "UIFontName")].value = .int8(3) }
        ),
        (
            "a UIFont's UIFontDescriptor a reference to a string", 39, "UIFontDescriptor",
            "UIFont object 39 has a UIFontDescriptor that is not a UIFontDescriptor or NSFontDescriptor",
            { file in file.values[try NibObjectGraphFoundationValuesTests.valuePosition(file, object: 39, key: "UIFontDescriptor")].value = .object(70) }
        ),
        (
            // #44's UIFontDescriptorAttributes is #34, whose fourth UINibEncoderEmptyKey value is the NSNumber 14.
            "a descriptor's NSFontSizeAttribute a string", 39, "UIFontDescriptor",
            "UIFont object 39 has a UIFontDescriptor (UIFontDescriptor, object 44) that has a UIFontDescriptorAttributes.NSFontSizeAttribute "
                + "that is not a size of zero or more points",
            { file in
                let pairs = file.objects[34].valueRange.filter { file.keys[file.values[$0].keyIndex] == "UINibEncoderEmptyKey" }
                file.values[pairs[3]].value = .object(70)
            }
        ),
    ]

    @Test(arguments: brokenObjects.indices)
    func aColourOrFontWithAMissingOrWronglyTypedFieldStaysRaw(_ position: Int) throws {
        let broken = Self.brokenObjects[position]
        let (file, graph) = try Self.edited(broken.edit)
        // Not decoded: the tree shows the object's fields, as a keyed archive's tree shows an NSFont that does not decode.
        #expect(graph.readableValue(ofObjectAt: broken.object) == nil, "\(broken.what)")
        let text = try graph.treeText()
        #expect(text.contains("\(graph.label(of: broken.object))\n"), "\(broken.what)")
        #expect(!text.contains("\(graph.label(of: broken.object)) ="), "\(broken.what)")
        #expect(graph.jsonForm.dictionaryValue?["objects"]?.arrayValue?.contains { $0.dictionaryValue?["readable"] != nil } == true)
        // The decoding API says what and where: the object, the key, and the field's byte offset.
        let error = try #require(throws: NIBArchiveError.self) { try graph.decodeReadableValue(ofObjectAt: broken.object) }
        #expect(error.code == .invalidObject, "\(broken.what)")
        #expect(error.message == broken.message, "\(broken.what)")
        let field = try broken.key.map { key in try Self.valuePosition(file, object: broken.object, key: key) }
        #expect(error.byteOffset == field.map { file.values[$0].byteOffset }, "\(broken.what)")
    }

    @Test func aDescriptorDictionaryThatHoldsItselfIsRefused() throws {
        // #34's second value (the key NSCTFontUIUsageAttribute) made a reference to #34 itself.
        let (_, graph) = try Self.edited { file in
            let pairs = file.objects[34].valueRange.filter { file.keys[file.values[$0].keyIndex] == "UINibEncoderEmptyKey" }
            file.values[pairs[0]].value = .object(34)
        }
        #expect(graph.readableValue(ofObjectAt: 39) == nil)
        let error = try #require(throws: NIBArchiveError.self) { try graph.decodeReadableValue(ofObjectAt: 39) }
        #expect(error.message == "NSMutableDictionary object 34 refers back to itself")
        #expect(try graph.treeText().contains("#39 UIFont\n"))
    }

    @Test func objectsOfOtherClassesAndNoObjectAreNotDecoded() throws {
        let graph = try Self.graph("InstallViewController.nib")
        for index in [0, 3, 44, 70, -1, 137, Int.max] {
            #expect(graph.readableValue(ofObjectAt: index) == nil)
            #expect(try graph.decodeReadableValue(ofObjectAt: index) == nil)
        }
    }
}
