import PropertyList

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
    public func identifyItem(atPath path: String) throws(UniformTypeError) -> TypeDeclaration {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            throw UniformTypeError(.io, path: path, "cannot examine \(path): \(String(cString: strerror(errno)))")
        }
        let extensions = Self.extensionCandidates(of: path)
        switch status.st_mode & S_IFMT {
        case S_IFLNK:
            return builtIn("public.symlink")
        case S_IFDIR:
            for candidate in extensions {
                if let type = declaredType(forExtension: candidate, kind: "public.directory", notKind: "public.data") {
                    return type
                }
                // A legacy document type's LSTypeIsPackage makes the extension's dynamic type a package.
                let dynamic = dynamicType(tag: candidate, tagClass: .filenameExtension)
                if conforms(dynamic.identifier, to: "com.apple.package") { return dynamic }
            }
            return builtIn(path == "/" ? "public.volume" : "public.folder")
        case S_IFREG:
            return identifyFile(atPath: path, extensions: extensions, isExecutable: status.st_mode & 0o111 != 0)
        default:
            return builtIn("public.item")
        }
    }

    private func identifyFile(atPath path: String, extensions: [String], isExecutable: Bool) -> TypeDeclaration {
        for candidate in extensions {
            guard let type = declaredType(forExtension: candidate, kind: "public.data", notKind: "public.directory")
            else { continue }
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
        var name = Substring(path)
        while name.count > 1, name.hasSuffix("/") { name = name.dropLast() }
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).dropFirst()  // The part before the first dot is the stem.
        guard let last = parts.last, !last.isEmpty else { return [] }
        var result = [last.lowercased()]
        if parts.count >= 2, let previous = parts.dropLast().last, !previous.isEmpty {
            result.insert("\(previous).\(last)".lowercased(), at: 0)
        }
        return result
    }
}

/// The few file-system calls the module makes.
enum FileSystem {
    /// The names in `directory` (without `.` and `..`); empty when it cannot be read.
    static func entries(of directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The last modification time of the file at `path`, in nanoseconds
    /// since 1970; nil when it cannot be examined.
    static func modificationTime(ofFile path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        #if canImport(Darwin)
        let time = status.st_mtimespec
        #else
        let time = status.st_mtim
        #endif
        return Int(time.tv_sec) * 1_000_000_000 + Int(time.tv_nsec)
    }

    /// Up to `count` first bytes of the file at `path`; nil when it cannot be opened.
    static func prefix(ofFile path: String, count: Int) -> [UInt8]? {
        // Without waiting: a FIFO would hold the open until a writer came.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, count - filled) }
            if got < 0, errno == EINTR { continue }
            if got <= 0 { break }
            filled += got
        }
        return Array(bytes[..<filled])
    }
}
