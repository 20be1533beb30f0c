#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ICTDocument
import OrderedCollections
import PropertyList

/// `ict convert` between an `.ict` document and its JSON export:
/// `{"version", "firstName", "lastName", "displayName", "favoriteNumber",
/// "photo", "thumbnail"}`, absent fields left out, each image either
/// `{"file": "NAME.photo.png"}` (a PNG file next to the JSON, named
/// relative to it) or `{"$data": base64}` with `--embed`.
enum DocumentConversion {
    /// Exports the document at `path` as JSON to `destination` (`-` for standard output).
    static func export(_ path: String, to destination: String, embedding: Bool) throws {
        let document = try ICTDocument(contentsOf: path)
        let data = try document.data()
        let metadata = try document.metadata()
        var value: OrderedDictionary<String, PropertyListValue> = ["version": .integer(PropertyListInteger(Int64(data.version)))]
        value["firstName"] = data.firstName.map(PropertyListValue.string)
        value["lastName"] = data.lastName.map(PropertyListValue.string)
        value["displayName"] = data.displayName.map(PropertyListValue.string)
        value["favoriteNumber"] = data.favoriteNumber.map(PropertyListValue.real)
        let base = destination == "-" ? String(path.dropLast(4)) : (destination.hasSuffix(".json") ? String(destination.dropLast(5)) : destination)
        let folder = destination == "-" ? "" : (destination.lastIndex(of: "/").map { String(destination[...$0]) } ?? "")
        for (key, bytes) in [("photo", data.photo), ("thumbnail", metadata.thumbnail)] {
            guard let bytes else { continue }
            if embedding {
                value[key] = .data(bytes)
            } else {
                let file = "\(base).\(key).png"
                try OutputFile.write([UInt8](bytes), to: file)
                value[key] = .dictionary(["file": .string(folder.isEmpty ? file : String(file.dropFirst(folder.count)))])
            }
        }
        let json = try JSONPropertyListWriter(prettyPrinted: true).encode(.dictionary(value)) + [UInt8(ascii: "\n")]
        try OutputFile.write(json, to: destination)
    }

    /// Builds a new document at `destination` from the JSON export at `path`;
    /// the thumbnail is made again from the photo. An existing item at
    /// `destination` is never replaced.
    static func `import`(_ path: String, to destination: String) throws {
        let bytes = try DocumentSupport.readFile(path)
        let value = try bytes.withUnsafeBytes { buffer throws(PropertyListError) in
            try PropertyListReader().read(buffer, format: .json).value
        }
        guard value.dictionaryValue != nil else { throw ConversionFailure("\(path): the export is not a JSON object") }
        let document = ICTDocument()
        try document.setFirstName(value["firstName"]?.stringValue)
        try document.setLastName(value["lastName"]?.stringValue)
        try document.setDisplayName(value["displayName"]?.stringValue)
        switch value["favoriteNumber"] {
        case .real(let real)?: try document.setFavoriteNumber(real)
        case .real32(let real)?: try document.setFavoriteNumber(Double(real))
        case .integer(let integer)?: try document.setFavoriteNumber(Double(integer.int64Value ?? 0))
        case nil: break
        case let other?: throw ConversionFailure("\(path): favoriteNumber is \(other.kindNameWithArticle), not a number")
        }
        switch value["photo"] {
        case .data(let photo)?:
            try document.setPhoto(pngBytes: [UInt8](photo))
        case .dictionary(let reference)?:
            guard let file = reference["file"]?.stringValue else { throw ConversionFailure("\(path): photo has no \"file\"") }
            let folder = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
            try document.setPhoto(pngBytes: try DocumentSupport.readFile(file.hasPrefix("/") ? file : folder + file))
        case nil: break
        case let other?: throw ConversionFailure("\(path): photo is \(other.kindNameWithArticle), not data or {\"file\"}")
        }
        try document.save(to: destination)
    }

    struct ConversionFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
