import Foundation
import Testing

/// `ict types …` and `ict validate` on Info.plists, end to end.
struct TypesCommandTests {
    private func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ict-types-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func lookupByExtensionNamesTheICTType() throws {
        let run = try ICTRunner.run(["types", "lookup", "--extension", "ict", "--no-shared-mime-info"])
        #expect(run.status == 0)
        #expect(run.stdout == "com.appmosphereinc.icloudtest.doc\texported\tiCloudTest Document\n")
    }

    @Test func lookupByMimeTypeAndDeclarationsFile() throws {
        let run = try ICTRunner.run(["types", "lookup", "--mime-type", "image/png", "--no-shared-mime-info"])
        #expect(run.stdout == "public.png\tsystem\tPNG image\n")
        let folder = try scratch()
        let plist = folder.appendingPathComponent("Info.plist")
        try Data("""
            { UTExportedTypeDeclarations = ( { UTTypeIdentifier = com.example.zork; UTTypeConformsTo = public.data;
              UTTypeTagSpecification = { public.filename-extension = zork; }; } ); }
            """.utf8).write(to: plist)
        let declared = try ICTRunner.run(["types", "lookup", "--extension", "zork", "--declarations", plist.path, "--no-shared-mime-info"])
        #expect(declared.status == 0)
        #expect(declared.stdout == "com.example.zork\texported\n")
    }

    @Test func lookupNeedsExactlyOneTag() throws {
        let run = try ICTRunner.run(["types", "lookup"])
        #expect(run.status == 64)
    }

    @Test func conformsExitsZeroForYesAndOneForNo() throws {
        let yes = try ICTRunner.run(["types", "conforms", "public.png", "public.image", "--no-shared-mime-info"])
        #expect(yes.status == 0)
        #expect(yes.stdout == "public.png conforms to public.image\n")
        let no = try ICTRunner.run(["types", "conforms", "public.plain-text", "public.image", "--no-shared-mime-info"])
        #expect(no.status == 1)
        #expect(no.stdout == "public.plain-text does not conform to public.image\n")
    }

    @Test func showPrintsTagsOriginAndTheSupertypeTree() throws {
        let run = try ICTRunner.run(["types", "show", "com.appmosphereinc.icloudtest.doc", "--no-shared-mime-info"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("  origin: exported"))
        #expect(run.stdout.contains("    public.filename-extension: ict\n"))
        #expect(run.stdout.contains("    └─ com.apple.package\n       └─ public.directory\n          └─ public.item\n"))
        let unknown = try ICTRunner.run(["types", "show", "com.example.nothing", "--no-shared-mime-info"])
        #expect(unknown.status == 1)
    }

    @Test func identifyNamesPackagesFoldersAndSniffedPropertyLists() throws {
        let folder = try scratch()
        let document = folder.appendingPathComponent("X.ict")
        try FileManager.default.createDirectory(at: document, withIntermediateDirectories: true)
        let plain = folder.appendingPathComponent("plain")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        let binary = folder.appendingPathComponent("settings")
        try Data("bplist00".utf8).write(to: binary)
        let xml = folder.appendingPathComponent("list.plist")
        try Data("<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>\n".utf8).write(to: xml)
        let run = try ICTRunner.run(["types", "identify", document.path, plain.path, binary.path, xml.path, "--no-shared-mime-info"])
        #expect(run.status == 0)
        #expect(run.stdout == """
            \(document.path): com.appmosphereinc.icloudtest.doc (iCloudTest Document)
            \(plain.path): public.folder (folder)
            \(binary.path): com.apple.binary-property-list (binary property list)
            \(xml.path): com.apple.xml-property-list (XML property list)

            """)
    }

    @Test func validateReportsDeclarationErrorsWithKeyPaths() throws {
        let folder = try scratch()
        let plist = folder.appendingPathComponent("Info.plist")
        try Data("""
            { CFBundleIdentifier = com.example.app;
              UTExportedTypeDeclarations = ( { UTTypeIdentifier = public.mine; UTTypeConformsTo = ( public.data, "public.nope" );
                UTTypeTagSpecification = { public.filename-extension = ( ".Mine" ); }; } ); }
            """.utf8).write(to: plist)
        let run = try ICTRunner.run(["validate", plist.path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(plist.path): error: public.mine is in a domain reserved for Apple"))
        #expect(run.stderr.contains("(at UTExportedTypeDeclarations[0].UTTypeConformsTo[1])"))
        #expect(run.stderr.contains("(at UTExportedTypeDeclarations[0].UTTypeTagSpecification.public.filename-extension[0])"))
    }

    @Test(.enabled(if: ICTRunner.interopExists, "needs ../shared/interop (the shared interop corpus)"))
    func validateKeepsAnInfoPlistWithOnlyWarningsValid() throws {
        let skim = ICTRunner.interop.appendingPathComponent("uti-apps/Skim/Info.plist").path
        let run = try ICTRunner.run(["validate", skim])
        #expect(run.status == 0)
        #expect(run.stdout == "\(skim): valid XML property list\n")
        #expect(run.stderr.contains("warning: net.sourceforge.skim-app.pdfd conforms to com.apple.package"))
    }
}
