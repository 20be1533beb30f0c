import SystemSupport

/// The rules for a child's name inside a package.
enum PackageChildName {
    /// The longest name accepted, in bytes on disk (`NAME_MAX` on Linux and
    /// macOS; a byte that is not UTF-8 is carried as one scalar, `RawFileName`).
    static let maximumByteCount = 255

    /// Why `name` cannot name a child, or nil when it can.
    static func problem(with name: String) -> String? {
        if name.isEmpty { return "a name cannot be empty" }
        if name == "." || name == ".." { return "a name cannot be \"\(name)\"" }
        if name.utf8.contains(UInt8(ascii: "/")) { return "a name cannot contain \"/\"" }
        if name.utf8.contains(0) { return "a name cannot contain NUL" }
        let byteCount = RawFileName.bytes(name).count
        if byteCount > maximumByteCount {
            return "a name cannot be longer than \(maximumByteCount) bytes (this one has \(byteCount))"
        }
        return nil
    }

    /// Throws `.invalidName` when `name` cannot name a child.
    static func check(_ name: String, pathInPackage: String, fileSystemPath: String = "")
        throws(DocumentPackageError)
    {
        if let problem = problem(with: name) {
            throw DocumentPackageError(
                .invalidName, pathInPackage: pathInPackage, fileSystemPathText: fileSystemPath,
                "invalid name \(quoted(name)): \(problem)")
        }
    }

    /// The key under which names that differ only by case (or by Unicode
    /// normalization, which Swift's string equality already ignores) collide,
    /// as they do on case-insensitive file systems.
    static func foldingKey(_ name: String) -> String {
        name.lowercased()
    }

    /// `name` in quotes, with control characters and bytes that are not
    /// UTF-8 escaped (`\xff`), for messages.
    static func quoted(_ name: String) -> String {
        "\"" + RawFileName.escaped(name) + "\""
    }
}
