import SystemPackage
import SystemSupport

/// Why a coordinated access did not happen, saying which item.
public struct FileCoordinationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: one of the static members, compared with `==` or
    /// matched in a `switch` (which needs a `default:`, as codes may be added
    /// in later versions without breaking callers).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case timedOut
            case cancelled
            case unavailable
            case presenterRefused
            case watchFailed
        }

        private var wrapped: Wrapped

        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// Another reader or writer kept the item past the timeout, or a
        /// presenter did not answer within it.
        public static var timedOut: Self { Self(.timedOut) }
        /// The coordinator was cancelled while it waited.
        public static var cancelled: Self { Self(.cancelled) }
        /// The item cannot be coordinated: its folder is not there, or the
        /// machine-wide lock directory cannot be used.
        public static var unavailable: Self { Self(.unavailable) }
        /// A presenter asked to save or to let go of the item failed to.
        public static var presenterRefused: Self { Self(.presenterRefused) }
        /// A presenter cannot watch the item's folder for changes.
        public static var watchFailed: Self { Self(.watchFailed) }

        /// The code's name, stable across versions: `timedOut`.
        public var description: String {
            switch wrapped {
            case .timedOut: "timedOut"
            case .cancelled: "cancelled"
            case .unavailable: "unavailable"
            case .presenterRefused: "presenterRefused"
            case .watchFailed: "watchFailed"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The item's path, as the caller gave it, byte for byte.
    public var path: FilePath {
        get { RawFileName.filePath(pathText) }
        set { pathText = RawFileName.text(newValue) }
    }
    /// `path` as the text the message shows (bytes that are not UTF-8
    /// carried as `RawFileName` carries them).
    package var pathText: String
    /// What happened, for people.
    public var message: String

    /// Makes an error about the item at `path`.
    public init(_ code: Code, path: FilePath, _ message: String) {
        self.init(code, pathText: RawFileName.text(path), message)
    }

    /// Makes an error about the item at `pathText`, a path held as the
    /// kit's text, for the kit's own callers.
    package init(_ code: Code, pathText: String, _ message: String) {
        self.code = code
        self.pathText = pathText
        self.message = message
    }

    /// `PATH: message`.
    public var description: String { "\(pathText): \(message)" }
}
