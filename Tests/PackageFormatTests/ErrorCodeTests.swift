import Foundation
import PackageFormat
import Testing

/// `DocumentPackageError.Code`: the code a bad package gets (and that the
/// error still says where), how `limitExceeded` codes compare, the codes'
/// names, and a `switch` over them.
struct ErrorCodeTests {
    @Test func aFifoInAPackageIsUnsupportedAndNamed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Friend.ict")
        try writeFile(path + "/ctdocument.data", "data")
        try FileManager.default.createDirectory(atPath: path + "/Contents", withIntermediateDirectories: true)
        #expect(mkfifo(path + "/Contents/pipe", 0o644) == 0)
        let error = packageError { _ = try PackageWrapper(readingFrom: path) }
        #expect(error?.code == .unsupportedFileType)
        #expect(error?.code.limit == nil)
        #expect(error?.pathInPackage == "Contents/pipe")
        #expect(error?.fileSystemPathText.hasSuffix("Friend.ict/Contents/pipe") == true)
    }

    @Test func tooManyEntriesNamesTheLimit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Three.ict")
        for name in ["a", "b", "c"] { try writeFile(path + "/" + name, name) }
        let error = packageError { _ = try PackageWrapper(readingFrom: path, limits: .init(maximumEntryCount: 2)) }
        #expect(error?.code == .limitExceeded(.entryCount))
        #expect(error?.code != .limitExceeded(.depth))
        #expect(error?.code.limit == .entryCount)
        #expect(error?.fileSystemPathText.hasPrefix(path) == true)
    }

    @Test func anInvalidChildNameIsInvalidName() throws {
        let directory = try PackageWrapper(directoryWithChildren: [:])
        let error = packageError { try directory.addChild(PackageWrapper(regularFileWithContents: Data()), named: "a/b") }
        #expect(error?.code == .invalidName)
        #expect(error?.code != .duplicateName)
    }

    @Test func codesWithALimitCompareByTheLimit() {
        let size = DocumentPackageError.Code.limitExceeded(.totalSize)
        #expect(size == .limitExceeded(.totalSize))
        #expect(size != .limitExceeded(.entrySize))
        #expect(size != .io)
        #expect(size.limit == .totalSize)
        #expect(DocumentPackageError.Code.notFound.limit == nil)
    }

    @Test func codesAreNamedByTheirMember() {
        #expect(DocumentPackageError.Code.notADirectory.description == "notADirectory")
        #expect(DocumentPackageError.Code.invalidName.description == "invalidName")
        #expect(DocumentPackageError.Code.limitExceeded(.entrySize).description == "limitExceeded(entrySize)")
    }

    @Test func aSwitchWithADefaultPicksTheCode() {
        func branch(_ code: DocumentPackageError.Code) -> String {
            switch code {
            case .notFound: "missing"
            case .limitExceeded(.entryCount), .limitExceeded(.depth): "too many or too deep"
            default: "other"
            }
        }
        #expect(branch(.notFound) == "missing")
        #expect(branch(.limitExceeded(.depth)) == "too many or too deep")
        #expect(branch(.limitExceeded(.totalSize)) == "other")
        #expect(branch(.io) == "other")
    }
}
