import Foundation
import PropertyList
import Testing

struct PropertyListDTDTests {
    @Test func builtInDTDIsTheSchemasFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = try String(contentsOf: root.appendingPathComponent("Schemas/PropertyList-1.0.dtd"), encoding: .utf8)
        #expect(XMLPropertyListValidator.propertyListDTDText + "\n" == file)
    }

    @Test func builtInDTDAcceptsAValidDocumentAndNamesTheLineOfAnInvalidOne() throws {
        let validator = try XMLPropertyListValidator.propertyListDTD()
        let valid = #"<?xml version="1.0"?><plist version="1.0"><dict><key>a</key><integer>1</integer></dict></plist>"#
        #expect(validator.validate(Data(valid.utf8)).isEmpty)
        let invalid = "<?xml version=\"1.0\"?>\n<plist>\n<dict>\n<string>no key</string>\n</dict>\n</plist>\n"
        let findings = validator.validate(Data(invalid.utf8))
        #expect(!findings.isEmpty)
        if case .lineColumn(let line, _) = findings.first?.location { #expect(line == 3) } else { Issue.record("no line") }
    }
}
