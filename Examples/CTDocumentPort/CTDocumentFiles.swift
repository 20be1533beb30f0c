#if canImport(Darwin)
import Foundation
#else
import KeyedCodingAppleNames
#endif

/// Why a document could not be read.
enum CTDocumentError: Error, CustomStringConvertible {
    /// An object's `VERSION` is not 1 (the original app silently made an empty object).
    case unsupportedVersion(Int, entry: String)
    /// The entry's archive holds no object under `DATA`.
    case noObject(entry: String)

    var description: String {
        switch self {
        case .unsupportedVersion(let version, let entry): "\(entry): unsupported VERSION \(version) (supported: 1)"
        case .noObject(let entry): "\(entry): the archive holds no object under DATA"
        }
    }
}

/// Reads and writes `.ict` packages with the ported classes: a folder
/// holding `ctdocument.data` and `ctdocument.metadata`, each a binary
/// keyed archive with its object under `DATA`.
enum CTDocumentFiles {
    static let dataEntryName = "ctdocument.data"
    static let metadataEntryName = "ctdocument.metadata"
    static let rootKey = "DATA"

    /// Reads both objects of the package at `url`.
    static func read(documentAt url: URL) throws -> (data: CTData, metadata: CTMetadata) {
        let metadata = try decode(CTMetadata.self, archivedAs: "CTMetadata", from: url.appendingPathComponent(metadataEntryName))
        let data = try decode(CTData.self, archivedAs: "CTData", from: url.appendingPathComponent(dataEntryName))
        return (data, metadata)
    }

    /// Writes a package at `url` holding `data` and `metadata`.
    static func write(data: CTData, metadata: CTMetadata, toDocumentAt url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try archive(metadata, archivedAs: "CTMetadata").write(to: url.appendingPathComponent(metadataEntryName), options: .atomic)
        try archive(data, archivedAs: "CTData").write(to: url.appendingPathComponent(dataEntryName), options: .atomic)
    }

    /// Decodes the object under `DATA` of the archive at `url`, securely, as `type`.
    static func decode<T: NSObject & NSSecureCoding>(_ type: T.Type, archivedAs className: String, from url: URL) throws -> T {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: try Data(contentsOf: url))
        unarchiver.setClass(type, forClassName: className)
        defer { unarchiver.finishDecoding() }
        guard let object = unarchiver.decodeObject(of: type, forKey: rootKey) else {
            throw unarchiver.error ?? CTDocumentError.noObject(entry: url.lastPathComponent)
        }
        return object
    }

    /// Archives `object` under `DATA`, its class named `className`.
    static func archive(_ object: NSObject & NSSecureCoding, archivedAs className: String) throws -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.setClassName(className, for: type(of: object))
        archiver.encode(object, forKey: rootKey)
        archiver.finishEncoding()
        if let error = archiver.error { throw error }
        return archiver.encodedData
    }
}
