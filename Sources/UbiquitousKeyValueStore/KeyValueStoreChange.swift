import SystemPackage
import SystemSupport

/// A change of the store that did not come from this store's own `set` or
/// `remove`: what `NSUbiquitousKeyValueStore.didChangeExternallyNotification`
/// tells, with its reason and the keys whose value changed.
public struct KeyValueStoreChange: Hashable, Sendable {
    /// Why the store changed, with Apple's values
    /// (`NSUbiquitousKeyValueStoreServerChange` …).
    public enum Reason: Int, Hashable, Sendable, CaseIterable {
        /// Another device's change arrived (or another process's on this
        /// device): the keys are those whose merged value changed.
        case serverChange = 0
        /// This device, which had values of its own, saw another device's
        /// for the first time: the keys are those whose value changed.
        case initialSyncChange = 1
        /// A change was refused: it would have passed a limit. The key is the
        /// one refused; nothing else changed.
        case quotaViolationChange = 2
        /// The identity the container's engine syncs as changed: the keys
        /// are those whose value changed with it.
        case accountChange = 3

        /// The reason's name, as `ict` prints it: `serverChange`.
        public var name: String {
            switch self {
            case .serverChange: "serverChange"
            case .initialSyncChange: "initialSyncChange"
            case .quotaViolationChange: "quotaViolationChange"
            case .accountChange: "accountChange"
            }
        }
    }

    /// Why.
    public var reason: Reason
    /// The keys whose value changed (for a quota violation, the key refused), sorted.
    public var changedKeys: [String]

    /// Makes a change.
    public init(reason: Reason, changedKeys: [String]) {
        self.reason = reason
        self.changedKeys = changedKeys
    }
}

/// A device's file the store could not read, skipped until it changes: its
/// values as last read (if ever) still count, so nothing is lost.
public struct KeyValueStoreWarning: Hashable, Sendable, CustomStringConvertible {
    /// The file, as the kit's text for a path (each byte that is not UTF-8
    /// as U+10FF00 + byte).
    package var pathText: String
    /// What is wrong with it, and where.
    public var message: String

    /// Makes a warning about the file named by the kit's text for a path.
    package init(path: String, message: String) {
        self.pathText = path
        self.message = message
    }

    /// Makes a warning.
    public init(path: FilePath, message: String) {
        self.init(path: RawFileName.text(path), message: message)
    }

    /// The file.
    public var path: FilePath {
        get { RawFileName.filePath(pathText) }
        set { pathText = RawFileName.text(newValue) }
    }

    /// `PATH: message`.
    public var description: String { "\(pathText): \(message)" }
}
