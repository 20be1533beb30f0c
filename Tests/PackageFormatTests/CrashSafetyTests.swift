import Foundation
import PackageFormat
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
            // Kill at a random moment of the saving loop, not of the process start: after its start or
            // one or two of its saves (the child says each), then up to 20 ms, on a fast machine or a loaded one.
            _ = started.fileHandleForReading.readData(ofLength: Int.random(in: 1...3, using: &generator))
            usleep(UInt32.random(in: 0...20_000, using: &generator))
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

    /// SIGTERM or SIGHUP during a library save (not `ict`'s): the signal ends
    /// the child as it would have, after its temporary folder is removed
    /// (`TemporaryItem`'s registration), and the package is a whole version.
    @Test(.enabled(if: stressTool != nil, "PackageSaveStress is not built beside the test bundle (swift build first)"), arguments: [SIGTERM, SIGHUP])
    func aSignalDuringASaveRemovesItsTemporaryFolder(signal: Int32) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Stress.ict")
        try StressVersion.package(0).save(to: path)
        // Started as a shell starts a command: no signal blocked (a child of
        // `Process` inherits this test thread's mask), every action the default.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        var all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(Self.stressTool!), strdup(path), nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        #expect(posix_spawn(&pid, Self.stressTool!, &actions, &attributes, argv, environ) == 0)
        // Bounded wait until a save of this child has its temporary folder, then signal.
        var sawTemporary = false
        for _ in 0..<20_000 where !sawTemporary {
            sawTemporary = try strayTemporaries(of: path).contains { $0.contains("-\(pid)-") }
            if !sawTemporary { usleep(500) }
        }
        kill(pid, signal)
        // Bounded wait for the end (30 s); a child still running then is killed and the test fails.
        var status: Int32 = 0
        var ended = false
        for _ in 0..<60_000 where !ended {
            ended = waitpid(pid, &status, WNOHANG) == pid
            if !ended { usleep(500) }
        }
        if !ended {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        #expect(sawTemporary, "no save of the child was seen under way")
        #expect(ended && status & 0x7F == signal, "ended by signal \(status & 0x7F), exit status \((status >> 8) & 0xFF)")
        #expect(try strayTemporaries(of: path).isEmpty)
        let version = try StressVersion.number(of: try PackageWrapper(readingFrom: path, mode: .eager))
        let expected = directory.appending("expected.ict")
        try StressVersion.package(version).save(to: expected, options: PackageSaveOptions(flushingToDisk: false))
        #expect(try snapshot(of: path) == snapshot(of: expected), "the package is not exactly version \(version)")
    }
}
