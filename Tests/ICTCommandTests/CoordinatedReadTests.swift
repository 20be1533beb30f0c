import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ict` reads a package whole in a coordinated read (issue 22): while
/// another process saves the package over and over, writing its two
/// entries one after the other in place (`CoordinationStress
/// save-package`, a save that is not one rename), every `ict convert
/// --format zip` of it holds the two entries of one save. The zips are
/// read back with Info-ZIP's `unzip`, not with ICTKit.
struct CoordinatedReadTests {
    static let stressTool = ICTRunner.executable.deletingLastPathComponent().appendingPathComponent("CoordinationStress")
    static let unzip = ["/usr/bin/unzip", "/bin/unzip"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: stressTool.path), "CoordinationStress is not built beside ict"),
        .enabled(if: unzip != nil, "unzip is not installed"))
    func convertNeverSeesAPackageMidSave() throws {
        let folder = try ScratchFolder.make("coordinated-read").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = folder + "/Doc.pkg"
        try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: false)
        for entry in ["a", "b"] {
            try Data(String(repeating: "0\n", count: 64).utf8).write(to: URL(fileURLWithPath: package + "/" + entry))
        }
        // Far more saves than the reads below take: the saver is still saving when they end.
        let saver = Process()
        saver.executableURL = Self.stressTool
        saver.arguments = ["save-package", package, "1000000"]
        let errors = Pipe()
        saver.standardError = errors
        try saver.run()
        defer {
            if saver.isRunning { kill(saver.processIdentifier, SIGKILL) }
            saver.waitUntilExit()
        }
        var reads = 0
        var mixes: [String] = []
        var failures: [String] = []
        for index in 0..<40 where saver.isRunning {
            let zip = folder + "/read-\(index).zip"
            let run = try ICTRunner.run(["convert", "--format", "zip", package, "-o", zip])
            guard run.status == 0 else {
                failures.append(run.stderr)
                continue
            }
            let a = try Self.entry("Doc.pkg/a", of: zip)
            let b = try Self.entry("Doc.pkg/b", of: zip)
            if a != b || a.split(separator: "\n").count != 64 { mixes.append("\(a.prefix(8).debugDescription) / \(b.prefix(8).debugDescription)") }
            reads += 1
            try? FileManager.default.removeItem(atPath: zip)
        }
        #expect(saver.isRunning, "the saver ended early: \(String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self))")
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        #expect(reads == 40)
        #expect(mixes.isEmpty, "\(mixes.count) of \(reads) reads saw a mix, as \(mixes.prefix(3))")
    }

    /// The entry `name` of the zip at `path`, as `unzip -p` gives it.
    static func entry(_ name: String, of path: String) throws -> String {
        try ProgramRunner.run(unzip ?? "/usr/bin/unzip", ["-p", path, name]).stdout
    }
}
