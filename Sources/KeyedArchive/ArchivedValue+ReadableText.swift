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
    /// Cost: walks the value until the text is `readableTextLimit` bytes
    /// long; a longer one ends there with `…` (an object shared many times
    /// over, as a hostile archive can make, is not written out exponentially).
    public var readableText: String {
        var text = ""
        write(to: &text)
        return text
    }

    /// The UTF-8 length past which `readableText` stops writing elements.
    public static let readableTextLimit = 4096

    /// Appends the value's readable text to `text`.
    private func write(to text: inout String) {
        switch self {
        case .null: text += "$null"
        case .nsNull: text += "NSNull"
        case .string(let string): text += FoundationText.quoted(string)
        case .data(let data): text += "<\(data.count) bytes>"
        case .integer(let integer): text += integer.description
        case .real(let real): text += FoundationText.number(real)
        case .real32(let real): text += FoundationText.number(Double(real))
        case .bool(let flag): text += flag ? "true" : "false"
        case .date(let date): text += date.description
        case .url(let relative, let base): text += FoundationURL(string: relative, base: base).absoluteString
        case .uuid(let uuid): text += uuid.uuidString
        case .array(let elements): Self.write(elements, open: "(", close: ")", to: &text)
        case .set(let elements): Self.write(elements, open: "set (", close: ")", to: &text)
        case .orderedSet(let elements): Self.write(elements, open: "ordered set (", close: ")", to: &text)
        case .dictionary(let entries): Self.write(entries, to: &text)
        case .nsValue(.cArray(let objCType, let elements)): Self.write(elements, open: "\(objCType) (", close: ")", to: &text)
        case .nsValue(let value): text += value.readableText
        case .indexSet(let set): text += set.description
        case .attributedString(let attributed):
            text += FoundationText.quoted(attributed.string)
            for (position, run) in attributed.runs.enumerated() {
                guard text.utf8.count < Self.readableTextLimit else {
                    text += " …"
                    return
                }
                text += (position == 0 ? " " : "; ") + run.range.description + " "
                Self.write(run.attributes, to: &text)
            }
        case .color(let color): text += color.description
        case .font(let font): text += font.description
        case .dateComponents(let components): text += components.description
        case .locale(let locale): text += locale.description
        case .timeZone(let zone): text += zone.description
        case .error(let error):
            text += error.summary
            if !error.userInfo.isEmpty {
                text += " UserInfo="
                Self.write(error.userInfo, to: &text)
            }
        case .object(let object): text += "\(object.classDescription.name) #\(object.index) (\(object.fields.count) fields)"
        case .cycle(let index): text += "#\(index) (cycle)"
        }
    }

    private static func write(_ elements: [ArchivedValue], open: String, close: String, to text: inout String) {
        text += open
        for (position, element) in elements.enumerated() {
            guard text.utf8.count < readableTextLimit else {
                text += "…"
                break
            }
            if position > 0 { text += ", " }
            element.write(to: &text)
        }
        text += close
    }

    private static func write(_ entries: [ArchivedDictionaryEntry], to text: inout String) {
        text += "{"
        for (position, entry) in entries.enumerated() {
            guard text.utf8.count < readableTextLimit else {
                text += "…"
                break
            }
            if position > 0 { text += "; " }
            entry.key.write(to: &text)
            text += " = "
            entry.value.write(to: &text)
        }
        text += "}"
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
