import Foundation
import KeyedArchive
import PropertyList
import Testing

/// Acceptance 3: two-way interop with swift-corelibs-foundation's
/// NSKeyedArchiver/NSKeyedUnarchiver on seeded random object graphs.
@Suite struct FoundationInteropTests {
    /// SplitMix64: the same graphs on every run.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A random graph as Foundation objects and as the value ours should decode.
    /// Containers already made are reused now and then, so some objects are shared.
    static func graph(_ random: inout SeededGenerator, depth: Int, made: inout [(NSObject, ArchivedValue)]) -> (NSObject, ArchivedValue) {
        if depth > 0, !made.isEmpty, Int.random(in: 0..<8, using: &random) == 0 {
            return made[Int.random(in: 0..<made.count, using: &random)]
        }
        let choice = depth >= 4 ? Int.random(in: 0..<5, using: &random) : Int.random(in: 0..<7, using: &random)
        let result: (NSObject, ArchivedValue)
        switch choice {
        case 0:
            let text = String((0..<Int.random(in: 0..<12, using: &random)).map { _ in "aé z€😀".randomElement(using: &random)! })
            result = (NSString(string: text), .string(text))
        case 1:
            let number = Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &random) >> Int64.random(in: 0..<40, using: &random)
            result = (NSNumber(value: number), .integer(PropertyListInteger(number)))
        case 2:
            let real = Double.random(in: -1e6...1e6, using: &random)
            result = (NSNumber(value: real), .real(real))
        case 3:
            let bytes = Data((0..<Int.random(in: 0..<40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            result = (NSData(data: bytes), .data(bytes))
        case 4:
            let seconds = Double(Int64.random(in: -2_000_000_000...2_000_000_000, using: &random)) / 8
            result = (NSDate(timeIntervalSinceReferenceDate: seconds), .date(Date(timeIntervalSinceReferenceDate: seconds)))
        case 5:
            var objects: [NSObject] = []
            var values: [ArchivedValue] = []
            for _ in 0..<Int.random(in: 0..<5, using: &random) {
                let (object, value) = graph(&random, depth: depth + 1, made: &made)
                objects.append(object)
                values.append(value)
            }
            result = (NSArray(array: objects), .array(values))
        default:
            let dictionary = NSMutableDictionary()
            var entries: [ArchivedDictionaryEntry] = []
            for position in 0..<Int.random(in: 0..<5, using: &random) {
                let key = "k\(position)"
                let (object, value) = graph(&random, depth: depth + 1, made: &made)
                dictionary[NSString(string: key)] = object
                entries.append(ArchivedDictionaryEntry(key: .string(key), value: value))
            }
            result = (dictionary.copy() as! NSDictionary, .dictionary(entries))
        }
        if choice >= 5 { made.append(result) }
        return result
    }

    /// Dictionaries with their entries sorted by key, as NSDictionary keeps no order.
    static func normalized(_ value: ArchivedValue) -> ArchivedValue {
        switch value {
        case .array(let elements): return .array(elements.map(normalized))
        case .dictionary(let entries):
            return .dictionary(
                entries.map { ArchivedDictionaryEntry(key: $0.key, value: normalized($0.value)) }
                    .sorted { "\($0.key)" < "\($1.key)" })
        default: return value
        }
    }

    /// What Foundation decoded, as an ArchivedValue.
    static func archivedValue(_ object: Any) -> ArchivedValue? {
        switch object {
        case let string as NSString: return .string(string as String)
        case let data as NSData: return .data(data as Data)
        case let date as NSDate: return .date(date as Date)
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            return ["d", "f"].contains(type) ? .real(number.doubleValue) : .integer(PropertyListInteger(number.int64Value))
        case let array as NSArray:
            var elements: [ArchivedValue] = []
            for element in array { guard let value = archivedValue(element) else { return nil }; elements.append(value) }
            return .array(elements)
        case let dictionary as NSDictionary:
            var entries: [ArchivedDictionaryEntry] = []
            for (key, element) in dictionary {
                guard let keyValue = archivedValue(key), let value = archivedValue(element) else { return nil }
                entries.append(ArchivedDictionaryEntry(key: keyValue, value: value))
            }
            return .dictionary(entries)
        default: return nil
        }
    }

    static let seeds = Array(0..<300)

    @Test func foundationArchivesDecodeEqualInOurs() throws {
        for seed in Self.seeds {
            var random = SeededGenerator(state: UInt64(seed))
            var made: [(NSObject, ArchivedValue)] = []
            let (object, expected) = Self.graph(&random, depth: 0, made: &made)
            let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
            let decoded = try KeyedArchiveReader().read(data).decodeValue(forTopKey: "root", allowedClassNames: ArchivedValue.builtInClassNames)
            #expect(Self.normalized(decoded) == Self.normalized(expected), "seed \(seed)")
        }
    }

    @Test func ourArchivesDecodeEqualInFoundation() throws {
        for seed in Self.seeds {
            var random = SeededGenerator(state: UInt64(seed) + 1_000_000)
            var made: [(NSObject, ArchivedValue)] = []
            let (_, value) = Self.graph(&random, depth: 0, made: &made)
            for format in KeyedArchiveWriter.Format.allCases {
                let bytes = try KeyedArchiver.archive(value, format: format)
                let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
                unarchiver.requiresSecureCoding = false
                let object = try #require(unarchiver.decodeObject(forKey: "root"), "seed \(seed) \(format)")
                #expect(Self.archivedValue(object).map(Self.normalized) == Self.normalized(value), "seed \(seed) \(format)")
            }
        }
    }

    /// The same class, our side.
    struct Metadata: KeyedArchiveCodable, Equatable {
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
            try encoder.encode(displayName, forKey: "DISPLAY NAME")
            try encoder.encode(thumbnail, forKey: "THUMBNAIL")
        }
    }

    @Test func customClassCrossesBothWays() throws {
        let thumbnail = Data((0..<2000).map { UInt8($0 % 251) })
        let ours = Metadata(version: 1, displayName: "Friend 2", thumbnail: thumbnail)
        let bytes = try KeyedArchiver.archive(ours, forKey: "DATA")
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
        unarchiver.requiresSecureCoding = false
        unarchiver.setClass(FoundationMetadata.self, forClassName: "CTMetadata")
        let theirs = try #require(unarchiver.decodeObject(forKey: "DATA") as? FoundationMetadata)
        #expect(theirs.version == 1 && theirs.displayName == "Friend 2" && theirs.thumbnail == thumbnail)

        // Linux's archiver ignores setClassName(_:for:) and writes the Swift class name:
        // ours reads the fields untyped, and typed decoding as CTMetadata refuses the class by name.
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(theirs, forKey: "DATA")
        archiver.finishEncoding()
        let archive = try KeyedArchiveReader().read(archiver.encodedData)
        guard case .object(let object) = try archive.decodeValue(forTopKey: "DATA") else {
            Issue.record("DATA is not an object")
            return
        }
        #expect(object.fields["VERSION"] == .integer(1))
        #expect(object.fields["DISPLAY NAME"] == .string("Friend 2"))
        #expect(object.fields["THUMBNAIL"] == .data(thumbnail))
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver(archive: archive).decodeTopLevelObject(of: Metadata.self, forKey: "DATA")
        }
        #expect(error?.code == .disallowedClass)
        #expect(error?.keyPath.description == "$top.DATA")
        #expect(error?.message.contains(object.classDescription.name) == true)
    }
}

/// A custom class as the original app's metadata, Foundation side (top level: Foundation needs that).
final class FoundationMetadata: NSObject, NSCoding {
    var version: Int32 = 0
    var displayName: String?
    var thumbnail: Data?
    override init() {}
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
