/// A colour (`NSColor`, `UIColor`): its colour space and components.
///
/// `NSColor` archives say their space by number (`NSColorSpace` in a keyed
/// archive, the first field in a typed stream); `UIColor` archives by which
/// keys they hold (`UIRed`/`UIGreen`/`UIBlue`/`UIAlpha`, `UIWhite`,
/// `UISystemColorName`).
public struct FoundationColor: Hashable, Sendable, CustomStringConvertible {
    /// The colour space a colour's components are in.
    public enum Space: String, Hashable, Sendable, CaseIterable {
        /// `NSColorSpace` 1, calibrated (generic) RGB: red, green, blue, alpha.
        case calibratedRGB
        /// `NSColorSpace` 2, device RGB: red, green, blue, alpha.
        case deviceRGB
        /// `NSColorSpace` 3, calibrated white: white, alpha.
        case calibratedWhite
        /// `NSColorSpace` 4, device white: white, alpha.
        case deviceWhite
        /// `NSColorSpace` 5, device CMYK: cyan, magenta, yellow, black, alpha.
        case deviceCMYK
        /// `NSColorSpace` 6, a named colour from a catalog; ``FoundationColor/catalog`` and ``FoundationColor/name`` say which.
        case named
        /// `NSColorSpace` 10, a pattern: an image (`NSImage`) and no
        /// components, as AppKit archives `colorWithPatternImage:`.
        case pattern
        /// `UIColor`'s `UIRed`, `UIGreen`, `UIBlue`, `UIAlpha` (extended sRGB).
        case uikitRGB
        /// `UIColor`'s `UIWhite`, `UIAlpha` (extended grey).
        case uikitWhite
        /// `UIColor`'s `UISystemColorName`: a system colour by name (``FoundationColor/name``).
        case uikitSystem

        /// The space an `NSColorSpace` number stands for; nil for a number Apple does not write.
        public init?(archivedNumber: Int64) {
            switch archivedNumber {
            case 1: self = .calibratedRGB
            case 2: self = .deviceRGB
            case 3: self = .calibratedWhite
            case 4: self = .deviceWhite
            case 5: self = .deviceCMYK
            case 6: self = .named
            case 10: self = .pattern
            default: return nil
            }
        }

        /// How many components a colour in this space has, alpha included; nil where it varies or there are none.
        public var componentCount: Int? {
            switch self {
            case .calibratedRGB, .deviceRGB, .uikitRGB: 4
            case .calibratedWhite, .deviceWhite, .uikitWhite: 2
            case .deviceCMYK: 5
            case .named, .pattern, .uikitSystem: nil
            }
        }

        /// The components' names in order: `red green blue alpha`.
        var componentNames: [String] {
            switch self {
            case .calibratedRGB, .deviceRGB, .uikitRGB: ["red", "green", "blue", "alpha"]
            case .calibratedWhite, .deviceWhite, .uikitWhite: ["white", "alpha"]
            case .deviceCMYK: ["cyan", "magenta", "yellow", "black", "alpha"]
            case .named, .pattern, .uikitSystem: []
            }
        }
    }

    /// The colour space.
    public var space: Space
    /// The components in the space's order, alpha last; empty for a named, pattern or system colour.
    public var components: [Double]
    /// A named colour's catalog (`System`).
    public var catalog: String?
    /// A named colour's name (`controlColor`), or a UIKit system colour's (`systemBlueColor`).
    public var name: String?
    /// The ICC profile of the colour's own colour space (`NSCustomColorSpace`'s
    /// `NSICC`), when archived: AppKit writes one beside the components of
    /// some RGB, grey and CMYK colours (a profile named "Generic Gray Gamma
    /// 2.2 Profile", say).
    public var iccProfile: [UInt8]?

    /// Makes a colour.
    public init(space: Space, components: [Double], catalog: String? = nil, name: String? = nil, iccProfile: [UInt8]? = nil) {
        self.space = space
        self.components = components
        self.catalog = catalog
        self.name = name
        self.iccProfile = iccProfile
    }

    /// The colour for people: `calibratedRGB(red 0.5, green 0.25, blue 0, alpha 1)`,
    /// `named(System controlColor)`, `pattern`.
    public var description: String {
        switch space {
        case .named: return "named(\([catalog, name].compactMap { $0 }.joined(separator: " ")))"
        case .uikitSystem: return "uikitSystem(\(name ?? ""))"
        case .pattern: return "pattern"
        default:
            let names = space.componentNames
            let parts = components.enumerated().map { index, value in
                (index < names.count ? names[index] + " " : "") + FoundationText.number(value)
            }
            return "\(space.rawValue)(\(parts.joined(separator: ", ")))"
        }
    }

    /// The numbers of an `NSRGB`, `NSWhite`, `NSCYMK` or `NSComponents`
    /// field: ASCII decimals separated by spaces, perhaps ended by a NUL
    /// (`"0.5 0.25 0\0"`). nil when a word is not a finite number.
    public static func archivedComponents(_ bytes: some Collection<UInt8>) -> [Double]? {
        var numbers: [Double] = []
        var word: [UInt8] = []
        func flush() -> Bool {
            defer { word.removeAll(keepingCapacity: true) }
            guard !word.isEmpty else { return true }
            guard word.count <= 64, let number = Double(String(decoding: word, as: UTF8.self)), number.isFinite else { return false }
            numbers.append(number)
            return true
        }
        for byte in bytes {
            switch byte {
            case 0: return flush() ? numbers : nil
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"): guard flush() else { return nil }
            default: word.append(byte)
            }
        }
        return flush() ? numbers : nil
    }
}
