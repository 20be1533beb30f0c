/// A format that is not a property list but sits beside property lists in
/// nib bundles and Xcode projects, recognised from a file's first bytes so
/// that a reader can say what the file is instead of where it fails to
/// parse as a property list.
public enum NonPropertyListFormat: Hashable, Sendable, CustomStringConvertible {
    /// A compiled nib in Apple's `NIBArchive` format (iOS and modern macOS
    /// nibs), by its `NIBArchive` magic.
    case nibArchive
    /// An `NSArchiver` typed stream (the `objects.nib` of old nib bundles),
    /// by its header `\u{4}\u{B}streamtyped` (little-endian) or `\u{4}\u{B}typedstream`.
    case typedStream
    /// A PNG image, by its signature.
    case png
    /// Interface Builder's XML source of a nib or storyboard (`designable.nib`,
    /// `.xib`): root element `<document>`, or `<archive>` for Interface Builder 3.
    case interfaceBuilderDocument(rootElement: String)
    /// An Xcode scheme (`.xcscheme`): root element `<Scheme>`.
    case xcodeScheme
    /// An Xcode workspace's contents (`contents.xcworkspacedata`): root element `<Workspace>`.
    case xcodeWorkspace
    /// An Xcode breakpoint list (`.xcbkptlist`): root element `<Bucket>`.
    case xcodeBreakpointList

    /// The format and where its telling mark is (a root element's line and
    /// column), or nil when `bytes` do not start as one of these formats.
    /// Reads at most the first 4096 bytes.
    public static func detect(_ bytes: UnsafeRawBufferPointer) -> (format: NonPropertyListFormat, location: PropertyListLocation)? {
        let head = bytes.prefix(4096)
        if head.starts(with: "NIBArchive".utf8) { return (.nibArchive, .byteOffset(0)) }
        if head.starts(with: [0x04, 0x0B] + Array("streamtyped".utf8)) || head.starts(with: [0x04, 0x0B] + Array("typedstream".utf8)) {
            return (.typedStream, .byteOffset(0))
        }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return (.png, .byteOffset(0)) }
        guard let root = XMLRootElementScanner.rootElement(in: UnsafeRawBufferPointer(rebasing: head)),
            let format = NonPropertyListFormat(rootElement: root.name)
        else { return nil }
        return (format, .lineColumn(line: root.line, column: root.column))
    }

    /// The format whose XML documents have the root element `name`, if one of these.
    init?(rootElement name: String) {
        switch name {
        case "document", "archive": self = .interfaceBuilderDocument(rootElement: name)
        case "Scheme": self = .xcodeScheme
        case "Workspace": self = .xcodeWorkspace
        case "Bucket": self = .xcodeBreakpointList
        default: return nil
        }
    }

    /// The format named for a message: "an Xcode scheme (<Scheme>)".
    public var description: String {
        switch self {
        case .nibArchive: "a NIBArchive file (a compiled nib)"
        case .typedStream: "an NSArchiver typed stream"
        case .png: "a PNG image"
        case .interfaceBuilderDocument(let root): "an Interface Builder XML document (<\(root)>)"
        case .xcodeScheme: "an Xcode scheme (<Scheme>)"
        case .xcodeWorkspace: "an Xcode workspace (<Workspace>)"
        case .xcodeBreakpointList: "an Xcode breakpoint list (<Bucket>)"
        }
    }

    /// The error a property-list reader throws for such a file: kind
    /// `.unrecognizedFormat`, "an Xcode scheme (<Scheme>), not a property list".
    public func error(at location: PropertyListLocation) -> PropertyListError {
        PropertyListError(.unrecognizedFormat, at: location, "\(self), not a property list")
    }
}

/// Finds the root element's name in the start of a UTF-8 XML document,
/// skipping a byte order mark, white space, the XML declaration, processing
/// instructions, comments and the document type declaration.
private enum XMLRootElementScanner {
    static func rootElement(in bytes: UnsafeRawBufferPointer) -> (name: String, line: Int, column: Int)? {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 1
        var lineStart = index
        func skip(past terminator: String) -> Bool {
            let pattern = Array(terminator.utf8)
            while index < bytes.count {
                if bytes[index] == 0x0A { line += 1; lineStart = index + 1 }
                if bytes[index...].starts(with: pattern) { index += pattern.count; return true }
                index += 1
            }
            return false
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A { line += 1; index += 1; lineStart = index; continue }
            if byte == 0x20 || byte == 0x09 || byte == 0x0D { index += 1; continue }
            guard byte == UInt8(ascii: "<"), index + 1 < bytes.count else { return nil }
            let rest = bytes[index...]
            if rest.starts(with: "<?".utf8) {
                guard skip(past: "?>") else { return nil }
            } else if rest.starts(with: "<!--".utf8) {
                guard skip(past: "-->") else { return nil }
            } else if rest.starts(with: "<!".utf8) {
                guard skip(past: ">") else { return nil }  // A DOCTYPE with an internal subset is not one of these.
            } else {
                let nameStart = index + 1
                var nameEnd = nameStart
                while nameEnd < bytes.count, ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(bytes[nameEnd]) {
                    nameEnd += 1
                }
                guard nameEnd < bytes.count, nameEnd > nameStart else { return nil }
                let name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
                return (name, line, index - lineStart + 1)
            }
        }
        return nil
    }
}
