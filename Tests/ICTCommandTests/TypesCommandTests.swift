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

    /// Each declaration finding names the place of the value it is about:
    /// line and column in XML (hand-counted in the text below), the object's
    /// byte offset in binary (read from the file's offset table by python3).
    @Test func declarationFindingsSayWhereTheValueIs() throws {
        let folder = try scratch()
        let xml = folder.appendingPathComponent("Info.plist")
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
            	<key>CFBundleIdentifier</key>
            	<string>com.example.app</string>
            	<key>UTExportedTypeDeclarations</key>
            	<array>
            		<dict>
            			<key>UTTypeIdentifier</key>
            			<string>com.example.doc</string>
            			<key>UTTypeConformsTo</key>
            			<array>
            				<string>public.data</string>
            				<string>not an identifier</string>
            			</array>
            		</dict>
            	</array>
            </dict>
            </plist>

            """.utf8).write(to: xml)
        let run = try ICTRunner.run(["validate", xml.path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(xml.path):14:5: error: \"not an identifier\" is not a uniform type identifier (at UTExportedTypeDeclarations[0].UTTypeConformsTo[1])"),
                "\(run.stderr)")

        let binary = folder.appendingPathComponent("Info.bplist")
        #expect(try ICTRunner.run(["convert", xml.path, "--format", "binary1", "-o", binary.path]).status == 0)
        let offset = try Self.python("""
            import plistlib, sys
            data = open(sys.argv[1], 'rb').read()
            offset_size, ref_size = data[-26], data[-25]
            end = len(data)
            count, top, table = (int.from_bytes(data[end - 24 + 8 * i:end - 16 + 8 * i], 'big') for i in range(3))
            offsets = [int.from_bytes(data[table + i * offset_size:table + (i + 1) * offset_size], 'big') for i in range(count)]
            # An ASCII string object: marker 0x5_, then (17 >= 15) an integer length, then the bytes.
            print(next(o for o in offsets if data[o] >> 4 == 5 and data[o + 3:o + 20] == b'not an identifier'))
            """, binary.path)
        let binaryRun = try ICTRunner.run(["validate", binary.path])
        #expect(binaryRun.stderr.contains("\(binary.path):byte \(offset): error: \"not an identifier\" is not a uniform type identifier"),
                "\(binaryRun.stderr)")
    }

    private static func python(_ script: String, _ argument: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, argument]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
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
