import SystemPackage
import SystemSupport

/// An error of the key-value store, saying where: the store's file or folder,
/// and the key when one is concerned.
public struct KeyValueStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: one of the static members, compared with `==` or
    /// matched in a `switch` (which needs a `default:`, as codes may be added
    /// in later versions without breaking callers).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case quotaViolation, noContainer, unreadable, io
        }

        private var wrapped: Wrapped

        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// A change would pass one of the store's limits (1,024 keys, 64 bytes
        /// a key, 1 MB in all): it was refused, and nothing else changed.
        public static var quotaViolation: Self { Self(.quotaViolation) }
        /// The container has no identity to write as (its engine is not set
        /// up on this device), as Apple's store has no iCloud account.
        public static var noContainer: Self { Self(.noContainer) }
        /// A device's file is not a store file: truncated, corrupt, a link,
        /// a folder, or written by a newer version.
        public static var unreadable: Self { Self(.unreadable) }
        /// A file-system call failed, or the lock on this device's file was not had.
        public static var io: Self { Self(.io) }

        /// The code's name, stable across versions: `quotaViolation`.
        public var description: String {
            switch wrapped {
            case .quotaViolation: "quotaViolation"
            case .noContainer: "noContainer"
            case .unreadable: "unreadable"
            case .io: "io"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The file or folder the error is about, byte for byte.
    public var path: FilePath {
        get { RawFileName.filePath(pathText) }
        set { pathText = RawFileName.text(newValue) }
    }
    /// `path` as the text the message shows (bytes that are not UTF-8
    /// carried as `RawFileName` carries them).
    package var pathText: String
    /// The key concerned; empty for none.
    public var key: String
    /// What happened, for people.
    public var message: String

    /// Makes an error about the file or folder at `path`.
    public init(_ code: Code, path: FilePath, key: String = "", _ message: String) {
        self.init(code, pathText: RawFileName.text(path), key: key, message)
    }

    /// Makes an error about the file or folder at `pathText`, a path held
    /// as the kit's text, for the kit's own callers.
    package init(_ code: Code, pathText: String, key: String = "", _ message: String) {
        self.code = code
        self.pathText = pathText
        self.key = key
        self.message = message
    }

    /// `PATH[ (at KEY)]: message`.
    public var description: String { "\(pathText)\(key.isEmpty ? "" : " (at \(key))"): \(message)" }
}
