/// A font (`NSFont`, `UIFont`): its name and point size.
public struct FoundationFont: Hashable, Sendable, CustomStringConvertible {
    /// The PostScript name (`NSName`, `UIFontName`), when the archive's form of it was read (nil otherwise).
    public var name: String?
    /// The size in points (`NSSize`, `UIFontPointSize`).
    public var size: Double
    /// `NSFont`'s `NSfFlags`, when archived: AppKit's private flag bits, kept as they are.
    public var flags: Int64?

    /// Makes a font.
    public init(name: String?, size: Double, flags: Int64? = nil) {
        self.name = name
        self.size = size
        self.flags = flags
    }

    /// `"Menlo-Regular" 11 pt`.
    public var description: String {
        (name.map { FoundationText.quoted($0) + " " } ?? "") + FoundationText.number(size) + " pt"
    }
}
