import ConflictVersions
import Foundation
import SystemPackage
import Testing

/// `DocumentVersionError.Code`: the code a missing document gets (and that
/// the error still names the path), the codes' names, and a `switch` over them.
struct ErrorCodeTests {
    @Test func aMissingDocumentIsNotFoundAtItsPath() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let missing = folder.appending("Nobody.ict")
        let error = #expect(throws: DocumentVersionError.self) { _ = try DocumentVersion.otherVersionsOfItem(at: missing) }
        #expect(error?.code == .notFound)
        #expect(error?.code != .io)
        #expect(error?.path == FilePath(missing))
    }

    @Test func codesAreNamedByTheirMember() {
        #expect(DocumentVersionError.Code.notFound.description == "notFound")
        #expect(DocumentVersionError.Code.kindMismatch.description == "kindMismatch")
        #expect(DocumentVersionError.Code.changedOnDisk.description == "changedOnDisk")
    }

    @Test func aSwitchWithADefaultPicksTheCode() {
        func branch(_ code: DocumentVersionError.Code) -> String {
            switch code {
            case .notFound: "gone"
            case .io, .changedOnDisk: "disk"
            default: "other"
            }
        }
        #expect(branch(.notFound) == "gone")
        #expect(branch(.changedOnDisk) == "disk")
        #expect(branch(.package) == "other")
    }
}
