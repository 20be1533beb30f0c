import Foundation
import PropertyList
import Testing

/// SplitMix64: a small seeded generator, so every run tests the same trees.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// Random property-list trees covering every kind and its edge cases, within
/// what both plistlib and the format can carry.
struct RandomPropertyListTrees {
    /// What the trees may hold, by the format they will travel through.
    struct Options {
        /// UIDs exist only in binary property lists.
        var includeUIDs = false
        /// 32-bit reals: only for our binary writer (plistlib writes 64-bit reals
        /// only, and a 32-bit real written as XML text reads back as a 64-bit one).
        var includeReal32 = false
        /// Control characters and carriage returns, which XML cannot carry
        /// (plistlib refuses them; XML parsers turn CR into LF).
        var includeControlCharacters = false
        /// All zeros of a tree get the same sign. plistlib's binary writer
        /// shares equal scalars, and 0.0 == -0.0 in Python, so it writes
        /// one of them for both.
        var oneZeroSignPerTree = false
    }

    var generator: SeededGenerator
    var options: Options
    private var zeroSign = FloatingPointSign.plus

    init(seed: UInt64, _ options: Options) {
        generator = SeededGenerator(seed: seed)
        self.options = options
    }

    /// `count` trees: every third one a value of any kind, the others arrays or dictionaries.
    mutating func make(_ count: Int) -> [PropertyListValue] {
        (0..<count).map { index in
            zeroSign = below(2) == 0 ? .plus : .minus
            return index.isMultiple(of: 3) ? value(depth: 0) : container(depth: 0)
        }
    }

    private mutating func below(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &generator) }

    private mutating func value(depth: Int) -> PropertyListValue {
        if depth < 4 && below(100) < 30 { return container(depth: depth) }
        switch below(options.includeUIDs ? 9 : 8) {
        case 0, 1: return .string(string(maximumLength: 14))
        case 2: return .integer(integer())
        case 3:
            if options.includeReal32 && below(3) == 0 { return .real32(real32()) }
            return .real(real())
        case 4: return .bool(below(2) == 0)
        case 5: return .date(date())
        case 6: return .data(data())
        case 7: return .integer(integer())
        default: return .uid(uid())
        }
    }

    private mutating func container(depth: Int) -> PropertyListValue {
        let count = below(10) == 0 ? 13 + below(6) : below(6)  // sometimes around the 15-entry boundary
        if below(2) == 0 {
            return .array((0..<count).map { _ in value(depth: depth + 1) })
        }
        var keys: Set<String> = []
        var entries: [(String, PropertyListValue)] = []
        while entries.count < count {
            let key = string(maximumLength: 10)
            if keys.insert(key).inserted { entries.append((key, value(depth: depth + 1))) }
        }
        return .dictionary(.init(uniqueKeysWithValues: entries))
    }

    /// Pieces of text, none canonically equivalent to another (so keys unique
    /// in Python stay unique as Swift strings): ASCII, XML's special
    /// characters, "]]>", Latin, CJK, Arabic, symbols, astral-plane emoji and
    /// music symbols, a ZWJ sequence.
    private static let textPieces: [String] = [
        "a", "b", "z", "Q", "0", "9", " ", "  ", "\t", "\n", ".", "-", "_", "/",
        "<", ">", "&", "'", "\"", "]]>", "&amp;", "<!--", "CF$UID",
        "é", "ß", "ñ", "Å", "ő", "Ω", "ж", "中", "文", "ع", "€", "\u{A0}", "\u{2028}", "\u{FFFD}", "✅", "☃",
        "😰", "🔥", "𝄞", "🀄", "𐍈", "👩\u{200D}💻",
    ]
    private static let controlPieces: [String] = ["\u{0}", "\u{1}", "\u{1B}", "\u{1F}", "\r", "\r\n", "\u{7F}"]

    private mutating func string(maximumLength: Int) -> String {
        let pieces = Self.textPieces + (options.includeControlCharacters ? Self.controlPieces : [])
        return (0..<below(maximumLength + 1)).map { _ in pieces[below(pieces.count)] }.joined()
    }

    private static let integerBoundaries: [PropertyListInteger] = [
        0, 1, -1, 12, 14, 15, 16, 127, 128, 255, 256, -127, -128, -129, -255, -256,
        32_767, 32_768, 65_535, 65_536, -32_768, -32_769,
        PropertyListInteger(Int64(Int32.max)), PropertyListInteger(Int64(Int32.max) + 1),
        PropertyListInteger(Int64(UInt32.max)), PropertyListInteger(Int64(UInt32.max) + 1),
        PropertyListInteger(Int64(Int32.min)), PropertyListInteger(Int64(Int32.min) - 1),
        PropertyListInteger(Int64.max), PropertyListInteger(Int64.max - 1),
        PropertyListInteger(Int64.min), PropertyListInteger(Int64.min + 1),
        PropertyListInteger(UInt64(Int64.max) + 1), PropertyListInteger(UInt64.max), PropertyListInteger(UInt64.max - 1),
    ]

    private mutating func integer() -> PropertyListInteger {
        switch below(5) {
        case 0: return Self.integerBoundaries[below(Self.integerBoundaries.count)]
        case 1: return PropertyListInteger(UInt64(Int64.max) + 1 + UInt64.random(in: 0...UInt64(Int64.max), using: &generator))
        default:
            // A signed value of a random width, so every byte count occurs.
            let width = 1 + below(64)
            return PropertyListInteger(Int64(bitPattern: generator.next()) >> (64 - width))
        }
    }

    private static let realBoundaries: [Double] = [
        0, -0.0, 1, -1, 0.5, 0.1, 1.0 / 3, .pi, .infinity, -.infinity,
        1e-300, -1e-300, 1e300, 1e22, 1e16, 123_456_789.125, 9_007_199_254_740_994,
        .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
    ]

    private mutating func real() -> Double {
        let real = anyReal()
        guard options.oneZeroSignPerTree, real.isZero else { return real }
        return zeroSign == .minus ? -0.0 : 0.0
    }

    private mutating func anyReal() -> Double {
        switch below(4) {
        case 0: return Self.realBoundaries[below(Self.realBoundaries.count)]
        case 1: return Double(Int64.random(in: -1_000_000...1_000_000, using: &generator)) / 100
        default:
            // Any bit pattern but NaN, which is not equal to itself.
            while true {
                let real = Double(bitPattern: generator.next())
                if !real.isNaN { return real }
            }
        }
    }

    private mutating func real32() -> Float {
        while true {
            let real = Float(bitPattern: UInt32(truncatingIfNeeded: generator.next()))
            if !real.isNaN { return real }
        }
    }

    private static let firstSecond = Fixtures.daysSince1970(year: 1900, month: 1, day: 1) * 86_400
    private static let lastSecond = Fixtures.daysSince1970(year: 2101, month: 1, day: 1) * 86_400 - 1
    private static let dateBoundaries = [
        firstSecond, lastSecond, 0, 978_307_200, 978_307_199, 978_307_201,  // 1970, 2001 ± 1 s
    ]

    /// Whole seconds in 1900...2100: plistlib's XML dates have second resolution.
    private mutating func date() -> Date {
        let second =
            below(8) == 0
            ? Self.dateBoundaries[below(Self.dateBoundaries.count)]
            : Int.random(in: Self.firstSecond...Self.lastSecond, using: &generator)
        return Date(timeIntervalSince1970: TimeInterval(second))
    }

    private mutating func data() -> Data {
        let count = below(8) == 0 ? 50 + below(250) : below(20)  // long enough to wrap base64 lines, sometimes
        return Data((0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
    }

    private mutating func uid() -> UInt64 {
        let boundaries: [UInt64] = [0, 1, 255, 256, 65_535, 65_536, UInt64(UInt32.max)]
        return below(3) == 0 ? boundaries[below(boundaries.count)] : UInt64(below(1 << 20))
    }
}

/// Two-way interop with CPython's plistlib on a few thousand random trees:
/// plistlib writes and we read; we write and plistlib reads. Each direction
/// runs python3 once for the whole batch.
@Suite struct PlistlibInteropTests {
    static let treeCount = 2_000

    /// A fresh folder for one test's files, removed by the caller.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("plistlib-interop-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Has plistlib write `trees` in `format` ("binary" or "xml") into `folder`;
    /// returns the file of each tree.
    static func plistlibWrites(_ trees: [PropertyListValue], as format: String, into folder: URL) throws -> [URL] {
        let batch: [String: Any] = [format: trees.map(TypedJSON.tree(from:))]
        let treesFile = folder.appendingPathComponent("trees.json")
        try JSONSerialization.data(withJSONObject: batch).write(to: treesFile)
        _ = try Fixtures.runPython("plistlib_roundtrip.py", [treesFile.path, folder.path])
        let fileExtension = format == "binary" ? "bplist" : "plist"
        return trees.indices.map { folder.appendingPathComponent("\(format)-\($0).\(fileExtension)") }
    }

    /// `value` with every -0.0 made 0.0.
    static func withPositiveZeros(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .real(let real) where real.isZero: .real(0)
        case .array(let items): .array(items.map(withPositiveZeros))
        case .dictionary(let entries): .dictionary(entries.mapValues(withPositiveZeros))
        default: value
        }
    }

    /// Records the first few differences (and how many there were in all).
    static func expectNoDifferences(_ differences: [(tree: Int, difference: String)], _ direction: String) {
        for (tree, difference) in differences.prefix(10) {
            Issue.record("\(direction), tree \(tree): \(difference)")
        }
        #expect(differences.isEmpty, "\(differences.count) of \(treeCount) trees differ (\(direction))")
    }

    @Test func readsTheBinaryPlistsPlistlibWrites() throws {
        var generator = RandomPropertyListTrees(
            seed: 1, .init(includeUIDs: true, includeControlCharacters: true, oneZeroSignPerTree: true))
        let trees = generator.make(Self.treeCount)
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }

        let files = try Self.plistlibWrites(trees, as: "binary", into: folder)
        var differences: [(Int, String)] = []
        for (index, file) in files.enumerated() {
            do {
                let decoded = try BinaryPropertyListReader().read(try Data(contentsOf: file))
                if let difference = PropertyListComparison.exact.firstDifference(decoded, trees[index]) {
                    differences.append((index, difference))
                }
            } catch {
                differences.append((index, "\(file.lastPathComponent) not read: \(error)"))
            }
        }
        Self.expectNoDifferences(differences, "plistlib FMT_BINARY -> BinaryPropertyListReader")
    }

    @Test func plistlibReadsWhatOurBinaryWriterWrites() throws {
        var generator = RandomPropertyListTrees(
            seed: 2, .init(includeUIDs: true, includeReal32: true, includeControlCharacters: true))
        let trees = generator.make(Self.treeCount)
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }

        var files: [URL] = []
        for (index, tree) in trees.enumerated() {
            let file = folder.appendingPathComponent("ours-\(index).bplist")
            try Data(try BinaryPropertyListWriter().encode(tree)).write(to: file)
            files.append(file)
        }
        let decoded = try Fixtures.pythonPlistlib(files)
        var differences: [(Int, String)] = []
        for (index, result) in decoded.enumerated() {
            switch result {
            case .success(let value):
                // plistlib reads 32-bit reals as Python floats, hence `.plistlib`.
                if let difference = PropertyListComparison.plistlib.firstDifference(value, trees[index]) {
                    differences.append((index, difference))
                }
            case .failure(let error):
                differences.append((index, error.message))
            }
        }
        Self.expectNoDifferences(differences, "BinaryPropertyListWriter -> plistlib")
    }

    @Test func readsTheXMLPlistsPlistlibWrites() throws {
        var generator = RandomPropertyListTrees(seed: 3, .init(oneZeroSignPerTree: true))
        let trees = generator.make(Self.treeCount)
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }

        let files = try Self.plistlibWrites(trees, as: "xml", into: folder)
        var differences: [(Int, String)] = []
        for (index, file) in files.enumerated() {
            do {
                let decoded = try XMLPropertyListReader().read(try Data(contentsOf: file))
                if let difference = PropertyListComparison.exact.firstDifference(decoded, trees[index]) {
                    differences.append((index, difference))
                }
            } catch {
                differences.append((index, "\(file.lastPathComponent) not read: \(error)"))
            }
        }
        Self.expectNoDifferences(differences, "plistlib FMT_XML -> XMLPropertyListReader")
    }

    @Test func plistlibReadsWhatOurXMLWriterWrites() throws {
        var generator = RandomPropertyListTrees(seed: 4, .init())
        let trees = generator.make(Self.treeCount)
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }

        var files: [URL] = []
        for (index, tree) in trees.enumerated() {
            let file = folder.appendingPathComponent("ours-\(index).plist")
            try Data(try XMLPropertyListWriter().encode(tree)).write(to: file)
            files.append(file)
        }
        let decoded = try Fixtures.pythonPlistlib(files)
        var differences: [(Int, String)] = []
        for (index, result) in decoded.enumerated() {
            switch result {
            case .success(let value):
                // XMLPropertyListWriter documents CoreFoundation's "0.0 for either zero".
                let expected = Self.withPositiveZeros(trees[index])
                if let difference = PropertyListComparison.exact.firstDifference(value, expected) {
                    differences.append((index, difference))
                }
            case .failure(let error):
                differences.append((index, error.message))
            }
        }
        Self.expectNoDifferences(differences, "XMLPropertyListWriter -> plistlib")
    }
}
