import Testing

@testable import ICTCommand

/// `ict --version`: the version defined once, in `ICTKitVersion`.
struct VersionCommandTests {
    @Test func versionFlagPrintsTheVersionFromTheSource() throws {
        let run = try ICTRunner.run(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout == ICTKitVersion.current + "\n")
        #expect(run.stderr.isEmpty)
    }
}
