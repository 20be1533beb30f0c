#if !canImport(Darwin)
import PackageFormat
import FileCoordination
import Foundation
import SystemPackage

extension FileWrapper {
    // MARK: Reading

    /// Makes this wrapper the parent of its children.
    func adoptChildren() {
        for child in (fileWrappers ?? [:]).values { child.parent = self }
    }

    /// The contents and attributes of the node at `url`, as `init(url:options:)` describes.
    static func readNode(at url: URL, options: ReadingOptions) throws -> (Contents, [String: Any]) {
        let path = url.path
        let status = try FileManager.default.attributesOfItem(atPath: path)
        switch status[.type] as? FileAttributeType {
        case .typeSymbolicLink?:
            return (.symbolicLink(try FileManager.default.destinationOfSymbolicLink(atPath: path)), wrapperAttributes(status))
        case .typeDirectory?:
            let package: PackageWrapper
            do throws(DocumentPackageError) {
                package = try PackageWrapper(readingFrom: path, mode: options.contains(.immediate) ? .eager : .lazy)
            } catch {
                throw cocoaError(error, url: url, writing: false)
            }
            return (.directory(DirectoryChildren(children(of: package))), attributes(of: package))
        case .typeRegular?:
            let data = try Data(contentsOf: url, options: options.contains(.withoutMapping) ? [] : .mappedIfSafe)
            let node = PackageWrapper(
                regularFileWithContents: data,
                permissions: UInt16(truncatingIfNeeded: (status[.posixPermissions] as? NSNumber)?.intValue ?? 0o644))
            node.modificationDate = status[.modificationDate] as? Date
            return (.regularFile(node), wrapperAttributes(status))
        default:
            throw CocoaError(
                .fileReadUnknown,
                userInfo: [
                    NSURLErrorKey: url,
                    NSLocalizedFailureReasonErrorKey:
                        "not a directory, regular file or symbolic link",
                ])
        }
    }

    /// Wrappers for a directory node's children, keyed by name.
    static func children(of directory: PackageWrapper) -> [String: FileWrapper] {
        var result: [String: FileWrapper] = [:]
        for node in directory.children {
            let contents: Contents =
                switch node.kind {
                case .directory: .directory(DirectoryChildren(children(of: node)))
                case .regularFile: .regularFile(node)
                case .symbolicLink: .symbolicLink(node.symbolicLinkDestinationText ?? "")
                }
            let child = FileWrapper(contents: contents, fileAttributes: attributes(of: node))
            child.adoptChildren()
            child.filename = node.fileName
            child.preferredFilename = node.fileName
            result[node.fileName!] = child
        }
        return result
    }

    /// The `fileAttributes` of a node read by PackageFormat.
    static func attributes(of node: PackageWrapper) -> [String: Any] {
        var attributes: [String: Any] = [FileAttributeKey.posixPermissions.rawValue: NSNumber(value: node.permissions)]
        attributes[FileAttributeKey.modificationDate.rawValue] = node.modificationDate
        let type: FileAttributeType =
            switch node.kind {
            case .directory: .typeDirectory
            case .regularFile: .typeRegular
            case .symbolicLink: .typeSymbolicLink
            }
        attributes[FileAttributeKey.type.rawValue] = type.rawValue
        if let size = node.fileSize { attributes[FileAttributeKey.size.rawValue] = NSNumber(value: size) }
        return attributes
    }

    /// The `fileAttributes` kept from `FileManager`'s attributes of a node.
    private static func wrapperAttributes(_ attributes: [FileAttributeKey: Any]) -> [String: Any] {
        var result: [String: Any] = [:]
        for key in [FileAttributeKey.posixPermissions, .modificationDate, .size] { result[key.rawValue] = attributes[key] }
        result[FileAttributeKey.type.rawValue] = (attributes[.type] as? FileAttributeType)?.rawValue
        return result
    }

    /// `NSFilePosixPermissions` from `fileAttributes`, if set.
    var posixPermissions: UInt16? {
        let value = fileAttributes[FileAttributeKey.posixPermissions.rawValue]
        return ((value as? NSNumber)?.intValue ?? value as? Int).map { UInt16(truncatingIfNeeded: $0) }
    }

    /// `NSFileModificationDate` from `fileAttributes`, if set.
    var modificationDate: Date? { fileAttributes[FileAttributeKey.modificationDate.rawValue] as? Date }

    // MARK: Writing

    /// The work of `write(to:options:originalContentsURL:)`.
    func writeNode(to url: URL, options: WritingOptions, originalContentsURL: URL?) throws {
        switch contents {
        case .directory:
            do throws(DocumentPackageError) {
                // Foundation's FileWrapper writes over whatever is at the URL.
                let saving = PackageSaveOptions(originalContentsPath: originalContentsURL.map { FilePath($0.path) }, overwritingChangesOnDisk: true)
                try packageNode().coordinatedSave(to: url.path, options: saving)
            } catch {
                throw Self.cocoaError(error, url: url, writing: true)
            }
        case .regularFile(let node):
            let data: Data
            do throws(DocumentPackageError) { data = try node.contents() } catch { throw Self.cocoaError(error, url: url, writing: false) }
            try data.write(to: url, options: options.contains(.atomic) ? .atomic : [])
            var attributes: [FileAttributeKey: Any] = [:]
            attributes[.posixPermissions] = posixPermissions.map { NSNumber(value: $0) }
            attributes[.modificationDate] = modificationDate
            if !attributes.isEmpty { try FileManager.default.setAttributes(attributes, ofItemAtPath: url.path) }
        case .symbolicLink(let destination):
            try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: destination)
        }
        if options.contains(.withNameUpdating) { updateNames(to: url.lastPathComponent) }
    }

    /// This wrapper as a PackageFormat node, with its attributes applied:
    /// a regular file's own node (which remembers the file it was read from),
    /// a new node for a directory or a link.
    func packageNode() throws(DocumentPackageError) -> PackageWrapper {
        let node: PackageWrapper
        switch contents {
        case .directory(let children):
            node = try PackageWrapper(directoryWithChildren: [:])
            for (key, child) in children.byKey { try node.addChild(child.packageNode(), named: key) }
        case .regularFile(let file): node = file
        case .symbolicLink(let destination): return PackageWrapper(symbolicLinkWithDestinationText: destination)
        }
        if let posixPermissions { node.permissions = posixPermissions }
        // Set only when changed: a date's Double loses the nanoseconds an unchanged file is matched by.
        if let modificationDate, modificationDate != node.modificationDate { node.modificationDate = modificationDate }
        return node
    }

    private func updateNames(to name: String) {
        filename = name
        for (key, child) in fileWrappers ?? [:] { child.updateNames(to: key) }
    }

    /// Foundation's error for a PackageFormat error, which it carries
    /// under `NSUnderlyingErrorKey`.
    static func cocoaError(_ error: DocumentPackageError, url: URL, writing: Bool) -> CocoaError {
        let code: CocoaError.Code =
            switch (error.code, error.systemErrorNumber) {
            case (.notFound, _): writing ? .fileNoSuchFile : .fileReadNoSuchFile
            case (.alreadyExists, _): .fileWriteFileExists
            case (.invalidName, _): writing ? .fileWriteInvalidFileName : .fileReadInvalidFileName
            case (.io, EACCES?), (.io, EPERM?), (.io, EROFS?): writing ? .fileWriteNoPermission : .fileReadNoPermission
            case (.io, ENOSPC?), (.io, EDQUOT?): .fileWriteOutOfSpace
            default: writing ? .fileWriteUnknown : .fileReadUnknown
            }
        return CocoaError(
            code,
            userInfo: [
                NSURLErrorKey: url, NSUnderlyingErrorKey: error,
                NSLocalizedFailureReasonErrorKey: error.description,
            ])
    }

    // MARK: Comparing with disk

    func matchesNode(atPath path: String, comparingPermissions: Bool) -> Bool {
        let manager = FileManager.default
        guard let attributes = try? manager.attributesOfItem(atPath: path),
            let type = attributes[.type] as? FileAttributeType
        else { return false }
        switch contents {
        case .symbolicLink(let destination):
            return type == .typeSymbolicLink && (try? manager.destinationOfSymbolicLink(atPath: path)) == destination
        case .regularFile:
            guard type == .typeRegular, let recorded = modificationDate,
                let current = attributes[.modificationDate] as? Date,
                // Both dates come from one `timespec`, converted through a Double: a microsecond covers the rounding.
                abs(current.timeIntervalSince(recorded)) < 1e-6
            else { return false }
            return !comparingPermissions || (attributes[.posixPermissions] as? NSNumber)?.uint16Value == posixPermissions
        case .directory(let children):
            guard type == .typeDirectory, let names = try? manager.contentsOfDirectory(atPath: path),
                Set(names) == Set(children.byKey.keys)
            else { return false }
            return children.byKey.allSatisfy { $0.value.matchesNode(atPath: path + "/" + $0.key, comparingPermissions: comparingPermissions) }
        }
    }
}
#endif
