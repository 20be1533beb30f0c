import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `Data` forms of the operations that take or return archives only as
// `[UInt8]`. Each returned `Data` is one copy of the writer's bytes.

extension KeyedUnarchiver {
    /// Reads the archive in `data` (binary or XML) and makes an unarchiver over it.
    ///
    /// - Throws: `KeyedArchiveError` from `KeyedArchiveReader`.
    public init(data: Data, limits: KeyedArchiveLimits = .default) throws(KeyedArchiveError) {
        self.init(archive: try KeyedArchiveReader(limits: limits).read(data), limits: limits)
    }
}

extension KeyedArchiver {
    /// The archive built so far, serialised as `Data`, as `encodedArchive(format:)`.
    ///
    /// - Throws: `KeyedArchiveError` from `KeyedArchiveWriter`.
    public func encodedArchiveData(format: KeyedArchiveWriter.Format = .binary) throws(KeyedArchiveError) -> Data {
        Data(try encodedArchive(format: format))
    }

    /// Archives `object` under `$top.key` in one step, as `Data`, as `archive(_:forKey:format:)`.
    ///
    /// - Throws: what the object's `encode(to:)` or the writer throws.
    public static func archivedData<T: KeyedArchiveEncodable>(
        _ object: T, forKey key: String = "root",
        format: KeyedArchiveWriter.Format = .binary
    )
        throws(KeyedArchiveError) -> Data
    {
        Data(try archive(object, forKey: key, format: format))
    }
}

extension KeyedArchiveWriter {
    /// Encodes `archive` as `Data`, as `encode(_:)`.
    ///
    /// - Throws: `KeyedArchiveError` as `encode(_:)`: the first structural
    ///   problem of `archive`, or `.propertyList` when the XML writer refuses a value.
    public func encodedData(_ archive: KeyedArchiveObjectGraph) throws(KeyedArchiveError) -> Data {
        Data(try encode(archive))
    }
}
