import OrderedCollections
import PropertyList
import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The containers a user has set up once, kept as a property list
/// (`containers.plist` in ICTKit's configuration folder; see `defaultPath`):
///
/// ```xml
/// <dict>
///   <key>DefaultContainer</key> <string>iCloud.com.example.Notes</string>
///   <key>Containers</key>
///   <dict>
///     <key>iCloud.com.example.Notes</key>
///     <dict>
///       <key>Path</key>   <string>/home/ada/Sync/Notes</string>
///       <key>Engine</key> <string>syncthing</string>   <!-- or folder (the default) -->
///       <key>EngineHome</key> <string>/home/ada/.local/state/syncthing</string>   <!-- optional -->
///       <key>EngineFolderID</key> <string>notes</string>   <!-- optional -->
///       <key>EngineAddress</key> <string>127.0.0.1:8384</string>   <!-- optional: else from config.xml -->
///       <key>EngineAPIKey</key> <string>…</string>   <!-- optional: else from config.xml -->
///     </dict>
///   </dict>
/// </dict>
/// ```
///
/// `DefaultContainer` names the container an app gets for a nil identifier
/// (Apple's first container of the app's entitlements); without it, the
/// first container in the file. Any property-list format reads.
public struct UbiquityContainerConfiguration: Hashable, Sendable {
    /// The containers, in the file's order.
    public var containers: [UbiquityContainer]
    /// The identifier of the container a nil identifier means; nil for the first.
    public var defaultIdentifier: String?

    /// A configuration of `containers`.
    public init(containers: [UbiquityContainer] = [], defaultIdentifier: String? = nil) {
        self.containers = containers
        self.defaultIdentifier = defaultIdentifier
    }

    /// The container configured under `identifier`, or for nil the default one.
    public func container(identifier: String?) -> UbiquityContainer? {
        guard let identifier = identifier ?? defaultIdentifier else { return containers.first }
        return containers.first { $0.identifier == identifier }
    }

    /// Where the configuration is read from: `$XDG_CONFIG_HOME/ictkit/containers.plist`,
    /// else `$HOME/.config/ictkit/containers.plist`; nil without either variable.
    /// Reads the environment.
    public static var defaultPath: FilePath? { defaultPathText.map(RawFileName.filePath) }

    /// `defaultPath` as the kit's text for a path.
    package static var defaultPathText: String? {
        if let folder = Environment.value("XDG_CONFIG_HOME"), PathName.isAbsolute(folder) { return folder + "/ictkit/containers.plist" }
        guard let home = Environment.value("HOME"), !home.isEmpty else { return nil }
        return home + "/.config/ictkit/containers.plist"
    }

    // MARK: Reading

    /// Reads the configuration at `path`; no file there is an empty configuration.
    ///
    /// - Throws: `UbiquityContainerError` `.configuration` naming the file and
    ///   where in it: the line and column where it does not parse, or the
    ///   key path of a value that is missing or of the wrong kind. Reads the whole file.
    public static func read(from path: FilePath) throws(UbiquityContainerError) -> UbiquityContainerConfiguration {
        try read(from: RawFileName.text(path))
    }

    /// `read(from:)` for the kit's text for a path.
    package static func read(from path: String) throws(UbiquityContainerError) -> UbiquityContainerConfiguration {
        let file: OpenFile
        let kind: FileKind
        do throws(SystemCallError) {
            file = try OpenFile(path: path, options: [.nonBlocking])
            kind = try file.info().kind
        } catch {
            if error.isNoSuchEntry { return UbiquityContainerConfiguration() }
            throw UbiquityContainerError(.configuration, pathText: path, "cannot read: \(error.reason)")
        }
        guard kind == .regular else { throw UbiquityContainerError(.configuration, pathText: path, "is \(kind.phrase), not a file") }
        let read: [UInt8]?
        do throws(SystemCallError) {
            // A configuration is a few lines; 16 MiB is past any of them.
            read = try file.readToEnd(limit: 16 << 20)
        } catch {
            throw UbiquityContainerError(.configuration, pathText: path, "cannot read: \(error.reason)")
        }
        guard let bytes = read else { throw UbiquityContainerError(.configuration, pathText: path, "is larger than 16 MiB; not a containers configuration") }
        let value: PropertyListValue
        do throws(PropertyListError) {
            value = try PropertyListReader().read(Data(bytes)).value
        } catch {
            let place: String
            switch error.location {
            case .lineColumn(let line, let column): place = "line \(line), column \(column)"
            case .byteOffset(let offset): place = "byte \(offset)"
            case .none: place = ""
            }
            throw UbiquityContainerError(.configuration, pathText: path, place: place, error.message)
        }
        return try parse(value, path: path)
    }

    /// The configuration a property list holds.
    static func parse(_ value: PropertyListValue, path: String) throws(UbiquityContainerError) -> UbiquityContainerConfiguration {
        func fail(_ place: String, _ message: String) -> UbiquityContainerError {
            UbiquityContainerError(.configuration, pathText: path, place: place, message)
        }
        guard let root = value.dictionaryValue else { throw fail("the top", "is \(value.kindNameWithArticle), not a dictionary") }
        var configuration = UbiquityContainerConfiguration()
        if let given = root["DefaultContainer"] {
            guard let name = given.stringValue else { throw fail("DefaultContainer", "is \(given.kindNameWithArticle), not a string") }
            configuration.defaultIdentifier = name
        }
        if let given = root["Containers"] {
            guard let containers = given.dictionaryValue else { throw fail("Containers", "is \(given.kindNameWithArticle), not a dictionary") }
            for (identifier, entry) in containers {
                configuration.containers.append(try container(identifier, entry, fail))
            }
        }
        if let name = configuration.defaultIdentifier, configuration.container(identifier: name) == nil {
            throw fail("DefaultContainer", "names '\(name)', which is not among Containers")
        }
        return configuration
    }

    private static func container(
        _ identifier: String, _ entry: PropertyListValue, _ fail: (String, String) -> UbiquityContainerError
    ) throws(UbiquityContainerError) -> UbiquityContainer {
        let place = "Containers.\(identifier)"
        guard !identifier.isEmpty, !identifier.contains("/") else { throw fail(place, "is not a container identifier (empty, or holds /)") }
        guard let fields = entry.dictionaryValue else { throw fail(place, "is \(entry.kindNameWithArticle), not a dictionary") }
        func string(_ key: String) throws(UbiquityContainerError) -> String? {
            guard let given = fields[key] else { return nil }
            guard let text = given.stringValue else { throw fail("\(place).\(key)", "is \(given.kindNameWithArticle), not a string") }
            return text
        }
        guard let folder = try string("Path") else { throw fail(place, "has no Path (the container's folder)") }
        guard PathName.isAbsolute(folder) else { throw fail("\(place).Path", "'\(folder)' is not an absolute path") }
        let engine: UbiquityContainer.Engine
        switch try string("Engine") ?? "folder" {
        case "folder": engine = .folder
        case "syncthing": engine = .syncthing(home: try string("EngineHome"), folderID: try string("EngineFolderID"))
        case let other: throw fail("\(place).Engine", "'\(other)' is not an engine ICTKit knows (syncthing, folder)")
        }
        return UbiquityContainer(
            identifier: identifier, folder: normalized(folder), engine: engine, engineAddress: try string("EngineAddress"),
            engineAPIKey: try string("EngineAPIKey"))
    }

    /// `path` without a trailing slash (`/` stays `/`).
    static func normalized(_ path: String) -> String {
        PathName.trimmingTrailingSlashes(path)
    }

    // MARK: Writing

    /// The configuration as a property list, in the form `read(from:)` reads.
    public var propertyList: PropertyListValue {
        var root: OrderedDictionary<String, PropertyListValue> = [:]
        if let defaultIdentifier { root["DefaultContainer"] = .string(defaultIdentifier) }
        var entries: OrderedDictionary<String, PropertyListValue> = [:]
        for container in containers {
            var fields: OrderedDictionary<String, PropertyListValue> = ["Path": .string(container.folderText), "Engine": .string(container.engine.name)]
            if case .syncthing(let home, let folderID) = container.engine {
                if let home { fields["EngineHome"] = .string(home) }
                if let folderID { fields["EngineFolderID"] = .string(folderID) }
            }
            if let address = container.engineAddress { fields["EngineAddress"] = .string(address) }
            if let key = container.engineAPIKey { fields["EngineAPIKey"] = .string(key) }
            entries[container.identifier] = .dictionary(fields)
        }
        root["Containers"] = .dictionary(entries)
        return .dictionary(root)
    }

    /// Writes the configuration to `path` as an XML property list, safely
    /// (beside, then renamed over; a symbolic link there is refused), making
    /// its folder when missing.
    ///
    /// - Throws: `UbiquityContainerError` `.io` naming `path`.
    public func write(to path: FilePath) throws(UbiquityContainerError) {
        try write(to: RawFileName.text(path))
    }

    /// `write(to:)` for the kit's text for a path.
    package func write(to path: String) throws(UbiquityContainerError) {
        let bytes: [UInt8]
        do throws(PropertyListError) {
            bytes = try XMLPropertyListWriter().encode(propertyList)
        } catch {
            preconditionFailure("a dictionary of strings always encodes: \(error)")
        }
        if case let folder = PathName.folder(of: path), folder != "/", folder != "." {
            if (try? FileInfo.of(path: folder)) == nil {
                var made = ""
                for part in PathName.components(folder) {
                    made += "/" + part
                    do throws(SystemCallError) { try Directory.make(atPath: made, permissions: 0o700) } catch {
                        guard error.code == ErrorNumber.alreadyExists else {
                            throw UbiquityContainerError(.io, pathText: path, "cannot make the folder \(made): \(error.reason)")
                        }
                    }
                }
            }
        }
        do throws(AtomicFileWriter.Failure) {
            let writer = try AtomicFileWriter(path: path)
            try bytes.withUnsafeBytes { raw in Result { () throws(AtomicFileWriter.Failure) in try writer.write(raw) } }.get()
            try writer.commit()
        } catch {
            throw UbiquityContainerError(.io, pathText: path, "cannot write: \(error.description)")
        }
    }
}
