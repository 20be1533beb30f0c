import Foundation
import TestSupport
import Testing

/// `ict convert` end to end: formats, atomic replacement, devices, stdin/stdout, errors.
struct ConvertCommandTests {
    private func scratchFolder() throws -> URL {
        let folder = try ScratchFolder.make("convert")
        return folder
    }

    private static let smallXML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>name</key>
        \t<string>Ada</string>
        \t<key>n</key>
        \t<integer>3</integer>
        </dict>
        </plist>

        """

    @Test(.interopCorpus)
    func cocoaBinaryBecomesCocoaXMLByteForByte() throws {
        let binary = InteropCorpus.root.appendingPathComponent("bplist/cpython-plistlib/TESTDATA_FMT_BINARY.bplist").path
        let xml = try String(contentsOf: InteropCorpus.root.appendingPathComponent("xmlplist/cpython-plistlib/TESTDATA_FMT_XML.plist"), encoding: .utf8)
        let run = try ICTRunner.run(["convert", binary, "--format", "xml1", "-o", "-"])
        #expect(run.status == 0)
        #expect(run.stdout == xml)
    }

    @Test(.interopCorpus)
    func nibWithEscapeConvertsToXMLAndBackUnchanged() throws {
        // This binary nib holds ESC as a key equivalent; xml1 used to refuse it.
        let nib = InteropCorpus.root.appendingPathComponent("realworld/adium-adium/Frameworks/Adium/Resources/JoinChatWindow.nib/keyedobjects.nib").path
        let folder = try scratchFolder()
        let xml = folder.appendingPathComponent("nib.xml")
        let binary = folder.appendingPathComponent("nib.bplist")
        let again = folder.appendingPathComponent("again.xml")
        #expect(try ICTRunner.run(["convert", nib, "--format", "xml1", "-o", xml.path]).status == 0)
        let written = try Data(contentsOf: xml)
        #expect(written.contains(Data("<string>\u{1B}</string>".utf8)), "ESC is written raw, as CoreFoundation writes it")
        #expect(try ICTRunner.run(["convert", xml.path, "--format", "binary1", "-o", binary.path]).status == 0)
        #expect(try ICTRunner.run(["convert", binary.path, "--format", "xml1", "-o", again.path]).status == 0)
        #expect(try Data(contentsOf: again) == written)
    }

    @Test func xmlToBinaryAndBackGivesTheSameXML() throws {
        let folder = try scratchFolder()
        let source = folder.appendingPathComponent("in.plist")
        try Data(Self.smallXML.utf8).write(to: source)
        let binary = folder.appendingPathComponent("out.bplist")
        #expect(try ICTRunner.run(["convert", source.path, "--format", "binary1", "-o", binary.path]).status == 0)
        #expect(try Data(contentsOf: binary).prefix(8) == Data("bplist00".utf8))
        let back = try ICTRunner.run(["convert", binary.path, "--format", "xml1"])
        #expect(back.status == 0)
        #expect(back.stdout == Self.smallXML)
    }

    @Test func jsonOutputIsTheDocumentedForm() throws {
        let run = try ICTRunner.run(["convert", "-", "--format", "json"], stdin: Data(Self.smallXML.utf8))
        #expect(run.status == 0)
        #expect(run.stdout == "{\n  \"name\": \"Ada\",\n  \"n\": 3\n}\n")
    }

    @Test func replacingAFileKeepsItsPermissionsAndLeavesNoTemporaryFile() throws {
        let folder = try scratchFolder()
        let source = folder.appendingPathComponent("in.plist")
        try Data(Self.smallXML.utf8).write(to: source)
        let target = folder.appendingPathComponent("out.plist")
        try Data("old".utf8).write(to: target)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: target.path)
        let run = try ICTRunner.run(["convert", source.path, "--format", "xml1", "-o", target.path])
        #expect(run.status == 0)
        #expect(try String(contentsOf: target, encoding: .utf8) == Self.smallXML)
        let permissions = try FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? Int
        #expect(permissions == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["in.plist", "out.plist"])
    }

    @Test func badInputLeavesTheExistingOutputUntouched() throws {
        let folder = try scratchFolder()
        let source = folder.appendingPathComponent("broken.plist")
        try Data("<plist><dict><key>a</key></dict></plist>".utf8).write(to: source)
        let target = folder.appendingPathComponent("out.plist")
        try Data("precious".utf8).write(to: target)
        let run = try ICTRunner.run(["convert", source.path, "--format", "binary1", "-o", target.path])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("\(source.path):1:"))
        #expect(try String(contentsOf: target, encoding: .utf8) == "precious")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["broken.plist", "out.plist"])
    }

    @Test func convertingInPlaceNeedsOAndThenReplacesTheInput() throws {
        let folder = try scratchFolder()
        let source = folder.appendingPathComponent("in.plist")
        try Data(Self.smallXML.utf8).write(to: source)
        let toStdout = try ICTRunner.run(["convert", source.path, "--format", "json"])
        #expect(toStdout.status == 0)
        #expect(try String(contentsOf: source, encoding: .utf8) == Self.smallXML)
        let inPlace = try ICTRunner.run(["convert", source.path, "--format", "binary1", "-o", source.path])
        #expect(inPlace.status == 0)
        #expect(try Data(contentsOf: source).prefix(8) == Data("bplist00".utf8))
    }

    @Test func devicesAreWrittenDirectlyNeverReplaced() throws {
        let run = try ICTRunner.run(["convert", "-", "--format", "xml1", "-o", "/dev/null"], stdin: Data(Self.smallXML.utf8))
        #expect(run.status == 0)
        var status = stat()
        #expect(stat("/dev/null", &status) == 0)
        #expect((status.st_mode & S_IFMT) == S_IFCHR)
    }

    @Test func unknownFormatIsAUsageError() throws {
        let run = try ICTRunner.run(["convert", "-", "--format", "yaml"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("yaml"))
    }

    @Test func outputIntoAMissingFolderFailsWithTheReason() throws {
        let run = try ICTRunner.run(
            ["convert", "-", "--format", "xml1", "-o", "/nonexistent-folder/out.plist"],
            stdin: Data(Self.smallXML.utf8))
        #expect(run.status == 1)
        #expect(run.stderr.contains("/nonexistent-folder/out.plist"))
    }
}

/// `ict inspect` end to end.
struct InspectCommandTests {
    @Test func printsATreeForPeople() throws {
        let xml = """
            <plist version="1.0"><dict><key>name</key><string>Ada "A" L</string><key>list</key>
            <array><integer>-4</integer><real>0.5</real><true/><data>AAEC</data></array>
            <key>empty</key><dict/><key>when</key><date>2004-10-26T10:33:33Z</date></dict></plist>
            """
        let run = try ICTRunner.run(["inspect", "-"], stdin: Data(xml.utf8))
        #expect(run.status == 0)
        #expect(
            run.stdout == """
                {
                  "name" => "Ada \\"A\\" L"
                  "list" => [
                    0 => -4
                    1 => 0.5
                    2 => true
                    3 => {length = 3, bytes = 0x000102}
                  ]
                  "empty" => {}
                  "when" => 2004-10-26T10:33:33Z
                }

                """)
    }

    @Test func printsJSONForPrograms() throws {
        let run = try ICTRunner.run(["inspect", "--json", "-"], stdin: Data("<plist><array><data>AAEC</data></array></plist>".utf8))
        #expect(run.status == 0)
        let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(report?["format"] as? String == "xml")
        #expect(report?["value"] as? [[String: String]] == [["$data": "AAEC"]])
    }

    @Test func unreadableInputSaysWhereAndExitsOne() throws {
        let run = try ICTRunner.run(["inspect", "-"], stdin: Data("bplist00garbage".utf8))
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("<stdin>:byte "))
    }
}
