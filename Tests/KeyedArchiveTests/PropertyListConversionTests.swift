import Foundation
import KeyedArchive
import PropertyList
import Testing

/// `PropertyListConversion`: a binary archive numbered otherwise than by
/// the rule (XcodeOrderArchive, written byte by byte in HandBuiltArchives)
/// comes back whole when written again as binary; sorted keys, or a form
/// that keeps no layout, renumber it by the rule (ClassNameOnlyArchive's bytes).
struct PropertyListConversionTests {
    private func converted(_ bytes: [UInt8], to form: PropertyListConversion.Form, sortingKeys: Bool = false) throws -> [UInt8] {
        let conversion = PropertyListConversion(to: form, sortingKeys: sortingKeys)
        let input = try bytes.withUnsafeBytes { try conversion.read($0) }
        #expect(input.format == .binary)
        var output: [UInt8] = []
        try conversion.write(input) { (chunk) throws(PropertyListError) in output += chunk }
        return output
    }

    @Test func aBinaryArchiveWrittenAgainAsBinaryKeepsItsLayout() throws {
        #expect(try converted(XcodeOrderArchive.bytes, to: .binary) == XcodeOrderArchive.bytes)
    }

    @Test func sortedKeysRenumberTheArchiveByTheRule() throws {
        #expect(try converted(XcodeOrderArchive.bytes, to: .binary, sortingKeys: true) != XcodeOrderArchive.bytes)
        #expect(try converted(XcodeOrderArchive.bytes, to: .keyedArchive, sortingKeys: true) == ClassNameOnlyArchive.bytes)
    }

    @Test func anArchiveGoesToItsJSONFormAndBackWhole() throws {
        let json = try converted(XcodeOrderArchive.bytes, to: .json)
        #expect(json.last == UInt8(ascii: "\n"))
        let back = PropertyListConversion(to: .keyedArchive)
        let input = try json.withUnsafeBytes { try back.read($0, hint: .json) }
        #expect(try back.encode(input) == XcodeOrderArchive.bytes)
    }

    @Test func xmlIsWrittenInPiecesThatMakeTheWholeDocument() throws {
        let xml = try converted(ClassNameOnlyArchive.bytes, to: .xml)
        #expect(try PropertyListReader().read(Data(xml)).value == PropertyListReader().read(Data(ClassNameOnlyArchive.bytes)).value)
        #expect(String(decoding: xml.prefix(5), as: UTF8.self) == "<?xml")
    }
}
