/// An error reading a typed stream, saying what went wrong and where: the
/// byte offset in the stream at which the bad value starts.
public struct TypedStreamError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: one of the static members, compared with `==` or
    /// matched in a `switch` (which needs a `default:`, as codes may be added
    /// in later versions without breaking callers).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case notATypedStream
            case unsupportedVersion
            case truncated
            case invalidTag
            case invalidTypeEncoding
            case danglingReference
            case wrongReferenceKind
            case invalidValue
            case cycle
            case limitExceeded
            case notText
            case keyPathNotFound
        }

        private var wrapped: Wrapped

        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The header is not `streamtyped` or `typedstream` after the
        /// streamer version.
        public static var notATypedStream: Self { Self(.notATypedStream) }
        /// The streamer version is not 4, the one every Mac OS X release wrote.
        public static var unsupportedVersion: Self { Self(.unsupportedVersion) }
        /// The stream ends inside a value.
        public static var truncated: Self { Self(.truncated) }
        /// A head byte is a tag that cannot stand where it does.
        public static var invalidTag: Self { Self(.invalidTag) }
        /// A type encoding string is empty, unbalanced or names an unknown type.
        public static var invalidTypeEncoding: Self { Self(.invalidTypeEncoding) }
        /// A reference number points past the objects or strings read so far.
        public static var danglingReference: Self { Self(.danglingReference) }
        /// A reference points at a class where an object belongs, or the like.
        public static var wrongReferenceKind: Self { Self(.wrongReferenceKind) }
        /// A value is not what its type or its class needs (a boolean of 2,
        /// an `NSString` without its bytes, text that is not UTF-8).
        public static var invalidValue: Self { Self(.invalidValue) }
        /// An object holds itself where a value cannot (decoding a cycle).
        public static var cycle: Self { Self(.cycle) }
        /// A limit of ``TypedStreamLimits`` was reached; the message names it.
        public static var limitExceeded: Self { Self(.limitExceeded) }
        /// The stream's root is not a string or attributed string, so it has no text.
        public static var notText: Self { Self(.notText) }
        /// A key path names a field, element or object that is not there.
        public static var keyPathNotFound: Self { Self(.keyPathNotFound) }

        /// The code's name, stable across versions: `truncated`, `cycle`.
        public var description: String {
            switch wrapped {
            case .notATypedStream: "notATypedStream"
            case .unsupportedVersion: "unsupportedVersion"
            case .truncated: "truncated"
            case .invalidTag: "invalidTag"
            case .invalidTypeEncoding: "invalidTypeEncoding"
            case .danglingReference: "danglingReference"
            case .wrongReferenceKind: "wrongReferenceKind"
            case .invalidValue: "invalidValue"
            case .cycle: "cycle"
            case .limitExceeded: "limitExceeded"
            case .notText: "notText"
            case .keyPathNotFound: "keyPathNotFound"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The byte offset, from the stream's first byte, where the bad value starts.
    public var byteOffset: Int
    /// A sentence saying what was found.
    public var message: String

    /// Makes an error.
    public init(_ code: Code, at byteOffset: Int, _ message: String) {
        self.code = code
        self.byteOffset = byteOffset
        self.message = message
    }

    /// "byte offset 17: …".
    public var description: String { "byte offset \(byteOffset): \(message)" }
}

/// How much a typed stream may hold before reading it stops with
/// ``TypedStreamError/Code/limitExceeded``, so that a hostile input cannot
/// exhaust the stack or memory.
public struct TypedStreamLimits: Hashable, Sendable {
    /// How deeply values may nest: objects inside objects, structs, arrays
    /// and the type encodings that describe them. Stops stack overflows.
    public var maximumDepth: Int
    /// How many values (of any type, each array element counting) the
    /// stream may hold. Stops a short input that claims a vast array of
    /// zero-sized elements.
    public var maximumValueCount: Int

    /// Makes a set of limits.
    public init(maximumDepth: Int = 512, maximumValueCount: Int = 10_000_000) {
        self.maximumDepth = maximumDepth
        self.maximumValueCount = maximumValueCount
    }

    /// The defaults: 512 levels deep, ten million values.
    public static let `default` = TypedStreamLimits()
}
