#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ArchivedValue {
    /// The value on one line for people, as `ict inspect` and `ict get` show
    /// it: a UUID as a UUID, a URL as its absolute string, a rect as
    /// `NSStringFromRect` writes it (`{{0, 0}, {10, 10}}`), a colour as its
    /// space and components, a font as its name and size, an attributed
    /// string as its text and runs, collections with their elements so written.
    ///
    /// Cost: walks the whole value.
    public var readableText: String {
        switch self {
        case .null: "$null"
        case .nsNull: "NSNull"
        case .string(let text): FoundationText.quoted(text)
        case .data(let data): "<\(data.count) bytes>"
        case .integer(let integer): integer.description
        case .real(let real): FoundationText.number(real)
        case .real32(let real): FoundationText.number(Double(real))
        case .bool(let flag): flag ? "true" : "false"
        case .date(let date): date.description
        case .url(let relative, let base): FoundationURL(string: relative, base: base).absoluteString
        case .uuid(let uuid): uuid.uuidString
        case .array(let elements): "(\(elements.map(\.readableText).joined(separator: ", ")))"
        case .set(let elements): "set (\(elements.map(\.readableText).joined(separator: ", ")))"
        case .orderedSet(let elements): "ordered set (\(elements.map(\.readableText).joined(separator: ", ")))"
        case .dictionary(let entries): Self.readable(entries)
        case .nsValue(let value): value.readableText
        case .indexSet(let set): set.description
        case .attributedString(let text):
            FoundationText.quoted(text.string)
                + text.runs.map { run in " \(run.range) \(Self.readable(run.attributes))" }.joined(separator: ";")
        case .color(let color): color.description
        case .font(let font): font.description
        case .dateComponents(let components): components.description
        case .locale(let locale): locale.description
        case .timeZone(let zone): zone.description
        case .error(let error): error.summary + (error.userInfo.isEmpty ? "" : " UserInfo=" + Self.readable(error.userInfo))
        case .object(let object): "\(object.classDescription.name) #\(object.index) (\(object.fields.count) fields)"
        case .cycle(let index): "#\(index) (cycle)"
        }
    }

    /// Whether the value is one of Foundation's, AppKit's or UIKit's values
    /// that reads best as its `readableText` rather than as its archived
    /// fields: a URL, UUID, `NSValue`, index set, attributed string, colour,
    /// font, date components, locale, time zone, error, date or `NSNull`.
    /// Collections and other objects are better shown field by field.
    public var isReadableValue: Bool {
        switch self {
        case .url, .uuid, .nsValue, .indexSet, .attributedString, .color, .font, .dateComponents, .locale, .timeZone, .error, .date,
            .nsNull:
            true
        default: false
        }
    }

    private static func readable(_ entries: [ArchivedDictionaryEntry]) -> String {
        "{" + entries.map { "\($0.key.readableText) = \($0.value.readableText)" }.joined(separator: "; ") + "}"
    }
}

extension ArchivedNSValue {
    /// `{3, 7}` for a range, `NSStringFromRect`'s form for a rect (`{{0, 0}, {10, 10}}`), `{top, left, bottom, right}`
    /// for edge insets (as `NSStringFromUIEdgeInsets`), `[3i] (1, 2, 3)` for a C array.
    public var readableText: String {
        switch self {
        case .range(let location, let length): "{\(location), \(length)}"
        case .geometry(let geometry, _): geometry.description
        case .edgeInsets(let top, let left, let bottom, let right):
            "{\([top, left, bottom, right].map(FoundationText.number).joined(separator: ", "))}"
        case .cArray(let objCType, let elements): "\(objCType) (\(elements.map(\.readableText).joined(separator: ", ")))"
        }
    }
}

extension KeyedArchiveObjectGraph {
    /// The object at `index` decoded, when it is one of the values that read
    /// best as text (`ArchivedValue.isReadableValue`: a UUID, URL, rect,
    /// colour, font, attributed string, …); nil for collections, other
    /// classes, and objects that do not decode (their fields then say what
    /// is there).
    ///
    /// Cost: looks up the object's class; for one of those classes, decodes
    /// the object and what it refers to, with no allow-list and `limits`' depth.
    public func readableValue(ofObjectAt index: Int, limits: KeyedArchiveLimits = .default) -> ArchivedValue? {
        guard index > 0, index < objects.count, case .instance(let instance) = object(at: index) else { return nil }
        let description = instance.classDescription
        guard
            Self.readableClassNames.contains(description.name)
                || description.chain.contains(where: ArchivedValueDecoder.privateSubclassedNames.contains)
        else { return nil }
        var decoder = ArchivedValueDecoder(archive: self, allowedClassNames: nil, maximumDepth: limits.maximumDepth)
        guard let value = try? decoder.decodeField(.uid(UInt64(index)), path: [], depth: 0), value.isReadableValue else { return nil }
        return value
    }

    /// The classes whose values `ArchivedValue.isReadableValue` holds for.
    private static let readableClassNames: Set<String> = [
        "NSURL", "NSUUID", "NSValue", "NSIndexSet", "NSMutableIndexSet", "NSAttributedString", "NSMutableAttributedString", "NSColor",
        "UIColor", "NSFont", "UIFont", "NSDateComponents", "NSLocale", "NSTimeZone", "NSError", "NSDate", "NSNull",
    ]
}
