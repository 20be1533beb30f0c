// What the fields UIKit's `UIColor`, `UIFont` and `UIFontDescriptor` archive
// mean, written once for every reader that meets them: KeyedArchive's decoder
// (a keyed archive) and NIBArchive's (a compiled nib). Each reader finds a
// field and reads it as a number or string its own way, and makes its own
// error, saying where; what the fields make is decided here.

/// A value read from an archive's field, as the readings of UIKit's classes
/// here look at it: a string, a number, an array or a dictionary (of values
/// of the same type), or something else (each accessor nil).
public protocol ArchivedFieldValue: Hashable, Sendable {
    /// The text, for a string; nil otherwise.
    var fieldString: String? { get }
    /// The number, for an integer (of 64 bits) or a real; nil otherwise.
    var fieldNumber: Double? { get }
    /// The integer, for an integer of 64 bits; nil otherwise.
    var fieldInteger: Int64? { get }
    /// The elements, for an array; nil otherwise.
    var fieldElements: [Self]? { get }
    /// The entries in stored order, for a dictionary; nil otherwise.
    var fieldEntries: [FoundationEntry<Self>]? { get }
}

extension FoundationColor {
    /// The keys whose presence says a `UIColor` is in UIKit's own form
    /// (``init(uikitFields:string:fail:)``), rather than AppKit's `NSColorSpace`.
    public static let uikitKeys = ["UISystemColorName", "UIRed", "UIWhite"]

    /// A `UIColor` read from its UIKit fields: `UISystemColorName` (a
    /// system colour by name); else `UIRed`, `UIGreen`, `UIBlue`; else
    /// `UIWhite`; with `UIAlpha` (1 when absent). Each component is read
    /// from `key-Double` when there is one (the 64-bit value, which UIKit
    /// writes beside the 32-bit one under `key` when the two differ).
    /// `UIColorComponentCount` only repeats what the keys present say, and
    /// is not read. nil when none of ``uikitKeys`` is there.
    ///
    /// - Parameters:
    ///   - number: the field under a key read as a number; nil when absent.
    ///   - string: the field under a key read as a string; nil when absent or nil.
    ///   - fail: the reader's error for what is wrong, given as a phrase after
    ///     the class name (`has UIRed but not UIGreen and UIBlue`).
    /// - Throws: what `number` and `string` throw; `fail`'s error for a red
    ///   without a green and a blue.
    public init?<Failure: Error>(
        uikitFields number: (String) throws(Failure) -> Double?, string: (String) throws(Failure) -> String?,
        fail: (String) -> Failure
    ) throws(Failure) {
        func component(_ key: String) throws(Failure) -> Double? {
            if let double = try number(key + "-Double") { return double }
            return try number(key)
        }
        if let name = try string("UISystemColorName") {
            self.init(space: .uikitSystem, components: [], name: name)
            return
        }
        let alpha = try component("UIAlpha") ?? 1
        if let red = try component("UIRed") {
            guard let green = try component("UIGreen"), let blue = try component("UIBlue") else {
                throw fail("has UIRed but not UIGreen and UIBlue")
            }
            self.init(space: .uikitRGB, components: [red, green, blue, alpha])
            return
        }
        guard let white = try component("UIWhite") else { return nil }
        self.init(space: .uikitWhite, components: [white, alpha])
    }
}

extension FoundationFont {
    /// A `UIFont` read from its UIKit fields: `UIFontPointSize`, and
    /// `UIFontName` (the descriptor's name when absent). The fields that
    /// say how it scales with Dynamic Type (`UIFontTextStyleForScaling`,
    /// `UIFontPointSizeForScaling`, …), `UIFontTraits` and `UISystemFont` are
    /// not read; they stay in each reader's lossless form.
    ///
    /// - Parameters:
    ///   - number: the field under a key read as a number; nil when absent.
    ///   - string: the field under a key read as a string; nil when absent or nil.
    ///   - descriptor: the font's `UIFontDescriptor`, read by the caller, or nil.
    ///   - fail: the reader's error for what is wrong, as for `FoundationColor`.
    /// - Throws: what `number` and `string` throw; `fail`'s error when there is no `UIFontPointSize`.
    public init<Failure: Error>(
        uikitFields number: (String) throws(Failure) -> Double?, string: (String) throws(Failure) -> String?,
        descriptor: FoundationFontDescriptor?, fail: (String) -> Failure
    ) throws(Failure) {
        guard let size = try number("UIFontPointSize") else { throw fail("has no UIFontPointSize") }
        self.init(name: try string("UIFontName") ?? descriptor?.name, size: size, descriptor: descriptor)
    }
}

extension FoundationFontDescriptor {
    /// The keys a font descriptor's attributes dictionary is archived under: UIKit's, then AppKit's.
    public static let archivedAttributesKeys = ["UIFontDescriptorAttributes", "NSFontDescriptorAttributes"]

    /// A descriptor read from its archived attributes dictionary (`entries`,
    /// found under `key`, one of ``archivedAttributesKeys``): the attributes
    /// Core Text names read into fields, the names of the others kept in order.
    ///
    /// - Throws: `fail`'s error, given a phrase after the descriptor's name
    ///   (`has a UIFontDescriptorAttributes.NSFontSizeAttribute that is not a
    ///   size of zero or more points`), for a key that is not a string or an
    ///   attribute Core Text names whose value is not of its type.
    public init<Value: ArchivedFieldValue, Failure: Error>(
        archivedAttributes entries: [FoundationEntry<Value>], key: String, fail: (String) -> Failure
    ) throws(Failure) {
        self.init()
        for entry in entries {
            guard let name = entry.key.fieldString else { throw fail("has a key in \(key) that is not a string") }
            func text() throws(Failure) -> String {
                guard let value = entry.value.fieldString else { throw fail("has a \(key).\(name) that is not a string") }
                return value
            }
            switch name {
            case "NSFontNameAttribute": self.name = try text()
            case "NSFontFamilyAttribute": family = try text()
            case "NSFontFaceAttribute": face = try text()
            case "NSCTFontUIUsageAttribute": usage = try text()
            case "NSFontSizeAttribute":
                guard let size = entry.value.fieldNumber, size.isFinite, size >= 0 else {
                    throw fail("has a \(key).\(name) that is not a size of zero or more points")
                }
                self.size = size
            case "NSCTFontFeatureSettingsAttribute":
                guard let settings = entry.value.fieldElements else { throw fail("has a \(key).\(name) that is not an array") }
                for (position, setting) in settings.enumerated() {
                    guard let pairs = setting.fieldEntries else { throw fail("has a \(key).\(name)[\(position)] that is not a dictionary") }
                    func value(_ key: String) -> Value? { pairs.first { $0.key.fieldString == key }?.value }
                    if let type = value("CTFeatureTypeIdentifier")?.fieldInteger, let selector = value("CTFeatureSelectorIdentifier")?.fieldInteger {
                        features.append(.aat(type: type, selector: selector))
                    } else if let tag = value("CTFeatureOpenTypeTag")?.fieldString, let number = value("CTFeatureOpenTypeValue")?.fieldInteger {
                        features.append(.openType(tag: tag, value: number))
                    } else {
                        throw fail(
                            "has a \(key).\(name)[\(position)] without CTFeatureTypeIdentifier and CTFeatureSelectorIdentifier integers "
                                + "(or CTFeatureOpenTypeTag and CTFeatureOpenTypeValue)")
                    }
                }
            default: otherAttributeNames.append(name)
            }
        }
    }
}

extension FoundationObject: ArchivedFieldValue {
    /// The text of a string.
    public var fieldString: String? { if case .string(let text) = self { text } else { nil } }

    /// The value of an integer or real number.
    public var fieldNumber: Double? {
        switch self {
        case .number(.integer(let value)): Double(value)
        case .number(.real(let value)): value
        default: nil
        }
    }

    /// The value of an integer number.
    public var fieldInteger: Int64? { if case .number(.integer(let value)) = self { value } else { nil } }

    /// The elements of an array.
    public var fieldElements: [FoundationObject]? { if case .array(let elements) = self { elements } else { nil } }

    /// The entries of a dictionary.
    public var fieldEntries: [FoundationDictionaryEntry]? { if case .dictionary(let entries) = self { entries } else { nil } }
}
