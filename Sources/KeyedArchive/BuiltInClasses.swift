import OrderedCollections
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension String: KeyedArchiveCodable {
    /// `NSString` and `NSMutableString`.
    public static let archivedClassNames: Set<String> = ["NSString", "NSMutableString"]
    /// `NSString`, though a string is stored plainly.
    public var archivedClassChain: [String] { ["NSString", "NSObject"] }

    /// Reads a plain string or an `NS.string` field.
    ///
    /// - Throws: `.invalidObject` when there is neither.
    public init(from decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError) {
        if case .string(let string)? = decoder.storedValue ?? decoder.fields["NS.string"] {
            self = string
        } else {
            throw decoder.error(.invalidObject, forKey: "NS.string", "\(decoder.className) has no string")
        }
    }

    /// Stores the string plainly, as `NSKeyedArchiver` stores an `NSString`.
    public func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        encoder.encodeStoredValue(.string(self))
    }
}

extension Data: KeyedArchiveCodable {
    /// `NSData` and `NSMutableData`.
    public static let archivedClassNames: Set<String> = ["NSData", "NSMutableData"]
    /// `NSData`, though data is stored plainly.
    public var archivedClassChain: [String] { ["NSData", "NSObject"] }

    /// Reads plain data or an `NS.data` field.
    ///
    /// - Throws: `.invalidObject` when there is neither.
    public init(from decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError) {
        if case .data(let data)? = decoder.storedValue ?? decoder.fields["NS.data"] {
            self = data
        } else if decoder.fields["NS.data"] != nil, let data = try decoder.decodeObject(of: Data.self, forKey: "NS.data") {
            self = data
        } else {
            throw decoder.error(.invalidObject, forKey: "NS.data", "\(decoder.className) has no data")
        }
    }

    /// Stores the bytes plainly, as `NSKeyedArchiver` stores an `NSData`.
    public func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        encoder.encodeStoredValue(.data(self))
    }
}

extension Date: KeyedArchiveCodable {
    /// `NSDate`.
    public static let archivedClassNames: Set<String> = ["NSDate"]
    /// `NSDate` → `NSObject`.
    public var archivedClassChain: [String] { ["NSDate", "NSObject"] }

    /// Reads `NS.time`, seconds since 2001-01-01.
    ///
    /// - Throws: `.invalidObject` when `NS.time` is missing or not a number.
    public init(from decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError) {
        if case .date(let date)? = decoder.storedValue {
            self = date
            return
        }
        guard decoder.containsValue(forKey: "NS.time") else {
            throw decoder.error(.invalidObject, forKey: "NS.time", "NSDate has no NS.time")
        }
        self = Date(timeIntervalSinceReferenceDate: try decoder.decodeDouble(forKey: "NS.time"))
    }

    /// Writes `NS.time`.
    public func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        encoder.encode(timeIntervalSinceReferenceDate, forKey: "NS.time")
    }
}

extension UUID: KeyedArchiveCodable {
    /// `NSUUID`.
    public static let archivedClassNames: Set<String> = ["NSUUID"]
    /// `NSUUID` → `NSObject`.
    public var archivedClassChain: [String] { ["NSUUID", "NSObject"] }

    /// Reads the 16 bytes of `NS.uuidbytes`.
    ///
    /// - Throws: `.invalidObject` when they are missing or not 16 bytes.
    public init(from decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError) {
        guard case .data(let bytes)? = decoder.fields["NS.uuidbytes"], bytes.count == 16 else {
            throw decoder.error(.invalidObject, forKey: "NS.uuidbytes", "NSUUID needs 16 bytes in NS.uuidbytes")
        }
        let b = Array(bytes)
        self = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    /// Writes `NS.uuidbytes`.
    public func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        encoder.encodeRaw(.data(withUnsafeBytes(of: uuid) { Data($0) }), forKey: "NS.uuidbytes")
    }
}

extension Array: KeyedArchiveDecodable where Element: KeyedArchiveDecodable {
    /// `NSArray` and `NSMutableArray`.
    public static var archivedClassNames: Set<String> { ["NSArray", "NSMutableArray"] }

    /// Reads `NS.objects`, each element as `Element`.
    ///
    /// - Throws: `.invalidObject` when `NS.objects` is missing; element errors.
    public init(from decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError) {
        guard let elements = try decoder.decodeReferences(of: Element.self, forKey: "NS.objects") else {
            throw decoder.error(.invalidObject, forKey: "NS.objects", "\(decoder.className) has no NS.objects")
        }
        self = elements
    }
}

extension Array: KeyedArchiveEncodable where Element: KeyedArchiveEncodable {
    /// `NSArray` → `NSObject`.
    public var archivedClassChain: [String] { ["NSArray", "NSObject"] }

    /// Writes `NS.objects`.
    public func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        try encoder.encodeReferences(self, forKey: "NS.objects")
    }
}

extension ArchivedValue: KeyedArchiveEncodable {
    /// The class `NSKeyedArchiver` writes for this value (Foundation's immutable classes).
    public var archivedClassChain: [String] {
        switch self {
        case .null, .string, .integer, .real, .real32, .bool, .cycle: ["NSObject"]
        case .nsNull: ["NSNull", "NSObject"]
        case .data: ["NSData", "NSObject"]
        case .date: ["NSDate", "NSObject"]
        case .url: ["NSURL", "NSObject"]
        case .uuid: ["NSUUID", "NSObject"]
        case .array: ["NSArray", "NSObject"]
        case .set: ["NSSet", "NSObject"]
        case .dictionary: ["NSDictionary", "NSObject"]
        case .nsValue: ["NSValue", "NSObject"]
        case .orderedSet: ["NSOrderedSet", "NSObject"]
        case .indexSet: ["NSIndexSet", "NSObject"]
        case .attributedString(let text):
            text.runs.count > 1 ? ["NSMutableAttributedString", "NSAttributedString", "NSObject"] : ["NSAttributedString", "NSObject"]
        case .color(let color): color.space.rawValue.hasPrefix("uikit") ? ["UIColor", "NSObject"] : ["NSColor", "NSObject"]
        case .font(let font): font.flags == nil ? ["UIFont", "NSObject"] : ["NSFont", "NSObject"]
        case .dateComponents: ["NSDateComponents", "NSObject"]
        case .locale: ["NSLocale", "NSObject"]
        case .timeZone: ["NSTimeZone", "NSObject"]
        case .error: ["NSError", "NSObject"]
        case .object(let object): object.classDescription.chain.isEmpty ? [object.classDescription.name] : object.classDescription.chain
        }
    }

    /// Encodes the value as `NSKeyedArchiver` encodes the built-in it stands for.
    ///
    /// The FoundationValues cases are written with the keys `NSKeyedArchiver`
    /// writes for them (see `ArchivedFoundationClasses.swift`).
    ///
    /// - Throws: `.unsupportedValue` for `.cycle` (a value tree cannot hold
    ///   one; archive reference types to make cycles), for a C-array `NSValue`
    ///   and for a pattern colour (its image is not kept).
    public func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        switch self {
        case .null, .nsNull: break
        case .string(let string): encoder.encodeStoredValue(.string(string))
        case .data(let data): encoder.encodeStoredValue(.data(data))
        case .integer(let integer): encoder.encodeStoredValue(.integer(integer))
        case .real(let real): encoder.encodeStoredValue(.real(real))
        case .real32(let real): encoder.encodeStoredValue(.real32(real))
        case .bool(let flag): encoder.encodeStoredValue(.bool(flag))
        case .date(let date): try date.encode(to: &encoder)
        case .uuid(let uuid): try uuid.encode(to: &encoder)
        case .url(let relative, let base):
            try encoder.encode(base.map { ArchivedValue.url(relative: $0, base: nil) }, forKey: "NS.base")
            try encoder.encode(relative, forKey: "NS.relative")
        case .array(let elements), .set(let elements):
            try encoder.encodeReferences(elements, forKey: "NS.objects")
        case .dictionary(let entries):
            try encoder.encodeReferences(entries.map(\.key), forKey: "NS.keys")
            try encoder.encodeReferences(entries.map(\.value), forKey: "NS.objects")
        case .nsValue(let value): try Self.encode(value, to: &encoder)
        case .orderedSet(let elements): try encoder.encodeReferences(elements, forKey: "NS.objects")
        case .indexSet(let set): Self.encode(set, to: &encoder)
        case .attributedString(let text): try Self.encode(text, to: &encoder)
        case .color(let color): try Self.encode(color, to: &encoder)
        case .font(let font):
            if let flags = font.flags {
                try encoder.encode(font.name, forKey: "NSName")
                encoder.encode(font.size, forKey: "NSSize")
                encoder.encode(flags, forKey: "NSfFlags")
            } else {
                try encoder.encode(font.name, forKey: "UIFontName")
                encoder.encode(font.size, forKey: "UIFontPointSize")
            }
        case .dateComponents(let components): try Self.encode(components, to: &encoder)
        case .locale(let locale): try encoder.encode(locale.identifier, forKey: "NS.identifier")
        case .timeZone(let zone):
            try encoder.encode(zone.name, forKey: "NS.name")
            if let data = zone.data { try encoder.encode(Data(data), forKey: "NS.data") }
        case .error(let error):
            try encoder.encode(error.domain, forKey: "NSDomain")
            encoder.encode(error.code, forKey: "NSCode")
            try encoder.encode(error.userInfo.isEmpty ? nil : ArchivedValue.dictionary(error.userInfo), forKey: "NSUserInfo")
        case .object(let object):
            for (key, field) in object.fields {
                switch field {
                case .integer(let integer): encoder.encodeRaw(.integer(integer), forKey: key)
                case .real(let real): encoder.encodeRaw(.real(real), forKey: key)
                case .real32(let real): encoder.encodeRaw(.real32(real), forKey: key)
                case .bool(let flag): encoder.encodeRaw(.bool(flag), forKey: key)
                default: try encoder.encode(field, forKey: key)
                }
            }
        case .cycle(let index):
            throw KeyedArchiveError(.unsupportedValue, at: [], object: index, "a value tree cannot encode a cycle")
        }
    }

    private static func encode(_ value: ArchivedNSValue, to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        switch value {
        case .range(let location, let length):
            encoder.encode(Int64(4), forKey: "NS.special")
            try encoder.encode(ArchivedValue.integer(PropertyListInteger(location)), forKey: "NS.rangeval.location")
            try encoder.encode(ArchivedValue.integer(PropertyListInteger(length)), forKey: "NS.rangeval.length")
        case .geometry(let geometry, let text):
            let (kind, key): (Int64, String) =
                switch geometry {
                case .point: (1, "NS.pointval")
                case .size: (2, "NS.sizeval")
                case .rect: (3, "NS.rectval")
                case .range: (4, "")
                }
            if case .range(let range) = geometry {
                return try encode(.range(location: Int64(range.location), length: Int64(range.length)), to: &encoder)
            }
            encoder.encode(kind, forKey: "NS.special")
            try encoder.encode(text, forKey: key)
        case .edgeInsets(let top, let left, let bottom, let right):
            encoder.encode(Int64(12), forKey: "NS.special")
            encoder.encode(top, forKey: "NS.edgeval.top")
            encoder.encode(left, forKey: "NS.edgeval.left")
            encoder.encode(bottom, forKey: "NS.edgeval.bottom")
            encoder.encode(right, forKey: "NS.edgeval.right")
        case .cArray:
            throw KeyedArchiveError(.unsupportedValue, at: [], "writing a C-array NSValue is not supported")
        }
    }
}

extension ArchivedValue {
    /// `NSRangeCount`, then `NSLocation`/`NSLength` or `NSRangeData` (LEB128 pairs).
    fileprivate static func encode(_ set: FoundationIndexSet, to encoder: inout KeyedArchiveEncoder) {
        encoder.encode(set.ranges.count, forKey: "NSRangeCount")
        if set.ranges.count == 1 {
            encoder.encode(set.ranges[0].location, forKey: "NSLocation")
            encoder.encode(set.ranges[0].length, forKey: "NSLength")
        } else if set.ranges.count > 1 {
            var bytes: [UInt8] = []
            for range in set.ranges {
                appendLEB128(UInt64(range.location), to: &bytes)
                appendLEB128(UInt64(range.length), to: &bytes)
            }
            encoder.encodeRaw(.data(Data(bytes)), forKey: "NSRangeData")
        }
    }

    /// `NSString`, and `NSAttributes` (a dictionary for one run, else an array with `NSAttributeInfo`).
    fileprivate static func encode(_ text: AttributedText<ArchivedValue>, to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        try encoder.encode(text.string, forKey: "NSString")
        guard text.runs.count > 1 else {
            try encoder.encode(ArchivedValue.dictionary(text.runs.first?.attributes ?? []), forKey: "NSAttributes")
            return
        }
        var dictionaries: [[ArchivedDictionaryEntry]] = []
        var info: [UInt8] = []
        for run in text.runs {
            let index = dictionaries.firstIndex(of: run.attributes) ?? dictionaries.count
            if index == dictionaries.count { dictionaries.append(run.attributes) }
            appendLEB128(UInt64(max(0, run.range.length)), to: &info)
            appendLEB128(UInt64(index), to: &info)
        }
        try encoder.encodeReferences(dictionaries.map(ArchivedValue.dictionary), forKey: "NSAttributes")
        try encoder.encode(Data(info), forKey: "NSAttributeInfo")
    }

    /// `NSColorSpace` and the space's fields, or UIColor's keys.
    fileprivate static func encode(_ color: FoundationColor, to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        func ascii(_ numbers: [Double]) -> Data { Data((numbers.map(FoundationText.number).joined(separator: " ").utf8) + [0]) }
        let spaceNumbers: [FoundationColor.Space: Int64] = [
            .calibratedRGB: 1, .deviceRGB: 2, .calibratedWhite: 3, .deviceWhite: 4, .deviceCMYK: 5, .named: 6,
        ]
        switch color.space {
        case .uikitSystem: try encoder.encode(color.name, forKey: "UISystemColorName")
        case .uikitRGB, .uikitWhite:
            let keys = color.space == .uikitRGB ? ["UIRed", "UIGreen", "UIBlue", "UIAlpha"] : ["UIWhite", "UIAlpha"]
            for (key, value) in zip(keys, color.components) { encoder.encode(value, forKey: key) }
        case .pattern:
            throw KeyedArchiveError(.unsupportedValue, at: [], "writing a pattern colour is not supported: its image is not kept")
        default:
            encoder.encode(spaceNumbers[color.space] ?? 0, forKey: "NSColorSpace")
            switch color.space {
            case .named:
                try encoder.encode(color.catalog, forKey: "NSCatalogName")
                try encoder.encode(color.name, forKey: "NSColorName")
            case .deviceCMYK: encoder.encodeRaw(.data(ascii(color.components)), forKey: "NSCMYK")
            case .calibratedWhite, .deviceWhite: encoder.encodeRaw(.data(ascii(color.components)), forKey: "NSWhite")
            default: encoder.encodeRaw(.data(ascii(color.components)), forKey: "NSRGB")
            }
        }
    }

    /// Each unit's `NS.…` key, `NSDateComponentUndefined` (`Int64.max`) for the unset ones, as Foundation writes them.
    fileprivate static func encode(_ components: FoundationDateComponents, to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        let keys: [FoundationDateComponents.Unit: String] = [
            .era: "NS.era", .year: "NS.year", .yearForWeekOfYear: "NS.yearForWOY", .quarter: "NS.quarter", .month: "NS.month",
            .weekOfYear: "NS.weekOfYear", .weekOfMonth: "NS.weekOfMonth", .weekday: "NS.weekday", .weekdayOrdinal: "NS.weekdayOrdinal",
            .day: "NS.day", .hour: "NS.hour", .minute: "NS.minute", .second: "NS.second", .nanosecond: "NS.nanosec",
        ]
        for unit in FoundationDateComponents.Unit.allCases {
            encoder.encode(components.values[unit] ?? Int64.max, forKey: keys[unit] ?? unit.rawValue)
        }
        if let isLeapMonth = components.isLeapMonth { encoder.encode(isLeapMonth, forKey: "NS.isLeapMonth") }
        try encoder.encode(components.timeZone.map { ArchivedValue.timeZone($0) }, forKey: "NS.timezone")
    }

    private static func appendLEB128(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        repeat {
            let low = UInt8(rest & 0x7F)
            rest >>= 7
            bytes.append(rest == 0 ? low : low | 0x80)
        } while rest != 0
    }
}
