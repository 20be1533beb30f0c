import PropertyList
import SystemSupport

extension TypeRegistry {
    /// The type of the item at `path`, as the Finder would see it:
    /// - a symbolic link (not followed) is `public.symlink`;
    /// - a directory whose extension names a type conforming to
    ///   `public.directory` (a package such as `.app`, or a folder type such
    ///   as `.xcassets`), or failing that one that does not conform to
    ///   `public.data` (a nib is a file or a folder), is that type; `/` is
    ///   `public.volume`, any other directory `public.folder`;
    /// - a regular file is the type of its extension (longest first:
    ///   `tar.gz` before `gz`) conforming to `public.data`, or failing that
    ///   one that does not conform to `public.directory`; property lists —
    ///   a `.plist`, or a file with no declared extension — are sniffed by
    ///   content (`ContentSniffer`): a binary or XML property list is
    ///   `com.apple.binary-property-list` or `com.apple.xml-property-list`
    ///   (other content does not change the type); an executable file without an
    ///   extension is `public.unix-executable`; else the dynamic type of its
    ///   extension, or `public.data`;
    /// - anything else (a device, a socket, a FIFO) is `public.item`.
    ///
    /// Reads the item's status and, for sniffing, its first `ContentSniffer.prefixLength` bytes.
    ///
    /// - Throws: `UniformTypeError` with code `.io` when `path` cannot be examined.
    package func identifyItem(atPath path: String) throws(UniformTypeError) -> TypeDeclaration {
        let info: FileInfo
        do throws(SystemCallError) {
            info = try FileInfo.of(path: path, followingLink: false)
        } catch {
            throw UniformTypeError(.io, pathText: path, "cannot examine \(path): \(error.reason)")
        }
        let extensions = Self.extensionCandidates(of: path)
        switch info.kind {
        case .symbolicLink:
            return builtIn("public.symlink")
        case .directory:
            return directoryType(extensions: extensions) ?? builtIn(path == "/" ? "public.volume" : "public.folder")
        case .regular:
            return identifyFile(atPath: path, extensions: extensions, isExecutable: info.permissions & 0o111 != 0)
        default:
            return builtIn("public.item")
        }
    }

    /// The type of an item named `name` (a file name, or a path's last
    /// part) by its extension alone, as `identifyItem(atPath:)` gives it for
    /// a directory (`public.folder` when the extension names no directory
    /// type) or a regular file — but reading nothing: no content sniffed,
    /// no permission looked at (an extensionless file is `public.data`).
    public func identifyItem(named name: String, isDirectory: Bool) -> TypeDeclaration {
        let extensions = Self.extensionCandidates(of: name)
        if isDirectory { return directoryType(extensions: extensions) ?? builtIn("public.folder") }
        if let type = declaredFileType(extensions: extensions) { return type }
        return extensions.last.map { dynamicType(tag: $0, tagClass: .filenameExtension) } ?? builtIn("public.data")
    }

    /// A directory's type by its extensions: one conforming to
    /// `public.directory`, or failing that one not conforming to
    /// `public.data`, or a legacy package type's; nil when none.
    private func directoryType(extensions: [String]) -> TypeDeclaration? {
        for candidate in extensions {
            if let type = declaredType(forExtension: candidate, kind: "public.directory", notKind: "public.data") {
                return type
            }
            // A legacy document type's LSTypeIsPackage makes the extension's dynamic type a package.
            let dynamic = dynamicType(tag: candidate, tagClass: .filenameExtension)
            if conforms(dynamic.identifier, to: "com.apple.package") { return dynamic }
        }
        return nil
    }

    /// The declared type of a regular file's extensions (longest first), without sniffing; nil when none is declared.
    private func declaredFileType(extensions: [String]) -> TypeDeclaration? {
        for candidate in extensions {
            if let type = declaredType(forExtension: candidate, kind: "public.data", notKind: "public.directory") { return type }
        }
        return nil
    }

    private func identifyFile(atPath path: String, extensions: [String], isExecutable: Bool) -> TypeDeclaration {
        if let type = declaredFileType(extensions: extensions) {
            if type.identifier.lowercased() == "com.apple.property-list", let sniffed = sniffPropertyList(atPath: path) {
                return sniffed
            }
            return type
        }
        if let sniffed = sniffPropertyList(atPath: path) { return sniffed }
        if let last = extensions.last { return dynamicType(tag: last, tagClass: .filenameExtension) }
        return builtIn(isExecutable ? "public.unix-executable" : "public.data")
    }

    /// The best declared type for `filenameExtension` that conforms to
    /// `kind`, else the best that does not conform to `notKind`; nil when none.
    private func declaredType(forExtension filenameExtension: String, kind: String, notKind: String) -> TypeDeclaration? {
        let types = declaredTypes(forTag: filenameExtension, tagClass: .filenameExtension)
        return types.first { conforms($0.identifier, to: kind) } ?? types.first { !conforms($0.identifier, to: notKind) }
    }

    /// The property-list type `ContentSniffer` sees in the file's first bytes, if any.
    private func sniffPropertyList(atPath path: String) -> TypeDeclaration? {
        guard let head = FileSystem.prefix(ofFile: path, count: ContentSniffer.prefixLength) else { return nil }
        let identifier = ContentSniffer.typeIdentifier(ofLeadingBytes: head, isWholeContent: head.count < ContentSniffer.prefixLength)
        guard identifier == "com.apple.binary-property-list" || identifier == "com.apple.xml-property-list" else { return nil }
        return builtIn(identifier)
    }

    /// A system type every registry built on `TypeRegistry.system` has; a
    /// bare stand-in when this registry lacks it.
    private func builtIn(_ identifier: String) -> TypeDeclaration {
        declaration(for: identifier)
            ?? TypeDeclaration(identifier: identifier, origin: .system, source: DeclarationSource(file: nil))
    }

    /// `a.tar.gz` gives `tar.gz` then `gz`; a leading dot does not start an
    /// extension (`.profile` has none).
    static func extensionCandidates(of path: String) -> [String] {
        let name = PathName.split(path).name
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).dropFirst()  // The part before the first dot is the stem.
        guard let last = parts.last, !last.isEmpty else { return [] }
        var result = [last.lowercased()]
        if parts.count >= 2, let previous = parts.dropLast().last, !previous.isEmpty {
            result.insert("\(previous).\(last)".lowercased(), at: 0)
        }
        return result
    }
}

/// The few file-system calls the module makes, through `SystemSupport`.
enum FileSystem {
    /// The names in `directory` (without `.` and `..`); empty when it cannot be read.
    static func entries(of directory: String) -> [String] {
        ((try? Directory.entries(atPath: directory)) ?? []).map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// The last modification time of the file at `path`, in nanoseconds
    /// since 1970; nil when it cannot be examined.
    static func modificationTime(ofFile path: String) -> Int? {
        guard let info = try? FileInfo.of(path: path) else { return nil }
        return Int(info.modificationSeconds) * 1_000_000_000 + Int(info.modificationNanoseconds)
    }

    /// Up to `count` first bytes of the file at `path`; nil when it cannot be opened.
    static func prefix(ofFile path: String, count: Int) -> [UInt8]? {
        // Without waiting: a FIFO would hold the open until a writer came.
        guard let file = try? OpenFile(path: path, options: .nonBlocking) else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            // A read error ends the prefix where it is, as the end of the file does.
            let got = bytes.withUnsafeMutableBytes { (try? file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...]))) ?? 0 }
            if got == 0 { break }
            filled += got
        }
        return Array(bytes[..<filled])
    }
}
