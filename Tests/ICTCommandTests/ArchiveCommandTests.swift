import Foundation
import TestSupport
import Testing

/// End-to-end: `ict inspect`, `convert` and `validate` on keyed archives.
@Suite struct ArchiveCommandTests {
    static let keyed = InteropCorpus.root.appendingPathComponent("keyedarchive")

    static func scratch() throws -> URL {
        let folder = try ScratchFolder.make("archive")
        return folder
    }

    @Test(.interopCorpus)
    func archiveSurvivesJSONByteForByte() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        for source in [
            "bpylist2/complex_archive.plist", "bpylist2/circular_archive.plist",
            "swift-corelibs-foundation/NSKeyedUnarchiver-URLTest.plist",
            "swift-corelibs-foundation/macOS-10.14/NSMeasurement-Length.archive",
        ] {
            let ours = folder.appendingPathComponent("ours.archive").path
            let json = folder.appendingPathComponent("form.json").path
            let back = folder.appendingPathComponent("back.archive").path
            for arguments in [
                [Self.keyed.appendingPathComponent(source).path, "--format", "keyed-archive", "-o", ours],
                [ours, "--format", "json", "-o", json],
                [json, "--format", "keyed-archive", "-o", back],
            ] {
                let run = try ICTRunner.run(["convert"] + arguments)
                #expect(run.status == 0, "\(source): \(run.stderr)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: ours)) == Data(contentsOf: URL(fileURLWithPath: back)), "\(source)")
        }
        // A Foundation-written archive comes back as the very bytes Foundation wrote.
        let original = Self.keyed.appendingPathComponent("swift-corelibs-foundation/macOS-10.14/NSMutableAttributedString.archive")
        let json = folder.appendingPathComponent("apple.json").path
        let back = folder.appendingPathComponent("apple.archive").path
        #expect(try ICTRunner.run(["convert", original.path, "--format", "json", "-o", json]).status == 0)
        #expect(try ICTRunner.run(["convert", json, "--format", "keyed-archive", "-o", back]).status == 0)
        #expect(try Data(contentsOf: original) == Data(contentsOf: URL(fileURLWithPath: back)))
    }

    /// Interface Builder's nib and Xcode's state file (objects numbered
    /// otherwise than Foundation numbers them, top keys in Xcode's order):
    /// binary → json → binary gives the file's bytes, and so does binary → binary.
    @Test(.interopCorpus)
    func interfaceBuilderAndXcodeArchivesSurviveJSONByteForByte() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let realworld = Self.keyed.deletingLastPathComponent().appendingPathComponent("realworld")
        for source in [
            "cntrump-TextEdit/Edit.nib/keyedobjects.nib",
            "tuist-XcodeProj/Fixtures/iOS/Project.xcodeproj/project.xcworkspace/xcuserdata/pepicrft.xcuserdatad/UserInterfaceState.xcuserstate",
        ] {
            let original = realworld.appendingPathComponent(source)
            let json = folder.appendingPathComponent("form.json").path
            let back = folder.appendingPathComponent("back.archive").path
            let direct = folder.appendingPathComponent("direct.archive").path
            for arguments in [
                [original.path, "--format", "json", "-o", json], [json, "--format", "keyed-archive", "-o", back],
                [original.path, "--format", "keyed-archive", "-o", direct],
            ] {
                let run = try ICTRunner.run(["convert"] + arguments)
                #expect(run.status == 0, "\(source): \(run.stderr)")
            }
            #expect(try Data(contentsOf: original) == Data(contentsOf: URL(fileURLWithPath: back)), "\(source)")
            #expect(try Data(contentsOf: original) == Data(contentsOf: URL(fileURLWithPath: direct)), "\(source)")
        }
    }

    @Test(.interopCorpus)
    func inspectMarksCyclesAndSharedObjects() throws {
        let run = try ICTRunner.run(["inspect", Self.keyed.appendingPathComponent("bpylist2/circular_archive.plist").path])
        #expect(run.status == 0)
        #expect(
            run.stdout == """
                NSKeyedArchiver archive, 6 objects
                "root" => crap.Foo #1 {
                  "recursive" => crap.Foo #1 (cycle, shown above)
                  "title" => "hello"
                }

                """)
        let json = try ICTRunner.run(["inspect", "--json", Self.keyed.appendingPathComponent("bpylist2/circular_archive.plist").path])
        #expect(json.status == 0)
        #expect(json.stdout.contains("\"cycle\": 1"))
    }

    @Test(.interopCorpus)
    func validateReportsStructuralProblemsWithKeyPaths() throws {
        let files = ["invalid_uid_archive.plist", "no_class_meta_archive.plist", "invalid_type_archive.plist", "no_top_archive.plist"]
            .map { Self.keyed.appendingPathComponent("bpylist2/" + $0).path }
        let run = try ICTRunner.run(["validate"] + files)
        #expect(run.status == 1)
        #expect(run.stderr.contains("UID 10 refers past the 3 objects (at $top.root)"))
        #expect(run.stderr.contains("(at $objects[1].$class)"))
        #expect(run.stderr.contains("$archiver is \"NSArchiver\""))
        #expect(run.stderr.contains("no $top"))
        let good = try ICTRunner.run(["validate", Self.keyed.appendingPathComponent("bpylist2/simple_archive.plist").path])
        #expect(good.status == 0)
        #expect(good.stdout.hasSuffix("valid keyed archive (binary property list)\n"))
    }
}
