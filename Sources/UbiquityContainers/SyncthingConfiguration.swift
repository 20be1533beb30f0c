import PropertyList
import SystemPackage
import SystemSupport

/// What ICTKit needs of a Syncthing device's `config.xml`: where its REST
/// API listens and its key, its folders and the devices it knows by name.
/// Read with libxml2's SAX parser (`XMLEventParser`); elements ICTKit does
/// not need are skipped.
public struct SyncthingConfiguration: Sendable, Equatable {
    /// A folder Syncthing keeps.
    public struct Folder: Sendable, Equatable {
        /// Its ID, `documents`.
        public var id: String
        /// Its label.
        public var label: String
        /// Its path as written (`~` expanded), as the kit's text for a path.
        package var pathText: String
        /// Its path as written (`~` expanded).
        public var path: FilePath {
            get { RawFileName.filePath(pathText) }
            set { pathText = RawFileName.text(newValue) }
        }
        /// The IDs of the devices it is shared with, this device among them.
        public var devices: [String]
        /// Whether it is paused.
        public var paused: Bool
    }

    /// The REST API's address, `127.0.0.1:8384`.
    public var address: String
    /// The REST API's key (`X-API-Key`).
    public var apiKey: String
    /// Whether the API is served over HTTPS (which ICTKit does not speak).
    public var usesTLS: Bool
    /// The folders.
    public var folders: [Folder]
    /// Each known device's name by its full ID.
    public var deviceNames: [String: String]

    /// The configuration in `home`'s `config.xml`.
    ///
    /// - Throws: `UbiquityContainerError` `.configuration` naming the file
    ///   and line when it is not XML, or `.notFound` when there is none.
    ///   Reads the file.
    public static func read(home: String) throws(UbiquityContainerError) -> SyncthingConfiguration {
        let path = home + "/config.xml"
        let read: [UInt8]?
        do throws(SystemCallError) {
            read = try OpenFile(path: path).readToEnd(limit: 64 << 20)
        } catch {
            throw UbiquityContainerError(.notFound, pathText: path, "cannot read Syncthing's configuration: \(error.reason)")
        }
        guard let bytes = read else { throw UbiquityContainerError(.configuration, pathText: path, "is longer than 64 MiB: not Syncthing's configuration") }
        return try Self.read(bytes, file: path)
    }

    /// The configuration in `bytes` (a `config.xml`), `file` naming it in errors.
    ///
    /// - Throws: `UbiquityContainerError` `.configuration` with the line
    ///   when the bytes are not XML or the GUI has no address.
    public static func read(_ bytes: [UInt8], file: FilePath) throws(UbiquityContainerError) -> SyncthingConfiguration {
        try read(bytes, file: RawFileName.text(file))
    }

    /// `read(_:file:)` with the file named by the kit's text for a path.
    package static func read(_ bytes: [UInt8], file: String) throws(UbiquityContainerError) -> SyncthingConfiguration {
        let handler = Handler()
        let parsed = bytes.withUnsafeBytes { raw in Result { () throws(PropertyListError) in try XMLEventParser.parse(raw, handler: handler) } }
        if case .failure(let error) = parsed {
            throw UbiquityContainerError(.configuration, pathText: file, place: error.location.description, "not Syncthing's configuration: \(error.message)")
        }
        guard let address = handler.address, !address.isEmpty else {
            throw UbiquityContainerError(.configuration, pathText: file, place: "gui.address", "Syncthing's configuration gives no address for its REST API")
        }
        return SyncthingConfiguration(
            address: address, apiKey: handler.apiKey ?? "", usesTLS: handler.usesTLS, folders: handler.folders, deviceNames: handler.deviceNames)
    }

    /// The folder with ID `id`, or else the one whose path is `path` or
    /// holds it (links resolved); nil for none. Resolves the links of
    /// `path`'s folders and of each folder's path.
    public func folder(id: String?, containing path: FilePath) -> Folder? {
        folder(id: id, containing: RawFileName.text(path))
    }

    /// `folder(id:containing:)` for the kit's text for a path.
    package func folder(id: String?, containing path: String) -> Folder? {
        if let id { return folders.first { $0.id == id } }
        let item = UbiquityContainers.canonical(path)
        return folders.first { folder in
            let resolved = UbiquityContainers.resolvedFolder(folder.pathText)
            return PathName.isInside(item, folder: resolved)
        }
    }

    /// The name of the device whose ID is `id`, or whose short ID (the
    /// first seven characters, as conflict copies name it) is `id`.
    public func deviceName(of id: String) -> String? {
        if let name = deviceNames[id] { return name }
        return deviceNames.first { $0.key.hasPrefix(id + "-") || ($0.key.count >= 7 && $0.key.prefix(7) == id) }?.value
    }

    /// Builds the configuration while `XMLEventParser` reads.
    private final class Handler: XMLEventHandler {
        var address: String?
        var apiKey: String?
        var usesTLS = false
        var folders: [Folder] = []
        var deviceNames: [String: String] = [:]
        private var path: [String] = []
        private var text: [UInt8] = []

        func startElement(_ element: XMLElementStart) throws(PropertyListError) {
            let name = element.localName
            path.append(name)
            text = []
            switch (path.count, name) {
            case (2, "folder"):
                let home = Environment.value("HOME") ?? ""
                var folderPath = element.attribute("path") ?? ""
                if folderPath.hasPrefix("~") { folderPath = home + folderPath.dropFirst() }
                folders.append(
                    Folder(
                        id: element.attribute("id") ?? "", label: element.attribute("label") ?? "", pathText: folderPath, devices: [],
                        paused: false))
            case (3, "device") where path[1] == "folder":
                if let id = element.attribute("id"), !folders.isEmpty { folders[folders.count - 1].devices.append(id) }
            case (2, "device"):
                if let id = element.attribute("id") { deviceNames[id] = element.attribute("name") ?? id }
            case (2, "gui"):
                usesTLS = element.attribute("tls") == "true"
            default: break
            }
        }

        func endElement() throws(PropertyListError) {
            let value = String(decoding: text, as: UTF8.self)
            switch (path.count, path.last) {
            case (3, "address") where path[1] == "gui": address = value
            case (3, "apikey") where path[1] == "gui": apiKey = value
            case (3, "paused") where path[1] == "folder" && !folders.isEmpty: folders[folders.count - 1].paused = value == "true"
            default: break
            }
            path.removeLast()
            text = []
        }

        func text(_ utf8: UnsafeBufferPointer<UInt8>) {
            text += utf8
        }
    }
}
