import Foundation
import PropertyList
import TestSupport
import Testing

/// `ict types …` and `ict validate` on Info.plists, end to end.
struct TypesCommandTests {
    private func scratch() throws -> URL {
        let folder = try ScratchFolder.make("types")
        return folder
    }

    @Test func lookupByExtensionNamesTheICTType() throws {
        let run = try ICTRunner.run(["types", "lookup", "--extension", "ict", "--no-shared-mime-info"])
        #expect(run.status == 0)
        #expect(run.stdout == "com.appmosphereinc.icloudtest.doc\texported\tiCloudTest Document\n")
    }

    /// What `types` prints for a file it cannot read or examine: the same
    /// text as before UniformTypes had its own error (taken from that build's
    /// `ict`), the XML message being libxml2's.
    @Test func unreadableDeclarationsAndItemsSayWhere() throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = folder.appendingPathComponent("bad.plist").path
        try Data("<plist version=\"1.0\">\n<dict><key>a</key>\n<strin>x</string></dict></plist>\n".utf8).write(to: URL(fileURLWithPath: bad))
        let notAPropertyList = try ICTRunner.run(["types", "lookup", "--extension", "zork", "--declarations", bad, "--no-shared-mime-info"])
        #expect(notAPropertyList.status == 1)
        #expect(notAPropertyList.stderr == "\(bad):3:18: error: Opening and ending tag mismatch: strin line 3 and string\n")
        let missing = folder.appendingPathComponent("nope.plist").path
        let absent = try ICTRunner.run(["types", "lookup", "--extension", "zork", "--declarations", missing, "--no-shared-mime-info"])
        #expect(absent.status == 1)
        #expect(absent.stderr == "\(missing): error: cannot open \(missing): No such file or directory\n")
        let item = folder.appendingPathComponent("gone/x.txt").path
        let identify = try ICTRunner.run(["types", "identify", item, "--no-shared-mime-info"])
        #expect(identify.status == 1)
        #expect(identify.stderr == "\(item): error: cannot examine \(item): No such file or directory\n")
    }

    @Test func lookupByMimeTypeAndDeclarationsFile() throws {
        let run = try ICTRunner.run(["types", "lookup", "--mime-type", "image/png", "--no-shared-mime-info"])
        #expect(run.stdout == "public.png\tsystem\tPNG image\n")
        let folder = try scratch()
        let plist = folder.appendingPathComponent("Info.plist")
        try Data(
            """
            { UTExportedTypeDeclarations = ( { UTTypeIdentifier = com.example.zork; UTTypeConformsTo = public.data;
              UTTypeTagSpecification = { public.filename-extension = zork; }; } ); }
            """.utf8
        ).write(to: plist)
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
        #expect(
            run.stdout == """
                \(document.path): com.appmosphereinc.icloudtest.doc (iCloudTest Document)
                \(plain.path): public.folder (folder)
                \(binary.path): com.apple.binary-property-list (binary property list)
                \(xml.path): com.apple.xml-property-list (XML property list)

                """)
    }

    /// A photographer's files: camera RAW types as macOS's RawCameraTypes.bundle declares them (by hand from its
    /// Info.plist, cited in Tests/UniformTypesTests/Fixtures/coretypes/SOURCES.md), whatever the TIFF-like content.
    @Test func identifyNamesCameraRawFiles() throws {
        let folder = try scratch()
        let names = ["IMG_0001.CR2", "DSC_0001.NEF", "DSC00001.ARW", "P1000001.RW2", "DSCF0001.RAF", "IMG_0002.CR3"]
        for name in names {
            // A little-endian TIFF header, as CR2, NEF, ARW and RW2 files start.
            try Data([0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00]).write(to: folder.appendingPathComponent(name))
        }
        let run = try ICTRunner.run(["types", "identify", "--no-shared-mime-info"] + names.map { folder.appendingPathComponent($0).path })
        #expect(run.status == 0)
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        #expect(
            run.stdout == """
                \(path("IMG_0001.CR2")): com.canon.cr2-raw-image (Canon CR2 raw image)
                \(path("DSC_0001.NEF")): com.nikon.raw-image (Nikon raw image)
                \(path("DSC00001.ARW")): com.sony.arw-raw-image (Sony ARW raw image)
                \(path("P1000001.RW2")): com.panasonic.rw2-raw-image (Panasonic raw 2 image)
                \(path("DSCF0001.RAF")): com.fuji.raw-image (Fuji raw image)
                \(path("IMG_0002.CR3")): com.canon.cr3-raw-image (Canon CR3 raw image)

                """)
    }

    @Test func validateReportsDeclarationErrorsWithKeyPaths() throws {
        let folder = try scratch()
        let plist = folder.appendingPathComponent("Info.plist")
        try Data(
            """
            { CFBundleIdentifier = com.example.app;
              UTExportedTypeDeclarations = ( { UTTypeIdentifier = public.mine; UTTypeConformsTo = ( public.data, "public.nope" );
                UTTypeTagSpecification = { public.filename-extension = ( ".Mine" ); }; } ); }
            """.utf8
        ).write(to: plist)
        // The file reads, so its declarations' findings are warnings; --strict fails on them.
        let run = try ICTRunner.run(["validate", plist.path])
        #expect(run.status == 0)
        #expect(try ICTRunner.run(["validate", "--strict", plist.path]).status == 1)
        #expect(run.stderr.contains("\(plist.path): warning: public.mine is in a domain reserved for Apple"))
        #expect(run.stderr.contains("(at UTExportedTypeDeclarations[0].UTTypeConformsTo[1])"))
        #expect(run.stderr.contains("(at UTExportedTypeDeclarations[0].UTTypeTagSpecification.public.filename-extension[0])"))
    }

    /// Each declaration finding names the place of the value it is about:
    /// line and column in XML (hand-counted in the text below), the object's
    /// byte offset in binary (read from the file's offset table by python3).
    @Test func declarationFindingsSayWhereTheValueIs() throws {
        let folder = try scratch()
        let xml = folder.appendingPathComponent("Info.plist")
        try Data(
            """
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

            """.utf8
        ).write(to: xml)
        let run = try ICTRunner.run(["validate", xml.path])
        #expect(run.status == 0)
        #expect(
            run.stderr.contains(
                "\(xml.path):14:5: warning: \"not an identifier\" is not a uniform type identifier (at UTExportedTypeDeclarations[0].UTTypeConformsTo[1])"),
            "\(run.stderr)")

        let binary = folder.appendingPathComponent("Info.bplist")
        #expect(try ICTRunner.run(["convert", xml.path, "--format", "binary1", "-o", binary.path]).status == 0)
        let offset = try Self.python(
            """
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
        #expect(
            binaryRun.stderr.contains("\(binary.path):byte \(offset): warning: \"not an identifier\" is not a uniform type identifier"),
            "\(binaryRun.stderr)")
    }

    private static func python(_ script: String, _ argument: String) throws -> String {
        try PythonScript.text(script, arguments: [argument]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.interopCorpus)
    func validateKeepsAnInfoPlistWithOnlyWarningsValid() throws {
        let skim = InteropCorpus.root.appendingPathComponent("uti-apps/Skim/Info.plist").path
        let run = try ICTRunner.run(["validate", skim])
        #expect(run.status == 0)
        #expect(run.stdout == "\(skim): valid XML property list\n")
        #expect(run.stderr.contains("warning: net.sourceforge.skim-app.pdfd conforms to com.apple.package"))
    }

    // MARK: - Types real apps ship (issue 11, point 4)

    /// Package folders of well-known apps, made empty in a temporary folder:
    /// identify names their types (Schemas/well-known-app-types.plist), not public.folder.
    @Test func identifyNamesXcodeAndInterfaceBuilderFolders() throws {
        let folder = try scratch()
        let expected = [
            ("App.xcodeproj", "com.apple.xcode.project"), ("App.xcworkspace", "com.apple.dt.document.workspace"),
            ("Sketch.playground", "com.apple.dt.playground"), ("Assets.xcassets", "com.apple.dt.assetcatalog"),
            ("MainMenu.nib", "com.apple.interfacebuilder.document.cocoa"), ("Report.pages", "com.apple.iWork.Pages.pages"),
        ]
        var paths: [String] = []
        for (name, _) in expected {
            let path = folder.appendingPathComponent(name).path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            paths.append(path)
        }
        let run = try ICTRunner.run(["types", "identify"] + paths + ["--no-shared-mime-info"])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        for ((_, identifier), (path, line)) in zip(expected, zip(paths, lines)) {
            #expect(line.hasPrefix("\(path): \(identifier) ("), "\(line)")
        }
        let show = try ICTRunner.run(["types", "show", "com.apple.xcode.project", "--no-shared-mime-info"])
        #expect(show.stdout.contains("  origin: well-known (built-in, source well-known-apps"), "\(show.stdout)")
    }

    /// The same types on real folders from the interop corpus.
    @Test(.interopCorpus)
    func identifyNamesRealXcodeAndNibFolders() throws {
        let expected = [
            ("realworld/CocoaPods-Xcodeproj/spec/fixtures/Sample Project/Emoji.xcodeproj", "com.apple.xcode.project"),
            ("realworld/macvim-dev-macvim/src/MacVim/MacVim.xcodeproj", "com.apple.xcode.project"),
            ("realworld/CocoaPods-Xcodeproj/spec/fixtures/libPusher.xcworkspace", "com.apple.dt.document.workspace"),
            (
                "realworld/CocoaPods-Xcodeproj/spec/fixtures/CommonBuildSettings/Project/Swift_iOS_Native/Assets.xcassets",
                "com.apple.dt.assetcatalog"
            ),
            ("packages/TextEdit-sample-nibs/Edit.nib", "com.apple.interfacebuilder.document.cocoa"),
            ("realworld/adium-adium/Resources/ja.lproj/ProxyPasswordPrompt.nib", "com.apple.interfacebuilder.document.cocoa"),
        ].filter { FileManager.default.fileExists(atPath: InteropCorpus.root.appendingPathComponent($0.0).path) }
        #expect(expected.count >= 4)
        let paths = expected.map { InteropCorpus.root.appendingPathComponent($0.0).path }
        let run = try ICTRunner.run(["types", "identify"] + paths + ["--no-shared-mime-info"])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == paths.count)
        for ((_, identifier), (path, line)) in zip(expected, zip(paths, lines)) {
            #expect(line.hasPrefix("\(path): \(identifier) ("), "\(line)")
        }
    }

    /// The corpus's Info.plists: every property list under uti-apps, and
    /// those under realworld whose name has "Info" in it.
    static func corpusInfoPlists() -> [URL] {
        let manager = FileManager.default
        var files: [URL] = []
        for (folder, onlyInfo) in [("uti-apps", false), ("realworld", true)] {
            let root = InteropCorpus.root.appendingPathComponent(folder)
            guard let walker = manager.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.pathExtension == "plist" {
                if !onlyInfo || url.lastPathComponent.contains("Info") { files.append(url) }
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Every system type (public.*, com.apple.*) a corpus Info.plist's
    /// exported or imported declaration conforms to is one `ict types show` knows.
    @Test(.interopCorpus)
    func showKnowsEverySystemTypeTheCorpusConformsTo() throws {
        var parents: Set<String> = []
        for file in Self.corpusInfoPlists() {
            let mapped = try MappedFile(path: file.path)
            let value = try withExtendedLifetime(mapped) { try PropertyListReader().read(mapped.bytes).value }
            for key in ["UTExportedTypeDeclarations", "UTImportedTypeDeclarations"] {
                for declaration in value.dictionaryValue?[key]?.arrayValue ?? [] {
                    let conformsTo = declaration.dictionaryValue?["UTTypeConformsTo"]
                    parents.formUnion(conformsTo?.arrayValue?.compactMap(\.stringValue) ?? conformsTo?.stringValue.map { [$0] } ?? [])
                }
            }
        }
        // Left out: IINA's "public.mpeg-4-audio " (a trailing space, so no
        // type at all; ict validate reports it as an error).
        let systemParents = parents.filter { identifier in
            (identifier.hasPrefix("public.") || identifier.hasPrefix("com.apple.")) && !identifier.contains(" ")
        }
        #expect(systemParents.count >= 25)
        for identifier in systemParents.sorted() {
            let run = try ICTRunner.run(["types", "show", identifier, "--no-shared-mime-info"])
            #expect(run.status == 0, "ict types show \(identifier): \(run.stderr)")
        }
    }

    /// Corpus Info.plists that are certainly wrong, so ict validate exits 1, and why.
    static let certainlyWrongInfoPlists = [
        // An imported type conforms to "public.mpeg-4-audio " (trailing space), and
        // a document type lists "" in LSItemContentTypes: malformed identifiers.
        "uti-apps/IINA/Info.plist": "malformedIdentifier",
        // Xcode's template placeholder YOUR_EXTERNAL_RECORD_UTI (underscores) was
        // never replaced: a malformed identifier, exported and named by a document type.
        "realworld/CocoaPods-Xcodeproj/spec/fixtures/Sample Project/Cocoa ApplicationImporter/Cocoa ApplicationImporter-Info.plist":
            "YOUR_EXTERNAL_RECORD_UTI",
        "realworld/CocoaPods-Xcodeproj/spec/fixtures/Sample Project/ReferencedProject/ReferencedProjectImporter/ReferencedProjectImporter-Info.plist":
            "YOUR_EXTERNAL_RECORD_UTI",
        // The template's exported and imported declarations have no UTTypeIdentifier.
        "realworld/CocoaPods-Xcodeproj/spec/fixtures/Sample Project/Cocoa Application/Cocoa Application-Info.plist":
            "a type declaration has no UTTypeIdentifier",
        // MacVim exports public.plain-text, public.c-header… (Apple's reserved
        // domain) and "org.vim.pch++-file" ('+' is not allowed in an identifier).
        "realworld/macvim-dev-macvim/src/MacVim/Info.plist": "is in a domain reserved for Apple",
        // A stale copy of Adium's Info.plist: the "Adium Chat Log" document type
        // sets LSTypeIsPackage for com.adiumx.htmllog, which Adium itself
        // declares as public.data and public.html.
        "realworld/adium-adium/Resources/Info copy.plist": "LSTypeIsPackage is true but com.adiumx.htmllog",
    ]

    /// Acceptance: ict validate passes every corpus Info.plist (warnings
    /// allowed) but those listed above, which fail for the reason given.
    @Test(.interopCorpus)
    func validatePassesEveryCorpusInfoPlistAndStrictFailsTheCertainlyWrong() throws {
        let files = Self.corpusInfoPlists()
        #expect(files.count >= 40)
        let prefix = InteropCorpus.root.path + "/"
        var failed: [String] = []
        for file in files {
            let relative = String(file.path.dropFirst(prefix.count))
            let run = try ICTRunner.run(["validate", file.path])
            if let reason = Self.certainlyWrongInfoPlists[relative] {
                // It reads, so it is valid; its wrong declarations are warnings, and fail with --strict.
                #expect(run.status == 0, "\(relative): \(run.stderr)")
                #expect(try ICTRunner.run(["validate", "--strict", file.path]).status == 1, "\(relative) was expected to fail with --strict")
                if reason == "malformedIdentifier" {
                    #expect(run.stderr.contains("is not a uniform type identifier"), "\(relative): \(run.stderr)")
                } else {
                    #expect(run.stderr.contains(reason), "\(relative): \(run.stderr)")
                }
            } else if run.status != 0 {
                failed.append("\(relative): \(run.stderr)")
            }
            // Every problem line has the one form PATH:LOCATION: severity: message.
            for line in run.stderr.split(separator: "\n") {
                #expect(line.hasPrefix(file.path + ":") && (line.contains(": warning: ") || line.contains(": error: ")), "\(line)")
            }
        }
        #expect(failed.isEmpty, "\(failed.joined(separator: "\n"))")
    }

    /// A Spotlight importer's Info.plist (CFBundleTypeRole MDImporter) is valid.
    @Test(.interopCorpus)
    func validateAcceptsSpotlightImporters() throws {
        for importer in [
            "realworld/JackieXie168-skim/SkimImporter/Info.plist",
            "realworld/adium-adium/Frameworks/AIUtilities/Other/Adium Spotlight Importer/Info.plist",
        ] {
            let path = InteropCorpus.root.appendingPathComponent(importer).path
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let run = try ICTRunner.run(["validate", path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(!run.stderr.contains("MDImporter"))
        }
    }
}
