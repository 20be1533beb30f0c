/// Reads a managed object model from any of its four forms: an `.xcdatamodeld` folder (its current version), an
/// `.xcdatamodel` folder (its `contents` XML), a compiled `.momd` folder (its current version) or a compiled
/// `.mom` file (a keyed archive).
public struct ManagedObjectModelReader: Sendable {
    /// Makes a reader.
    public init() {}

    /// Reads the model at a path: `.xcdatamodeld` (its current version, from `.xccurrentversion`),
    /// `.xcdatamodel`, `.momd` (its current version, from `VersionInfo.plist`) or `.mom`.
    ///
    /// - Throws: ``CoreDataError`` saying where, when the files cannot be read or do not make a model.
    public func read(atPath path: String) throws(CoreDataError) -> ManagedObjectModel {
        throw CoreDataError(path: path, place: .none, message: "reading models is not implemented yet")
    }

    /// Reads a compiled model's bytes (a `.mom`; also what a store's `Z_MODELCACHE` holds once unwrapped).
    ///
    /// - Throws: ``CoreDataError`` with the key path of the archive's object concerned.
    public func read(compiledModel bytes: [UInt8], path: String?) throws(CoreDataError) -> ManagedObjectModel {
        throw CoreDataError(path: path, place: .none, message: "reading compiled models is not implemented yet")
    }

    /// Reads an `.xcdatamodel`'s `contents` XML.
    ///
    /// - Throws: ``CoreDataError`` with the line of the XML concerned.
    public func read(modelContents bytes: [UInt8], path: String?) throws(CoreDataError) -> ManagedObjectModel {
        throw CoreDataError(path: path, place: .none, message: "reading model XML is not implemented yet")
    }
}
