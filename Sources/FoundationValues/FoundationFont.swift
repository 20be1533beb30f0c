/// A font (`NSFont`, `UIFont`): its name and point size, and its descriptor when archived.
public struct FoundationFont: Hashable, Sendable, CustomStringConvertible {
    /// The PostScript name (`NSName`, `UIFontName`), when the archive's form of it was read (nil otherwise).
    public var name: String?
    /// The size in points (`NSSize`, `UIFontPointSize`).
    public var size: Double
    /// `NSFont`'s `NSfFlags`, when archived: AppKit's private flag bits, kept as they are.
    public var flags: Int64?
    /// The font's descriptor (`NSDescriptor`, `UIFontDescriptor`), when archived and read.
    public var descriptor: FoundationFontDescriptor?

    /// Makes a font.
    public init(name: String?, size: Double, flags: Int64? = nil, descriptor: FoundationFontDescriptor? = nil) {
        self.name = name
        self.size = size
        self.flags = flags
        self.descriptor = descriptor
    }

    /// `"Menlo-Regular" 11 pt`, followed by what the descriptor adds
    /// (`".SFNS-Bold" 11 pt, usage CTFontEmphasizedUsage`).
    public var description: String {
        let font = (name.map { FoundationText.quoted($0) + " " } ?? "") + FoundationText.number(size) + " pt"
        guard let details = descriptor?.details, !details.isEmpty else { return font }
        return font + ", " + details
    }
}

/// A font descriptor as `UIFontDescriptor` (and macOS's `NSFontDescriptor`,
/// archived under that name) archives it: the `UIFontDescriptorAttributes`
/// dictionary, with the attributes Core Text names read into fields.
public struct FoundationFontDescriptor: Hashable, Sendable {
    /// `NSFontNameAttribute`: the PostScript name.
    public var name: String?
    /// `NSFontFamilyAttribute`.
    public var family: String?
    /// `NSFontFaceAttribute`.
    public var face: String?
    /// `NSFontSizeAttribute`, in points.
    public var size: Double?
    /// `NSCTFontUIUsageAttribute`: the system font's usage (`CTFontEmphasizedUsage`)
    /// or, on iOS, the text style (`UICTFontTextStyleBody`).
    public var usage: String?
    /// `NSCTFontFeatureSettingsAttribute`: each feature setting, in order.
    public var features: [Feature]
    /// The names of the other attributes, in the file's order (their values
    /// are kept in the archive's lossless JSON form, not here).
    public var otherAttributeNames: [String]

    /// A font feature setting.
    public enum Feature: Hashable, Sendable, CustomStringConvertible {
        /// An AAT feature: `CTFeatureTypeIdentifier` and `CTFeatureSelectorIdentifier`
        /// (type 6, selector 0: monospaced numbers).
        case aat(type: Int64, selector: Int64)
        /// An OpenType feature: `CTFeatureOpenTypeTag` (`"smcp"`) and `CTFeatureOpenTypeValue`.
        case openType(tag: String, value: Int64)

        /// `6:0` for an AAT feature, `smcp=1` for an OpenType one.
        public var description: String {
            switch self {
            case .aat(let type, let selector): "\(type):\(selector)"
            case .openType(let tag, let value): "\(tag)=\(value)"
            }
        }
    }

    /// Makes a descriptor.
    public init(
        name: String? = nil, family: String? = nil, face: String? = nil, size: Double? = nil, usage: String? = nil,
        features: [Feature] = [], otherAttributeNames: [String] = []
    ) {
        self.name = name
        self.family = family
        self.face = face
        self.size = size
        self.usage = usage
        self.features = features
        self.otherAttributeNames = otherAttributeNames
    }

    /// `family "Helvetica Neue", usage CTFontEmphasizedUsage, features 6:0`: the fields a font's name and size do not already say.
    var details: String {
        var parts: [String] = []
        if let family { parts.append("family " + FoundationText.quoted(family)) }
        if let face { parts.append("face " + FoundationText.quoted(face)) }
        if let usage { parts.append("usage " + usage) }
        if !features.isEmpty { parts.append("features " + features.map(\.description).joined(separator: " ")) }
        return parts.joined(separator: ", ")
    }
}
