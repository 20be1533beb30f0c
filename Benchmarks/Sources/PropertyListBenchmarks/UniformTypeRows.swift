import Foundation
import PropertyList
import SystemPackage
import UniformTypes

// Rows g and h: the UniformTypes registry (issue 6, acceptance 4).

extension Suite {
    /// The freedesktop shared-mime-info database Debian's `shared-mime-info` installs.
    static let freedesktopXML = "/usr/share/mime/packages/freedesktop.org.xml"

    mutating func uniformTypeRows() -> [Row] {
        let loadName = "j. load system types + freedesktop.org.xml"
        let loadPeer = "xmlTextReader loop over the same XML, nothing built"
        let queryName = "k. 1,000,000 conformance queries, random pairs"
        let queryPeer = "the same pairs by identifier string"
        guard let xml = FileManager.default.contents(atPath: Self.freedesktopXML) else {
            let reason = "\(Self.freedesktopXML) is missing: apt-get install shared-mime-info"
            return [
                .notMeasured(loadName, peer: loadPeer, target: .atMost(milliseconds: 50), reason: reason),
                .notMeasured(queryName, peer: queryPeer, target: .atMost(milliseconds: 1000), reason: reason),
            ]
        }
        var rows: [Row] = []
        do {
            let registry = try Self.loadRegistry(xml)
            if only.contains("j") {
                log("j. uniform types: load vs a bare libxml2 pass")
                let (ours, bare) = try stopwatch.compare({ try Self.loadRegistry(xml) }, { xml.withUnsafeBytes(bareXMLTextReaderPass) })
                var row = Row.timed(loadName, ours: ours, peer: loadPeer, peerTime: bare, target: .atMost(milliseconds: 50))
                row.note =
                    "parses the built-in Schemas/system-types.plist text, builds the registry, reads the "
                    + "\(megabytes(xml.count)) XML (bytes in memory) and merges its \(registry.count) types; conformance closure included"
                rows.append(row)
            }
            if only.contains("k") { rows.append(try conformanceQueries(registry, name: queryName, peer: queryPeer)) }
        } catch {
            rows.append(.notMeasured(loadName, peer: loadPeer, target: .atMost(milliseconds: 50), reason: "\(error)"))
        }
        return rows
    }

    /// System types from the built-in text (parsed afresh, not the cached
    /// `TypeRegistry.system`), then the shared-mime-info XML.
    private static func loadRegistry(_ xml: Data) throws -> TypeRegistry {
        let value = try PropertyListReader().read(Data(TypeDeclarationSet.systemTypeDeclarationsText.utf8)).value
        var registry = TypeRegistry()
        registry.add(TypeDeclarationSet(infoPlist: value, file: nil, exportedOrigin: .system))
        let entries = try xml.withUnsafeBytes { bytes throws(UniformTypeError) in
            try SharedMimeInfoReader.read(bytes, file: FilePath(freedesktopXML))
        }
        registry.add(entries)
        return registry
    }

    private func conformanceQueries(_ registry: TypeRegistry, name: String, peer: String) throws -> Row {
        var generator = SplitMix64(seed: 0x1C7)
        let count = registry.count
        let identifiers = registry.declarations.map(\.identifier)
        let indexes = identifiers.compactMap { registry.index(of: $0) }
        try expect(indexes.count == count, "an identifier does not find its own type")
        let positions = (0..<1_000_000).map { _ in
            (Int.random(in: 0..<count, using: &generator), Int.random(in: 0..<count, using: &generator))
        }
        let pairs = positions.map { (indexes[$0.0], indexes[$0.1]) }
        let namedPairs = positions.map { (identifiers[$0.0], identifiers[$0.1]) }
        let expected = pairs.reduce(0) { $0 + (registry.conforms($1.0, to: $1.1) ? 1 : 0) }
        let byName = namedPairs.prefix(10_000).reduce(0) { $0 + (registry.conforms($1.0, to: $1.1) ? 1 : 0) }
        let byIndex = pairs.prefix(10_000).reduce(0) { $0 + (registry.conforms($1.0, to: $1.1) ? 1 : 0) }
        try expect(byName == byIndex, "conformance by index and by identifier disagree")
        log("k. uniform types: 1M conformance queries by index vs by identifier")
        let (ours, strings) = try stopwatch.compare(
            { pairs.reduce(0) { $0 + (registry.conforms($1.0, to: $1.1) ? 1 : 0) } },
            { namedPairs.reduce(0) { $0 + (registry.conforms($1.0, to: $1.1) ? 1 : 0) } })
        var row = Row.timed(name, ours: ours, peer: peer, peerTime: strings, target: .atMost(milliseconds: 1000))
        row.note =
            "\(count) types (system + freedesktop.org.xml); pairs drawn with a seeded generator; "
            + "\(expected) of the 1,000,000 pairs conform; queries use TypeRegistry.TypeIndex (a bit-matrix load)"
        return row
    }
}

/// A small seeded generator, so every run asks the same pairs.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15  // Wrapping: the sequence is defined modulo 2^64.
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
