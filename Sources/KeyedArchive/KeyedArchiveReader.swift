import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads keyed archives from bytes: a binary or XML property list (the form
/// is detected) checked as an `NSKeyedArchiver` archive.
public struct KeyedArchiveReader: Sendable {
    /// The limits applied to the input.
    public var limits: KeyedArchiveLimits
    /// Whether to record, for a binary archive, how its objects are numbered
    /// where `KeyedArchiveWriter`'s rule would number them otherwise
    /// (`KeyedArchiveObjectGraph.layout`), so that writing it unchanged gives the same
    /// bytes. Costs a second pass over the object table and one write.
    public var keepsLayout: Bool

    /// Makes a reader with the given limits.
    public init(limits: KeyedArchiveLimits = .default, keepsLayout: Bool = false) {
        self.limits = limits
        self.keepsLayout = keepsLayout
    }

    /// Decodes and checks the archive in `bytes`. Reads the whole property
    /// list; decodes no object (see `KeyedUnarchiver` and `ArchivedValue`).
    ///
    /// - Throws: `KeyedArchiveError` with code `.propertyList` (with the byte
    ///   offset or line in `underlying`) when the bytes are not a property
    ///   list, else of the first structural problem, with its key path.
    public func read(_ bytes: UnsafeRawBufferPointer) throws(KeyedArchiveError) -> KeyedArchiveObjectGraph {
        let value: PropertyListValue
        do {
            value = try PropertyListReader(limits: limits.propertyList).read(bytes).value
        } catch {
            throw KeyedArchiveError(error)
        }
        var archive = try KeyedArchiveObjectGraph(propertyList: value)
        if keepsLayout, PropertyListFormat.detect(bytes) == .binary {
            archive.layout = try KeyedArchiveLayout(recording: archive, binaryPropertyList: bytes, limits: limits.propertyList)
        }
        return archive
    }

    /// Decodes and checks the archive in `data`, as `read(_:)` on bytes.
    ///
    /// - Throws: `KeyedArchiveError`, as `read(_:)` on bytes.
    public func read(_ data: Data) throws(KeyedArchiveError) -> KeyedArchiveObjectGraph {
        let result: Result<KeyedArchiveObjectGraph, KeyedArchiveError> = data.withUnsafeBytes { buffer in
            Result { () throws(KeyedArchiveError) in try read(buffer) }
        }
        return try result.get()
    }

    /// Decodes and checks the archive in `bytes`, as `read(_:)` on bytes.
    ///
    /// - Throws: `KeyedArchiveError`, as `read(_:)` on bytes.
    public func read(_ bytes: [UInt8]) throws(KeyedArchiveError) -> KeyedArchiveObjectGraph {
        let result: Result<KeyedArchiveObjectGraph, KeyedArchiveError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(KeyedArchiveError) in try read(buffer) }
        }
        return try result.get()
    }
}
