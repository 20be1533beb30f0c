import Foundation
import OrderedCollections
import PropertyList
import Testing

/// Acceptance 4: each of the key-value store's limits, one under (or at) and one over.
struct UbiquitousKeyValueStoreValidatorTests {
    let limits = UbiquitousKeyValueStoreLimits.apple

    func store(_ members: [(String, PropertyListValue)]) -> PropertyListValue {
        .dictionary(OrderedDictionary(uniqueKeysWithValues: members))
    }

    func messages(_ value: PropertyListValue) -> [String] {
        UbiquitousKeyValueStoreValidator().findings(in: value).map { "\($0.keyPath): \($0.message)" }
    }

    @Test func limitsAreApplesDocumentedOnes() {
        #expect(limits.maximumKeyCount == 1024)
        #expect(limits.maximumTotalSize == 1_048_576)
        #expect(limits.maximumValueSize == 1_048_576)
        #expect(limits.maximumKeyLength == 64)
    }

    @Test func oneKeyAndValueGiveTheirFindingsAndTheBytesTheyCount() {
        let validator = UbiquitousKeyValueStoreValidator()
        // "ké" is 3 bytes of UTF-8; the array: "ab" 2 + an integer 8 + (key "u" 1 + a UID 8) = 19.
        let value = PropertyListValue.array([.string("ab"), .integer(1), .dictionary(["u": .uid(3)])])
        let checked = validator.findings(forKey: "ké", value: value)
        #expect(checked.size == 22)
        #expect(checked.findings.map { "\($0.keyPath): \($0.message)" } == messages(store([("ké", value)])))
        #expect(checked.findings.count == 1)
        let long = String(repeating: "k", count: 65)
        let plain = validator.findings(forKey: long, value: .data(Data(count: 1_048_577)))
        #expect(plain.size == 65 + 1_048_577)
        #expect(
            plain.findings.map(\.message) == [
                "key of 65 bytes in UTF-8; keys are at most 64", "value of 1048577 bytes; a value is at most 1048576",
            ])
        #expect(validator.findings(forKey: "k", value: .bool(true)) == ([], 2))
    }

    @Test func keyCountAtAndOverTheLimit() {
        let at = store((0..<1024).map { ("k\($0)", .bool(true)) })
        #expect(messages(at) == [])
        let over = store((0..<1025).map { ("k\($0)", .bool(true)) })
        #expect(messages(over) == [": 1025 keys; the iCloud key-value store holds at most 1024"])
    }

    @Test func keyLengthAtAndOverTheLimitInUTF8Bytes() {
        let at = String(repeating: "é", count: 32)  // 64 bytes, 32 characters
        let over = String(repeating: "é", count: 32) + "a"  // 65 bytes
        #expect(messages(store([(at, .integer(1))])) == [])
        #expect(messages(store([(over, .integer(1))])) == ["\(over): key of 65 bytes in UTF-8; keys are at most 64"])
    }

    @Test func valueSizeAtAndOverTheLimit() {
        let at = store([("k", .data(Data(count: 1_048_576)))])
        // At the value limit, the key's one byte takes the whole store over its limit, not the value.
        #expect(messages(at) == [": 1048577 bytes of keys and values; the store holds at most 1048576"])
        let over = store([("k", .data(Data(count: 1_048_577)))])
        #expect(
            messages(over) == [
                "k: value of 1048577 bytes; a value is at most 1048576",
                ": 1048578 bytes of keys and values; the store holds at most 1048576",
            ])
    }

    @Test func totalSizeUnderAndOverTheLimit() {
        let half = 1_048_576 / 2
        let under = store([("a", .string(String(repeating: "x", count: half - 1))), ("b", .string(String(repeating: "x", count: half - 1)))])
        #expect(messages(under) == [])
        let over = store([("a", .string(String(repeating: "x", count: half))), ("b", .data(Data(count: half)))])
        #expect(messages(over) == [": 1048578 bytes of keys and values; the store holds at most 1048576"])
    }

    @Test func onlyPropertyListTypes() {
        #expect(messages(store([("ok", .array([.date(Date(timeIntervalSince1970: 0)), .real(1.5), .dictionary(["a": .string("b")])]))])) == [])
        #expect(messages(store([("ref", .array([.string("x"), .uid(3)]))])) == ["ref[1]: a UID is not a property-list type the key-value store accepts"])
        #expect(messages(.array([])) == [": the key-value store is a dictionary of keys and values, not an array"])
    }
}
