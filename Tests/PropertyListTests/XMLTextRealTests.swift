import Foundation
import Testing

@testable import PropertyList

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `<real>` text read without `strtod` when the digits and the power of ten
/// are exact (Clinger's fast path) must give the very bits C's `strtod`
/// gives; everything else is left to `strtod`.
struct XMLTextRealTests {
    private func strtodBits(_ text: String) -> UInt64 {
        text.withCString { strtod($0, nil) }.bitPattern
    }

    private func fastBits(_ text: String) -> UInt64? {
        var copy = text
        return copy.withUTF8 { XMLText.exactDecimal($0)?.bitPattern }
    }

    @Test(arguments: [
        "0", "-0", "-0.0", "0.1", "1.5", "+1.5e-3", ".5", "5.", "1e22", "-1e-22", "9007199254740992", "0.8444218515250481",
        "123456.789", "1E10", "3.0e+2", "00012.5000",
    ])
    func readsExactDecimalsAsStrtodDoes(text: String) throws {
        let fast = try #require(fastBits(text), "\(text) should take the fast path")
        #expect(fast == strtodBits(text), "\(text)")
    }

    @Test(arguments: [
        "1e23", "1e-23", "9007199254740993", "-183457.70302838754", "nan", "inf", "-infinity", "1.5.2", "e5", "1e", "-", "", "0x1p3",
        "1e+", "12a", "1e00005",
    ])
    func leavesTheRestToStrtod(text: String) {
        #expect(fastBits(text) == nil, "\(text)")
    }

    /// 20,000 decimals of every shape the fast path takes (random digits,
    /// a point anywhere, exponents within and just past ±22), each read both
    /// ways: the same bits whenever the fast path answers.
    @Test func agreesWithStrtodOnRandomDecimals() {
        var generator = SystemRandomNumberGenerator()
        var answered = 0
        for _ in 0..<20_000 {
            let digitCount = Int.random(in: 1...17, using: &generator)
            var digits = (0..<digitCount).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            if Bool.random(using: &generator) {
                let point = Int.random(in: 0...digitCount, using: &generator)
                digits.insert(".", at: digits.index(digits.startIndex, offsetBy: point))
            }
            var text = (Bool.random(using: &generator) ? "-" : "") + digits
            if Bool.random(using: &generator) { text += "e\(Int.random(in: -25...25, using: &generator))" }
            guard text.contains(where: \.isNumber) else { continue }
            if let fast = fastBits(text) {
                answered += 1
                #expect(fast == strtodBits(text), "\(text)")
            }
        }
        #expect(answered > 5_000, "the fast path answered only \(answered) of 20,000")
    }
}

/// `<real>` text of up to 19 significant digits and a power of ten within
/// ±19, read without `strtod` (the exact product or quotient in 128 bits,
/// rounded once), must give the very bits C's `strtod` gives.
struct XMLTextRoundedRealTests {
    private func strtodBits(_ text: String) -> UInt64 {
        text.withCString { strtod($0, nil) }.bitPattern
    }

    private func roundedBits(_ text: String) -> UInt64? {
        var copy = text
        return copy.withUTF8 { XMLText.roundedDecimal($0)?.bitPattern }
    }

    /// Halfway and near-halfway cases (2^53 + 1 lies halfway between two
    /// doubles; ties go to even), the longest digits, both limits of the
    /// power, what Python's repr writes for the bench file's reals.
    @Test(arguments: [
        "9007199254740993", "9007199254740995", "9007199254740993.000", "18014398509481985", "9999999999999999999",
        "-183457.70302838754", "0.8444218515250481", "1.7976931348623157e19", "2.2250738585072014e-3", "1e-19", "1e19",
        "123456789012345678.9", "0.000000000000000001", "-0", "0.0e-18", "4.9406564584124654e-3", "5e-1", "0.30000000000000004",
        "1234567890123456789e-19", "1234567890123456789e19",
    ])
    func readsLongDecimalsAsStrtodDoes(text: String) throws {
        let rounded = try #require(roundedBits(text), "\(text) should be read without strtod")
        #expect(rounded == strtodBits(text), "\(text)")
    }

    @Test(arguments: [
        "12345678901234567890", "1e20", "1e-20", "0.00000000000000000001", "9007199254740993.0000000001", "2.2250738585072014e-19",
        "4.9406564584124654e-5", "0.0e-19", "nan", "inf", "1.5.2", "e5", "1e", "-", "", "0x1p3",
    ])
    func leavesTheRestToStrtod(text: String) {
        #expect(roundedBits(text) == nil, "\(text)")
    }

    /// 50,000 decimals of 1 to 19 digits, a point anywhere, exponents
    /// within and just past ±19, and 20,000 random doubles as Swift prints
    /// them (17 significant digits at most): the same bits as `strtod`.
    @Test func agreesWithStrtodOnRandomDecimals() {
        var generator = SystemRandomNumberGenerator()
        var answered = 0
        for _ in 0..<50_000 {
            let digitCount = Int.random(in: 1...19, using: &generator)
            var digits = (0..<digitCount).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            if Bool.random(using: &generator) {
                let point = Int.random(in: 0...digitCount, using: &generator)
                digits.insert(".", at: digits.index(digits.startIndex, offsetBy: point))
            }
            var text = (Bool.random(using: &generator) ? "-" : "") + digits
            if Bool.random(using: &generator) { text += "e\(Int.random(in: -22...22, using: &generator))" }
            guard text.contains(where: \.isNumber) else { continue }
            if let rounded = roundedBits(text) {
                answered += 1
                #expect(rounded == strtodBits(text), "\(text)")
            }
        }
        #expect(answered > 25_000, "answered only \(answered) of 50,000")
        for _ in 0..<20_000 {
            let number = Double(bitPattern: UInt64.random(in: 0x3C90_0000_0000_0000...0x43C0_0000_0000_0000, using: &generator))
            let text = "\(number)"
            guard let rounded = roundedBits(text) else { continue }
            #expect(rounded == number.bitPattern, "\(text)")
            #expect(rounded == strtodBits(text), "\(text)")
        }
    }
}

/// Dictionaries whose keys are ASCII and ascending are built without a
/// duplicate check; any other dictionary keeps the last value of a
/// duplicated key, as plistlib does for the same XML.
struct XMLDictionaryKeyTests {
    @Test func aKeyFollowsOnlyAnASCIIKeyItSortsAfter() {
        func follows(_ previous: String?, _ key: String) -> Bool {
            var key = key
            return key.withUTF8 { XMLPropertyListBuilder.keyFollows(previous, $0) }
        }
        #expect(follows(nil, "a"))
        #expect(follows("a", "b"))
        #expect(follows("A", "a"))
        #expect(follows("ab", "abc"))
        #expect(!follows("abc", "ab"))
        #expect(!follows("a", "a"))
        #expect(!follows("b", "a"))
        #expect(!follows("a", "é"))
        #expect(!follows(nil, "é"))
    }

    @Test func aDuplicatedKeyKeepsItsLastValueInEitherOrder() throws {
        let xml = """
            <plist version="1.0"><array>
            <dict><key>a</key><integer>1</integer><key>b</key><integer>2</integer><key>a</key><integer>3</integer></dict>
            <dict><key>a</key><integer>1</integer><key>b</key><integer>2</integer></dict>
            </array></plist>
            """
        // plistlib.loads of the same bytes: [{'a': 3, 'b': 2}, {'a': 1, 'b': 2}].
        let value = try XMLPropertyListReader().read(Data(xml.utf8))
        #expect(value == .array([["a": 3, "b": 2], ["a": 1, "b": 2]]))
        #expect(value.arrayValue?.first?.dictionaryValue?.keys.elementsEqual(["a", "b"]) == true)
    }

    @Test func dictionariesWithTheSameKeysEachKeepTheirOwnValues() throws {
        // Same keys, other values; same count, other keys; a prefix of the keys; no keys;
        // the same keys again after the others. plistlib.loads of the same bytes gives these.
        let xml = """
            <plist version="1.0"><array>
            <dict><key>a</key><integer>1</integer><key>b</key><integer>2</integer></dict>
            <dict><key>a</key><integer>3</integer><key>b</key><integer>4</integer></dict>
            <dict><key>a</key><integer>5</integer><key>c</key><integer>6</integer></dict>
            <dict><key>a</key><integer>7</integer></dict>
            <dict/>
            <dict><key>a</key><integer>8</integer><key>b</key><integer>9</integer></dict>
            </array></plist>
            """
        let value = try XMLPropertyListReader().read(Data(xml.utf8))
        #expect(value == .array([["a": 1, "b": 2], ["a": 3, "b": 4], ["a": 5, "c": 6], ["a": 7], [:], ["a": 8, "b": 9]]))
        // Changing one dictionary's keys leaves the others with the same keys as they were.
        var second = try #require(value.arrayValue?[1].dictionaryValue)
        second.removeValue(forKey: "a")
        second["d"] = 10
        #expect(second.keys.elements == ["b", "d"])
        #expect(value.arrayValue?[0].dictionaryValue?.keys.elements == ["a", "b"])
        #expect(value.arrayValue?[5].dictionaryValue?.keys.elements == ["a", "b"])
    }
}
