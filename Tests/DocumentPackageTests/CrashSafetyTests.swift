import DocumentPackage
import Foundation
import Testing

@testable import PackageSaveStress

/// Acceptance 2: a child process (`PackageSaveStress`) saves a package over
/// and over; it is killed with SIGKILL at a random moment, 200 times. After
/// each kill the package on disk opens and is exactly one version of the
/// child's sequence — the one before the interrupted save or the one after —
/// and stray temporaries never pile up: the next save removes them.
struct CrashSafetyTests {
    /// The stress tool, built beside this test bundle.
    private static let stressTool: String? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("PackageSaveStress").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }()

    @Test(.enabled(if: stressTool != nil, "PackageSaveStress is not built beside the test bundle (swift build first)"))
    func killedSavesLeaveExactlyTheOldOrTheNewVersion() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Stress.ict")
        try StressVersion.package(0).save(to: path)
        var lastVersion = 0
        var killsDuringASave = 0
        var generator = SystemRandomNumberGenerator()
        for round in 0..<200 {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: Self.stressTool!)
            child.arguments = [path]
            let started = Pipe()
            child.standardOutput = started
            try child.run()
            // Kill at a random moment of the saving loop, not of the process start.
            _ = started.fileHandleForReading.readData(ofLength: 1)
            usleep(UInt32.random(in: 0...60_000, using: &generator))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal, "kill \(round): the child ended by itself")

            let package = try PackageWrapper(readingFrom: path, mode: .eager)
            let version = try StressVersion.number(of: package)
            let expected = directory.appending("expected-\(round).ict")
            try StressVersion.package(version).save(to: expected, options: PackageSaveOptions(flushingToDisk: false))
            let actual = try snapshot(of: path)
            #expect(actual == (try snapshot(of: expected)), "kill \(round): the package is not exactly version \(version)")
            try FileManager.default.removeItem(atPath: expected)
            #expect(version >= lastVersion, "kill \(round): went back from version \(lastVersion) to \(version)")

            let strays = try strayTemporaries(of: path)
            let ofThisChild = strays.filter { $0.contains("-\(child.processIdentifier)-") }
            if !ofThisChild.isEmpty { killsDuringASave += 1 }
            #expect(ofThisChild.count <= 1, "kill \(round): \(ofThisChild)")
            if version > lastVersion {
                // The child saved at least once, and every save first removes earlier strays.
                #expect(strays == ofThisChild, "kill \(round): strays of earlier kills remain: \(strays)")
            }
            lastVersion = version
        }
        try PackageWrapper(readingFrom: path).save(to: path)
        #expect(try strayTemporaries(of: path).isEmpty)
        print("CrashSafetyTests: 200 kills, \(killsDuringASave) during a save, \(lastVersion) saves completed")
        #expect(lastVersion >= 10, "the child completed only \(lastVersion) saves")
        #expect(killsDuringASave >= 20, "only \(killsDuringASave) kills landed during a save")
    }
}
