import Testing

@testable import PropertyList

struct BinaryPropertyListWriterTableTests {
    @Test func findsEveryScalarWhenAllHashesCollideAndTheTableGrows() {
        // 3,000 scalars with one hash: the table starts at 1,024 slots and doubles twice, every probe walking
        // the same run; the caller's comparison tells them apart.
        var table = FlatScalarTable(expectedCount: 0)
        let hash: UInt64 = 0xDEAD_BEEF_0000_0042
        for number in 0..<3000 {
            #expect(table.find(hash: hash) { $0 == number } == nil)
            table.insert(hash: hash, number: number)
        }
        for number in [0, 1, 1023, 1024, 2999] {
            #expect(table.find(hash: hash) { $0 == number } == number)
        }
        #expect(table.find(hash: hash) { $0 == 3000 } == nil)
        #expect(table.find(hash: hash ^ 1 << 40) { _ in true } == nil)
    }

    @Test func hashesTellKindsAndBytesApart() {
        let table = FlatScalarTable(expectedCount: 0)
        func hash(_ text: String, kind: UInt8) -> UInt64 { Array(text.utf8).withUnsafeBytes { table.hash($0, kind: kind) } }
        // The same bytes as a string (1) and as data (9); lengths 0-40, so every tail length is met.
        #expect(hash("abc", kind: 1) != hash("abc", kind: 9))
        let texts = (0...40).map { String(repeating: "x", count: $0) } + ["a", "b", "ab", "ba", "abcdefgh", "abcdefgi"]
        #expect(Set(texts.map { hash($0, kind: 1) }).count == texts.count)
        #expect(table.hash(1, kind: 2) != table.hash(1, kind: 4))
        #expect(hash("same", kind: 1) == hash("same", kind: 1))
    }

    @Test func comparesRunsOfBytesExactly() {
        func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
            lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in FlatScalarTable.equal(left, right) } }
        }
        #expect(equal([], []))
        #expect(equal(Array("0123456789abcdef!".utf8), Array("0123456789abcdef!".utf8)))
        #expect(!equal(Array("0123456789abcdef!".utf8), Array("0123456789abcdef?".utf8)))
        #expect(!equal(Array("0123456?89abcdef!".utf8), Array("0123456789abcdef!".utf8)))
        #expect(!equal([1, 2], [1, 2, 3]))
    }
}
