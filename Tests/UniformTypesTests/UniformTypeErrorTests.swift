import Foundation
import PropertyList
import SystemPackage
import TestSupport
import Testing
import UniformTypes

/// `UniformTypeError`: what reading a declaration file throws, and its description.
struct UniformTypeErrorTests {
    /// A declaration file that is not a property list: `.invalidPropertyList`
    /// naming the file, at libxml2's line and column (line 3, the mismatched
    /// end tag; `ict types` printed the same place before this error type).
    @Test func aDeclarationFileThatIsNotAPropertyListNamesTheFileAndPlace() throws {
        let path = ScratchFolder.filePath("uti", extension: "plist")
        try Data("<plist version=\"1.0\">\n<dict><key>a</key>\n<strin>x</string></dict></plist>\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = try #require(throws: UniformTypeError.self) { _ = try TypeDeclarationSet.read(contentsOf: path) }
        #expect(error.code == .invalidPropertyList)
        #expect(error.propertyListError?.code == .malformedXML)
        #expect(error.path == FilePath(path))
        #expect(error.location == .lineColumn(line: 3, column: 18))
        #expect(error.description == "\(path):3:18: Opening and ending tag mismatch: strin line 3 and string")
    }

    @Test func theDescriptionLeavesOutWhatIsNotKnown() {
        #expect(UniformTypeError(.io, path: nil, "gone").description == "gone")
        #expect(UniformTypeError(.malformedMimeCache, path: nil, at: .byteOffset(4), "cut").description == "byte 4: cut")
        let withKeyPath = UniformTypeError(.invalidPropertyList, path: "I.plist", keyPath: [.key("a"), .index(1)], "bad")
        #expect(withKeyPath.description == "I.plist: bad (at a[1])")
    }

    @Test func codesAreNamedStably() {
        let codes: [UniformTypeError.Code] = [.io, .invalidPropertyList, .malformedSharedMimeInfo, .malformedMimeCache, .inconsistentMimeDatabase]
        #expect(codes.map(\.description) == ["io", "invalidPropertyList", "malformedSharedMimeInfo", "malformedMimeCache", "inconsistentMimeDatabase"])
    }
}
