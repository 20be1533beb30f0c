/// A key that a dictionary of an XML property list holds more than once.
///
/// CoreFoundation (and so Foundation and Apple's `plutil`) keeps the last
/// value of a key written twice, as Python's `plistlib` does and as
/// `XMLPropertyListReader` does; the earlier values are lost without a word.
/// `XMLPropertyListReader.duplicateKeys(in:)` finds them, for a warning.
public struct XMLDuplicateKey: Hashable, Sendable {
    /// The key path of the value kept: the dictionary's path and the key.
    public var keyPath: PropertyListKeyPath
    /// The line of the first `<key>` with this text in the dictionary.
    public var firstLine: Int
    /// The line of this later `<key>`, whose value is the one kept when it is the last.
    public var line: Int

    /// Makes a finding.
    public init(keyPath: PropertyListKeyPath, firstLine: Int, line: Int) {
        self.keyPath = keyPath
        self.firstLine = firstLine
        self.line = line
    }
}

extension XMLPropertyListReader {
    /// Each `<key>` that repeats an earlier key of the same dictionary, in
    /// document order, with the lines of both.
    ///
    /// Reads `bytes` again as a stream (prepared as `read(_:)` prepares them),
    /// in memory that grows with the keys of the open dictionaries; empty for
    /// input that is not a well-formed XML document.
    public static func duplicateKeys(in bytes: UnsafeRawBufferPointer) -> [XMLDuplicateKey] {
        let finder = XMLDuplicateKeyFinder()
        guard let input = try? XMLParserInput(bytes) else { return [] }
        let parsed = input.withBytes(of: bytes) { _, parserBytes, options in
            (try? XMLEventParser.parse(parserBytes, options: options, handler: finder)) != nil
        }
        return parsed ? finder.duplicates : []
    }
}

/// Walks an XML property list's elements, keeping each open dictionary's
/// keys with the line each was first seen on.
private final class XMLDuplicateKeyFinder: XMLEventHandler {
    private enum Frame {
        case dictionary(path: [PropertyListPathComponent], key: String?)
        case array(path: [PropertyListPathComponent], count: Int)
        /// A value that holds no values (string, integer, …), or `<plist>`.
        case leaf
        /// A `<key>` whose text is being read, and its line.
        case key(line: Int)
    }

    private(set) var duplicates: [XMLDuplicateKey] = []
    private var frames: [Frame] = []
    /// The keys of each open dictionary with the line each was first seen
    /// on, innermost last (apart from `frames`, so adding one copies nothing).
    private var keyLines: [[String: Int]] = []
    private var keyText: [UInt8] = []
    private var sawRoot = false

    func startElement(_ element: XMLElementStart) throws(PropertyListError) {
        if frames.isEmpty, !sawRoot, element.localNameIs("plist") {
            sawRoot = true
            frames.append(.leaf)
            return
        }
        if element.localNameIs("key"), case .dictionary = frames.last {
            keyText = []
            frames.append(.key(line: element.line))
            return
        }
        var path: [PropertyListPathComponent] = []
        switch frames.last {
        case .dictionary(let parent, let key)?: path = parent + [.key(key ?? "")]
        case .array(let parent, let count)?: path = parent + [.index(count)]
        case .leaf?, .key?, nil: break
        }
        if element.localNameIs("dict") {
            frames.append(.dictionary(path: path, key: nil))
            keyLines.append([:])
        } else if element.localNameIs("array") {
            frames.append(.array(path: path, count: 0))
        } else {
            frames.append(.leaf)
        }
    }

    func endElement() throws(PropertyListError) {
        guard let ended = frames.popLast() else { return }
        if case .dictionary = ended { keyLines.removeLast() }
        switch (ended, frames.last) {
        case (.key(let line), .dictionary(let path, _)?):
            let key = String(decoding: keyText, as: UTF8.self)
            if let firstLine = keyLines[keyLines.count - 1][key] {
                duplicates.append(XMLDuplicateKey(keyPath: PropertyListKeyPath(path + [.key(key)]), firstLine: firstLine, line: line))
            } else {
                keyLines[keyLines.count - 1][key] = line
            }
            frames[frames.count - 1] = .dictionary(path: path, key: key)
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
