import SystemPackage
import SystemSupport

/// A limit a `NIBArchiveReader` or a `NibObjectGraph` enforces, named when it is hit.
public enum NIBArchiveLimit: String, Hashable, Sendable {
    /// `NIBArchiveLimits.maximumInputSize`.
    case inputSize
    /// `NIBArchiveLimits.maximumCount`.
    case count
    /// `NIBArchiveLimits.maximumDepth`.
    case depth
}

/// The limits a reader of untrusted nibs keeps: the size of the input, the
/// count of each table (objects, keys, values, class names), and the depth
/// of a graph walk.
public struct NIBArchiveLimits: Hashable, Sendable {
    /// The largest input read, in bytes (default 256 MiB).
    public var maximumInputSize: Int
    /// The most entries any one table may declare (default 4 Mi).
    public var maximumCount: Int
    /// How deep references may nest when the graph is shown as a tree (default 512).
    public var maximumDepth: Int

    /// Limits with the given values.
    public init(maximumInputSize: Int = 256 << 20, maximumCount: Int = 4 << 20, maximumDepth: Int = 512) {
        self.maximumInputSize = maximumInputSize
        self.maximumCount = maximumCount
        self.maximumDepth = maximumDepth
    }

    /// The defaults.
    public static let `default` = NIBArchiveLimits()
}

/// An error reading a compiled nib, saying where: the byte offset in the
/// file (and the file inside a nib folder) at which the problem was found.
public struct NIBArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case notANibArchive, truncated, invalidHeader, invalidVarint, invalidIndex, invalidValueType
            case invalidString, invalidObject, invalidKeyedArchive, notAKeyedNib, keyPathNotFound, limitExceeded(NIBArchiveLimit), io
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The input does not start with the `NIBArchive` magic.
        public static var notANibArchive: Self { Self(.notANibArchive) }
        /// The input ends inside a header, table or value.
        public static var truncated: Self { Self(.truncated) }
        /// A count or offset in the header does not fit the input, or a table does not end where the next begins.
        public static var invalidHeader: Self { Self(.invalidHeader) }
        /// A variable-length integer runs past five bytes (more than 32 bits).
        public static var invalidVarint: Self { Self(.invalidVarint) }
        /// An index (class name, key, value range, object reference) is out of range.
        public static var invalidIndex: Self { Self(.invalidIndex) }
        /// A value's type byte is none of the eleven known types.
        public static var invalidValueType: Self { Self(.invalidValueType) }
        /// A key or class name is not UTF-8, or a class name lacks its terminating zero byte.
        public static var invalidString: Self { Self(.invalidString) }
        /// An object of a class decoded by name (`UIColor`, `UIFont`) lacks a field it needs or holds one of the
        /// wrong type; the message names the object and the key.
        public static var invalidObject: Self { Self(.invalidObject) }
        /// A `keyedobjects.nib` is not a readable keyed archive (the message is `KeyedArchiveError`'s).
        public static var invalidKeyedArchive: Self { Self(.invalidKeyedArchive) }
        /// A keyed archive is no keyed nib (no `IB.objectdata` and no `UINibTopLevelObjectsKey` under `$top`), or refers outside `$objects`.
        public static var notAKeyedNib: Self { Self(.notAKeyedNib) }
        /// A key path names no object or value of the graph.
        public static var keyPathNotFound: Self { Self(.keyPathNotFound) }
        /// A limit of `NIBArchiveLimits` was hit.
        public static func limitExceeded(_ limit: NIBArchiveLimit) -> Self { Self(.limitExceeded(limit)) }
        /// The file or folder could not be read.
        public static var io: Self { Self(.io) }

        /// The code's name, `truncated`, `limitExceeded(depth)`.
        public var description: String {
            switch value {
            case .limitExceeded(let limit): "limitExceeded(\(limit.rawValue))"
            default: "\(value)"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The byte offset in the file at which it was found; nil for an error about a whole file or folder.
    public var byteOffset: Int?
    /// The file, for a nib folder's member or a file read by path; nil for bytes read from memory.
    public var path: FilePath? {
        get { pathText.map { RawFileName.filePath($0) } }
        set { pathText = newValue.map(RawFileName.text) }
    }
    /// `path` as text for the message (bytes that are not UTF-8 carried as `RawFileName` carries them).
    package var pathText: String?
    /// A sentence for people.
    public var message: String

    /// An error with `code` at `byteOffset` in the file at `path`.
    public init(_ code: Code, at byteOffset: Int?, path: FilePath? = nil, _ message: String) {
        self.init(code, at: byteOffset, pathText: path.map(RawFileName.text), message)
    }

    /// An error with `code` at `byteOffset` in the file whose path, as text, is `pathText`.
    package init(_ code: Code, at byteOffset: Int?, pathText: String?, _ message: String) {
        self.code = code
        self.byteOffset = byteOffset
        self.pathText = pathText
        self.message = message
    }

    /// `path: byte 12: message`, with the parts that are known.
    public var description: String {
        var parts: [String] = []
        if let pathText { parts.append(pathText) }
        if let byteOffset { parts.append("byte \(byteOffset)") }
        parts.append(message)
        return parts.joined(separator: ": ")
    }
}
