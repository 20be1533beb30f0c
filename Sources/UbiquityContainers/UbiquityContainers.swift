import FileCoordination
import PackageFormat
import SystemPackage
import SystemSupport

/// The ubiquity containers of this process: those configured once for the
/// user (`UbiquityContainerConfiguration`, read from `configurationPath`)
/// and, for one process, the folder `ICT_UBIQUITY_CONTAINER` names, which is
/// then the default container (what a nil identifier means). The meaning of
/// `FileManager`'s ubiquity calls, over folders a sync engine keeps.
public struct UbiquityContainers: Sendable {
    /// The variable naming one process's default container folder.
    public static let environmentVariable = "ICT_UBIQUITY_CONTAINER"

    /// Where the configuration is read, as the kit's text for a path (each
    /// byte that is not UTF-8 as U+10FF00 + byte); nil for none.
    package var configurationPathText: String?
    /// The folder standing as this process's default container, as the
    /// kit's text for a path; nil for none.
    package var environmentFolderText: String?

    /// The containers the configuration at `configurationPath` and the
    /// folder `environmentFolder` make.
    public init(configurationPath: FilePath?, environmentFolder: FilePath?) {
        self.init(
            configurationPath: configurationPath.map { RawFileName.text($0) },
            environmentFolder: environmentFolder.map { RawFileName.text($0) })
    }

    /// `init(configurationPath:environmentFolder:)` with the kit's text for paths.
    package init(configurationPath: String?, environmentFolder: String?) {
        self.configurationPathText = configurationPath
        self.environmentFolderText = environmentFolder.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Where the configuration is read; nil for none.
    public var configurationPath: FilePath? {
        get { configurationPathText.map(RawFileName.filePath) }
        set { configurationPathText = newValue.map { RawFileName.text($0) } }
    }

    /// The folder standing as this process's default container; nil for none.
    public var environmentFolder: FilePath? {
        get { environmentFolderText.map(RawFileName.filePath) }
        set { environmentFolderText = newValue.map { RawFileName.text($0) }.flatMap { $0.isEmpty ? nil : $0 } }
    }

    /// This process's containers: the user's configuration
    /// (`UbiquityContainerConfiguration.defaultPath`) and `ICT_UBIQUITY_CONTAINER`.
    public static var current: UbiquityContainers {
        UbiquityContainers(
            configurationPath: UbiquityContainerConfiguration.defaultPathText, environmentFolder: Environment.value(environmentVariable))
    }

    /// The configured containers (none without a configuration file).
    ///
    /// - Throws: `UbiquityContainerError` `.configuration` as
    ///   `UbiquityContainerConfiguration.read(from:)`. Reads the file each call.
    public func configuration() throws(UbiquityContainerError) -> UbiquityContainerConfiguration {
        guard let configurationPathText else { return UbiquityContainerConfiguration() }
        return try UbiquityContainerConfiguration.read(from: configurationPathText)
    }

    /// The container named `identifier`; for nil, `ICT_UBIQUITY_CONTAINER`'s
    /// folder, else the configured default. Nil when there is none, as
    /// Apple's `url(forUbiquityContainerIdentifier:)` is nil when iCloud is off.
    ///
    /// - Throws: `UbiquityContainerError` `.configuration` when the
    ///   configuration cannot be read.
    public func container(identifier: String?) throws(UbiquityContainerError) -> UbiquityContainer? {
        if identifier == nil, let environmentFolder = environmentFolderText {
            return UbiquityContainer(identifier: environmentFolder, folder: Self.resolvedFolder(environmentFolder))
        }
        return try configuration().container(identifier: identifier)
    }

    /// Every container: `ICT_UBIQUITY_CONTAINER`'s first, then the configured ones.
    ///
    /// - Throws: as `configuration()`.
    public func all() throws(UbiquityContainerError) -> [UbiquityContainer] {
        let configured = try configuration().containers.map { container in
            var resolved = container
            resolved.folderText = Self.resolvedFolder(container.folderText)
            return resolved
        }
        guard let environmentFolder = environmentFolderText else { return configured }
        return [UbiquityContainer(identifier: environmentFolder, folder: Self.resolvedFolder(environmentFolder))] + configured
    }

    /// The container whose folder holds `path` (a link in the path's folders
    /// resolved), nil for none.
    ///
    /// - Throws: as `configuration()`.
    package func container(containing path: String) throws(UbiquityContainerError) -> UbiquityContainer? {
        let item = Self.canonical(path)
        return try all().first { $0.contains(item) }
    }

    /// Whether `path` is in a container (Apple's `isUbiquitousItem(at:)`);
    /// false when the configuration cannot be read.
    package func isUbiquitousItem(_ path: String) -> Bool {
        ((try? container(containing: path)) ?? nil) != nil
    }

    // MARK: Identity

    /// An opaque text standing for the identity the container's engine syncs
    /// as: the same while it is the same (Syncthing: its device key and
    /// certificate; a plain folder: the folder itself), another once it
    /// changes; nil when the engine has no identity here (Syncthing's home
    /// not found), as Apple's token is nil when iCloud is off. Reads the
    /// engine's certificate or the folder's status.
    public static func identityToken(of container: UbiquityContainer) -> String? {
        switch container.engine {
        case .folder:
            guard let info = try? FileInfo.of(path: container.folderText) else { return nil }
            return "folder-" + hash(Array(container.folderText.utf8) + Array("\(info.device)-\(info.inode)".utf8))
        case .syncthing(let home, _):
            for folder in home.map({ [$0] }) ?? syncthingHomes() {
                guard let file = try? OpenFile(path: folder + "/cert.pem"), let bytes = try? file.readToEnd(limit: 1 << 20) else { continue }
                return "syncthing-" + hash(bytes)
            }
            return nil
        }
    }

    /// Where Syncthing keeps its `config.xml` and keys when its home is not
    /// given: `$XDG_STATE_HOME/syncthing` (Syncthing 1.27 and later), then
    /// `$XDG_CONFIG_HOME/syncthing` (earlier ones, Debian's 1.19), each
    /// under `~/.local/state` and `~/.config` when the variable is unset.
    static func syncthingHomes() -> [String] {
        let home = Environment.value("HOME") ?? ""
        let state = Environment.value("XDG_STATE_HOME") ?? home + "/.local/state"
        let config = Environment.value("XDG_CONFIG_HOME") ?? home + "/.config"
        return [state + "/syncthing", config + "/syncthing"]
    }

    /// 64-bit FNV-1a of `bytes`, in hexadecimal.
    private static func hash(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }  // FNV-1a: wrapping by design.
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    // MARK: Moving in and out

    /// Moves the item at `source` into a container (`ubiquitous`) or out of
    /// one to `destination`, as Apple's `setUbiquitous(_:itemAt:destinationURL:)`:
    /// one coordinated move (the source written `.forMoving`, the destination
    /// `.forReplacing`), so the item's presenters are told it moved. The
    /// destination must not exist; its folder must. Within one file system
    /// the item is renamed; across file systems it is copied whole, then the
    /// source removed.
    ///
    /// - Throws: `UbiquityContainerError` `.notFound` (no source),
    ///   `.notInContainer` (the destination of a move in, or the source of a
    ///   move out, is in no container), `.alreadyInContainer` (the other way
    ///   round), `.alreadyExists` (something at the destination), `.io`;
    ///   nothing is moved then.
    public func setUbiquitous(_ ubiquitous: Bool, itemAt source: FilePath, destination: FilePath) throws(UbiquityContainerError) {
        try setUbiquitous(ubiquitous, itemAt: RawFileName.text(source), destination: RawFileName.text(destination))
    }

    /// `setUbiquitous(_:itemAt:destination:)` with the paths as text (a byte
    /// that is not UTF-8 as U+10FF00 + byte), for the kit's own callers.
    package func setUbiquitous(_ ubiquitous: Bool, itemAt source: String, destination: String) throws(UbiquityContainerError) {
        let from = Self.canonical(source)
        let to = Self.canonical(destination)
        guard (try? FileInfo.of(path: from, followingLink: false)) != nil else {
            throw UbiquityContainerError(.notFound, pathText: source, "no such file or folder")
        }
        let inside = try (container(containing: from) != nil, container(containing: to) != nil)
        switch (ubiquitous, inside) {
        case (true, (true, _)): throw UbiquityContainerError(.alreadyInContainer, pathText: source, "is already in a ubiquity container")
        case (true, (_, false)): throw UbiquityContainerError(.notInContainer, pathText: destination, "is in no ubiquity container")
        case (false, (false, _)): throw UbiquityContainerError(.notInContainer, pathText: source, "is in no ubiquity container")
        case (false, (_, true)): throw UbiquityContainerError(.alreadyInContainer, pathText: destination, "is in a ubiquity container")
        default: break
        }
        guard (try? FileInfo.of(path: to, followingLink: false)) == nil else {
            throw UbiquityContainerError(.alreadyExists, pathText: destination, "already exists; not replaced")
        }
        let coordinator = FileCoordinator()
        do {
            try coordinator.coordinate(writing: from, options: .forMoving, writing: to, options: .forReplacing) { from, to in
                try Self.move(from, to, shown: (source, destination))
                coordinator.itemMoved(from: from, to: to)
            }
        } catch let error as UbiquityContainerError {
            throw error
        } catch {
            throw UbiquityContainerError(.io, pathText: source, "cannot move it: \(error)")
        }
    }

    /// Renames `from` to `to` without replacing; across file systems copies then removes.
    private static func move(_ from: String, _ to: String, shown: (source: String, destination: String)) throws(UbiquityContainerError) {
        do throws(SystemCallError) {
            try Directory.renameWithoutReplacing(from, to: to, in: CurrentDirectory.descriptor)
            return
        } catch {
            if error.code == ErrorNumber.alreadyExists {
                throw UbiquityContainerError(.alreadyExists, pathText: shown.destination, "already exists; not replaced")
            }
            guard error.code == ErrorNumber.crossDevice else {
                throw UbiquityContainerError(.io, pathText: shown.source, "cannot move it: \(error.reason)")
            }
        }
        do throws(DocumentPackageError) {
            try PackageWrapper(readingFrom: from).coordinatedSave(to: to, options: PackageSaveOptions(replacingExisting: false))
        } catch {
            throw UbiquityContainerError(.io, pathText: shown.destination, "cannot copy it across file systems: \(error.message)")
        }
        do throws(SystemCallError) {
            try Directory.removeTree(from, in: CurrentDirectory.descriptor)
        } catch {
            throw UbiquityContainerError(.io, pathText: shown.source, "copied, but cannot remove the original: \(error.reason)")
        }
    }

    // MARK: Downloading and evicting

    /// Apple's `startDownloadingUbiquitousItem(at:)`: a folder sync keeps a
    /// whole copy of every item on every device, so an item present is
    /// already downloaded and nothing is to be done.
    ///
    /// - Throws: `UbiquityContainerError` `.notInContainer`, or `.notFound`
    ///   when the engine has not brought the item (it downloads everything
    ///   by itself: the item comes as soon as it syncs).
    package func startDownloadingItem(at path: String) throws(UbiquityContainerError) {
        guard try container(containing: path) != nil else { throw UbiquityContainerError(.notInContainer, pathText: path, "is in no ubiquity container") }
        guard (try? FileInfo.of(path: path, followingLink: false)) != nil else {
            throw UbiquityContainerError(.notFound, pathText: path, "is not here yet; the sync engine downloads every item by itself")
        }
    }

    /// Apple's `evictUbiquitousItem(at:)`, which no folder sync can do.
    ///
    /// - Throws: `UbiquityContainerError` `.notInContainer`, else always
    ///   `.unsupported`: the engine keeps a whole copy of every item on every
    ///   device and has no placeholder to leave in its place.
    package func evictItem(at path: String) throws(UbiquityContainerError) {
        guard let container = try container(containing: path) else {
            throw UbiquityContainerError(.notInContainer, pathText: path, "is in no ubiquity container")
        }
        let engine = container.engine == .folder ? "the folder sync" : "Syncthing"
        throw UbiquityContainerError(
            .unsupported, pathText: path, "\(engine) keeps a whole copy of every item on every device; it cannot evict one and leave a placeholder")
    }

    // MARK: Paths

    /// A container's folder with every link resolved; `canonical` where it does not exist.
    package static func resolvedFolder(_ path: String) -> String {
        (try? SymbolicLink.resolvedPath(path)) ?? canonical(path)
    }

    /// `path` made absolute, with the links and `.`/`..` steps of its
    /// longest existing folder resolved (the item itself not followed):
    /// where an item is, or would be once made.
    package static func canonical(_ path: String) -> String {
        let absolute = PathName.isAbsolute(path) ? path : (CurrentDirectory.path() ?? "") + "/" + path
        let names = PathName.components(absolute)
        // The longest folder above the item that exists, resolved; the rest of the names after it, as given.
        for count in stride(from: names.count - 1, through: 0, by: -1) {
            guard let resolved = try? SymbolicLink.resolvedPath("/" + names[..<count].joined(separator: "/")) else { continue }
            var parts = PathName.components(resolved)
            for name in names[count...] {
                switch name {
                case ".": continue
                case "..": if !parts.isEmpty { parts.removeLast() }
                default: parts.append(name)
                }
            }
            return "/" + parts.joined(separator: "/")
        }
        return absolute
    }
}
