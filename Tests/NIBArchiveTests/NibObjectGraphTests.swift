import Foundation
import KeyedArchive
import NIBArchive
import PropertyList
import TestSupport
import Testing

@Suite struct NibObjectGraphTests {
    @Test(.nibarchivePeer, arguments: Fixtures.nibArchives)
    func connectionsAndTopLevelObjectsAreNibarchives(name: String) throws {
        let graph = NibObjectGraph(try NIBArchiveReader().read(try Fixtures.bytes(name)))
        let peer = try #require(try Fixtures.peer(name).dictionaryValue)
        let mine = try #require(graph.jsonForm.dictionaryValue)
        #expect(mine["connections"] == peer["connections"], "\(name)")
        #expect(mine["topLevelObjects"] == peer["topLevelObjects"], "\(name)")
    }

    @Test func anOutletReadsAsIBShowsIt() throws {
        let graph = NibObjectGraph(try NIBArchiveReader().read(try Fixtures.bytes("InstallViewController.nib")))
        // Object 7 (see nibarchive's listing): UIRuntimeOutletConnection, UILabel #53 "view", UISource #42, UIDestination #33.
        let outlet = try #require(graph.connections.first)
        #expect(outlet == NibObjectGraph.Connection(kind: .outlet, objectIndex: 7, source: 42, destination: 33, label: "view"))
        #expect(graph.text(of: outlet) == #"outlet "view": #42 UIProxyObject -> #33 UIView"#)
    }

    @Test func theTreeMarksCyclesAndSharedObjects() throws {
        // Object 0 refers to 1 twice; object 1 refers back to 0.
        var builder = NIBArchiveBuilder()
        builder.objects = [(0, 0, 2), (0, 2, 1)]
        builder.values = [(0, 10, [1, 0, 0, 0]), (0, 10, [1, 0, 0, 0]), (0, 10, [0, 0, 0, 0])]
        let text = try NibObjectGraph(try NIBArchiveReader().read(builder.bytes)).treeText()
        #expect(
            text == """
                2 objects, 0 top-level, 0 connections
                top-level objects:
                connections:
                objects:
                #0 NSObject
                  child:
                    #1 NSObject
                      child: #0 NSObject (cycle)
                  child: #1 NSObject (shown above)

                """)
    }

    @Test func nestingDeeperThanTheLimitIsRefusedAtItsValue() throws {
        // A chain 0 -> 1 -> … -> 9, each object's one value a reference to the next.
        var builder = NIBArchiveBuilder()
        builder.objects = (0..<10).map { (0, $0, $0 < 9 ? 1 : 0) }
        builder.values = (1..<10).map { (0, 10, [UInt8($0), 0, 0, 0]) }
        let file = try NIBArchiveReader().read(builder.bytes)
        let graph = NibObjectGraph(file)
        #expect(throws: Never.self) { try graph.treeText(limits: NIBArchiveLimits(maximumDepth: 9)) }
        let error = try #require(throws: NIBArchiveError.self) { try graph.treeText(limits: NIBArchiveLimits(maximumDepth: 4)) }
        #expect(error.code == .limitExceeded(.depth))
        // Object 5 is reached through value 4, the fifth reference.
        #expect(error.byteOffset == file.values[4].byteOffset)
    }

    @Test func stringsAndDataAreShownEscaped() throws {
        var builder = NIBArchiveBuilder()
        builder.values[2].payload = [0x83, 0x61, 0x0A, 0x1B]  // "a\n\u{1B}"
        let text = try NibObjectGraph(try NIBArchiveReader().read(builder.bytes)).treeText()
        #expect(text.contains(#"child: #1 NSString "a\n\u{1b}""#))
    }

    @Test func pointsAndRectsAreShownAsTheirDoubles() throws {
        let graph = NibObjectGraph(try NIBArchiveReader().read(try Fixtures.bytes("InstallViewController.nib")))
        // nibarchive decodes object 3's UIBounds (33 bytes, 0x07 first) as [0.0, 0.0, 320.0, 180.0]
        // and its UICenter (17 bytes) as [187.5, 333.5].
        #expect(graph.text(of: try graph.value(atKeyPath: "objects.3.UIBounds")) == "{0.0, 0.0, 320.0, 180.0}")
        #expect(graph.text(of: try graph.value(atKeyPath: "objects.3.UICenter")) == "{187.5, 333.5}")
        #expect(graph.text(of: .data([7, 1, 2])) == "<3 bytes: 07 01 02>")
    }

    @Test func keyPaths() throws {
        let graph = NibObjectGraph(try NIBArchiveReader().read(try Fixtures.bytes("InstallViewController.nib")))
        #expect(try graph.value(atKeyPath: "objects.7.UILabel") == .object(53))
        #expect(try graph.value(atKeyPath: "objects.4.NS.bytes") == .data(Array("_teleprompterView".utf8)))
        // Object 5 is an NSArray: its elements are all UINibEncoderEmptyKey; the second is #58.
        #expect(try graph.value(atKeyPath: "objects.5.UINibEncoderEmptyKey.1") == .object(58))
        #expect(try graph.value(atKeyPath: "root") == .object(0))
        for missing in ["objects.7.UINope", "objects.999", "objects.x", "nothing", "topLevelObjects.99"] {
            #expect(throws: NIBArchiveError.self, "\(missing)") { try graph.value(atKeyPath: missing) }
        }
    }

    @Test func aKeyedNibIsTheSameGraph() throws {
        let archive = try KeyedArchiveReader().read(try Fixtures.bytes("keyedobjects.nib"))
        let graph = try NibObjectGraph(keyedArchive: archive)
        // Python's plistlib: IB.objectdata is $objects[1]; its NSConnections (#9) list 34 connectors
        // (all NSNibControlConnector or NSNibOutletConnector); the first, #10, is an action with NSSource #11.
        let expected = try Fixtures.python(
            [
                "-c",
                """
                import json, plistlib, sys
                d = plistlib.load(open(sys.argv[1], "rb")); o = d["$objects"]
                data = o[d["$top"]["IB.objectdata"].data]
                found = []
                for uid in o[data["NSConnections"].data]["NS.objects"]:
                    c = o[uid.data]; name = o[c["$class"].data]["$classname"]
                    label = o[c["NSLabel"].data]
                    found.append([uid.data, "action" if name == "NSNibControlConnector" else "outlet",
                                  label if isinstance(label, str) else label["NS.string"]])
                json.dump(found, sys.stdout)
                """,
            ], [Fixtures.path("keyedobjects.nib")])
        let mine = PropertyListValue.array(
            graph.connections.map { .array([.integer(PropertyListInteger($0.objectIndex)), .string($0.kind.rawValue), .string($0.label ?? "")]) })
        #expect(mine == expected)
        #expect(graph.rootIndex == 1)
        #expect(graph.object(1)?.className == "NSIBObjectData")
        #expect(try graph.treeText().hasPrefix("\(graph.objects.count(where: { $0 != nil })) objects"))
    }

    @Test func aKeyedArchiveThatIsNoNibIsRefused() throws {
        let archive = KeyedArchiveObjectGraph(top: ["root": .uid(0)], objects: [.string("$null")])
        #expect(throws: NIBArchiveError.self) { try NibObjectGraph(keyedArchive: archive) }
    }

    /// An iOS nib as `ibtool` compiled them before iOS 6: a keyed archive
    /// whose `$top` holds `UINibTopLevelObjectsKey`, `UINibObjectsKey`,
    /// `UINibConnectionsKey` … directly. Built here in the shape of such a
    /// `MainWindow.nib` (read with plistlib: proxies for the file's owner and
    /// first responder, a class-swapped app delegate and view controller, a
    /// window, three outlets), the objects numbered as in that file.
    private func uikitKeyedNib() -> KeyedArchiveObjectGraph {
        func classDescription(_ names: [String]) -> PropertyListValue {
            .dictionary(["$classes": .array(names.map { .string($0) }), "$classname": .string(names[0])])
        }
        func array(_ elements: [UInt64]) -> PropertyListValue { .dictionary(["NS.objects": .array(elements.map { .uid($0) }), "$class": .uid(20)]) }
        func outlet(_ label: UInt64, source: UInt64, destination: UInt64) -> PropertyListValue {
            .dictionary(["UILabel": .uid(label), "UIDestination": .uid(destination), "$class": .uid(25), "UISource": .uid(source)])
        }
        let objects: [PropertyListValue] = [
            "$null", array([2, 5, 7, 11, 14]),
            .dictionary(["$class": .uid(4), "UIProxiedObjectIdentifier": .uid(3)]), "IBFilesOwner",
            classDescription(["UIProxyObject", "NSObject"]),
            .dictionary(["$class": .uid(4), "UIProxiedObjectIdentifier": .uid(6)]), "IBFirstResponder",
            .dictionary(["UIClassName": .uid(8), "UIOriginalClassName": .uid(9), "$class": .uid(10)]), "AppDelegate", "UICustomObject",
            classDescription(["UIClassSwapper", "NSObject"]),
            .dictionary(["UINibName": .uid(12), "UIClassName": .uid(12), "UIOriginalClassName": .uid(13), "$class": .uid(10)]),
            "ViewController", "UIViewController",
            .dictionary(["UIBackgroundColor": .uid(17), "UIBounds": .uid(15), "UIHidden": true, "UICenter": .uid(16), "$class": .uid(19)]),
            "{{0, 0}, {320, 480}}", "{160, 240}",
            .dictionary(["UIAlpha": 1.0, "UIRed": 1.0, "UIBlue": 1.0, "UIColorComponentCount": 4, "$class": .uid(18), "UIGreen": 1.0]),
            classDescription(["UIColor", "NSObject"]), classDescription(["UIWindow", "UIView", "UIResponder", "NSObject"]),
            classDescription(["NSArray", "NSObject"]), array([2, 5, 7, 11, 14]), array([23, 26, 28]),
            outlet(24, source: 7, destination: 14), "window",
            classDescription(["UIRuntimeOutletConnection", "UIRuntimeConnection", "NSObject"]),
            outlet(27, source: 2, destination: 7), "delegate", outlet(29, source: 7, destination: 11), "viewController", array([]),
        ]
        return KeyedArchiveObjectGraph(
            top: [
                "UINibAccessibilityConfigurationsKey": .uid(30), "UINibTopLevelObjectsKey": .uid(1), "UINibVisibleWindowsKey": .uid(30),
                "UINibConnectionsKey": .uid(22), "UINibObjectsKey": .uid(21),
            ], objects: objects)
    }

    @Test func anIOSNibCompiledBeforeIOS6IsAGraphRootedAtItsTop() throws {
        // Written out and read back as a file, as `ict` reads a .nib.
        let path = ScratchFolder.filePath("NibObjectGraphTests", extension: "nib")
        try Data(try KeyedArchiveWriter().encode(uikitKeyedNib())).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let nib = try CompiledNib(contentsOfPath: path)
        let graph = try #require(try nib.members.first?.graph())
        #expect(graph.rootIndex == 0)
        #expect(graph.object(0)?.className == "$top")
        #expect(try graph.value(atKeyPath: "objects.0.UINibConnectionsKey") == .object(22))
        #expect(graph.topLevelObjects == [2, 5, 7, 11, 14])
        #expect(graph.object(14)?.className == "UIWindow")
        #expect(graph.object(7)?.className == "UIClassSwapper")
        #expect(
            graph.connections == [
                NibObjectGraph.Connection(kind: .outlet, objectIndex: 23, source: 7, destination: 14, label: "window"),
                NibObjectGraph.Connection(kind: .outlet, objectIndex: 26, source: 2, destination: 7, label: "delegate"),
                NibObjectGraph.Connection(kind: .outlet, objectIndex: 28, source: 7, destination: 11, label: "viewController"),
            ])
        // The text form starts at the root and reaches the window's colour.
        let text = try graph.treeText()
        #expect(text.contains("$top"))
        #expect(text.contains("UIColor"))
    }

    @Test func anIOSKeyedNibWhoseTopLevelListPointsOutsideItsObjectsIsRefused() throws {
        var archive = uikitKeyedNib()
        archive.top["UINibConnectionsKey"] = .uid(99)
        let error = try #require(throws: NIBArchiveError.self) { try NibObjectGraph(keyedArchive: archive) }
        #expect(error.code == .notAKeyedNib)
        #expect(error.message.contains("$top.UINibConnectionsKey"))
    }
}
