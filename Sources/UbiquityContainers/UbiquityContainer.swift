import SystemPackage
import SystemSupport

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
    /// The container's folder, an absolute path, as the kit's text for a path
    /// (each byte that is not UTF-8 as U+10FF00 + byte).
    package var folderText: String
    /// The engine that keeps it.
    public var engine: Engine
    /// The engine's REST address when given (Syncthing: else read from its `config.xml`).
    public var engineAddress: String?
    /// The engine's API key when given (Syncthing: else read from its `config.xml`).
    public var engineAPIKey: String?

    /// Makes a container whose folder is named by the kit's text for a path.
    package init(identifier: String, folder: String, engine: Engine = .folder, engineAddress: String? = nil, engineAPIKey: String? = nil) {
        self.identifier = identifier
        self.folderText = folder
        self.engine = engine
        self.engineAddress = engineAddress
        self.engineAPIKey = engineAPIKey
    }

    /// `documentsFolder` as the kit's text for a path.
    package var documentsFolderText: String { folderText == "/" ? "/Documents" : folderText + "/Documents" }

    /// `contains(_:)` for the kit's text for a path.
    package func contains(_ path: String) -> Bool {
        PathName.isInside(path, folder: folderText)
    }

    /// Makes a container.
    public init(identifier: String, folder: FilePath, engine: Engine = .folder, engineAddress: String? = nil, engineAPIKey: String? = nil) {
        self.init(
            identifier: identifier, folder: RawFileName.text(folder), engine: engine,
            engineAddress: engineAddress, engineAPIKey: engineAPIKey)
    }

    /// The container's folder, an absolute path.
    public var folder: FilePath {
        get { RawFileName.filePath(folderText) }
        set { folderText = RawFileName.text(newValue) }
    }

    /// The folder documents go in, `FOLDER/Documents`.
    public var documentsFolder: FilePath { RawFileName.filePath(documentsFolderText) }

    /// Whether `path` (absolute, without `.` or `..` steps) is the
    /// container's folder or inside it. Reads nothing.
    public func contains(_ path: FilePath) -> Bool {
        contains(RawFileName.text(path))
    }
}
