import Foundation
import KeyedArchive
import PropertyList

/// Rows g–i: keyed archives, ICTKit against Foundation's NSKeyedUnarchiver
/// and NSKeyedArchiver in this process, on the same bytes.
extension Suite {
    mutating func keyedArchiveRows() throws -> [Row] {
        var rows: [Row] = []
        let (graph, foundationGraph) = Self.tenThousandObjectGraph()
        let graphBytes = Data(try KeyedArchiver.archive(graph))
        if only.contains("g") {
            let reference = try KeyedArchiveReader().read(graphBytes).decodeValue(forTopKey: "root")
            try expect(reference == graph, "g: ICTKit does not read back the 10,000-object archive it wrote")
            try expect(Self.foundationDecode(graphBytes, key: "root") is NSArray, "g: Foundation does not decode the archive")
            log("g. keyed archive decode: ICTKit vs Foundation")
            let (ours, peer) = try stopwatch.compare(
                { try KeyedArchiveReader().read(graphBytes).decodeValue(forTopKey: "root") },
                { Self.foundationDecode(graphBytes, key: "root") })
            rows.append(
                .timed(
                    "g. keyed archive decode, \(Self.objectCount(graphBytes)) objects", ours: ours,
                    peer: "Foundation NSKeyedUnarchiver", peerTime: peer, target: .faster(by: 10)))
        }
        if only.contains("h") {
            let thumbnail = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
            let metadata = BenchmarkMetadata(version: 1, displayName: "Friend 2", thumbnail: thumbnail)
            let entry = Data(try KeyedArchiver.archive(metadata, forKey: "DATA"))
            let decoded = try KeyedUnarchiver(bytes: [UInt8](entry)).decodeTopLevelObject(of: BenchmarkMetadata.self, forKey: "DATA")
            try expect(decoded == metadata, "h: ICTKit does not read back the metadata entry")
            let theirs = Self.foundationDecode(entry, key: "DATA") as? FoundationMetadata
            try expect(theirs?.thumbnail == thumbnail && theirs?.version == 1, "h: Foundation does not decode the metadata entry")
            log("h. .ict metadata decode: ICTKit vs Foundation")
            let (ours, peer) = try stopwatch.compare(
                { try KeyedUnarchiver(bytes: [UInt8](entry)).decodeTopLevelObject(of: BenchmarkMetadata.self, forKey: "DATA") },
                { Self.foundationDecode(entry, key: "DATA") })
            rows.append(
                .timed(
                    "h. .ict metadata entry decode (CTMetadata, 20 KB thumbnail)", ours: ours,
                    peer: "Foundation NSKeyedUnarchiver + setClass", peerTime: peer, target: .faster(by: 10)))
        }
        if only.contains("i") {
            log("i. keyed archive encode: ICTKit vs Foundation")
            let (ours, peer) = try stopwatch.compare(
                { try KeyedArchiver.archive(graph) },
                { try NSKeyedArchiver.archivedData(withRootObject: foundationGraph, requiringSecureCoding: false) })
            rows.append(
                .timed(
                    "i. keyed archive encode, same graph as g", ours: ours,
                    peer: "Foundation NSKeyedArchiver", peerTime: peer, target: .faster(by: 10)))
        }
        return rows
    }

    /// 2,000 records of a string, an integer, a real and data, under arrays: about 10,000 archived objects.
    static func tenThousandObjectGraph() -> (ArchivedValue, NSArray) {
        var records: [ArchivedValue] = []
        let foundation = NSMutableArray()
        for index in 0..<2_000 {
            let name = "record \(index)"
            let bytes = Data((0..<16).map { UInt8(truncatingIfNeeded: index &+ $0) })
            records.append(
                .dictionary([
                    ArchivedDictionaryEntry(key: .string("name"), value: .string(name)),
                    ArchivedDictionaryEntry(key: .string("count"), value: .integer(PropertyListInteger(index))),
                    ArchivedDictionaryEntry(key: .string("bytes"), value: .data(bytes)),
                ]))
            foundation.add(NSDictionary(dictionary: ["name": NSString(string: name), "count": NSNumber(value: index), "bytes": NSData(data: bytes)]))
        }
        return (.array(records), foundation)
    }

    static func objectCount(_ bytes: Data) -> Int {
        (try? KeyedArchiveReader().read(bytes).objects.count) ?? 0
    }

    static func foundationDecode(_ bytes: Data, key: String) -> Any? {
        guard let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: bytes) else { return nil }
        unarchiver.requiresSecureCoding = false
        unarchiver.setClass(FoundationMetadata.self, forClassName: "CTMetadata")
        return unarchiver.decodeObject(forKey: key)
    }
}

/// `CTMetadata` as ICTKit callers decode it.
struct BenchmarkMetadata: KeyedArchiveCodable, Equatable {
    static let archivedClassNames: Set<String> = ["CTMetadata"]
    var archivedClassChain: [String] { ["CTMetadata", "NSObject"] }
    var version: Int32
    var displayName: String?
    var thumbnail: Data?

    init(version: Int32, displayName: String?, thumbnail: Data?) {
        self.version = version
        self.displayName = displayName
        self.thumbnail = thumbnail
    }

    init(from decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError) {
        version = try decoder.decodeInt32(forKey: "VERSION")
        displayName = try decoder.decodeObject(of: String.self, forKey: "DISPLAY NAME")
        thumbnail = try decoder.decodeObject(of: Data.self, forKey: "THUMBNAIL")
    }

    func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        encoder.encode(Int(version), forKey: "VERSION")
        try encoder.encode(thumbnail, forKey: "THUMBNAIL")
        try encoder.encode(displayName, forKey: "DISPLAY NAME")
    }
}

/// `CTMetadata` as Foundation decodes it, an NSObject subclass registered with `setClass`.
final class FoundationMetadata: NSObject, NSCoding {
    var version: Int32
    var displayName: String?
    var thumbnail: Data?

    init?(coder: NSCoder) {
        version = coder.decodeInt32(forKey: "VERSION")
        displayName = coder.decodeObject(forKey: "DISPLAY NAME") as? String
        thumbnail = coder.decodeObject(forKey: "THUMBNAIL") as? Data
    }

    func encode(with coder: NSCoder) {
        coder.encode(version, forKey: "VERSION")
        coder.encode(displayName.map { NSString(string: $0) }, forKey: "DISPLAY NAME")
        coder.encode(thumbnail.map { NSData(data: $0) }, forKey: "THUMBNAIL")
    }
}
