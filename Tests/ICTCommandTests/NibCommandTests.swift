import Foundation
import TestSupport
import Testing

/// `ict inspect`, `validate`, `convert --format json` and `get` on compiled nibs (Tests/NIBArchiveTests/Fixtures,
/// whose SOURCES.md says where each comes from). Expected values are nibarchive's (Python) reading of the same files.
struct NibCommandTests {
    private static func fixture(_ name: String) -> String {
        Repository.root.appendingPathComponent("Tests/NIBArchiveTests/Fixtures/\(name)").path
    }

    /// A temporary folder, removed when `body` ends.
    private func withFolder(_ body: (URL) throws -> Void) throws {
        let folder = try ScratchFolder.make("nib")
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder)
    }

    @Test func inspectShowsTopLevelObjectsConnectionsAndTheTree() throws {
        let run = try ICTRunner.run(["inspect", Self.fixture("InstallViewController.nib")])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // nibarchive: 137 objects; the root's UINibTopLevelObjectsKey lists #42 #58 #33 #17; 11 connection objects,
        // the first (#7) an outlet labelled "view" from #42 (UIProxyObject) to #33 (UIView).
        #expect(lines.first == "137 objects, 4 top-level, 11 connections")
        #expect(Array(lines[1...5]) == ["top-level objects:", "  #42 UIProxyObject", "  #58 UIProxyObject", "  #33 UIView", "  #17 UIView"])
        #expect(lines[7] == #"  outlet "view": #42 UIProxyObject -> #33 UIView"#)
        #expect(lines.contains(#"          UIProxiedObjectIdentifier: #96 NSString "IBFilesOwner""#))
        #expect(run.stderr.isEmpty)
    }

    @Test func inspectJSONHasTheGraph() throws {
        let run = try ICTRunner.run(["inspect", "--json", Self.fixture("InstallViewController.nib")])
        #expect(run.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(report["kind"] as? String == "nib")
        let members = try #require((report["nib"] as? [String: Any])?["members"] as? [[String: Any]])
        let graph = try #require(members.first?["graph"] as? [String: Any])
        #expect((graph["objects"] as? [Any])?.count == 137)
        #expect((graph["connections"] as? [[String: Any]])?.first?["label"] as? String == "view")
    }

    @Test func inspectShowsAKeyedNibAsTheSameGraph() throws {
        let run = try ICTRunner.run(["inspect", Self.fixture("keyedobjects.nib")])
        #expect(run.status == 0, "\(run.stderr)")
        // plistlib: NSConnections lists 34 NSNibControlConnectors; the first, #10, sends performMiniaturize: from #11,
        // with no NSDestination (the first responder).
        #expect(run.stdout.hasPrefix("163 objects, 2 top-level, 34 connections\n"))
        #expect(run.stdout.contains(#"  action "performMiniaturize:": #11 NSMenuItem -> (first responder)"#))
    }

    @Test func validateReadsEveryTable() throws {
        let run = try ICTRunner.run(["validate", Self.fixture("PackageListHeader.nib"), Self.fixture("NewsArticleTableViewCell.nib")])
        #expect(run.status == 0)
        #expect(
            run.stdout == """
                \(Self.fixture("PackageListHeader.nib")): valid compiled nib (NIBArchive)
                \(Self.fixture("NewsArticleTableViewCell.nib")): valid compiled nib (NIBArchive)

                """)
    }

    @Test func validateNamesTheByteOfALyingCount() throws {
        try withFolder { folder in
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixture("UIViewController-01J-lp-oVM.nib"))))
            bytes[34] = 0xFF  // The values' count, bytes 34...37: 0x27 (39) becomes 0xFF (255), more than the file holds.
            let file = folder.appendingPathComponent("Bad.nib").path
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            let run = try ICTRunner.run(["validate", "--json", file])
            #expect(run.status == 1)
            let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            let entry = try #require((report["files"] as? [[String: Any]])?.first)
            #expect(entry["kind"] as? String == "nib" && entry["valid"] as? Bool == false)
            let problem = try #require((report["problems"] as? [[String: Any]])?.first)
            #expect(problem["byte"] as? Int == 34)
        }
    }

    @Test func convertWritesTheLosslessForm() throws {
        let run = try ICTRunner.run(["convert", Self.fixture("UIViewController-01J-lp-oVM.nib"), "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let form = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        // nibarchive: versions 1 and 9; 18 objects, 16 keys, 39 values, 7 class names; the root's first value is
        // UINibTopLevelObjectsKey, an object reference.
        #expect(form["formatVersion"] as? Int == 1 && form["coderVersion"] as? Int == 9)
        #expect((form["objects"] as? [Any])?.count == 18 && (form["keys"] as? [Any])?.count == 16)
        #expect((form["values"] as? [Any])?.count == 39 && (form["classNames"] as? [Any])?.count == 7)
        let first = try #require((form["values"] as? [[String: Any]])?.first)
        #expect(first["keyName"] as? String == "UINibTopLevelObjectsKey" && first["type"] as? String == "object")
    }

    @Test func getByObjectAndKey() throws {
        let file = Self.fixture("InstallViewController.nib")
        var run = try ICTRunner.run(["get", file, "objects.7.UILabel"])
        #expect(run.status == 0)
        // An object is shown with its fields: the string's one, NS.bytes, "view" in UTF-8.
        #expect(run.stdout == "#53 NSString \"view\"\n  NS.bytes: <4 bytes: 76 69 65 77>\n")
        run = try ICTRunner.run(["get", file, "objects.7"])
        #expect(run.stdout == "#7 UIRuntimeOutletConnection\n  UILabel: #53 NSString \"view\"\n  UISource: #42 UIProxyObject\n  UIDestination: #33 UIView\n")
        // The second element of the NSArray #5 is #58, IB's first responder placeholder.
        run = try ICTRunner.run(["get", file, "objects.5.UINibEncoderEmptyKey.1", "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(object["index"] as? Int == 58 && object["className"] as? String == "UIProxyObject")
        run = try ICTRunner.run(["get", file, "objects.7.UINope"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("object 7 has no field UINope"))
    }

    /// A `UIFont` or `UIColor` object is shown decoded after its label, as `ict inspect` shows it, its raw fields
    /// after; the JSON form adds `"readable"`. (The decoded values are checked against nibarchive in
    /// `NibObjectGraphFoundationValuesTests`: #8 is `.SFUIDisplay-Bold` at 20 points, #28 the system black.)
    @Test func getShowsAFontOrColourObjectDecoded() throws {
        let file = Self.fixture("NewsArticleTableViewCell.nib")
        var run = try ICTRunner.run(["get", file, "objects.8"])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "#8 UIFont = \".SFUIDisplay-Bold\" 20 pt, usage CTFontEmphasizedUsage")
        #expect(lines.dropFirst().first == "  UIFontName: #14 NSString \".SFUIDisplay-Bold\"")
        run = try ICTRunner.run(["get", file, "objects.28"])
        #expect(run.stdout.hasPrefix("#28 UIColor = uikitSystem(blackColor)\n  UISystemColorName: #12 NSString \"blackColor\"\n"))
        run = try ICTRunner.run(["get", file, "objects.8", "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(object["readable"] as? String == "\".SFUIDisplay-Bold\" 20 pt, usage CTFontEmphasizedUsage")
        #expect((object["fields"] as? [Any])?.count == 10)
        // An object that is not a font or colour has no "readable".
        run = try ICTRunner.run(["get", Self.fixture("InstallViewController.nib"), "objects.7", "--format", "json"])
        let connection = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(connection["readable"] == nil && connection["className"] as? String == "UIRuntimeOutletConnection")
    }

    @Test func aNibFolderIsEachOfItsMembers() throws {
        try withFolder { folder in
            let nib = folder.appendingPathComponent("View.nib")
            try FileManager.default.createDirectory(at: nib, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: Self.fixture("UIViewController-01J-lp-oVM.nib"), toPath: nib.appendingPathComponent("runtime.nib").path)
            try FileManager.default.copyItem(
                atPath: Self.fixture("01J-lp-oVM-view-Ze5-6b-2t3.nib"), toPath: nib.appendingPathComponent("objects-13.0+.nib").path)
            let inspect = try ICTRunner.run(["inspect", nib.path])
            #expect(inspect.status == 0, "\(inspect.stderr)")
            #expect(inspect.stdout.hasPrefix("objects-13.0+.nib:\n15 objects"))
            #expect(inspect.stdout.contains("\nruntime.nib:\n18 objects"))
            let get = try ICTRunner.run(["get", nib.path, "runtime.nib/objects.0"])
            #expect(get.stdout.hasPrefix("#0 NSObject\n"))
            #expect(try ICTRunner.run(["validate", nib.path]).stdout == "\(nib.path): valid compiled nib (NIBArchive)\n")
            let convert = try ICTRunner.run(["convert", nib.path, "--format", "json"])
            let form = try #require(try JSONSerialization.jsonObject(with: Data(convert.stdout.utf8)) as? [String: Any])
            #expect((form["members"] as? [[String: Any]])?.map { $0["name"] as? String } == ["objects-13.0+.nib", "runtime.nib"])
        }
    }
}
