import SystemPackage
import SystemSupport

/// An error finding, configuring or moving into or out of a ubiquity
/// container, saying where: the configuration file and the place in it, or
/// the item's path.
public struct UbiquityContainerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: one of the static members, compared with `==` or
    /// matched in a `switch` (which needs a `default:`, as codes may be added
    /// in later versions without breaking callers).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case configuration, notConfigured, notInContainer, alreadyInContainer, alreadyExists, notFound, unsupported, io, engine
        }

        private var wrapped: Wrapped

        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The configuration file cannot be read, or says something that is
        /// not a container (the message says where in it).
        public static var configuration: Self { Self(.configuration) }
        /// No container is configured under the identifier asked for.
        public static var notConfigured: Self { Self(.notConfigured) }
        /// The item is not inside a container, where it must be.
        public static var notInContainer: Self { Self(.notInContainer) }
        /// The item is inside a container, where it must not be.
        public static var alreadyInContainer: Self { Self(.alreadyInContainer) }
        /// Something is already at the destination; it is never replaced.
        public static var alreadyExists: Self { Self(.alreadyExists) }
        /// The item is not there.
        public static var notFound: Self { Self(.notFound) }
        /// The container's sync engine cannot do what was asked (say, evict a
        /// local copy: a folder sync keeps whole copies on every device).
        public static var unsupported: Self { Self(.unsupported) }
        /// A file-system call failed.
        public static var io: Self { Self(.io) }
        /// The sync engine cannot be asked: stopped, unreachable, too slow,
        /// refusing the key, or answering what its API does not give.
        public static var engine: Self { Self(.engine) }

        /// The code's name, stable across versions: `notConfigured`.
        public var description: String {
            switch wrapped {
            case .configuration: "configuration"
            case .notConfigured: "notConfigured"
            case .notInContainer: "notInContainer"
            case .alreadyInContainer: "alreadyInContainer"
            case .alreadyExists: "alreadyExists"
            case .notFound: "notFound"
            case .unsupported: "unsupported"
            case .io: "io"
            case .engine: "engine"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The file the error is about: the configuration file, or the item;
    /// byte for byte.
    public var path: FilePath {
        get { RawFileName.filePath(pathText) }
        set { pathText = RawFileName.text(newValue) }
    }
    /// `path` as the text the message shows (bytes that are not UTF-8
    /// carried as `RawFileName` carries them).
    package var pathText: String
    /// Where in the configuration file (`Containers.ID.Path`, or a line and
    /// column for a file that does not parse); empty for an item.
    public var place: String
    /// What happened, for people.
    public var message: String

    /// Makes an error about the file at `path`.
    public init(_ code: Code, path: FilePath, place: String = "", _ message: String) {
        self.init(code, pathText: RawFileName.text(path), place: place, message)
    }

    /// Makes an error about the file at `pathText`, a path held as the
    /// kit's text, for the kit's own callers.
    package init(_ code: Code, pathText: String, place: String = "", _ message: String) {
        self.code = code
        self.pathText = pathText
        self.place = place
        self.message = message
    }

    /// `PATH[ (at PLACE)]: message`.
    public var description: String { "\(pathText)\(place.isEmpty ? "" : " (at \(place))"): \(message)" }
}
