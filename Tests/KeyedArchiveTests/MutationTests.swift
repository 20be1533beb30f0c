import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

/// Acceptance 4: 20,000 damaged copies of the corpus archives (bit flips,
/// truncations, swapped UIDs); each decodes to a value or throws a typed error.
@Suite struct MutationTests {
    static let copies = 20_000

    /// A copy of `archive` with the values of two UID fields swapped.
    static func swappingTwoUIDs(_ archive: KeyedArchiveObjectGraph, _ random: inout FoundationInteropTests.SeededGenerator) -> KeyedArchiveObjectGraph {
        var uids: [(object: Int, key: String)] = []
        for (index, object) in archive.objects.enumerated() {
            guard case .dictionary(let fields) = object else { continue }
            for (key, value) in fields { if case .uid = value { uids.append((index, key)) } }
        }
        guard uids.count >= 2 else { return archive }
        let first = uids.randomElement(using: &random)!
        let second = uids.randomElement(using: &random)!
        var copy = archive
        guard case .dictionary(var a) = copy.objects[first.object] else { return archive }
        let saved = a[first.key]
        guard case .dictionary(let b) = copy.objects[second.object] else { return archive }
        a[first.key] = b[second.key]
        copy.objects[first.object] = .dictionary(a)
        guard case .dictionary(var b2) = copy.objects[second.object] else { return archive }
        b2[second.key] = saved
        copy.objects[second.object] = .dictionary(b2)
        return copy
    }

    /// Reads and decodes everything reachable; returns whether a value came out.
    static func decode(_ bytes: [UInt8]) -> Bool {
        do {
            let archive = try KeyedArchiveReader().read(bytes)
            for key in archive.top.keys {
                _ = try archive.decodeValue(forTopKey: key)
                _ = try? KeyedUnarchiver(archive: archive).decodeTopLevelObject(of: [String].self, forKey: key)
            }
            return true
        } catch {
            _ = error.description
            return false
        }
    }

    @Test
    func damagedArchivesNeverCrash() throws {
        let originals = try Fixtures.corpusFiles(under: "keyedarchive").map { [UInt8](try Fixtures.interopBytes($0)) }
        let archives = originals.compactMap { try? KeyedArchiveReader().read($0) }
        var random = FoundationInteropTests.SeededGenerator(state: 20_000)
        var decoded = 0
        for copy in 0..<Self.copies {
            var bytes = originals[copy % originals.count]
            switch copy % 3 {
            case 0:
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let bit = Int.random(in: 0..<(bytes.count * 8), using: &random)
                    bytes[bit / 8] ^= 1 << UInt8(bit % 8)
                }
            case 1:
                bytes.removeLast(Int.random(in: 1...bytes.count, using: &random))
            default:
                let archive = Self.swappingTwoUIDs(archives[copy % archives.count], &random)
                bytes = try BinaryPropertyListWriter().encode(archive.propertyList)
            }
            if Self.decode(bytes) { decoded += 1 }
        }
        #expect(decoded > 0 && decoded < Self.copies, "\(decoded) of \(Self.copies) decoded")
    }
}
