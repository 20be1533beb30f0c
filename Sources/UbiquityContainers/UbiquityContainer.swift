/// A ubiquity container: a folder a sync engine keeps the same on several
/// devices, named by an identifier as an app names its iCloud container
/// (`iCloud.com.example.Notes`). Documents go in its `Documents/` folder, as
/// Apple's convention has them (what `NSMetadataQueryUbiquitousDocumentsScope`
/// searches).
public struct UbiquityContainer: Hashable, Sendable {
    /// The sync engine that keeps a container's folder.
    public enum Engine: Hashable, Sendable {
        /// Any folder sync (Nextcloud's client, rclone bisync, Dropbox, …):
        /// the folder alone, with no per-item sync status.
        case folder
        /// Syncthing, whose REST API gives each item's status: `home` is the
        /// folder holding its `config.xml` (nil: its default,
        /// `$XDG_STATE_HOME/syncthing` or `~/.local/state/syncthing`), and
        /// `folderID` the Syncthing folder that holds the container (nil:
        /// the one whose path it is).
        case syncthing(home: String?, folderID: String?)

        /// The engine's name in the configuration file: `folder`, `syncthing`.
        public var name: String {
            switch self {
            case .folder: "folder"
            case .syncthing: "syncthing"
            }
        }
    }

    /// The identifier, `iCloud.com.example.Notes`; for the folder given by
    /// `ICT_UBIQUITY_CONTAINER`, the folder's path.
    public var identifier: String
    /// The container's folder, an absolute path.
    public var folder: String
    /// The engine that keeps it.
    public var engine: Engine
    /// The engine's REST address when given (Syncthing: else read from its `config.xml`).
    public var engineAddress: String?
    /// The engine's API key when given (Syncthing: else read from its `config.xml`).
    public var engineAPIKey: String?

    /// Makes a container.
    public init(identifier: String, folder: String, engine: Engine = .folder, engineAddress: String? = nil, engineAPIKey: String? = nil) {
        self.identifier = identifier
        self.folder = folder
        self.engine = engine
        self.engineAddress = engineAddress
        self.engineAPIKey = engineAPIKey
    }

    /// The folder documents go in, `FOLDER/Documents`.
    public var documentsFolder: String { folder == "/" ? "/Documents" : folder + "/Documents" }

    /// Whether `path` (absolute, without `.` or `..` steps) is the
    /// container's folder or inside it. Reads nothing.
    public func contains(_ path: String) -> Bool {
        let folder = folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return path == folder || path.hasPrefix(folder == "/" ? "/" : folder + "/")
    }
}
