import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Foundation's, AppKit's and UIKit's value classes in a keyed archive, by
// name, decoded to FoundationValues' types: the keys each class's
// `-encodeWithCoder:` writes, as Apple's Foundation and swift-corelibs-foundation
// write them.

extension ArchivedValueDecoder {
    /// The classes decoded here, by their exact name.
    static let foundationClassNames: Set<String> = [
        "NSOrderedSet", "NSMutableOrderedSet", "NSIndexSet", "NSMutableIndexSet", "NSAttributedString",
        "NSMutableAttributedString", "NSColor", "UIColor", "NSFont", "UIFont", "NSDateComponents", "NSLocale",
        "NSTimeZone", "NSError",
    ]

    /// Classes Apple archives under private subclasses' names as well
    /// (`__NSLocalTimeZone`, `NSCachedRGBColor`): decoded by the first of
    /// these in the class chain.
    static let privateSubclassedNames: Set<String> = [
        "NSAttributedString", "NSColor", "UIColor", "NSFont", "UIFont", "NSLocale", "NSTimeZone", "NSError",
    ]

    /// `instance` decoded as the class `name` (one of `foundationClassNames`).
    mutating func decodeFoundationInstance(
        _ instance: KeyedArchiveInstance, as name: String, depth: Int
    ) throws(KeyedArchiveError) -> ArchivedValue {
        let fields = InstanceFields(instance: instance, depth: depth)
        switch name {
        case "NSOrderedSet", "NSMutableOrderedSet": return .orderedSet(try orderedSetElements(fields))
        case "NSIndexSet", "NSMutableIndexSet": return .indexSet(try indexSet(fields))
        case "NSAttributedString", "NSMutableAttributedString": return .attributedString(try attributedText(fields))
        case "NSColor", "UIColor": return .color(try color(fields, uikit: name == "UIColor"))
        case "NSFont", "UIFont": return .font(try font(fields, uikit: name == "UIFont"))
        case "NSDateComponents": return .dateComponents(try dateComponents(fields))
        case "NSLocale":
            guard case .string(let identifier) = try field("NS.identifier", of: fields) else { throw fields.fail("has no NS.identifier string", self) }
            return .locale(FoundationLocale(identifier: identifier))
        case "NSTimeZone": return .timeZone(try timeZone(fields))
        default: return .error(try nsError(fields))
        }
    }

    /// The fields of the instance being decoded and its depth.
    struct InstanceFields {
        let instance: KeyedArchiveInstance
        let depth: Int

        subscript(key: String) -> PropertyListValue? { instance.fields[key] }

        func fail(_ message: String, _ decoder: ArchivedValueDecoder) -> KeyedArchiveError { decoder.invalid(instance, message) }
    }

    /// The field under `key` decoded (`$null` when absent), at the current path plus `key`.
    private mutating func field(_ key: String, of fields: InstanceFields) throws(KeyedArchiveError) -> ArchivedValue {
        try decodeField(fields[key] ?? .uid(0), key: key, depth: fields.depth + 1)
    }

    /// A number field (integer or real, stored plainly or as an `NSNumber`); nil when absent.
    private mutating func real(_ key: String, of fields: InstanceFields) throws(KeyedArchiveError) -> Double? {
        guard fields[key] != nil else { return nil }
        switch try field(key, of: fields) {
        case .real(let value): return value
        case .real32(let value): return Double(value)
        case .integer(let value):
            if let integer = value.int64Value { return Double(integer) }
            return value.uint64Value.map(Double.init)
        default: throw fields.fail("has a \(key) that is not a number", self)
        }
    }

    /// An integer field; nil when absent.
    private mutating func integer(_ key: String, of fields: InstanceFields) throws(KeyedArchiveError) -> Int64? {
        guard fields[key] != nil else { return nil }
        guard case .integer(let value) = try field(key, of: fields), let integer = value.int64Value else {
            throw fields.fail("has a \(key) that is not an integer of 64 bits", self)
        }
        return integer
    }

    /// A data field (plain, or an `NSData`/`NSMutableData` object); nil when absent.
    private mutating func bytes(_ key: String, of fields: InstanceFields) throws(KeyedArchiveError) -> Data? {
        guard fields[key] != nil else { return nil }
        switch try field(key, of: fields) {
        case .data(let data): return data
        case .null: return nil
        default: throw fields.fail("has a \(key) that is not data", self)
        }
    }

    /// A string field (plain, or an `NSString` object); nil when absent or `$null`.
    private mutating func string(_ key: String, of fields: InstanceFields) throws(KeyedArchiveError) -> String? {
        switch try field(key, of: fields) {
        case .string(let text): return text
        case .null: return nil
        default: throw fields.fail("has a \(key) that is not a string", self)
        }
    }

    // MARK: Collections

    /// `NS.objects` (an array of references), or `NS.object.0`, `NS.object.1`, … as swift-corelibs-foundation writes them.
    private mutating func orderedSetElements(_ fields: InstanceFields) throws(KeyedArchiveError) -> [ArchivedValue] {
        if case .array(let references)? = fields["NS.objects"] {
            return try decodeReferences(references, key: "NS.objects", depth: fields.depth)
        }
        let count = fields.instance.fields.keys.count(where: { $0.hasPrefix("NS.object.") })
        var elements: [ArchivedValue] = []
        elements.reserveCapacity(count)
        for position in 0..<count {
            let key = "NS.object.\(position)"
            guard fields[key] != nil else { throw fields.fail("has \(count) NS.object.N fields but no \(key)", self) }
            elements.append(try field(key, of: fields))
        }
        return elements
    }

    /// `NSRangeCount`, then `NSLocation` and `NSLength` for one range, or
    /// `NSRangeData` for more: (location, length) pairs as unsigned LEB128 numbers.
    private mutating func indexSet(_ fields: InstanceFields) throws(KeyedArchiveError) -> FoundationIndexSet {
        guard let count = try integer("NSRangeCount", of: fields), count >= 0 else {
            throw fields.fail("has no NSRangeCount of zero or more", self)
        }
        if count == 0 { return FoundationIndexSet(ranges: []) }
        if count == 1, fields["NSRangeData"] == nil {
            guard let location = try integer("NSLocation", of: fields), let length = try integer("NSLength", of: fields) else {
                throw fields.fail("has one range but no NSLocation and NSLength integers", self)
            }
            let range = TextRange(location: Int(location), length: Int(length))
            guard location >= 0, length > 0, location <= Int64.max - length else {
                throw fields.fail("has a range \(range) that is empty, negative or past the largest index", self)
            }
            return FoundationIndexSet(ranges: [range])
        }
        guard let data = try bytes("NSRangeData", of: fields) else { throw fields.fail("has \(count) ranges but no NSRangeData", self) }
        var reader = LEB128Reader(bytes: Array(data))
        var ranges: [TextRange] = []
        ranges.reserveCapacity(min(Int(count), data.count / 2))
        var end: Int64 = 0
        while let location = reader.next() {
            guard let length = reader.next() else { throw fields.fail("has NSRangeData ending inside a range", self) }
            guard location >= end, length > 0, location <= Int64.max - length else {
                throw fields.fail("has a range {\(location), \(length)} in NSRangeData that is empty, out of order or past the largest index", self)
            }
            ranges.append(TextRange(location: Int(location), length: Int(length)))
            end = location + length
        }
        guard !reader.failed else { throw fields.fail("has NSRangeData with a number that is cut short or past 64 bits", self) }
        guard ranges.count == count else { throw fields.fail("says NSRangeCount \(count) but its NSRangeData holds \(ranges.count) ranges", self) }
        return FoundationIndexSet(ranges: ranges)
    }

    // MARK: Attributed strings

    /// `NSString`; `NSAttributes` (one dictionary, or an array of them with
    /// `NSAttributeInfo`); `NSAttributeInfo`: (run length, attributes index)
    /// pairs as unsigned LEB128 numbers covering the text.
    private mutating func attributedText(_ fields: InstanceFields) throws(KeyedArchiveError) -> AttributedText<ArchivedValue> {
        guard let text = try string("NSString", of: fields) else { throw fields.fail("has no NSString string", self) }
        let utf16Count = text.utf16.count
        let attributes = try field("NSAttributes", of: fields)
        guard let info = try bytes("NSAttributeInfo", of: fields) else {
            switch attributes {
            case .null where utf16Count == 0: return AttributedText(string: text, runs: [])
            case .null: return AttributedText(string: text, runs: [AttributedTextRun(range: TextRange(location: 0, length: utf16Count), attributes: [])])
            case .dictionary(let entries):
                return AttributedText(string: text, runs: [AttributedTextRun(range: TextRange(location: 0, length: utf16Count), attributes: entries)])
            default: throw fields.fail("has NSAttributes that are not a dictionary (and no NSAttributeInfo)", self)
            }
        }
        guard case .array(let dictionaries) = attributes else { throw fields.fail("has NSAttributeInfo but NSAttributes is not an array", self) }
        var reader = LEB128Reader(bytes: Array(info))
        var runs: [AttributedTextRun<ArchivedValue>] = []
        var location = 0
        while let length = reader.next() {
            guard let index = reader.next() else { throw fields.fail("has NSAttributeInfo ending inside a run", self) }
            guard length <= Int64(utf16Count - location) else {
                throw fields.fail("has a run of \(length) at \(location), past the text's end (\(utf16Count) UTF-16 units)", self)
            }
            guard index < Int64(dictionaries.count), case .dictionary(let entries) = dictionaries[Int(index)] else {
                throw fields.fail("has a run whose attributes index \(index) is not one of its \(dictionaries.count) dictionaries", self)
            }
            runs.append(AttributedTextRun(range: TextRange(location: location, length: Int(length)), attributes: entries))
            location += Int(length)
        }
        guard !reader.failed else { throw fields.fail("has NSAttributeInfo with a number that is cut short or past 64 bits", self) }
        guard location == utf16Count else { throw fields.fail("has runs covering \(location) of its text's \(utf16Count) UTF-16 units", self) }
        return AttributedText(string: text, runs: runs)
    }

    // MARK: AppKit and UIKit

    /// `NSColorSpace` and its components' field (`NSRGB`, `NSWhite`,
    /// `NSCMYK`, with the ICC profile of an `NSCustomColorSpace` beside
    /// them; `NSCatalogName`/`NSColorName`; or a pattern's `NSImage`, not
    /// read); or UIColor's `UISystemColorName`,
    /// `UIRed`/`UIGreen`/`UIBlue`/`UIAlpha`, `UIWhite`. A `UIColor` that
    /// holds UIKit's keys is read from them even when it also holds
    /// `NSColorSpace` and `NSRGB`: UIKit writes those too, for AppKit, with
    /// the components rounded to three decimals.
    private mutating func color(_ fields: InstanceFields, uikit: Bool) throws(KeyedArchiveError) -> FoundationColor {
        if uikit, FoundationColor.uikitKeys.contains(where: { fields[$0] != nil }) { return try uikitColor(fields) }
        guard let number = try integer("NSColorSpace", of: fields) else { return try uikitColor(fields) }
        guard let space = FoundationColor.Space(archivedNumber: number) else {
            throw fields.fail("has NSColorSpace \(number), not a colour space Apple archives (1 to 6, or 10)", self)
        }
        switch space {
        case .named:
            guard let catalog = try string("NSCatalogName", of: fields), let name = try string("NSColorName", of: fields) else {
                throw fields.fail("is a named colour without NSCatalogName and NSColorName strings", self)
            }
            return FoundationColor(space: .named, components: [], catalog: catalog, name: name)
        case .pattern:
            return FoundationColor(space: .pattern, components: [])
        default:
            // AppKit spells CMYK's key NSCMYK; GNUstep (and ICTKit's writer before) NSCYMK.
            let cmyk = fields["NSCMYK"] == nil && fields["NSCYMK"] != nil ? "NSCYMK" : "NSCMYK"
            let key = space == .deviceCMYK ? cmyk : space.componentCount == 2 ? "NSWhite" : "NSRGB"
            let count = space.componentCount ?? 0
            var components = try archivedComponents(key, counts: (count - 1)...count, fields)
            if components.count < count { components.append(1) }
            return FoundationColor(space: space, components: components, iccProfile: customSpaceProfile(fields["NSCustomColorSpace"]))
        }
    }

    /// The numbers of a colour's components field, `counts` of them.
    private mutating func archivedComponents(_ key: String, counts: ClosedRange<Int>, _ fields: InstanceFields) throws(KeyedArchiveError) -> [Double] {
        guard let data = try bytes(key, of: fields) else { throw fields.fail("has no \(key) data", self) }
        guard let components = FoundationColor.archivedComponents(data), counts.contains(components.count) else {
            throw fields.fail("has a \(key) that is not \(counts.lowerBound) to \(counts.upperBound) numbers in ASCII", self)
        }
        return components
    }

    /// The `NSICC` profile of an `NSCustomColorSpace` object, read without
    /// decoding the colour space (a class of its own, not in the allow-list);
    /// nil when there is none to read.
    private func customSpaceProfile(_ reference: PropertyListValue?) -> [UInt8]? {
        func object(_ value: PropertyListValue?) -> PropertyListValue? {
            guard case .uid(let uid)? = value, uid > 0, uid < UInt64(archive.objects.count) else { return nil }
            return archive.objects[Int(uid)]
        }
        guard case .dictionary(let space)? = object(reference) else { return nil }
        switch space["NSICC"].flatMap({ value -> PropertyListValue? in if case .uid = value { object(value) } else { value } }) {
        case .data(let data)?: return Array(data)
        case .dictionary(let wrapper)?:
            if case .data(let data)? = wrapper["NS.data"] { return Array(data) }
            return nil
        default: return nil
        }
    }

    /// `UIColor`'s own fields, read as `FoundationColor(uikitFields:string:fail:)` says.
    private mutating func uikitColor(_ fields: InstanceFields) throws(KeyedArchiveError) -> FoundationColor {
        let color = try FoundationColor(
            uikitFields: { key throws(KeyedArchiveError) in try real(key, of: fields) },
            string: { key throws(KeyedArchiveError) in try string(key, of: fields) },
            fail: { fields.fail($0, self) })
        guard let color else { throw fields.fail("has neither NSColorSpace nor UIColor's UIRed, UIWhite or UISystemColorName", self) }
        return color
    }

    /// `NSName`, `NSSize`, `NSfFlags`; or UIFont's `UIFontName`, `UIFontPointSize`;
    /// and the descriptor under `NSDescriptor` or `UIFontDescriptor`, when archived.
    private mutating func font(_ fields: InstanceFields, uikit: Bool) throws(KeyedArchiveError) -> FoundationFont {
        let descriptor = try fontDescriptor(fields)
        if uikit || fields["NSName"] == nil, fields["UIFontPointSize"] != nil {
            return try FoundationFont(
                uikitFields: { key throws(KeyedArchiveError) in try real(key, of: fields) },
                string: { key throws(KeyedArchiveError) in try string(key, of: fields) }, descriptor: descriptor,
                fail: { fields.fail($0, self) })
        }
        guard let name = try string("NSName", of: fields), let size = try real("NSSize", of: fields) else {
            throw fields.fail("needs an NSName string and an NSSize number (or UIFont's UIFontName and UIFontPointSize)", self)
        }
        return FoundationFont(name: name, size: size, flags: try integer("NSfFlags", of: fields), descriptor: descriptor)
    }

    /// The font descriptor a font refers to under `NSDescriptor` (AppKit) or
    /// `UIFontDescriptor` (UIKit): nil when there is none, or when an
    /// allow-list is in force that does not name its class (the font is
    /// then read from its own fields, as before descriptors were read).
    private mutating func fontDescriptor(_ fields: InstanceFields) throws(KeyedArchiveError) -> FoundationFontDescriptor? {
        guard let key = ["NSDescriptor", "UIFontDescriptor"].first(where: { fields[$0] != nil }) else { return nil }
        if let allowedClassNames, case .uid(let uid)? = fields[key], uid > 0, uid < UInt64(archive.objects.count),
            case .instance(let instance) = archive.object(at: Int(uid)), !allowedClassNames.contains(instance.classDescription.name)
        {
            return nil
        }
        switch try field(key, of: fields) {
        case .null: return nil
        case .object(let object) where object.classDescription.chain.contains(where: { $0 == "UIFontDescriptor" || $0 == "NSFontDescriptor" }):
            return try Self.fontDescriptor(object) { message in
                fields.fail("has a \(key) (\(object.classDescription.name), object \(object.index)) that \(message)", self)
            }
        default: throw fields.fail("has a \(key) that is not a UIFontDescriptor or NSFontDescriptor", self)
        }
    }

    /// A decoded `UIFontDescriptor`/`NSFontDescriptor`: its
    /// `UIFontDescriptorAttributes` (or `NSFontDescriptorAttributes`)
    /// dictionary, read as `FoundationFontDescriptor(archivedAttributes:key:fail:)`
    /// says; `fail` makes the error for what is wrong.
    private static func fontDescriptor(
        _ object: ArchivedObject, fail: (String) -> KeyedArchiveError
    ) throws(KeyedArchiveError) -> FoundationFontDescriptor {
        guard let key = FoundationFontDescriptor.archivedAttributesKeys.first(where: { object.fields[$0] != nil }) else {
            throw fail("has neither UIFontDescriptorAttributes nor NSFontDescriptorAttributes")
        }
        guard case .dictionary(let entries)? = object.fields[key] else { throw fail("has a \(key) that is not a dictionary") }
        return try FoundationFontDescriptor(archivedAttributes: entries, key: key, fail: fail)
    }

    // MARK: Dates, places and errors

    /// The archived key of each unit (`NSDateComponentUndefined`, `Int64.max`, where unset).
    private static let dateComponentKeys: [(FoundationDateComponents.Unit, String)] = [
        (.era, "NS.era"), (.year, "NS.year"), (.yearForWeekOfYear, "NS.yearForWOY"), (.quarter, "NS.quarter"),
        (.month, "NS.month"), (.weekOfYear, "NS.weekOfYear"), (.weekOfMonth, "NS.weekOfMonth"), (.weekday, "NS.weekday"),
        (.weekdayOrdinal, "NS.weekdayOrdinal"), (.day, "NS.day"), (.hour, "NS.hour"), (.minute, "NS.minute"),
        (.second, "NS.second"), (.nanosecond, "NS.nanosec"),
    ]

    private mutating func dateComponents(_ fields: InstanceFields) throws(KeyedArchiveError) -> FoundationDateComponents {
        var values: [FoundationDateComponents.Unit: Int64] = [:]
        for (unit, key) in Self.dateComponentKeys {
            if let value = try integer(key, of: fields), value != Int64.max { values[unit] = value }
        }
        var isLeapMonth: Bool?
        switch try field("NS.isLeapMonth", of: fields) {
        case .bool(let flag): isLeapMonth = flag
        case .null: break
        default: throw fields.fail("has an NS.isLeapMonth that is not a boolean", self)
        }
        var timeZone: FoundationTimeZone?
        switch try field("NS.timezone", of: fields) {
        case .timeZone(let zone): timeZone = zone
        case .null: break
        default: throw fields.fail("has an NS.timezone that is not an NSTimeZone", self)
        }
        return FoundationDateComponents(
            values: values, isLeapMonth: isLeapMonth, calendarIdentifier: calendarIdentifier(fields["NS.calendar"]), timeZone: timeZone)
    }

    /// The identifier of an `NSCalendar` object (`NS.identifier`, or `NS.calendarIdentifier`), read without
    /// decoding the calendar (not in the allow-list); nil when there is none to read.
    private func calendarIdentifier(_ reference: PropertyListValue?) -> String? {
        func object(_ value: PropertyListValue?) -> PropertyListValue? {
            guard case .uid(let uid)? = value, uid > 0, uid < UInt64(archive.objects.count) else { return nil }
            return archive.objects[Int(uid)]
        }
        guard case .dictionary(let calendar)? = object(reference) else { return nil }
        for key in ["NS.identifier", "NS.calendarIdentifier"] {
            if case .string(let identifier)? = object(calendar[key]) { return identifier }
        }
        return nil
    }

    /// `NS.name`, and the zone's TZif data in `NS.data` when archived.
    private mutating func timeZone(_ fields: InstanceFields) throws(KeyedArchiveError) -> FoundationTimeZone {
        guard let name = try string("NS.name", of: fields) else { throw fields.fail("has no NS.name string", self) }
        return FoundationTimeZone(name: name, data: try bytes("NS.data", of: fields).map(Array.init))
    }

    /// `NSDomain`, `NSCode`, `NSUserInfo` (a dictionary or `$null`).
    private mutating func nsError(_ fields: InstanceFields) throws(KeyedArchiveError) -> FoundationError<ArchivedValue> {
        guard let domain = try string("NSDomain", of: fields) else { throw fields.fail("has no NSDomain string", self) }
        guard let code = try integer("NSCode", of: fields) else { throw fields.fail("has no NSCode integer", self) }
        switch try field("NSUserInfo", of: fields) {
        case .null: return FoundationError(domain: domain, code: code, userInfo: [])
        case .dictionary(let entries): return FoundationError(domain: domain, code: code, userInfo: entries)
        default: throw fields.fail("has an NSUserInfo that is not a dictionary", self)
        }
    }
}

extension ArchivedValue: ArchivedFieldValue {
    /// The text of a string (plain, or an `NSString` object decoded).
    public var fieldString: String? { if case .string(let text) = self { text } else { nil } }

    /// The value of an integer of 64 bits or a real (of 64 or 32 bits).
    public var fieldNumber: Double? {
        switch self {
        case .real(let value): value
        case .real32(let value): Double(value)
        case .integer(let value): value.int64Value.map(Double.init)
        default: nil
        }
    }

    /// The value of an integer of 64 bits.
    public var fieldInteger: Int64? { if case .integer(let value) = self { value.int64Value } else { nil } }

    /// The elements of an array.
    public var fieldElements: [ArchivedValue]? { if case .array(let elements) = self { elements } else { nil } }

    /// The entries of a dictionary.
    public var fieldEntries: [ArchivedDictionaryEntry]? { if case .dictionary(let entries) = self { entries } else { nil } }
}

/// Unsigned LEB128 numbers one after another (`NSAttributeInfo`, `NSRangeData`), each at most 63 bits.
struct LEB128Reader {
    let bytes: [UInt8]
    var position = 0
    /// Whether a number was cut short by the end or ran past 63 bits.
    private(set) var failed = false

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The next number; nil at the end or after a failure.
    mutating func next() -> Int64? {
        guard !failed, position < bytes.count else { return nil }
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            guard shift < 63, UInt64(byte & 0x7F) <= (UInt64(Int64.max) >> shift) else {
                failed = true
                return nil
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return Int64(value) }
            shift += 7
        }
        failed = true
        return nil
    }
}
