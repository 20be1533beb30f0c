#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds where in a property list's bytes the values at some key paths
/// stand, for messages about values found after reading (an Info.plist's
/// type declarations, say). Reads the input again; meant for the few paths
/// of a problem report, not for every value.
public enum PropertyListLocator {
    /// The place of the value at each of `keyPaths` (in the same order):
    /// in a binary property list its object's byte offset, in an XML one
    /// the line of its start tag and the column of that line's first tag.
    /// For a path whose value is absent, the place of the deepest value on
    /// the way to it. `.none` for OpenStep and JSON text, and for input
    /// that cannot be read.
    public static func locations(of keyPaths: [PropertyListKeyPath], in bytes: UnsafeRawBufferPointer) -> [PropertyListLocation] {
        switch PropertyListFormat.detect(bytes) {
        case .binary:
            guard let document = try? BinaryPropertyListDocument(data: Data(bytes)) else {
                return keyPaths.map { _ in .none }
            }
            return keyPaths.map { keyPath in
                (try? document.offset(of: keyPath)).map(PropertyListLocation.byteOffset) ?? .none
            }
        case .xml:
            let finder = XMLValueLineFinder(wanted: keyPaths)
            // Parsed as the reader parses it, so raw control characters in text do not stop it.
            guard let input = try? XMLParserInput(bytes),
                input.withBytes(of: bytes, { _, parserBytes, options in (try? XMLEventParser.parse(parserBytes, options: options, handler: finder)) != nil })
            else { return keyPaths.map { _ in .none } }
            return keyPaths.map { keyPath in
                // The deepest path on the way to `keyPath` whose value was seen.
                for count in stride(from: keyPath.components.count, through: 0, by: -1) {
                    if let line = finder.lines[Array(keyPath.components.prefix(count))] {
                        return .lineColumn(line: line, column: firstTagColumn(onLine: line, in: bytes))
                    }
                }
                return .none
            }
        case .openStep, .json:
            return keyPaths.map { _ in .none }
        }
    }

    /// The 1-based column (in Unicode scalars) of the first `<` on `line`, else 1.
    private static func firstTagColumn(onLine line: Int, in bytes: UnsafeRawBufferPointer) -> Int {
        var currentLine = 1
        var index = 0
        while currentLine < line, index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") { currentLine += 1 }
            index += 1
        }
        var column = 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "<"), bytes[index] != UInt8(ascii: "\n") {
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return index < bytes.count && bytes[index] == UInt8(ascii: "<") ? column : 1
    }
}

/// Walks an XML property list's elements, keeping the key path of each
/// value, and notes the line of every value on the way to a wanted path.
private final class XMLValueLineFinder: XMLEventHandler {
    private enum Frame {
        case dictionary(path: [PropertyListPathComponent], key: String?)
        case array(path: [PropertyListPathComponent], count: Int)
        /// A value that holds no values (string, integer, …), or `<plist>`.
        case leaf
        /// A `<key>` whose text is being read.
        case key
    }

    /// The prefixes of the wanted paths.
    private let prefixes: Set<[PropertyListPathComponent]>
    private(set) var lines: [[PropertyListPathComponent]: Int] = [:]
    private var frames: [Frame] = []
    private var keyText: [UInt8] = []
    private var sawRoot = false

    init(wanted: [PropertyListKeyPath]) {
        var prefixes = Set<[PropertyListPathComponent]>()
        for keyPath in wanted {
            for count in 0...keyPath.components.count { prefixes.insert(Array(keyPath.components.prefix(count))) }
        }
        self.prefixes = prefixes
    }

    func startElement(_ element: XMLElementStart) throws(PropertyListError) {
        if frames.isEmpty, !sawRoot, element.localNameIs("plist") {
            sawRoot = true
            frames.append(.leaf)
            return
        }
        if element.localNameIs("key"), case .dictionary = frames.last {
            keyText = []
            frames.append(.key)
            return
        }
        // A value: its path is its container's plus its key or index.
        var path: [PropertyListPathComponent] = []
        switch frames.last {
        case .dictionary(let parent, let key)?: path = parent + [.key(key ?? "")]
        case .array(let parent, let count)?: path = parent + [.index(count)]
        case .leaf?, .key?, nil: break
        }
        if prefixes.contains(path), lines[path] == nil { lines[path] = element.line }
        if element.localNameIs("dict") {
            frames.append(.dictionary(path: path, key: nil))
        } else if element.localNameIs("array") {
            frames.append(.array(path: path, count: 0))
        } else {
            frames.append(.leaf)
        }
    }

    func endElement() throws(PropertyListError) {
        guard let ended = frames.popLast() else { return }
        switch (ended, frames.last) {
        case (.key, .dictionary(let path, _)?):
            frames[frames.count - 1] = .dictionary(path: path, key: String(decoding: keyText, as: UTF8.self))
        case (_, .array(let path, let count)?):
            frames[frames.count - 1] = .array(path: path, count: count + 1)
        default:
            break
        }
    }

    func text(_ utf8: UnsafeBufferPointer<UInt8>) {
        if case .key = frames.last { keyText.append(contentsOf: utf8) }
    }
}
