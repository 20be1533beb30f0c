// The fixture `scripts/public-signatures.sh --self-test` compiles on its own and checks: each declaration
// marked PLANTED must be reported, each marked CLEAN must not. Not part of the package (scripts/ is no target).

/// A fixture type.
public struct Planted {
    /// PLANTED: a `String` path parameter, by its internal name.
    public func save(to path: String) {}
    /// PLANTED: a `String` path parameter, by its label.
    public init(folderPath: String?) {}
    /// PLANTED: a `String` path returned, by the function's name.
    public func externalDataPath(fileName: Int) -> String { "" }
    /// PLANTED: a `String` path property.
    public var path: String { "" }
    /// PLANTED: a raw descriptor parameter.
    public init(descriptor: Int32) {}
    /// PLANTED: a raw descriptor, by its internal name.
    public func open(name: Int, relativeTo directory: Int32?) {}
    /// PLANTED: a raw descriptor property.
    public var fileDescriptor: Int32 { 0 }
    /// PLANTED: a `String` destination, by its internal name (a save's, a move's).
    public func write(to destination: String?) {}
    /// PLANTED: a `String` source, by its internal name.
    public func move(itemAt source: String, into place: Int) {}
    /// CLEAN: a name that ends in another word (an entity's name).
    public var destinationEntityName: String { "" }
    /// CLEAN: a name, not a path.
    public func kind(ofDocumentNamed name: String) -> String { "" }
    /// CLEAN: a key path into a value, not a file's path.
    public func value(atKeyPath keyPath: String) -> Int { 0 }
    /// CLEAN: an error number, not a descriptor.
    public var systemErrorNumber: Int32? { nil }
    /// CLEAN: a path that is not a `String`.
    public func save(to path: [UInt8]) {}
    /// CLEAN: not public.
    func internalSave(to path: String) {}
}

/// A fixture enum.
public enum PlantedEvent {
    /// PLANTED: a `String` path in a case's associated value, by its label.
    case gained(path: String, count: Int)
    /// PLANTED: a `String` path in an unlabelled associated value, by the case's name.
    case movedToFolder(String)
    /// CLEAN: a case whose value is a name.
    case renamed(name: String, [String: Int])
}
