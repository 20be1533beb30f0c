/// Why bytes do not read as a layer (compressed data, a protocol buffer),
/// saying where: the byte offset in the layer's own bytes.
public struct DataLayerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: one of the static members, compared with `==` or
    /// matched in a `switch` (which needs a `default:`, as codes may be added
    /// in later versions without breaking callers).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Wrapped: Hashable, Sendable {
            case truncated, corrupt, trailingBytes, sizeLimit, depthLimit, fieldLimit
        }

        fileprivate var wrapped: Wrapped

        fileprivate init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The bytes end before the layer does.
        public static var truncated: Self { Self(.truncated) }
        /// The bytes are not what the layer's format allows here.
        public static var corrupt: Self { Self(.corrupt) }
        /// Bytes follow the end of the layer.
        public static var trailingBytes: Self { Self(.trailingBytes) }
        /// The layer would inflate past the size allowed.
        public static var sizeLimit: Self { Self(.sizeLimit) }
        /// Messages nest more deeply than allowed.
        public static var depthLimit: Self { Self(.depthLimit) }
        /// More fields than allowed.
        public static var fieldLimit: Self { Self(.fieldLimit) }

        /// The code's name, stable across versions.
        public var description: String {
            switch wrapped {
            case .truncated: "truncated"
            case .corrupt: "corrupt"
            case .trailingBytes: "trailingBytes"
            case .sizeLimit: "sizeLimit"
            case .depthLimit: "depthLimit"
            case .fieldLimit: "fieldLimit"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The byte offset in the layer's bytes where it went wrong.
    public var offset: Int
    /// A sentence for people (without the offset; `description` adds it).
    public var message: String

    /// Makes an error.
    public init(_ code: Code, offset: Int, _ message: String) {
        self.code = code
        self.offset = offset
        self.message = message
    }

    /// The message and the offset, for people.
    public var description: String { "\(message) (at byte \(offset))" }

    /// Whether the error is a limit reached (size, depth, fields) rather than bytes that are not the layer:
    /// a reader trying a layer falls back to raw bytes only for the others.
    public var isLimit: Bool { code == .sizeLimit || code == .depthLimit || code == .fieldLimit }
}
