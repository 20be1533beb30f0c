import Foundation
import PropertyList
import TestSupport
import Testing

/// The fixtures of Tests/NIBArchiveTests/Fixtures (SOURCES.md says where each comes from).
enum Fixtures {
    static let folder = Repository.root.appendingPathComponent("Tests/NIBArchiveTests/Fixtures")

    /// The compiled nibs ibtool wrote, from the public repository SOURCES.md names.
    static let nibArchives = [
        "01J-lp-oVM-view-Ze5-6b-2t3.nib", "UIViewController-01J-lp-oVM.nib", "UITabBarController-49e-Tb-3d3.nib",
        "InstallViewController.nib", "PackageListHeader.nib", "NewsArticleTableViewCell.nib",
    ]

    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    static func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: folder.appendingPathComponent(name))) }

    /// What python3 prints running `script` with `arguments`, parsed as ICTKit's lossless JSON.
    static func python(_ script: [String], _ arguments: [String]) throws -> PropertyListValue {
        try JSONPropertyListReader().read(try PythonScript.run(arguments: script + arguments))
    }

    /// nibarchive's reading of fixture `name` (Fixtures/nibarchive_peer.py).
    static func peer(_ name: String) throws -> PropertyListValue {
        try python([path("nibarchive_peer.py")], [path(name)])
    }

    /// Whether python3 can import nibarchive (scripts/install-deps.sh test installs it).
    static var peerIsInstalled: Bool { PythonScript.canImport("nibarchive") }
}

extension Trait where Self == ConditionTrait {
    /// Runs when PyPI's nibarchive is installed; skipped without it, failed on CI (as the interop corpus).
    static var nibarchivePeer: Self {
        .enabled("needs PyPI's nibarchive (scripts/install-deps.sh test)") {
            switch InteropCorpus.decision(isPresent: Fixtures.peerIsInstalled, environment: ProcessInfo.processInfo.environment) {
            case .run: return true
            case .skip: return false
            case .fail: throw PeerMissing()
            }
        }
    }
}

/// The failure of a peer test on CI without the peer.
struct PeerMissing: Error, CustomStringConvertible {
    var description: String { "python3's nibarchive is missing: scripts/install-deps.sh test installs it" }
}

/// Builds NIBArchive bytes from tables, for the malformed inputs (each test says what it breaks).
struct NIBArchiveBuilder {
    var objects: [(classIndex: Int, firstValue: Int, count: Int)] = [(0, 0, 2), (1, 2, 1)]
    var keys = ["child", "flag", "NS.bytes"]
    /// Each value: key index, type byte, then the bytes of the value.
    var values: [(key: Int, type: UInt8, payload: [UInt8])] = [(0, 10, [1, 0, 0, 0]), (1, 4, []), (2, 8, [0x82, 0x68, 0x69])]
    var classNames: [(name: String, extras: [Int32])] = [("NSObject", []), ("NSString", [7])]

    static func varint(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F))
            rest >>= 7
        }
        bytes.append(UInt8(rest) | 0x80)
        return bytes
    }

    /// The sections, and the header's counts and offsets for them.
    var bytes: [UInt8] {
        var objectBytes: [UInt8] = []
        for object in objects { objectBytes += Self.varint(object.classIndex) + Self.varint(object.firstValue) + Self.varint(object.count) }
        var keyBytes: [UInt8] = []
        for key in keys { keyBytes += Self.varint(key.utf8.count) + Array(key.utf8) }
        var valueBytes: [UInt8] = []
        for value in values { valueBytes += Self.varint(value.key) + [value.type] + value.payload }
        var classBytes: [UInt8] = []
        for entry in classNames {
            classBytes += Self.varint(entry.name.utf8.count + 1) + Self.varint(entry.extras.count)
            for extra in entry.extras { classBytes += Self.littleEndian(UInt32(bitPattern: extra)) }
            classBytes += Array(entry.name.utf8) + [0]
        }
        var bytes = Array("NIBArchive".utf8) + Self.littleEndian(1) + Self.littleEndian(9)
        var offset = 50
        for (count, section) in [
            (objects.count, objectBytes), (keys.count, keyBytes), (values.count, valueBytes), (classNames.count, classBytes),
        ] {
            bytes += Self.littleEndian(UInt32(count)) + Self.littleEndian(UInt32(offset))
            offset += section.count
        }
        return bytes + objectBytes + keyBytes + valueBytes + classBytes
    }

    static func littleEndian(_ word: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
}
