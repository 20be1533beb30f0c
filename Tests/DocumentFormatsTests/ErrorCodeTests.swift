import DocumentFormats
import Foundation
import KeyedArchive
import TestSupport
import Testing

/// `ICTDocumentError.Code`: the code a malformed sample document gets (and
/// that the error still names the entry), the codes' names, and a `switch`
/// over them.
struct ErrorCodeTests {
    static let malformed = Repository.root.appendingPathComponent("SampleDocs/malformed")

    @Test func aDocumentWithoutItsDataEntryIsMissingEntry() throws {
        // SampleDocs/malformed/README.md: the data entry was deleted.
        let document = try ICTDocumentFile(contentsOf: Self.malformed.appendingPathComponent("missing-entry.ict").path)
        let error = #expect(throws: ICTDocumentError.self) { _ = try document.data() }
        #expect(error?.code == .missingEntry)
        #expect(error?.code != .missingKey)
        #expect(error?.entry == "ctdocument.data")
    }

    @Test func aTruncatedDataEntryIsAnInvalidArchiveNamingTheEntry() throws {
        // The data entry was cut to half its bytes: a property-list error underneath.
        let document = try ICTDocumentFile(contentsOf: Self.malformed.appendingPathComponent("truncated-archive.ict").path)
        let error = #expect(throws: ICTDocumentError.self) { _ = try document.data() }
        #expect(error?.code == .invalidArchive)
        #expect(error?.entry == "ctdocument.data")
        #expect(error?.archiveError?.code.propertyListCode != nil)
    }

    @Test func codesAreNamedByTheirMember() {
        #expect(ICTDocumentError.Code.missingEntry.description == "missingEntry")
        #expect(ICTDocumentError.Code.invalidJSON.description == "invalidJSON")
        #expect(ICTDocumentError.Code.package.description == "package")
        #expect(ICTDocumentError.Code.imageTooLarge == .imageTooLarge)
        #expect(ICTDocumentError.Code.imageTooLarge != .damagedImage)
    }

    @Test func aSwitchWithADefaultPicksTheCode() {
        func branch(_ code: ICTDocumentError.Code) -> String {
            switch code {
            case .missingEntry, .missingKey: "missing"
            case .damagedImage: "damaged"
            default: "other"
            }
        }
        #expect(branch(.missingKey) == "missing")
        #expect(branch(.damagedImage) == "damaged")
        #expect(branch(.wrongClass) == "other")
    }
}
