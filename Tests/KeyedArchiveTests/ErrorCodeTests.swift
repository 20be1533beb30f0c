import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

/// `KeyedArchiveError.Code`: the code a bad archive gets (and that the error
/// still says where), the property-list code a `.propertyList` code carries,
/// the codes' names, and a `switch` over them.
struct ErrorCodeTests {
    @Test func anArchiveByAnotherArchiverIsWrongArchiverAtItsKey() {
        // bpylist2's MANIFEST: REJECT $archiver "NSArchiver".
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try Fixtures.archive("keyedarchive/bpylist2/invalid_type_archive.plist").decodeValue(forTopKey: "root")
        }
        #expect(error?.code == .wrongArchiver)
        #expect(error?.code.propertyListCode == nil)
        #expect(error?.keyPath.description == "$archiver")
    }

    @Test func aTruncatedDataEntryIsAPropertyListErrorWithItsByteOffset() throws {
        // SampleDocs/malformed/README.md: the data entry was cut to half its
        // bytes, so its binary property list has no trailer.
        let entry = Repository.root.appendingPathComponent("SampleDocs/malformed/truncated-archive.ict/ctdocument.data")
        let bytes = try Data(contentsOf: entry)
        let error = #expect(throws: KeyedArchiveError.self) { try KeyedArchiveReader().read(bytes) }
        let propertyListCode = try #require(error?.code.propertyListCode)
        #expect(error?.code == .propertyList(propertyListCode))
        #expect(error?.underlying?.code == propertyListCode)
        #expect(error?.code.description == "propertyList(\(propertyListCode))")
        guard case .byteOffset(let offset) = error?.underlying?.location else {
            Issue.record("no byte offset in \(String(describing: error))")
            return
        }
        #expect(offset >= 0 && offset <= bytes.count)
    }

    @Test func propertyListCodesCompareByTheWrappedCode() {
        let truncated = KeyedArchiveError.Code.propertyList(.truncated)
        #expect(truncated == .propertyList(.truncated))
        #expect(truncated != .propertyList(.invalidTrailer))
        #expect(truncated != .notAnArchive)
        #expect(truncated.propertyListCode == .truncated)
        #expect(KeyedArchiveError.Code.propertyList(.limitExceeded(.depth)).propertyListCode?.limit == .depth)
        #expect(KeyedArchiveError.Code.missingTop.propertyListCode == nil)
        // Wrapping a property-list error keeps its code.
        let wrapped = KeyedArchiveError(PropertyListError(.invalidReference, at: .byteOffset(12), "dangling"))
        #expect(wrapped.code == .propertyList(.invalidReference))
    }

    @Test func codesAreNamedByTheirMember() {
        #expect(KeyedArchiveError.Code.notAnArchive.description == "notAnArchive")
        #expect(KeyedArchiveError.Code.depthLimitExceeded.description == "depthLimitExceeded")
        #expect(KeyedArchiveError.Code.propertyList(.truncated).description == "propertyList(truncated)")
        #expect(KeyedArchiveError.Code.propertyList(.limitExceeded(.objectCount)).description == "propertyList(limitExceeded(objectCount))")
    }

    @Test func aSwitchWithADefaultPicksTheCode() {
        func branch(_ code: KeyedArchiveError.Code) -> String {
            switch code {
            case .propertyList(.truncated): "cut short"
            case .notAnArchive, .wrongArchiver: "not ours"
            case .disallowedClass: "refused"
            default: "other"
            }
        }
        #expect(branch(.propertyList(.truncated)) == "cut short")
        #expect(branch(.wrongArchiver) == "not ours")
        #expect(branch(.propertyList(.cycle)) == "other")
        #expect(branch(.cycle) == "other")
    }
}
