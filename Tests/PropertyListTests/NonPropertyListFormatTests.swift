import Foundation
import PropertyList
import TestSupport
import Testing

/// Files that sit beside property lists but are not ones say what they are.
struct NonPropertyListFormatTests {
    private func detected(_ bytes: [UInt8]) -> NonPropertyListFormat? {
        bytes.withUnsafeBytes { NonPropertyListFormat.detect($0)?.format }
    }

    private func readError(_ bytes: [UInt8]) -> PropertyListError? {
        do {
            _ = try PropertyListReader().read(Data(bytes))
            return nil
        } catch {
            return error
        }
    }

    @Test func recognisesBinaryMagic() {
        // "NIBArchive", then version 1 and 9 as little-endian 32-bit integers.
        #expect(detected(Array("NIBArchive".utf8) + [1, 0, 0, 0, 9, 0, 0, 0]) == .nibArchive)
        // A typed stream: version 4, then the 11-byte signature, little- and big-endian.
        #expect(detected([0x04, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03]) == .typedStream)
        #expect(detected([0x04, 0x0B] + Array("typedstream".utf8) + [0x81, 0x03, 0xE8]) == .typedStream)
        #expect(detected([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) == .png)
        #expect(detected(Array("bplist00".utf8)) == nil)
    }

    @Test func recognisesXMLByRootElement() throws {
        let declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let xib = declaration + "<!-- a comment -->\n<document type=\"com.apple.InterfaceBuilder3.Cocoa.XIB\" version=\"3.0\">"
        let found = try #require(Array(xib.utf8).withUnsafeBytes { NonPropertyListFormat.detect($0) })
        #expect(found.format == .interfaceBuilderDocument(rootElement: "document"))
        #expect(found.location == .lineColumn(line: 3, column: 1))
        #expect(
            detected(Array((declaration + "<archive type=\"com.apple.InterfaceBuilder3.Cocoa.XIB\">").utf8))
                == .interfaceBuilderDocument(rootElement: "archive"))
        #expect(detected(Array((declaration + "<Scheme\n   LastUpgradeVersion = \"1000\">").utf8)) == .xcodeScheme)
        #expect(detected(Array((declaration + "<Workspace version = \"1.0\">").utf8)) == .xcodeWorkspace)
        #expect(detected(Array((declaration + "<Bucket type = \"1\" version = \"2.0\">").utf8)) == .xcodeBreakpointList)
        #expect(detected(Array((declaration + "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"x\">\n<plist>").utf8)) == nil)
        // Only the root counts: a <document> inside a plist is the reader's business.
        #expect(detected(Array("<plist><document/></plist>".utf8)) == nil)
    }

    @Test func readersNameTheFormat() throws {
        let scheme = try #require(readError(Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Scheme version=\"1.3\">\n</Scheme>\n".utf8)))
        #expect(scheme.code == .unrecognizedFormat)
        #expect(scheme.message == "an Xcode scheme (<Scheme>), not a property list")
        #expect(scheme.location == .lineColumn(line: 2, column: 1))
        let nib = try #require(readError(Array("NIBArchive".utf8) + [1, 0, 0, 0, 9, 0, 0, 0]))
        #expect(nib.message == "a NIBArchive file (a compiled nib), not a property list")
        #expect(nib.location == .byteOffset(0))
        // The binary and XML readers alone say the same.
        let binary = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader().read(Data(Array("NIBArchive".utf8) + [1, 0, 0, 0, 9, 0, 0, 0] + [UInt8](repeating: 0, count: 40)))
        }
        #expect(binary.message == "a NIBArchive file (a compiled nib), not a property list")
        let xml = try #require(throws: PropertyListError.self) {
            try XMLPropertyListReader().read(Data("<!-- x -->\n<Workspace version=\"1.0\"></Workspace>".utf8))
        }
        #expect(xml.message == "an Xcode workspace (<Workspace>), not a property list")
        #expect(xml.location == .lineColumn(line: 2, column: 1))
    }

    /// Real files from `../shared/interop/realworld/` and the format each is.
    static let realFiles: [(String, NonPropertyListFormat)] = [
        ("cntrump-TextEdit/Edit.nib/designable.nib", .interfaceBuilderDocument(rootElement: "document")),
        ("adium-adium/Resources/pt_PT.lproj/AppearancePrefs.nib/designable.nib", .interfaceBuilderDocument(rootElement: "archive")),
        ("sparkle-project-Sparkle/Sparkle.xcodeproj/xcshareddata/xcschemes/Sparkle.xcscheme", .xcodeScheme),
        ("sparkle-project-Sparkle/Sparkle.xcodeproj/project.xcworkspace/contents.xcworkspacedata", .xcodeWorkspace),
        ("tuist-XcodeProj/Fixtures/iOS/Project.xcodeproj/xcshareddata/xcdebugger/Breakpoints_v2.xcbkptlist", .xcodeBreakpointList),
        (
            "macvim-dev-macvim/src/MacVim/Sparkle_1.framework/Versions/A/Resources/Autoupdate.app/Contents/Resources/SUStatus.nib/keyedobjects-101300.nib",
            .nibArchive
        ),
        ("quicksilver-Quicksilver/Quicksilver/Code-External/UKClasses/UKDistributedView/English.lproj/MainMenu.nib/objects.nib", .typedStream),
        ("sparkle-project-Sparkle/Resources/Images.xcassets/AppIcon.appiconset/icon_256x256.png", .png),
    ]

    @Test(.interopCorpus, arguments: realFiles)
    func namesRealFiles(_ path: String, _ format: NonPropertyListFormat) throws {
        let bytes = try InteropCorpus.bytes("realworld/" + path)
        #expect(detected(Array(bytes)) == format)
        #expect(readError(Array(bytes))?.message == "\(format), not a property list")
    }
}
